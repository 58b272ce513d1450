//! Finding the bytes that are not literal in a context, a block of bytes at a time.
//!
//! Both fast paths apply a branch-free, exact "is this byte special" predicate per context to a
//! fixed-size block, which the compiler turns into wide byte compares without any `unsafe`:
//! [`first_non_literal`] folds it to one flag per block (the clean-text scan), and
//! [`non_literal_mask`] gathers it into a bitmask so the escaper can visit every special byte of a
//! block without searching again. The context's table stays the single source of truth: the unit
//! tests below check both paths against it for every byte at every position.

use crate::context::{class, Class, Context};

/// Bytes tested per step of the fast path.
const BLOCK: usize = 64;

/// Index of the first byte of `bytes` that is not literal in `ctx`, or `None` if all are.
#[inline]
pub(crate) fn first_non_literal(bytes: &[u8], ctx: Context) -> Option<usize> {
    match ctx {
        Context::Inline => scan(bytes, ctx.table(), inline_special),
        Context::Attribute => scan(bytes, ctx.table(), attribute_special),
        Context::Block => scan(bytes, ctx.table(), block_special),
    }
}

/// Bytes per [`non_literal_mask`] block.
pub(crate) const MASK_BLOCK: usize = 64;

/// Bit `j` set iff `block[j]` is not literal in `ctx` (`block` has at most 64 bytes).
///
/// Exact for every byte (the same predicate as the block scan), so the escaper can walk the set
/// bits of a block instead of searching again after each escape.
#[inline]
pub(crate) fn non_literal_mask(block: &[u8], ctx: Context) -> u64 {
    match ctx {
        Context::Inline => mask_with(block, inline_special),
        Context::Attribute => mask_with(block, attribute_special),
        Context::Block => mask_with(block, block_special),
    }
}

// The per-context predicates: `true` exactly for the bytes the context's table does not mark
// literal. Written with `|` and `&` on bools (no short-circuit) so that they vectorize.

#[inline(always)]
fn inline_special(b: u8) -> bool {
    not_printable(b) | (b == b'\\')
}

#[inline(always)]
fn attribute_special(b: u8) -> bool {
    not_printable(b) | (b == b'\\') | (b == b'"') | (b == b'<') | (b == b'>')
}

#[inline(always)]
fn block_special(b: u8) -> bool {
    (not_printable(b) & (b != b'\n')) | (b == b'\\') | (b == b'<')
}

#[inline(always)]
fn mask_with(block: &[u8], special: impl Fn(u8) -> bool) -> u64 {
    let mut flags = [0u8; MASK_BLOCK];
    if let Some(full) = block.first_chunk::<MASK_BLOCK>() {
        // Fixed trip count, no branches: compiles to wide compares.
        for (f, &b) in flags.iter_mut().zip(full) {
            *f = u8::from(special(b));
        }
    } else {
        for (f, &b) in flags.iter_mut().zip(block) {
            *f = u8::from(special(b));
        }
    }
    // Gather eight 0/1 bytes into eight bits: the multiply sums byte k into bit 56 + k.
    let mut mask = 0u64;
    for (k, word) in flags.chunks_exact(8).enumerate() {
        let w = word
            .first_chunk::<8>()
            .map_or(0, |w| u64::from_le_bytes(*w));
        mask |= (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    mask
}

#[inline(always)]
fn scan(bytes: &[u8], table: &[u8; 256], special: impl Fn(u8) -> bool) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(BLOCK);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        if let Some(block) = chunk.first_chunk::<BLOCK>() {
            // `fold` with `|` (not `any`) keeps the loop branch-free so it vectorizes.
            let dirty = block.iter().fold(false, |acc, &b| acc | special(b));
            if !dirty {
                offset += BLOCK;
                continue;
            }
        }
        if let Some(i) = first_in(chunk, table) {
            return Some(offset + i);
        }
        offset += BLOCK;
    }
    first_in(chunks.remainder(), table).map(|i| offset + i)
}

#[inline(always)]
fn first_in(bytes: &[u8], table: &[u8; 256]) -> Option<usize> {
    bytes
        .iter()
        .position(|&b| class(table, b) != Class::Literal as u8)
}

/// Whether `b` is outside `0x20..=0x7E`.
#[inline(always)]
fn not_printable(b: u8) -> bool {
    b.wrapping_sub(0x20) > 0x5e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8], ctx: Context) -> Option<usize> {
        bytes.iter().position(|&b| !ctx.is_literal(b))
    }

    fn naive_mask(block: &[u8], ctx: Context) -> u64 {
        block
            .iter()
            .enumerate()
            .filter(|(_, &b)| !ctx.is_literal(b))
            .fold(0, |m, (j, _)| m | (1 << j))
    }

    #[test]
    fn every_byte_at_every_position_matches_the_table() {
        for ctx in Context::ALL {
            for len in [1usize, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100] {
                for pos in 0..len {
                    for b in 0..=255u8 {
                        let mut buf = vec![b'a'; len];
                        buf[pos] = b;
                        assert_eq!(
                            first_non_literal(&buf, ctx),
                            naive(&buf, ctx),
                            "{ctx:?} {b:#x} at {pos}/{len}"
                        );
                        let block = &buf[..len.min(MASK_BLOCK)];
                        assert_eq!(
                            non_literal_mask(block, ctx),
                            naive_mask(block, ctx),
                            "mask {ctx:?} {b:#x} at {pos}/{len}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn mask_of_mixed_blocks() {
        // Every class in one block, at positions that cross each 8-byte gather word.
        let text = "a\\<>\"\n\t\r\u{7f}\u{e9}\u{202e}z \u{0}~".repeat(4);
        for ctx in Context::ALL {
            for start in 0..8 {
                let block = &text.as_bytes()[start..start + MASK_BLOCK];
                assert_eq!(
                    non_literal_mask(block, ctx),
                    naive_mask(block, ctx),
                    "{ctx:?} {start}"
                );
            }
        }
    }
}
