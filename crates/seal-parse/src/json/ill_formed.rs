//! Strings that are not Unicode text: a JSON string whose `\u` escapes leave a lone surrogate.

use std::fmt;

use super::string::{is_special, write_escape, write_string};
use super::unescape::{self, write_unit_escape, Unescaped};

/// A string value of the lossless profile holding at least one lone surrogate: a sequence of
/// UTF-16 code units that is not well-formed UTF-16, so it is not a Rust `str`.
///
/// The strict profile rejects such strings (`lone_surrogate`); the lossless profile
/// ([`parse_lossless`](super::parse_lossless)) keeps them exactly, as this type. It is
/// deliberately not text: [`Value::as_str`](super::Value::as_str) returns `None` for it, so a
/// rule, a path check or a display never sees a repaired version by accident. What it offers:
///
/// - [`IllFormedString::literal`]: its canonical JSON string literal, quotes included: RFC 8785
///   escaping for the characters, and each lone surrogate as `\udxxx` (lowercase hex). This is
///   what the canonical writer emits, and it parses back (lossless profile) to the same string.
/// - [`IllFormedString::code_units`]: the exact UTF-16 code units.
/// - [`IllFormedString::to_string_lossy`]: text with U+FFFD for each lone surrogate, for
///   display only (it is not the value: two different strings can give the same lossy text).
///
/// Two ill-formed strings are equal exactly when their code units are equal, which is exactly
/// when their literals are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IllFormedString {
    /// The canonical literal, quotes included; holds at least one `\udxxx` of a lone surrogate.
    literal: String,
}

impl IllFormedString {
    /// The canonical JSON string literal, quotes included (`"\ud800x"`). ASCII except for the
    /// characters RFC 8785 writes as literal UTF-8.
    pub fn literal(&self) -> &str {
        &self.literal
    }

    /// The string as UTF-16 code units, lone surrogates included.
    pub fn code_units(&self) -> Vec<u16> {
        let mut units = CodeUnits(Vec::with_capacity(self.literal.len()));
        // The literal is canonical by construction, so it decodes; on the impossible error the
        // units read so far are returned.
        let _ = unescape::decode(&self.literal, 1, &mut units, true);
        units.0
    }

    /// The string with U+FFFD in place of each lone surrogate. For display only: this is not
    /// the value (`"\ud800"` and `"\ufffd"` give the same lossy text).
    pub fn to_string_lossy(&self) -> String {
        char::decode_utf16(self.code_units())
            .map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    /// The string of `units` when they are not well-formed UTF-16, `None` when they are (they
    /// are then text: [`String::from_utf16`]).
    pub fn from_code_units(units: &[u16]) -> Option<IllFormedString> {
        if char::decode_utf16(units.iter().copied()).all(|unit| unit.is_ok()) {
            return None;
        }
        let mut literal = Vec::with_capacity(units.len() + 8);
        literal.push(b'"');
        for unit in char::decode_utf16(units.iter().copied()) {
            match unit {
                Ok(c) => match u8::try_from(c) {
                    Ok(byte) if is_special(byte) => write_escape(byte, &mut literal),
                    _ => literal.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                },
                Err(lone) => write_unit_escape(lone.unpaired_surrogate(), &mut literal),
            }
        }
        literal.push(b'"');
        IllFormedString::from_literal(literal)
    }

    /// Wraps a canonical literal written by this crate (quotes included, at least one lone
    /// surrogate escape). Only canonical writers call it.
    pub(crate) fn from_literal(literal: Vec<u8>) -> Option<IllFormedString> {
        String::from_utf8(literal)
            .ok()
            .map(|literal| IllFormedString { literal })
    }

    /// Appends the canonical literal to `out`.
    pub(crate) fn write_canonical(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.literal.as_bytes());
    }
}

impl fmt::Display for IllFormedString {
    /// Writes the canonical literal (quotes and escapes included): exact, and never mistaken for
    /// text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.literal)
    }
}

/// The decoded target of a string value under the lossless profile: the text itself while every
/// escape is well formed; from the first lone surrogate on, the canonical literal.
pub(crate) enum Decoded {
    /// Unicode text so far.
    Text(String),
    /// The canonical literal so far: opening quote and content, no closing quote yet.
    Literal(Vec<u8>),
}

impl Default for Decoded {
    fn default() -> Self {
        Decoded::Text(String::new())
    }
}

impl Unescaped for Decoded {
    const KEEPS_SHORT_ESCAPES: bool = false;

    fn run(&mut self, run: &str) {
        match self {
            Decoded::Text(text) => text.push_str(run),
            // A run holds no `"`, `\` or control character: it is canonical as is.
            Decoded::Literal(literal) => literal.extend_from_slice(run.as_bytes()),
        }
    }

    fn char(&mut self, c: char) {
        match self {
            Decoded::Text(text) => text.push(c),
            Decoded::Literal(literal) => literal.char(c),
        }
    }

    fn lone_surrogate(&mut self, unit: u16) -> bool {
        if let Decoded::Text(text) = self {
            let mut literal = Vec::with_capacity(text.len() + 16);
            write_string(text, &mut literal);
            // Reopened: the closing quote comes when the string ends.
            literal.pop();
            *self = Decoded::Literal(literal);
        }
        if let Decoded::Literal(literal) = self {
            write_unit_escape(unit, literal);
        }
        true
    }
}

/// Collects the code units of a decoded string.
struct CodeUnits(Vec<u16>);

impl Unescaped for CodeUnits {
    const KEEPS_SHORT_ESCAPES: bool = false;

    fn run(&mut self, run: &str) {
        self.0.extend(run.encode_utf16());
    }

    fn char(&mut self, c: char) {
        self.0.extend_from_slice(c.encode_utf16(&mut [0; 2]));
    }

    fn lone_surrogate(&mut self, unit: u16) -> bool {
        self.0.push(unit);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_units_round_trip() {
        let units = [
            0xd800,
            u16::from(b'"'),
            0x41,
            0xd83d,
            0xde00,
            0xdc00,
            0x1f,
            0xe9,
        ];
        let string = IllFormedString::from_code_units(&units).unwrap();
        assert_eq!(
            string.literal(),
            "\"\\ud800\\\"A\u{1f600}\\udc00\\u001f\u{e9}\""
        );
        assert_eq!(string.code_units(), units);
        assert_eq!(
            string.to_string_lossy(),
            "\u{fffd}\"A\u{1f600}\u{fffd}\u{1f}\u{e9}"
        );
        assert!(IllFormedString::from_code_units(&[0x41, 0xd83d, 0xde00]).is_none());
    }
}
