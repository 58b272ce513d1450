//! The path guards as the binary configures them (spec/self-protection.md,
//! spec/secret-guard.md): the self-protection guard over the default table, the files the
//! flags and environment name (rules, keys, trust store, replay state, `--protect`), the
//! clients' settings under `CLAUDE_CONFIG_DIR` and `CODEX_HOME`, and the running binary; the
//! secret-read guard over the default table, less `--allow-secret`, plus `--secret`. The
//! guards themselves do no IO: every path is read here and given to them as a value.

use std::path::{Path, PathBuf};

use seal::secrets::{SecretGuard, SecretPattern};
use seal::self_protection::{Lexical, PathKind, ProtectedPath, Protection, SelfProtection};

use crate::cli::{GuardFlags, Toggle};
use crate::failure::{quoted, Failure};

/// The path guards a decision runs (each `None` when turned off).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathGuards {
    /// The self-protection guard.
    pub self_protection: Option<SelfProtection>,
    /// The secret-read guard.
    pub secrets: Option<SecretGuard>,
}

/// No path guard (the demo's decisions).
pub static NO_PATH_GUARDS: PathGuards = PathGuards {
    self_protection: None,
    secrets: None,
};

/// seal's files a run names: what the self-protection guard protects besides its defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct SealFiles<'a> {
    /// The rules file (`--rules`, `SEAL_RULES`).
    pub rules: Option<&'a str>,
    /// The secret key file (`--keys`, `SEAL_KEYS`).
    pub keys: Option<&'a str>,
    /// The trust store (`--store`, `SEAL_STORE`).
    pub store: Option<&'a str>,
    /// The replay state (`--state`, `SEAL_STATE`; a URL names no file).
    pub state: Option<&'a str>,
    /// The decision log (`--log`, `SEAL_LOG`; else its default path).
    pub log: Option<&'a str>,
    /// The decision log's signing key (`--log-key`, `SEAL_LOG_KEY`; else its default path).
    pub log_key: Option<&'a str>,
    /// The enrolled approvers (`--approvers`, `SEAL_APPROVERS`; the default path always).
    pub approvers: Option<&'a str>,
}

impl PathGuards {
    /// The guards `flags` turn on, protecting `files` too. A `--secret` pattern or a
    /// `--protect` path that cannot be read, or an `--allow-secret` id no default pattern has,
    /// is a usage failure (the tool hooks then deny).
    pub fn of(flags: &GuardFlags, files: &SealFiles<'_>) -> Result<PathGuards, Failure> {
        let self_protection = (flags.self_protection == Toggle::On)
            .then(|| self_protection(flags, files))
            .transpose()?;
        let secrets = (flags.secret_guard == Toggle::On)
            .then(|| secret_guard(flags))
            .transpose()?;
        Ok(PathGuards {
            self_protection,
            secrets,
        })
    }
}

/// The secret-read guard of `flags`.
fn secret_guard(flags: &GuardFlags) -> Result<SecretGuard, Failure> {
    let mut guard = SecretGuard::new();
    for id in &flags.allow_secret {
        if guard.pattern(id).is_none() {
            let known: Vec<&str> = guard.patterns().iter().map(SecretPattern::id).collect();
            return Err(Failure::usage(format!(
                "--allow-secret {}: no default secret pattern has this id (they are {})",
                quoted(id),
                known.join(", ")
            )));
        }
        guard = guard.without_pattern(id);
    }
    for pattern in &flags.secret {
        let pattern = SecretPattern::listed(pattern)
            .map_err(|error| Failure::usage(format!("--secret {}: {error}", quoted(pattern))))?;
        guard = guard.with_pattern(pattern);
    }
    Ok(guard)
}

/// The self-protection guard of `flags` and `files`.
fn self_protection(flags: &GuardFlags, files: &SealFiles<'_>) -> Result<SelfProtection, Failure> {
    let mut entries: Vec<(&str, String, PathKind, Protection, &str)> = Vec::new();
    let mut add = |id: &'static str, path: &Path, kind, protection, what: &'static str| {
        for spelling in spellings(path) {
            entries.push((id, spelling, kind, protection, what));
        }
    };
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let (file, directory) = (PathKind::File, PathKind::Directory);
    let write = Protection::Write;
    if let Some(dir) = var("CLAUDE_CONFIG_DIR") {
        let what = "Claude Code's user settings";
        add(
            "claude-user-settings",
            &dir.join("settings.json"),
            file,
            write,
            what,
        );
        add(
            "claude-user-settings",
            &dir.join("settings.local.json"),
            file,
            write,
            what,
        );
    }
    if let Some(dir) = var("CODEX_HOME") {
        add(
            "codex-hooks",
            &dir.join("hooks.json"),
            file,
            write,
            "Codex's hook configuration",
        );
        add(
            "codex-config",
            &dir.join("config.toml"),
            file,
            write,
            "Codex's configuration",
        );
    }
    match files.state {
        Some(state) if crate::state::is_url(state) => {}
        Some(state) => {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let path = PathBuf::from(format!("{state}{suffix}"));
                add("seal-state", &path, file, write, "seal's replay state");
            }
        }
        None => {
            let folder = crate::state::default_path()
                .ok()
                .and_then(|path| path.parent().map(Path::to_path_buf));
            if let Some(folder) = folder {
                add(
                    "seal-state",
                    &folder,
                    directory,
                    write,
                    "seal's replay state",
                );
            }
        }
    }
    if let Some(store) = files.store {
        add(
            "seal-store",
            Path::new(store),
            file,
            write,
            "seal's trust store",
        );
    }
    if let Some(rules) = files.rules {
        add(
            "seal-rules",
            Path::new(rules),
            file,
            write,
            "seal's rules file",
        );
    }
    if let Ok(binary) = std::env::current_exe() {
        add(
            "seal-binary",
            &binary,
            file,
            write,
            "the running seal binary",
        );
    }
    for path in &flags.protect {
        // A directory when written with a trailing `/` or when it is one now.
        let kind = if path.ends_with('/') || Path::new(path).is_dir() {
            directory
        } else {
            file
        };
        add(
            "protected",
            Path::new(path),
            kind,
            write,
            "a path the operator protects",
        );
    }
    let log = match files.log {
        Some(log) => Some(PathBuf::from(log)),
        None => crate::audit::key::default_log_path().ok(),
    };
    if let Some(log) = log {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut path = log.clone().into_os_string();
            path.push(suffix);
            add(
                "seal-log",
                Path::new(&path),
                file,
                write,
                "seal's decision log",
            );
        }
    }
    // The default key is protected even when another is given: a key made there earlier is
    // still a log key.
    let mut log_keys: Vec<PathBuf> = crate::audit::key::default_key_path()
        .ok()
        .into_iter()
        .collect();
    if let Some(key) = files.log_key.map(PathBuf::from) {
        if !log_keys.contains(&key) {
            log_keys.push(key);
        }
    }
    for log_key in log_keys {
        add(
            "seal-log-key",
            &log_key,
            file,
            Protection::ReadWrite,
            "the decision log's signing key",
        );
    }
    // The approvers a waiting hook checks a panel's allow against, and the approval server's
    // own files (its store and socket): an agent that rewrote them could mint its own allows.
    let mut approvers: Vec<PathBuf> = crate::approvers::default_approvers_path()
        .into_iter()
        .collect();
    for given in [
        files.approvers.map(PathBuf::from),
        std::env::var_os("SEAL_APPROVERS").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    {
        if !approvers.contains(&given) {
            approvers.push(given);
        }
    }
    for path in approvers {
        add(
            "seal-approvers",
            &path,
            file,
            write,
            "the approvers who may allow on the approval panel",
        );
    }
    if let Some(socket) = seal_serve::paths::default_socket() {
        if let Some(folder) = socket.parent() {
            add(
                "seal-serve",
                folder,
                directory,
                write,
                "the approval server's store and socket",
            );
        }
    }
    // The key file last: the paths added last are named first in a finding.
    if let Some(keys) = files.keys {
        let what = "seal's secret key file";
        add(
            "seal-keys",
            Path::new(keys),
            file,
            Protection::ReadWrite,
            what,
        );
    }
    let mut guard = SelfProtection::new();
    for (id, path, kind, protection, what) in entries {
        let protected = ProtectedPath::new(id, &path, kind, protection, what).map_err(|error| {
            Failure::usage(format!("cannot protect {}: {error}", quoted(&path)))
        })?;
        guard = guard.with_protected(protected);
    }
    Ok(guard)
}

/// The spellings of `path` the guard protects: absolute (a relative path read against the
/// current directory), lexically normalized, and, when it differs, the path with its symbolic
/// links resolved (a file reached through a link is protected where it is).
fn spellings(path: &Path) -> Vec<String> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(dir) => dir.join(path),
            Err(_) => path.to_path_buf(),
        }
    };
    let mut out = Vec::new();
    if let Some(text) = absolute.to_str() {
        out.push(normalized(text));
    }
    if let Some(real) = std::fs::canonicalize(&absolute)
        .ok()
        .and_then(|real| real.to_str().map(normalized))
    {
        if !out.contains(&real) {
            out.push(real);
        }
    }
    out
}

/// `path` with `.` and empty components dropped and `..` applied (lexically, a `..` at the
/// root staying there), absolute when `path` is.
fn normalized(path: &str) -> String {
    let lexical = Lexical::staying(path);
    if path.starts_with('/') {
        lexical.to_absolute()
    } else {
        lexical.to_relative()
    }
}
