//! Disclosure: seal what a run is about to send behind one hash, show it to the human, and
//! verify it again right before spawning.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use seal_record::{
    canonical_path, CanonicalPath, LineRange, Manifest as CoreManifest,
    ManifestBuilder as CoreBuilder, ManifestLimits,
};
use seal_render::{render_summary, ManifestSummary, SummaryFile, SummaryRedaction};
use seal_verify::{
    verify_before_spawn, verify_signed_before_spawn, ApprovalCheck, FileDigests, LivePayload,
    LiveState as CoreLive, SignedApproval,
};

use crate::keys::ApproverKey;
use crate::trust::TrustStore;
use crate::ReplayStore;
use crate::{Sha256Digest, UnixTime};

/// A disclosure manifest (spec/manifest-v1.md): run id, provider, model, purpose, the files
/// and line ranges sent with their digests, redaction counts, external tools, estimated
/// tokens, payload digest and policy digest. Holding one means every rule of the spec holds.
///
/// The human approves [`Manifest::disclosure_hash`] after reading [`Manifest::summary`]; the
/// executor calls [`Manifest::verify_before_spawn`] with live state right before it spawns.
///
/// ```
/// use std::collections::BTreeMap;
/// use seal::{LiveState, Manifest, Sha256Digest, SpawnError};
///
/// let mut files = BTreeMap::new();
/// files.insert("src/lib.rs".to_owned(), "fn main() {}\n// end\n".to_owned());
/// let policy = Sha256Digest::of(b"policy");
/// let manifest = Manifest::builder()
///     .run_id("run-1").provider("example").model("model-1").purpose("review")
///     .file("src/lib.rs", files["src/lib.rs"].as_bytes(), &[(1, 1)])
///     .estimated_tokens(40).payload(b"the prompt").policy(policy)
///     .build()?;
/// let approved = manifest.disclosure_hash();
/// assert!(manifest.summary().contains("src/lib.rs"));
///
/// let live = LiveState { policy, model: "model-1", payload: b"the prompt", files: &files };
/// assert!(manifest.verify_before_spawn(&approved, &live).is_ok());
///
/// files.insert("src/lib.rs".to_owned(), "fn main() { evil() }\n".to_owned());
/// let live = LiveState { policy, model: "model-1", payload: b"the prompt", files: &files };
/// assert!(matches!(manifest.verify_before_spawn(&approved, &live), Err(SpawnError::StaleManifest { .. })));
/// # Ok::<(), seal::ManifestError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    manifest: CoreManifest,
}

/// Collects a manifest's fields; digests of files, line ranges and the payload are computed
/// here from the bytes given. [`ManifestBuilder::build`] names the first rule broken.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ManifestBuilder {
    builder: CoreBuilder,
    error: Option<ManifestError>,
}

/// Why a manifest could not be built or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestError {
    /// A line range that is empty, starts at 0, or goes past the end of the file.
    LineRange {
        /// The file.
        path: String,
        /// First line asked.
        start: u64,
        /// Last line asked.
        end: u64,
        /// Lines in the file.
        lines: u64,
    },
    /// A rule of spec/manifest-v1.md is broken (a missing or invalid field, a path outside the
    /// workspace, a duplicate, a limit), or the JSON is not a manifest.
    Invalid(ManifestRuleError),
    /// The approval could not be signed (a key id or approval id outside its grammar).
    Approval(ApprovalError),
}

/// The state a run is about to spawn with, supplied by the embedder at spawn time.
pub struct LiveState<'a> {
    /// SHA-256 of the policy in force now ([`Seal::policy_digest`](crate::Seal::policy_digest)).
    pub policy: Sha256Digest,
    /// The model the run will use.
    pub model: &'a str,
    /// The payload about to be sent.
    pub payload: &'a [u8],
    /// The files as they are now.
    pub files: &'a dyn LiveFiles,
}

/// The files as they are now: the SHA-256 of a file's whole contents, by path (relative to the
/// workspace; `./a` and `a` are the same file), or `None` when it is missing or unreadable
/// (stale: fail closed).
///
/// Implemented for maps from paths to contents (`BTreeMap` and `HashMap` of `String` to
/// `String` or `Vec<u8>`) and for closures `Fn(&str) -> Option<Sha256Digest>`.
pub trait LiveFiles {
    /// SHA-256 of the file at `path` now.
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest>;
}

/// Why a run may not spawn: the policy, the model, a file or the payload changed since approval,
/// the manifest is not the one approved or cannot be rebuilt to its hash, or the signed approval
/// was refused. The core's own error ([`StaleItem`] names what changed).
pub use seal_verify::{ApprovalError, SpawnError, StaleItem};

/// Why a manifest broke a rule of spec/manifest-v1.md (the record's own error).
pub use seal_record::ManifestError as ManifestRuleError;

/// An approver's signature over a disclosure hash: approver key id, single-use approval id,
/// last valid second, the hash and the signature (86 base64url characters). Made with
/// [`ManifestApproval::sign`] where the human approves, checked by
/// [`Manifest::verify_approved_before_spawn`] where the run spawns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestApproval {
    approval: SignedApproval,
}

/// Where a signed approval is checked: the trust store holding approver keys (scoped for
/// manifest approval), the time, and the replay store in which the approval id is claimed
/// (one approval clears one spawn).
pub struct ApprovalContext<'a> {
    /// The trust store.
    pub store: &'a TrustStore,
    /// The time of the check.
    pub now: UnixTime,
    /// The replay store approval ids are claimed in (the frames' store may be shared: approval
    /// ids have a scope of their own).
    pub replay: &'a dyn ReplayStore,
}

/// Proof that a run may spawn: the manifest rebuilt from live state hashes to the approved
/// disclosure hash (and, for a signed approval, the approval checked). Only
/// [`Manifest::verify_before_spawn`] and [`Manifest::verify_approved_before_spawn`] build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnClearance {
    disclosure_hash: Sha256Digest,
    approver_key_id: Option<String>,
    approval_id: Option<String>,
}

impl Manifest {
    /// A builder with no field set.
    pub fn builder() -> ManifestBuilder {
        ManifestBuilder::default()
    }

    /// Reads a manifest from its JSON form strictly (the same rules as the builder).
    ///
    /// # Errors
    /// [`ManifestError::Invalid`].
    pub fn from_json(json: &str) -> Result<Manifest, ManifestError> {
        CoreManifest::from_json(json.as_bytes(), &ManifestLimits::default())
            .map(|manifest| Manifest { manifest })
            .map_err(ManifestError::Invalid)
    }

    /// The RFC 8785 canonical JSON form, whose SHA-256 is the disclosure hash.
    pub fn to_json(&self) -> String {
        String::from_utf8_lossy(&self.manifest.canonical_bytes()).into_owned()
    }

    /// SHA-256 of the canonical JSON form: what the human approves.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.manifest.disclosure_hash()
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        self.manifest.run_id()
    }

    /// The model.
    pub fn model(&self) -> &str {
        self.manifest.model()
    }

    /// The summary the human reads before approving (see [`seal_render::render_summary`]):
    /// printable ASCII lines of at most 80 columns, every field escaped, the disclosure hash
    /// first, one file, redaction or external tool per line, long text wrapped onto
    /// continuation lines behind a gutter no field line uses.
    pub fn summary(&self) -> String {
        let m = &self.manifest;
        let ranges: Vec<Vec<(u64, u64)>> = m
            .files()
            .iter()
            .map(|file| {
                file.ranges()
                    .iter()
                    .map(|range| (range.start, range.end))
                    .collect()
            })
            .collect();
        let files: Vec<SummaryFile<'_>> = m
            .files()
            .iter()
            .zip(&ranges)
            .map(|(file, ranges)| SummaryFile {
                path: file.path().as_str(),
                ranges,
                sha256: *file.sha256().as_bytes(),
            })
            .collect();
        let redactions: Vec<SummaryRedaction<'_>> = m
            .redactions()
            .iter()
            .map(|r| SummaryRedaction {
                kind: r.kind(),
                count: r.count(),
            })
            .collect();
        let tools: Vec<&str> = m.external_tools().iter().map(String::as_str).collect();
        render_summary(&ManifestSummary {
            disclosure_hash: *m.disclosure_hash().as_bytes(),
            run_id: m.run_id(),
            provider: m.provider(),
            model: m.model(),
            purpose: m.purpose(),
            files: &files,
            redactions: &redactions,
            external_tools: &tools,
            estimated_tokens: m.estimated_tokens(),
            payload_sha256: *m.payload_sha256().as_bytes(),
            policy_sha256: *m.policy_sha256().as_bytes(),
        })
    }

    /// Checks, right before spawning, that the manifest is the approved one and that live state
    /// still matches it: policy, model, payload, every file; then rebuilds the manifest from
    /// live state and requires the approved hash again.
    ///
    /// # Errors
    /// The first check that fails, each a distinct [`SpawnError`].
    pub fn verify_before_spawn(
        &self,
        approved: &Sha256Digest,
        live: &LiveState<'_>,
    ) -> Result<SpawnClearance, SpawnError> {
        let files = |path: &CanonicalPath| live.files.contents_digest(path.as_str());
        let core = CoreLive {
            policy_sha256: live.policy,
            model: live.model,
            payload: LivePayload::Bytes(live.payload),
            files: &files as &dyn FileDigests,
        };
        verify_before_spawn(&self.manifest, approved, &core)
            .map(|clearance| clearance_of(&clearance))
    }

    /// [`Manifest::verify_before_spawn`] with the approved hash taken from a signed approval,
    /// which is checked first: the approver key resolves in `context.store` for manifest
    /// approval at `context.now`, the signature checks and the approval has not expired; then the
    /// live state is checked; then the approval id is claimed in `context.replay` (until the
    /// approval's not-after time), and only a fresh claim clears: one approval clears one spawn,
    /// and an approval refused for a stale state is not spent.
    ///
    /// ```
    /// use seal::{
    ///     ApprovalContext, ApproverKey, LiveState, Manifest, ManifestApproval, MemoryReplayStore,
    ///     Sha256Digest, SpawnError, TrustStore, UnixTime,
    /// };
    ///
    /// let approver = ApproverKey::from_seed(&[5; 32])?;
    /// let mut store = TrustStore::new(UnixTime(2_000_000_000));
    /// store.add_approver_key("alice", &approver, UnixTime(0), UnixTime(2_000_000_000))?;
    /// let policy = Sha256Digest::of(b"rules");
    /// let manifest = Manifest::builder()
    ///     .run_id("run-1").provider("p").model("m").purpose("review").estimated_tokens(10)
    ///     .payload(b"prompt").policy(policy).build()?;
    /// // Where the human approves:
    /// let approval =
    ///     ManifestApproval::sign(&approver, "alice", "approval-7", UnixTime(1_800_000_100), &manifest)?;
    ///
    /// let replay = MemoryReplayStore::new();
    /// // Where the run spawns:
    /// let context = ApprovalContext { store: &store, now: UnixTime(1_800_000_000), replay: &replay };
    /// let live = LiveState { policy, model: "m", payload: b"prompt", files: &|_: &str| None };
    /// let clearance = manifest.verify_approved_before_spawn(&approval, &context, &live)?;
    /// assert_eq!(clearance.approval_id(), Some("approval-7"));
    /// // The same approval again: spent.
    /// let again = manifest.verify_approved_before_spawn(&approval, &context, &live);
    /// assert!(matches!(again, Err(SpawnError::Approval { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`SpawnError::Approval`], or the first stale item.
    pub fn verify_approved_before_spawn(
        &self,
        approval: &ManifestApproval,
        context: &ApprovalContext<'_>,
        live: &LiveState<'_>,
    ) -> Result<SpawnClearance, SpawnError> {
        let files = |path: &CanonicalPath| live.files.contents_digest(path.as_str());
        let core = CoreLive {
            policy_sha256: live.policy,
            model: live.model,
            payload: LivePayload::Bytes(live.payload),
            files: &files as &dyn FileDigests,
        };
        let check = ApprovalCheck {
            store: &context.store.inner,
            now: context.now,
            replay: context.replay,
        };
        verify_signed_before_spawn(&self.manifest, &approval.approval, &check, &core)
            .map(|clearance| clearance_of(&clearance))
    }
}

impl ManifestApproval {
    /// The approver `key` (listed as `key_id`) signs `manifest`'s disclosure hash, valid until
    /// `not_after` (inclusive) and usable once as `approval_id` (`[A-Za-z0-9._-]{1,64}`).
    ///
    /// # Errors
    /// [`ManifestError::Approval`] for a key id or approval id outside its grammar.
    pub fn sign(
        key: &ApproverKey,
        key_id: &str,
        approval_id: &str,
        not_after: UnixTime,
        manifest: &Manifest,
    ) -> Result<ManifestApproval, ManifestError> {
        SignedApproval::sign(
            key.signing_key(),
            key_id,
            approval_id,
            not_after,
            manifest.disclosure_hash(),
        )
        .map(|approval| ManifestApproval { approval })
        .map_err(ManifestError::Approval)
    }

    /// An approval received from elsewhere (checked only when verified before spawn).
    pub fn from_parts(
        key_id: &str,
        approval_id: &str,
        not_after: UnixTime,
        disclosure_hash: Sha256Digest,
        signature: &str,
    ) -> ManifestApproval {
        ManifestApproval {
            approval: SignedApproval::from_parts(
                key_id,
                approval_id,
                not_after,
                disclosure_hash,
                signature,
            ),
        }
    }

    /// The approver's key id.
    pub fn key_id(&self) -> &str {
        self.approval.key_id()
    }

    /// The single-use approval id.
    pub fn approval_id(&self) -> &str {
        self.approval.approval_id()
    }

    /// The last second the approval is valid.
    pub fn not_after(&self) -> UnixTime {
        self.approval.not_after()
    }

    /// The approved disclosure hash.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.approval.disclosure_hash()
    }

    /// The signature text (86 base64url characters).
    pub fn signature(&self) -> &str {
        self.approval.signature()
    }
}

impl ManifestBuilder {
    /// The run id (an identifier).
    pub fn run_id(mut self, run_id: &str) -> Self {
        self.builder = self.builder.run_id(run_id);
        self
    }

    /// The model provider.
    pub fn provider(mut self, provider: &str) -> Self {
        self.builder = self.builder.provider(provider);
        self
    }

    /// The model.
    pub fn model(mut self, model: &str) -> Self {
        self.builder = self.builder.model(model);
        self
    }

    /// Why the run sends this (at most 240 characters).
    pub fn purpose(mut self, purpose: &str) -> Self {
        self.builder = self.builder.purpose(purpose);
        self
    }

    /// A file whose `lines` (1-based, inclusive `(start, end)` pairs) are sent, given its whole
    /// `contents`: the file digest and each range's digest (of the exact bytes of those lines,
    /// line terminators included) are computed here.
    pub fn file(mut self, path: &str, contents: &[u8], lines: &[(u64, u64)]) -> Self {
        let starts = line_starts(contents);
        let count = starts.len() as u64;
        let mut ranges = Vec::with_capacity(lines.len());
        for &(start, end) in lines {
            let bytes = (start >= 1 && start <= end && end <= count)
                .then(|| {
                    let from = starts.get(usize::try_from(start - 1).ok()?).copied()?;
                    let to = match starts.get(usize::try_from(end).ok()?) {
                        Some(next) => *next,
                        None => contents.len(),
                    };
                    contents.get(from..to)
                })
                .flatten();
            match bytes {
                Some(bytes) => ranges.push(LineRange {
                    start,
                    end,
                    sha256: Sha256Digest::of(bytes),
                }),
                None => {
                    self.error.get_or_insert(ManifestError::LineRange {
                        path: path.to_owned(),
                        start,
                        end,
                        lines: count,
                    });
                }
            }
        }
        self.builder = self.builder.file(path, Sha256Digest::of(contents), &ranges);
        self
    }

    /// A kind of redaction applied `count` times (never the redacted text).
    pub fn redaction(mut self, kind: &str, count: u64) -> Self {
        self.builder = self.builder.redaction(kind, count);
        self
    }

    /// An external tool the run may call.
    pub fn external_tool(mut self, name: &str) -> Self {
        self.builder = self.builder.external_tool(name);
        self
    }

    /// The estimated tokens sent.
    pub fn estimated_tokens(mut self, tokens: u64) -> Self {
        self.builder = self.builder.estimated_tokens(tokens);
        self
    }

    /// The payload about to be sent (its SHA-256 is recorded).
    pub fn payload(mut self, payload: &[u8]) -> Self {
        self.builder = self.builder.payload_sha256(Sha256Digest::of(payload));
        self
    }

    /// The digest of the policy in force ([`Seal::policy_digest`](crate::Seal::policy_digest)).
    pub fn policy(mut self, digest: Sha256Digest) -> Self {
        self.builder = self.builder.policy_sha256(digest);
        self
    }

    /// Checks every rule and builds the manifest.
    ///
    /// # Errors
    /// The first [`ManifestError`].
    pub fn build(self) -> Result<Manifest, ManifestError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.builder
            .build(&ManifestLimits::default())
            .map(|manifest| Manifest { manifest })
            .map_err(ManifestError::Invalid)
    }
}

impl SpawnClearance {
    /// The disclosure hash that was approved and recomputed.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.disclosure_hash
    }

    /// The approver's key id, for a signed approval.
    pub fn approver_key_id(&self) -> Option<&str> {
        self.approver_key_id.as_deref()
    }

    /// The approval id, for a signed approval (already claimed in the replay store).
    pub fn approval_id(&self) -> Option<&str> {
        self.approval_id.as_deref()
    }
}

fn clearance_of(clearance: &seal_verify::SpawnClearance) -> SpawnClearance {
    SpawnClearance {
        disclosure_hash: clearance.disclosure_hash(),
        approver_key_id: clearance.approver_key_id().map(str::to_owned),
        approval_id: clearance.approval_id().map(str::to_owned),
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LineRange {
                path,
                start,
                end,
                lines,
            } => write!(
                f,
                "lines {start}-{end} of `{}` are not within its {lines} lines",
                path.escape_debug()
            ),
            Self::Invalid(error) => write!(f, "manifest refused: {error}"),
            Self::Approval(error) => write!(f, "approval not signed: {error}"),
        }
    }
}

impl std::error::Error for ManifestError {}

impl<F: Fn(&str) -> Option<Sha256Digest>> LiveFiles for F {
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest> {
        self(path)
    }
}

impl LiveFiles for BTreeMap<String, String> {
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest> {
        lookup(self.iter(), path).map(|contents| Sha256Digest::of(contents.as_bytes()))
    }
}

impl LiveFiles for BTreeMap<String, Vec<u8>> {
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest> {
        lookup(self.iter(), path).map(|contents| Sha256Digest::of(contents))
    }
}

impl LiveFiles for HashMap<String, String> {
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest> {
        lookup(self.iter(), path).map(|contents| Sha256Digest::of(contents.as_bytes()))
    }
}

impl LiveFiles for HashMap<String, Vec<u8>> {
    fn contents_digest(&self, path: &str) -> Option<Sha256Digest> {
        lookup(self.iter(), path).map(|contents| Sha256Digest::of(contents))
    }
}

/// The value whose key canonicalizes to `path` (keys that are not workspace paths never match).
fn lookup<'m, V: 'm>(
    mut entries: impl Iterator<Item = (&'m String, &'m V)>,
    path: &str,
) -> Option<&'m V> {
    entries
        .find(|(key, _)| canonical_path(key).is_ok_and(|canonical| canonical.as_str() == path))
        .map(|(_, value)| value)
}

/// Byte offsets where each line starts (a final line without LF counts; an empty file has no
/// line).
fn line_starts(contents: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    if !contents.is_empty() {
        starts.push(0);
    }
    for (index, byte) in contents.iter().enumerate() {
        if *byte == b'\n' && index + 1 < contents.len() {
            starts.push(index + 1);
        }
    }
    starts
}
