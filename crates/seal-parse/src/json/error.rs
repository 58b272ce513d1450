//! Errors of the canonical JSON parser.

use std::fmt;

/// An error before it is given its path: byte offset and kind.
pub(crate) type Located = (usize, JsonErrorKind);

/// Why a document was rejected, where, and at which JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset into the input where the problem was found (for a duplicate key: the opening
    /// quote of its second occurrence).
    pub offset: usize,
    /// JSON path of the innermost value being read, e.g. `$.a[3].b`; keys that are not plain
    /// identifiers are written as `["key"]` with canonical string escaping.
    pub path: String,
    /// What is wrong.
    pub kind: JsonErrorKind,
}

/// The kinds of rejection. Each has a stable snake_case [`name`](JsonErrorKind::name).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonErrorKind {
    /// The input is longer than [`JsonLimits::max_bytes`](super::JsonLimits::max_bytes).
    InputTooLarge {
        /// Input length in bytes.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
    /// Arrays and objects nest deeper than [`JsonLimits::max_depth`](super::JsonLimits::max_depth).
    DepthExceeded {
        /// The configured maximum.
        max: usize,
    },
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// The input starts with a byte order mark (U+FEFF), which RFC 8259 does not allow to be added.
    ByteOrderMark,
    /// The input ended in the middle of a value, or was empty.
    UnexpectedEnd,
    /// A character that cannot start or continue what was expected here.
    UnexpectedCharacter {
        /// The character found.
        found: char,
        /// What was expected, in words.
        expected: &'static str,
    },
    /// A complete value is followed by something other than whitespace.
    TrailingCharacters,
    /// A raw control character (U+0000..=U+001F) inside a string.
    ControlCharacterInString {
        /// The control character.
        found: char,
    },
    /// A backslash followed by a character that is not a JSON escape.
    InvalidEscape {
        /// The character after the backslash.
        found: char,
    },
    /// A `\u` escape without four hexadecimal digits.
    InvalidUnicodeEscape,
    /// A `\u` escape of a surrogate that is not part of a high-low pair.
    LoneSurrogate {
        /// The UTF-16 code unit.
        code_unit: u16,
    },
    /// A number literal outside the JSON grammar (leading zero, missing digits).
    InvalidNumber {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A number whose magnitude does not fit a finite double (`1e400`).
    NumberOutOfRange {
        /// The literal as written.
        literal: String,
    },
    /// An integer beyond ±2^53 written without fraction or exponent, or a number whose canonical
    /// form would be such an integer (magnitude above 2^53 and below 10^21).
    IntegerOutOfRange {
        /// The literal as written.
        literal: String,
    },
    /// A number whose decimal value differs from that of the double it denotes
    /// (`0.10000000000000001`, `1e-400`), under [`NumberRule::Exact`](super::NumberRule::Exact).
    NumberNotExact {
        /// The literal as written.
        literal: String,
        /// The shortest ECMAScript form of the nearest double.
        nearest: String,
    },
    /// An object has two members with the same (unescaped) key.
    DuplicateKey {
        /// The key.
        key: String,
    },
}

impl JsonErrorKind {
    /// A stable snake_case name for the kind, used in golden vectors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::InputTooLarge { .. } => "input_too_large",
            Self::DepthExceeded { .. } => "depth_exceeded",
            Self::InvalidUtf8 => "invalid_utf8",
            Self::ByteOrderMark => "byte_order_mark",
            Self::UnexpectedEnd => "unexpected_end",
            Self::UnexpectedCharacter { .. } => "unexpected_character",
            Self::TrailingCharacters => "trailing_characters",
            Self::ControlCharacterInString { .. } => "control_character_in_string",
            Self::InvalidEscape { .. } => "invalid_escape",
            Self::InvalidUnicodeEscape => "invalid_unicode_escape",
            Self::LoneSurrogate { .. } => "lone_surrogate",
            Self::InvalidNumber { .. } => "invalid_number",
            Self::NumberOutOfRange { .. } => "number_out_of_range",
            Self::IntegerOutOfRange { .. } => "integer_out_of_range",
            Self::NumberNotExact { .. } => "number_not_exact",
            Self::DuplicateKey { .. } => "duplicate_key",
        }
    }
}

impl fmt::Display for JsonErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InputTooLarge { len, max } => {
                write!(f, "input of {len} bytes exceeds the limit of {max} bytes")
            }
            Self::DepthExceeded { max } => write!(f, "nesting exceeds the depth limit of {max}"),
            Self::InvalidUtf8 => f.write_str("input is not valid UTF-8"),
            Self::ByteOrderMark => f.write_str("input starts with a byte order mark"),
            Self::UnexpectedEnd => f.write_str("unexpected end of input"),
            Self::UnexpectedCharacter { found, expected } => write!(
                f,
                "unexpected character `{}`, expected {expected}",
                found.escape_debug()
            ),
            Self::TrailingCharacters => f.write_str("trailing characters after the value"),
            Self::ControlCharacterInString { found } => write!(
                f,
                "raw control character `{}` in string",
                found.escape_unicode()
            ),
            Self::InvalidEscape { found } => {
                write!(f, "invalid escape `\\{}` in string", found.escape_debug())
            }
            Self::InvalidUnicodeEscape => f.write_str("`\\u` escape needs four hexadecimal digits"),
            Self::LoneSurrogate { code_unit } => {
                write!(f, "lone surrogate `\\u{code_unit:04x}` in string")
            }
            Self::InvalidNumber { reason } => write!(f, "invalid number: {reason}"),
            Self::NumberOutOfRange { literal } => {
                write!(f, "number `{literal}` is outside the range of a double")
            }
            Self::IntegerOutOfRange { literal } => {
                write!(
                    f,
                    "number `{literal}` is an integer beyond the exact range of ±2^53"
                )
            }
            Self::NumberNotExact { literal, nearest } => write!(
                f,
                "number `{literal}` is not exactly a double (the nearest is `{nearest}`)"
            ),
            Self::DuplicateKey { key } => write!(f, "duplicate key `{}`", key.escape_debug()),
        }
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {} ({})", self.kind, self.offset, self.path)
    }
}

impl std::error::Error for JsonError {}
