//! Why a frame or footer signing input cannot be built.

use std::fmt;

/// Why a frame or footer signing input cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigningInputError {
    /// The key id is empty.
    EmptyKeyId,
    /// The algorithm name is empty.
    EmptyAlgorithm,
    /// The tag length is zero.
    ZeroTagLength,
    /// The element name is outside `[a-z][a-z0-9-]{0,63}`.
    InvalidElement {
        /// The name given.
        name: String,
    },
    /// An attribute or field name is outside `[a-z][a-z0-9_-]{0,63}`.
    InvalidAttributeName {
        /// The name given.
        name: String,
    },
    /// Two attributes or fields have the same name.
    DuplicateAttribute {
        /// The repeated name.
        name: String,
    },
    /// A `sig` attribute was passed in: the tag never covers itself.
    SigAttribute,
    /// A scanned frame's body span does not lie in the text given.
    BodyOutOfRange,
}

impl fmt::Display for SigningInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SigningInputError::EmptyKeyId => f.write_str("empty key id"),
            SigningInputError::EmptyAlgorithm => f.write_str("empty algorithm name"),
            SigningInputError::ZeroTagLength => f.write_str("tag length is zero"),
            SigningInputError::InvalidElement { name } => {
                write!(f, "invalid element name `{}`", name.escape_debug())
            }
            SigningInputError::InvalidAttributeName { name } => {
                write!(f, "invalid attribute name `{}`", name.escape_debug())
            }
            SigningInputError::DuplicateAttribute { name } => {
                write!(f, "duplicate attribute `{}`", name.escape_debug())
            }
            SigningInputError::SigAttribute => {
                f.write_str("the `sig` attribute is not part of the signing input")
            }
            SigningInputError::BodyOutOfRange => {
                f.write_str("the frame's body span does not lie in the text")
            }
        }
    }
}

impl std::error::Error for SigningInputError {}
