//! `SealBuilder::destructive_guard`: one builder call denies destructive commands before any
//! rule can allow or ask about them, naming the pattern and the path, and leaves the rest to
//! the rules.

use seal::destructive::DestructiveGuard;
use seal::{Prepared, Seal};

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(rm:*)", "Bash(git:*)", "Bash(find:*)"],
    "ask": ["Bash(git push:*)"]
}}"#;

fn seal(guarded: bool) -> Seal {
    let builder = Seal::builder()
        .rules_json(RULES)
        .workspace_root("/home/dev/project");
    let builder = if guarded {
        builder.destructive_guard(DestructiveGuard::new().with_home_dir("/home/dev"))
    } else {
        builder
    };
    builder.build().unwrap()
}

fn decide(seal: &Seal, command: &str) -> (&'static str, String) {
    let session = seal.open_session("s1").unwrap();
    let arguments = format!(r#"{{"command": {command:?}}}"#);
    let call = seal
        .call_foreign(&session, "claude-code", "toolu_01", "Bash", &arguments)
        .unwrap();
    match seal.prepare(&call, None) {
        Prepared::Run(_) => ("allow", String::new()),
        Prepared::Deny(deny) => ("deny", deny.reason().as_str().to_owned()),
        Prepared::NeedsApproval(pending) => {
            let reason = pending.reason().as_str().to_owned();
            let _ = pending.cancel();
            ("ask", reason)
        }
    }
}

#[test]
fn denies_destructive_commands_the_rules_allow_or_ask_about() {
    let guarded = seal(true);
    let (answer, reason) = decide(&guarded, "rm -rf ~/");
    assert_eq!(answer, "deny");
    assert!(reason.contains("rm-outside-workspace"), "{reason}");
    assert!(
        reason.contains("`/home/dev` is the home directory"),
        "{reason}"
    );
    // An ask rule would have let a human approve it; the guard decides first.
    let (answer, reason) = decide(&guarded, "git push --force origin main");
    assert_eq!(answer, "deny");
    assert!(reason.contains("git-push-force"), "{reason}");
    let (answer, _) = decide(&guarded, "git -C . reset --hard");
    assert_eq!(answer, "deny");
}

#[test]
fn leaves_everyday_commands_to_the_rules() {
    let guarded = seal(true);
    assert_eq!(decide(&guarded, "rm -rf build target").0, "allow");
    // The guard passes a deletion in a temporary directory; the rules ask, since an allow
    // stops at the workspace (spec/paths.md).
    assert_eq!(decide(&guarded, "rm -rf /tmp/x").0, "ask");
    // The guard passes it; the rules ask, as for every `find -delete` (spec/policy-rules.md).
    assert_eq!(decide(&guarded, "find . -name '*.o' -delete").0, "ask");
    assert_eq!(decide(&guarded, "git status").0, "allow");
    assert_eq!(decide(&guarded, "git push origin main").0, "ask");
}

#[test]
fn negative_control_without_the_guard_the_rules_allow_them() {
    let plain = seal(false);
    // Without the guard nothing denies: the rules only ask (the path is outside the
    // workspace), and a human could approve it.
    assert_eq!(decide(&plain, "rm -rf ~/").0, "ask");
    assert_eq!(decide(&plain, "git push --force origin main").0, "ask");
}

#[test]
fn the_guard_changes_the_policy_digest() {
    assert_ne!(seal(true).policy_digest(), seal(false).policy_digest());
}
