//! `seal policy check --explain`: every form of every segment, the model's reading, the
//! payload, the rules and the guard on each, next to an unchanged decision; as text
//! (snapshot) and as JSON.

use crate::support::{self, seal, TempDir};

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(git:*)", "Bash(find:*)", "Bash(ls:*)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(git reset --hard:*)", "Bash(rm -rf:*)"]
}}"#;

const COMMAND: &str = "sudo git -C . reset --ha && find . -exec rm -rf {} +";

fn check(dir: &TempDir, command: &str, extra: &[&str]) -> support::Run {
    let rules = dir.file("rules.json");
    std::fs::write(&rules, RULES).unwrap();
    let mut args = vec![
        "policy",
        "check",
        "--rules",
        rules.as_str(),
        "--cwd",
        "/home/user/project",
    ];
    args.extend_from_slice(extra);
    let call = serde_json::json!({"tool_name": "Bash", "tool_input": {"command": command}});
    seal(
        &args,
        call.to_string().as_bytes(),
        &[("HOME", "/home/user")],
    )
}

#[test]
fn explain_text() {
    let dir = TempDir::new("explain-text");
    let plain = check(&dir, COMMAND, &[]);
    let explained = check(&dir, COMMAND, &["--explain"]);
    assert_eq!(
        (plain.code, explained.code),
        (11, 11),
        "{}",
        explained.snapshot()
    );
    // The decision is the same; the explanation comes after it.
    assert!(
        explained.stdout.starts_with(&plain.stdout),
        "{}",
        explained.stdout
    );
    assert!(explained.stdout.is_ascii());
    let text = &explained.stdout;
    for kind in [
        "canonical (also env_stripped, basename):",
        "wrapper_stripped (also normalized):",
    ] {
        assert!(text.contains(kind), "{text}");
    }
    assert!(
        text.contains("model: git; subcommand reset; options --hard"),
        "{text}"
    );
    assert!(text.contains("payload: rm -rf {}"), "{text}");
    assert!(
        text.contains("rule: deny `Bash(rm -rf:*)` (payload)"),
        "{text}"
    );
    assert!(text.contains("guard: fires `git-reset-hard`"), "{text}");
    insta::assert_snapshot!("explain_text", text);
}

#[test]
fn explain_json() {
    let dir = TempDir::new("explain-json");
    let run = check(&dir, COMMAND, &["--explain", "--json"]);
    assert_eq!(run.code, 11, "{}", run.snapshot());
    let json = run.json();
    assert_eq!(json["decision"], "deny");
    let explain = &json["explain"];
    assert_eq!(explain["command"], true);
    let segments = explain["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 2);
    let forms = segments[0]["forms"].as_array().unwrap();
    assert_eq!(forms[0]["kind"], "canonical");
    assert_eq!(
        forms[0]["also"],
        serde_json::json!(["env_stripped", "basename"])
    );
    assert_eq!(forms[0]["words"][0], "sudo");
    let git = forms
        .iter()
        .find(|form| form["kind"] == "wrapper_stripped")
        .unwrap();
    assert_eq!(git["model"]["program"], "git");
    assert_eq!(git["model"]["options"][0], "--hard");
    assert_eq!(git["rules"][0]["rule"], "Bash(git reset --hard:*)");
    assert_eq!(git["rules"][0]["by"], "model");
    assert_eq!(git["guard"]["pattern"], "git-reset-hard");
    let find = &segments[1]["forms"][0];
    assert_eq!(find["carried"]["payload"][0], "rm");
    let bys: Vec<_> = find["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| {
            (
                rule["effect"].as_str().unwrap(),
                rule["by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(bys, [("allow", "words"), ("deny", "payload")]);
    assert!(explain["rules_decision"]
        .as_str()
        .unwrap()
        .starts_with("deny:"));
    // Without --explain, no member.
    let plain = check(&dir, COMMAND, &["--json"]);
    assert!(plain.json().get("explain").is_none());
}

#[test]
fn explain_off_guard_unanalysable_and_other_tools() {
    let dir = TempDir::new("explain-misc");
    // Guards off: no guard line, the rules still deny (the self-protection guard would deny
    // `find . -exec rm -rf {} +` first: it reaches the project's `.claude/settings.json`).
    let off = check(
        &dir,
        COMMAND,
        &[
            "--explain",
            "--destructive-guard",
            "off",
            "--self-protection",
            "off",
        ],
    );
    assert_eq!(off.code, 11);
    assert!(!off.stdout.contains("guard:"), "{}", off.stdout);
    // Unanalysable: the reason, no segments, and the deny rule on the part seal can read of
    // it (the substitution's body) denies.
    let sub = check(&dir, "ls $(rm -rf t)", &["--explain", "--json"]);
    assert_eq!(sub.code, 11, "{}", sub.snapshot());
    let explain = &sub.json()["explain"];
    assert_eq!(explain["unanalysable"]["code"], "command_substitution");
    assert_eq!(explain["segments"].as_array().unwrap().len(), 0);
    assert_eq!(explain["readable"][0]["rule"], "Bash(rm -rf:*)");
    // One that no rule reaches asks.
    let sub = check(&dir, "ls $(date)", &["--explain", "--json"]);
    assert_eq!(sub.code, 12, "{}", sub.snapshot());
    // An everyday command: allowed, every form shown with no deny.
    let ls = check(&dir, "ls -la", &["--explain"]);
    assert_eq!(ls.code, 0, "{}", ls.snapshot());
    assert!(
        ls.stdout.contains("rule: allow `Bash(ls:*)` (words)"),
        "{}",
        ls.stdout
    );
    assert!(ls.stdout.contains("guard: none"), "{}", ls.stdout);
    // A tool that is not a shell: said so.
    let rules = dir.file("rules.json");
    let read = seal(
        &["policy", "check", "--rules", &rules, "--explain"],
        br#"{"tool_name":"Read","tool_input":{"file_path":"a.txt"}}"#,
        &[],
    );
    assert!(
        read.stdout.contains("no shell command"),
        "{}",
        read.snapshot()
    );
    let read = seal(
        &["policy", "check", "--rules", &rules, "--explain", "--json"],
        br#"{"tool_name":"Read","tool_input":{"file_path":"a.txt","command":"rm -rf /"}}"#,
        &[],
    );
    assert_eq!(
        read.json()["explain"],
        serde_json::json!({"command": false})
    );
}
