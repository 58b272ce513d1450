//! `seal doctor`: is this installation sound? Store validity and expiries, compact-profile
//! warnings, the verification-off state, the key file against the store, the replay state, and
//! rule lint.

use seal::self_protection::Protection;
use seal::store_document::{accept_initial, KeyMaterial, KeyStatus, COMPACT_TAG_BITS};
use seal::UnixTime;
use seal_store_redis::{RedisReplayStore, DEFAULT_COUNT_LIMIT};
use seal_store_sqlite::{SqliteReplayStore, StoreOptions};

use crate::cli::DoctorArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::now;
use crate::json_out::J;
use crate::keys::SecretKeys;
use crate::path_guards::{PathGuards, SealFiles};
use crate::policy::lint_file;
use crate::scan::verification_off;
use crate::store;
use crate::verify::{inbound_verifier, FrameOptions};

/// Days before an expiry that `doctor` starts warning, unless `--warn-days` says otherwise.
pub const DEFAULT_WARN_DAYS: u64 = 30;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Error,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// What the hooks do when they cannot decide in time, and what they read: a `SEAL_DEADLINE` the
/// hooks would refuse is an error (every hook would give its failure answer).
fn hook_checks(checks: &mut Vec<(Level, String)>) {
    let limit = format!(
        "input to {} MiB",
        crate::io::MAX_HOOK_INPUT_BYTES / (1024 * 1024)
    );
    let deadline = std::env::var("SEAL_DEADLINE")
        .ok()
        .filter(|text| !text.is_empty());
    let seconds = match deadline.as_deref() {
        None => crate::hook::DEFAULT_DEADLINE_SECONDS,
        Some(text) => match text.parse::<u64>() {
            Ok(seconds) if (1..=crate::hook::MAX_DEADLINE_SECONDS).contains(&seconds) => seconds,
            _ => {
                checks.push((
                    Level::Error,
                    format!(
                        "SEAL_DEADLINE={} is not 1 to {} seconds: every hook would answer its failure answer",
                        quoted(text),
                        crate::hook::MAX_DEADLINE_SECONDS
                    ),
                ));
                return;
            }
        },
    };
    checks.push((
        Level::Ok,
        format!("hooks fail closed; deadline {seconds} s (under the hook timeout); {limit}"),
    ));
    let guard = std::env::var("SEAL_DESTRUCTIVE_GUARD").ok();
    let patterns = seal::destructive::PATTERNS.len() + 2;
    checks.push(match guard.as_deref().filter(|text| !text.is_empty()) {
        None | Some("on") => (
            Level::Ok,
            format!("destructive-command guard on ({patterns} patterns; `~` is HOME, the workspace each call's cwd)"),
        ),
        Some("off") => (
            Level::Warn,
            "destructive-command guard off (SEAL_DESTRUCTIVE_GUARD=off): deletions outside the workspace, git history destruction and device writes are left to the rules".into(),
        ),
        Some(other) => (
            Level::Error,
            format!(
                "SEAL_DESTRUCTIVE_GUARD={} is not `on` or `off`: every tool hook would give its failure answer (deny)",
                quoted(other)
            ),
        ),
    });
}

/// The tool hooks' path guards as the same flags and environment configure them: whether each
/// is on, and every path and pattern it protects. A configuration the hooks would refuse is an
/// error (every tool hook would deny).
fn guard_checks(flags: &DoctorArgs, checks: &mut Vec<(Level, String)>) {
    let files = SealFiles {
        rules: flags.rules.as_deref(),
        keys: flags.keys.as_deref(),
        store: flags.store.as_deref(),
        state: flags.state.as_deref(),
        log: None,
        log_key: None,
        approvers: None,
    };
    let guards = match PathGuards::of(&flags.guards, &files) {
        Ok(guards) => guards,
        Err(failure) => {
            checks.push((
                Level::Error,
                format!(
                    "path guards: {}: every tool hook would give its failure answer (deny)",
                    failure.message
                ),
            ));
            return;
        }
    };
    match &guards.self_protection {
        None => checks.push((
            Level::Warn,
            "self-protection off (--self-protection off or SEAL_SELF_PROTECTION=off): seal's keys, rules, trust store, replay state and the clients' hook settings are left to the rules".into(),
        )),
        Some(guard) => {
            checks.push((
                Level::Ok,
                format!(
                    "self-protection on ({} protected paths; `~` is HOME, relative paths under the workspace and the directories above it)",
                    guard.protected().len()
                ),
            ));
            for path in guard.protected() {
                let what = match path.protection() {
                    Protection::Write => "writes",
                    Protection::ReadWrite => "reads and writes",
                };
                checks.push((
                    Level::Ok,
                    format!(
                        "self-protection {}: {} {} kept from {what} ({})",
                        quoted(path.id()),
                        path.kind().as_str(),
                        quoted(path.path()),
                        path.what()
                    ),
                ));
            }
        }
    }
    match &guards.secrets {
        None => checks.push((
            Level::Warn,
            "secret guard off (--secret-guard off or SEAL_SECRET_GUARD=off): reads of SSH keys, cloud credentials and .env files are left to the rules".into(),
        )),
        Some(guard) => {
            checks.push((
                Level::Ok,
                format!(
                    "secret guard on ({} patterns; `~` is HOME and every other user's home)",
                    guard.patterns().len()
                ),
            ));
            for pattern in guard.patterns() {
                let paths: Vec<String> = pattern.paths().iter().map(|p| quoted(p)).collect();
                let except = if pattern.except().is_empty() {
                    String::new()
                } else {
                    let names: Vec<String> = pattern.except().iter().map(|e| quoted(e)).collect();
                    format!(" except {}", names.join(", "))
                };
                checks.push((
                    Level::Ok,
                    format!(
                        "secret {}: {}{except} ({})",
                        quoted(pattern.id()),
                        paths.join(", "),
                        pattern.what()
                    ),
                ));
            }
        }
    }
}

/// The replay state the hooks would use: its file or server, how many ids it holds live, its
/// size, and the freshness window that bounds it. A state that cannot be opened is an error
/// (every prompt hook would answer `verification_failed`); a file not created yet is fine.
fn state_checks(flags: &DoctorArgs, now: UnixTime, checks: &mut Vec<(Level, String)>) {
    let window = format!(
        "freshness window {} s, clock skew {} s",
        flags.max_age, flags.max_skew
    );
    if let Some(url) = flags
        .state
        .as_deref()
        .filter(|state| crate::state::is_url(state))
    {
        redis_checks(url, &window, checks);
        return;
    }
    let path = match &flags.state {
        Some(path) => std::path::PathBuf::from(path),
        None => match crate::state::default_path() {
            Ok(path) => path,
            Err(failure) => {
                checks.push((Level::Error, failure.message));
                return;
            }
        },
    };
    let shown = quoted(&path.display().to_string());
    if !path.exists() {
        checks.push((
            Level::Ok,
            format!(
                "replay state {shown}: not created yet (the first prompt creates it); {window}"
            ),
        ));
        return;
    }
    let opened = SqliteReplayStore::open(&path, &StoreOptions::default())
        .and_then(|store| store.live_count(now));
    match opened {
        Err(error) => checks.push((
            Level::Error,
            format!("{error}: every prompt hook would answer verification_failed"),
        )),
        Ok(live) => {
            let bytes: u64 = ["", "-wal"]
                .iter()
                .filter_map(|suffix| std::fs::metadata(format!("{}{suffix}", path.display())).ok())
                .map(|metadata| metadata.len())
                .sum();
            checks.push((
                Level::Ok,
                format!("replay state {shown}: {live} live ids, {bytes} bytes; {window}"),
            ));
        }
    }
}

/// A Redis replay state: reachable with the hooks' default timeout, its live ids (the keys of
/// its prefix, counted by `SCAN` up to `DEFAULT_COUNT_LIMIT`), never its password.
fn redis_checks(url: &str, window: &str, checks: &mut Vec<(Level, String)>) {
    let address = match crate::state::redis_address(url) {
        Ok(address) => address,
        Err(failure) => {
            checks.push((
                Level::Error,
                format!(
                    "{}: every prompt hook would answer verification_failed",
                    failure.message
                ),
            ));
            return;
        }
    };
    let credentials = if address.has_credentials() {
        "with a password"
    } else {
        "no password"
    };
    let options = crate::state::redis_options(crate::state::DEFAULT_STATE_TIMEOUT_MS);
    let prefix = options.key_prefix.clone();
    let counted = RedisReplayStore::connect(address.clone(), &options)
        .and_then(|store| store.live_count(DEFAULT_COUNT_LIMIT));
    match counted {
        Err(error) => checks.push((
            Level::Error,
            format!("{error}: every prompt hook would answer verification_failed"),
        )),
        Ok(count) => {
            let ids = if count.complete {
                format!("{} live ids", count.ids)
            } else {
                format!("at least {} live ids (counting stopped there)", count.ids)
            };
            checks.push((
                Level::Ok,
                format!(
                    "replay state `{address}` (Redis, {credentials}): {ids} under {}, expired \
                     by Redis; {window}",
                    quoted(&prefix)
                ),
            ));
        }
    }
}

/// Runs `seal doctor`.
pub fn run(flags: &DoctorArgs) -> Result<u8, Failure> {
    let now = now(flags.now.as_deref())?;
    let warn_days = flags.warn_days;
    let soon = UnixTime(
        now.seconds()
            .saturating_add(warn_days.saturating_mul(86_400)),
    );
    let mut checks: Vec<(Level, String)> = Vec::new();

    if verification_off() {
        checks.push((
            Level::Error,
            "verification is off (SEAL_VERIFY=off): every frame gets a verification_off notice and nothing is verified".into(),
        ));
    } else {
        checks.push((Level::Ok, "verification is on".into()));
    }

    hook_checks(&mut checks);
    guard_checks(flags, &mut checks);
    state_checks(flags, now, &mut checks);

    match flags.store.as_deref() {
        None => checks.push((
            Level::Error,
            "no trust store given (`--store` or SEAL_STORE)".into(),
        )),
        Some(path) => store_checks(path, flags, now, soon, &mut checks),
    }

    wiring_checks(&mut checks);

    if let Some(path) = flags.rules.as_deref() {
        match lint_file(path) {
            Err(failure) => checks.push((Level::Error, failure.message)),
            Ok(findings) => {
                if findings.is_empty() {
                    checks.push((Level::Ok, "rules: the rules load, no lint findings".into()));
                }
                for finding in findings {
                    checks.push((Level::Warn, format!("rules: {finding}")));
                }
            }
        }
    }

    let problems = checks
        .iter()
        .filter(|(level, _)| *level == Level::Error)
        .count();
    let warnings = checks
        .iter()
        .filter(|(level, _)| *level == Level::Warn)
        .count();
    if flags.json {
        let items = checks
            .iter()
            .map(|(level, message)| {
                J::Obj(vec![
                    ("level", J::str(level.as_str())),
                    ("message", J::str(message.clone())),
                ])
            })
            .collect();
        outln!(
            "{}",
            J::Obj(vec![
                ("problems", J::Num(problems as u64)),
                ("warnings", J::Num(warnings as u64)),
                ("checks", J::Arr(items)),
            ])
            .to_text()
        );
    } else {
        for (level, message) in &checks {
            outln!("{:<5} {message}", level.as_str());
        }
        outln!("{problems} problems, {warnings} warnings");
    }
    Ok(if problems > 0 {
        Exit::DoctorProblems
    } else {
        Exit::Ok
    }
    .code())
}

/// The hooks the clients run (spec/install.md section 5): per client, each event wired to seal,
/// and what would keep a hook from answering.
fn wiring_checks(checks: &mut Vec<(Level, String)>) {
    let cwd = std::env::current_dir().unwrap_or_default();
    for (severity, message) in crate::install::wiring::findings(&cwd) {
        let level = match severity {
            crate::install::wiring::Severity::Ok => Level::Ok,
            crate::install::wiring::Severity::Warn => Level::Warn,
            crate::install::wiring::Severity::Error => Level::Error,
        };
        checks.push((level, message));
    }
}

fn store_checks(
    path: &str,
    flags: &DoctorArgs,
    now: UnixTime,
    soon: UnixTime,
    checks: &mut Vec<(Level, String)>,
) {
    let signed = match store::parse(path) {
        Ok(signed) => signed,
        Err(failure) => {
            checks.push((Level::Error, failure.message));
            return;
        }
    };
    let document = signed.document();
    match accept_initial(&signed, now) {
        Ok(_) => checks.push((
            Level::Ok,
            format!(
                "store version {} accepted: {} keys, threshold {}",
                document.version(),
                document.keys().len(),
                document.threshold()
            ),
        )),
        Err(error) => checks.push((Level::Error, format!("store not accepted: {error}"))),
    }
    let expires = document.expires();
    if expires.seconds() < now.seconds() {
        checks.push((Level::Error, format!("store expired at {expires}")));
    } else if expires.seconds() <= soon.seconds() {
        checks.push((Level::Warn, format!("store expires soon, at {expires}")));
    } else {
        checks.push((Level::Ok, format!("store valid until {expires}")));
    }
    for entry in document.keys() {
        let id = entry.id();
        let window = entry.validity();
        match entry.status() {
            KeyStatus::Revoked { at } if at.seconds() <= now.seconds() => {
                checks.push((Level::Ok, format!("key {id}: revoked since {at}")));
                continue;
            }
            KeyStatus::Revoked { at } => checks.push((
                Level::Warn,
                format!("key {id}: revocation scheduled at {at}"),
            )),
            KeyStatus::VerifyOnly => checks.push((Level::Ok, format!("key {id}: verify-only"))),
            KeyStatus::Active => {}
        }
        if now.seconds() < window.not_before.seconds() {
            checks.push((
                Level::Warn,
                format!("key {id}: not valid before {}", window.not_before),
            ));
        } else if now.seconds() > window.not_after.seconds() {
            checks.push((
                Level::Warn,
                format!("key {id}: expired at {}", window.not_after),
            ));
        } else if window.not_after.seconds() <= soon.seconds() {
            checks.push((
                Level::Warn,
                format!("key {id}: expires soon, at {}", window.not_after),
            ));
        } else {
            checks.push((
                Level::Ok,
                format!(
                    "key {id}: {} valid until {}",
                    entry.algorithm(),
                    window.not_after
                ),
            ));
        }
        if let KeyMaterial::Hmac { tag_chars, .. } = entry.material() {
            if u16::from(*tag_chars) * 6 == COMPACT_TAG_BITS {
                checks.push((
                    Level::Warn,
                    format!(
                        "key {id}: compact profile (5-character, 30-bit tags: one chance in about a billion per forgery try), accepted because the hooks and `scan` verify with per-conversation subkeys and claim every frame id in the replay state; a standard key (22 characters) needs neither"
                    ),
                ));
            }
        }
    }
    if let Some(keys_path) = flags.keys.as_deref() {
        match SecretKeys::load(keys_path) {
            Err(failure) => checks.push((Level::Error, failure.message)),
            Ok(keys) => {
                for entry in document.keys() {
                    if matches!(entry.material(), KeyMaterial::Hmac { .. })
                        && keys.get(entry.id()).is_err()
                    {
                        checks.push((
                            Level::Warn,
                            format!(
                                "key {}: no secret in the key file; its frames cannot verify",
                                entry.id()
                            ),
                        ));
                    }
                }
                if accept_initial(&signed, now).is_ok() {
                    let options = FrameOptions::defaults();
                    match inbound_verifier(path, Some(&keys), &options, now) {
                        Ok(_) => checks.push((Level::Ok, "key file fits the store".into())),
                        Err(failure) => checks.push((Level::Error, failure.message)),
                    }
                }
            }
        }
    }
}
