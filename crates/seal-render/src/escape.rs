//! The escape-v1 encoder: text or bytes to ASCII in one context.

use std::borrow::Cow;

use crate::context::{class, Class, Context};
use crate::scan::first_non_literal;

/// Escapes `text` for `ctx` (escape-v1).
///
/// Guarantees: the output is printable ASCII (`0x20..=0x7E`) plus, in [`Context::Block`] only,
/// LF; [`crate::decode`] gives back exactly `text`; two different inputs never give the same
/// output. Returns `Cow::Borrowed(text)` when every byte is already literal.
///
/// ```
/// use seal_render::{escape, Context};
/// assert_eq!(escape("a\u{202e}b\\", Context::Inline), "a\\u{202e}b\\\\");
/// assert_eq!(escape("</x>", Context::Block), "\\u{3c}/x>");
/// ```
#[must_use]
pub fn escape(text: &str, ctx: Context) -> Cow<'_, str> {
    let Some(first) = first_non_literal(text.as_bytes(), ctx) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(estimate(text.len()));
    escape_into_from(&mut out, text, first, ctx);
    Cow::Owned(out)
}

/// Escapes `bytes` for `ctx` in byte mode (escape-v1).
///
/// The input is split as by `<[u8]>::utf8_chunks`: valid UTF-8 is escaped exactly as by
/// [`escape`], and each byte of an invalid sequence becomes `\x{hh}` (two lowercase hex digits).
/// Guarantees: ASCII output as for [`escape`]; [`crate::decode_bytes`] gives back exactly `bytes`;
/// injective. Returns a borrow when every byte is already literal.
///
/// ```
/// use seal_render::{escape_bytes, Context};
/// assert_eq!(escape_bytes(b"ok\xff\xe2\x82", Context::Inline), "ok\\x{ff}\\x{e2}\\x{82}");
/// ```
#[must_use]
pub fn escape_bytes(bytes: &[u8], ctx: Context) -> Cow<'_, str> {
    let first = first_non_literal(bytes, ctx);
    if first.is_none() {
        // Every byte is printable ASCII (or LF), hence valid UTF-8.
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(estimate(bytes.len()));
    for chunk in bytes.utf8_chunks() {
        escape_into(&mut out, chunk.valid(), ctx);
        for &b in chunk.invalid() {
            out.push_str("\\x{");
            push_hex_digit(&mut out, b >> 4);
            push_hex_digit(&mut out, b & 0xf);
            out.push('}');
        }
    }
    Cow::Owned(out)
}

/// Appends the escape of `text` to `out`.
///
/// Equivalent to `out.push_str(&escape(text, ctx))` without the intermediate allocation; used by
/// the renderers to write a whole frame into one buffer.
pub fn escape_into(out: &mut String, text: &str, ctx: Context) {
    match first_non_literal(text.as_bytes(), ctx) {
        None => out.push_str(text),
        Some(first) => escape_into_from(out, text, first, ctx),
    }
}

/// The codeword of one scalar `c` in `ctx`, appended to `out`.
///
/// This is the unit of the prefix code: a literal is the single ASCII character itself, every
/// other scalar is a self-delimiting escape starting with `\`.
pub fn push_codeword(out: &mut String, c: char, ctx: Context) {
    // `u8::try_from(char)` accepts up to U+00FF; the table gives `NonAscii` for `0x80..`.
    let kind = u8::try_from(c).map_or(Class::NonAscii as u8, |b| class(ctx.table(), b));
    match kind {
        k if k == Class::Literal as u8 => out.push(c),
        k if k == Class::Backslash as u8 => out.push_str("\\\\"),
        k if k == Class::LineFeed as u8 => out.push_str("\\n"),
        k if k == Class::Tab as u8 => out.push_str("\\t"),
        _ => push_unicode_escape(out, u32::from(c)),
    }
}

/// Output capacity for an input of `len` bytes: exact for clean text, a little room otherwise.
fn estimate(len: usize) -> usize {
    len.saturating_add(len / 8).saturating_add(16)
}

/// Escapes `text` into `out`, where `text[..first]` is known to be literal.
fn escape_into_from(out: &mut String, text: &str, first: usize, ctx: Context) {
    let (head, mut rest) = text.split_at_checked(first).unwrap_or(("", text));
    out.push_str(head);
    loop {
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { return };
        push_codeword(out, c, ctx);
        rest = chars.as_str();
        // The byte after a literal run is ASCII or a UTF-8 lead byte, so a char boundary.
        let run = first_non_literal(rest.as_bytes(), ctx).unwrap_or(rest.len());
        let (literal, tail) = rest.split_at_checked(run).unwrap_or((rest, ""));
        out.push_str(literal);
        rest = tail;
    }
}

/// Appends `\u{h..h}` with minimal lowercase hex digits.
fn push_unicode_escape(out: &mut String, value: u32) {
    out.push_str("\\u{");
    let digits = (32 - value.leading_zeros()).div_ceil(4).max(1);
    let mut shift = digits * 4;
    while shift > 0 {
        shift -= 4;
        // The mask keeps the nibble below 16, so the cast loses nothing.
        push_hex_digit(out, ((value >> shift) & 0xf) as u8);
    }
    out.push('}');
}

/// Appends the lowercase hex digit for `nibble` (`0..16`).
#[inline(always)]
fn push_hex_digit(out: &mut String, nibble: u8) {
    let digit = if nibble < 10 {
        b'0' + nibble
    } else {
        b'a' + (nibble & 0xf) - 10
    };
    out.push(char::from(digit));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_escape_is_minimal_lowercase() {
        let cases = [
            (0u32, "\\u{0}"),
            (0xf, "\\u{f}"),
            (0x10, "\\u{10}"),
            (0x3c, "\\u{3c}"),
            (0xfeff, "\\u{feff}"),
            (0x10ffff, "\\u{10ffff}"),
        ];
        for (value, expected) in cases {
            let mut out = String::new();
            push_unicode_escape(&mut out, value);
            assert_eq!(out, expected);
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(
            escape("hello world", Context::Attribute),
            Cow::Borrowed(_)
        ));
        assert!(matches!(escape("a\nb", Context::Block), Cow::Borrowed(_)));
        assert!(matches!(
            escape_bytes(b"a<b", Context::Inline),
            Cow::Borrowed(_)
        ));
        assert!(matches!(escape("a\nb", Context::Inline), Cow::Owned(_)));
    }

    #[test]
    fn short_escapes_per_context() {
        assert_eq!(escape("\\\n\t", Context::Inline), "\\\\\\n\\t");
        assert_eq!(escape("\\\n\t", Context::Block), "\\\\\n\\t");
        assert_eq!(escape("\"<>", Context::Attribute), "\\u{22}\\u{3c}\\u{3e}");
        assert_eq!(escape("\"<>", Context::Inline), "\"<>");
        assert_eq!(escape("\"<>", Context::Block), "\"\\u{3c}>");
        assert_eq!(
            escape("\r\u{0}\u{7f}", Context::Block),
            "\\u{d}\\u{0}\\u{7f}"
        );
    }
}
