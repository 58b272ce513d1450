//! Codex's review of hooks: Codex runs a hook only when `config.toml` records, under
//! `[hooks.state."<key>"]`, a `trusted_hash` equal to the hash of the hook's definition as it is
//! now. This module recomputes that key and hash (spec/install.md section 4, checked against
//! hashes recorded from Codex 0.171.0) and says what it means for each seal hook.
//!
//! The definition hashed is a JSON object with its keys sorted at every level, written compactly
//! (serde_json's escaping), SHA-256, written `sha256:` and 64 lowercase hex digits:
//! `{"event_name": <snake_case event>, "hooks": [{"async": <bool, false when absent>,
//! "command": <as written>, "timeout": <as written, else the event's default>, "type":
//! "command", "statusMessage"?: <when a string>, "additionalContextLimit"?: <when a number>}],
//! "matcher"?: <when a string and the event has matchers>}`.

use std::path::{Path, PathBuf};

use super::json_text::{parse, Kind};
use super::settings::{find, Found};
use super::wiring::{shown, Severity};

/// The events whose `matcher` Codex reads (and hashes); on the others it is ignored.
pub const MATCHER_EVENTS: [&str; 9] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "SessionEnd",
    "SubagentStart",
    "SubagentStop",
];

/// Codex's hook timeout when none is written, in seconds (every event seal answers).
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 600;

/// The events whose timeout Codex defaults to 1 second and caps at 3.
const SHORT_EVENTS: [&str; 2] = ["SessionEnd", "Interrupt"];

/// A command hook's definition, as Codex hashes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition<'a> {
    /// The event, as hooks.json names it (`PreToolUse`).
    pub event: &'a str,
    /// The group's matcher, when one is written.
    pub matcher: Option<&'a str>,
    /// The command, exactly as written.
    pub command: &'a str,
    /// The timeout written, if any.
    pub timeout: Option<u64>,
    /// The `async` flag written, if any.
    pub is_async: Option<bool>,
    /// `statusMessage`, when a string is written.
    pub status_message: Option<&'a str>,
    /// `additionalContextLimit`, when written.
    pub additional_context_limit: Option<u64>,
}

/// The snake_case label Codex uses for an event in keys and hashes (`pre_tool_use`).
pub fn label(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (index, ch) in event.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

fn string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The bytes Codex hashes for `definition`.
pub fn identity(definition: &Definition<'_>) -> String {
    let short = SHORT_EVENTS.contains(&definition.event);
    let timeout = match (definition.timeout, short) {
        (Some(timeout), false) => timeout.max(1),
        (Some(timeout), true) => timeout.clamp(1, 3),
        (None, false) => DEFAULT_TIMEOUT_SECONDS,
        (None, true) => 1,
    };
    let mut handler = String::from("{");
    if let Some(limit) = definition.additional_context_limit {
        handler.push_str(&format!("\"additionalContextLimit\":{limit},"));
    }
    handler.push_str(&format!(
        "\"async\":{},\"command\":{},",
        definition.is_async.unwrap_or(false),
        string(definition.command)
    ));
    if let Some(message) = definition.status_message {
        handler.push_str(&format!("\"statusMessage\":{},", string(message)));
    }
    handler.push_str(&format!("\"timeout\":{timeout},\"type\":\"command\"}}"));
    let mut out = format!(
        "{{\"event_name\":{},\"hooks\":[{handler}]",
        string(&label(definition.event))
    );
    if let Some(matcher) = definition
        .matcher
        .filter(|_| MATCHER_EVENTS.contains(&definition.event))
    {
        out.push_str(&format!(",\"matcher\":{}", string(matcher)));
    }
    out.push('}');
    out
}

/// Codex's hash of `definition`: `sha256:` and 64 lowercase hex digits.
pub fn hash(definition: &Definition<'_>) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, identity(definition).as_bytes());
    format!("sha256:{}", hex::encode(digest.as_ref()))
}

/// The key of a hook in `[hooks.state]`: the hooks file, the event label, the group's and the
/// handler's 0-based positions.
pub fn key(hooks_file: &Path, event: &str, group: usize, handler: usize) -> String {
    format!(
        "{}:{}:{group}:{handler}",
        hooks_file.display(),
        label(event)
    )
}

/// The hooks file as Codex names it in keys: under `CODEX_HOME` with that directory's symbolic
/// links resolved, otherwise the path made absolute (Codex does not resolve `~/.codex`).
pub fn key_file(path: &Path) -> PathBuf {
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|home| !home.is_empty()) {
        let home = PathBuf::from(home);
        if let (Some(parent), Some(name)) = (path.parent(), path.file_name()) {
            if parent == home {
                if let Ok(real) = std::fs::canonicalize(&home) {
                    return real.join(name);
                }
            }
        }
    }
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Codex's `config.toml`: under `CODEX_HOME`, else `~/.codex`.
pub fn config_file() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME").filter(|home| !home.is_empty()) {
        Some(home) => Some(PathBuf::from(home).join("config.toml")),
        None => super::home().map(|home| home.join(".codex").join("config.toml")),
    }
}

/// The definition of a seal hook found in a hooks file, or why Codex would not read it.
pub fn definition(found: &Found) -> Result<Definition<'_>, String> {
    let mut definition = Definition {
        event: &found.event,
        matcher: found.matcher.as_deref(),
        command: &found.command,
        timeout: None,
        is_async: None,
        status_message: None,
        additional_context_limit: None,
    };
    for (key, kind) in &found.members {
        match (key.as_str(), kind) {
            ("timeout", Kind::Number(text)) => match text.parse::<u64>() {
                Ok(seconds) => definition.timeout = Some(seconds),
                Err(_) => {
                    return Err(format!(
                        "timeout {text} is not a whole number of seconds, so Codex refuses the whole file"
                    ))
                }
            },
            ("timeout", Kind::Literal("null")) => {}
            ("timeout", _) => {
                return Err(
                    "the timeout is not a number, so Codex refuses the whole file".to_owned(),
                )
            }
            // `false` is what Codex hashes when none is written.
            ("async", Kind::Literal("true")) => definition.is_async = Some(true),
            ("statusMessage", Kind::String(text)) => definition.status_message = Some(text),
            ("additionalContextLimit", Kind::Number(text)) => {
                definition.additional_context_limit = text.parse().ok();
            }
            _ => {}
        }
    }
    Ok(definition)
}

/// What Codex has recorded for a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Review {
    /// No `trusted_hash`.
    Never,
    /// The recorded hash, and whether the hook is enabled.
    Recorded {
        /// `trusted_hash`.
        hash: String,
        /// `enabled` (true when absent).
        enabled: bool,
    },
}

/// Why Codex would refuse a whole hooks file that is JSON, if it would: a top-level member other
/// than `description` and `hooks`, or a timeout that is not a whole number.
pub fn file_problem(text: &str, root: &super::json_text::Node) -> Option<String> {
    if let Some(member) = root
        .members()?
        .iter()
        .find(|member| member.key != "hooks" && member.key != "description")
    {
        return Some(format!(
            "the top-level member {} makes Codex refuse the whole file (only `description` and `hooks` are read), so it runs none of its hooks",
            crate::failure::quoted(&member.key)
        ));
    }
    let all = super::settings::collect(text, root, |command| {
        Some(super::settings::SealCommand {
            program: command.to_owned(),
            client: String::new(),
            hook: String::new(),
            args: Vec::new(),
        })
    })
    .ok()?;
    all.iter().find_map(|handler| {
        definition(handler).err().map(|problem| {
            format!(
                "{} (a hook of {}), so it runs none of its hooks",
                problem, handler.event
            )
        })
    })
}

/// The review recorded for `key` in the text of a `config.toml`.
///
/// # Errors
///
/// When the text is not TOML.
pub fn review(config: &str, key: &str) -> Result<Review, String> {
    let table: toml::Table = config
        .parse()
        .map_err(|error: toml::de::Error| error.message().to_owned())?;
    let entry = table
        .get("hooks")
        .and_then(|hooks| hooks.get("state"))
        .and_then(|state| state.get(key));
    let Some(hash) = entry
        .and_then(|entry| entry.get("trusted_hash"))
        .and_then(toml::Value::as_str)
    else {
        return Ok(Review::Never);
    };
    let enabled = entry
        .and_then(|entry| entry.get("enabled"))
        .and_then(toml::Value::as_bool)
        .unwrap_or(true);
    Ok(Review::Recorded {
        hash: hash.to_owned(),
        enabled,
    })
}

/// `seal doctor`'s finding about whether Codex runs the seal hook `found` of the hooks file
/// `path`.
pub fn finding(path: &Path, found: &Found) -> (Severity, String) {
    let definition = match definition(found) {
        Ok(definition) => definition,
        Err(problem) => return (Severity::Error, problem),
    };
    let current = hash(&definition);
    let key = key(&key_file(path), &found.event, found.group, found.handler);
    let Some(config) = config_file() else {
        return (
            Severity::Error,
            "neither CODEX_HOME nor HOME is set: Codex's review state cannot be read".into(),
        );
    };
    let text = match std::fs::read_to_string(&config) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => {
            return (
                Severity::Error,
                format!("cannot read {}: {error}", shown(&config)),
            )
        }
    };
    match review(&text, &key) {
        Err(problem) => (
            Severity::Error,
            format!("{} is not TOML ({problem}): Codex would not start", shown(&config)),
        ),
        Ok(Review::Never) => (
            Severity::Error,
            format!(
                "never reviewed in Codex, so Codex does not run it: review it in Codex's /hooks (its hash is {current})"
            ),
        ),
        Ok(Review::Recorded { hash, .. }) if hash != current => (
            Severity::Error,
            format!(
                "changed since it was reviewed in Codex (reviewed {hash}, now {current}), so Codex does not run it: review it again in Codex's /hooks"
            ),
        ),
        Ok(Review::Recorded { enabled: false, .. }) => (
            Severity::Error,
            "reviewed but disabled in Codex (`enabled = false`), so Codex does not run it".into(),
        ),
        Ok(Review::Recorded { .. }) => (
            Severity::Ok,
            format!("reviewed and trusted in Codex ({current})"),
        ),
    }
}

/// What `seal install codex` prints after writing `path`: each seal hook's key and hash, and
/// what the operator does in Codex so that Codex runs them.
pub fn review_note(path: &Path, text: &str) -> Vec<String> {
    let Ok(root) = parse(text) else {
        return Vec::new();
    };
    let Ok(found) = find(text, &root) else {
        return Vec::new();
    };
    let mut lines = vec![
        "Codex runs a hook only after it is reviewed, and only while its definition (event, matcher, command, timeout, async) is the one reviewed.".to_owned(),
        "Review seal's hooks now: start `codex`, open /hooks, check each against the hash below and trust it; `seal doctor` then says whether Codex runs each.".to_owned(),
        "The review is recorded in Codex's config.toml as:".to_owned(),
    ];
    for hook in &found {
        let Ok(definition) = definition(hook) else {
            continue;
        };
        lines.push(format!(
            "  [hooks.state.{}]",
            string(&key(&key_file(path), &hook.event, hook.group, hook.handler))
        ));
        lines.push(format!("  trusted_hash = {}", string(&hash(&definition))));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::settings::{collect, Found, SealCommand};

    const RECORDED: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/codex-0.171/recorded-hashes.json"
    ));

    fn any_command(command: &str) -> Option<SealCommand> {
        Some(SealCommand {
            program: command.to_owned(),
            client: String::new(),
            hook: String::new(),
            args: Vec::new(),
        })
    }

    /// Every command hook Codex 0.171.0 listed (its key and `currentHash`, from `codex
    /// app-server`'s `hooks/list`) is the key and hash recomputed from the hooks file's bytes.
    #[test]
    fn keys_and_hashes_are_codexs() {
        let recorded: serde_json::Value = serde_json::from_str(RECORDED).expect("fixture");
        let mut checked = 0;
        for case in recorded["cases"].as_array().expect("cases") {
            let text = case["hooks_json_bytes"].as_str().expect("bytes");
            let file = Path::new(case["hooks_json_path"].as_str().expect("path"));
            let Ok(root) = parse(text) else {
                continue;
            };
            let handlers = collect(text, &root, any_command).expect("handlers");
            for hook in case["hooks"].as_array().expect("hooks") {
                if hook["handlerType"] != "command" {
                    continue;
                }
                let key_text = hook["key"].as_str().expect("key");
                let ours = handlers
                    .iter()
                    .find(|found| key(file, &found.event, found.group, found.handler) == key_text)
                    .unwrap_or_else(|| {
                        panic!("{}: no handler has the key {key_text}", case["case"])
                    });
                let definition = definition(ours).expect("definition");
                assert_eq!(
                    hash(&definition),
                    hook["currentHash"].as_str().expect("hash"),
                    "{}: {}",
                    case["case"],
                    identity(&definition)
                );
                checked += 1;
            }
        }
        assert!(checked >= 60, "{checked} hooks checked");
    }

    /// Negative twins: each part of the definition Codex hashes changes the hash, and what it
    /// ignores does not.
    #[test]
    fn every_hashed_part_counts() {
        let base = Definition {
            event: "PreToolUse",
            matcher: None,
            command: "seal hook codex pre-tool-use --rules /home/op/.seal/rules.json",
            timeout: Some(60),
            is_async: None,
            status_message: None,
            additional_context_limit: None,
        };
        let recorded = "sha256:8b63f572d302c273d771bcc523efc39685efc2cac5d4f00355f060126ce2fc4f";
        assert_eq!(hash(&base), recorded);
        let spaced = "seal hook codex pre-tool-use  --rules /home/op/.seal/rules.json";
        let changed = [
            Definition {
                command: spaced,
                ..base.clone()
            },
            Definition {
                timeout: Some(30),
                ..base.clone()
            },
            Definition {
                timeout: None,
                ..base.clone()
            },
            Definition {
                matcher: Some("*"),
                ..base.clone()
            },
            Definition {
                is_async: Some(true),
                ..base.clone()
            },
            Definition {
                status_message: Some("checking"),
                ..base.clone()
            },
            Definition {
                event: "PostToolUse",
                ..base.clone()
            },
        ];
        for definition in &changed {
            assert_ne!(hash(definition), recorded, "{definition:?}");
        }
        let same = [
            Definition {
                is_async: Some(false),
                ..base.clone()
            },
            Definition {
                event: "UserPromptSubmit",
                matcher: Some("Bash"),
                ..base.clone()
            },
        ];
        assert_eq!(hash(&same[0]), recorded);
        assert_eq!(
            hash(&same[1]),
            hash(&Definition {
                event: "UserPromptSubmit",
                ..base.clone()
            })
        );
        assert_eq!(
            hash(&Definition {
                timeout: None,
                ..base.clone()
            }),
            hash(&Definition {
                timeout: Some(600),
                ..base
            })
        );
    }

    fn found(handler: &str) -> Result<Definition<'static>, String> {
        let text = format!("{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [{handler}]}}]}}}}");
        let root = parse(&text).expect("json");
        let handlers = collect(&text, &root, any_command).expect("handlers");
        let found: &'static Found = Box::leak(Box::new(handlers[0].clone()));
        definition(found)
    }

    #[test]
    fn what_a_handler_writes_is_read_as_codex_reads_it() {
        let base = r#"{"type": "command", "command": "seal hook codex pre-tool-use""#;
        let absent = found(&format!("{base}}}")).expect("definition");
        assert_eq!(absent.timeout, None);
        assert_eq!(
            found(&format!("{base}, \"timeout\": null}}")),
            Ok(absent.clone())
        );
        assert_eq!(
            found(&format!("{base}, \"async\": false}}")).map(|d| hash(&d)),
            Ok(hash(&absent))
        );
        assert_eq!(
            found(&format!("{base}, \"async\": true}}")).map(|d| d.is_async),
            Ok(Some(true))
        );
        assert_eq!(
            found(&format!("{base}, \"timeout\": 45}}")).map(|d| d.timeout),
            Ok(Some(45))
        );
        for bad in ["\"60\"", "60.0", "-1", "true"] {
            assert!(
                found(&format!("{base}, \"timeout\": {bad}}}")).is_err(),
                "{bad}"
            );
        }
        let limited = found(&format!(
            "{base}, \"additionalContextLimit\": 9, \"statusMessage\": \"s\"}}"
        ))
        .expect("definition");
        assert_eq!(
            (limited.additional_context_limit, limited.status_message),
            (Some(9), Some("s"))
        );
    }

    #[test]
    fn the_review_state_is_read_from_config_toml() {
        let key = "/home/op/.codex/hooks.json:pre_tool_use:0:0";
        let config =
            format!("model = \"o3\"\n[hooks.state.\"{key}\"]\ntrusted_hash = \"sha256:ab\"\n");
        assert_eq!(
            review(&config, key),
            Ok(Review::Recorded {
                hash: "sha256:ab".into(),
                enabled: true
            })
        );
        assert_eq!(review(&config, "other:pre_tool_use:0:0"), Ok(Review::Never));
        assert_eq!(review("", key), Ok(Review::Never));
        let disabled = format!("{config}enabled = false\n");
        assert_eq!(
            review(&disabled, key),
            Ok(Review::Recorded {
                hash: "sha256:ab".into(),
                enabled: false
            })
        );
        assert!(review("[hooks", key).is_err());
    }
}
