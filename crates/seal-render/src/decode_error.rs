//! Why the strict decoder rejected a text, and where.

use std::fmt;

/// A rejection by [`crate::decode`] or [`crate::decode_bytes`].
///
/// `offset` is the byte offset in the escaped text of the first byte of the offending character
/// or escape (the `\`), so a caller can point at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset in the escaped input where the offending character or escape starts.
    pub offset: usize,
    /// What is wrong there.
    pub kind: DecodeErrorKind,
}

/// The reasons a text is not in the image of the escaper (escape-v1 section "Rejections").
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A raw character outside the context's literal set (e.g. raw CR, TAB, non-ASCII, raw `"` in
    /// an attribute, raw `<` in a block, raw LF outside a block).
    RawCharacter {
        /// The character found.
        character: char,
    },
    /// `\` followed by a character that starts no escape (e.g. `\r`, `\U`).
    UnknownEscape {
        /// The character after the backslash.
        character: char,
    },
    /// A `\` at the very end of the input.
    TrailingBackslash,
    /// `\u` or `\x` not followed by `{`, or the digits not closed by `}` before the end.
    UnterminatedEscape,
    /// `\u{}` or `\x{}` with no digit.
    EmptyBraces,
    /// A `\u{..}` with more than 6 digits.
    TooManyDigits,
    /// A `\x{..}` without exactly two hex digits.
    ByteEscapeLength,
    /// A character inside braces that is not a lowercase hex digit (uppercase included).
    BadHex {
        /// The offending character.
        character: char,
    },
    /// A `\u{..}` with a leading zero (e.g. `\u{03c}`); only `\u{0}` may start with `0`.
    LeadingZero,
    /// An escape for a scalar that has a shorter canonical codeword in the context: a literal
    /// (`\u{41}`), one with a short escape (`\u{5c}`, `\u{9}`, `\u{a}` outside a block), or `\n`
    /// in a block, where LF is literal.
    NonCanonicalEscape {
        /// The scalar the escape denotes.
        scalar: char,
    },
    /// A `\u{..}` naming a surrogate code point `D800..=DFFF`.
    Surrogate {
        /// The code point named.
        value: u32,
    },
    /// A `\u{..}` naming a value above `10FFFF`.
    OutOfRange {
        /// The value named.
        value: u32,
    },
    /// A `\x{..}` byte escape in text mode ([`crate::decode`]), which only decodes scalars.
    ByteEscapeInText,
    /// A `\x{..}` byte escape whose byte, with its neighbours, forms valid UTF-8; the escaper
    /// writes such bytes as characters, so this spelling is not canonical.
    ByteEscapeOfValidUtf8,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::RawCharacter { character } => write!(
                f,
                "raw character `{}` is not literal in this context",
                character.escape_unicode()
            ),
            DecodeErrorKind::UnknownEscape { character } => {
                write!(f, "unknown escape `\\{}`", character.escape_default())
            }
            DecodeErrorKind::TrailingBackslash => f.write_str("trailing backslash"),
            DecodeErrorKind::UnterminatedEscape => f.write_str("escape not terminated by braces"),
            DecodeErrorKind::EmptyBraces => f.write_str("escape has no hex digits"),
            DecodeErrorKind::TooManyDigits => f.write_str("unicode escape has more than 6 digits"),
            DecodeErrorKind::ByteEscapeLength => {
                f.write_str("byte escape needs exactly two hex digits")
            }
            DecodeErrorKind::BadHex { character } => write!(
                f,
                "`{}` is not a lowercase hex digit",
                character.escape_default()
            ),
            DecodeErrorKind::LeadingZero => f.write_str("unicode escape has a leading zero"),
            DecodeErrorKind::NonCanonicalEscape { scalar } => write!(
                f,
                "escape of `{}` is not canonical in this context",
                scalar.escape_unicode()
            ),
            DecodeErrorKind::Surrogate { value } => {
                write!(f, "unicode escape names surrogate `{value:x}`")
            }
            DecodeErrorKind::OutOfRange { value } => {
                write!(f, "unicode escape `{value:x}` is above 10ffff")
            }
            DecodeErrorKind::ByteEscapeInText => f.write_str("byte escape in text mode"),
            DecodeErrorKind::ByteEscapeOfValidUtf8 => {
                f.write_str("byte escape of a byte that is part of valid utf-8")
            }
        }
    }
}

impl std::error::Error for DecodeError {}
