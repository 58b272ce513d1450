//! The value tree: what a parsed document is, and what callers build documents from.

use std::borrow::Cow;
use std::fmt;

use super::ill_formed::IllFormedString;
use super::literal::NumberLiteral;
use super::number::Number;
use super::order::compare_keys;
use super::write::write_value;

/// A JSON value that is canonical by construction.
///
/// Strings borrow from the parsed input when they contain no escape (`'a` is the input's
/// lifetime; use [`Value::into_owned`] for a `Value<'static>`). Numbers are [`Number`]s (finite,
/// no negative zero); objects are [`Object`]s (duplicate-free, members in canonical order).
/// Two values are equal exactly when their canonical bytes are equal.
///
/// Two variants hold what only the lossless profile ([`parse_lossless`](super::parse_lossless),
/// for foreign documents) accepts: [`Value::NumberLiteral`] (a number kept as written) and
/// [`Value::IllFormedString`] (a string with a lone surrogate). The strict profile
/// ([`parse`](super::parse)) never yields them, so a value without them is a strict value and its
/// canonical bytes are the strict canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string (any Unicode scalar values; lone surrogates cannot occur).
    String(Cow<'a, str>),
    /// An array, in document order.
    Array(Vec<Value<'a>>),
    /// An object.
    Object(Object<'a>),
    /// Lossless profile only: a number literal that is not the canonical spelling of a
    /// [`Number`] (`1.0`, `-0`, `12345678901234567000`), kept and written as is.
    NumberLiteral(NumberLiteral<'a>),
    /// Lossless profile only: a string holding a lone surrogate. It is not text:
    /// [`Value::as_str`] returns `None` for it.
    IllFormedString(IllFormedString),
}

/// A JSON object: unique keys, members kept sorted by the UTF-16 code units of their keys
/// (RFC 8785 §3.2.3), so iteration order is canonical order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Value<'a>)>,
}

/// An object was given the same key twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKeyError {
    /// The key.
    pub key: String,
}

impl fmt::Display for DuplicateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "duplicate key `{}`", self.key.escape_debug())
    }
}

impl std::error::Error for DuplicateKeyError {}

impl<'a> Value<'a> {
    /// The RFC 8785 canonical bytes of this value (UTF-8, no whitespace).
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_canonical(&mut out);
        out
    }

    /// Appends the canonical bytes of this value to `out`. Iterative: any nesting depth is safe.
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        write_value(self, out);
    }

    /// A copy that owns all its strings.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(flag) => Value::Bool(flag),
            Value::Number(number) => Value::Number(number),
            Value::String(text) => Value::String(Cow::Owned(text.into_owned())),
            Value::Array(items) => Value::Array(items.into_iter().map(Value::into_owned).collect()),
            Value::Object(object) => Value::Object(object.into_owned()),
            Value::NumberLiteral(literal) => Value::NumberLiteral(literal.into_owned()),
            Value::IllFormedString(string) => Value::IllFormedString(string),
        }
    }

    /// The string of UTF-16 code units `units`: [`Value::String`] when they are well-formed
    /// UTF-16, else [`Value::IllFormedString`] (lone surrogates kept).
    pub fn from_utf16(units: &[u16]) -> Value<'static> {
        match IllFormedString::from_code_units(units) {
            Some(string) => Value::IllFormedString(string),
            // Well-formed: the conversion replaces nothing.
            None => Value::String(Cow::Owned(String::from_utf16_lossy(units))),
        }
    }

    /// The string, if this is a string of Unicode text. `None` for an
    /// [`IllFormedString`](Value::IllFormedString): it has no exact `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The number, if this is a number the strict profile can hold: a [`Value::Number`], or a
    /// [`Value::NumberLiteral`] the strict profile accepts ([`NumberLiteral::as_number`]).
    pub fn as_number(&self) -> Option<Number> {
        match self {
            Value::Number(number) => Some(*number),
            Value::NumberLiteral(literal) => literal.as_number(),
            _ => None,
        }
    }

    /// The literal, if this is a number kept as written (lossless profile).
    pub fn as_number_literal(&self) -> Option<&NumberLiteral<'a>> {
        match self {
            Value::NumberLiteral(literal) => Some(literal),
            _ => None,
        }
    }

    /// The string, if this is a string with a lone surrogate (lossless profile).
    pub fn as_ill_formed_string(&self) -> Option<&IllFormedString> {
        match self {
            Value::IllFormedString(string) => Some(string),
            _ => None,
        }
    }

    /// The flag, if this is a boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The object, if this is an object.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(object) => Some(object),
            _ => None,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl<'a> From<Number> for Value<'a> {
    fn from(number: Number) -> Self {
        Value::Number(number)
    }
}

impl<'a> From<bool> for Value<'a> {
    fn from(flag: bool) -> Self {
        Value::Bool(flag)
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(text: &'a str) -> Self {
        Value::String(Cow::Borrowed(text))
    }
}

impl<'a> From<String> for Value<'a> {
    fn from(text: String) -> Self {
        Value::String(Cow::Owned(text))
    }
}

impl<'a> From<Object<'a>> for Value<'a> {
    fn from(object: Object<'a>) -> Self {
        Value::Object(object)
    }
}

impl<'a> From<Vec<Value<'a>>> for Value<'a> {
    fn from(items: Vec<Value<'a>>) -> Self {
        Value::Array(items)
    }
}

impl<'a> Object<'a> {
    /// An empty object.
    pub fn new() -> Self {
        Object {
            members: Vec::new(),
        }
    }

    /// Builds an object from members in any order; rejects a repeated key.
    pub fn from_members(
        mut members: Vec<(Cow<'a, str>, Value<'a>)>,
    ) -> Result<Self, DuplicateKeyError> {
        members.sort_by(|(a, _), (b, _)| compare_keys(a, b));
        if let Some(key) = first_repeated_key(&members) {
            return Err(DuplicateKeyError {
                key: key.to_owned(),
            });
        }
        Ok(Object { members })
    }

    /// Adds a member at its canonical position; rejects a key that is already present.
    pub fn insert(
        &mut self,
        key: impl Into<Cow<'a, str>>,
        value: impl Into<Value<'a>>,
    ) -> Result<(), DuplicateKeyError> {
        let key = key.into();
        match self.position(&key) {
            Ok(_) => Err(DuplicateKeyError {
                key: key.into_owned(),
            }),
            Err(at) => {
                self.members.insert(at, (key, value.into()));
                Ok(())
            }
        }
    }

    /// Removes the member with this key and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value<'a>> {
        let at = self.position(key).ok()?;
        Some(self.members.remove(at).1)
    }

    /// The value of the member with this key.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        let at = self.position(key).ok()?;
        self.members.get(at).map(|(_, value)| value)
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True when there are no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members in canonical order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value<'a>)> {
        self.members
            .iter()
            .map(|(key, value)| (key.as_ref(), value))
    }

    /// The members in canonical order, as stored.
    pub fn members(&self) -> &[(Cow<'a, str>, Value<'a>)] {
        &self.members
    }

    /// The members in canonical order, by value.
    pub fn into_members(self) -> Vec<(Cow<'a, str>, Value<'a>)> {
        self.members
    }

    /// A copy that owns all its strings.
    pub fn into_owned(self) -> Object<'static> {
        Object {
            members: self
                .members
                .into_iter()
                .map(|(key, value)| (Cow::Owned(key.into_owned()), value.into_owned()))
                .collect(),
        }
    }

    /// Wraps members that are already sorted and duplicate-free (checked by the parser).
    pub(crate) fn from_sorted_unique(members: Vec<(Cow<'a, str>, Value<'a>)>) -> Self {
        Object { members }
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.members
            .binary_search_by(|(probe, _)| compare_keys(probe, key))
    }
}

/// The first key that appears twice in members sorted by [`compare_keys`].
pub(crate) fn first_repeated_key<'m>(members: &'m [(Cow<'_, str>, Value<'_>)]) -> Option<&'m str> {
    members.windows(2).find_map(|pair| match pair {
        [(a, _), (b, _)] if a == b => Some(a.as_ref()),
        _ => None,
    })
}
