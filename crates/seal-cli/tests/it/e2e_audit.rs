//! The decision log end to end, replayed: `fixtures/e2e/audit-log.case.json` was run by the real
//! Claude Code 2.1.332 (offline, a mock model making the calls) with the `PreToolUse` hook
//! recording in a log made by `seal audit init` (`${LOG_DIR}` in the case), and
//! `audit-log.claude-code-2.1.332.with-seal.jsonl` is what it did (spec/audit-log.md section 9).
//! This test gives the same calls to the hook as built now, in order, with the log, and checks
//! that each answer is the one Claude Code received, that `seal audit show` lists each call
//! with the rule that decided it, that `seal audit verify` passes, and that after one byte of
//! the log file is changed it names the entry.

use serde_json::Value;

use crate::support::{seal, TempDir};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/e2e/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("fixture")
}

#[test]
fn a_recorded_session_is_logged_shown_verified_and_a_changed_byte_named() {
    let case: Value = serde_json::from_str(&fixture("audit-log.case.json")).expect("case");
    let observed: Vec<Value> = fixture("audit-log.claude-code-2.1.332.with-seal.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect();
    let calls = case["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), observed.len());
    let dir = TempDir::new("e2e-audit");
    let (home, workspace) = (dir.file("home"), dir.file("workspace"));
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let (log, key, rules) = (
        dir.file("audit.db"),
        dir.file("audit.key"),
        dir.file("rules.json"),
    );
    let text = serde_json::to_string(&case["files"]["rules.json"]).expect("rules");
    std::fs::write(&rules, text).expect("rules");
    let env = [("HOME", home.as_str())];
    let init = seal(
        &["audit", "init", "--log", &log, "--log-key", &key],
        b"",
        &env,
    );
    assert_eq!(init.code, 0, "{}", init.stderr);

    let hook = [
        "hook",
        "claude-code",
        "pre-tool-use",
        "--rules",
        &rules,
        "--log",
        &log,
        "--log-key",
        &key,
    ];
    for (index, (call, seen)) in calls.iter().zip(&observed).enumerate() {
        let input = serde_json::to_string(&call["input"])
            .expect("input")
            .replace("${WORKSPACE}", &workspace);
        let payload = serde_json::json!({
            "session_id": "e2e-audit",
            "hook_event_name": "PreToolUse",
            "tool_name": call["tool"],
            "tool_input": serde_json::from_str::<Value>(&input).expect("input"),
            "tool_use_id": format!("toolu_oracle_{index}"),
            "cwd": workspace,
            "permission_mode": "default",
        });
        let run = seal(&hook, payload.to_string().as_bytes(), &env);
        assert_eq!(
            run.json()["hookSpecificOutput"]["permissionDecision"],
            seen["decision"],
            "call {index}"
        );
    }

    let show = seal(&["audit", "show", "--log", &log], b"", &env);
    assert_eq!(show.code, 0, "{}", show.stderr);
    let lines: Vec<&str> = show.stdout.lines().collect();
    assert_eq!(lines.len(), 1 + calls.len(), "{}", show.stdout);
    let want = [
        ("allow", "by=rules: Bash(ls:*)"),
        ("deny", "by=rules: Bash(rm:*)"),
        ("allow", "by=rules: Read"),
        ("ask", "by=rules: Bash(git push:*)"),
        (
            "deny",
            "by=self-protection: self-protection-guard:seal-log-key",
        ),
    ];
    for (index, (decision, by)) in want.iter().enumerate() {
        let line = lines[index + 1];
        assert!(line.starts_with(&format!("#{} ", index + 1)), "{line}");
        assert!(line.contains(&format!("decision={decision}")), "{line}");
        assert!(line.contains(by), "{line}");
        assert!(
            line.contains(&format!("call_id=toolu_oracle_{index}")),
            "{line}"
        );
    }

    let verify = seal(
        &["audit", "verify", "--log", &log, "--log-key", &key],
        b"",
        &env,
    );
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    assert!(verify.stdout.contains("\nok\n"), "{}", verify.stdout);

    // `verify` folded the write-ahead log into the file: change one byte of entry 2 there.
    let mut bytes = std::fs::read(&log).expect("log");
    let needle = b"\"by\":\"rules: Bash(rm:*)\"";
    let at = bytes
        .windows(needle.len())
        .position(|window| window == needle)
        .expect("entry 2 in the file");
    bytes[at + needle.len() - 4] = b'R';
    std::fs::write(&log, bytes).expect("log");
    let broken = seal(
        &["audit", "verify", "--log", &log, "--log-key", &key],
        b"",
        &env,
    );
    assert_eq!(broken.code, 30, "{}", broken.stdout);
    assert!(
        broken
            .stdout
            .contains("BROKEN: entry 2: record edited (it does not hash to its committed leaf)"),
        "{}",
        broken.stdout
    );
}
