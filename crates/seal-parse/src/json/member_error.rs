//! A refusal of one member of a flat document, named without the object's path: the form in
//! which the record readers and the approval wire responses report what `Fields` refused.

use std::fmt;

use super::fields::{FieldError, FieldErrorKind};

/// What is wrong with one member of a flat document (a stored record, an approval response),
/// named by the member alone.
///
/// A number out of range and an array over its limit count as a member of the wrong type
/// (`a value in range`): such documents set no limits of their own worth reporting apart.
///
/// ```
/// use seal_parse::json::{parse, Fields, JsonLimits, MemberError};
///
/// let value = parse(br#"{"id":"k1","extra":true}"#, &JsonLimits::default())?;
/// let fields = Fields::of(&value, "")?;
/// let error = MemberError::of(fields.only(&["id"]).unwrap_err());
/// assert_eq!(error, Some(MemberError::UnknownField { field: "extra".to_owned() }));
/// assert_eq!(error.unwrap().to_string(), "unknown field `extra`");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemberError {
    /// A member the document's type does not define.
    UnknownField {
        /// The member.
        field: String,
    },
    /// A required member is absent.
    MissingField {
        /// The member.
        field: &'static str,
    },
    /// A member has the wrong JSON type or range.
    WrongType {
        /// The member.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

impl MemberError {
    /// The member refusal of `error`, or `None` when the value read is not an object at all
    /// (or for any refusal added to [`FieldErrorKind`] later, which the caller reports as its
    /// document not being an object).
    pub fn of(error: FieldError) -> Option<MemberError> {
        match error.kind {
            FieldErrorKind::Missing { name } => Some(MemberError::MissingField { field: name }),
            FieldErrorKind::Unknown { name } => Some(MemberError::UnknownField { field: name }),
            FieldErrorKind::WrongType { name, expected } => Some(MemberError::WrongType {
                field: name,
                expected,
            }),
            FieldErrorKind::NotAnInteger { name } | FieldErrorKind::TooMany { name, .. } => {
                Some(MemberError::WrongType {
                    field: name,
                    expected: "a value in range",
                })
            }
            _ => None,
        }
    }
}

impl fmt::Display for MemberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemberError::UnknownField { field } => {
                write!(f, "unknown field `{}`", field.escape_debug())
            }
            MemberError::MissingField { field } => write!(f, "missing field `{field}`"),
            MemberError::WrongType { field, expected } => {
                write!(f, "field `{field}` must be {expected}")
            }
        }
    }
}

impl std::error::Error for MemberError {}
