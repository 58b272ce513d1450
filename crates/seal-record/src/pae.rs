//! Pre-authentication encoding (PAE): the one length-prefixed encoding under every signing input.
//!
//! `PAE(p_1, .., p_n) = LE64(n) || LE64(len(p_1)) || p_1 || .. || LE64(len(p_n)) || p_n`, where
//! `LE64` is the 8-byte little-endian encoding of an unsigned integer with its most significant
//! bit cleared (as in PASETO). Because the piece count and every length come first, the pieces
//! can be read back unambiguously: distinct piece lists give distinct bytes.

/// The 8-byte little-endian encoding of `n` with the most significant bit cleared.
///
/// Lengths of in-memory slices never reach 2^63, so clearing the bit never changes a length
/// that [`pae`] encodes.
pub fn le64(n: u64) -> [u8; 8] {
    (n & (u64::MAX >> 1)).to_le_bytes()
}

/// The pre-authentication encoding of `pieces`.
///
/// Injective: two different lists of pieces (in number, order, length or content) never give the
/// same bytes.
///
/// ```
/// use seal_record::pae;
///
/// assert_eq!(pae(&[]), 0u64.to_le_bytes());
/// let two = pae(&[b"ab", b""]);
/// assert_eq!(two.len(), 8 + 8 + 2 + 8);
/// ```
pub fn pae(pieces: &[&[u8]]) -> Vec<u8> {
    let total = pieces.iter().map(|piece| 8 + piece.len()).sum::<usize>() + 8;
    let mut out = Vec::with_capacity(total);
    append_pae(&mut out, pieces);
    out
}

/// Appends the pre-authentication encoding of `pieces` to `out`.
pub fn append_pae(out: &mut Vec<u8>, pieces: &[&[u8]]) {
    out.extend_from_slice(&le64(usize_to_u64(pieces.len())));
    for piece in pieces {
        out.extend_from_slice(&le64(usize_to_u64(piece.len())));
        out.extend_from_slice(piece);
    }
}

/// The encoded size of one piece of `len` bytes: its length prefix and its bytes.
pub(crate) fn piece_len(len: usize) -> usize {
    8usize.saturating_add(len)
}

/// Appends a count (of pieces) as [`le64`].
pub(crate) fn put_count(out: &mut Vec<u8>, count: usize) {
    out.extend_from_slice(&le64(usize_to_u64(count)));
}

/// Appends one piece: its length as [`le64`], then its bytes.
pub(crate) fn put_piece(out: &mut Vec<u8>, piece: &[u8]) {
    put_count(out, piece.len());
    out.extend_from_slice(piece);
}

/// Splits PAE bytes back into their pieces, or `None` if `bytes` is not exactly one PAE.
///
/// The inverse of [`pae`]: `unpae(&pae(p)) == Some(p)` for every piece list `p`, and any byte
/// string that is not the PAE of some piece list (short, long, a length with the top bit set) is
/// refused.
pub fn unpae(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let (count, mut rest) = read_le64(bytes)?;
    // Every piece takes at least 8 bytes, so a count above that bound cannot be honest.
    if count > usize_to_u64(rest.len() / 8) {
        return None;
    }
    let mut pieces = Vec::with_capacity(usize::try_from(count).ok()?);
    for _ in 0..count {
        let (len, after) = read_le64(rest)?;
        let len = usize::try_from(len).ok()?;
        if len > after.len() {
            return None;
        }
        let (piece, tail) = after.split_at(len);
        pieces.push(piece);
        rest = tail;
    }
    rest.is_empty().then_some(pieces)
}

fn read_le64(bytes: &[u8]) -> Option<(u64, &[u8])> {
    if bytes.len() < 8 {
        return None;
    }
    let (head, rest) = bytes.split_at(8);
    let value = u64::from_le_bytes(head.try_into().ok()?);
    // The top bit is always cleared by the encoder.
    if value >> 63 != 0 {
        return None;
    }
    Some((value, rest))
}

pub(crate) fn usize_to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_list_is_a_zero_count() {
        assert_eq!(pae(&[]), vec![0; 8]);
    }

    #[test]
    fn one_empty_piece() {
        let mut expected = vec![1, 0, 0, 0, 0, 0, 0, 0];
        expected.extend_from_slice(&[0; 8]);
        assert_eq!(pae(&[b""]), expected);
    }

    #[test]
    fn unpae_inverts_pae() {
        let pieces: [&[u8]; 3] = [b"seal", b"", b"\x00\xff"];
        let bytes = pae(&pieces);
        assert_eq!(unpae(&bytes), Some(pieces.to_vec()));
    }

    #[test]
    fn unpae_refuses_trailing_and_truncated_bytes() {
        let mut bytes = pae(&[b"ab"]);
        bytes.push(0);
        assert_eq!(unpae(&bytes), None);
        bytes.truncate(bytes.len() - 2);
        assert_eq!(unpae(&bytes), None);
    }

    #[test]
    fn unpae_refuses_top_bit() {
        let mut bytes = pae(&[]);
        bytes[7] = 0x80;
        assert_eq!(unpae(&bytes), None);
    }

    #[test]
    fn le64_clears_the_top_bit() {
        assert_eq!(
            le64(u64::MAX),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]
        );
    }
}
