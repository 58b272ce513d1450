//! The trust store: which keys may sign which frames, and until when.

use std::fmt;

use seal_verify::store::{
    accept_initial, rotate, BindError, DocumentError, FrameScope, InsertError, KeyRecord,
    KeyStatus, MemoryTrustStore, RecordError, RotationError, ScopeError, Scopes,
    SignedStoreDocument, StoreDocument, StoreLimits, StoreSignature, Validity,
};
use seal_verify::{CompensatingControls, UnixTime, VerifyingKey};

use crate::keys::{ApproverKey, FrameKey};

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

/// Why a trust store or a store document was refused. Each case carries the core's own error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrustError {
    /// The document (or envelope) is not valid: where (`$.keys[1].status`) and why.
    Document(DocumentError),
    /// The signed document was not accepted (expired, or not signed by its own threshold).
    NotAccepted(RotationError),
    /// An HMAC secret could not be bound to the document's key.
    Secret(BindError),
    /// A key record was refused (bad key id, inverted window, duplicate id, element name).
    Key {
        /// The key id given.
        key_id: String,
        /// Why.
        error: KeyRefusal,
    },
    /// A signer named for a document is not listed in it.
    UnknownSigner {
        /// The key id given.
        key_id: String,
    },
    /// The offered document may not replace the current one (a rollback, a skipped version,
    /// an expired offer, or too few signatures of the current or of its own store-update keys).
    Rotation(RotationError),
}

/// Why a key added in code ([`TrustStore::add_frame_key`], [`TrustStore::add_approver_key`])
/// was refused: the core's error of the step that refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyRefusal {
    /// The frame scope (an element name outside the frame grammar).
    Scope(ScopeError),
    /// The key record (a key id outside the grammar, an inverted window).
    Record(RecordError),
    /// The store (an id already present, or the store full).
    Insert(InsertError),
}

impl fmt::Display for KeyRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scope(error) => error.fmt(f),
            Self::Record(error) => error.fmt(f),
            Self::Insert(error) => error.fmt(f),
        }
    }
}

impl fmt::Display for TrustError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Document(error) => write!(
                f,
                "store document refused at {}: {}",
                error.path, error.kind
            ),
            Self::NotAccepted(error) => write!(f, "store document not accepted: {error}"),
            Self::Secret(error) => write!(f, "frame key secret refused: {error}"),
            Self::Key { key_id, error } => {
                write!(f, "key `{}` refused: {error}", key_id.escape_debug())
            }
            Self::UnknownSigner { key_id } => write!(
                f,
                "signer `{}` is not a key of the document",
                key_id.escape_debug()
            ),
            Self::Rotation(error) => write!(f, "rotation refused: {error}"),
        }
    }
}

impl std::error::Error for TrustError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Document(error) => Some(error),
            Self::NotAccepted(error) | Self::Rotation(error) => Some(error),
            Self::Secret(error) => Some(error),
            _ => None,
        }
    }
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

/// A rotation [`check_rotation`] accepted: the versions and the new document's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// The current document's version.
    pub from_version: u64,
    /// The offered document's version (`from_version + 1`).
    pub to_version: u64,
    /// When the offered document expires.
    pub expires: UnixTime,
}

/// Checks that the signed store envelope `next` may replace the pinned envelope `current` at
/// `now` (spec/trust-store.md section 8): its version is exactly one above, it has not expired,
/// and it carries a threshold of the current document's store-update signatures and a threshold
/// of its own. The current document was accepted while it was valid, so it is read as at the
/// earlier of `now` and its own expiry: an expired store is renewed this way, never bypassed
/// (its keys must still be valid at `now` to sign the rotation).
///
/// ```
/// use seal::{check_rotation, sign_store_document, ApproverKey, TrustError, UnixTime};
///
/// let root = ApproverKey::from_seed(&[3; 32])?;
/// let document = |version: u64| format!(
///     r#"{{"type":"seal/trust-store/v1","version":{version},"expires":2000000000,"threshold":1,
///        "keys":[{{"id":"root","algorithm":"ed25519","public_key":"{}",
///                  "not_before":0,"not_after":2000000000,"status":"active",
///                  "scopes":{{"frames":[],"manifest_approval":false,"store_update":true}}}}]}}"#,
///     root.public_key(),
/// );
/// let current = sign_store_document(document(1).as_bytes(), &[("root", &root)])?;
/// let next = sign_store_document(document(2).as_bytes(), &[("root", &root)])?;
/// let now = UnixTime(1_800_000_000);
/// assert_eq!(check_rotation(&current, &next, now)?.to_version, 2);
/// assert!(matches!(check_rotation(&next, &current, now), Err(TrustError::Rotation(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`TrustError::Document`] when either envelope is not valid, [`TrustError::NotAccepted`] when
/// the current one was never acceptable, [`TrustError::Rotation`] when the offer is refused.
pub fn check_rotation(current: &[u8], next: &[u8], now: UnixTime) -> Result<Rotation, TrustError> {
    let current = parse_envelope(current)?;
    let next = parse_envelope(next)?;
    let pinned_at = UnixTime(now.seconds().min(current.document().expires().seconds()));
    let trusted = accept_initial(&current, pinned_at).map_err(TrustError::NotAccepted)?;
    let rotated = rotate(&trusted, &next, now).map_err(TrustError::Rotation)?;
    Ok(Rotation {
        from_version: current.document().version(),
        to_version: rotated.document().version(),
        expires: rotated.document().expires(),
    })
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
        let signed = parse_envelope(envelope)?;
        let trusted = accept_initial(&signed, now).map_err(TrustError::NotAccepted)?;
        let bound: Vec<(&str, &seal_verify::HmacSecret)> = secrets
            .iter()
            .map(|(key_id, key)| (*key_id, key.secret()))
            .collect();
        let inner = MemoryTrustStore::from_trusted(&trusted, &bound, compact.controls())
            .map_err(TrustError::Secret)?;
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
        let refused = |error: KeyRefusal| TrustError::Key {
            key_id: key_id.to_owned(),
            error,
        };
        let scope = FrameScope::new(element, vec![]).map_err(|e| refused(KeyRefusal::Scope(e)))?;
        let scopes = Scopes {
            frames: vec![scope],
            ..Scopes::default()
        };
        let window = Validity {
            not_before,
            not_after,
        };
        let record = KeyRecord::new(
            key_id,
            VerifyingKey::Hmac(key.hmac_key()),
            window,
            KeyStatus::Active,
            scopes,
        )
        .map_err(|e| refused(KeyRefusal::Record(e)))?;
        self.inner
            .insert(record)
            .map_err(|e| refused(KeyRefusal::Insert(e)))
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
        let refused = |error: KeyRefusal| TrustError::Key {
            key_id: key_id.to_owned(),
            error,
        };
        let scopes = Scopes {
            manifest_approval: true,
            ..Scopes::default()
        };
        let window = Validity {
            not_before,
            not_after,
        };
        let public = key.signing_key().public_key();
        let record = KeyRecord::new(
            key_id,
            VerifyingKey::Ed25519(public),
            window,
            KeyStatus::Active,
            scopes,
        )
        .map_err(|e| refused(KeyRefusal::Record(e)))?;
        self.inner
            .insert(record)
            .map_err(|e| refused(KeyRefusal::Insert(e)))
    }

    /// The time after which nothing resolves.
    pub fn expires(&self) -> UnixTime {
        self.inner.expires()
    }

    /// The ids of the keys whose material the store holds, in insertion order (an HMAC key of a
    /// document whose secret was not supplied is not among them).
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        self.inner.records().iter().map(KeyRecord::id)
    }

    /// Whether the key `key_id` is held and its validity window contains `now` (status and
    /// scopes are decided per frame).
    pub fn is_valid_at(&self, key_id: &str, now: UnixTime) -> bool {
        now <= self.inner.expires()
            && self
                .inner
                .records()
                .iter()
                .any(|record| record.id() == key_id && record.validity().contains(now))
    }
}

/// Signs a store document with approver keys, giving the canonical envelope
/// `{"document": .., "signatures": [..]}` that [`TrustStore::from_signed_document`] reads.
///
/// `document` is the JSON of the document (spec/trust-store.md section 7); each signer is
/// named by the id under which the document lists its public key.
///
/// # Errors
/// [`TrustError::Document`] when the document is not valid, [`TrustError::UnknownSigner`] for a
/// signer id it does not list.
pub fn sign_store_document(
    document: &[u8],
    signers: &[(&str, &ApproverKey)],
) -> Result<Vec<u8>, TrustError> {
    sign_listed(document, None, signers)
}

/// Signs the next version of a store for a rotation ([`check_rotation`]): as
/// [`sign_store_document`], except that a signer may also be a key the current envelope
/// `current` lists (a root the next version drops still signs the handover).
///
/// # Errors
/// As [`sign_store_document`], and [`TrustError::Document`] when `current` is not valid.
pub fn sign_store_rotation(
    document: &[u8],
    current: &[u8],
    signers: &[(&str, &ApproverKey)],
) -> Result<Vec<u8>, TrustError> {
    let current = parse_envelope(current)?;
    sign_listed(document, Some(current.document()), signers)
}

fn sign_listed(
    document: &[u8],
    current: Option<&StoreDocument>,
    signers: &[(&str, &ApproverKey)],
) -> Result<Vec<u8>, TrustError> {
    let document =
        StoreDocument::parse(document, &StoreLimits::default()).map_err(TrustError::Document)?;
    let mut signatures = Vec::with_capacity(signers.len());
    for (key_id, key) in signers {
        let listed = document.key(key_id).is_some()
            || current.is_some_and(|current| current.key(key_id).is_some());
        if !listed {
            return Err(TrustError::UnknownSigner {
                key_id: (*key_id).to_owned(),
            });
        }
        signatures.push(StoreSignature::sign(&document, key_id, key.signing_key()));
    }
    Ok(SignedStoreDocument::new(document, signatures).to_json())
}

fn parse_envelope(envelope: &[u8]) -> Result<SignedStoreDocument, TrustError> {
    SignedStoreDocument::parse(envelope, &StoreLimits::default()).map_err(TrustError::Document)
}
