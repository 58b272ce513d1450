//! `seal manifest seal` and `seal manifest verify`: a disclosure manifest built from a
//! description and the files on disk, and re-verified from the files right before a run (the
//! facade's [`Manifest`]).

use std::path::Path;

use seal::canonical_path;
use seal::json::Value;
use seal::{
    ApprovalContext, CanonicalPath, CompactTags, LivePayload, LiveState, Manifest, Sha256Digest,
    SignedApproval, SpawnError, TrustStore,
};

use crate::approve::load_approval;
use crate::cli::{ManifestSealArgs, ManifestVerifyArgs};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{now, read_file, utf8, write_atomic, MAX_FILE_BYTES};
use crate::json_in;
use crate::json_out::J;
use crate::state::{self, DEFAULT_STATE_TIMEOUT_MS};

/// Runs `seal manifest seal`.
pub fn run_seal(args: &ManifestSealArgs) -> Result<u8, Failure> {
    let root = args.root.as_str();
    let description = Description::load(&args.description)?;
    let out = args.out.as_str();
    let manifest = description.seal(root)?;
    let mut text = manifest.to_json();
    text.push('\n');
    write_atomic(out, text.as_bytes(), Some(0o644))?;
    crate::audit::sink::record_manifest(
        &args.log,
        seal::log::LogEventType::ManifestSealed,
        &manifest,
        None,
        None,
    )?;
    let hash = manifest.disclosure_hash().to_hex();
    if args.json {
        outln!(
            "{}",
            J::Obj(vec![
                ("disclosure_hash", J::str(hash)),
                ("manifest", J::str(out)),
            ])
            .to_text()
        );
    } else {
        out!("{}", manifest.summary());
        outln!("wrote {out}");
    }
    Ok(Exit::Ok.code())
}

/// Runs `seal manifest verify`.
pub fn run_verify(args: &ManifestVerifyArgs) -> Result<u8, Failure> {
    let root = args.root.as_str();
    let description = Description::load(&args.description)?;
    let manifest = load_manifest(&args.manifest)?;
    let mut approval_id: Option<String> = None;
    let (approved, result) = match (&args.approval, &args.approved) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(
                "give `--approved` or `--approval`, not both",
            ))
        }
        (None, None) => {
            return Err(Failure::usage(
                "`manifest verify` needs the approval: `--approved HASH` or `--approval FILE`",
            ))
        }
        (Some(path), None) => {
            let approval = load_approval(path)?;
            approval_id = Some(approval.approval_id().to_owned());
            let store_path = args.store.as_deref().ok_or_else(|| {
                Failure::usage("`--approval` needs the trust store (`--store` or `SEAL_STORE`)")
            })?;
            let now = now(args.now.as_deref())?;
            let envelope = read_file(store_path, MAX_FILE_BYTES, "trust store")?;
            let store =
                TrustStore::from_signed_document_with(&envelope, &[], now, CompactTags::Accepted)
                    .map_err(|error| {
                    Failure::keys(format!("trust store {}: {error}", quoted(store_path)))
                })?;
            // The approval id is claimed in the replay state, until the approval's not-after
            // time; ids of an old `--used` file count as spent until then too.
            let used = state::open_at(
                args.state.as_deref(),
                args.used.as_deref(),
                DEFAULT_STATE_TIMEOUT_MS,
                now,
                approval.not_after(),
            )?;
            let context = ApprovalContext {
                store: &store,
                now,
                replay: &used,
            };
            let result = description.verify_approved(root, &manifest, &approval, &context)?;
            (approval.disclosure_hash(), result)
        }
        (None, Some(hex)) => {
            let approved = Sha256Digest::from_hex(hex).map_err(|_| {
                Failure::usage(format!(
                    "`--approved` wants 64 lowercase hex digits, not {}",
                    quoted(hex)
                ))
            })?;
            (approved, description.verify(root, &manifest, &approved)?)
        }
    };
    // Last, the description itself: the manifest it gives now must be the approved one, so a
    // field with no check of its own (purpose, provider, run id, redactions, tools, tokens, the
    // list of files and ranges) cannot change after approval.
    let result = result.and_then(|()| rebuilt_matches(&description, root, &approved));
    let (exit, outcome, detail) = match &result {
        Ok(()) => (
            Exit::Ok,
            "clear",
            String::from("live state matches the approved manifest"),
        ),
        Err(error) => (spawn_exit(error), spawn_code(error), error.to_string()),
    };
    let (kind, reason) = match &result {
        Ok(()) => (seal::log::LogEventType::ManifestVerified, None),
        Err(_) => (
            seal::log::LogEventType::ManifestRefused,
            Some(format!("{outcome}: {detail}")),
        ),
    };
    crate::audit::sink::record_manifest(
        &args.log,
        kind,
        &manifest,
        approval_id.as_deref(),
        reason.as_deref(),
    )?;
    if args.json {
        outln!(
            "{}",
            J::Obj(vec![
                ("outcome", J::str(outcome)),
                ("detail", J::str(detail)),
                ("approved", J::str(approved.to_hex())),
            ])
            .to_text()
        );
    } else if result.is_ok() {
        outln!("clear: {detail} ({})", approved.to_hex());
    } else {
        outln!("refused ({outcome}): {detail}");
    }
    Ok(exit.code())
}

/// The exit code of a refusal before spawn.
pub fn spawn_exit(error: &SpawnError) -> Exit {
    match error {
        SpawnError::StalePolicy { .. } => Exit::StalePolicy,
        SpawnError::StaleModel { .. } => Exit::StaleModel,
        SpawnError::StaleManifest { .. } => Exit::StaleManifest,
        SpawnError::NotApproved { .. } => Exit::NotApproved,
        SpawnError::Approval(_) => Exit::ApprovalRefused,
        _ => Exit::Recomputed,
    }
}

/// Whether the manifest `description` gives from the files under `root` now hashes to
/// `approved` (`Recomputed` when it does not, or cannot be built).
fn rebuilt_matches(
    description: &Description,
    root: &str,
    approved: &Sha256Digest,
) -> Result<(), SpawnError> {
    match description.seal(root) {
        Ok(rebuilt) if rebuilt.disclosure_hash() == *approved => Ok(()),
        Ok(rebuilt) => Err(SpawnError::Recomputed {
            approved: *approved,
            recomputed: Some(rebuilt.disclosure_hash()),
        }),
        Err(failure) => {
            crate::io::warn(&format!(
                "seal: the manifest cannot be rebuilt from the description: {failure}"
            ));
            Err(SpawnError::Recomputed {
                approved: *approved,
                recomputed: None,
            })
        }
    }
}

/// The stable name of a refusal before spawn.
pub fn spawn_code(error: &SpawnError) -> &'static str {
    match spawn_exit(error) {
        Exit::StalePolicy => "stale_policy",
        Exit::StaleModel => "stale_model",
        Exit::StaleManifest => "stale_manifest",
        Exit::NotApproved => "not_approved",
        Exit::ApprovalRefused => "approval_refused",
        _ => "recomputed",
    }
}

/// A manifest description: what is about to be sent, naming files on disk (spec/cli.md,
/// "manifest description").
pub struct Description {
    run_id: String,
    provider: String,
    model: String,
    purpose: String,
    files: Vec<(String, Vec<(u64, u64)>)>,
    redactions: Vec<(String, u64)>,
    external_tools: Vec<String>,
    estimated_tokens: u64,
    payload: String,
    policy: String,
}

impl Description {
    /// Reads and checks the description at `path`.
    pub fn load(path: &str) -> Result<Description, Failure> {
        let bytes = read_file(path, MAX_FILE_BYTES, "description")?;
        let what = format!("description {}", quoted(path));
        let top = json_in::object(&bytes, &what)?;
        json_in::only(
            &top,
            &[
                "run_id",
                "provider",
                "model",
                "purpose",
                "files",
                "redactions",
                "external_tools",
                "estimated_tokens",
                "payload",
                "policy",
            ],
            &what,
        )?;
        let text = |name: &'static str| json_in::string(&top, name, &what).map(str::to_owned);
        let mut files = Vec::new();
        for (index, file) in json_in::array(&top, "files", &what)?.iter().enumerate() {
            let what = format!("{what}: files[{index}]");
            let Value::Object(file) = file else {
                return Err(Failure::input(format!("{what} is not an object")));
            };
            json_in::only(file, &["path", "ranges"], &what)?;
            let mut ranges = Vec::new();
            for (at, range) in json_in::array(file, "ranges", &what)?.iter().enumerate() {
                let what = format!("{what}.ranges[{at}]");
                let Value::Object(range) = range else {
                    return Err(Failure::input(format!("{what} is not an object")));
                };
                json_in::only(range, &["start", "end"], &what)?;
                ranges.push((
                    json_in::integer(range, "start", &what)?,
                    json_in::integer(range, "end", &what)?,
                ));
            }
            files.push((json_in::string(file, "path", &what)?.to_owned(), ranges));
        }
        let mut redactions = Vec::new();
        for (index, redaction) in json_in::array(&top, "redactions", &what)?
            .iter()
            .enumerate()
        {
            let what = format!("{what}: redactions[{index}]");
            let Value::Object(redaction) = redaction else {
                return Err(Failure::input(format!("{what} is not an object")));
            };
            json_in::only(redaction, &["type", "count"], &what)?;
            redactions.push((
                json_in::string(redaction, "type", &what)?.to_owned(),
                json_in::integer(redaction, "count", &what)?,
            ));
        }
        let mut external_tools = Vec::new();
        for tool in json_in::array(&top, "external_tools", &what)? {
            let Value::String(tool) = tool else {
                return Err(Failure::input(format!(
                    "{what}: an external tool is not a string"
                )));
            };
            external_tools.push(tool.to_string());
        }
        Ok(Description {
            run_id: text("run_id")?,
            provider: text("provider")?,
            model: text("model")?,
            purpose: text("purpose")?,
            files,
            redactions,
            external_tools,
            estimated_tokens: json_in::integer(&top, "estimated_tokens", &what)?,
            payload: text("payload")?,
            policy: text("policy")?,
        })
    }

    /// The manifest of this description over the files under `root` now.
    pub fn seal(&self, root: &str) -> Result<Manifest, Failure> {
        let payload = read_under(root, &self.payload, "payload")?;
        let policy = Sha256Digest::of(&read_under(root, &self.policy, "policy")?);
        let mut builder = Manifest::builder()
            .run_id(&self.run_id)
            .provider(&self.provider)
            .model(&self.model)
            .purpose(&self.purpose)
            .estimated_tokens(self.estimated_tokens)
            .payload(&payload)
            .policy_sha256(policy);
        for (path, ranges) in &self.files {
            let contents = read_under(root, path, "file")?;
            builder = builder.file_contents(path, &contents, ranges);
        }
        for (kind, count) in &self.redactions {
            builder = builder.redaction(kind, *count);
        }
        for tool in &self.external_tools {
            builder = builder.external_tool(tool);
        }
        builder.build().map_err(|error| {
            let text = error.to_string();
            let detail = text.strip_prefix("manifest refused: ").unwrap_or(&text);
            Failure::input(format!("manifest refused: {detail}"))
        })
    }

    /// Verifies `manifest` against `approved` with live state read from `root` now. The outer
    /// error is a failure to read the description's own files; the inner one the refusal.
    pub fn verify(
        &self,
        root: &str,
        manifest: &Manifest,
        approved: &Sha256Digest,
    ) -> Result<Result<(), SpawnError>, Failure> {
        self.with_live(root, |live| {
            manifest.verify_before_spawn(approved, live).map(|_| ())
        })
    }

    /// Verifies `manifest` against a signed `approval` checked in `context`, with live state
    /// read from `root` now.
    pub fn verify_approved(
        &self,
        root: &str,
        manifest: &Manifest,
        approval: &SignedApproval,
        context: &ApprovalContext<'_>,
    ) -> Result<Result<(), SpawnError>, Failure> {
        self.with_live(root, |live| {
            manifest
                .verify_approved_before_spawn(approval, context, live)
                .map(|_| ())
        })
    }

    fn with_live<T>(
        &self,
        root: &str,
        check: impl FnOnce(&LiveState<'_>) -> T,
    ) -> Result<T, Failure> {
        let payload = read_under(root, &self.payload, "payload")?;
        let policy = Sha256Digest::of(&read_under(root, &self.policy, "policy")?);
        let files = |path: &CanonicalPath| {
            read_under(root, path.as_str(), "file")
                .ok()
                .map(|bytes| Sha256Digest::of(&bytes))
        };
        let live = LiveState {
            policy_sha256: policy,
            model: &self.model,
            payload: LivePayload::Bytes(&payload),
            files: &files,
        };
        Ok(check(&live))
    }
}

/// Reads a stored manifest strictly.
pub fn load_manifest(path: &str) -> Result<Manifest, Failure> {
    let text = utf8(read_file(path, MAX_FILE_BYTES, "manifest")?, "manifest")?;
    Manifest::from_json(&text)
        .map_err(|error| Failure::input(format!("manifest {}: {error}", quoted(path))))
}

fn read_under(root: &str, path: &str, what: &str) -> Result<Vec<u8>, Failure> {
    let canonical = canonical_path(path)
        .map_err(|error| Failure::input(format!("{what} path {}: {error}", quoted(path))))?;
    let full = Path::new(root).join(canonical.as_str());
    read_file(&full.to_string_lossy(), MAX_FILE_BYTES, what)
}
