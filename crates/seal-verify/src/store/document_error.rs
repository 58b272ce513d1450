//! Errors of store document parsing, with the JSON path of the offending value.

use std::fmt;

use seal_parse::json::JsonError;

use super::record::{KeyRecordError, ScopeError};
use crate::base64url::Base64Error;
use crate::tag::TagLengthError;

/// A store document was refused: where (`$.keys[1].status`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError {
    /// JSON path of the value at fault.
    pub path: String,
    /// What is wrong.
    pub kind: DocumentErrorKind,
}

/// The kinds of document refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentErrorKind {
    /// The text is not a document of the canonical JSON profile.
    Json(JsonError),
    /// The value has the wrong JSON type.
    WrongType {
        /// The type expected, in words.
        expected: &'static str,
    },
    /// A member that this format does not define (or not for this algorithm or status).
    UnknownField {
        /// The member name.
        name: String,
    },
    /// A required member is absent.
    MissingField {
        /// The member name.
        name: &'static str,
    },
    /// `type` is not `seal/trust-store/v1`.
    DocumentType {
        /// The type found.
        found: String,
    },
    /// A number that is not a non-negative integer within 2^53.
    NotAnInteger,
    /// An integer outside the allowed range.
    OutOfRange {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A key id outside the grammar.
    KeyId {
        /// The id.
        id: String,
    },
    /// Two keys with one id.
    DuplicateKeyId {
        /// The id.
        id: String,
    },
    /// An algorithm name other than `ed25519` and `hmac-sha256`.
    Algorithm {
        /// The name found.
        found: String,
    },
    /// A status other than `active`, `verify-only` and `revoked`.
    Status {
        /// The status found.
        found: String,
    },
    /// A base64url field that is not canonical.
    Base64(Base64Error),
    /// A decoded key, digest or signature of the wrong length.
    ByteLength {
        /// Bytes expected.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// A `tag_chars` the format refuses.
    TagLength(TagLengthError),
    /// A frame scope the grammar refuses.
    Scope(ScopeError),
    /// A key record the rules refuse (inverted window, store update on an HMAC key).
    Record(KeyRecordError),
    /// `threshold` is larger than the number of distinct store-update keys.
    ThresholdUnreachable {
        /// The threshold.
        threshold: u64,
        /// Distinct store-update fingerprints in the document.
        signers: usize,
    },
    /// More entries than the limit allows.
    TooMany {
        /// The limit.
        max: usize,
    },
}

impl DocumentErrorKind {
    /// A stable snake_case name of the kind, as used in the golden vectors.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Json(_) => "json",
            Self::WrongType { .. } => "wrong_type",
            Self::UnknownField { .. } => "unknown_field",
            Self::MissingField { .. } => "missing_field",
            Self::DocumentType { .. } => "document_type",
            Self::NotAnInteger => "not_an_integer",
            Self::OutOfRange { .. } => "out_of_range",
            Self::KeyId { .. } => "key_id",
            Self::DuplicateKeyId { .. } => "duplicate_key_id",
            Self::Algorithm { .. } => "algorithm",
            Self::Status { .. } => "status",
            Self::Base64(_) => "base64",
            Self::ByteLength { .. } => "byte_length",
            Self::TagLength(_) => "tag_length",
            Self::Scope(_) => "scope",
            Self::Record(_) => "record",
            Self::ThresholdUnreachable { .. } => "threshold_unreachable",
            Self::TooMany { .. } => "too_many",
        }
    }
}

impl DocumentError {
    pub(crate) fn new(path: &str, kind: DocumentErrorKind) -> DocumentError {
        DocumentError {
            path: path.to_owned(),
            kind,
        }
    }
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.kind)
    }
}

impl fmt::Display for DocumentErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json(error) => write!(f, "not canonical-profile json: {error}"),
            Self::WrongType { expected } => write!(f, "expected {expected}"),
            Self::UnknownField { name } => write!(f, "unknown field `{}`", name.escape_debug()),
            Self::MissingField { name } => write!(f, "missing field `{name}`"),
            Self::DocumentType { found } => {
                write!(
                    f,
                    "document type `{}` is not supported",
                    found.escape_debug()
                )
            }
            Self::NotAnInteger => f.write_str("expected a non-negative integer"),
            Self::OutOfRange { min, max } => write!(f, "integer is outside {min}..={max}"),
            Self::KeyId { id } => write!(f, "`{}` is not a key id", id.escape_debug()),
            Self::DuplicateKeyId { id } => {
                write!(f, "key id `{}` appears twice", id.escape_debug())
            }
            Self::Algorithm { found } => {
                write!(f, "algorithm `{}` is not supported", found.escape_debug())
            }
            Self::Status { found } => write!(f, "status `{}` is not defined", found.escape_debug()),
            Self::Base64(error) => write!(f, "{error}"),
            Self::ByteLength { expected, found } => {
                write!(f, "{found} bytes, expected {expected}")
            }
            Self::TagLength(error) => write!(f, "{error}"),
            Self::Scope(error) => write!(f, "{error}"),
            Self::Record(error) => write!(f, "{error}"),
            Self::ThresholdUnreachable { threshold, signers } => write!(
                f,
                "threshold {threshold} exceeds the {signers} distinct store-update keys"
            ),
            Self::TooMany { max } => write!(f, "more than {max} entries"),
        }
    }
}

impl std::error::Error for DocumentError {}
