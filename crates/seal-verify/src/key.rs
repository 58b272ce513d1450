//! Algorithms and verifying keys.

use std::fmt;

use crate::ed25519::Ed25519PublicKey;
use crate::error::SignatureError;
use crate::fingerprint::Fingerprint;
use crate::hmac_key::HmacKey;
use crate::tag::ED25519_SIGNATURE_BITS;

/// A signature algorithm. Chosen by the key record, never by the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// HMAC-SHA256 truncated to the key's tag length.
    HmacSha256,
    /// Ed25519 (RFC 8032, pure).
    Ed25519,
}

impl Algorithm {
    /// The name used in store documents and signing inputs: `hmac-sha256` or `ed25519`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::HmacSha256 => "hmac-sha256",
            Algorithm::Ed25519 => "ed25519",
        }
    }

    /// The algorithm with this exact name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        match name {
            "hmac-sha256" => Some(Algorithm::HmacSha256),
            "ed25519" => Some(Algorithm::Ed25519),
            _ => None,
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key that checks tags, with its algorithm and tag length bound at load.
#[derive(Debug)]
#[non_exhaustive]
pub enum VerifyingKey {
    /// An HMAC-SHA256 key.
    Hmac(HmacKey),
    /// An Ed25519 public key.
    Ed25519(Ed25519PublicKey),
}

impl VerifyingKey {
    /// The bound algorithm.
    pub fn algorithm(&self) -> Algorithm {
        match self {
            VerifyingKey::Hmac(_) => Algorithm::HmacSha256,
            VerifyingKey::Ed25519(_) => Algorithm::Ed25519,
        }
    }

    /// Bits of every tag this key accepts.
    pub fn tag_bits(&self) -> u16 {
        match self {
            VerifyingKey::Hmac(key) => key.tag_length().bits(),
            VerifyingKey::Ed25519(_) => ED25519_SIGNATURE_BITS,
        }
    }

    /// Characters of every text-form tag this key accepts: `ceil(tag_bits / 6)` (86 for
    /// Ed25519). This is the tag length a frame signing input names.
    pub fn tag_text_len(&self) -> usize {
        usize::from(self.tag_bits()).div_ceil(6)
    }

    /// The key's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        match self {
            VerifyingKey::Hmac(key) => key.fingerprint(),
            VerifyingKey::Ed25519(key) => key.fingerprint(),
        }
    }

    /// Checks the binary form of a tag with the bound algorithm and length.
    pub fn verify(&self, message: &[u8], tag: &[u8]) -> Result<(), SignatureError> {
        match self {
            VerifyingKey::Hmac(key) => key.verify(message, tag),
            VerifyingKey::Ed25519(key) => key.verify(message, tag),
        }
    }

    /// Checks the text form of a tag with the bound algorithm and length.
    pub fn verify_text(&self, message: &[u8], sig: &str) -> Result<(), SignatureError> {
        match self {
            VerifyingKey::Hmac(key) => key.verify_text(message, sig),
            VerifyingKey::Ed25519(key) => key.verify_text(message, sig),
        }
    }
}
