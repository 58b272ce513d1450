//! Signed store envelopes, first acceptance, rotation and rollback.

use std::collections::BTreeSet;
use std::fmt;

use super::document::{parse_json, StoreDocument, StoreLimits};
use super::document_error::{DocumentError, DocumentErrorKind};
use seal_parse::json::Fields;

use super::reader::base64;
use super::record::is_key_id;
use super::resolve::{check_record, IntendedUse, Purpose, StoreOperation};
use crate::base64url;
use crate::ed25519::{Ed25519SigningKey, ED25519_SIGNATURE_BYTES};
use crate::fingerprint::Fingerprint;
use crate::time::UnixTime;

/// One Ed25519 signature over a document's signing input, with the id of the signing key.
#[derive(Clone)]
pub struct StoreSignature {
    key_id: String,
    signature: Vec<u8>,
}

/// A document with the signatures that vouch for it, as carried in the envelope
/// `{"document": {..}, "signatures": [{"key_id": "..", "sig": ".."}, ..]}`.
#[derive(Debug, Clone)]
pub struct SignedStoreDocument {
    document: StoreDocument,
    signatures: Vec<StoreSignature>,
}

/// A document accepted by [`accept_initial`] or [`rotate`]; only those functions build one.
#[derive(Debug, Clone)]
pub struct TrustedDocument {
    document: StoreDocument,
}

/// Why a document was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RotationError {
    /// The new version is not above the current one.
    Rollback {
        /// Current version.
        current: u64,
        /// Offered version.
        offered: u64,
    },
    /// The new version skips past current + 1.
    VersionSkip {
        /// Current version.
        current: u64,
        /// Offered version.
        offered: u64,
    },
    /// The offered document has already expired.
    Expired {
        /// Its expiry.
        expires: UnixTime,
        /// The time asked about.
        now: UnixTime,
    },
    /// Too few distinct current store-update keys signed.
    CurrentThreshold {
        /// The current document's threshold.
        threshold: u64,
        /// Distinct valid signers found.
        signers: usize,
    },
    /// Too few distinct store-update keys of the offered document signed.
    OwnThreshold {
        /// The offered document's threshold.
        threshold: u64,
        /// Distinct valid signers found.
        signers: usize,
    },
}

impl RotationError {
    /// A stable snake_case name of the error, as used in the golden vectors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Rollback { .. } => "rollback",
            Self::VersionSkip { .. } => "version_skip",
            Self::Expired { .. } => "expired",
            Self::CurrentThreshold { .. } => "current_threshold",
            Self::OwnThreshold { .. } => "own_threshold",
        }
    }
}

impl fmt::Display for RotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rollback { current, offered } => write!(
                f,
                "version {offered} is not above the current version {current}"
            ),
            Self::VersionSkip { current, offered } => write!(
                f,
                "version {offered} skips past the next version after {current}"
            ),
            Self::Expired { expires, now } => {
                write!(f, "document expired at {expires}, it is now {now}")
            }
            Self::CurrentThreshold { threshold, signers } => write!(
                f,
                "{signers} distinct current keys signed, the current threshold is {threshold}"
            ),
            Self::OwnThreshold { threshold, signers } => write!(
                f,
                "{signers} distinct keys of the new document signed, its threshold is {threshold}"
            ),
        }
    }
}

impl std::error::Error for RotationError {}

impl StoreSignature {
    /// Signs `document`'s signing input with `key`, under the id `key_id`.
    pub fn sign(document: &StoreDocument, key_id: &str, key: &Ed25519SigningKey) -> StoreSignature {
        let tag = key.sign(document.signing_input().bytes());
        StoreSignature {
            key_id: key_id.to_owned(),
            signature: tag.as_bytes().to_vec(),
        }
    }

    /// The signing key's id as written (not yet checked against any document).
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The signature in text form (86 base64url characters).
    pub fn to_text(&self) -> String {
        base64url::encode(&self.signature)
    }
}

impl fmt::Debug for StoreSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreSignature({}, {})", self.key_id, self.to_text())
    }
}

impl SignedStoreDocument {
    /// Pairs a document with signatures.
    pub fn new(document: StoreDocument, signatures: Vec<StoreSignature>) -> SignedStoreDocument {
        SignedStoreDocument {
            document,
            signatures,
        }
    }

    /// Parses an envelope strictly: exactly `document` and `signatures`; each signature exactly
    /// `key_id` (key id grammar) and `sig` (86 canonical base64url characters).
    pub fn parse(input: &[u8], limits: &StoreLimits) -> Result<SignedStoreDocument, DocumentError> {
        let value = parse_json(input, limits)?;
        let mut reader = Fields::of(&value, "$")?;
        let document = StoreDocument::from_value(reader.value("document")?, "$.document", limits)?;
        let items = reader.array("signatures", limits.max_signatures)?;
        let mut signatures = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let path = format!("$.signatures[{index}]");
            let mut entry = Fields::of(item, &path)?;
            let id_path = entry.path("key_id");
            let key_id = entry.string("key_id")?;
            if !is_key_id(key_id) {
                return Err(DocumentError::new(
                    &id_path,
                    DocumentErrorKind::KeyId {
                        id: key_id.to_owned(),
                    },
                ));
            }
            let signature = base64(&mut entry, "sig", ED25519_SIGNATURE_BYTES)?;
            entry.finish()?;
            signatures.push(StoreSignature {
                key_id: key_id.to_owned(),
                signature,
            });
        }
        reader.finish()?;
        Ok(SignedStoreDocument {
            document,
            signatures,
        })
    }

    /// The document.
    pub fn document(&self) -> &StoreDocument {
        &self.document
    }

    /// The signatures, as given.
    pub fn signatures(&self) -> &[StoreSignature] {
        &self.signatures
    }

    /// The envelope's canonical JSON bytes.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"{\"document\":");
        out.extend_from_slice(self.document.canonical_bytes());
        out.extend_from_slice(b",\"signatures\":[");
        for (index, signature) in self.signatures.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            // Key ids and base64url need no JSON escaping.
            out.extend_from_slice(b"{\"key_id\":\"");
            out.extend_from_slice(signature.key_id.as_bytes());
            out.extend_from_slice(b"\",\"sig\":\"");
            out.extend_from_slice(signature.to_text().as_bytes());
            out.extend_from_slice(b"\"}");
        }
        out.extend_from_slice(b"]}");
        out
    }
}

impl TrustedDocument {
    /// The accepted document.
    pub fn document(&self) -> &StoreDocument {
        &self.document
    }
}

/// The number of distinct fingerprints among keys of `signers_from` that validly signed
/// `signed`'s document: the key exists, is Ed25519, resolves for verifying a store update at
/// `now` (window, status, scope), and its signature checks. A key signing twice, or one key
/// listed under two ids, counts once.
pub fn count_signers(
    signers_from: &StoreDocument,
    signed: &SignedStoreDocument,
    now: UnixTime,
) -> usize {
    let input = signed.document.signing_input();
    let intended = IntendedUse {
        operation: StoreOperation::Verify,
        purpose: Purpose::StoreUpdate,
    };
    let mut counted: BTreeSet<Fingerprint> = BTreeSet::new();
    for signature in &signed.signatures {
        let Some(record) = signers_from
            .key(&signature.key_id)
            .and_then(|entry| entry.ed25519_record())
        else {
            continue;
        };
        if check_record(&record, &intended, now).is_err() {
            continue;
        }
        if record
            .key()
            .verify(input.bytes(), &signature.signature)
            .is_ok()
        {
            counted.insert(record.key().fingerprint());
        }
    }
    counted.len()
}

/// Accepts a first document (pinned by the operator): not expired at `now`, and signed by its
/// own threshold of distinct store-update keys.
pub fn accept_initial(
    signed: &SignedStoreDocument,
    now: UnixTime,
) -> Result<TrustedDocument, RotationError> {
    check_not_expired(&signed.document, now)?;
    check_own_threshold(signed, now)?;
    Ok(TrustedDocument {
        document: signed.document.clone(),
    })
}

/// Accepts the next document: its version is exactly `current + 1` (lower or equal is a
/// rollback, higher a skip), it has not expired at `now`, and it is signed both by a threshold of
/// the current document's store-update keys and by a threshold of its own. The current
/// document's own expiry does not block rotation (it is how an expired store is renewed), but
/// its keys must be valid at `now`.
pub fn rotate(
    current: &TrustedDocument,
    next: &SignedStoreDocument,
    now: UnixTime,
) -> Result<TrustedDocument, RotationError> {
    let current_version = current.document.version();
    let offered = next.document.version();
    if offered <= current_version {
        return Err(RotationError::Rollback {
            current: current_version,
            offered,
        });
    }
    if offered != current_version.saturating_add(1) {
        return Err(RotationError::VersionSkip {
            current: current_version,
            offered,
        });
    }
    check_not_expired(&next.document, now)?;
    let threshold = current.document.threshold();
    let signers = count_signers(&current.document, next, now);
    if (signers as u64) < threshold {
        return Err(RotationError::CurrentThreshold { threshold, signers });
    }
    check_own_threshold(next, now)?;
    Ok(TrustedDocument {
        document: next.document.clone(),
    })
}

fn check_not_expired(document: &StoreDocument, now: UnixTime) -> Result<(), RotationError> {
    if now > document.expires() {
        return Err(RotationError::Expired {
            expires: document.expires(),
            now,
        });
    }
    Ok(())
}

fn check_own_threshold(signed: &SignedStoreDocument, now: UnixTime) -> Result<(), RotationError> {
    let threshold = signed.document.threshold();
    let signers = count_signers(&signed.document, signed, now);
    if (signers as u64) < threshold {
        return Err(RotationError::OwnThreshold { threshold, signers });
    }
    Ok(())
}
