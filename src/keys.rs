//! Key material an embedder loads: HMAC frame keys (signing and verifying frames) and Ed25519
//! approver keys (signing trust store documents).
//!
//! Secrets come in as bytes the embedder read or generated; seal never generates or stores
//! them. Both types redact themselves in `Debug`.

use std::fmt;

use seal_verify::store::MIN_BOUND_SECRET_BYTES;
use seal_verify::{base64url, Ed25519SigningKey, HmacKey, HmacSecret, TagLength};

/// An HMAC-SHA256 frame key with the standard tag profile (132 bits, 22 characters).
///
/// Frames are tagged with its per-conversation subkey, so a frame copied into another
/// conversation fails. The secret must be at least 32 bytes: the same floor a trust store
/// document applies when it binds a secret.
///
/// ```
/// let key = seal::FrameKey::from_secret(&[7; 32])?;
/// assert_eq!(key.secret_sha256().len(), 43);
/// assert!(format!("{key:?}").contains("redacted"));
/// assert!(seal::FrameKey::from_secret(&[7; 16]).is_err());
/// # Ok::<(), seal::KeyError>(())
/// ```
#[derive(Clone)]
pub struct FrameKey {
    secret: HmacSecret,
}

/// An Ed25519 approver key: signs trust store documents (and, with the store-update scope,
/// their rotations). Built from a 32-byte seed.
///
/// ```
/// let key = seal::ApproverKey::from_seed(&[9; 32])?;
/// assert_eq!(key.public_key().len(), 43);
/// # Ok::<(), seal::KeyError>(())
/// ```
pub struct ApproverKey {
    key: Ed25519SigningKey,
}

/// Why key material was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// A frame key secret shorter than the floor.
    SecretTooShort {
        /// Bytes given.
        len: usize,
        /// The floor: 32 bytes.
        min: usize,
    },
    /// A frame key secret longer than the maximum (1024 bytes).
    SecretTooLong {
        /// Bytes given.
        len: usize,
    },
    /// An Ed25519 seed that is not 32 bytes.
    SeedLength {
        /// Bytes given.
        len: usize,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SecretTooShort { len, min } => {
                write!(
                    f,
                    "frame key secret is {len} bytes, at least {min} are needed"
                )
            }
            Self::SecretTooLong { len } => write!(f, "frame key secret is {len} bytes, too long"),
            Self::SeedLength { len } => write!(f, "approver key seed is {len} bytes, not 32"),
        }
    }
}

impl std::error::Error for KeyError {}

impl FrameKey {
    /// A frame key over `secret` (32 to 1024 bytes).
    ///
    /// # Errors
    /// [`KeyError::SecretTooShort`] or [`KeyError::SecretTooLong`].
    pub fn from_secret(secret: &[u8]) -> Result<FrameKey, KeyError> {
        if secret.len() < MIN_BOUND_SECRET_BYTES {
            return Err(KeyError::SecretTooShort {
                len: secret.len(),
                min: MIN_BOUND_SECRET_BYTES,
            });
        }
        let secret = HmacSecret::from_bytes(secret)
            .map_err(|_| KeyError::SecretTooLong { len: secret.len() })?;
        Ok(FrameKey { secret })
    }

    /// The `secret_sha256` member a trust store document lists for this key: base64url (no
    /// padding) of SHA-256 of the secret, 43 characters. It identifies the key without
    /// revealing it.
    pub fn secret_sha256(&self) -> String {
        base64url::encode(self.secret.fingerprint().as_bytes())
    }

    /// The `tag_chars` member a trust store document lists for this key: 22.
    pub fn tag_chars(&self) -> usize {
        TagLength::STANDARD.text_len()
    }

    pub(crate) fn hmac_key(&self) -> HmacKey {
        HmacKey::new(self.secret.clone(), TagLength::STANDARD)
    }

    pub(crate) fn secret(&self) -> &HmacSecret {
        &self.secret
    }
}

impl ApproverKey {
    /// An approver key from a 32-byte seed (RFC 8032).
    ///
    /// # Errors
    /// [`KeyError::SeedLength`].
    pub fn from_seed(seed: &[u8]) -> Result<ApproverKey, KeyError> {
        if seed.len() != 32 {
            return Err(KeyError::SeedLength { len: seed.len() });
        }
        let key = Ed25519SigningKey::from_seed(seed)
            .map_err(|_| KeyError::SeedLength { len: seed.len() })?;
        Ok(ApproverKey { key })
    }

    /// The `public_key` member a trust store document lists for this key: base64url (no
    /// padding) of the 32-byte public key, 43 characters.
    pub fn public_key(&self) -> String {
        base64url::encode(self.key.public_key().as_bytes())
    }

    pub(crate) fn signing_key(&self) -> &Ed25519SigningKey {
        &self.key
    }
}

impl fmt::Debug for FrameKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameKey")
            .field("secret", &"<redacted>")
            .field("secret_sha256", &self.secret_sha256())
            .finish()
    }
}

impl fmt::Debug for ApproverKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApproverKey")
            .field("seed", &"<redacted>")
            .field("public_key", &self.public_key())
            .finish()
    }
}
