//! Decoding JSON string literals: escapes, surrogate pairs, and what the decoded text goes into.

use std::borrow::Cow;

use super::error::Located;
use super::string::{is_special, plain_prefix_len, write_escape};
use super::JsonErrorKind;

/// Receives a decoded string: runs copied from the input (never holding `"`, `\` or a control
/// character) and characters produced by escapes.
pub(crate) trait Unescaped {
    /// True when the target wants the escapes `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` kept
    /// as written inside runs (they are already RFC 8785's spelling of their characters).
    const KEEPS_SHORT_ESCAPES: bool;
    /// A run of the input without escapes (or, with [`Self::KEEPS_SHORT_ESCAPES`], with only
    /// those short escapes).
    fn run(&mut self, run: &str);
    /// A character produced by an escape.
    fn char(&mut self, c: char);
    /// A `\u` escape of a surrogate that is not part of a high-low pair, offered only under
    /// the lossless profile. Returns false when the target cannot hold it exactly (decoded text,
    /// which is Unicode scalar values only): the decoder then rejects the string.
    fn lone_surrogate(&mut self, unit: u16) -> bool;
}

/// The decoded text itself.
impl Unescaped for String {
    const KEEPS_SHORT_ESCAPES: bool = false;

    fn run(&mut self, run: &str) {
        self.push_str(run);
    }

    fn char(&mut self, c: char) {
        self.push(c);
    }

    fn lone_surrogate(&mut self, _unit: u16) -> bool {
        false
    }
}

/// The canonical (RFC 8785) spelling of the decoded text, between its quotes: runs are already
/// canonical, escaped characters are re-escaped only where RFC 8785 requires it.
impl Unescaped for Vec<u8> {
    const KEEPS_SHORT_ESCAPES: bool = true;

    fn run(&mut self, run: &str) {
        self.extend_from_slice(run.as_bytes());
    }

    fn char(&mut self, c: char) {
        match u8::try_from(c) {
            Ok(byte) if is_special(byte) => write_escape(byte, self),
            _ => self.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }

    /// Kept as the escape `\udxxx` (lowercase hex): the lossless profile's canonical spelling.
    fn lone_surrogate(&mut self, unit: u16) -> bool {
        write_unit_escape(unit, self);
        true
    }
}

/// Appends `\uxxxx` for `unit`, lowercase hex.
pub(crate) fn write_unit_escape(unit: u16, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(b"\\u");
    for shift in [12_u16, 8, 4, 0] {
        let nibble = usize::from((unit >> shift) & 0x0f);
        out.push(HEX.get(nibble).copied().unwrap_or(b'0'));
    }
}

/// The string whose opening quote is at `quote`, and the offset after its closing quote.
/// A string without escapes is borrowed from `text`. Used for keys, which are text under both
/// profiles: a lone surrogate in a key is always rejected.
pub(crate) fn scan(text: &str, quote: usize) -> Result<(Cow<'_, str>, usize), Located> {
    let start = quote + 1;
    let plain = start + plain_prefix_len(text.as_bytes().get(start..).unwrap_or(&[]));
    if text.as_bytes().get(plain) == Some(&b'"') {
        let run = text
            .get(start..plain)
            .ok_or((start, JsonErrorKind::InvalidUtf8))?;
        return Ok((Cow::Borrowed(run), plain + 1));
    }
    let mut decoded = String::new();
    let end = decode(text, start, &mut decoded, false)?;
    Ok((Cow::Owned(decoded), end))
}

/// Decodes string content starting at `from` (just after the opening quote) into `out`; returns
/// the offset after the closing quote. With `keep_lone` (the lossless profile) a lone surrogate
/// escape is handed to [`Unescaped::lone_surrogate`] instead of being rejected.
pub(crate) fn decode<U: Unescaped>(
    text: &str,
    from: usize,
    out: &mut U,
    keep_lone: bool,
) -> Result<usize, Located> {
    let bytes = text.as_bytes();
    let mut pos = from;
    let mut run_start = pos;
    loop {
        pos += plain_prefix_len(bytes.get(pos..).unwrap_or(&[]));
        if U::KEEPS_SHORT_ESCAPES && bytes.get(pos) == Some(&b'\\') {
            if let Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') = bytes.get(pos + 1) {
                pos += 2;
                continue;
            }
        }
        let run = text
            .get(run_start..pos)
            .ok_or((run_start, JsonErrorKind::InvalidUtf8))?;
        out.run(run);
        match bytes.get(pos) {
            None => return Err((pos, JsonErrorKind::UnexpectedEnd)),
            Some(b'"') => return Ok(pos + 1),
            Some(b'\\') => {
                pos = escape(text, pos, out, keep_lone)?;
                run_start = pos;
            }
            Some(&control) => {
                let found = char::from(control);
                return Err((pos, JsonErrorKind::ControlCharacterInString { found }));
            }
        }
    }
}

/// Decodes the escape whose backslash is at `at`; returns the offset after it.
fn escape<U: Unescaped>(
    text: &str,
    at: usize,
    out: &mut U,
    keep_lone: bool,
) -> Result<usize, Located> {
    let short = match text.as_bytes().get(at + 1) {
        None => return Err((at + 1, JsonErrorKind::UnexpectedEnd)),
        Some(b'u') => return unicode_escape(text.as_bytes(), at, out, keep_lone),
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(_) => {
            let found = text
                .get(at + 1..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or('\u{fffd}');
            return Err((at, JsonErrorKind::InvalidEscape { found }));
        }
    };
    out.char(short);
    Ok(at + 2)
}

fn unicode_escape<U: Unescaped>(
    bytes: &[u8],
    at: usize,
    out: &mut U,
    keep_lone: bool,
) -> Result<usize, Located> {
    let unit = hex4(bytes, at + 2).ok_or((at, JsonErrorKind::InvalidUnicodeEscape))?;
    let lone = |out: &mut U| {
        if keep_lone && out.lone_surrogate(unit) {
            Ok(at + 6)
        } else {
            Err((at, JsonErrorKind::LoneSurrogate { code_unit: unit }))
        }
    };
    let (scalar, end) = match unit {
        0xd800..=0xdbff => {
            let second = at + 6;
            if bytes.get(second..second + 2) != Some(b"\\u".as_slice()) {
                return lone(out);
            }
            let low =
                hex4(bytes, second + 2).ok_or((second, JsonErrorKind::InvalidUnicodeEscape))?;
            if !(0xdc00..=0xdfff).contains(&low) {
                // The high half is lone; the escape after it is read on its own.
                return lone(out);
            }
            (
                0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00),
                at + 12,
            )
        }
        0xdc00..=0xdfff => return lone(out),
        other => (u32::from(other), at + 6),
    };
    let scalar =
        char::from_u32(scalar).ok_or((at, JsonErrorKind::LoneSurrogate { code_unit: unit }))?;
    out.char(scalar);
    Ok(end)
}

fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0_u16, |acc, &digit| {
        let nibble = char::from(digit).to_digit(16)?;
        u16::try_from(nibble).ok().map(|nibble| acc << 4 | nibble)
    })
}
