//! The strict escape-v1 decoder: accepts exactly the image of the escaper.

use std::borrow::Cow;

use crate::context::{class, Class, Context};
use crate::decode_error::{DecodeError, DecodeErrorKind};
use crate::scan::first_non_literal;

/// Decodes text escaped by [`crate::escape`] in `ctx`, rejecting every other spelling.
///
/// Guarantees: `decode(&escape(x, ctx), ctx) == Ok(x)` for every `x`, and `decode(e, ctx)` is
/// `Ok(x)` only if `escape(x, ctx) == e`, so the decoder accepts exactly the escaper's image. Byte
/// escapes (`\x{..}`) are rejected with [`DecodeErrorKind::ByteEscapeInText`]. One pass, one
/// cursor; returns a borrow when `escaped` contains nothing to decode.
///
/// ```
/// use seal_render::{decode, Context};
/// assert_eq!(decode("a\\u{202e}\\\\", Context::Inline).unwrap(), "a\u{202e}\\");
/// assert!(decode("\\u{41}", Context::Inline).is_err()); // `A` is literal
/// assert!(decode("\\u{3C}", Context::Block).is_err()); // uppercase hex
/// ```
///
/// # Errors
/// A [`DecodeError`] naming the first offending character or escape and its byte offset.
pub fn decode(escaped: &str, ctx: Context) -> Result<Cow<'_, str>, DecodeError> {
    let Some(first) = first_non_literal(escaped.as_bytes(), ctx) else {
        return Ok(Cow::Borrowed(escaped));
    };
    let mut out = String::with_capacity(escaped.len());
    let mut cursor = Cursor::new(escaped, ctx, false);
    let mut next = first;
    loop {
        cursor.copy_run(next, |run| out.push_str(run));
        match cursor.read_unit()? {
            None => return Ok(Cow::Owned(out)),
            Some(Unit::Scalar(c)) => out.push(c),
            Some(Unit::Byte(_)) => {
                return Err(cursor.error_at_escape(DecodeErrorKind::ByteEscapeInText))
            }
        }
        next = cursor.next_non_literal();
    }
}

/// Decodes text escaped by [`crate::escape_bytes`] in `ctx`, rejecting every other spelling.
///
/// Guarantees: `decode_bytes(&escape_bytes(b, ctx), ctx) == Ok(b)` for every `b`, and the decoder
/// accepts exactly the image of [`crate::escape_bytes`]: besides everything [`decode`] rejects,
/// a `\x{hh}` whose byte would be part of valid UTF-8 in the output is rejected with
/// [`DecodeErrorKind::ByteEscapeOfValidUtf8`].
///
/// ```
/// use seal_render::{decode_bytes, Context};
/// assert_eq!(decode_bytes("ok\\x{ff}", Context::Inline).unwrap().as_ref(), b"ok\xff");
/// assert!(decode_bytes("\\x{41}", Context::Inline).is_err()); // `A` is valid UTF-8
/// ```
///
/// # Errors
/// A [`DecodeError`] naming the first offending character or escape and its byte offset.
pub fn decode_bytes(escaped: &str, ctx: Context) -> Result<Cow<'_, [u8]>, DecodeError> {
    let Some(first) = first_non_literal(escaped.as_bytes(), ctx) else {
        return Ok(Cow::Borrowed(escaped.as_bytes()));
    };
    let mut out = Vec::with_capacity(escaped.len());
    // (position in `out`, offset in `escaped`) of every byte written by a `\x{..}` escape.
    let mut byte_escapes = Vec::new();
    let mut cursor = Cursor::new(escaped, ctx, true);
    let mut next = first;
    loop {
        cursor.copy_run(next, |run| out.extend_from_slice(run.as_bytes()));
        match cursor.read_unit()? {
            None => break,
            Some(Unit::Scalar(c)) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Some(Unit::Byte(b)) => {
                byte_escapes.push((out.len(), cursor.escape_start));
                out.push(b);
            }
        }
        next = cursor.next_non_literal();
    }
    check_byte_escapes(&out, &byte_escapes)?;
    Ok(Cow::Owned(out))
}

/// One decoded unit: a scalar, or (byte mode) one raw byte.
enum Unit {
    Scalar(char),
    Byte(u8),
}

/// The single checked cursor over the escaped text.
struct Cursor<'a> {
    text: &'a str,
    ctx: Context,
    bytes_allowed: bool,
    pos: usize,
    escape_start: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, ctx: Context, bytes_allowed: bool) -> Self {
        Cursor {
            text,
            ctx,
            bytes_allowed,
            pos: 0,
            escape_start: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The char starting at `at` (always a char boundary when called).
    fn char_at(&self, at: usize) -> char {
        self.text
            .get(at..)
            .and_then(|s| s.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER)
    }

    /// Hands the literal run `pos..end` to `sink` and moves past it.
    fn copy_run(&mut self, end: usize, mut sink: impl FnMut(&str)) {
        if let Some(run) = self.text.get(self.pos..end) {
            sink(run);
        }
        self.pos = end;
    }

    /// Offset of the next byte at or after `pos` that is not literal, or the end.
    fn next_non_literal(&self) -> usize {
        // The cursor only moves over bytes of the text.
        debug_assert!(self.pos <= self.text.len(), "decode cursor past the end");
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or_default();
        self.pos + first_non_literal(rest, self.ctx).unwrap_or(rest.len())
    }

    fn error_at_escape(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError {
            offset: self.escape_start,
            kind,
        }
    }

    /// Reads one non-literal unit at `pos`; `None` at the end of the text.
    fn read_unit(&mut self) -> Result<Option<Unit>, DecodeError> {
        let Some(b) = self.peek() else {
            return Ok(None);
        };
        if b != b'\\' {
            let character = self.char_at(self.pos);
            return Err(DecodeError {
                offset: self.pos,
                kind: DecodeErrorKind::RawCharacter { character },
            });
        }
        self.escape_start = self.pos;
        self.pos += 1;
        let Some(kind) = self.peek() else {
            return Err(self.error_at_escape(DecodeErrorKind::TrailingBackslash));
        };
        self.pos += 1;
        let unit = match kind {
            b'\\' => Unit::Scalar('\\'),
            b't' => Unit::Scalar('\t'),
            b'n' if self.ctx == Context::Block => {
                return Err(
                    self.error_at_escape(DecodeErrorKind::NonCanonicalEscape { scalar: '\n' })
                )
            }
            b'n' => Unit::Scalar('\n'),
            b'u' => Unit::Scalar(self.read_unicode()?),
            b'x' if !self.bytes_allowed => {
                return Err(self.error_at_escape(DecodeErrorKind::ByteEscapeInText))
            }
            b'x' => Unit::Byte(self.read_byte()?),
            _ => {
                let character = self.char_at(self.pos - 1);
                return Err(self.error_at_escape(DecodeErrorKind::UnknownEscape { character }));
            }
        };
        Ok(Some(unit))
    }

    /// After `\u`: `{`, 1 to 6 lowercase hex digits without leading zero, `}`, naming a scalar
    /// whose codeword in the context is this very escape.
    fn read_unicode(&mut self) -> Result<char, DecodeError> {
        let digits = self.read_braced_hex(6, DecodeErrorKind::TooManyDigits)?;
        if digits.count > 1 && digits.leading_zero {
            return Err(self.error_at_escape(DecodeErrorKind::LeadingZero));
        }
        let value = digits.value;
        if (0xd800..=0xdfff).contains(&value) {
            return Err(self.error_at_escape(DecodeErrorKind::Surrogate { value }));
        }
        let Some(scalar) = char::from_u32(value) else {
            return Err(self.error_at_escape(DecodeErrorKind::OutOfRange { value }));
        };
        // Non-ASCII scalars have no other codeword; an ASCII one only if it is neither literal nor
        // has a short escape in this context.
        let canonical = !scalar.is_ascii()
            || u8::try_from(scalar)
                .is_ok_and(|b| class(self.ctx.table(), b) == Class::OtherAscii as u8);
        if !canonical {
            return Err(self.error_at_escape(DecodeErrorKind::NonCanonicalEscape { scalar }));
        }
        Ok(scalar)
    }

    /// After `\x`: `{`, exactly two lowercase hex digits, `}`.
    fn read_byte(&mut self) -> Result<u8, DecodeError> {
        let digits = self.read_braced_hex(2, DecodeErrorKind::ByteEscapeLength)?;
        if digits.count != 2 {
            return Err(self.error_at_escape(DecodeErrorKind::ByteEscapeLength));
        }
        u8::try_from(digits.value)
            .map_err(|_| self.error_at_escape(DecodeErrorKind::ByteEscapeLength))
    }

    /// `{` hex-digits `}` with at most `max` digits (`too_many` otherwise).
    fn read_braced_hex(
        &mut self,
        max: usize,
        too_many: DecodeErrorKind,
    ) -> Result<HexDigits, DecodeError> {
        if self.peek() != Some(b'{') {
            return Err(self.error_at_escape(DecodeErrorKind::UnterminatedEscape));
        }
        self.pos += 1;
        let mut digits = HexDigits {
            value: 0,
            count: 0,
            leading_zero: false,
        };
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error_at_escape(DecodeErrorKind::UnterminatedEscape));
            };
            let nibble = match b {
                b'}' => break,
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                _ => {
                    let character = self.char_at(self.pos);
                    return Err(self.error_at_escape(DecodeErrorKind::BadHex { character }));
                }
            };
            if digits.count == max {
                return Err(self.error_at_escape(too_many));
            }
            if digits.count == 0 {
                digits.leading_zero = nibble == 0;
            }
            digits.value = (digits.value << 4) | u32::from(nibble);
            digits.count += 1;
            self.pos += 1;
        }
        self.pos += 1;
        if digits.count == 0 {
            return Err(self.error_at_escape(DecodeErrorKind::EmptyBraces));
        }
        Ok(digits)
    }
}

struct HexDigits {
    value: u32,
    count: usize,
    leading_zero: bool,
}

/// Rejects any `\x{..}` byte that lies inside a valid UTF-8 run of the decoded output.
///
/// The escaper writes `\x{..}` exactly for the bytes of the invalid sequences of
/// `<[u8]>::utf8_chunks`. Bytes written by literals and `\u{..}` are whole characters, and a whole
/// character can neither complete nor start an invalid sequence begun elsewhere (its first byte is
/// never a continuation byte), so invalid sequences consist of escaped bytes only. It therefore
/// suffices to check that every escaped byte falls in an invalid sequence.
fn check_byte_escapes(out: &[u8], byte_escapes: &[(usize, usize)]) -> Result<(), DecodeError> {
    let mut escapes = byte_escapes.iter().peekable();
    let mut pos = 0;
    for chunk in out.utf8_chunks() {
        let valid_end = pos + chunk.valid().len();
        if let Some(&&(_, offset)) = escapes.peek().filter(|(at, _)| *at < valid_end) {
            return Err(DecodeError {
                offset,
                kind: DecodeErrorKind::ByteEscapeOfValidUtf8,
            });
        }
        let invalid_end = valid_end + chunk.invalid().len();
        while escapes.next_if(|(at, _)| *at < invalid_end).is_some() {}
        pos = invalid_end;
    }
    Ok(())
}
