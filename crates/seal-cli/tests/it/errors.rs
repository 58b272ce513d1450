//! Every error path: a one-line message on stderr naming the problem, and the documented exit
//! code (spec/cli.md, "Exit codes"); stdout stays empty.

use crate::support::{fixture, seal, TempDir, NOW};

fn failing(args: &[&str], stdin: &[u8]) -> (i32, String) {
    let run = seal(args, stdin, &[]);
    assert!(run.stderr.starts_with("seal: "), "{}", run.snapshot());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.snapshot());
    assert!(run.stdout.is_empty(), "{}", run.snapshot());
    (run.code, run.stderr)
}

#[test]
fn exit_codes() {
    let dir = TempDir::new("errors");
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let rules = fixture("rules.json");
    let bad_json = dir.file("bad.json");
    std::fs::write(&bad_json, "{\"a\": 1, \"a\": 2}").unwrap();
    let bad_rules = dir.file("bad-rules.json");
    // A structural error (a rule that is not a string): rule text itself always loads.
    std::fs::write(&bad_rules, "{\"permissions\": {\"allow\": [7]}}").unwrap();
    let existing = dir.file("existing.json");
    std::fs::write(&existing, "x").unwrap();
    let expired_now = "2100000000";
    let new_keys = dir.file("k.json");
    let zero_hash = "0".repeat(64);

    let cases: Vec<(&str, Vec<&str>, &[u8], i32)> = vec![
        ("no command", vec![], b"", 2),
        ("unknown command", vec!["frobnicate"], b"", 2),
        ("unknown flag", vec!["scan", "--bogus"], b"", 2),
        ("hook without event", vec!["hook", "codex"], b"", 2),
        ("policy without subcommand", vec!["policy"], b"", 2),
        ("unknown harness", vec!["hook", "cursor", "stop"], b"", 2),
        ("missing flag", vec!["sign", "--keys", &keys], b"", 2),
        (
            "flag twice",
            vec!["render", "--context", "block", "--context", "inline"],
            b"",
            2,
        ),
        ("bad context", vec!["render", "--context", "html"], b"", 2),
        (
            "bad now",
            vec!["doctor", "--store", &store, "--now", "yesterday"],
            b"",
            2,
        ),
        (
            "unknown policy subcommand",
            vec!["policy", "explain"],
            b"",
            2,
        ),
        (
            "unknown hook event",
            vec!["hook", "claude-code", "stop"],
            b"",
            2,
        ),
        (
            "bad attr",
            vec![
                "sign",
                "--keys",
                &keys,
                "--key-id",
                "test-frames",
                "--conversation",
                "c",
                "--attr",
                "novalue",
            ],
            b"x",
            2,
        ),
        (
            "bad default",
            vec!["policy", "check", "--rules", &rules, "--default", "maybe"],
            b"{}",
            2,
        ),
        (
            "stdin not UTF-8",
            vec![
                "scan",
                "--store",
                &store,
                "--conversation",
                "c",
                "--now",
                NOW,
            ],
            b"\xff\xfe",
            3,
        ),
        (
            "call not JSON",
            vec!["policy", "check", "--rules", &rules],
            b"{\"tool_name\": ",
            3,
        ),
        (
            "call duplicate key",
            vec!["policy", "check", "--rules", &rules],
            b"{\"tool_name\":\"Bash\",\"tool_name\":\"Read\",\"tool_input\":{}}",
            3,
        ),
        (
            "call without tool_input",
            vec!["policy", "check", "--rules", &rules],
            b"{\"tool_name\":\"Bash\"}",
            3,
        ),
        (
            "store not JSON",
            vec!["scan", "--store", &bad_json, "--conversation", "c"],
            b"hi",
            4,
        ),
        (
            "store missing",
            vec![
                "scan",
                "--store",
                "/nonexistent/store.json",
                "--conversation",
                "c",
            ],
            b"hi",
            3,
        ),
        (
            "store expired",
            vec![
                "scan",
                "--store",
                &store,
                "--conversation",
                "c",
                "--now",
                expired_now,
            ],
            b"hi",
            4,
        ),
        (
            "key file not a key file",
            vec![
                "sign",
                "--keys",
                &store,
                "--key-id",
                "k",
                "--conversation",
                "c",
            ],
            b"x",
            4,
        ),
        (
            "unknown key id",
            vec![
                "sign",
                "--keys",
                &keys,
                "--key-id",
                "nope",
                "--conversation",
                "c",
            ],
            b"x",
            4,
        ),
        (
            "key file for another store",
            vec![
                "scan",
                "--store",
                &store,
                "--keys",
                &bad_json,
                "--conversation",
                "c",
            ],
            b"x",
            4,
        ),
        (
            "rules do not load",
            vec!["policy", "lint", "--rules", &bad_rules],
            b"",
            5,
        ),
        (
            "rules missing",
            vec!["policy", "check", "--rules", "/nonexistent/rules.json"],
            b"{}",
            5,
        ),
        (
            "keygen over existing",
            vec!["keygen", "--store", &existing, "--keys", &new_keys],
            b"",
            6,
        ),
        (
            "decode refused",
            vec!["render", "--decode", "--context", "inline"],
            b"\\u{41}",
            7,
        ),
        (
            "manifest unreadable",
            vec![
                "manifest",
                "verify",
                "--description",
                &bad_json,
                "--manifest",
                &bad_json,
                "--approved",
                &zero_hash,
            ],
            b"",
            3,
        ),
        (
            "manifest verify without the approval",
            vec![
                "manifest",
                "verify",
                "--description",
                &bad_json,
                "--manifest",
                &bad_json,
            ],
            b"",
            2,
        ),
    ];
    let mut snapshot = String::new();
    for (name, args, stdin, expected) in cases {
        let (code, stderr) = failing(&args, stdin);
        assert_eq!(code, expected, "{name}: {stderr}");
        let stderr = stderr
            .replace(&dir.path.to_string_lossy().into_owned(), "<tmp>")
            .replace(&fixture(""), "<fixtures>/");
        snapshot.push_str(&format!("{name}: exit {code}: {stderr}"));
    }
    insta::assert_snapshot!("exit_codes", snapshot);
    // Nothing was written by the failing keygen.
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "x");
    assert!(!std::path::Path::new(&new_keys).exists());
}

#[test]
fn every_command_has_help() {
    for args in [
        &["--help"][..],
        &["help"],
        &["help", "policy", "check"],
        &["keygen", "--help"],
        &["sign", "--help"],
        &["scan", "--help"],
        &["render", "--help"],
        &["manifest", "--help"],
        &["manifest", "seal", "--help"],
        &["manifest", "approve", "--help"],
        &["manifest", "verify", "--help"],
        &["policy", "--help"],
        &["policy", "check", "--help"],
        &["policy", "lint", "--help"],
        &["store", "--help"],
        &["store", "sign", "--help"],
        &["store", "rotate", "--help"],
        &["doctor", "--help"],
        &["demo", "--help"],
        &["completions", "--help"],
        &["hook", "--help"],
        &["hook", "claude-code", "--help"],
        &["hook", "codex", "--help"],
        &["help", "hook", "claude-code", "pre-tool-use"],
        &["help", "hook", "claude-code", "pre-skill-shell-command"],
        &["install", "--help"],
        &["uninstall", "--help"],
    ] {
        let run = seal(args, b"", &[]);
        assert_eq!(run.code, 0, "{args:?}: {}", run.snapshot());
        assert!(run.stdout.contains("Usage: seal"), "{args:?}");
        assert!(run.stdout.is_ascii());
        assert!(run.stdout.lines().all(|line| line.len() <= 80), "{args:?}");
        assert!(run.stderr.is_empty(), "{args:?}");
    }
    insta::assert_snapshot!("help", seal(&["--help"], b"", &[]).stdout);
}

/// Inside a hook, `--help` is not a run: the help goes to stderr and stdout carries the hook's
/// failure answer (a deny for a tool hook, the verification_failed alarm for a prompt hook).
#[test]
fn a_hook_given_help_prints_it_on_stderr_and_answers_its_failure() {
    for (args, failure) in [
        (
            &["hook", "claude-code", "pre-tool-use", "--help"][..],
            "\"permissionDecision\":\"deny\"",
        ),
        (
            &["hook", "codex", "pre-tool-use", "-h"],
            "\"permissionDecision\":\"deny\"",
        ),
        (
            &["hook", "claude-code", "user-prompt-submit", "--help"],
            "verification_failed",
        ),
    ] {
        let run = seal(args, b"", &[]);
        assert_eq!(run.code, 0, "{args:?}: {}", run.snapshot());
        assert!(run.stdout.contains(failure), "{args:?}: {}", run.snapshot());
        assert!(run.stderr.contains("Usage: seal hook"), "{args:?}");
    }
}

#[test]
fn completions_and_version() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = seal(&["completions", shell], b"", &[]);
        assert_eq!(run.code, 0, "{shell}: {}", run.snapshot());
        assert!(run.stdout.contains("seal"), "{shell}");
        assert!(run.stdout.contains("pre-tool-use"), "{shell}");
    }
    let run = seal(&["completions", "tcsh"], b"", &[]);
    assert_eq!(run.code, 2, "{}", run.snapshot());
    let run = seal(&["--version"], b"", &[]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, format!("seal {}\n", env!("CARGO_PKG_VERSION")));
}

/// A mistyped command or flag gets a "did you mean" tip on its one line.
#[test]
fn typos_get_a_tip() {
    for (args, tip) in [
        (&["polcy", "check"][..], "'policy'"),
        (&["policy", "chek"], "'check'"),
        (&["scan", "--conversaton", "c"], "'--conversation'"),
    ] {
        let (code, stderr) = failing(args, b"");
        assert_eq!(code, 2, "{args:?}");
        assert!(
            stderr.contains("tip:") && stderr.contains(tip),
            "{args:?}: {stderr}"
        );
    }
}
