//! One typed reader over a JSON object: members by name, each with the type it must have,
//! unknown members refused, every refusal naming where it is.

use std::fmt;

use super::number::MAX_EXACT_INTEGER;
use super::value::{Object, Value};

/// A typed reader of one object's members (spec/canonical-json.md section 13).
///
/// Every getter records the member it read; [`Fields::finish`] then refuses any member that was
/// never read, and [`Fields::only`] refuses, up front, any member outside a known list. A
/// refusal is a [`FieldError`]: the path of the object (`at`, given by the caller: `$`,
/// `manifest.files[2]`, or empty for a document's root) and what is wrong.
///
/// ```
/// use seal_parse::json::{parse, Fields, FieldErrorKind, JsonLimits};
///
/// let value = parse(br#"{"id":"k1","n":3,"extra":true}"#, &JsonLimits::default())?;
/// let mut fields = Fields::of(&value, "$")?;
/// assert_eq!(fields.string("id")?, "k1");
/// assert_eq!(fields.integer("n")?, 3);
/// let error = fields.finish().unwrap_err();
/// assert_eq!(error.kind, FieldErrorKind::Unknown { name: "extra".to_owned() });
/// assert_eq!(error.to_string(), "$.extra: unknown member");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Fields<'v, 'a> {
    object: &'v Object<'a>,
    at: String,
    read: Vec<&'static str>,
}

/// Why an object's members were refused: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The path of the object read (as the caller named it; empty for a document's root).
    pub at: String,
    /// What is wrong.
    pub kind: FieldErrorKind,
}

/// What is wrong with an object's members.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldErrorKind {
    /// The value at `at` is not an object.
    NotAnObject,
    /// A required member is absent.
    Missing {
        /// The member.
        name: &'static str,
    },
    /// A member the format does not define.
    Unknown {
        /// The member.
        name: String,
    },
    /// A member of the wrong JSON type.
    WrongType {
        /// The member.
        name: &'static str,
        /// What it must be, in words (`a string`).
        expected: &'static str,
    },
    /// A number member that is not an integer from 0 to 2^53.
    NotAnInteger {
        /// The member.
        name: &'static str,
    },
    /// An array member longer than its limit.
    TooMany {
        /// The member.
        name: &'static str,
        /// Its length.
        count: usize,
        /// The limit.
        max: usize,
    },
}

/// The path of member `name` of the object at `at`: `at.name`, or `name` when `at` is empty.
pub fn member_path(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

impl<'v, 'a> Fields<'v, 'a> {
    /// A reader of `value`, which must be an object ([`FieldErrorKind::NotAnObject`]).
    pub fn of(value: &'v Value<'a>, at: &str) -> Result<Fields<'v, 'a>, FieldError> {
        match value.as_object() {
            Some(object) => Ok(Fields::new(object, at)),
            None => Err(FieldError {
                at: at.to_owned(),
                kind: FieldErrorKind::NotAnObject,
            }),
        }
    }

    /// A reader of `object`, found at `at`.
    pub fn new(object: &'v Object<'a>, at: &str) -> Fields<'v, 'a> {
        Fields {
            object,
            at: at.to_owned(),
            read: Vec::new(),
        }
    }

    /// The path of the object.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// The path of member `name` ([`member_path`]).
    pub fn path(&self, name: &str) -> String {
        member_path(&self.at, name)
    }

    /// The object read.
    pub fn object(&self) -> &'v Object<'a> {
        self.object
    }

    /// Refuses the first member (in document order) that is not in `known`.
    pub fn only(&self, known: &[&str]) -> Result<(), FieldError> {
        match self.object.iter().find(|(name, _)| !known.contains(name)) {
            Some((name, _)) => Err(self.error(FieldErrorKind::Unknown {
                name: name.to_owned(),
            })),
            None => Ok(()),
        }
    }

    /// Refuses the first member (in document order) that no getter read.
    pub fn finish(self) -> Result<(), FieldError> {
        let read = &self.read;
        self.only(read)
    }

    /// Member `name`, if present.
    pub fn optional(&mut self, name: &'static str) -> Option<&'v Value<'a>> {
        self.read.push(name);
        self.object.get(name)
    }

    /// Member `name` ([`FieldErrorKind::Missing`] when absent).
    pub fn value(&mut self, name: &'static str) -> Result<&'v Value<'a>, FieldError> {
        self.optional(name)
            .ok_or_else(|| self.error(FieldErrorKind::Missing { name }))
    }

    /// String member `name`.
    pub fn string(&mut self, name: &'static str) -> Result<&'v str, FieldError> {
        let value = self.value(name)?;
        value.as_str().ok_or_else(|| self.wrong(name, "a string"))
    }

    /// String member `name`, if present.
    pub fn optional_string(&mut self, name: &'static str) -> Result<Option<&'v str>, FieldError> {
        match self.optional(name) {
            None => Ok(None),
            Some(value) => value
                .as_str()
                .map(Some)
                .ok_or_else(|| self.wrong(name, "a string")),
        }
    }

    /// Boolean member `name`.
    pub fn bool(&mut self, name: &'static str) -> Result<bool, FieldError> {
        let value = self.value(name)?;
        value
            .as_bool()
            .ok_or_else(|| self.wrong(name, "true or false"))
    }

    /// Integer member `name`, from 0 to 2^53 ([`MAX_EXACT_INTEGER`]): a member that is not a
    /// number is [`FieldErrorKind::WrongType`], a number outside that range or with a fraction
    /// [`FieldErrorKind::NotAnInteger`].
    pub fn integer(&mut self, name: &'static str) -> Result<u64, FieldError> {
        let number = self
            .value(name)?
            .as_number()
            .ok_or_else(|| self.wrong(name, "a non-negative integer"))?;
        number
            .as_i64()
            .and_then(|integer| u64::try_from(integer).ok())
            .filter(|integer| *integer <= MAX_EXACT_INTEGER)
            .ok_or_else(|| self.error(FieldErrorKind::NotAnInteger { name }))
    }

    /// Array member `name` of at most `max` items.
    pub fn array(&mut self, name: &'static str, max: usize) -> Result<&'v [Value<'a>], FieldError> {
        let items = self
            .value(name)?
            .as_array()
            .ok_or_else(|| self.wrong(name, "an array"))?;
        if items.len() > max {
            return Err(self.error(FieldErrorKind::TooMany {
                name,
                count: items.len(),
                max,
            }));
        }
        Ok(items)
    }

    /// Object member `name`, as a reader of its own at [`Fields::path`].
    pub fn nested(&mut self, name: &'static str) -> Result<Fields<'v, 'a>, FieldError> {
        let path = self.path(name);
        let value = self.value(name)?;
        match value.as_object() {
            Some(object) => Ok(Fields::new(object, &path)),
            None => Err(self.wrong(name, "an object")),
        }
    }

    fn wrong(&self, name: &'static str, expected: &'static str) -> FieldError {
        self.error(FieldErrorKind::WrongType { name, expected })
    }

    fn error(&self, kind: FieldErrorKind) -> FieldError {
        FieldError {
            at: self.at.clone(),
            kind,
        }
    }
}

impl FieldError {
    /// The path of the value at fault: the member's ([`member_path`]), or the object's for
    /// [`FieldErrorKind::NotAnObject`].
    pub fn path(&self) -> String {
        match &self.kind {
            FieldErrorKind::NotAnObject => self.at.clone(),
            FieldErrorKind::Unknown { name } => member_path(&self.at, name),
            FieldErrorKind::Missing { name }
            | FieldErrorKind::WrongType { name, .. }
            | FieldErrorKind::NotAnInteger { name }
            | FieldErrorKind::TooMany { name, .. } => member_path(&self.at, name),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path().escape_debug().to_string();
        match &self.kind {
            FieldErrorKind::NotAnObject => write!(f, "{path}: must be an object"),
            FieldErrorKind::Missing { .. } => write!(f, "{path}: missing"),
            FieldErrorKind::Unknown { .. } => write!(f, "{path}: unknown member"),
            FieldErrorKind::WrongType { expected, .. } => write!(f, "{path}: must be {expected}"),
            FieldErrorKind::NotAnInteger { .. } => {
                write!(f, "{path}: must be an integer from 0 to 2^53")
            }
            FieldErrorKind::TooMany { count, max, .. } => {
                write!(f, "{path}: {count} items, more than the limit of {max}")
            }
        }
    }
}

impl std::error::Error for FieldError {}
