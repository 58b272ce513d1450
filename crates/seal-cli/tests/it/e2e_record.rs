//! The end-to-end record of spec/cli.md section 6.1 ("Self-protection, observed"), replayed:
//! `fixtures/e2e/self-protection.case.json` was run by the real Claude Code 2.1.332 (offline,
//! a mock model making the calls) with the `PreToolUse` hook as the README installs it (the
//! recommended rules in `~/.seal/rules.json`, the hook in the user settings), and alone; the
//! two `.jsonl` files are what it did. This test gives the same calls to the hook as built now
//! and checks that it answers what Claude Code received from the hook then (every call Claude
//! Code reports as decided by the hook), so the record cannot drift from the code: the key
//! file, an SSH key, a cloud credential, seal's rules and Claude Code's settings denied, the
//! same kind of calls inside the workspace allowed.

use crate::support::{seal, TempDir};
use serde_json::Value;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/e2e/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("fixture")
}

fn substitute(value: &Value, home: &str, workspace: &str) -> Value {
    match value {
        Value::String(text) => Value::String(
            text.replace("${WORKSPACE}", workspace)
                .replace("${HOME}", home),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute(item, home, workspace))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, item)| (key.clone(), substitute(item, home, workspace)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn the_recorded_hook_answers_hold() {
    let case: Value = serde_json::from_str(&fixture("self-protection.case.json")).expect("case");
    let observed: Vec<Value> = fixture("self-protection.claude-code-2.1.332.with-seal.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect();
    let alone: Vec<Value> = fixture("self-protection.claude-code-2.1.332.alone.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect();
    let calls = case["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), observed.len());
    assert_eq!(calls.len(), alone.len());

    let dir = TempDir::new("e2e-record");
    let home = dir.file("home");
    let workspace = dir.file("workspace");
    std::fs::create_dir_all(format!("{home}/.seal")).expect("home");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let rules = format!("{home}/.seal/rules.json");
    let text = serde_json::to_string(&case["home_files"][".seal/rules.json"]).expect("rules");
    std::fs::write(&rules, text).expect("rules");

    let mut checked = 0;
    for ((call, seen), by_itself) in calls.iter().zip(&observed).zip(&alone) {
        let via = seen["via"].as_str().expect("via");
        if !(via.starts_with("hook/") || via == "prompt/hook") {
            continue;
        }
        let input = serde_json::json!({
            "session_id": "e2e",
            "hook_event_name": "PreToolUse",
            "tool_name": call["tool"],
            "tool_input": substitute(&call["input"], &home, &workspace),
            "tool_use_id": "toolu_01",
            "cwd": workspace,
            "permission_mode": "default",
        });
        let run = seal(
            &["hook", "claude-code", "pre-tool-use", "--rules", &rules],
            serde_json::to_string(&input).expect("input").as_bytes(),
            &[("HOME", &home)],
        );
        let answer = run.json()["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .expect("decision")
            .to_owned();
        assert_eq!(
            answer, seen["decision"],
            "{} {}",
            call["tool"], call["input"]
        );
        // Never looser than the client: what the hook allowed, Claude Code alone did not deny.
        if answer == "allow" {
            assert_ne!(by_itself["decision"], "deny", "{}", call["input"]);
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked} calls checked");
    let denied = observed
        .iter()
        .filter(|seen| seen["decision"] == "deny")
        .count();
    assert!(denied >= 12, "{denied} denials recorded");
}
