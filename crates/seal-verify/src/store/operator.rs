//! Building and changing a trust store the operator's way: from a signed store document,
//! key by key in code, signing documents and checking rotations (spec/trust-store.md
//! sections 7 and 8), each refusal a [`TrustError`] that carries the step's own error.

use std::fmt;

use super::{
    accept_initial, rotate, BindError, DocumentError, FrameScope, InsertError, KeyRecord,
    KeyRecordError, KeyStatus, MemoryTrustStore, RotationError, ScopeError, Scopes,
    SignedStoreDocument, StoreDocument, StoreLimits, StoreSignature, Validity,
};
use crate::ed25519::{Ed25519PublicKey, Ed25519SigningKey};
use crate::hmac_key::HmacKey;
use crate::key::VerifyingKey;
use crate::secret::HmacSecret;
use crate::tag::CompensatingControls;
use crate::time::UnixTime;

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

/// Why a key added in code ([`MemoryTrustStore::add_frame_key`],
/// [`MemoryTrustStore::add_approver_key`]) was refused: the core's error of the step that refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyRefusal {
    /// The frame scope (an element name outside the frame grammar).
    Scope(ScopeError),
    /// The key record (a key id outside the grammar, an inverted window).
    Record(KeyRecordError),
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
/// use seal_verify::store::{check_rotation, sign_store_document, TrustError};
/// use seal_verify::{base64url, Ed25519SigningKey, UnixTime};
///
/// let root = Ed25519SigningKey::from_seed(&[3; 32]).unwrap();
/// let document = |version: u64| format!(
///     r#"{{"type":"seal/trust-store/v1","version":{version},"expires":2000000000,"threshold":1,
///        "keys":[{{"id":"root","algorithm":"ed25519","public_key":"{}",
///                  "not_before":0,"not_after":2000000000,"status":"active",
///                  "scopes":{{"frames":[],"manifest_approval":false,"store_update":true}}}}]}}"#,
///     base64url::encode(root.public_key().as_bytes()),
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

impl MemoryTrustStore {
    /// The store of a signed store document (the envelope `{"document": .., "signatures": ..}`
    /// of spec/trust-store.md section 8), accepted as the operator's pinned first document at
    /// `now`: it must not have expired and must carry its own threshold of store-update
    /// signatures. Each HMAC key takes its secret from `secrets` by key id (checked against the
    /// document's `secret_sha256`); compact-profile keys bind only under `controls` that
    /// provide both compensating controls.
    ///
    /// # Errors
    /// [`TrustError::Document`], [`TrustError::NotAccepted`] or [`TrustError::Secret`].
    pub fn from_signed_document(
        envelope: &[u8],
        secrets: &[(&str, &HmacSecret)],
        now: UnixTime,
        controls: CompensatingControls,
    ) -> Result<MemoryTrustStore, TrustError> {
        let signed = parse_envelope(envelope)?;
        let trusted = accept_initial(&signed, now).map_err(TrustError::NotAccepted)?;
        MemoryTrustStore::from_trusted(&trusted, secrets, controls).map_err(TrustError::Secret)
    }

    /// Adds an active HMAC frame key `key_id` that may sign frames of `element` (any
    /// attributes) from `not_before` to `not_after` inclusive.
    ///
    /// # Errors
    /// [`TrustError::Key`] for a key id outside `[A-Za-z0-9._-]{1,64}`, an element name outside
    /// the frame grammar, an inverted window or an id already present.
    pub fn add_frame_key(
        &mut self,
        key_id: &str,
        key: HmacKey,
        element: &str,
        window: Validity,
    ) -> Result<(), TrustError> {
        let scope = FrameScope::new(element, vec![])
            .map_err(|error| refused(key_id, KeyRefusal::Scope(error)))?;
        let scopes = Scopes {
            frames: vec![scope],
            ..Scopes::default()
        };
        self.add_active(key_id, VerifyingKey::Hmac(key), window, scopes)
    }

    /// Adds an active approver key `key_id` that may approve disclosure manifests from
    /// `not_before` to `not_after` inclusive.
    ///
    /// # Errors
    /// [`TrustError::Key`] for a key id outside `[A-Za-z0-9._-]{1,64}`, an inverted window or an
    /// id already present.
    pub fn add_approver_key(
        &mut self,
        key_id: &str,
        key: Ed25519PublicKey,
        window: Validity,
    ) -> Result<(), TrustError> {
        let scopes = Scopes {
            manifest_approval: true,
            ..Scopes::default()
        };
        self.add_active(key_id, VerifyingKey::Ed25519(key), window, scopes)
    }

    fn add_active(
        &mut self,
        key_id: &str,
        key: VerifyingKey,
        window: Validity,
        scopes: Scopes,
    ) -> Result<(), TrustError> {
        let record = KeyRecord::new(key_id, key, window, KeyStatus::Active, scopes)
            .map_err(|error| refused(key_id, KeyRefusal::Record(error)))?;
        (self.insert(record)).map_err(|error| refused(key_id, KeyRefusal::Insert(error)))
    }

    /// Whether the key `key_id` is held and its validity window contains `now` (status and
    /// scopes are decided per frame).
    pub fn is_valid_at(&self, key_id: &str, now: UnixTime) -> bool {
        now <= self.expires()
            && (self.records().iter())
                .any(|record| record.id() == key_id && record.validity().contains(now))
    }
}

fn refused(key_id: &str, error: KeyRefusal) -> TrustError {
    let key_id = key_id.to_owned();
    TrustError::Key { key_id, error }
}

/// Signs a store document with approver keys, giving the canonical envelope
/// `{"document": .., "signatures": [..]}` that [`MemoryTrustStore::from_signed_document`] reads.
///
/// `document` is the JSON of the document (spec/trust-store.md section 7); each signer is
/// named by the id under which the document lists its public key.
///
/// # Errors
/// [`TrustError::Document`] when the document is not valid, [`TrustError::UnknownSigner`] for a
/// signer id it does not list.
pub fn sign_store_document(
    document: &[u8],
    signers: &[(&str, &Ed25519SigningKey)],
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
    signers: &[(&str, &Ed25519SigningKey)],
) -> Result<Vec<u8>, TrustError> {
    let current = parse_envelope(current)?;
    sign_listed(document, Some(current.document()), signers)
}

fn sign_listed(
    document: &[u8],
    current: Option<&StoreDocument>,
    signers: &[(&str, &Ed25519SigningKey)],
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
        signatures.push(StoreSignature::sign(&document, key_id, key));
    }
    Ok(SignedStoreDocument::new(document, signatures).to_json())
}

fn parse_envelope(envelope: &[u8]) -> Result<SignedStoreDocument, TrustError> {
    SignedStoreDocument::parse(envelope, &StoreLimits::default()).map_err(TrustError::Document)
}
