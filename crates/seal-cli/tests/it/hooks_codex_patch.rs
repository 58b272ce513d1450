//! `seal hook codex pre-tool-use` on Codex `apply_patch` calls (spec/apply-patch.md), through the
//! built binary: every path of the patch is decided as an `Edit`; any deny denies, any ask
//! denies (Codex cannot ask), and a patch seal cannot read is denied. The patches are the
//! fixtures under tests/fixtures/codex-patches, the payload has the fields Codex sends.

use crate::support::{self, fixture, seal};
use serde_json::json;

const CWD: &str = "/home/user/project";

fn patch(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("codex-patches/{name}"))).expect("fixture")
}

fn payload(tool_input: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "019a0000-0000-7000-8000-000000000001",
        "transcript_path": null,
        "cwd": CWD,
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "turn_id": "turn-1",
        "permission_mode": "default",
        "tool_name": "apply_patch",
        "tool_input": tool_input,
        "tool_use_id": "call_patch_1",
    }))
    .unwrap()
}

fn hook_with(rules: &str, input: &[u8], extra: &[&str]) -> support::Run {
    let mut args = vec!["hook", "codex", "pre-tool-use", "--rules", rules];
    args.extend_from_slice(extra);
    seal(&args, input, &[])
}

fn hook(command: &str) -> support::Run {
    let rules = fixture("codex-patches/rules.json");
    hook_with(&rules, &payload(json!({"command": command})), &[])
}

/// Asserts the run allowed: exit 0 and Codex's allow answer `{}`.
fn allowed(run: &support::Run) {
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert_eq!(run.stdout, "{}\n", "{}", run.snapshot());
}

/// Asserts the run denied, and returns the reason.
fn denied(run: &support::Run) -> String {
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let answer = run.json();
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    assert_eq!(output["permissionDecision"], "deny", "{}", run.snapshot());
    let reason = output["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.is_ascii());
    reason
}

#[test]
fn patches_inside_the_allowed_paths_are_allowed() {
    for name in ["add-src.patch", "update-move.patch", "delete.patch"] {
        allowed(&hook(&patch(name)));
    }
}

#[test]
fn a_patch_touching_git_config_is_denied() {
    let reason = denied(&hook(&patch("git-config.patch")));
    assert!(
        reason.contains("`.git/config` (update, patch line 2)"),
        "{reason}"
    );
    assert!(reason.contains("rule `Edit(./.git/**)`"), "{reason}");
}

#[test]
fn the_destination_of_a_move_is_decided() {
    let reason = denied(&hook(&patch("move-into-git.patch")));
    assert!(
        reason.contains("`.git/hooks/pre-commit` (move destination, patch line 3)"),
        "{reason}"
    );
}

#[test]
fn one_denied_path_among_many_denies_the_patch() {
    let reason = denied(&hook(&patch("many-files.patch")));
    assert!(reason.contains("`.env` (add"), "{reason}");
    // The secret-read guard stands before the rules: an edit of a `.env` file shows its lines.
    assert!(reason.contains("rule `secret-guard:dotenv`"), "{reason}");
    let rules = fixture("codex-patches/rules.json");
    let input = payload(json!({"command": patch("many-files.patch")}));
    let rules_only = denied(&hook_with(&rules, &input, &["--secret-guard", "off"]));
    assert!(rules_only.contains("rule `Edit(./.env)`"), "{rules_only}");
}

#[test]
fn dot_dot_is_resolved_before_the_rules_see_it() {
    let reason = denied(&hook(&patch("dot-dot.patch")));
    assert!(reason.contains("rule `Edit(./.git/**)`"), "{reason}");
}

#[test]
fn absolute_paths_are_decided_as_written() {
    let inside = format!("*** Begin Patch\n*** Add File: {CWD}/src/x.rs\n+x\n*** End Patch\n");
    allowed(&hook(&inside));
    let git = format!("*** Begin Patch\n*** Delete File: {CWD}/.git/index\n*** End Patch\n");
    assert!(denied(&hook(&git)).contains("rule `Edit(./.git/**)`"));
    let outside = "*** Begin Patch\n*** Add File: /etc/cron.d/x\n+x\n*** End Patch\n";
    assert!(denied(&hook(outside)).contains("approval needed for `/etc/cron.d/x`"));
}

#[test]
fn a_path_no_rule_covers_needs_approval_so_codex_denies() {
    // With `--default ask`; by default (`client`) what no rule decides is Codex's to decide.
    let rules = fixture("codex-patches/rules.json");
    let input = payload(json!({"command": patch("outside-rules.patch")}));
    allowed(&hook_with(&rules, &input, &[]));
    let reason = denied(&hook_with(&rules, &input, &["--default", "ask"]));
    assert!(
        reason.contains("approval needed for `README.md` (update, patch line 2)"),
        "{reason}"
    );
    assert!(reason.contains("Codex hooks cannot ask"), "{reason}");
}

#[test]
fn crlf_patches_are_read_as_codex_reads_them() {
    let crlf = patch("git-config.patch").replace('\n', "\r\n");
    assert!(denied(&hook(&crlf)).contains("`.git/config`"));
    let crlf = patch("add-src.patch").replace('\n', "\r\n");
    allowed(&hook(&crlf));
}

#[test]
fn malformed_patches_are_denied_naming_the_problem() {
    let cases = [
        (
            "malformed-move-without-update.patch",
            "line 4: `*** Move to:` does not directly follow",
        ),
        (
            "malformed-no-envelope.patch",
            "line 1: the patch does not start with `*** Begin Patch`",
        ),
        (
            "malformed-second-begin.patch",
            "line 4: a second `*** Begin Patch`",
        ),
        (
            "malformed-text-after-end.patch",
            "line 4: text follows `*** End Patch`",
        ),
        (
            "malformed-heredoc.patch",
            "line 1: the patch does not start",
        ),
        (
            "malformed-indented-header.patch",
            "line 3: expected a file header",
        ),
        (
            "malformed-unknown-marker.patch",
            "line 2: unknown `***` line",
        ),
    ];
    for (name, problem) in cases {
        let reason = denied(&hook(&patch(name)));
        assert!(
            reason.starts_with("seal: apply_patch denied: the patch cannot be read: "),
            "{name}: {reason}"
        );
        assert!(reason.contains(problem), "{name}: {reason}");
    }
    let reason = denied(&hook("*** Begin Patch\n*** Add File: a\0b\n*** End Patch"));
    assert!(
        reason.contains("line 2: path holds a control character"),
        "{reason}"
    );
}

#[test]
fn only_the_command_shape_is_read() {
    let rules = fixture("codex-patches/rules.json");
    let text = patch("add-src.patch");
    for input in [
        json!({"input": text}),
        json!({"patch": text}),
        json!({"command": text, "workdir": "/"}),
        json!({"command": ["apply_patch", text]}),
        json!({}),
    ] {
        let reason = denied(&hook_with(&rules, &payload(input.clone()), &[]));
        assert!(
            reason.starts_with("seal: apply_patch denied: `tool_input"),
            "{input}: {reason}"
        );
    }
    let lone = br#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"\ud800"}}"#;
    assert!(denied(&hook_with(&rules, lone, &[])).contains("lone surrogate"));
}

fn rules_file(dir: &support::TempDir, text: &str) -> String {
    let path = dir.file("rules.json");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn rules_on_apply_patch_by_name_apply_as_well() {
    let dir = support::TempDir::new("codex-patch-by-name");
    let add = payload(json!({"command": patch("add-src.patch")}));
    // A deny by name denies even a patch every path rule allows.
    let deny = rules_file(
        &dir,
        r#"{"permissions": {"allow": ["Edit(./src/**)"], "deny": ["apply_patch"]}}"#,
    );
    assert!(denied(&hook_with(&deny, &add, &[])).contains("rule `apply_patch`"));
    // An ask by name is an ask, so Codex denies.
    let ask = rules_file(
        &dir,
        r#"{"permissions": {"allow": ["Edit(./src/**)"], "ask": ["apply_patch"]}}"#,
    );
    assert!(denied(&hook_with(&ask, &add, &[])).contains("Codex hooks cannot ask"));
    // An allow by name is the default for paths no rule decides; a deny on a path still wins.
    let allow = rules_file(
        &dir,
        r#"{"permissions": {"allow": ["apply_patch"], "deny": ["Edit(./.git/**)"]}}"#,
    );
    allowed(&hook_with(
        &allow,
        &payload(json!({"command": patch("outside-rules.patch")})),
        &[],
    ));
    let git = payload(json!({"command": patch("git-config.patch")}));
    assert!(denied(&hook_with(&allow, &git, &[])).contains("rule `Edit(./.git/**)`"));
    // The malformed patch is denied whatever the name rules say.
    let bad = payload(json!({"command": patch("malformed-second-begin.patch")}));
    assert!(denied(&hook_with(&allow, &bad, &[])).contains("cannot be read"));
}

#[test]
fn the_default_decides_paths_no_rule_covers() {
    let rules = fixture("codex-patches/rules.json");
    let readme = payload(json!({"command": patch("outside-rules.patch")}));
    allowed(&hook_with(&rules, &readme, &["--default", "allow"]));
    assert!(!denied(&hook_with(&rules, &readme, &["--default", "deny"])).contains("approval"));
    // Under `--default deny`, covered paths are still allowed: the name-level default does
    // not apply to the whole patch.
    let src = payload(json!({"command": patch("add-src.patch")}));
    allowed(&hook_with(&rules, &src, &["--default", "deny"]));
    let git = payload(json!({"command": patch("git-config.patch")}));
    assert!(denied(&hook_with(&rules, &git, &["--default", "allow"])).contains("`.git/config`"));
}

#[test]
fn an_empty_patch_touches_nothing() {
    allowed(&hook("*** Begin Patch\n*** End Patch\n"));
}

#[test]
fn the_claude_code_hook_is_unchanged() {
    // Claude Code has no `apply_patch` tool; a call by that name is decided as it is.
    let rules = fixture("codex-patches/rules.json");
    let input = payload(json!({"command": patch("git-config.patch")}));
    let run = seal(
        &["hook", "claude-code", "pre-tool-use", "--rules", &rules],
        &input,
        &[],
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.json()["hookSpecificOutput"]["permissionDecision"],
        "ask"
    );
}

#[test]
fn the_path_limit_is_a_deny_and_a_full_patch_is_decided() {
    let full: String = (0..512)
        .map(|i| format!("*** Delete File: src/f{i}.rs\n"))
        .collect();
    // Every one of the 512 paths is decided, within the hook's deadline (else it would deny).
    allowed(&hook(&format!("*** Begin Patch\n{full}*** End Patch\n")));
    let over = format!("*** Begin Patch\n{full}*** Delete File: .env\n*** End Patch\n");
    let reason = denied(&hook(&over));
    assert!(
        reason.contains("line 514: patch touches more than 512 paths"),
        "{reason}"
    );
}
