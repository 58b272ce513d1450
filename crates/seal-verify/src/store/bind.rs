//! Binding a trusted document to the embedder's HMAC secrets: the in-memory store it describes.

use std::fmt;

use super::document::KeyMaterial;
use super::memory::{InsertError, MemoryTrustStore};
use super::record::KeyRecordError;
use super::signed::TrustedDocument;
use crate::ed25519::Ed25519PublicKey;
use crate::hmac_key::HmacKey;
use crate::key::VerifyingKey;
use crate::secret::HmacSecret;
use crate::tag::{
    CompensatingControls, TagConfig, TagLength, TagLengthError, TagProfile, COMPACT_TAG_BITS,
};

/// Fewest bytes an HMAC secret bound to a store key may have: 32.
pub const MIN_BOUND_SECRET_BYTES: usize = 32;

/// Why a document could not be bound to secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BindError {
    /// A secret was supplied for an id the document does not list.
    UnknownKeyId {
        /// The id.
        key_id: String,
    },
    /// A secret was supplied for an Ed25519 key.
    NotHmac {
        /// The id.
        key_id: String,
    },
    /// Two secrets were supplied for one id.
    DuplicateSecret {
        /// The id.
        key_id: String,
    },
    /// The secret's SHA-256 differs from the document's `secret_sha256`.
    SecretMismatch {
        /// The id.
        key_id: String,
    },
    /// The secret is shorter than [`MIN_BOUND_SECRET_BYTES`].
    WeakSecret {
        /// The id.
        key_id: String,
        /// Bytes supplied.
        len: usize,
        /// The minimum.
        min: usize,
    },
    /// The key's tag length is refused under the compensating controls in force.
    TagLength {
        /// The id.
        key_id: String,
        /// Why.
        error: TagLengthError,
    },
    /// A record rule refused the key.
    Record(KeyRecordError),
    /// The store refused the record.
    Insert(InsertError),
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownKeyId { key_id } => write!(
                f,
                "a secret was supplied for `{}`, which the document does not list",
                key_id.escape_debug()
            ),
            Self::NotHmac { key_id } => {
                write!(f, "key `{}` is not an hmac key", key_id.escape_debug())
            }
            Self::DuplicateSecret { key_id } => write!(
                f,
                "two secrets were supplied for `{}`",
                key_id.escape_debug()
            ),
            Self::SecretMismatch { key_id } => write!(
                f,
                "the secret supplied for `{}` does not match its fingerprint",
                key_id.escape_debug()
            ),
            Self::WeakSecret { key_id, len, min } => write!(
                f,
                "the secret of `{}` has {len} bytes, fewer than {min}",
                key_id.escape_debug()
            ),
            Self::TagLength { key_id, error } => {
                write!(f, "key `{}`: {error}", key_id.escape_debug())
            }
            Self::Record(error) => write!(f, "{error}"),
            Self::Insert(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for BindError {}

impl MemoryTrustStore {
    /// The store a trusted document describes, expiring with it. Ed25519 keys come from the
    /// document; each HMAC key takes the secret supplied under its id, which must be at least
    /// [`MIN_BOUND_SECRET_BYTES`] long and hash to the document's `secret_sha256`. An HMAC key
    /// without a supplied secret stays listed and resolves to
    /// [`ResolveError::SecretNotSupplied`](super::ResolveError::SecretNotSupplied). A compact
    /// (30-bit) key is refused unless both `controls` are on.
    pub fn from_trusted(
        document: &TrustedDocument,
        secrets: &[(&str, &HmacSecret)],
        controls: CompensatingControls,
    ) -> Result<MemoryTrustStore, BindError> {
        let document = document.document();
        for (index, (key_id, _)) in secrets.iter().enumerate() {
            let Some(entry) = document.key(key_id) else {
                return Err(BindError::UnknownKeyId {
                    key_id: (*key_id).to_owned(),
                });
            };
            if !matches!(entry.material(), KeyMaterial::Hmac { .. }) {
                return Err(BindError::NotHmac {
                    key_id: (*key_id).to_owned(),
                });
            }
            if secrets
                .iter()
                .take(index)
                .any(|(earlier, _)| earlier == key_id)
            {
                return Err(BindError::DuplicateSecret {
                    key_id: (*key_id).to_owned(),
                });
            }
        }
        let mut store = MemoryTrustStore::new(document.expires());
        for entry in document.keys() {
            let key = match entry.material() {
                KeyMaterial::Ed25519(public) => {
                    VerifyingKey::Ed25519(Ed25519PublicKey::clone(public))
                }
                KeyMaterial::Hmac {
                    secret_sha256,
                    tag_chars,
                } => {
                    let key_id = entry.id();
                    let Some((_, secret)) = secrets.iter().find(|(id, _)| *id == key_id) else {
                        store.insert_unbound(key_id).map_err(BindError::Insert)?;
                        continue;
                    };
                    if secret.len() < MIN_BOUND_SECRET_BYTES {
                        return Err(BindError::WeakSecret {
                            key_id: key_id.to_owned(),
                            len: secret.len(),
                            min: MIN_BOUND_SECRET_BYTES,
                        });
                    }
                    if secret.fingerprint() != *secret_sha256 {
                        return Err(BindError::SecretMismatch {
                            key_id: key_id.to_owned(),
                        });
                    }
                    let length = bound_tag_length(*tag_chars, controls).map_err(|error| {
                        BindError::TagLength {
                            key_id: key_id.to_owned(),
                            error,
                        }
                    })?;
                    VerifyingKey::Hmac(HmacKey::new(secret.duplicate(), length))
                }
            };
            let record = entry.record(key).map_err(BindError::Record)?;
            store.insert(record).map_err(BindError::Insert)?;
        }
        Ok(store)
    }
}

fn bound_tag_length(
    chars: u8,
    controls: CompensatingControls,
) -> Result<TagLength, TagLengthError> {
    let profile = if u16::from(chars) * 6 == COMPACT_TAG_BITS {
        TagProfile::Compact
    } else {
        TagProfile::Chars(chars)
    };
    TagConfig { profile, controls }.tag_length()
}
