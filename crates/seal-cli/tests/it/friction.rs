//! No more friction than the client alone: on a corpus of everyday calls (reads, searches and
//! edits of project files, read-only and build/test commands, everyday writes), recorded with
//! Claude Code 2.1.332 alone in its default and accept-edits modes
//! (`fixtures/friction/claude-code-2.1.332.json`, cases in `fixtures/friction/cases/`), the
//! `PreToolUse` hook as the README installs it (the recommended rules, the default `--default`,
//! so the call's `permission_mode` picks the client's mode) asks no more often than Claude
//! Code did, in each mode; and it never allows a call Claude Code denied.
//!
//! Each mode's count of calls the hook asks about where Claude Code allowed is printed too.
//!
//! Negative control: a hook with no rule and `--default ask` (the hook's fallback before it read
//! the permission mode) asks more often than Claude Code, so the count can fail.

use crate::support::{seal, TempDir};
use serde_json::Value;

const WORKSPACE: &str = "/home/dev/app";
const HOME: &str = "/home/dev";

fn substitute(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(
            text.replace("${WORKSPACE}", WORKSPACE)
                .replace("${HOME}", HOME),
        ),
        Value::Array(items) => Value::Array(items.iter().map(substitute).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, item)| (key.clone(), substitute(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn rows() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/friction/claude-code-2.1.332.json"
    );
    let table: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("table"))
        .expect("table is JSON");
    table["rows"].as_array().expect("rows").clone()
}

/// The hook's answer for one row: `allow`, `ask` or `deny`.
fn hook(rules: &str, row: &Value, extra: &[&str]) -> String {
    let input = serde_json::json!({
        "session_id": "friction",
        "hook_event_name": "PreToolUse",
        "tool_name": row["tool"],
        "tool_input": substitute(&row["input"]),
        "tool_use_id": "toolu_01",
        "cwd": WORKSPACE,
        "permission_mode": row["mode"],
    });
    let mut args = vec!["hook", "claude-code", "pre-tool-use", "--rules", rules];
    args.extend_from_slice(extra);
    let run = seal(
        &args,
        serde_json::to_string(&input).expect("input").as_bytes(),
        &[("HOME", HOME)],
    );
    let answer = run.json();
    answer["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .expect("permissionDecision")
        .to_owned()
}

/// Asks per mode: (Claude Code alone, the hook); and the rows the hook allows that Claude
/// Code denied. `rules` is the rules file's text (`None`: the recommended rules).
fn count(rules: Option<&str>, extra: &[&str]) -> (Vec<(String, usize, usize)>, Vec<String>) {
    let dir = TempDir::new("friction");
    let path = dir.file("rules.json");
    let text = match rules {
        Some(text) => text.to_owned(),
        None => seal(&["policy", "recommended"], b"", &[]).stdout,
    };
    std::fs::write(&path, text).expect("rules");
    let rules = path;
    let mut modes: Vec<(String, usize, usize)> = Vec::new();
    let mut extra_prompts: Vec<(String, String)> = Vec::new();
    let mut looser = Vec::new();
    for row in rows() {
        let mode = row["mode"].as_str().expect("mode").to_owned();
        let client = row["claude_code"].as_str().expect("decision");
        let ours = hook(&rules, &row, extra);
        if !modes.iter().any(|(m, _, _)| *m == mode) {
            modes.push((mode.clone(), 0, 0));
        }
        let entry = modes.iter_mut().find(|(m, _, _)| *m == mode).expect("mode");
        entry.1 += usize::from(client == "ask");
        entry.2 += usize::from(ours == "ask");
        if client == "deny" && ours == "allow" {
            looser.push(format!("{mode} {} {}", row["tool"], row["input"]));
        }
        if client == "allow" && ours == "ask" {
            extra_prompts.push((mode.clone(), format!("{} {}", row["tool"], row["input"])));
        }
    }
    for (mode, call) in &extra_prompts {
        println!("{mode}: the hook asks where Claude Code allowed: {call}");
    }
    (modes, looser)
}

#[test]
fn the_hook_asks_no_more_often_than_claude_code_alone() {
    let (modes, looser) = count(None, &[]);
    assert_eq!(modes.len(), 2, "{modes:?}");
    for (mode, client, ours) in &modes {
        println!("{mode}: Claude Code alone asks {client} times, the hook {ours} times");
        assert!(
            ours <= client,
            "{mode}: the hook asks {ours} times, Claude Code {client}"
        );
    }
    assert!(
        looser.is_empty(),
        "allowed where Claude Code denied: {looser:?}"
    );
}

#[test]
fn negative_control_a_hook_that_asks_by_default_is_caught() {
    let (modes, _) = count(Some(r#"{"permissions": {}}"#), &["--default", "ask"]);
    assert!(
        modes.iter().any(|(_, client, ours)| ours > client),
        "asking by default was not caught: {modes:?}"
    );
}
