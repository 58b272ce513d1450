//! `Seal::call_foreign`: a foreign client's arguments frozen exactly (lossless profile), decided
//! by the same rules, and never read as text where they are not text.

use seal::{CallError, Prepared, Seal};

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(git status)", "Edit(./**)", "Write(./**)", "mcp__github__get_issue"],
    "deny": ["Bash(rm:*)"]
}}"#;

fn seal() -> Seal {
    Seal::builder()
        .rules_json(RULES)
        .workspace_root("/ws")
        .build()
        .unwrap()
}

fn decision(seal: &Seal, tool: &str, arguments: &str) -> &'static str {
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call_foreign(&session, "claude-code", "toolu_01", tool, arguments)
        .unwrap();
    match seal.prepare(&call, None) {
        Prepared::Run(_) => "allow",
        Prepared::Deny(_) => "deny",
        Prepared::NeedsApproval(pending) => {
            let _ = pending.cancel();
            "ask"
        }
    }
}

#[test]
fn fields_the_rules_do_not_read_never_decide() {
    let seal = seal();
    for arguments in [
        r#"{"command":"git status","timeout":12345678901234567000}"#,
        r#"{"command":"git status","description":"\ud800 truncated"}"#,
        r#"{"command":"git status","ratio":0.10000000000000001,"n":1e400}"#,
    ] {
        assert_eq!(decision(&seal, "Bash", arguments), "allow", "{arguments}");
    }
    assert_eq!(
        decision(
            &seal,
            "Write",
            r#"{"file_path":"/ws/a.txt","content":"\udc00x\ud83d\ude00"}"#
        ),
        "allow"
    );
    assert_eq!(
        decision(
            &seal,
            "mcp__github__get_issue",
            r#"{"issue":12345678901234567000}"#
        ),
        "allow"
    );
    assert_eq!(
        decision(
            &seal,
            "Bash",
            r#"{"command":"rm -rf /","timeout":12345678901234567000}"#
        ),
        "deny"
    );
}

#[test]
fn a_subject_holding_a_lone_surrogate_is_not_read_as_text() {
    let seal = seal();
    // The command is not text, so no rule with a specifier can allow it; it falls to the ask.
    assert_eq!(
        decision(&seal, "Bash", r#"{"command":"git status\ud800"}"#),
        "ask"
    );
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call_foreign(
            &session,
            "claude-code",
            "c",
            "Bash",
            r#"{"command":"git status\ud800"}"#,
        )
        .unwrap();
    assert_eq!(call.command(), None);
    assert_eq!(call.argument("command"), None);
    assert_eq!(call.arguments_json(), r#"{"command":"git status\ud800"}"#);
}

#[test]
fn frozen_bytes_are_exact_and_digests_tell_the_last_digit_apart() {
    let seal = seal();
    let session = seal.open_session("s1").unwrap();
    let freeze = |arguments: &str| {
        seal.call_foreign(
            &session,
            "claude-code",
            "c",
            "mcp__github__get_issue",
            arguments,
        )
        .unwrap()
        .arguments_json()
        .to_owned()
    };
    let a = freeze(r#"{ "issue": 12345678901234567000, "note": "\uD800" }"#);
    let b = freeze(r#"{ "issue": 12345678901234567001, "note": "\uD800" }"#);
    assert_eq!(a, r#"{"issue":12345678901234567000,"note":"\ud800"}"#);
    assert_ne!(a, b);
    assert_eq!(a, freeze(&a), "freezing is idempotent");
}

#[test]
fn duplicate_keys_are_refused_and_the_strict_entry_is_unchanged() {
    let seal = seal();
    let session = seal.open_session("s1").unwrap();
    let duplicate = r#"{"command":"git status","command":"rm -rf /"}"#;
    let error = seal
        .call_foreign(&session, "claude-code", "c", "Bash", duplicate)
        .unwrap_err();
    assert!(
        matches!(&error, CallError::Arguments(json) if json.to_string().contains("duplicate key")),
        "{error}"
    );
    let big = r#"{"command":"git status","timeout":12345678901234567000}"#;
    let error = seal.call(&session, "a", "c", "Bash", big).unwrap_err();
    assert!(matches!(error, CallError::Arguments { .. }), "{error}");
    // The two entries agree on strict documents.
    let plain = r#"{"command":"git status","timeout":120000}"#;
    let strict = seal.call(&session, "a", "c", "Bash", plain).unwrap();
    let foreign = seal
        .call_foreign(&session, "a", "c", "Bash", plain)
        .unwrap();
    assert_eq!(strict, foreign);
}

#[test]
fn a_write_of_tens_of_mib_is_decided_by_its_rules() {
    // Over the JSON default of 16 MiB, within MAX_LOSSLESS_ARGUMENTS_BYTES.
    let seal = seal();
    let content = "0123456789abcdef\n".repeat(17 * 1024 * 1024 / 17 + 1);
    let arguments = format!(r#"{{"file_path":"/ws/big.txt","content":"{content}\ud800"}}"#)
        .replace('\n', "\\n");
    assert!(arguments.len() > 17 * 1024 * 1024);
    assert_eq!(decision(&seal, "Write", &arguments), "allow");
    let session = seal.open_session("s1").unwrap();
    let too_big = " ".repeat(seal::MAX_LOSSLESS_ARGUMENTS_BYTES) + "{}";
    let error = seal
        .call_foreign(&session, "claude-code", "c", "Write", &too_big)
        .unwrap_err();
    assert!(
        matches!(&error, CallError::Arguments(json) if json.to_string().contains("exceeds the limit")),
        "{error}"
    );
}
