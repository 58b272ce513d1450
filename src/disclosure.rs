//! Disclosure: seal what a run is about to send behind one hash, show it to the human, and
//! verify it again right before spawning. The rules are the core's (seal-record builds and
//! reads manifests, seal-verify checks them before spawn); this type fixes the default limits
//! and takes the facade's trust store.

use seal_record::{Manifest as CoreManifest, ManifestBuilder as CoreBuilder, ManifestLimits};
use seal_verify::{verify_before_spawn, verify_signed_before_spawn, ApprovalCheck};

use crate::trust::TrustStore;
use crate::ReplayStore;
use crate::{Sha256Digest, UnixTime};

pub use seal_record::ManifestError;
pub use seal_verify::{
    ApprovalError, FileDigests, LivePayload, LiveState, SignedApproval, SpawnClearance, SpawnError,
    StaleItem,
};

/// A disclosure manifest (spec/manifest-v1.md): run id, provider, model, purpose, the files
/// and line ranges sent with their digests, redaction counts, external tools, estimated
/// tokens, payload digest and policy digest. Holding one means every rule of the spec holds.
///
/// The human approves [`Manifest::disclosure_hash`] after reading [`Manifest::summary`]; the
/// executor calls [`Manifest::verify_before_spawn`] with live state right before it spawns.
///
/// ```
/// use std::collections::BTreeMap;
/// use seal::{LivePayload, LiveState, Manifest, Sha256Digest, SpawnError};
///
/// let mut files = BTreeMap::new();
/// files.insert("src/lib.rs".to_owned(), "fn main() {}\n// end\n".to_owned());
/// let policy = Sha256Digest::of(b"policy");
/// let manifest = Manifest::builder()
///     .run_id("run-1").provider("example").model("model-1").purpose("review")
///     .file_contents("src/lib.rs", files["src/lib.rs"].as_bytes(), &[(1, 1)])
///     .estimated_tokens(40).payload(b"the prompt").policy_sha256(policy)
///     .build()?;
/// let approved = manifest.disclosure_hash();
/// assert!(manifest.summary().contains("src/lib.rs"));
///
/// let payload = LivePayload::Bytes(b"the prompt");
/// let live = LiveState { policy_sha256: policy, model: "model-1", payload, files: &files };
/// assert!(manifest.verify_before_spawn(&approved, &live).is_ok());
///
/// files.insert("src/lib.rs".to_owned(), "fn main() { evil() }\n".to_owned());
/// let live = LiveState { policy_sha256: policy, model: "model-1", payload, files: &files };
/// assert!(matches!(manifest.verify_before_spawn(&approved, &live), Err(SpawnError::StaleManifest { .. })));
/// # Ok::<(), seal::ManifestError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    manifest: CoreManifest,
}

/// Collects a manifest's fields (the core builder's, see [`seal_record::ManifestBuilder`]);
/// [`ManifestBuilder::build`] checks them under the default limits and names the first rule
/// broken.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ManifestBuilder {
    builder: CoreBuilder,
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

impl Manifest {
    /// A builder with no field set.
    pub fn builder() -> ManifestBuilder {
        ManifestBuilder::default()
    }

    /// Reads a manifest from its JSON form strictly (the same rules as the builder).
    ///
    /// # Errors
    /// The first rule broken.
    pub fn from_json(json: &str) -> Result<Manifest, ManifestError> {
        let manifest = CoreManifest::from_json(json.as_bytes(), &ManifestLimits::default())?;
        Ok(Manifest { manifest })
    }

    /// The RFC 8785 canonical JSON form, whose SHA-256 is the disclosure hash.
    pub fn to_json(&self) -> String {
        String::from_utf8_lossy(&self.manifest.canonical_bytes()).into_owned()
    }

    /// The manifest's fields.
    pub fn fields(&self) -> &CoreManifest {
        &self.manifest
    }

    /// SHA-256 of the canonical JSON form: what the human approves.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.manifest.disclosure_hash()
    }

    /// The summary the human reads before approving ([`seal_record::Manifest::summary`]).
    pub fn summary(&self) -> String {
        self.manifest.summary()
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
        verify_before_spawn(&self.manifest, approved, live)
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
    ///     ApprovalContext, ApproverKey, CanonicalPath, LivePayload, LiveState, Manifest,
    ///     MemoryReplayStore, Sha256Digest, SpawnError, TrustStore, UnixTime,
    /// };
    ///
    /// let approver = ApproverKey::from_seed(&[5; 32])?;
    /// let mut store = TrustStore::new(UnixTime(2_000_000_000));
    /// store.add_approver_key("alice", &approver, UnixTime(0), UnixTime(2_000_000_000))?;
    /// let policy = Sha256Digest::of(b"rules");
    /// let manifest = Manifest::builder()
    ///     .run_id("run-1").provider("p").model("m").purpose("review").estimated_tokens(10)
    ///     .payload(b"prompt").policy_sha256(policy).build()?;
    /// // Where the human approves:
    /// let approval = approver.sign_approval("alice", "approval-7", UnixTime(1_800_000_100), manifest.disclosure_hash())?;
    ///
    /// let replay = MemoryReplayStore::new();
    /// // Where the run spawns:
    /// let context = ApprovalContext { store: &store, now: UnixTime(1_800_000_000), replay: &replay };
    /// let files = |_: &CanonicalPath| None;
    /// let live = LiveState { policy_sha256: policy, model: "m", payload: LivePayload::Bytes(b"prompt"), files: &files };
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
        approval: &SignedApproval,
        context: &ApprovalContext<'_>,
        live: &LiveState<'_>,
    ) -> Result<SpawnClearance, SpawnError> {
        let check = ApprovalCheck {
            store: &context.store.inner,
            now: context.now,
            replay: context.replay,
        };
        verify_signed_before_spawn(&self.manifest, approval, &check, live)
    }
}

impl ManifestBuilder {
    /// Applies `set` to the core builder: any of its setters (`run_id`, `provider`, `model`,
    /// `purpose`, `file_contents`, `redaction`, `external_tool`, `estimated_tokens`, `payload`,
    /// `policy_sha256`, ...).
    fn with(self, set: impl FnOnce(CoreBuilder) -> CoreBuilder) -> Self {
        ManifestBuilder {
            builder: set(self.builder),
        }
    }

    /// The run id (an identifier).
    pub fn run_id(self, run_id: &str) -> Self {
        self.with(|builder| builder.run_id(run_id))
    }

    /// The model provider.
    pub fn provider(self, provider: &str) -> Self {
        self.with(|builder| builder.provider(provider))
    }

    /// The model.
    pub fn model(self, model: &str) -> Self {
        self.with(|builder| builder.model(model))
    }

    /// Why the run sends this (at most 240 characters).
    pub fn purpose(self, purpose: &str) -> Self {
        self.with(|builder| builder.purpose(purpose))
    }

    /// A file whose `lines` are sent, given its whole `contents`
    /// ([`seal_record::ManifestBuilder::file_contents`]).
    pub fn file_contents(self, path: &str, contents: &[u8], lines: &[(u64, u64)]) -> Self {
        self.with(|builder| builder.file_contents(path, contents, lines))
    }

    /// A kind of redaction applied `count` times (never the redacted text).
    pub fn redaction(self, kind: &str, count: u64) -> Self {
        self.with(|builder| builder.redaction(kind, count))
    }

    /// An external tool the run may call.
    pub fn external_tool(self, name: &str) -> Self {
        self.with(|builder| builder.external_tool(name))
    }

    /// The estimated tokens sent.
    pub fn estimated_tokens(self, tokens: u64) -> Self {
        self.with(|builder| builder.estimated_tokens(tokens))
    }

    /// The payload about to be sent (its SHA-256 is recorded).
    pub fn payload(self, payload: &[u8]) -> Self {
        self.with(|builder| builder.payload(payload))
    }

    /// The digest of the policy in force ([`Seal::policy_digest`](crate::Seal::policy_digest)).
    pub fn policy_sha256(self, digest: Sha256Digest) -> Self {
        self.with(|builder| builder.policy_sha256(digest))
    }

    /// Checks every rule and builds the manifest.
    ///
    /// # Errors
    /// The first rule broken.
    pub fn build(self) -> Result<Manifest, ManifestError> {
        let manifest = self.builder.build(&ManifestLimits::default())?;
        Ok(Manifest { manifest })
    }
}
