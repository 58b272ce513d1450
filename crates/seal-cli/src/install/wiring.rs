//! What `seal doctor` reports about the hooks the clients run: per client, which events are
//! wired to which seal command, in which file; a hook entry that runs a `seal` other than the
//! one running, a missing event, a timeout that is not above seal's deadline, and for Codex
//! whether Codex will run each hook at all (spec/install.md).

use std::path::{Path, PathBuf};

use super::json_text::{parse, Kind};
use super::settings::{find, Client, Found};
use super::{codex_trust, events, optional_events, settings_path};
use crate::failure::quoted;

/// How much a finding matters (doctor's levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// As it should be.
    Ok,
    /// Works, but not as well as it could.
    Warn,
    /// A hook that fails open, does not run, or answers the wrong client.
    Error,
}

/// The settings files of `client` that seal's hooks may be in: the user's, and the project's
/// of the current directory.
pub fn files(client: Client, cwd: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = settings_path(client, None).into_iter().collect();
    match client {
        Client::ClaudeCode => {
            files.push(cwd.join(".claude").join("settings.json"));
            files.push(cwd.join(".claude").join("settings.local.json"));
        }
        Client::Codex => files.push(cwd.join(".codex").join("hooks.json")),
    }
    files
}

/// A path for a message: under the home directory as `~/...`.
pub fn shown(path: &Path) -> String {
    if let Some(home) = super::home() {
        if let Ok(rest) = path.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    path.display().to_string()
}

/// The seal that `program` names: a path as it is, a bare name as `PATH` finds it.
fn resolve(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if program.contains('/') {
        let expanded = match program.strip_prefix("~/") {
            Some(rest) => super::home()?.join(rest),
            None => path.to_path_buf(),
        };
        return std::fs::canonicalize(expanded).ok();
    }
    let search = std::env::var_os("PATH")?;
    std::env::split_paths(&search)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .and_then(|found| std::fs::canonicalize(found).ok())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The deadline the hook's command gives itself: its `--deadline`, else `SEAL_DEADLINE` as
/// doctor sees it, else the default.
fn deadline(found: &Found) -> u64 {
    found
        .seal
        .flag("--deadline")
        .map(str::to_owned)
        .or_else(|| std::env::var("SEAL_DEADLINE").ok())
        .and_then(|text| text.parse::<u64>().ok())
        .unwrap_or(crate::hook::DEFAULT_DEADLINE_SECONDS)
        .max(waited(found).map_or(0, |wait| wait + crate::relay::ANSWER_MARGIN))
}

/// The seconds a waiting hook waits for the person (a `permission-request` hook, or a
/// `pre-tool-use` hook with `--wait-approval`), as it reads them.
fn waited(found: &Found) -> Option<u64> {
    let default = match found.seal.hook.as_str() {
        "permission-request" => crate::relay::DEFAULT_RELAY_WAIT,
        "pre-tool-use" if found.seal.args.iter().any(|arg| arg == "--wait-approval") => {
            crate::relay::DEFAULT_HOLD_WAIT
        }
        _ => return None,
    };
    Some(
        found
            .seal
            .flag("--approval-wait")
            .map(str::to_owned)
            .or_else(|| std::env::var("SEAL_APPROVAL_WAIT").ok())
            .and_then(|text| text.parse::<u64>().ok())
            .unwrap_or(default),
    )
}

/// The findings about one seal hook.
fn hook_findings(
    client: Client,
    path: &Path,
    found: &Found,
    running: Option<&Path>,
    out: &mut Vec<(Severity, String)>,
) {
    let place = format!("{} {} in {}", client.name(), found.event, shown(path));
    let command = quoted(&found.command);
    let Some(event) = events(client)
        .iter()
        .chain(optional_events(client))
        .find(|event| event.name == found.event)
    else {
        out.push((
            Severity::Warn,
            format!("{place}: {command} is under an event seal does not answer (`seal uninstall {}` removes it)", client.word()),
        ));
        return;
    };
    if found.seal.client != client.word() {
        out.push((
            Severity::Error,
            format!(
                "{place}: {command} answers in {}'s protocol, not {}'s (`seal install {}` rewrites it)",
                if found.seal.client == "codex" { "Codex" } else { "Claude Code" },
                client.name(),
                client.word()
            ),
        ));
        return;
    }
    if found.seal.hook != event.hook {
        out.push((
            Severity::Error,
            format!(
                "{place}: {command} is not the `{}` hook this event needs: every {} would get a failure answer",
                event.hook, found.event
            ),
        ));
        return;
    }
    // Whether every check of this hook passed (then one `ok` line says so).
    let mut sound = true;
    match resolve(&found.seal.program) {
        None => {
            sound = false;
            out.push((
                Severity::Error,
                format!(
                    "{place}: {} is not found{}: the client cannot run the hook",
                    quoted(&found.seal.program),
                    if found.seal.program.contains('/') {
                        ""
                    } else {
                        " on the PATH"
                    }
                ),
            ));
        }
        Some(resolved) if running.is_some_and(|running| running != resolved) => {
            sound = false;
            out.push((
                Severity::Warn,
                format!(
                    "{place}: {} is {}, not this seal ({})",
                    quoted(&found.seal.program),
                    resolved.display(),
                    running.map(|r| r.display().to_string()).unwrap_or_default()
                ),
            ));
        }
        Some(_) => {}
    }
    let deadline = deadline(found);
    if let Some(timeout) = &found.timeout {
        match timeout.parse::<f64>() {
            Ok(seconds) if seconds > deadline as f64 => {}
            _ => {
                sound = false;
                out.push((
                    Severity::Error,
                    format!(
                        "{place}: timeout {timeout} s is not above the hook's {deadline} s deadline: the client may kill seal before it answers, and then {}",
                        if event.frames {
                            "the prompt goes on unverified"
                        } else {
                            "the call goes on under the client's own rules"
                        }
                    ),
                ));
            }
        }
    }
    if let (Some(wanted), Some(matcher)) = (event.matcher, found.matcher.as_deref()) {
        if matcher != wanted && !matcher.is_empty() {
            sound = false;
            out.push((
                Severity::Warn,
                format!(
                    "{place}: matcher {} lets calls it does not match go unchecked by seal (`seal install {}` writes {})",
                    quoted(matcher),
                    client.word(),
                    quoted(wanted)
                ),
            ));
        }
    }
    if waited(found).is_some() {
        if let Some(finding) = approver_finding(found) {
            sound = false;
            out.push((Severity::Warn, format!("{place}: {finding}")));
        }
    }
    if client == Client::Codex {
        let (severity, message) = codex_trust::finding(path, found);
        if severity != Severity::Ok {
            sound = false;
        }
        out.push((severity, format!("{place}: {message}")));
    }
    if sound {
        out.push((
            Severity::Ok,
            format!(
                "{place}: {command}{}",
                found
                    .timeout
                    .as_ref()
                    .map(|t| format!(" (timeout {t} s)"))
                    .unwrap_or_default()
            ),
        ));
    }
}

/// What a waiting hook lacks to be safe from the agent it guards: an enrolled approver.
fn approver_finding(found: &Found) -> Option<String> {
    let path = match found.seal.flag("--approvers") {
        Some(path) => PathBuf::from(path),
        None => super::home()?
            .join(".config")
            .join("seal")
            .join("approvers.json"),
    };
    let enrolled =
        std::fs::read(&path).is_ok_and(|bytes| !bytes.iter().all(u8::is_ascii_whitespace));
    (!enrolled).then(|| {
        format!(
            "no approver is enrolled ({} is empty or missing): a process running as your user \
             could answer the approval panel; enrol a security key on the panel",
            shown(&path)
        )
    })
}

/// Every finding about the hooks of both clients, with `cwd` as the project directory.
pub fn findings(cwd: &Path) -> Vec<(Severity, String)> {
    let running = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::canonicalize(exe).ok());
    let mut out = Vec::new();
    for client in [Client::ClaudeCode, Client::Codex] {
        let mut wired: Vec<String> = Vec::new();
        let mut any_file = false;
        for path in files(client, cwd) {
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => {
                    out.push((
                        Severity::Error,
                        format!(
                            "{}: {}: cannot read it: {error}",
                            client.name(),
                            shown(&path)
                        ),
                    ));
                    continue;
                }
            };
            any_file = true;
            let unreadable = |problem: String| {
                (
                    Severity::Error,
                    format!(
                        "{}: {}: {problem}: the client may not read its hooks either",
                        client.name(),
                        shown(&path)
                    ),
                )
            };
            let root = match parse(&text) {
                Ok(root) => root,
                Err(error) => {
                    out.push(unreadable(error.to_string()));
                    continue;
                }
            };
            let disabled = root
                .get("disableAllHooks")
                .is_some_and(|m| matches!(m.value.kind, Kind::Literal("true")));
            if client == Client::ClaudeCode && disabled {
                out.push((
                    Severity::Error,
                    format!(
                        "Claude Code: {}: `disableAllHooks` is true, so Claude Code runs no hook, seal's included",
                        shown(&path)
                    ),
                ));
            }
            if client == Client::Codex {
                if let Some(problem) = codex_trust::file_problem(&text, &root) {
                    out.push((
                        Severity::Error,
                        format!("Codex: {}: {problem}", shown(&path)),
                    ));
                    continue;
                }
            }
            let found = match find(&text, &root) {
                Ok(found) => found,
                Err(problem) => {
                    out.push(unreadable(problem));
                    continue;
                }
            };
            for hook in &found {
                hook_findings(client, &path, hook, running.as_deref(), &mut out);
                wired.push(hook.event.clone());
            }
        }
        if wired.is_empty() {
            if any_file || client_dir_exists(client) {
                out.push((
                    Severity::Warn,
                    format!(
                        "{}: no seal hook is installed (`seal install {} --rules FILE`)",
                        client.name(),
                        client.word()
                    ),
                ));
            }
            continue;
        }
        for event in events(client) {
            if !wired.iter().any(|name| name == event.name) {
                let what = if event.frames {
                    "frames in prompts are not verified"
                } else if event.name == "PreSkillShellCommand" {
                    "skills' shell lines run unchecked"
                } else {
                    "tool calls are not checked"
                };
                out.push((
                    Severity::Warn,
                    format!(
                        "{} {}: not wired, {what} (`seal install {}`)",
                        client.name(),
                        event.name,
                        client.word()
                    ),
                ));
            }
        }
    }
    out
}

fn client_dir_exists(client: Client) -> bool {
    settings_path(client, None)
        .ok()
        .and_then(|path| path.parent().map(Path::is_dir))
        .unwrap_or(false)
}
