//! Verification before spawn: the manifest recomputed from live state must hash to the approved
//! disclosure hash.

use std::fmt;

use seal_record::{
    canonical_path, CanonicalPath, Manifest, ManifestError, ManifestLimits, Sha256Digest,
};

use super::approval::{
    check_approval, claim_approval, ApprovalCheck, ApprovalError, SignedApproval,
};
use crate::store::KeySource;

/// Digests of the files as they are now, keyed by [`CanonicalPath`]: the embedder canonicalizes
/// its paths with [`seal_record::canonical_path`], the same function the manifest builder uses,
/// so one place has one key on both sides.
pub trait FileDigests {
    /// SHA-256 of the whole file at `path` now, or `None` when it does not exist or cannot be
    /// read (which is stale: fail closed).
    fn file_digest(&self, path: &CanonicalPath) -> Option<Sha256Digest>;
}

impl<F: Fn(&CanonicalPath) -> Option<Sha256Digest>> FileDigests for F {
    fn file_digest(&self, path: &CanonicalPath) -> Option<Sha256Digest> {
        self(path)
    }
}

impl FileDigests for std::collections::BTreeMap<CanonicalPath, Sha256Digest> {
    fn file_digest(&self, path: &CanonicalPath) -> Option<Sha256Digest> {
        self.get(path).copied()
    }
}

impl FileDigests for std::collections::HashMap<CanonicalPath, Sha256Digest> {
    fn file_digest(&self, path: &CanonicalPath) -> Option<Sha256Digest> {
        self.get(path).copied()
    }
}

/// Maps from paths to whole contents (`String` or `Vec<u8>`, in a `BTreeMap` or `HashMap`): a
/// key is the file whose canonical spelling is `path` (`./a` and `a` are the same file; a key
/// that is not a workspace path matches nothing), digested as it is looked up.
macro_rules! contents_by_path {
    ($($map:ident<String, $contents:ty>),*) => {$(
        impl FileDigests for std::collections::$map<String, $contents> {
            fn file_digest(&self, path: &CanonicalPath) -> Option<Sha256Digest> {
                let same = |key: &String| canonical_path(key).is_ok_and(|key| key == *path);
                let (_, contents) = self.iter().find(|(key, _)| same(key))?;
                Some(Sha256Digest::of(AsRef::<[u8]>::as_ref(contents)))
            }
        }
    )*};
}

contents_by_path!(
    BTreeMap<String, String>,
    BTreeMap<String, Vec<u8>>,
    HashMap<String, String>,
    HashMap<String, Vec<u8>>
);

/// The payload about to be sent: its bytes (hashed here) or their SHA-256.
#[derive(Debug, Clone, Copy)]
pub enum LivePayload<'a> {
    /// The payload bytes.
    Bytes(&'a [u8]),
    /// SHA-256 of the payload bytes.
    Digest(Sha256Digest),
}

impl LivePayload<'_> {
    /// SHA-256 of the payload.
    pub fn digest(&self) -> Sha256Digest {
        match self {
            LivePayload::Bytes(bytes) => Sha256Digest::of(bytes),
            LivePayload::Digest(digest) => *digest,
        }
    }
}

/// The state a run is about to spawn with, supplied by the embedder.
pub struct LiveState<'a> {
    /// SHA-256 of the policy in force now.
    pub policy_sha256: Sha256Digest,
    /// The model the run will use.
    pub model: &'a str,
    /// The payload about to be sent.
    pub payload: LivePayload<'a>,
    /// The files as they are now.
    pub files: &'a dyn FileDigests,
}

impl fmt::Debug for LiveState<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveState")
            .field("policy_sha256", &self.policy_sha256)
            .field("model", &self.model)
            .field("payload", &self.payload.digest())
            .finish_non_exhaustive()
    }
}

/// What changed since the approval, inside the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StaleItem {
    /// A disclosed file's digest differs from the live one.
    File {
        /// The file.
        path: CanonicalPath,
    },
    /// A disclosed file has no live digest (deleted or unreadable).
    MissingFile {
        /// The file.
        path: CanonicalPath,
    },
    /// The payload digest differs.
    Payload,
}

/// Why a run may not spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpawnError {
    /// The manifest given is not the one approved: its disclosure hash differs.
    NotApproved {
        /// The approved hash.
        approved: Sha256Digest,
        /// The manifest's hash.
        manifest: Sha256Digest,
    },
    /// The policy in force is not the one the manifest was approved under.
    StalePolicy {
        /// The manifest's policy digest.
        approved: Sha256Digest,
        /// The live policy digest.
        live: Sha256Digest,
    },
    /// The model differs from the manifest's.
    StaleModel {
        /// The manifest's model.
        approved: String,
        /// The live model.
        live: String,
    },
    /// A file or the payload changed.
    StaleManifest {
        /// What changed.
        item: StaleItem,
    },
    /// The manifest rebuilt from live state does not hash to the approved hash, or cannot be
    /// rebuilt.
    Recomputed {
        /// The approved hash.
        approved: Sha256Digest,
        /// The recomputed hash, when the rebuild succeeded.
        recomputed: Option<Sha256Digest>,
    },
    /// The signed approval was refused.
    Approval(ApprovalError),
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotApproved { approved, manifest } => write!(
                f,
                "manifest hash {} is not the approved hash {}",
                manifest.to_hex(),
                approved.to_hex()
            ),
            Self::StalePolicy { approved, live } => write!(
                f,
                "policy changed since approval: approved {}, live {}",
                approved.to_hex(),
                live.to_hex()
            ),
            Self::StaleModel { approved, live } => write!(
                f,
                "model changed since approval: approved `{}`, live `{}`",
                approved.escape_debug(),
                live.escape_debug()
            ),
            Self::StaleManifest { item } => match item {
                StaleItem::File { path } => {
                    write!(
                        f,
                        "file `{}` changed since approval",
                        path.as_str().escape_debug()
                    )
                }
                StaleItem::MissingFile { path } => write!(
                    f,
                    "file `{}` is missing since approval",
                    path.as_str().escape_debug()
                ),
                StaleItem::Payload => f.write_str("payload changed since approval"),
            },
            Self::Recomputed {
                approved,
                recomputed,
            } => match recomputed {
                Some(recomputed) => write!(
                    f,
                    "recomputed manifest hash {} is not the approved hash {}",
                    recomputed.to_hex(),
                    approved.to_hex()
                ),
                None => write!(
                    f,
                    "manifest cannot be rebuilt from live state (approved hash {})",
                    approved.to_hex()
                ),
            },
            Self::Approval(error) => write!(f, "approval refused: {error}"),
        }
    }
}

impl std::error::Error for SpawnError {}

/// Proof that a run may spawn: the manifest rebuilt from live state hashes to the approved
/// disclosure hash. Only [`verify_before_spawn`] and [`verify_signed_before_spawn`] build one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnClearance {
    disclosure_hash: Sha256Digest,
    approval: Option<(String, String)>,
}

impl SpawnClearance {
    /// The disclosure hash that was approved and recomputed.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.disclosure_hash
    }

    /// The approver key id, for a signed approval.
    pub fn approver_key_id(&self) -> Option<&str> {
        self.approval.as_ref().map(|(key_id, _)| key_id.as_str())
    }

    /// The approval id, for a signed approval (already claimed in the replay store).
    pub fn approval_id(&self) -> Option<&str> {
        self.approval.as_ref().map(|(_, id)| id.as_str())
    }
}

/// Checks, in order: the manifest's disclosure hash is `approved` (`NotApproved`); the live
/// policy digest is the manifest's (`StalePolicy`); the live model is the manifest's
/// (`StaleModel`); the live payload digest is the manifest's (`StaleManifest { Payload }`); every
/// disclosed file has a live digest (`MissingFile`) equal to the manifest's (`File`), in path
/// order. Then it rebuilds the manifest with the live policy, model, payload and file digests
/// and requires its disclosure hash to be `approved` (`Recomputed`).
///
/// # Errors
/// The first check that fails.
pub fn verify_before_spawn(
    manifest: &Manifest,
    approved: &Sha256Digest,
    live: &LiveState<'_>,
) -> Result<SpawnClearance, SpawnError> {
    let manifest_hash = manifest.disclosure_hash();
    if manifest_hash != *approved {
        return Err(SpawnError::NotApproved {
            approved: *approved,
            manifest: manifest_hash,
        });
    }
    if live.policy_sha256 != manifest.policy_sha256() {
        return Err(SpawnError::StalePolicy {
            approved: manifest.policy_sha256(),
            live: live.policy_sha256,
        });
    }
    if live.model != manifest.model() {
        return Err(SpawnError::StaleModel {
            approved: manifest.model().to_owned(),
            live: live.model.to_owned(),
        });
    }
    let payload = live.payload.digest();
    if payload != manifest.payload_sha256() {
        return Err(SpawnError::StaleManifest {
            item: StaleItem::Payload,
        });
    }
    let mut live_files = Vec::with_capacity(manifest.files().len());
    for file in manifest.files() {
        let digest =
            live.files
                .file_digest(file.path())
                .ok_or_else(|| SpawnError::StaleManifest {
                    item: StaleItem::MissingFile {
                        path: file.path().clone(),
                    },
                })?;
        if digest != file.sha256() {
            return Err(SpawnError::StaleManifest {
                item: StaleItem::File {
                    path: file.path().clone(),
                },
            });
        }
        live_files.push(digest);
    }
    let recomputed =
        rebuild(manifest, live, payload, &live_files).map_err(|_| SpawnError::Recomputed {
            approved: *approved,
            recomputed: None,
        })?;
    let recomputed_hash = recomputed.disclosure_hash();
    if recomputed_hash != *approved {
        return Err(SpawnError::Recomputed {
            approved: *approved,
            recomputed: Some(recomputed_hash),
        });
    }
    Ok(SpawnClearance {
        disclosure_hash: recomputed_hash,
        approval: None,
    })
}

/// The checks of [`verify_approval`](super::approval::verify_approval) of `approval`, then
/// [`verify_before_spawn`] against the hash it approves, then the claim of the approval id
/// (last, so an approval refused for a stale manifest is not spent; one that clears is spent
/// by the same step that clears it).
///
/// # Errors
/// [`SpawnError::Approval`] (the claim's errors included), or the errors of
/// [`verify_before_spawn`].
pub fn verify_signed_before_spawn<S: KeySource + ?Sized>(
    manifest: &Manifest,
    approval: &SignedApproval,
    check: &ApprovalCheck<'_, S>,
    live: &LiveState<'_>,
) -> Result<SpawnClearance, SpawnError> {
    let approved = check_approval(approval, check).map_err(SpawnError::Approval)?;
    let clearance = verify_before_spawn(manifest, &approved.disclosure_hash(), live)?;
    claim_approval(&approved, approval.not_after(), check).map_err(SpawnError::Approval)?;
    Ok(SpawnClearance {
        approval: Some((
            approved.key_id().to_owned(),
            approved.approval_id().to_owned(),
        )),
        ..clearance
    })
}

/// The manifest with the live policy, model, payload and file digests, every other field (and
/// each file's line ranges) kept; built with no count or size limit beyond the format's own, so
/// a manifest that was accepted once rebuilds.
fn rebuild(
    manifest: &Manifest,
    live: &LiveState<'_>,
    payload: Sha256Digest,
    files: &[Sha256Digest],
) -> Result<Manifest, ManifestError> {
    let mut builder = Manifest::builder()
        .run_id(manifest.run_id())
        .provider(manifest.provider())
        .model(live.model)
        .purpose(manifest.purpose())
        .estimated_tokens(manifest.estimated_tokens())
        .payload_sha256(payload)
        .policy_sha256(live.policy_sha256);
    for (file, digest) in manifest.files().iter().zip(files) {
        builder = builder.file(file.path().as_str(), *digest, file.ranges());
    }
    for redaction in manifest.redactions() {
        builder = builder.redaction(redaction.kind(), redaction.count());
    }
    for tool in manifest.external_tools() {
        builder = builder.external_tool(tool);
    }
    let mut limits = ManifestLimits::default();
    limits.max_files = usize::MAX;
    limits.max_ranges_per_file = usize::MAX;
    limits.max_redactions = usize::MAX;
    limits.max_external_tools = usize::MAX;
    limits.max_identifier_bytes = usize::MAX;
    limits.max_name_chars = usize::MAX;
    builder.build(&limits)
}
