//! Real Claude Code 2.1 payload shapes through the built binary: hook input is read with the
//! lossless JSON profile (spec/canonical-json.md section 12), so an integer beyond 2^53 or a
//! lone surrogate escape in a field the rules do not read never turns an allowed call into a
//! deny, `seal policy check` decides the same call the same way, and a duplicate key still
//! denies.

use crate::support::{self, fixture, seal, NOW};

/// A `PreToolUse` payload as Claude Code 2.1 writes it, as raw JSON text (so that it can hold
/// what serde_json would not write: lone surrogate escapes, integers as the client spelled
/// them). `extra` is spliced in as further top-level members.
fn pre_tool_use(tool_name: &str, tool_input: &str, extra: &str) -> Vec<u8> {
    format!(
        r#"{{"session_id":"0b8e2f4c-6a1d-4f57-9c3e-2d7a5b1e9f04","transcript_path":"/home/user/.claude/projects/-home-user-project/0b8e2f4c-6a1d-4f57-9c3e-2d7a5b1e9f04.jsonl","cwd":"/home/user/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"{tool_name}","tool_input":{tool_input},"tool_use_id":"toolu_01Xq7Z9mKp3RvT2sLw8YbN4c"{extra}}}"#
    )
    .into_bytes()
}

fn hook(input: &[u8]) -> support::Run {
    let rules = fixture("rules.json");
    seal(
        &["hook", "claude-code", "pre-tool-use", "--rules", &rules],
        input,
        &[],
    )
}

fn check(input: &[u8]) -> support::Run {
    let rules = fixture("rules.json");
    seal(
        &["policy", "check", "--rules", &rules, "--json"],
        input,
        &[],
    )
}

/// The hook's decision, after checking the answer's shape.
fn decision(run: &support::Run) -> String {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = run.json();
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    output["permissionDecision"].as_str().unwrap().to_owned()
}

/// The hook allows the call and `policy check --json` gives the same decision.
fn allowed_by_both(input: &[u8]) {
    let run = hook(input);
    assert_eq!(
        decision(&run),
        "allow",
        "{}\n{}",
        String::from_utf8_lossy(input),
        run.stdout
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let checked = check(input);
    assert_eq!(checked.code, 0, "{}", checked.stderr);
    assert_eq!(checked.json()["decision"], "allow", "{}", checked.stdout);
}

#[test]
fn an_integer_beyond_2_53_in_another_field_is_allowed() {
    // In a field of tool_input the rules do not read, and at the top level of the payload.
    allowed_by_both(&pre_tool_use(
        "Bash",
        r#"{"command":"git status","timeout":12345678901234567000}"#,
        "",
    ));
    allowed_by_both(&pre_tool_use(
        "Bash",
        r#"{"command":"git status","description":"Show working tree status"}"#,
        r#","request_seq":12345678901234567000,"ratio":0.10000000000000001,"limit":1e400"#,
    ));
    allowed_by_both(&pre_tool_use(
        "Read",
        r#"{"file_path":"/home/user/project/src/main.rs","offset":-9007199254740993,"limit":2000}"#,
        "",
    ));
}

#[test]
fn a_lone_surrogate_in_another_field_is_allowed() {
    allowed_by_both(&pre_tool_use(
        "Bash",
        r#"{"command":"git status","description":"Show status \ud83d"}"#,
        "",
    ));
    allowed_by_both(&pre_tool_use(
        "Read",
        r#"{"file_path":"/home/user/project/src/main.rs"}"#,
        r#","prompt_excerpt":"\udc00x\ud83d\ude00","note":"\uD800""#,
    ));
    allowed_by_both(&pre_tool_use(
        "mcp__github__get_issue",
        r#"{"owner":"o","repo":"r","issue_number":12345678901234567000,"title":"\ud800"}"#,
        "",
    ));
}

#[test]
fn the_hook_and_policy_check_decide_alike() {
    // Deny and ask as well: the lossless reading changes no decision the rules make.
    for (input, expected) in [
        (
            pre_tool_use(
                "Bash",
                r#"{"command":"rm -rf build","timeout":12345678901234567000}"#,
                "",
            ),
            "deny",
        ),
        (
            pre_tool_use(
                "Bash",
                r#"{"command":"git push origin main","description":"\ud800"}"#,
                "",
            ),
            "ask",
        ),
        (
            pre_tool_use(
                "Write",
                r#"{"file_path":"/home/user/project/.git/config","content":"\udfff"}"#,
                "",
            ),
            "deny",
        ),
    ] {
        assert_eq!(decision(&hook(&input)), expected);
        let checked = check(&input);
        assert_eq!(checked.json()["decision"], expected, "{}", checked.stdout);
    }
}

#[test]
fn a_lone_surrogate_in_the_command_is_not_read_as_text() {
    // The rules cannot read the command, so no allow rule matches it: it is asked, never
    // allowed, and never matched against a repaired version.
    let input = pre_tool_use("Bash", r#"{"command":"git status\ud800"}"#, "");
    assert_eq!(decision(&hook(&input)), "ask");
    assert_eq!(check(&input).json()["decision"], "ask");
}

#[test]
fn a_duplicate_key_in_tool_input_still_denies() {
    for tool_input in [
        r#"{"command":"git status","command":"rm -rf /"}"#,
        r#"{"command":"git status","timeout":1,"\u0074imeout":12345678901234567000}"#,
    ] {
        let input = pre_tool_use("Bash", tool_input, "");
        let run = hook(&input);
        assert_eq!(decision(&run), "deny");
        let reason = run.json()["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(reason.contains("duplicate key"), "{reason}");
        let checked = check(&input);
        assert_ne!(checked.code, 0);
        assert!(checked.stdout.is_empty(), "{}", checked.stdout);
        assert!(
            checked.stderr.contains("duplicate key"),
            "{}",
            checked.stderr
        );
    }
}

#[test]
fn a_duplicate_key_elsewhere_in_the_payload_still_denies() {
    let input = pre_tool_use("Bash", r#"{"command":"git status"}"#, r#","cwd":"/tmp""#);
    assert_eq!(decision(&hook(&input)), "deny");
}

#[test]
fn codex_allows_the_same_call_without_a_decision() {
    let rules = fixture("rules.json");
    let input = pre_tool_use(
        "Bash",
        r#"{"command":"git status","timeout":12345678901234567000,"description":"\ud800"}"#,
        "",
    );
    let run = seal(
        &["hook", "codex", "pre-tool-use", "--rules", &rules],
        &input,
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json(), serde_json::json!({}), "{}", run.stdout);
}

#[test]
fn prompt_hook_reads_its_payload_losslessly() {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let input = br#"{"session_id":"session-1","transcript_path":"/home/user/.claude/projects/demo/session-1.jsonl","cwd":"/home/user/project","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"hello","prompt_seq":12345678901234567000,"draft":"\ud800"}"#;
    let run = seal(
        &[
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--now",
            NOW,
        ],
        input,
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let context = run.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(context, "", "{}", run.stderr);
}

#[test]
fn a_write_over_the_json_default_of_16_mib_is_decided_by_its_rules() {
    // The hook reads up to 64 MiB; the payload reader and the frozen arguments take as much.
    let content = "0123456789abcdef\\n".repeat(20 * 1024 * 1024 / 18 + 1);
    let allowed = pre_tool_use(
        "Read",
        &format!(r#"{{"file_path":"/home/user/project/src/big.rs","content":"{content}\ud800"}}"#),
        "",
    );
    assert!(allowed.len() > 20 * 1024 * 1024);
    assert_eq!(decision(&hook(&allowed)), "allow");
    let denied = pre_tool_use(
        "Write",
        &format!(r#"{{"file_path":"/home/user/project/.git/config","content":"{content}"}}"#),
        "",
    );
    assert_eq!(decision(&hook(&denied)), "deny");
}
