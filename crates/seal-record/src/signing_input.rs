//! A signing input: a domain string followed by pieces, encoded once with PAE.

use crate::pae::{le64, piece_len, put_count, put_piece, usize_to_u64};

/// Domain string of the frame signing input.
pub const FRAME_DOMAIN: &str = "seal/frame/v1";
/// Domain string of the footer signing input.
pub const FOOTER_DOMAIN: &str = "seal/footer/v1";
/// Domain string of log entry hashes.
pub const LOG_DOMAIN: &str = "seal/log/v1";

/// The bytes a signature or tag is computed over: `PAE(domain, piece_1, .., piece_n)`.
///
/// The domain string is always the first piece, so inputs built for different purposes can never
/// be confused, and the encoding is injective in (domain, pieces). The domain is read back from
/// the encoded bytes; the input holds one allocation, the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningInput {
    bytes: Vec<u8>,
}

impl SigningInput {
    /// Encodes `PAE(domain, pieces..)`.
    pub fn new(domain: &str, pieces: &[&[u8]]) -> SigningInput {
        let total =
            8 + piece_len(domain.len()) + pieces.iter().map(|p| piece_len(p.len())).sum::<usize>();
        let mut bytes = Vec::with_capacity(total);
        put_count(&mut bytes, pieces.len() + 1);
        put_piece(&mut bytes, domain.as_bytes());
        for piece in pieces {
            put_piece(&mut bytes, piece);
        }
        SigningInput { bytes }
    }

    /// Wraps bytes that already are `PAE(domain, ..)` with a UTF-8 domain as the first piece.
    pub(crate) fn from_encoded(bytes: Vec<u8>) -> SigningInput {
        SigningInput { bytes }
    }

    /// The domain string this input was built for.
    pub fn domain(&self) -> &str {
        // Layout: LE64(count) || LE64(len(domain)) || domain || ..
        let domain = self
            .bytes
            .get(8..16)
            .and_then(|len| <[u8; 8]>::try_from(len).ok())
            .map(u64::from_le_bytes)
            .and_then(|len| usize::try_from(len).ok())
            .and_then(|len| self.bytes.get(16..16usize.saturating_add(len)))
            .and_then(|domain| std::str::from_utf8(domain).ok());
        // Every constructor writes a UTF-8 domain as the first piece (`new` encodes it,
        // `from_encoded` is given the encoder's bytes): the empty fallback is never taken.
        debug_assert!(domain.is_some(), "a signing input starts with its domain");
        domain.unwrap_or_default()
    }

    /// The encoded bytes to sign or verify.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The encoded bytes, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// The piece encoding an unsigned count or length inside a signing input: [`le64`] of `n`.
pub fn count_piece(n: usize) -> [u8; 8] {
    le64(usize_to_u64(n))
}

/// The piece encoding an unsigned 64-bit number (a sequence number): [`le64`] of `n`.
pub fn count_piece_u64(n: u64) -> [u8; 8] {
    le64(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pae::pae;

    #[test]
    fn domain_is_the_first_piece() {
        let input = SigningInput::new(FRAME_DOMAIN, &[b"k", b"v"]);
        assert_eq!(input.bytes(), pae(&[FRAME_DOMAIN.as_bytes(), b"k", b"v"]));
        assert_eq!(input.domain(), FRAME_DOMAIN);
    }
}
