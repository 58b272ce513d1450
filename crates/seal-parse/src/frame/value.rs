//! The strict decoder for attribute values (escape-v1, `Attribute` context).
//!
//! seal-parse does not depend on the renderer, so it carries this small decoder of its own; the
//! test suite checks it against the renderer's decoder on generated input.

use std::borrow::Cow;
use std::fmt;

/// Decodes the text between the quotes of a frame attribute.
///
/// Accepts exactly the canonical escape-v1 encodings in the `Attribute` context: printable ASCII
/// except `\` `"` `<` `>` as literals; `\\`, `\n`, `\t`; `\u{h..h}` with 1 to 6 lowercase,
/// minimal hex digits for any other scalar. Rejects `\x{..}`, escapes of characters that are
/// literal or have a short escape, surrogates, values above U+10FFFF, and every raw character
/// outside the literal set. Borrows when the value holds no escape.
///
/// # Errors
///
/// [`ValueError`] names the first offending byte offset.
pub fn decode_attribute_value(escaped: &str) -> Result<Cow<'_, str>, ValueError> {
    let bytes = escaped.as_bytes();
    let Some(first) = bytes.iter().position(|&b| !is_literal(b)) else {
        return Ok(Cow::Borrowed(escaped));
    };
    let mut out = String::with_capacity(escaped.len());
    out.push_str(escaped.get(..first).unwrap_or_default());
    let mut at = first;
    while let Some(&byte) = bytes.get(at) {
        if is_literal(byte) {
            out.push(char::from(byte));
            at += 1;
            continue;
        }
        if byte != b'\\' {
            let character = escaped
                .get(at..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(ValueError::RawCharacter {
                offset: at,
                character,
            });
        }
        let (decoded, next) = decode_escape(bytes, at)?;
        out.push(decoded);
        at = next;
    }
    Ok(Cow::Owned(out))
}

/// Why an attribute value is not canonical escape-v1 in the `Attribute` context.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// A raw character that must be escaped (control, non-ASCII, `"`, `<` or `>`).
    RawCharacter {
        /// Byte offset in the value.
        offset: usize,
        /// The character found.
        character: char,
    },
    /// A `\` at the end of the value.
    TrailingBackslash {
        /// Byte offset of the `\`.
        offset: usize,
    },
    /// A `\` followed by something that is not an escape of this context (including `\x`).
    UnknownEscape {
        /// Byte offset of the `\`.
        offset: usize,
    },
    /// A `\u{..}` that is malformed: missing braces, no digits, more than 6 digits, uppercase or
    /// non-hex digits, or a leading zero.
    MalformedUnicodeEscape {
        /// Byte offset of the `\`.
        offset: usize,
    },
    /// A `\u{..}` naming a surrogate or a value above U+10FFFF.
    NotAScalar {
        /// Byte offset of the `\`.
        offset: usize,
    },
    /// A `\u{..}` for a character that is literal here or has a short escape.
    NonCanonicalEscape {
        /// Byte offset of the `\`.
        offset: usize,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::RawCharacter { offset, character } => write!(
                f,
                "raw character `{}` at byte {offset} must be escaped",
                character.escape_default()
            ),
            ValueError::TrailingBackslash { offset } => {
                write!(f, "lone `\\` at the end of the value (byte {offset})")
            }
            ValueError::UnknownEscape { offset } => {
                write!(f, "unknown escape at byte {offset}")
            }
            ValueError::MalformedUnicodeEscape { offset } => {
                write!(f, "malformed `\\u{{..}}` escape at byte {offset}")
            }
            ValueError::NotAScalar { offset } => {
                write!(
                    f,
                    "`\\u{{..}}` at byte {offset} is not a unicode scalar value"
                )
            }
            ValueError::NonCanonicalEscape { offset } => write!(
                f,
                "`\\u{{..}}` at byte {offset} escapes a character with a shorter canonical form"
            ),
        }
    }
}

impl std::error::Error for ValueError {}

/// Whether `byte` is written as itself in an `Attribute` context value: printable ASCII except
/// `\`, `"`, `<` and `>` (one load from [`LITERAL`]).
pub(crate) fn is_literal(byte: u8) -> bool {
    LITERAL
        .get(usize::from(byte))
        .is_some_and(|&literal| literal)
}

/// The bytes [`is_literal`] accepts, as a table indexed by the byte.
// The index stays below 256.
#[allow(clippy::indexing_slicing)]
static LITERAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0x20;
    while byte <= 0x7e {
        table[byte] = !matches!(byte as u8, b'\\' | b'"' | b'<' | b'>');
        byte += 1;
    }
    table
};

/// Decodes the escape whose `\` is at `at`; returns the character and the offset after it.
fn decode_escape(bytes: &[u8], at: usize) -> Result<(char, usize), ValueError> {
    let offset = at;
    match bytes.get(at + 1) {
        None => Err(ValueError::TrailingBackslash { offset }),
        Some(b'\\') => Ok(('\\', at + 2)),
        Some(b'n') => Ok(('\n', at + 2)),
        Some(b't') => Ok(('\t', at + 2)),
        Some(b'u') => decode_unicode(bytes, at),
        Some(_) => Err(ValueError::UnknownEscape { offset }),
    }
}

/// Decodes `\u{h..h}` starting at `at`.
fn decode_unicode(bytes: &[u8], at: usize) -> Result<(char, usize), ValueError> {
    let offset = at;
    let malformed = ValueError::MalformedUnicodeEscape { offset };
    if bytes.get(at + 2) != Some(&b'{') {
        return Err(malformed);
    }
    let digits_start = at + 3;
    let mut value: u32 = 0;
    let mut count = 0usize;
    loop {
        let Some(&b) = bytes.get(digits_start + count) else {
            return Err(malformed);
        };
        let digit = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'a'..=b'f' => u32::from(b - b'a' + 10),
            b'}' => break,
            _ => return Err(malformed),
        };
        if count == 6 || (count == 1 && value == 0) {
            return Err(malformed);
        }
        value = value * 16 + digit;
        count += 1;
    }
    if count == 0 {
        return Err(malformed);
    }
    let c = char::from_u32(value).ok_or(ValueError::NotAScalar { offset })?;
    let short_or_literal = matches!(c, '\\' | '\n' | '\t') || u8::try_from(c).is_ok_and(is_literal);
    if short_or_literal {
        return Err(ValueError::NonCanonicalEscape { offset });
    }
    Ok((c, digits_start + count + 1))
}
