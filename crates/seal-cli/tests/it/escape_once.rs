//! Every character of a reason is escaped exactly once: a rule and a command holding
//! non-ASCII and control characters, through the Claude Code hook's answer and `policy check
//! --json`. The snapshots show the bytes; the checks decode each reason once and find the
//! original characters (text escaped twice would decode to `\u{e9}`, not `é`).

use crate::support::{fixture, seal, tool_input};
use seal::render::{decode, Context};
use serde_json::json;

/// The calls: a denied command (rule and command with `é` and U+0007), an asked one (`ï`),
/// a command that cannot be analysed (a non-ASCII program), and a denied path (U+0001, `é`).
fn calls() -> Vec<(&'static str, &'static str, serde_json::Value, &'static str)> {
    vec![
        (
            "deny_command",
            "Bash",
            json!({"command": "echo 'caf\u{e9}\u{7}' x"}),
            "caf\u{e9}\u{7}",
        ),
        (
            "ask_command",
            "Bash",
            json!({"command": "touch na\u{ef}ve x.txt"}),
            "na\u{ef}ve",
        ),
        (
            "unanalysable",
            "Bash",
            json!({"command": "l\u{e9}s -la"}),
            "l\u{e9}s",
        ),
        (
            "deny_path",
            "Read",
            json!({"file_path": "/ws/x\u{1}\u{e9}"}),
            "x\u{1}\u{e9}",
        ),
    ]
}

fn rules() -> String {
    fixture("escape-once/rules.json")
}

/// `text` decoded once (escape-v1, inline context).
fn decoded(text: &str) -> String {
    decode(text, Context::Inline)
        .expect("escape-v1 text")
        .into_owned()
}

#[test]
fn hook_reasons_are_escaped_once() {
    let rules = rules();
    let mut snapshot = String::new();
    for (name, tool, input, raw) in calls() {
        let mut payload: serde_json::Value =
            serde_json::from_slice(&tool_input(tool, input)).expect("json");
        payload["cwd"] = json!("/ws");
        let bytes = serde_json::to_vec(&payload).expect("json");
        let run = seal(
            &["hook", "claude-code", "pre-tool-use", "--rules", &rules],
            &bytes,
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
        assert!(run.stdout.is_ascii(), "{}", run.stdout);
        let reason = run.json()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .expect("a reason")
            .to_owned();
        assert!(decoded(&reason).contains(raw), "{name}: {reason}");
        snapshot.push_str(&format!("--- {name}\n{}", run.stdout));
    }
    insta::assert_snapshot!("hook_reasons", snapshot);
}

#[test]
fn policy_check_reasons_are_escaped_once() {
    let rules = rules();
    let mut snapshot = String::new();
    for (name, tool, input, raw) in calls() {
        let call = json!({"tool_name": tool, "tool_input": input, "cwd": "/ws"});
        let run = seal(
            &["policy", "check", "--rules", &rules, "--json"],
            &serde_json::to_vec(&call).expect("json"),
            &[],
        );
        assert!(run.stdout.is_ascii(), "{}", run.stdout);
        let answer = run.json();
        for field in ["reason", "rules"] {
            let text = answer[field].as_str().expect("a string");
            assert!(decoded(text).contains(raw), "{name} {field}: {text}");
        }
        if let Some(matched) = answer["matched"].as_str() {
            assert!(decoded(matched).contains(raw), "{name} matched: {matched}");
        }
        snapshot.push_str(&format!("--- {name} (exit {})\n{}", run.code, run.stdout));
    }
    insta::assert_snapshot!("policy_check_reasons", snapshot);
}

/// A program word holding a quote and a backslash: the reason names it escaped once (the
/// backslash doubled by the inline escape, the quote literal), never escaped first by the
/// segmenter's own description and then again for display.
#[test]
fn program_word_with_quote_and_backslash_is_escaped_once() {
    let rules = rules();
    let call = json!({
        "tool_name": "Bash",
        "tool_input": {"command": "'a\"b\\'* x"},
        "cwd": "/ws",
    });
    let run = seal(
        &["policy", "check", "--rules", &rules, "--json"],
        &serde_json::to_vec(&call).expect("json"),
        &[],
    );
    assert!(run.stdout.is_ascii(), "{}", run.stdout);
    let answer = run.json();
    let reason = answer["reason"].as_str().expect("a reason");
    assert_eq!(
        reason,
        "unanalysable at byte 0: glob in program `a\"b\\\\*`"
    );
    assert!(
        decoded(reason).ends_with("glob in program `a\"b\\*`"),
        "{reason}"
    );
    let rules_text = answer["rules"].as_str().expect("a string");
    assert!(
        rules_text.ends_with("glob in program `a\"b\\\\*`"),
        "{rules_text}"
    );
    for step in answer["trace"].as_array().expect("a trace") {
        let step = step.as_str().expect("a string");
        assert!(step.contains("glob in program `a\"b\\\\*`"), "{step}");
    }
}
