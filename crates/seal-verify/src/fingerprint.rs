//! Key fingerprints: SHA-256 of the key bytes.

use std::fmt;

use sha2::{Digest, Sha256};

/// SHA-256 of a key's bytes: the raw 32-byte public key for Ed25519, the secret for HMAC.
///
/// Thresholds count distinct fingerprints, so one key listed under two ids counts once.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of `key_bytes`.
    pub fn of(key_bytes: &[u8]) -> Fingerprint {
        Fingerprint(Sha256::digest(key_bytes).into())
    }

    /// Wraps a digest computed elsewhere (for example, read from a store document).
    pub const fn from_digest(digest: [u8; 32]) -> Fingerprint {
        Fingerprint(digest)
    }

    /// The 32 digest bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    /// 64 lowercase hexadecimal digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}
