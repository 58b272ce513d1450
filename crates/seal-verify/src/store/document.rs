//! Trust store documents: the JSON format, parsed strictly.

use std::collections::BTreeSet;

use seal_parse::json::{self, Canonical, JsonLimits, Value};
use seal_record::SigningInput;

use super::document_error::{DocumentError, DocumentErrorKind};
use seal_parse::json::Fields;

use super::reader::{base64, in_range, wrong_type};
use super::record::{check_rules, is_key_id, FrameScope, KeyRecord, KeyStatus, Scopes, Validity};
use crate::ed25519::Ed25519PublicKey;
use crate::fingerprint::Fingerprint;
use crate::key::{Algorithm, VerifyingKey};
use crate::tag::{TagLength, TagLengthError, COMPACT_TAG_BITS};
use crate::time::UnixTime;

/// The `type` of every store document, and the domain string of its signing input.
pub const STORE_DOCUMENT_TYPE: &str = "seal/trust-store/v1";

/// Limits on store documents; exceeding one is [`DocumentErrorKind::TooMany`] or a JSON error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreLimits {
    /// Largest document or envelope, in bytes. Default 1 MiB.
    pub max_bytes: usize,
    /// Most keys in one document. Default 256.
    pub max_keys: usize,
    /// Most frame scopes on one key. Default 64.
    pub max_frame_scopes: usize,
    /// Most constrained attributes in one frame scope. Default 16.
    pub max_attribute_constraints: usize,
    /// Most allowed values for one attribute. Default 64.
    pub max_attribute_values: usize,
    /// Most signatures on one envelope. Default 64.
    pub max_signatures: usize,
}

impl StoreLimits {
    /// The default limits.
    pub const DEFAULT: StoreLimits = StoreLimits {
        max_bytes: 1024 * 1024,
        max_keys: 256,
        max_frame_scopes: 64,
        max_attribute_constraints: 16,
        max_attribute_values: 64,
        max_signatures: 64,
    };
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The key material a document entry names.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum KeyMaterial {
    /// An Ed25519 public key.
    Ed25519(Ed25519PublicKey),
    /// An HMAC-SHA256 key: the SHA-256 of its secret (the secret itself comes from the embedder)
    /// and its tag length in base64url characters.
    Hmac {
        /// SHA-256 of the secret.
        secret_sha256: Fingerprint,
        /// Tag length in characters (six bits each): 5 (compact) or 16 to 42.
        tag_chars: u8,
    },
}

/// One key of a store document.
#[derive(Debug, Clone)]
pub struct KeyEntry {
    id: String,
    material: KeyMaterial,
    validity: Validity,
    status: KeyStatus,
    scopes: Scopes,
}

/// A parsed, validated store document with its canonical bytes.
#[derive(Debug, Clone)]
pub struct StoreDocument {
    version: u64,
    expires: UnixTime,
    threshold: u64,
    keys: Vec<KeyEntry>,
    canonical: Canonical,
}

impl KeyEntry {
    /// The key id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The key material.
    pub fn material(&self) -> &KeyMaterial {
        &self.material
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        match self.material {
            KeyMaterial::Ed25519(_) => Algorithm::Ed25519,
            KeyMaterial::Hmac { .. } => Algorithm::HmacSha256,
        }
    }

    /// The fingerprint: SHA-256 of the public key, or the document's `secret_sha256`.
    pub fn fingerprint(&self) -> Fingerprint {
        match &self.material {
            KeyMaterial::Ed25519(key) => key.fingerprint(),
            KeyMaterial::Hmac { secret_sha256, .. } => *secret_sha256,
        }
    }

    /// The validity window.
    pub fn validity(&self) -> Validity {
        self.validity
    }

    /// The status.
    pub fn status(&self) -> KeyStatus {
        self.status
    }

    /// The scopes.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }

    /// The key record of an Ed25519 entry (`None` for HMAC, whose secret is bound separately).
    pub fn ed25519_record(&self) -> Option<KeyRecord> {
        match &self.material {
            KeyMaterial::Ed25519(key) => self.record(VerifyingKey::Ed25519(key.clone())).ok(),
            KeyMaterial::Hmac { .. } => None,
        }
    }

    pub(crate) fn record(
        &self,
        key: VerifyingKey,
    ) -> Result<KeyRecord, super::record::KeyRecordError> {
        KeyRecord::new(
            &self.id,
            key,
            self.validity,
            self.status,
            self.scopes.clone(),
        )
    }
}

impl StoreDocument {
    /// Parses a document (not an envelope) under the canonical JSON profile and the rules of
    /// spec/trust-store.md: every field present and valid, nothing unknown.
    pub fn parse(input: &[u8], limits: &StoreLimits) -> Result<StoreDocument, DocumentError> {
        let value = parse_json(input, limits)?;
        StoreDocument::from_value(&value, "$", limits)
    }

    /// The version (at least 1).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The expiry: after it the store resolves nothing.
    pub fn expires(&self) -> UnixTime {
        self.expires
    }

    /// Distinct store-update keys whose signatures a rotation needs.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// The keys in document order.
    pub fn keys(&self) -> &[KeyEntry] {
        &self.keys
    }

    /// The key with this id.
    pub fn key(&self, id: &str) -> Option<&KeyEntry> {
        self.keys.iter().find(|entry| entry.id == id)
    }

    /// The RFC 8785 canonical bytes of the document.
    pub fn canonical_bytes(&self) -> &[u8] {
        self.canonical.as_bytes()
    }

    /// SHA-256 of the canonical bytes.
    pub fn digest(&self) -> [u8; 32] {
        self.canonical.sha256()
    }

    /// What store-update keys sign: `PAE("seal/trust-store/v1", canonical bytes)`.
    pub fn signing_input(&self) -> SigningInput {
        SigningInput::new(STORE_DOCUMENT_TYPE, &[self.canonical.as_bytes()])
    }

    pub(crate) fn from_value(
        value: &Value<'_>,
        path: &str,
        limits: &StoreLimits,
    ) -> Result<StoreDocument, DocumentError> {
        let mut reader = Fields::of(value, path)?;
        let type_path = reader.path("type");
        let document_type = reader.string("type")?;
        if document_type != STORE_DOCUMENT_TYPE {
            return Err(DocumentError::new(
                &type_path,
                DocumentErrorKind::DocumentType {
                    found: document_type.to_owned(),
                },
            ));
        }
        let version_path = reader.path("version");
        let version = in_range(reader.integer("version")?, 1, 1 << 53, &version_path)?;
        let expires = UnixTime(reader.integer("expires")?);
        let threshold_path = reader.path("threshold");
        let threshold = in_range(reader.integer("threshold")?, 1, 1 << 53, &threshold_path)?;
        let keys_path = reader.path("keys");
        let items = reader.array("keys", limits.max_keys)?;
        let mut keys = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let entry_path = format!("{keys_path}[{index}]");
            let entry = parse_key(item, &entry_path, limits)?;
            if keys.iter().any(|earlier: &KeyEntry| earlier.id == entry.id) {
                return Err(DocumentError::new(
                    &format!("{entry_path}.id"),
                    DocumentErrorKind::DuplicateKeyId { id: entry.id },
                ));
            }
            keys.push(entry);
        }
        reader.finish()?;
        let signers: BTreeSet<Fingerprint> = keys
            .iter()
            .filter(|entry| entry.scopes.store_update)
            .map(KeyEntry::fingerprint)
            .collect();
        if threshold > signers.len() as u64 {
            return Err(DocumentError::new(
                &threshold_path,
                DocumentErrorKind::ThresholdUnreachable {
                    threshold,
                    signers: signers.len(),
                },
            ));
        }
        Ok(StoreDocument {
            version,
            expires,
            threshold,
            keys,
            canonical: Canonical::of(value),
        })
    }
}

pub(crate) fn parse_json<'a>(
    input: &'a [u8],
    limits: &StoreLimits,
) -> Result<Value<'a>, DocumentError> {
    let mut json_limits = JsonLimits::default();
    json_limits.max_bytes = limits.max_bytes;
    json::parse(input, &json_limits)
        .map_err(|error| DocumentError::new(&error.path.clone(), DocumentErrorKind::Json(error)))
}

fn parse_key(
    value: &Value<'_>,
    path: &str,
    limits: &StoreLimits,
) -> Result<KeyEntry, DocumentError> {
    let mut reader = Fields::of(value, path)?;
    let id_path = reader.path("id");
    let id = reader.string("id")?;
    if !is_key_id(id) {
        return Err(DocumentError::new(
            &id_path,
            DocumentErrorKind::KeyId { id: id.to_owned() },
        ));
    }
    let algorithm_path = reader.path("algorithm");
    let algorithm_name = reader.string("algorithm")?;
    let material = match Algorithm::from_name(algorithm_name) {
        Some(Algorithm::Ed25519) => {
            let public_path = reader.path("public_key");
            let bytes = base64(&mut reader, "public_key", 32)?;
            let key = Ed25519PublicKey::from_bytes(&bytes).map_err(|_| {
                DocumentError::new(
                    &public_path,
                    DocumentErrorKind::ByteLength {
                        expected: 32,
                        found: bytes.len(),
                    },
                )
            })?;
            KeyMaterial::Ed25519(key)
        }
        Some(Algorithm::HmacSha256) => {
            let bytes = base64(&mut reader, "secret_sha256", 32)?;
            let mut digest = [0u8; 32];
            for (out, byte) in digest.iter_mut().zip(&bytes) {
                *out = *byte;
            }
            let chars_path = reader.path("tag_chars");
            let chars = reader.integer("tag_chars")?;
            let tag_chars = document_tag_chars(chars).map_err(|error| {
                DocumentError::new(&chars_path, DocumentErrorKind::TagLength(error))
            })?;
            KeyMaterial::Hmac {
                secret_sha256: Fingerprint::from_digest(digest),
                tag_chars,
            }
        }
        _ => {
            return Err(DocumentError::new(
                &algorithm_path,
                DocumentErrorKind::Algorithm {
                    found: algorithm_name.to_owned(),
                },
            ))
        }
    };
    let validity = Validity {
        not_before: UnixTime(reader.integer("not_before")?),
        not_after: UnixTime(reader.integer("not_after")?),
    };
    let status_path = reader.path("status");
    let status = match reader.string("status")? {
        "active" => KeyStatus::Active,
        "verify-only" => KeyStatus::VerifyOnly,
        "revoked" => KeyStatus::Revoked {
            at: UnixTime(reader.integer("revoked_at")?),
        },
        other => {
            return Err(DocumentError::new(
                &status_path,
                DocumentErrorKind::Status {
                    found: other.to_owned(),
                },
            ))
        }
    };
    let scopes_path = reader.path("scopes");
    let scopes = parse_scopes(reader.value("scopes")?, &scopes_path, limits)?;
    let path = reader.at().to_owned();
    reader.finish()?;
    let entry = KeyEntry {
        id: id.to_owned(),
        material,
        validity,
        status,
        scopes,
    };
    check_rules(
        &entry.id,
        matches!(entry.material, KeyMaterial::Ed25519(_)),
        entry.validity,
        &entry.scopes,
    )
    .map_err(|error| DocumentError::new(&path, DocumentErrorKind::Record(error)))?;
    Ok(entry)
}

/// `tag_chars` of a document: the compact 5, or 16 to 42. Compact is checked against the
/// compensating controls when the document is bound to secrets.
fn document_tag_chars(chars: u64) -> Result<u8, TagLengthError> {
    let chars = u8::try_from(chars).unwrap_or(u8::MAX);
    if u16::from(chars) * 6 == COMPACT_TAG_BITS {
        return Ok(chars);
    }
    TagLength::from_chars(chars).map(|_| chars)
}

fn parse_scopes(
    value: &Value<'_>,
    path: &str,
    limits: &StoreLimits,
) -> Result<Scopes, DocumentError> {
    let mut reader = Fields::of(value, path)?;
    let frames_path = reader.path("frames");
    let items = reader.array("frames", limits.max_frame_scopes)?;
    let mut frames = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        frames.push(parse_frame_scope(
            item,
            &format!("{frames_path}[{index}]"),
            limits,
        )?);
    }
    let manifest_approval = reader.bool("manifest_approval")?;
    let store_update = reader.bool("store_update")?;
    reader.finish()?;
    Ok(Scopes {
        frames,
        manifest_approval,
        store_update,
    })
}

fn parse_frame_scope(
    value: &Value<'_>,
    path: &str,
    limits: &StoreLimits,
) -> Result<FrameScope, DocumentError> {
    let mut reader = Fields::of(value, path)?;
    let element = reader.string("element")?;
    let attributes_path = reader.path("attributes");
    let object = reader
        .value("attributes")?
        .as_object()
        .ok_or_else(|| wrong_type(&attributes_path, "an object"))?;
    if object.len() > limits.max_attribute_constraints {
        return Err(DocumentError::new(
            &attributes_path,
            DocumentErrorKind::TooMany {
                max: limits.max_attribute_constraints,
            },
        ));
    }
    let mut attributes = Vec::with_capacity(object.len());
    for (name, allowed) in object.iter() {
        let name_path = format!("{attributes_path}[\"{}\"]", name.escape_debug());
        let items = allowed
            .as_array()
            .ok_or_else(|| wrong_type(&name_path, "an array of strings"))?;
        if items.len() > limits.max_attribute_values {
            return Err(DocumentError::new(
                &name_path,
                DocumentErrorKind::TooMany {
                    max: limits.max_attribute_values,
                },
            ));
        }
        let mut values = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let text = item
                .as_str()
                .ok_or_else(|| wrong_type(&format!("{name_path}[{index}]"), "a string"))?;
            values.push(text.to_owned());
        }
        attributes.push((name.to_owned(), values));
    }
    let path = reader.at().to_owned();
    reader.finish()?;
    FrameScope::new(element, attributes)
        .map_err(|error| DocumentError::new(&path, DocumentErrorKind::Scope(error)))
}
