//! The hooks fail closed under every fault, shown on the built binary: a forced panic at each
//! point (the `fault-injection` feature), a hang past the deadline, a non-UTF-8 argument, a bad
//! or asked-for-help command line, a missing or unreadable rules file or store, and a closed
//! stdout. A tool hook's only outcomes are the client's deny: a deny answer with exit 0, or
//! exit 2 with the reason on stderr when not even the deny can be written. A prompt hook's only
//! outcome is a `verification_failed` alarm with exit 0 (it never blocks the prompt).

use std::ffi::OsString;

use crate::support::{fixture, prompt_input, seal_with, tool_input, Run, Stdout, TempDir, NOW};
use serde_json::json;

/// Runs `seal args` with `stdin` and `env`; with `close_stdout`, the read end of stdout is
/// closed before the binary writes anything.
fn run(args: &[OsString], stdin: &[u8], env: &[(&str, &str)], close_stdout: bool) -> Run {
    let stdout = if close_stdout {
        Stdout::Closed
    } else {
        Stdout::Read
    };
    run_to(args, stdin, env, stdout)
}

/// As [`run`], with stdout going to `stdout`.
fn run_to(args: &[OsString], stdin: &[u8], env: &[(&str, &str)], stdout: Stdout) -> Run {
    seal_with(None, args, stdin, env, stdout)
}

fn os(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

/// A Bash call the fixture rules allow (`Bash(git log:*)`).
fn allowed_call() -> Vec<u8> {
    tool_input("Bash", json!({"command": "git log --oneline"}))
}

fn tool_args(harness: &str, rules: &str) -> Vec<OsString> {
    os(&["hook", harness, "pre-tool-use", "--rules", rules])
}

fn prompt_args() -> Vec<OsString> {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    os(&[
        "hook",
        "claude-code",
        "user-prompt-submit",
        "--store",
        &store,
        "--keys",
        &keys,
        "--now",
        NOW,
    ])
}

/// The client's deny: exit 0 with one deny answer (Claude Code's shape for both clients), whose
/// reason says the policy check failed and names `cause`.
fn assert_deny(outcome: &Run, cause: &str, label: &str) {
    let context = format!(
        "{label}: exit {}\n--- stdout\n{}\n--- stderr\n{}",
        outcome.code, outcome.stdout, outcome.stderr
    );
    assert_eq!(outcome.code, 0, "{context}");
    assert_eq!(outcome.stdout.lines().count(), 1, "{context}");
    let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).expect(&context);
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse", "{context}");
    assert_eq!(output["permissionDecision"], "deny", "{context}");
    let reason = output["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("policy check failed"), "{context}");
    assert!(
        reason.contains(cause),
        "{label}: reason {reason:?} lacks {cause:?}"
    );
}

/// A prompt hook's failure answer: exit 0 with the `verification_failed` alarm.
fn assert_failure_alarm(outcome: &Run, label: &str) {
    let context = format!(
        "{label}: exit {}\n--- stdout\n{}\n--- stderr\n{}",
        outcome.code, outcome.stdout, outcome.stderr
    );
    assert_eq!(outcome.code, 0, "{context}");
    assert_eq!(outcome.stdout.lines().count(), 1, "{context}");
    let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).expect(&context);
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "UserPromptSubmit", "{context}");
    let alarm = output["additionalContext"].as_str().unwrap();
    assert!(
        alarm.starts_with("<seal-alarm reason=\"verification_failed\">"),
        "{context}"
    );
    assert!(!outcome.stderr.is_empty(), "{label}: no cause on stderr");
}

#[test]
fn an_allowed_call_is_allowed_and_a_clean_prompt_is_clean() {
    // The positive twins: without a fault the same runs allow and answer no alarm, so the
    // denials below come from the faults.
    let rules = fixture("rules.json");
    let outcome = run(
        &tool_args("claude-code", &rules),
        &allowed_call(),
        &[],
        false,
    );
    assert_eq!(outcome.code, 0);
    let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
    let outcome = run(&prompt_args(), &prompt_input("hello"), &[], false);
    assert_eq!(outcome.code, 0);
    let answer: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["additionalContext"], "");
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_at_any_point_denies_the_call() {
    let rules = fixture("rules.json");
    for harness in ["claude-code", "codex"] {
        for point in ["args", "input", "decide", "answer"] {
            let outcome = run(
                &tool_args(harness, &rules),
                &allowed_call(),
                &[("SEAL_FAULT", point)],
                false,
            );
            assert_deny(
                &outcome,
                "internal error",
                &format!("{harness} panic at {point}"),
            );
            assert!(
                outcome.stderr.contains("fault injected"),
                "{harness} {point}: {}",
                outcome.stderr
            );
        }
    }
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_panic_at_any_point_alarms_the_prompt() {
    for point in ["args", "input", "decide", "answer"] {
        let outcome = run(
            &prompt_args(),
            &prompt_input("hello"),
            &[("SEAL_FAULT", point)],
            false,
        );
        assert_failure_alarm(&outcome, &format!("panic at {point}"));
    }
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_hang_past_the_deadline_gives_the_failure_answer() {
    let rules = fixture("rules.json");
    let mut args = tool_args("claude-code", &rules);
    args.extend(os(&["--deadline", "1"]));
    let outcome = run(
        &args,
        &allowed_call(),
        &[("SEAL_FAULT", "hang:decide")],
        false,
    );
    assert_deny(&outcome, "deadline", "hang past the deadline");
    let mut args = prompt_args();
    args.extend(os(&["--deadline", "1"]));
    let outcome = run(
        &args,
        &prompt_input("hello"),
        &[("SEAL_FAULT", "hang:decide")],
        false,
    );
    assert_failure_alarm(&outcome, "prompt hang past the deadline");
}

#[cfg(unix)]
fn not_utf8() -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(vec![b'r', 0xff, b'.', b'j', b's', b'o', b'n'])
}

#[cfg(unix)]
#[test]
fn a_non_utf8_argument_denies_and_alarms() {
    let mut args = os(&["hook", "claude-code", "pre-tool-use", "--rules"]);
    args.push(not_utf8());
    let outcome = run(&args, &allowed_call(), &[], false);
    assert_deny(&outcome, "UTF-8", "non-UTF-8 rules path");
    let mut args = prompt_args();
    args.push(OsString::from("--seen"));
    args.push(not_utf8());
    let outcome = run(&args, &prompt_input("hello"), &[], false);
    assert_failure_alarm(&outcome, "non-UTF-8 seen path");
    // Outside the hooks the same argument is a usage error (exit 2), not a panic.
    let mut args = os(&["policy", "check", "--rules"]);
    args.push(not_utf8());
    let outcome = run(&args, b"{}", &[], false);
    assert_eq!(outcome.code, 2, "{}", outcome.stderr);
    assert!(outcome.stderr.starts_with("seal: "), "{}", outcome.stderr);
}

#[test]
fn a_bad_command_line_denies_and_alarms() {
    let rules = fixture("rules.json");
    let cases: Vec<(Vec<OsString>, &str)> = vec![
        (
            os(&["hook", "claude-code", "pre-tool-use", "--bogus"]),
            "--bogus",
        ),
        (
            os(&["hook", "claude-code", "pre-tool-use", "--rules"]),
            "--rules",
        ),
        (
            os(&[
                "hook",
                "claude-code",
                "pre-tool-use",
                "--rules",
                &rules,
                "--default",
                "maybe",
            ]),
            "maybe",
        ),
        (
            os(&[
                "hook",
                "claude-code",
                "pre-tool-use",
                "--rules",
                &rules,
                "--deadline",
                "0",
            ]),
            "deadline",
        ),
        (
            os(&["hook", "claude-code", "pre-tool-use", "--help"]),
            "help",
        ),
        (
            os(&["hook", "cursor", "pre-tool-use", "--rules", &rules]),
            "cursor",
        ),
        (
            os(&["hook", "codex", "pre-tool-use", "positional"]),
            "positional",
        ),
    ];
    for (args, cause) in cases {
        let outcome = run(&args, &allowed_call(), &[], false);
        assert_deny(&outcome, cause, &format!("{args:?}"));
    }
    let mut help = prompt_args();
    help.push(OsString::from("--help"));
    let mut bogus = prompt_args();
    bogus.push(OsString::from("--bogus"));
    for args in [help, bogus] {
        let outcome = run(&args, &prompt_input("hello"), &[], false);
        assert_failure_alarm(&outcome, &format!("{args:?}"));
    }
}

#[test]
fn a_missing_or_unreadable_rules_file_or_store_denies_and_alarms() {
    let dir = TempDir::new("faults");
    let missing = dir.file("missing.json");
    // A directory cannot be read as a file, whoever runs the test.
    let unreadable = dir.path.to_string_lossy().into_owned();
    for rules in [&missing, &unreadable] {
        let outcome = run(
            &tool_args("claude-code", rules),
            &allowed_call(),
            &[],
            false,
        );
        assert_deny(&outcome, "cannot read rules file", rules);
        let outcome = run(
            &os(&["hook", "claude-code", "pre-tool-use"]),
            &allowed_call(),
            &[("SEAL_RULES", rules.as_str())],
            false,
        );
        assert_deny(&outcome, "cannot read rules file", rules);
    }
    let outcome = run(
        &os(&["hook", "claude-code", "pre-tool-use"]),
        &allowed_call(),
        &[],
        false,
    );
    assert_deny(&outcome, "no rules file", "no rules given");
    for store in [&missing, &unreadable] {
        let outcome = run(
            &os(&[
                "hook",
                "claude-code",
                "user-prompt-submit",
                "--store",
                store,
            ]),
            &prompt_input("hello"),
            &[],
            false,
        );
        assert_failure_alarm(&outcome, store);
    }
}

#[test]
fn a_closed_stdout_refuses_the_call_with_exit_2() {
    let rules = fixture("rules.json");
    for harness in ["claude-code", "codex"] {
        let outcome = run(&tool_args(harness, &rules), &allowed_call(), &[], true);
        assert_eq!(outcome.code, 2, "{harness}: {}", outcome.stderr);
        assert!(
            outcome.stderr.contains("cannot write stdout"),
            "{harness}: {}",
            outcome.stderr
        );
        assert!(outcome.stderr.contains("refused"), "{}", outcome.stderr);
    }
    // A prompt hook never blocks the prompt, not even when its answer cannot be written.
    let outcome = run(&prompt_args(), &prompt_input("hello"), &[], true);
    assert_eq!(outcome.code, 0, "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("cannot write stdout"),
        "{}",
        outcome.stderr
    );
}
