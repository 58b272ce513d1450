//! Key material an embedder loads: HMAC frame keys (signing and verifying frames) and Ed25519
//! approver keys (signing trust store documents).
//!
//! Secrets come in as bytes the embedder read or generated; seal never generates or stores
//! them. Both types redact themselves in `Debug`.

use std::fmt;

use crate::base64url;
use crate::ed25519::Ed25519SigningKey;
use crate::error::KeyError;
use crate::hmac_key::HmacKey;
use crate::manifest::{ApprovalError, SignedApproval};
use crate::secret::HmacSecret;
use crate::sign::SigningKey;
use crate::store::MIN_BOUND_SECRET_BYTES;
use crate::tag::{CompensatingControls, TagConfig, TagLength, TagProfile};
use crate::time::UnixTime;
use seal_record::Sha256Digest;

/// Characters of a compact-profile tag: 5 (30 bits).
pub const COMPACT_TAG_CHARS: u8 = 5;

/// An HMAC-SHA256 frame key, bound to its tag length: the standard tag profile (132 bits, 22
/// characters) unless [`FrameKey::with_tag_chars`] chose another. Its secret is wiped when it
/// is dropped; it is not `Clone` ([`FrameKey::duplicate`] copies on purpose):
///
/// ```compile_fail
/// let key = seal_verify::FrameKey::from_secret(&[7; 32]).unwrap();
/// let copy = key.clone();
/// ```
///
/// Frames are tagged with its per-conversation subkey, so a frame copied into another
/// conversation fails. The secret must be at least 32 bytes: the same floor a trust store
/// document applies when it binds a secret.
///
/// ```
/// let key = seal_verify::FrameKey::from_secret(&[7; 32])?;
/// assert_eq!(key.secret_sha256().len(), 43);
/// assert_eq!(key.tag_chars(), 22);
/// assert!(format!("{key:?}").contains("redacted"));
/// assert!(seal_verify::FrameKey::from_secret(&[7; 16]).is_err());
/// assert_eq!(key.duplicate().with_tag_chars(16)?.tag_chars(), 16);
/// assert!(key.with_tag_chars(5).is_err());
/// # Ok::<(), seal_verify::KeyError>(())
/// ```
pub struct FrameKey {
    secret: HmacSecret,
    key: HmacKey,
}

/// An Ed25519 approver key: signs trust store documents (and, with the store-update scope,
/// their rotations). Built from a 32-byte seed.
///
/// ```
/// let key = seal_verify::ApproverKey::from_seed(&[9; 32])?;
/// assert_eq!(key.public_key().len(), 43);
/// # Ok::<(), seal_verify::KeyError>(())
/// ```
pub struct ApproverKey {
    key: Ed25519SigningKey,
}

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
        let secret = HmacSecret::from_bytes(secret).map_err(|_| KeyError::SecretTooLong {
            len: secret.len(),
            max: crate::MAX_SECRET_BYTES,
        })?;
        let key = HmacKey::new(secret.duplicate(), TagLength::STANDARD);
        Ok(FrameKey { secret, key })
    }

    /// The same key with tags of `chars` base64url characters (6 bits each) instead of the
    /// standard 22: from the floor of 16 characters (96 bits) to 42, as
    /// [`MIN_TAG_CHARS`](crate::MIN_TAG_CHARS) and
    /// [`MAX_TAG_CHARS`](crate::MAX_TAG_CHARS) say. The compact profile (5
    /// characters) is not a length this gives: it needs compensating controls
    /// (spec/frame-v1.md).
    ///
    /// # Errors
    /// [`KeyError::TagChars`] for a length outside the allowed range.
    pub fn with_tag_chars(self, chars: u8) -> Result<FrameKey, KeyError> {
        let tag =
            TagLength::from_chars(chars).map_err(|error| KeyError::TagChars { chars, error })?;
        let key = HmacKey::new(self.secret.duplicate(), tag);
        Ok(FrameKey {
            secret: self.secret,
            key,
        })
    }

    /// The same key with compact-profile tags: 5 characters, 30 bits (spec/trust-store.md
    /// section 2). Frames it signs verify only against a store bound with both compensating
    /// controls ([`CompensatingControls`]): per-conversation subkeys, and every frame id
    /// claimed in a replay store.
    ///
    /// # Errors
    /// None in practice (the profile's controls are stated here); [`KeyError::TagChars`] if the
    /// core ever refused the profile.
    pub fn compact(self) -> Result<FrameKey, KeyError> {
        let config = TagConfig {
            profile: TagProfile::Compact,
            controls: CompensatingControls {
                per_conversation_subkeys: true,
                replay_set: true,
            },
        };
        let tag = config.tag_length().map_err(|error| KeyError::TagChars {
            chars: COMPACT_TAG_CHARS,
            error,
        })?;
        let key = HmacKey::new(self.secret.duplicate(), tag);
        Ok(FrameKey {
            secret: self.secret,
            key,
        })
    }

    /// The `secret_sha256` member a trust store document lists for this key: base64url (no
    /// padding) of SHA-256 of the secret, 43 characters. It identifies the key without
    /// revealing it.
    pub fn secret_sha256(&self) -> String {
        base64url::encode(self.secret.fingerprint().as_bytes())
    }

    /// The `tag_chars` member a trust store document lists for this key: 22 unless
    /// [`FrameKey::with_tag_chars`] chose another length.
    pub fn tag_chars(&self) -> usize {
        self.key.tag_length().text_len()
    }

    /// A second key with the same secret and tag length. Keys are not `Clone`: a copy is made
    /// only on purpose, and every copy's secret is wiped when it is dropped.
    #[must_use]
    pub fn duplicate(&self) -> FrameKey {
        FrameKey {
            secret: self.secret.duplicate(),
            key: self.hmac_key(),
        }
    }

    /// A copy of the key bound to its tag length.
    /// This key as a frame signer's key ([`FrameSigner::new`](crate::FrameSigner::new)): HMAC
    /// tags of this key's length.
    pub fn as_signing_key(&self) -> SigningKey<'_> {
        SigningKey::Hmac(&self.key)
    }

    /// A copy of the key, bound to its tag length.
    pub fn hmac_key(&self) -> HmacKey {
        HmacKey::new(self.secret.duplicate(), self.key.tag_length())
    }

    /// The secret, to bind to a store document's key.
    pub fn secret(&self) -> &HmacSecret {
        &self.secret
    }
}

impl ApproverKey {
    /// An approver key from a 32-byte seed (RFC 8032).
    ///
    /// # Errors
    /// [`KeyError::Ed25519Length`].
    pub fn from_seed(seed: &[u8]) -> Result<ApproverKey, KeyError> {
        ApproverKey::check_seed(seed)?;
        let key = Ed25519SigningKey::from_seed(seed)
            .map_err(|_| KeyError::Ed25519Length { len: seed.len() })?;
        Ok(ApproverKey { key })
    }

    /// Checks that `seed` can make an approver key (32 bytes) without deriving the key pair,
    /// for a loader that reads seeds it may never use.
    ///
    /// # Errors
    /// [`KeyError::Ed25519Length`].
    pub fn check_seed(seed: &[u8]) -> Result<(), KeyError> {
        if seed.len() != 32 {
            return Err(KeyError::Ed25519Length { len: seed.len() });
        }
        Ok(())
    }

    /// The `public_key` member a trust store document lists for this key: base64url (no
    /// padding) of the 32-byte public key, 43 characters.
    pub fn public_key(&self) -> String {
        base64url::encode(self.key.public_key().as_bytes())
    }

    /// This key as a frame signer's key ([`FrameSigner::new`](crate::FrameSigner::new)):
    /// Ed25519 signatures, for frames a store-listed Ed25519 key may sign.
    pub fn as_signing_key(&self) -> SigningKey<'_> {
        SigningKey::Ed25519(&self.key)
    }

    /// Signs the disclosure hash of a manifest (what the human approves) as the approver
    /// listed as `key_id`, valid until `not_after` (inclusive) and usable once as
    /// `approval_id` (`[A-Za-z0-9._-]{1,64}`).
    ///
    /// # Errors
    /// A key id or approval id outside its grammar.
    pub fn sign_approval(
        &self,
        key_id: &str,
        approval_id: &str,
        not_after: UnixTime,
        disclosure_hash: Sha256Digest,
    ) -> Result<SignedApproval, ApprovalError> {
        SignedApproval::sign(&self.key, key_id, approval_id, not_after, disclosure_hash)
    }

    /// The Ed25519 signing key.
    pub fn signing_key(&self) -> &Ed25519SigningKey {
        &self.key
    }
}

impl fmt::Debug for FrameKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameKey")
            .field("secret", &"<redacted>")
            .field("secret_sha256", &self.secret_sha256())
            .field("tag_chars", &self.tag_chars())
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
