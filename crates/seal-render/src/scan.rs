//! Finding the first byte that is not literal in a context, 16 bytes at a time.
//!
//! The fast test works on `u64` words (SWAR): a word is clean when every byte is in `0x20..=0x7E`
//! and differs from each of the context's special bytes. The zero-byte and less-than tricks used
//! here are exact for "does any byte match" (they may misreport *which* byte), so a dirty word is
//! re-checked byte by byte against the context's table, which is the single source of truth.

use crate::context::{class, Class, Context};

/// Index of the first byte of `bytes` that is not literal in `ctx`, or `None` if all are.
#[inline]
pub(crate) fn first_non_literal(bytes: &[u8], ctx: Context) -> Option<usize> {
    match ctx {
        Context::Inline => scan(bytes, ctx.table(), |w| {
            not_printable(w) | has_byte(w, b'\\')
        }),
        Context::Attribute => scan(bytes, ctx.table(), |w| {
            not_printable(w)
                | has_byte(w, b'\\')
                | has_byte(w, b'"')
                | has_byte(w, b'<')
                | has_byte(w, b'>')
        }),
        // LF is literal in Block but fails `not_printable`; the byte re-check lets it through.
        Context::Block => scan(bytes, ctx.table(), |w| {
            not_printable(w) | has_byte(w, b'\\') | has_byte(w, b'<')
        }),
    }
}

#[inline(always)]
fn scan(bytes: &[u8], table: &[u8; 256], dirty: impl Fn(u64) -> u64) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(16);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        if let (Some(lo), Some(hi)) = (chunk.first_chunk::<8>(), chunk.last_chunk::<8>()) {
            let mask = dirty(u64::from_le_bytes(*lo)) | dirty(u64::from_le_bytes(*hi));
            if mask == 0 {
                offset += 16;
                continue;
            }
        }
        if let Some(i) = first_in(chunk, table) {
            return Some(offset + i);
        }
        offset += 16;
    }
    first_in(chunks.remainder(), table).map(|i| offset + i)
}

#[inline(always)]
fn first_in(bytes: &[u8], table: &[u8; 256]) -> Option<usize> {
    bytes
        .iter()
        .position(|&b| class(table, b) != Class::Literal as u8)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Nonzero iff some byte of `w` is outside `0x20..=0x7E`.
#[inline(always)]
fn not_printable(w: u64) -> u64 {
    // High bit set (non-ASCII), or 0x7F (adding 1 sets the high bit; no carry leaves a byte whose
    // high bit was clear), or below 0x20 (exact "has less than" test for n <= 128).
    ((w | w.wrapping_add(ONES)) & HIGHS) | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
}

/// Nonzero iff some byte of `w` equals `b`.
#[inline(always)]
fn has_byte(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & HIGHS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8], ctx: Context) -> Option<usize> {
        bytes.iter().position(|&b| !ctx.is_literal(b))
    }

    #[test]
    fn every_byte_at_every_position_matches_the_table() {
        for ctx in Context::ALL {
            for len in [1usize, 7, 8, 15, 16, 17, 31, 32, 33] {
                for pos in 0..len {
                    for b in 0..=255u8 {
                        let mut buf = vec![b'a'; len];
                        buf[pos] = b;
                        assert_eq!(
                            first_non_literal(&buf, ctx),
                            naive(&buf, ctx),
                            "{ctx:?} {b:#x} at {pos}/{len}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn two_bytes_interacting_in_one_word() {
        // Borrow propagation in the SWAR tests must never hide a dirty byte.
        for ctx in Context::ALL {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    let buf = [
                        b'a', a, b, b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a',
                        b'a', b'a', b'a',
                    ];
                    assert_eq!(
                        first_non_literal(&buf, ctx),
                        naive(&buf, ctx),
                        "{ctx:?} {a:#x} {b:#x}"
                    );
                }
            }
        }
    }
}
