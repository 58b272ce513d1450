//! `seal install` and `seal uninstall`: seal's hook entries in a client's settings file, written
//! or removed without changing a byte of anything else (spec/install.md).
//!
//! [`EVENTS`] is the one list of the events seal answers per client; the installer writes
//! them, the uninstaller removes every seal hook it finds, and `seal doctor` reports them
//! ([`wiring`]).

pub mod codex_trust;
pub mod json_text;
pub mod settings;
pub mod wiring;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::{InstallArgs, UninstallArgs};
use crate::failure::{quoted, Exit, Failure};
use settings::{Client, InstallPlan};

/// The hook timeout `seal install` writes, in seconds: above the hooks' default deadline, so
/// a hook always gives its own answer (a deny, or a `verification_failed` alarm) before the
/// client kills it.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;

/// The suffix of the backup of a settings file that an install or uninstall changed.
pub const BACKUP_SUFFIX: &str = ".seal-backup";

/// One hook seal writes into a client's settings: the client's event, the subcommand that answers
/// it and the group's matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEntry {
    /// The client's name for it, as in its settings (`PreToolUse`).
    pub name: &'static str,
    /// The `seal hook <client> <hook>` subcommand that answers it.
    pub hook: &'static str,
    /// The group's `matcher`, when the event has one.
    pub matcher: Option<&'static str>,
    /// Whether it verifies frames (takes `--store`, `--keys`, `--state`; is written only when
    /// `--store` is given) rather than deciding tool calls (`--rules`, `--keys`, `--store`,
    /// `--state`).
    pub frames: bool,
}

const USER_PROMPT_SUBMIT: HookEntry = HookEntry {
    name: "UserPromptSubmit",
    hook: "user-prompt-submit",
    matcher: None,
    frames: true,
};

/// The events seal answers, per client, in the order they are written.
pub fn events(client: Client) -> &'static [HookEntry] {
    match client {
        Client::ClaudeCode => &[
            USER_PROMPT_SUBMIT,
            HookEntry {
                name: "PreToolUse",
                hook: "pre-tool-use",
                matcher: Some("*"),
                frames: false,
            },
            HookEntry {
                name: "PreSkillShellCommand",
                hook: "pre-skill-shell-command",
                matcher: None,
                frames: false,
            },
        ],
        Client::Codex => &[
            USER_PROMPT_SUBMIT,
            HookEntry {
                name: "PreToolUse",
                hook: "pre-tool-use",
                matcher: None,
                frames: false,
            },
        ],
    }
}

/// The relay to the approval panel (`seal install --approvals relay`): written only when asked
/// for, since it needs `seal serve` running.
pub const PERMISSION_REQUEST: HookEntry = HookEntry {
    name: "PermissionRequest",
    hook: "permission-request",
    matcher: None,
    frames: false,
};

/// With the relay: a call that ran was answered (at the client's prompt, or on the panel), so
/// the panel's entry for it is settled as answered elsewhere.
pub const POST_TOOL_USE: HookEntry = HookEntry {
    name: "PostToolUse",
    hook: "post-tool-use",
    matcher: None,
    frames: false,
};

/// The events seal may answer beyond [`events`]: their hooks are seal's when present, and their
/// absence is no finding.
pub fn optional_events(_client: Client) -> &'static [HookEntry] {
    &[PERMISSION_REQUEST, POST_TOOL_USE]
}

/// The events an install writes: [`events`], and the relay when `--approvals relay` asks for
/// it.
pub fn wanted_events(wanted: &settings::Wanted) -> Vec<HookEntry> {
    let mut list = events(wanted.client).to_vec();
    if wanted.approvals == settings::Approvals::Relay {
        list.push(PERMISSION_REQUEST);
        // Claude Code runs its own prompt beside the relay, so a call may be answered there;
        // Codex asks only after the relay ends, so nothing is answered elsewhere meanwhile.
        if wanted.client == Client::ClaudeCode {
            list.push(POST_TOOL_USE);
        }
    }
    list
}

/// The user's home directory (`HOME`).
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// The settings file a client reads seal's hooks from: the user's (`~/.claude/settings.json`,
/// or under `CLAUDE_CONFIG_DIR`; `~/.codex/hooks.json`, or under `CODEX_HOME`), or a project's
/// (`DIR/.claude/settings.json`, `DIR/.codex/hooks.json`).
///
/// # Errors
///
/// When the user scope is asked for and neither the client's variable nor `HOME` is set.
pub fn settings_path(client: Client, project: Option<&Path>) -> Result<PathBuf, Failure> {
    let (dir_var, dir, file) = match client {
        Client::ClaudeCode => ("CLAUDE_CONFIG_DIR", ".claude", "settings.json"),
        Client::Codex => ("CODEX_HOME", ".codex", "hooks.json"),
    };
    if let Some(project) = project {
        return Ok(project.join(dir).join(file));
    }
    if let Some(config) = std::env::var_os(dir_var).filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(config).join(file));
    }
    match home() {
        Some(home) => Ok(home.join(dir).join(file)),
        None => Err(Failure::usage(format!(
            "neither {dir_var} nor HOME is set: give the settings file with --settings"
        ))),
    }
}

/// An absolute form of a path written into a hook command: `~/` is the home directory and a
/// relative path is taken from the current directory, so the command reads the same file
/// whatever directory the client runs it in.
fn absolute(path: &str, flag: &str) -> Result<String, Failure> {
    if path.is_empty() {
        return Err(Failure::usage(format!("{flag} is empty")));
    }
    let expanded = match path.strip_prefix("~/") {
        Some(rest) => match home() {
            Some(home) => home.join(rest),
            None => {
                return Err(Failure::usage(format!(
                    "{flag} {}: HOME is not set",
                    quoted(path)
                )))
            }
        },
        None => PathBuf::from(path),
    };
    let absolute = std::path::absolute(&expanded)
        .map_err(|error| Failure::usage(format!("{flag} {}: {error}", quoted(path))))?;
    absolute
        .into_os_string()
        .into_string()
        .map_err(|_| Failure::usage(format!("{flag} {}: the path is not UTF-8", quoted(path))))
}

/// The files written into the commands, made absolute.
fn files(args: &InstallArgs) -> Result<settings::Files, Failure> {
    let state = match args.state.as_deref() {
        None => None,
        Some(url) if crate::state::is_url(url) => {
            if crate::state::url_has_password(url) {
                return Err(Failure::usage(
                    "--state: the Redis URL carries a password, which would be written into the \
                     client's settings file; set SEAL_STATE in the client's environment instead",
                ));
            }
            Some(url.to_owned())
        }
        Some(path) => Some(absolute(path, "--state")?),
    };
    Ok(settings::Files {
        rules: args
            .rules
            .as_deref()
            .map(|p| absolute(p, "--rules"))
            .transpose()?,
        store: args
            .store
            .as_deref()
            .map(|p| absolute(p, "--store"))
            .transpose()?,
        keys: args
            .keys
            .as_deref()
            .map(|p| absolute(p, "--keys"))
            .transpose()?,
        state,
    })
}

/// The binary the commands name: `seal` as the client's `PATH` finds it, or `--binary`.
fn binary(given: Option<&str>) -> Result<String, Failure> {
    if let Some(path) = given {
        let name = path.rsplit('/').next().unwrap_or(path);
        if !path.is_empty() && !name.starts_with("seal") {
            return Err(Failure::usage(format!(
                "--binary {}: the program's file name must start with `seal`, so that install, \
                 uninstall and doctor know the hook as seal's",
                quoted(path)
            )));
        }
    }
    match given {
        None => Ok(settings::DEFAULT_BINARY.to_owned()),
        Some(path) if path.contains('/') => absolute(path, "--binary"),
        Some(name) if !name.is_empty() => Ok(name.to_owned()),
        Some(_) => Err(Failure::usage("--binary is empty")),
    }
}

fn target(
    settings: Option<&str>,
    client: Client,
    project: Option<&str>,
) -> Result<PathBuf, Failure> {
    match settings {
        Some(path) => Ok(PathBuf::from(path)),
        None => settings_path(client, project.map(Path::new)),
    }
}

/// `seal install <client>`.
///
/// # Errors
///
/// A settings file that cannot be read, is not JSON or does not have the shape of the client's
/// hook settings (nothing is written then), or one that cannot be written.
pub fn run_install(args: &InstallArgs) -> Result<u8, Failure> {
    let client = args.client;
    if args.timeout <= crate::hook::DEFAULT_DEADLINE_SECONDS {
        return Err(Failure::usage(format!(
            "--timeout {}: the client would kill the hook before its own {} s deadline answers; \
             give more than {} seconds",
            args.timeout,
            crate::hook::DEFAULT_DEADLINE_SECONDS,
            crate::hook::DEFAULT_DEADLINE_SECONDS
        )));
    }
    if args.rules.is_none() {
        return Err(Failure::usage(
            "--rules is missing: the tool hooks decide every call with a rules file (`seal policy \
             recommended > ~/.seal/rules.json` writes a starting point)",
        ));
    }
    let path = target(args.settings.as_deref(), client, args.project.as_deref())?;
    let wanted = settings::Wanted {
        client,
        binary: binary(args.binary.as_deref())?,
        files: files(args)?,
        timeout: args.timeout,
        approvals: args.approvals,
        approval_wait: args.approval_wait,
    };
    let before = read(&path)?;
    let plan =
        settings::install(before.as_deref(), &wanted).map_err(|problem| named(&path, problem))?;
    finish(&path, before.as_deref(), &plan, args.dry_run)?;
    if !args.dry_run && client == Client::Codex {
        for line in codex_trust::review_note(&path, &plan.text) {
            outln!("{line}");
        }
    }
    Ok(Exit::Ok.code())
}

/// `seal uninstall <client>`.
///
/// # Errors
///
/// As [`run_install`].
pub fn run_uninstall(args: &UninstallArgs) -> Result<u8, Failure> {
    let path = target(
        args.settings.as_deref(),
        args.client,
        args.project.as_deref(),
    )?;
    let before = read(&path)?;
    let Some(text) = before.as_deref() else {
        outln!("{}: no such file, nothing to remove", path.display());
        return Ok(Exit::Ok.code());
    };
    let plan = settings::uninstall(text, args.client).map_err(|problem| named(&path, problem))?;
    finish(&path, before.as_deref(), &plan, args.dry_run)?;
    Ok(Exit::Ok.code())
}

fn named(path: &Path, problem: String) -> Failure {
    Failure::input(format!(
        "{}: {problem}; the file was left as it is",
        path.display()
    ))
}

/// The file's text, `None` when it does not exist.
fn read(path: &Path) -> Result<Option<String>, Failure> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|error| {
            let (line, column) = {
                let valid = error.utf8_error().valid_up_to();
                let bytes = error.as_bytes();
                let text =
                    std::str::from_utf8(bytes.get(..valid).unwrap_or_default()).unwrap_or_default();
                json_text::line_column(text, valid)
            };
            named(path, format!("line {line} column {column}: not UTF-8"))
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Failure::input(format!(
            "{}: cannot read it: {error}",
            path.display()
        ))),
    }
}

fn finish(
    path: &Path,
    before: Option<&str>,
    plan: &InstallPlan,
    dry_run: bool,
) -> Result<(), Failure> {
    let shown = path.display().to_string();
    for line in &plan.report {
        outln!("{line}");
    }
    if before == Some(plan.text.as_str()) {
        outln!("{shown}: no change");
        return Ok(());
    }
    if dry_run {
        let old = before.unwrap_or_default();
        let diff = similar::TextDiff::from_lines(old, plan.text.as_str());
        let header_old = if before.is_some() {
            shown.clone()
        } else {
            "/dev/null".into()
        };
        out!(
            "{}",
            diff.unified_diff()
                .context_radius(3)
                .header(&header_old, &shown)
        );
        outln!("{shown}: not written (--dry-run)");
        return Ok(());
    }
    let backup = write_atomically(path, before.is_some(), &plan.text)?;
    match backup {
        Some(backup) => outln!(
            "{shown}: written; the previous file is kept as {}",
            backup.display()
        ),
        None => outln!("{shown}: written"),
    }
    Ok(())
}

/// Writes `text` to `path` through a temporary file in the same directory, renamed over it (a
/// symbolic link is written through, to the file it names). The previous file, when there is
/// one, is copied to `path` + [`BACKUP_SUFFIX`] first, and its permissions carry over.
fn write_atomically(path: &Path, existed: bool, text: &str) -> Result<Option<PathBuf>, Failure> {
    let failed = |what: &str, error: std::io::Error| {
        Failure::new(
            Exit::Output,
            format!("{}: cannot {what}: {error}", path.display()),
        )
    };
    let real = if existed {
        fs::canonicalize(path)
    } else {
        std::path::absolute(path)
    }
    .map_err(|error| failed("resolve it", error))?;
    let dir = real.parent().unwrap_or(Path::new("/")).to_path_buf();
    fs::create_dir_all(&dir).map_err(|error| failed("create its directory", error))?;
    let mut backup = None;
    let mut file =
        tempfile::NamedTempFile::new_in(&dir).map_err(|error| failed("write next to it", error))?;
    if existed {
        let metadata = fs::metadata(&real).map_err(|error| failed("read it", error))?;
        let mut name = real.clone().into_os_string();
        name.push(BACKUP_SUFFIX);
        let backup_path = PathBuf::from(name);
        fs::copy(&real, &backup_path).map_err(|error| failed("back it up", error))?;
        fs::set_permissions(file.path(), metadata.permissions())
            .map_err(|error| failed("keep its permissions", error))?;
        backup = Some(backup_path);
    }
    file.write_all(text.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .map_err(|error| failed("write it", error))?;
    file.persist(&real)
        .map_err(|error| failed("replace it", error.error))?;
    Ok(backup)
}
