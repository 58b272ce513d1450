//! HMAC secrets that redact themselves.

use std::fmt;

use crate::error::KeyError;
use crate::fingerprint::Fingerprint;

/// Longest accepted HMAC secret: 1024 bytes.
pub const MAX_SECRET_BYTES: usize = 1024;

/// The bytes of an HMAC key. `Debug` never shows them; only the fingerprint is visible. The
/// bytes are wiped when the value is dropped, and it is not `Clone`: a copy is made only on
/// purpose ([`HmacSecret::duplicate`]), and is wiped in turn.
///
/// ```compile_fail
/// let secret = seal_verify::HmacSecret::from_bytes(&[7; 32]).unwrap();
/// let copy = secret.clone();
/// ```
pub struct HmacSecret {
    bytes: Box<[u8]>,
}

impl HmacSecret {
    /// Copies 1 to [`MAX_SECRET_BYTES`] bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<HmacSecret, KeyError> {
        if bytes.is_empty() {
            return Err(KeyError::EmptySecret);
        }
        if bytes.len() > MAX_SECRET_BYTES {
            return Err(KeyError::SecretTooLong {
                len: bytes.len(),
                max: MAX_SECRET_BYTES,
            });
        }
        Ok(HmacSecret {
            bytes: bytes.into(),
        })
    }

    /// A second value holding the same bytes (wiped when dropped, as this one is).
    #[must_use]
    pub fn duplicate(&self) -> HmacSecret {
        HmacSecret {
            bytes: self.bytes.clone(),
        }
    }

    /// SHA-256 of the secret bytes.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(&self.bytes)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: an empty secret cannot be built.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Wraps 32 derived bytes (within the bounds by construction).
    pub(crate) fn from_derived(bytes: [u8; 32]) -> HmacSecret {
        HmacSecret {
            bytes: Box::new(bytes),
        }
    }

    pub(crate) fn expose(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for HmacSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HmacSecret(<redacted>, {} bytes)", self.bytes.len())
    }
}

impl Drop for HmacSecret {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut *self.bytes);
    }
}
