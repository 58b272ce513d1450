//! Errors of key loading and signature checks.

use std::fmt;

use crate::base64url::Base64Error;

/// Why a tag or signature was not accepted.
///
/// For the operator's report only: toward the sender every variant is the same "bad signature".
/// [`SignatureError::Length`] and [`SignatureError::Encoding`] are decided before any
/// comparison with the expected tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureError {
    /// The tag is not of the key's length (bytes for the binary form, characters for the text
    /// form).
    Length {
        /// Length the key requires.
        expected: usize,
        /// Length presented.
        found: usize,
    },
    /// The text form is not canonical base64url of the key's length.
    Encoding(Base64Error),
    /// The binary form has set bits past the key's tag length.
    TrailingBits,
    /// The tag does not match.
    Mismatch,
}

impl SignatureError {
    /// A stable snake_case name of the error, as used in the golden vectors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Length { .. } => "length",
            Self::Encoding(_) => "encoding",
            Self::TrailingBits => "trailing_bits",
            Self::Mismatch => "mismatch",
        }
    }
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { expected, found } => {
                write!(f, "tag has length {found}, the key requires {expected}")
            }
            Self::Encoding(error) => write!(f, "tag is not canonical base64url: {error}"),
            Self::TrailingBits => f.write_str("tag has set bits past the key's tag length"),
            Self::Mismatch => f.write_str("tag does not match"),
        }
    }
}

impl std::error::Error for SignatureError {}

/// Why key material was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// An HMAC secret with no bytes.
    EmptySecret,
    /// A frame key secret shorter than the floor a trust store document applies when it binds
    /// a secret.
    SecretTooShort {
        /// Bytes given.
        len: usize,
        /// The floor: 32 bytes.
        min: usize,
    },
    /// A tag length that no frame key may have.
    TagChars {
        /// The length asked for, in base64url characters.
        chars: u8,
        /// Why it is refused.
        error: crate::tag::TagLengthError,
    },
    /// An HMAC secret longer than [`MAX_SECRET_BYTES`](crate::MAX_SECRET_BYTES).
    SecretTooLong {
        /// Bytes given.
        len: usize,
        /// The maximum.
        max: usize,
    },
    /// An Ed25519 public key or seed that is not 32 bytes.
    Ed25519Length {
        /// Bytes given.
        len: usize,
    },
    /// ring refused the Ed25519 seed.
    Ed25519Seed,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptySecret => f.write_str("hmac secret is empty"),
            Self::SecretTooShort { len, min } => {
                write!(
                    f,
                    "frame key secret is {len} bytes, at least {min} are needed"
                )
            }
            Self::TagChars { chars, error } => {
                write!(f, "a tag of {chars} characters is refused: {error}")
            }
            Self::SecretTooLong { len, max } => {
                write!(f, "hmac secret of {len} bytes is longer than {max}")
            }
            Self::Ed25519Length { len } => {
                write!(f, "ed25519 key of {len} bytes, expected 32")
            }
            Self::Ed25519Seed => f.write_str("ed25519 seed was refused"),
        }
    }
}

impl std::error::Error for KeyError {}
