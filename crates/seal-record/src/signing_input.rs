//! A signing input: a domain string followed by pieces, encoded once with PAE.

use crate::pae::{append_pae, le64, usize_to_u64};

/// Domain string of the frame signing input.
pub const FRAME_DOMAIN: &str = "seal/frame/v1";
/// Domain string of the footer signing input.
pub const FOOTER_DOMAIN: &str = "seal/footer/v1";
/// Domain string of log entry hashes.
pub const LOG_DOMAIN: &str = "seal/log/v1";

/// The bytes a signature or tag is computed over: `PAE(domain, piece_1, .., piece_n)`.
///
/// The domain string is always the first piece, so inputs built for different purposes can never
/// be confused, and the encoding is injective in (domain, pieces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningInput {
    domain: String,
    bytes: Vec<u8>,
}

impl SigningInput {
    /// Encodes `PAE(domain, pieces..)`.
    pub fn new(domain: &str, pieces: &[&[u8]]) -> SigningInput {
        let mut all: Vec<&[u8]> = Vec::with_capacity(pieces.len() + 1);
        all.push(domain.as_bytes());
        all.extend_from_slice(pieces);
        let mut bytes = Vec::new();
        append_pae(&mut bytes, &all);
        SigningInput {
            domain: domain.to_owned(),
            bytes,
        }
    }

    /// The domain string this input was built for.
    pub fn domain(&self) -> &str {
        &self.domain
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
