//! The escape-v1 encoder: text or bytes to ASCII in one context.
//!
//! The encoder writes into a `Vec<u8>` and turns it into a `String` once at the end: every byte it
//! writes is ASCII, so the final UTF-8 check always succeeds and no per-codeword check is needed.

use std::borrow::Cow;

use crate::context::{attribute_table, block_table, inline_table, Class, Context};
use crate::scan::{first_non_literal, non_literal_mask, MASK_BLOCK};

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
    let mut out = Vec::with_capacity(estimate(text.len()));
    escape_from(&mut out, text, first, ctx);
    Cow::Owned(ascii_string(out))
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
    if first_non_literal(bytes, ctx).is_none() {
        // Every byte is printable ASCII (or LF), hence valid UTF-8.
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = Vec::with_capacity(estimate(bytes.len()));
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        match first_non_literal(valid.as_bytes(), ctx) {
            None => out.extend_from_slice(valid.as_bytes()),
            Some(first) => escape_from(&mut out, valid, first, ctx),
        }
        for &b in chunk.invalid() {
            out.extend_from_slice(&[
                b'\\',
                b'x',
                b'{',
                hex_digit(b >> 4),
                hex_digit(b & 0xf),
                b'}',
            ]);
        }
    }
    Cow::Owned(ascii_string(out))
}

/// Appends the escape of `text` to `out`; the same bytes as `out.push_str(&escape(text, ctx))`.
///
/// Used by the renderers to write a whole element into one buffer.
pub fn escape_into(out: &mut String, text: &str, ctx: Context) {
    match first_non_literal(text.as_bytes(), ctx) {
        None => out.push_str(text),
        Some(first) => {
            let mut escaped = Vec::with_capacity(estimate(text.len()));
            escape_from(&mut escaped, text, first, ctx);
            out.push_str(&ascii_string(escaped));
        }
    }
}

/// The codeword of one scalar `c` in `ctx`, appended to `out`.
///
/// This is the unit of the prefix code: a literal is the single ASCII character itself, every
/// other scalar is a self-delimiting escape starting with `\`.
pub fn push_codeword(out: &mut String, c: char, ctx: Context) {
    let mut codeword = Vec::with_capacity(10);
    match u8::try_from(c) {
        Ok(b) if b.is_ascii() => push_ascii_codeword(&mut codeword, b, ctx),
        _ => push_unicode_escape(&mut codeword, u32::from(c)),
    }
    out.push_str(&ascii_string(codeword));
}

/// Output capacity for an input of `len` bytes: exact for clean text, a little room otherwise.
fn estimate(len: usize) -> usize {
    len.saturating_add(len / 2).saturating_add(16)
}

/// The escaper's output as a `String`. It writes ASCII only, so the check always passes; the
/// lossy branch exists only so that no path can panic.
fn ascii_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| {
        debug_assert!(false, "the escaper wrote a byte that is not ASCII");
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    })
}

/// Escapes `text` into `out`, where `text[..first]` is known to be literal.
///
/// Works in blocks of 64 bytes: one pass computes a bitmask of the non-literal bytes, then each
/// set bit is one codeword, with the literal run before it copied in bulk. Bits of continuation
/// bytes of a scalar already written are skipped by the cursor `i`.
fn escape_from(out: &mut Vec<u8>, text: &str, first: usize, ctx: Context) {
    let bytes = text.as_bytes();
    let mut run_start = 0;
    let mut i = first;
    let mut block_start = first;
    while let Some(block) = bytes.get(block_start..).filter(|b| !b.is_empty()) {
        let mut mask = non_literal_mask(block, ctx);
        while mask != 0 {
            let at = block_start + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if at < i {
                continue;
            }
            // Literal bytes are ASCII, so `at` (after a literal run) is a char boundary. A set bit
            // is a byte of the text, and the cursor never passes it: both reads succeed.
            debug_assert!(
                run_start <= at && at < bytes.len(),
                "mask bit outside the run"
            );
            out.extend_from_slice(bytes.get(run_start..at).unwrap_or_default());
            let b = bytes.get(at).copied().unwrap_or_default();
            if b.is_ascii() {
                push_ascii_codeword(out, b, ctx);
                i = at + 1;
            } else {
                let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                    return;
                };
                push_unicode_escape(out, u32::from(c));
                i = at + c.len_utf8();
            }
            run_start = i;
        }
        block_start += MASK_BLOCK;
    }
    debug_assert!(run_start <= bytes.len(), "escape cursor past the end");
    out.extend_from_slice(bytes.get(run_start..).unwrap_or_default());
}

/// Appends the codeword of the ASCII byte `b` in `ctx`: one lookup in a precomputed table.
#[inline(always)]
fn push_ascii_codeword(out: &mut Vec<u8>, b: u8, ctx: Context) {
    let table = match ctx {
        Context::Inline => &INLINE_CODEWORDS,
        Context::Attribute => &ATTRIBUTE_CODEWORDS,
        Context::Block => &BLOCK_CODEWORDS,
    };
    // Both callers pass an ASCII byte, which the 128-entry tables hold.
    debug_assert!(
        b.is_ascii(),
        "ASCII codeword asked for a byte that is not ASCII"
    );
    let entry = table.get(usize::from(b)).copied().unwrap_or_default();
    let end = out.len() + usize::from(entry[LEN]);
    // A fixed-size copy (one store) then a cut is cheaper than a variable-length copy.
    out.extend_from_slice(&entry);
    out.truncate(end);
}

/// Codewords of the 128 ASCII bytes per context; byte [`LEN`] of each entry is the length.
static INLINE_CODEWORDS: [[u8; 8]; 128] = ascii_codewords(inline_table());
static ATTRIBUTE_CODEWORDS: [[u8; 8]; 128] = ascii_codewords(attribute_table());
static BLOCK_CODEWORDS: [[u8; 8]; 128] = ascii_codewords(block_table());
const LEN: usize = 7;

/// Derives the ASCII codewords from a class table (section 3 of escape-v1).
///
/// Evaluated at compile time only: an out-of-range index is a build error, not a panic.
#[allow(clippy::indexing_slicing)]
const fn ascii_codewords(classes: [u8; 256]) -> [[u8; 8]; 128] {
    let mut table = [[0u8; 8]; 128];
    let mut b = 0;
    while b < 128 {
        let e = &mut table[b];
        let k = classes[b];
        if k == Class::Literal as u8 {
            e[0] = b as u8;
            e[LEN] = 1;
        } else if k == Class::Backslash as u8 {
            e[0] = b'\\';
            e[1] = b'\\';
            e[LEN] = 2;
        } else if k == Class::LineFeed as u8 {
            e[0] = b'\\';
            e[1] = b'n';
            e[LEN] = 2;
        } else if k == Class::Tab as u8 {
            e[0] = b'\\';
            e[1] = b't';
            e[LEN] = 2;
        } else {
            e[0] = b'\\';
            e[1] = b'u';
            e[2] = b'{';
            let hi = (b >> 4) as u8;
            let lo = (b & 0xf) as u8;
            if hi == 0 {
                e[3] = hex_digit(lo);
                e[4] = b'}';
                e[LEN] = 5;
            } else {
                e[3] = hex_digit(hi);
                e[4] = hex_digit(lo);
                e[5] = b'}';
                e[LEN] = 6;
            }
        }
        b += 1;
    }
    table
}

/// Appends `\u{h..h}` with minimal lowercase hex digits, built on the stack and copied once.
#[inline]
fn push_unicode_escape(out: &mut Vec<u8>, value: u32) {
    let mut buf = *b"\\u{000000}";
    let digits = (32 - value.leading_zeros()).div_ceil(4).max(1);
    let mut len = 3;
    let mut shift = digits * 4;
    while shift > 0 {
        shift -= 4;
        // The mask keeps the nibble below 16, so the cast loses nothing.
        if let Some(slot) = buf.get_mut(len) {
            *slot = hex_digit(((value >> shift) & 0xf) as u8);
        }
        len += 1;
    }
    if let Some(slot) = buf.get_mut(len) {
        *slot = b'}';
    }
    let end = out.len() + len + 1;
    out.extend_from_slice(&buf);
    out.truncate(end);
}

/// The lowercase hex digit for `nibble` (`0..16`).
#[inline(always)]
const fn hex_digit(nibble: u8) -> u8 {
    if nibble < 10 {
        b'0' + nibble
    } else {
        b'a' + (nibble & 0xf) - 10
    }
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
            let mut out = Vec::new();
            push_unicode_escape(&mut out, value);
            assert_eq!(out, expected.as_bytes());
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
