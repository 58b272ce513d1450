//! `seal manifest seal` and `seal manifest verify`: a disclosure manifest built from a
//! description and the files on disk, and re-verified from the files right before a run.

use std::collections::BTreeMap;
use std::path::Path;

use seal_parse::json::Value;
use seal_record::{
    canonical_path, CanonicalPath, LineRange, Manifest, ManifestLimits, Sha256Digest,
};
use seal_render::{escape, Context};
use seal_verify::{verify_before_spawn, LivePayload, LiveState, SpawnError};

use crate::args::{Flag, Flags};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, write_atomic, MAX_FILE_BYTES};
use crate::json_in;
use crate::json_out::J;

/// The flags of `seal manifest seal`.
pub const SEAL_FLAGS: &[Flag] = &[
    Flag::value("description"),
    Flag::value("root"),
    Flag::value("out"),
    Flag::switch("json"),
];

/// The flags of `seal manifest verify`.
pub const VERIFY_FLAGS: &[Flag] = &[
    Flag::value("description"),
    Flag::value("root"),
    Flag::value("manifest"),
    Flag::value("approved"),
    Flag::switch("json"),
];

/// Runs `seal manifest seal`.
pub fn run_seal(flags: &Flags) -> Result<u8, Failure> {
    let root = flags.value("root").unwrap_or(".");
    let description = Description::load(flags.required("description")?)?;
    let out = flags.required("out")?;
    let manifest = description.seal(root)?;
    let mut bytes = manifest.canonical_bytes();
    bytes.push(b'\n');
    write_atomic(out, &bytes, Some(0o644))?;
    let hash = manifest.disclosure_hash().to_hex();
    if flags.switch("json") {
        println!(
            "{}",
            J::Obj(vec![
                ("disclosure_hash", J::str(hash)),
                ("manifest", J::str(out)),
            ])
            .to_text()
        );
    } else {
        print!("{}", summary(&manifest));
        println!("wrote {out}");
    }
    Ok(Exit::Ok.code())
}

/// Runs `seal manifest verify`.
pub fn run_verify(flags: &Flags) -> Result<u8, Failure> {
    let root = flags.value("root").unwrap_or(".");
    let description = Description::load(flags.required("description")?)?;
    let manifest_path = flags.required("manifest")?;
    let bytes = read_file(manifest_path, MAX_FILE_BYTES, "manifest")?;
    let manifest = Manifest::from_json(&bytes, &ManifestLimits::default())
        .map_err(|error| Failure::input(format!("manifest {}: {error}", quoted(manifest_path))))?;
    let approved = match flags.value("approved") {
        Some(hex) => Sha256Digest::from_hex(hex).map_err(|_| {
            Failure::usage(format!(
                "`--approved` wants 64 lowercase hex digits, not {}",
                quoted(hex)
            ))
        })?,
        None => manifest.disclosure_hash(),
    };
    let result = description.verify(root, &manifest, &approved)?;
    let (exit, outcome, detail) = match &result {
        Ok(()) => (
            Exit::Ok,
            "clear",
            String::from("live state matches the approved manifest"),
        ),
        Err(error) => (spawn_exit(error), spawn_code(error), error.to_string()),
    };
    if flags.switch("json") {
        println!(
            "{}",
            J::Obj(vec![
                ("outcome", J::str(outcome)),
                ("detail", J::str(detail)),
                ("approved", J::str(approved.to_hex())),
            ])
            .to_text()
        );
    } else if result.is_ok() {
        println!("clear: {detail} ({})", approved.to_hex());
    } else {
        println!("refused ({outcome}): {detail}");
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
        _ => Exit::Recomputed,
    }
}

/// The stable name of a refusal before spawn.
pub fn spawn_code(error: &SpawnError) -> &'static str {
    match error {
        SpawnError::StalePolicy { .. } => "stale_policy",
        SpawnError::StaleModel { .. } => "stale_model",
        SpawnError::StaleManifest { .. } => "stale_manifest",
        SpawnError::NotApproved { .. } => "not_approved",
        _ => "recomputed",
    }
}

/// The manifest summary shown to the approver: ASCII, every field escaped (Inline context).
pub fn summary(manifest: &Manifest) -> String {
    let inline = |text: &str| escape(text, Context::Inline).into_owned();
    let mut out = String::new();
    out.push_str(&format!(
        "disclosure hash\n  {}\n",
        manifest.disclosure_hash().to_hex()
    ));
    out.push_str(&format!("run              {}\n", inline(manifest.run_id())));
    out.push_str(&format!(
        "sent to          {} / {}\n",
        inline(manifest.provider()),
        inline(manifest.model())
    ));
    out.push_str(&format!(
        "purpose          {}\n",
        inline(manifest.purpose())
    ));
    for file in manifest.files() {
        let ranges: Vec<String> = file
            .ranges()
            .iter()
            .map(|range| format!("{}-{}", range.start, range.end))
            .collect();
        out.push_str(&format!(
            "file             {} lines {} sha256 {}\n",
            inline(file.path().as_str()),
            ranges.join(","),
            prefix(&file.sha256())
        ));
    }
    for redaction in manifest.redactions() {
        out.push_str(&format!(
            "redacted         {} x{}\n",
            inline(redaction.kind()),
            redaction.count()
        ));
    }
    for tool in manifest.external_tools() {
        out.push_str(&format!("external tool    {}\n", inline(tool)));
    }
    out.push_str(&format!(
        "payload sha256   {}  policy sha256 {}\n",
        prefix(&manifest.payload_sha256()),
        prefix(&manifest.policy_sha256())
    ));
    out
}

fn prefix(digest: &Sha256Digest) -> String {
    digest.to_hex().chars().take(16).collect()
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
        let text = |name: &str| json_in::string(&top, name, &what).map(str::to_owned);
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
        let mut builder = Manifest::builder()
            .run_id(&self.run_id)
            .provider(&self.provider)
            .model(&self.model)
            .purpose(&self.purpose)
            .estimated_tokens(self.estimated_tokens)
            .payload_sha256(Sha256Digest::of(&read_under(
                root,
                &self.payload,
                "payload",
            )?))
            .policy_sha256(Sha256Digest::of(&read_under(root, &self.policy, "policy")?));
        for (path, ranges) in &self.files {
            let bytes = read_under(root, path, "file")?;
            let mut line_ranges = Vec::new();
            for (start, end) in ranges {
                let sent = lines(&bytes, *start, *end).ok_or_else(|| {
                    Failure::input(format!(
                        "file {}: lines {start}-{end} are not in the file",
                        quoted(path)
                    ))
                })?;
                line_ranges.push(LineRange {
                    start: *start,
                    end: *end,
                    sha256: Sha256Digest::of(sent),
                });
            }
            builder = builder.file(path, Sha256Digest::of(&bytes), &line_ranges);
        }
        for (kind, count) in &self.redactions {
            builder = builder.redaction(kind, *count);
        }
        for tool in &self.external_tools {
            builder = builder.external_tool(tool);
        }
        builder
            .build(&ManifestLimits::default())
            .map_err(|error| Failure::input(format!("manifest refused: {error}")))
    }

    /// Verifies `manifest` against `approved` with live state read from `root` now. The outer
    /// error is a failure to read the description's own files; the inner one the refusal.
    pub fn verify(
        &self,
        root: &str,
        manifest: &Manifest,
        approved: &Sha256Digest,
    ) -> Result<Result<(), SpawnError>, Failure> {
        let payload = read_under(root, &self.payload, "payload")?;
        let policy = Sha256Digest::of(&read_under(root, &self.policy, "policy")?);
        let mut live: BTreeMap<CanonicalPath, Sha256Digest> = BTreeMap::new();
        for file in manifest.files() {
            if let Ok(bytes) = read_under(root, file.path().as_str(), "file") {
                live.insert(file.path().clone(), Sha256Digest::of(&bytes));
            }
        }
        let state = LiveState {
            policy_sha256: policy,
            model: &self.model,
            payload: LivePayload::Bytes(&payload),
            files: &live,
        };
        Ok(verify_before_spawn(manifest, approved, &state).map(|_| ()))
    }
}

/// The bytes of lines `start..=end` (1-based; each line with its LF), or `None` when the file
/// has fewer lines.
fn lines(bytes: &[u8], start: u64, end: u64) -> Option<&[u8]> {
    if start == 0 || end < start {
        return None;
    }
    let mut line = 1u64;
    let mut from = if start == 1 { Some(0) } else { None };
    for (index, byte) in bytes.iter().enumerate() {
        if *byte == b'\n' {
            if line == end {
                return from.and_then(|from| bytes.get(from..=index));
            }
            line += 1;
            if line == start {
                from = Some(index + 1);
            }
        }
    }
    // The last line may lack its LF.
    match from {
        Some(from) if line == end && from < bytes.len() => bytes.get(from..),
        _ => None,
    }
}

fn read_under(root: &str, path: &str, what: &str) -> Result<Vec<u8>, Failure> {
    let canonical = canonical_path(path)
        .map_err(|error| Failure::input(format!("{what} path {}: {error}", quoted(path))))?;
    let full = Path::new(root).join(canonical.as_str());
    read_file(&full.to_string_lossy(), MAX_FILE_BYTES, what)
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn line_ranges() {
        let text = b"a\nbb\nccc";
        assert_eq!(lines(text, 1, 1), Some(&b"a\n"[..]));
        assert_eq!(lines(text, 2, 3), Some(&b"bb\nccc"[..]));
        assert_eq!(lines(text, 3, 3), Some(&b"ccc"[..]));
        assert_eq!(lines(text, 1, 3), Some(&text[..]));
        assert_eq!(lines(text, 4, 4), None);
        assert_eq!(lines(text, 0, 1), None);
        assert_eq!(lines(b"a\n", 2, 2), None);
    }
}
