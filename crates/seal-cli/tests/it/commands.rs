//! `render`, `policy check`, `policy lint` and `doctor` end to end.

use crate::support::{self, fixture, seal, sign_args, TempDir, NOW};

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
        r#"{"tool_name":"Bash","tool_input":{"command":"git push origin main"}}"#,
        false,
    );
    assert_eq!((allow.code, deny.code, ask.code), (0, 11, 12));
    // The destructive-command guard denies before the ask rule; turned off, the rule asks.
    let force = r#"{"tool_name":"Bash","tool_input":{"command":"git push --force origin main"}}"#;
    let guarded = call(force, false);
    assert_eq!(guarded.code, 11);
    assert!(
        guarded.stdout.contains("git-push-force"),
        "{}",
        guarded.stdout
    );
    let unguarded = seal(
        &[
            "policy",
            "check",
            "--rules",
            &rules,
            "--destructive-guard",
            "off",
        ],
        force.as_bytes(),
        &[],
    );
    assert_eq!(unguarded.code, 12);
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

/// `text` with the paths that differ between machines (the crate's folder, the built binary)
/// written `[crate]` and `[seal]`: doctor lists them among the paths it protects.
fn machine_free(text: &str) -> String {
    let mut out = text.to_owned();
    for (path, name) in [
        (env!("CARGO_BIN_EXE_seal"), "[seal]"),
        (env!("CARGO_MANIFEST_DIR"), "[crate]"),
    ] {
        if let Ok(real) = std::fs::canonicalize(path) {
            out = out.replace(&real.display().to_string(), name);
        }
        out = out.replace(path, name);
    }
    out
}

/// A replay state path that does not exist, so doctor's report of it is the same on every run.
const NO_STATE: &str = "/nonexistent-seal-state/replay.sqlite3";

#[test]
fn doctor_reports_the_replay_state() {
    let dir = support::TempDir::new("doctor-state");
    let state = dir.file("replay.sqlite3");
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let hook = seal(
        &[
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--state",
            &state,
            "--now",
            NOW,
        ],
        &support::prompt_input(support::SIGNED_FRAME),
        &[],
    );
    assert_eq!(hook.code, 0, "{}", hook.snapshot());
    let run = seal(
        &["doctor", "--store", &store, "--state", &state, "--now", NOW],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(run.stdout.contains("replay state `"), "{}", run.stdout);
    assert!(run.stdout.contains(": 1 live ids, "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("freshness window 900 s, clock skew 60 s"),
        "{}",
        run.stdout
    );
    // Past the window the id is no longer live.
    let later = seal(
        &[
            "doctor",
            "--store",
            &store,
            "--state",
            &state,
            "--now",
            "1780273000",
        ],
        b"",
        &[],
    );
    assert!(later.stdout.contains(": 0 live ids, "), "{}", later.stdout);
    // A corrupt state is a problem.
    std::fs::write(&state, vec![0x5a; 8192]).unwrap();
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{state}{suffix}"));
    }
    let broken = seal(
        &["doctor", "--store", &store, "--state", &state, "--now", NOW],
        b"",
        &[],
    );
    assert_eq!(broken.code, 14, "{}", broken.snapshot());
    assert!(
        broken.stdout.contains("verification_failed"),
        "{}",
        broken.stdout
    );
}

/// The database of the test server that `doctor_reports_a_redis_replay_state` counts (emptied
/// first; no other test uses it).
const DOCTOR_REDIS_DB: u32 = 7;

#[test]
fn doctor_reports_a_redis_replay_state() {
    let state = support::redis_server::database(DOCTOR_REDIS_DB);
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let doctor = |state: &str| {
        seal(
            &["doctor", "--store", &store, "--state", state, "--now", NOW],
            b"",
            &[],
        )
    };
    let run = doctor(&state);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let line =
        format!("replay state `{state}` (Redis, no password): 0 live ids under `seal:replay:v1:`");
    assert!(run.stdout.contains(&line), "{}", run.stdout);
    let hook = seal(
        &[
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--state",
            &state,
            "--now",
            NOW,
        ],
        &support::prompt_input(support::SIGNED_FRAME),
        &[],
    );
    assert_eq!(hook.code, 0, "{}", hook.snapshot());
    let run = doctor(&state);
    assert!(
        run.stdout
            .contains("(Redis, no password): 1 live ids under"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("freshness window 900 s, clock skew 60 s"),
        "{}",
        run.stdout
    );
    // A password is never shown, and one the server does not take is a problem.
    let with_password = state.replacen("redis://", "redis://:hunter2@", 1);
    let run = doctor(&with_password);
    assert_eq!(run.code, 14, "{}", run.snapshot());
    assert!(!run.stdout.contains("hunter2"), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("`{state}`")), "{}", run.stdout);
    // A server that cannot be reached, and a URL that is not served, are problems.
    let port = support::redis_server::free_port();
    let run = doctor(&format!("redis://127.0.0.1:{port}/0"));
    assert_eq!(run.code, 14, "{}", run.snapshot());
    assert!(run.stdout.contains("cannot connect"), "{}", run.stdout);
    assert!(run.stdout.contains("verification_failed"), "{}", run.stdout);
    let run = doctor("rediss://127.0.0.1:6379/0");
    assert_eq!(run.code, 14, "{}", run.snapshot());
    assert!(run.stdout.contains("TLS"), "{}", run.stdout);
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
        &[("SEAL_STATE", NO_STATE)],
    );
    assert_eq!(healthy.code, 0, "{}", healthy.snapshot());
    insta::assert_snapshot!("doctor_healthy", machine_free(&healthy.snapshot()));

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
        &[("SEAL_STATE", NO_STATE)],
    );
    assert_eq!(expired.code, 14);
    insta::assert_snapshot!("doctor_expired", machine_free(&expired.snapshot()));

    // A deadline the hooks would refuse makes every hook give its failure answer: a problem.
    for bad in ["0", "soon", "3601"] {
        let run = seal(
            &["doctor", "--store", &store, "--now", NOW],
            b"",
            &[("SEAL_DEADLINE", bad)],
        );
        assert_eq!(run.code, 14, "{bad}: {}", run.snapshot());
        assert!(
            run.stdout.contains("error SEAL_DEADLINE="),
            "{}",
            run.stdout
        );
    }
    let run = seal(
        &["doctor", "--store", &store, "--now", NOW],
        b"",
        &[("SEAL_DEADLINE", "5")],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(run.stdout.contains("deadline 5 s"), "{}", run.stdout);
}

/// Compact-profile keys (5-character tags) end to end: `keygen --compact` makes one, `sign`
/// signs with it, the prompt hook verifies with per-conversation subkeys and the replay state
/// (a replay and another conversation alarm), and `doctor` warns about the profile. `--tag-chars`
/// never gives it.
#[test]
fn compact_keys_are_generated_signed_verified_and_reported() {
    let dir = TempDir::new("compact");
    let refused = seal(
        &[
            "keygen",
            "--store",
            &dir.file("s.json"),
            "--keys",
            &dir.file("k.json"),
            "--tag-chars",
            "5",
        ],
        b"",
        &[],
    );
    assert_eq!(refused.code, 2, "{}", refused.snapshot());
    let both = seal(
        &[
            "keygen",
            "--store",
            &dir.file("s.json"),
            "--keys",
            &dir.file("k.json"),
            "--compact",
            "--tag-chars",
            "22",
        ],
        b"",
        &[],
    );
    assert_eq!(both.code, 2, "{}", both.snapshot());

    let store = dir.file("store.json");
    let keys = dir.file("keys.json");
    let made = seal(
        &[
            "keygen",
            "--store",
            &store,
            "--keys",
            &keys,
            "--compact",
            "--now",
            NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let sign = |conversation: &str, id: &str| {
        let run = seal(
            &sign_args(
                &keys,
                "frames-1",
                conversation,
                &["--attr", &format!("id={id}"), "--now", NOW],
            ),
            b"deploy the docs",
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
        run.stdout.trim_end().to_owned()
    };
    let frame = sign("session-1", "m1");
    let sig = seal_test_support::quoted_attribute(&frame, "sig");
    assert_eq!(sig.len(), 5, "{frame}");

    let state = dir.file("replay.sqlite3");
    let hook = |prompt: &str| support::prompt_hook(&store, &keys, &state, &[], prompt).stdout;
    assert!(hook(&frame).contains("\"additionalContext\":\"\""));
    assert!(hook(&frame).contains("replayed_frame"));
    assert!(hook(&sign("session-2", "m2")).contains("bad_signature"));

    let run = seal(
        &[
            "doctor", "--store", &store, "--keys", &keys, "--state", &state, "--now", NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(
        run.stdout.contains("warn  key frames-1: compact profile"),
        "{}",
        run.stdout
    );
}

/// The arguments `policy check` freezes are the lossless canonical bytes of `tool_input`: their
/// SHA-256 is the same on every run, is the digest of exactly those bytes, and tells apart two
/// payloads that differ in the last digit of an integer beyond 2^53.
#[test]
fn frozen_arguments_hash_the_same_on_every_run() {
    let rules = fixture("rules.json");
    let payload = |last: char| {
        format!(
            r#"{{"session_id":"s","cwd":"/home/user/project","permission_mode":"default",
                "hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t",
                "tool_input":{{"command":"git log","timeout":1234567890123456700{last},
                "description":"\ud800 list"}}}}"#
        )
    };
    let digest = |stdin: &str| {
        let run = seal(
            &["policy", "check", "--rules", &rules, "--json"],
            stdin.as_bytes(),
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
        assert_eq!(run.json()["decision"], "allow");
        run.json()["arguments_sha256"].as_str().unwrap().to_owned()
    };
    let first = digest(&payload('0'));
    assert_eq!(first, digest(&payload('0')));
    let canonical =
        br#"{"command":"git log","description":"\ud800 list","timeout":12345678901234567000}"#;
    let expected = ring::digest::digest(&ring::digest::SHA256, canonical);
    let expected: String = expected
        .as_ref()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(first, expected);
    assert_ne!(first, digest(&payload('1')));
}

/// A rule seal cannot interpret loads (the file is not refused) and `seal doctor` and
/// `seal policy lint` name it with its line and column, as they name a misspelt rule list.
#[test]
fn doctor_and_lint_name_uninterpreted_rules() {
    let dir = TempDir::new("uninterpreted");
    let rules = dir.file("rules.json");
    std::fs::write(
        &rules,
        "{\"permissions\": {\n  \"allow\": [\"Bash(git status)\"],\n  \"deny\": [\"Skill(x:*)\"],\n  \"deney\": [\"Bash(rm:*)\"]\n}}",
    )
    .unwrap();
    let doctor = seal(&["doctor", "--rules", &rules], b"", &[]);
    assert!(
        doctor.stdout.contains("rules: line 3, column 12"),
        "{}",
        doctor.snapshot()
    );
    assert!(
        doctor.stdout.contains("Skill(x:*)") && doctor.stdout.contains("not interpreted"),
        "{}",
        doctor.snapshot()
    );
    let lint = seal(&["policy", "lint", "--rules", &rules], b"", &[]);
    assert!(
        lint.stdout.contains("line 3, column 12") && lint.stdout.contains("Skill(x:*)"),
        "{}",
        lint.snapshot()
    );
    // A misspelt list is named, with where it is and what it was likely meant to be.
    for run in [&doctor, &lint] {
        assert!(
            run.stdout.contains(
                "line 4, column 3: member `deney` of `permissions` is not `allow`, `ask` or `deny`: no rule comes from it (did you mean `deny`?)"
            ),
            "{}",
            run.snapshot()
        );
    }
    // The file still decides: the rule it interprets allows.
    let check = seal(
        &["policy", "check", "--rules", &rules],
        br#"{"tool_name":"Bash","tool_input":{"command":"git status"}}"#,
        &[],
    );
    assert_eq!(check.code, 0, "{}", check.snapshot());
}

#[test]
fn policy_recommended_prints_a_rule_file_that_loads_and_guards() {
    let printed = seal(&["policy", "recommended"], b"", &[]);
    assert_eq!(printed.code, 0);
    let dir = support::TempDir::new("recommended");
    let path = dir.file("recommended.json");
    std::fs::write(&path, &printed.stdout).unwrap();
    let path = path.as_str();
    let check = |command: &str| {
        let input = format!(
            r#"{{"tool_name":"Bash","cwd":"/home/dev/project","tool_input":{{"command":{command:?}}}}}"#
        );
        seal(&["policy", "check", "--rules", path], input.as_bytes(), &[]).code
    };
    assert_eq!(check("git status && cargo test"), 0);
    assert_eq!(check("rm -rf build"), 0);
    assert_eq!(check("git push origin main"), 12);
    assert_eq!(check("kubectl delete ns prod"), 11);
    assert_eq!(check("rm -rf ~"), 11);
    let lint = seal(&["policy", "lint", "--rules", path], b"", &[]);
    assert_eq!(lint.code, 0, "{}", lint.stdout);
}
