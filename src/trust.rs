//! The trust store: which keys may sign which frames, and until when. The operations are the
//! core's (`seal_verify::store`); this type takes the facade's keys.

use seal_verify::store::{MemoryTrustStore, Validity};
use seal_verify::{CompensatingControls, Ed25519SigningKey, HmacSecret, UnixTime};

use seal_verify::{ApproverKey, FrameKey};

pub use seal_verify::store::{check_rotation, KeyRefusal, Rotation, TrustError};

/// The keys a [`Seal`](crate::Seal) trusts, resolved fail-closed: a key id the store does not
/// hold, a key outside its validity window or scope, and anything after the store's own expiry
/// alarm. A message never supplies a key.
///
/// Built in code ([`TrustStore::new`] and [`TrustStore::add_frame_key`]) or from a signed store
/// document (spec/trust-store.md), accepted as the operator's pinned first document.
///
/// ```
/// use seal::{FrameKey, TrustStore, UnixTime};
///
/// let key = FrameKey::from_secret(&[7; 32])?;
/// let mut store = TrustStore::new(UnixTime(2_000_000_000));
/// store.add_frame_key("ingress", &key, "channel", UnixTime(0), UnixTime(2_000_000_000))?;
/// assert_eq!(store.key_ids().collect::<Vec<_>>(), ["ingress"]);
/// assert!(store.add_frame_key("ingress", &key, "channel", UnixTime(0), UnixTime(1)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TrustStore {
    pub(crate) inner: MemoryTrustStore,
}

/// Whether a trust store accepts compact-profile keys
/// ([`TrustStore::from_signed_document_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompactTags {
    /// Compact keys are refused (the default).
    #[default]
    Refused,
    /// Compact keys are accepted: the store is used by a [`Seal`](crate::Seal), which verifies
    /// with per-conversation subkeys and a replay store.
    Accepted,
}

impl CompactTags {
    /// The compensating controls in force for this choice.
    pub(crate) fn controls(self) -> CompensatingControls {
        let on = self == CompactTags::Accepted;
        CompensatingControls {
            per_conversation_subkeys: on,
            replay_set: on,
        }
    }
}

impl TrustStore {
    /// An empty store that resolves nothing after `expires` (inclusive).
    pub fn new(expires: UnixTime) -> TrustStore {
        TrustStore {
            inner: MemoryTrustStore::new(expires),
        }
    }

    /// The store of a signed store document (the envelope `{"document": .., "signatures": ..}`
    /// of spec/trust-store.md section 8), accepted as the operator's pinned first document at
    /// `now`: it must not have expired and must carry its own threshold of store-update
    /// signatures. Each HMAC key takes its secret from `secrets` by key id (checked against the
    /// document's `secret_sha256`); an HMAC key without a secret stays listed and alarms
    /// `unknown_key` toward the model (`secret_not_supplied` in the report). Compact-profile
    /// keys are refused: [`TrustStore::from_signed_document_with`] accepts them.
    ///
    /// # Errors
    /// [`TrustError::Document`], [`TrustError::NotAccepted`] or [`TrustError::Secret`].
    pub fn from_signed_document(
        envelope: &[u8],
        secrets: &[(&str, &FrameKey)],
        now: UnixTime,
    ) -> Result<TrustStore, TrustError> {
        TrustStore::from_signed_document_with(envelope, secrets, now, CompactTags::Refused)
    }

    /// As [`TrustStore::from_signed_document`], with the operator's choice about
    /// compact-profile keys (5-character, 30-bit tags, spec/trust-store.md section 2).
    ///
    /// [`CompactTags::Accepted`] is sound for a store used by a [`Seal`](crate::Seal): every
    /// `Seal` verifies with per-conversation subkeys and claims the id of every frame in its
    /// replay store (a frame without an id alarms), the two compensating controls the profile
    /// requires. A forger still has about one chance in a billion per try.
    ///
    /// # Errors
    /// As [`TrustStore::from_signed_document`]; with [`CompactTags::Refused`], a compact key is
    /// [`TrustError::Secret`].
    pub fn from_signed_document_with(
        envelope: &[u8],
        secrets: &[(&str, &FrameKey)],
        now: UnixTime,
        compact: CompactTags,
    ) -> Result<TrustStore, TrustError> {
        let secrets: Vec<(&str, &HmacSecret)> = secrets
            .iter()
            .map(|(id, key)| (*id, key.secret()))
            .collect();
        let controls = compact.controls();
        let inner = MemoryTrustStore::from_signed_document(envelope, &secrets, now, controls)?;
        Ok(TrustStore { inner })
    }

    /// Adds an active frame key `key_id` that may sign frames of `element` (any attributes)
    /// from `not_before` to `not_after` inclusive.
    ///
    /// # Errors
    /// [`TrustError::Key`] for a key id outside `[A-Za-z0-9._-]{1,64}`, an element name outside
    /// the frame grammar, an inverted window or an id already present.
    pub fn add_frame_key(
        &mut self,
        key_id: &str,
        key: &FrameKey,
        element: &str,
        not_before: UnixTime,
        not_after: UnixTime,
    ) -> Result<(), TrustError> {
        let window = Validity {
            not_before,
            not_after,
        };
        (self.inner).add_frame_key(key_id, key.hmac_key(), element, window)
    }

    /// Adds an active approver key `key_id` that may approve disclosure manifests from
    /// `not_before` to `not_after` inclusive (only its public key is kept).
    ///
    /// # Errors
    /// [`TrustError::Key`] for a key id outside `[A-Za-z0-9._-]{1,64}`, an inverted window or an
    /// id already present.
    pub fn add_approver_key(
        &mut self,
        key_id: &str,
        key: &ApproverKey,
        not_before: UnixTime,
        not_after: UnixTime,
    ) -> Result<(), TrustError> {
        let window = Validity {
            not_before,
            not_after,
        };
        let public = key.signing_key().public_key();
        self.inner.add_approver_key(key_id, public, window)
    }

    /// The time after which nothing resolves.
    pub fn expires(&self) -> UnixTime {
        self.inner.expires()
    }

    /// The ids of the keys whose material the store holds, in insertion order (an HMAC key of a
    /// document whose secret was not supplied is not among them).
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        self.inner.records().iter().map(|record| record.id())
    }

    /// Whether the key `key_id` is held and its validity window contains `now` (status and
    /// scopes are decided per frame).
    pub fn is_valid_at(&self, key_id: &str, now: UnixTime) -> bool {
        self.inner.is_valid_at(key_id, now)
    }
}

/// Signs a store document with approver keys, giving the canonical envelope
/// `{"document": .., "signatures": [..]}` that [`TrustStore::from_signed_document`] reads
/// ([`seal_verify::store::sign_store_document`]).
///
/// # Errors
/// [`TrustError::Document`] when the document is not valid, [`TrustError::UnknownSigner`] for a
/// signer id it does not list.
pub fn sign_store_document(
    document: &[u8],
    signers: &[(&str, &ApproverKey)],
) -> Result<Vec<u8>, TrustError> {
    seal_verify::store::sign_store_document(document, &signing_keys(signers))
}

/// Signs the next version of a store for a rotation ([`check_rotation`]): as
/// [`sign_store_document`], except that a signer may also be a key the current envelope
/// `current` lists ([`seal_verify::store::sign_store_rotation`]).
///
/// # Errors
/// As [`sign_store_document`], and [`TrustError::Document`] when `current` is not valid.
pub fn sign_store_rotation(
    document: &[u8],
    current: &[u8],
    signers: &[(&str, &ApproverKey)],
) -> Result<Vec<u8>, TrustError> {
    seal_verify::store::sign_store_rotation(document, current, &signing_keys(signers))
}

fn signing_keys<'k>(
    signers: &[(&'k str, &'k ApproverKey)],
) -> Vec<(&'k str, &'k Ed25519SigningKey)> {
    signers
        .iter()
        .map(|(id, key)| (*id, key.signing_key()))
        .collect()
}
