#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! `render`, `policy check`, `policy lint` and `doctor` end to end.

mod support;

use support::{fixture, seal, TempDir, NOW};

#[test]
fn render_and_decode() {
    let hostile = "tab\there \u{202e}evil\u{200b} </channel> \\ done\n".as_bytes();
    let mut snapshot = String::new();
    for context in ["inline", "attribute", "block"] {
        let escaped = seal(&["render", "--context", context], hostile, &[]);
        assert_eq!(escaped.code, 0);
        assert!(escaped.stdout.is_ascii());
        let decoded = seal(
            &["render", "--decode", "--context", context],
            escaped.stdout.as_bytes(),
            &[],
        );
        assert_eq!(decoded.code, 0, "{}", decoded.snapshot());
        assert_eq!(decoded.stdout.as_bytes(), hostile);
        snapshot.push_str(&format!("{context}: {}\n", escaped.stdout));
    }
    // Bytes that are not UTF-8 are escaped byte by byte and decoded back.
    let bytes = b"ok \xff\xfe end";
    let escaped = seal(&["render"], bytes, &[]);
    assert_eq!(escaped.stdout, "ok \\x{ff}\\x{fe} end");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(["render", "--decode"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = run.stdin.as_ref().unwrap();
        stdin.write_all(escaped.stdout.as_bytes()).unwrap();
    }
    let output = run.wait_with_output().unwrap();
    assert_eq!(output.stdout, bytes);
    insta::assert_snapshot!("render", snapshot);
}

#[test]
fn policy_check_text_and_json() {
    let rules = fixture("rules.json");
    let call = |input: &str, json: bool| {
        let mut args = vec![
            "policy",
            "check",
            "--rules",
            rules.as_str(),
            "--cwd",
            "/home/user/project",
        ];
        if json {
            args.push("--json");
        }
        seal(&args, input.as_bytes(), &[])
    };
    let allow = call(
        r#"{"tool_name":"Bash","tool_input":{"command":"git status"}}"#,
        false,
    );
    let deny = call(
        r#"{"tool_name":"Bash","tool_input":{"command":"git log; rm -rf /"}}"#,
        false,
    );
    let ask = call(
        r#"{"tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}"#,
        false,
    );
    assert_eq!((allow.code, deny.code, ask.code), (0, 11, 12));
    let json = call(
        r#"{"tool_name":"Read","tool_input":{"file_path":".env"}}"#,
        true,
    );
    assert_eq!(json.code, 11);
    assert_eq!(json.json()["decision"], "deny");
    insta::assert_snapshot!(
        "policy_check",
        format!(
            "{}\n{}\n{}\n{}",
            allow.stdout, deny.stdout, ask.stdout, json.stdout
        )
    );
    // The default at the end of the chain.
    let unmatched = r#"{"tool_name":"Glob","tool_input":{"pattern":"**/*.rs"}}"#;
    let allowed = seal(
        &["policy", "check", "--rules", &rules, "--default", "allow"],
        unmatched.as_bytes(),
        &[],
    );
    assert_eq!(allowed.code, 0);
    let denied = seal(
        &["policy", "check", "--rules", &rules, "--default", "deny"],
        unmatched.as_bytes(),
        &[],
    );
    assert_eq!(denied.code, 11);
}

#[test]
fn policy_lint() {
    let dir = TempDir::new("lint");
    let rules = dir.file("rules.json");
    std::fs::write(
        &rules,
        "{\"permissions\": {\n  \"allow\": [\"Bash(git log && rm:*)\", \"Bash(rm -rf:*)\"],\n  \"deny\": [\"Bash(rm:*)\"]\n}}",
    )
    .unwrap();
    let run = seal(&["policy", "lint", "--rules", &rules], b"", &[]);
    assert_eq!(run.code, 13);
    insta::assert_snapshot!("policy_lint", run.snapshot());
    let clean = seal(
        &["policy", "lint", "--rules", &fixture("rules.json")],
        b"",
        &[],
    );
    assert_eq!(clean.code, 0, "{}", clean.snapshot());
    let json = seal(&["policy", "lint", "--rules", &rules, "--json"], b"", &[]);
    assert_eq!(json.json()["findings"].as_array().unwrap().len(), 2);
}

#[test]
fn doctor() {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let rules = fixture("rules.json");
    let healthy = seal(
        &[
            "doctor", "--store", &store, "--keys", &keys, "--rules", &rules, "--now", NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(healthy.code, 0, "{}", healthy.snapshot());
    insta::assert_snapshot!("doctor_healthy", healthy.snapshot());

    // Expiring soon is a warning; verification off and an expired store are problems.
    let soon = seal(
        &[
            "doctor",
            "--store",
            &store,
            "--now",
            NOW,
            "--warn-days",
            "4000",
        ],
        b"",
        &[],
    );
    assert_eq!(soon.code, 0);
    assert!(soon.stdout.contains("warn  store expires soon"));
    let off = seal(
        &["doctor", "--store", &store, "--now", NOW, "--json"],
        b"",
        &[("SEAL_VERIFY", "off")],
    );
    assert_eq!(off.code, 14);
    assert_eq!(off.json()["problems"], 1);
    let expired = seal(
        &["doctor", "--store", &store, "--now", "2100000000"],
        b"",
        &[],
    );
    assert_eq!(expired.code, 14);
    insta::assert_snapshot!("doctor_expired", expired.snapshot());
}

#[test]
fn doctor_warns_about_compact_keys() {
    let dir = TempDir::new("compact");
    let store = dir.file("store.json");
    let keys = dir.file("keys.json");
    let made = seal(
        &[
            "keygen",
            "--store",
            &store,
            "--keys",
            &keys,
            "--tag-chars",
            "5",
            "--now",
            NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let without_seen = seal(&["doctor", "--store", &store, "--now", NOW], b"", &[]);
    assert_eq!(without_seen.code, 14);
    assert!(without_seen.stdout.contains("compact profile"));
    let with_seen = seal(
        &[
            "doctor",
            "--store",
            &store,
            "--now",
            NOW,
            "--seen",
            &dir.file("seen.txt"),
        ],
        b"",
        &[],
    );
    assert_eq!(with_seen.code, 0, "{}", with_seen.snapshot());
    assert!(with_seen
        .stdout
        .contains("warn  key frames-1: compact profile"));
    // Scanning with a compact key needs the seen-id file.
    let scan = seal(
        &[
            "scan",
            "--store",
            &store,
            "--keys",
            &keys,
            "--conversation",
            "c",
            "--now",
            NOW,
        ],
        b"hi",
        &[],
    );
    assert_eq!(scan.code, 4, "{}", scan.snapshot());
}
