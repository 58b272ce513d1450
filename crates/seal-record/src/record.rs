//! Records: values with a `_type` and one canonical byte form.

use std::fmt;

use seal_parse::json::{Canonical, JsonError, MemberError};

use crate::text::{is_identifier, text_problem, TextProblem};

/// The member that names a record's type in its JSON form.
pub const TYPE_FIELD: &str = "_type";

/// Longest identifier (call id, approval id, tool name) in a record, in bytes.
pub const MAX_IDENTIFIER_BYTES: usize = 256;

/// Longest free-text reason in a record, in Unicode scalar values.
pub const MAX_REASON_CHARS: usize = 2000;

/// A record: a JSON object with a `_type` member whose RFC 8785 canonical bytes are what is
/// hashed, chained and signed.
pub trait Record {
    /// The `_type` value, a domain string such as `seal/call/v1`.
    fn record_type(&self) -> &'static str;

    /// The canonical bytes of the JSON form and their SHA-256.
    fn canonical(&self) -> Canonical;
}

/// Why a sealed call or an audit event cannot be built or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordError {
    /// An identifier is empty, longer than [`MAX_IDENTIFIER_BYTES`], or not printable ASCII
    /// without space.
    InvalidIdentifier {
        /// The field.
        field: &'static str,
        /// The value given.
        value: String,
    },
    /// A text field is empty or only whitespace.
    BlankField {
        /// The field.
        field: &'static str,
    },
    /// A text field contains a control, bidi or invisible character.
    ForbiddenCharacter {
        /// The field.
        field: &'static str,
        /// The first such character.
        character: char,
    },
    /// A text field is longer than its limit.
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length in Unicode scalar values.
        len: usize,
        /// The maximum.
        max: usize,
    },
    /// Tool arguments are not canonical-profile JSON.
    Arguments(JsonError),
    /// A stored record is not canonical-profile JSON.
    Json(JsonError),
    /// A stored record is not a JSON object.
    NotAnObject,
    /// A member of a stored record is one its type does not define (for `approval/asked`, this
    /// is where smuggled arguments are refused), is missing, or has the wrong JSON type.
    Member(MemberError),
    /// A stored record's `_type` is not the one expected.
    WrongRecordType {
        /// The type expected.
        expected: &'static str,
        /// The value found.
        found: String,
    },
    /// A digest member is not 64 lowercase hexadecimal digits.
    InvalidDigest {
        /// The member.
        field: &'static str,
        /// The text found.
        text: String,
    },
    /// A sealed call's `arguments_sha256` is not the SHA-256 of its canonical arguments.
    ArgumentsDigestMismatch,
    /// An outcome outside `allowed-once | rejected | cancelled | unavailable`.
    UnknownOutcome {
        /// The text found.
        text: String,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::InvalidIdentifier { field, value } => write!(
                f,
                "field `{field}` is not an identifier: `{}`",
                value.escape_debug()
            ),
            RecordError::BlankField { field } => write!(f, "field `{field}` is blank"),
            RecordError::ForbiddenCharacter { field, character } => write!(
                f,
                "field `{field}` contains the forbidden character `{}`",
                character.escape_unicode()
            ),
            RecordError::TooLong { field, len, max } => {
                write!(f, "field `{field}` has length {len}, more than {max}")
            }
            RecordError::Arguments(error) => write!(f, "invalid tool arguments: {error}"),
            RecordError::Json(error) => write!(f, "invalid json: {error}"),
            RecordError::NotAnObject => f.write_str("record is not a json object"),
            RecordError::Member(error) => error.fmt(f),
            RecordError::WrongRecordType { expected, found } => write!(
                f,
                "record type `{}` where `{expected}` was expected",
                found.escape_debug()
            ),
            RecordError::InvalidDigest { field, text } => write!(
                f,
                "field `{field}` is not 64 lowercase hexadecimal digits: `{}`",
                text.escape_debug()
            ),
            RecordError::ArgumentsDigestMismatch => {
                f.write_str("`arguments_sha256` is not the digest of the arguments")
            }
            RecordError::UnknownOutcome { text } => {
                write!(f, "unknown approval outcome `{}`", text.escape_debug())
            }
        }
    }
}

impl std::error::Error for RecordError {}

pub(crate) fn identifier(field: &'static str, value: &str) -> Result<String, RecordError> {
    if is_identifier(value, MAX_IDENTIFIER_BYTES) {
        Ok(value.to_owned())
    } else {
        Err(RecordError::InvalidIdentifier {
            field,
            value: value.to_owned(),
        })
    }
}

pub(crate) fn reason_text(field: &'static str, value: &str) -> Result<String, RecordError> {
    match text_problem(value, MAX_REASON_CHARS) {
        None => Ok(value.to_owned()),
        Some(TextProblem::Blank) => Err(RecordError::BlankField { field }),
        Some(TextProblem::ForbiddenChar(character)) => {
            Err(RecordError::ForbiddenCharacter { field, character })
        }
        Some(TextProblem::TooLong(len)) => Err(RecordError::TooLong {
            field,
            len,
            max: MAX_REASON_CHARS,
        }),
    }
}
