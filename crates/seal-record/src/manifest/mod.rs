//! The disclosure manifest (spec/manifest-v1.md): what a run is about to send to a model
//! provider, in one canonical JSON record whose SHA-256 is the `disclosure_hash`.

mod builder;
mod error;
mod json;
mod limits;
mod summary;

use seal_parse::json::{Canonical, Value};

use crate::digest::Sha256Digest;
use crate::path::CanonicalPath;
use crate::record::Record;

pub use builder::ManifestBuilder;
pub use error::ManifestError;
pub use limits::{ManifestLimits, PURPOSE_MAX_CHARS};

/// `_type` of a manifest.
pub const MANIFEST_TYPE: &str = "seal/manifest/v1";

/// `version` of a manifest.
pub const MANIFEST_VERSION: u64 = 1;

/// A disclosure manifest that satisfies every rule of spec/manifest-v1.md.
///
/// Only [`ManifestBuilder::build`] and [`Manifest::from_json`] construct one, both enforcing the
/// same rules, so holding a `Manifest` means the rules hold. Files are sorted by canonical path,
/// redactions by type and external tools by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    run_id: String,
    provider: String,
    model: String,
    purpose: String,
    files: Vec<DisclosedFile>,
    redactions: Vec<Redaction>,
    external_tools: Vec<String>,
    estimated_tokens: u64,
    payload_sha256: Sha256Digest,
    policy_sha256: Sha256Digest,
}

/// One file whose lines are disclosed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisclosedFile {
    path: CanonicalPath,
    sha256: Sha256Digest,
    ranges: Vec<LineRange>,
}

/// A sent range of lines of a file, 1-based and inclusive, with the SHA-256 of the bytes sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    /// First line sent (1-based).
    pub start: u64,
    /// Last line sent (inclusive, `>= start`).
    pub end: u64,
    /// SHA-256 of the bytes of the lines sent.
    pub sha256: Sha256Digest,
}

/// A kind of redaction and how many times it was applied; never the redacted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    kind: String,
    count: u64,
}

impl Manifest {
    /// A builder with no field set.
    pub fn builder() -> ManifestBuilder {
        ManifestBuilder::new()
    }

    /// Reads a stored manifest strictly: canonical-profile JSON, no unknown member, every field
    /// present and of its type, canonical paths and canonical list order, and every builder rule
    /// re-checked. `Manifest::from_json(m.canonical_bytes())` gives back `m`.
    pub fn from_json(input: &[u8], limits: &ManifestLimits) -> Result<Manifest, ManifestError> {
        json::from_json(input, limits)
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The model provider.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// The model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Why the disclosure happens (at most [`PURPOSE_MAX_CHARS`] scalar values).
    pub fn purpose(&self) -> &str {
        &self.purpose
    }

    /// The disclosed files, sorted by canonical path.
    pub fn files(&self) -> &[DisclosedFile] {
        &self.files
    }

    /// The disclosed file at `path`, if listed (files are sorted, so this is a binary search).
    pub fn file(&self, path: &CanonicalPath) -> Option<&DisclosedFile> {
        self.files
            .binary_search_by(|file| file.path.cmp(path))
            .ok()
            .and_then(|at| self.files.get(at))
    }

    /// The redactions, sorted by type.
    pub fn redactions(&self) -> &[Redaction] {
        &self.redactions
    }

    /// The external tools the run may call, sorted.
    pub fn external_tools(&self) -> &[String] {
        &self.external_tools
    }

    /// The estimated number of tokens sent.
    pub fn estimated_tokens(&self) -> u64 {
        self.estimated_tokens
    }

    /// SHA-256 of the payload sent.
    pub fn payload_sha256(&self) -> Sha256Digest {
        self.payload_sha256
    }

    /// SHA-256 of the policy in force.
    pub fn policy_sha256(&self) -> Sha256Digest {
        self.policy_sha256
    }

    /// The JSON form of the manifest.
    pub fn to_value(&self) -> Value<'_> {
        json::to_value(self)
    }

    /// The RFC 8785 canonical bytes of the JSON form.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        self.to_value().canonical_bytes()
    }

    /// `disclosure_hash`: SHA-256 of [`Manifest::canonical_bytes`].
    pub fn disclosure_hash(&self) -> Sha256Digest {
        Sha256Digest::of(&self.canonical_bytes())
    }
}

impl Record for Manifest {
    fn record_type(&self) -> &'static str {
        MANIFEST_TYPE
    }

    fn canonical(&self) -> Canonical {
        Canonical::of(&self.to_value())
    }
}

impl DisclosedFile {
    /// The canonical path.
    pub fn path(&self) -> &CanonicalPath {
        &self.path
    }

    /// SHA-256 of the whole file.
    pub fn sha256(&self) -> Sha256Digest {
        self.sha256
    }

    /// The sent ranges: non-empty, ordered, non-overlapping.
    pub fn ranges(&self) -> &[LineRange] {
        &self.ranges
    }
}

impl Redaction {
    /// The redaction type (an identifier such as `api-key`).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// How many times it was applied (at least 1).
    pub fn count(&self) -> u64 {
        self.count
    }
}
