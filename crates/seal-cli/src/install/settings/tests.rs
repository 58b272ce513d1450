use super::command::handler;
use super::kept::{check_kept, without_seal};
use super::plan::same;
use super::*;
use crate::install::events;
use crate::install::json_text::parse;

fn wanted() -> Wanted {
    Wanted {
        client: Client::ClaudeCode,
        binary: DEFAULT_BINARY.into(),
        files: Files {
            rules: Some("/r.json".into()),
            ..Files::default()
        },
        timeout: 60,
        approvals: Approvals::Off,
        approval_wait: None,
    }
}

#[test]
fn waiting_hooks_are_written_with_their_wait_and_a_timeout_above_it() {
    let relay = Wanted {
        approvals: Approvals::Relay,
        ..wanted()
    };
    let plan = install(None, &relay).expect("install");
    let root: serde_json::Value = serde_json::from_str(&plan.text).expect("json");
    let handler = &root["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert_eq!(
        handler["command"],
        "seal hook claude-code permission-request --rules /r.json --approval-wait 300"
    );
    assert_eq!(handler["timeout"], 315);
    let notice = &root["hooks"]["PostToolUse"][0]["hooks"][0];
    assert_eq!(notice["command"], "seal hook claude-code post-tool-use");
    // The tool hook is not held in relay mode, and keeps the plain timeout.
    let tool = &root["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        tool["command"],
        "seal hook claude-code pre-tool-use --rules /r.json"
    );
    assert_eq!(tool["timeout"], 60);

    let hold = Wanted {
        approvals: Approvals::Hold,
        approval_wait: Some(30),
        ..wanted()
    };
    let plan = install(None, &hold).expect("install");
    let root: serde_json::Value = serde_json::from_str(&plan.text).expect("json");
    let tool = &root["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        tool["command"],
        "seal hook claude-code pre-tool-use --rules /r.json --wait-approval --approval-wait 30"
    );
    assert_eq!(tool["timeout"], 60);
    assert!(root["hooks"].get("PermissionRequest").is_none());
    let long = Wanted {
        approval_wait: Some(600),
        ..hold
    };
    let plan = install(None, &long).expect("install");
    let root: serde_json::Value = serde_json::from_str(&plan.text).expect("json");
    assert_eq!(root["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 615);
}

#[test]
fn seal_commands_are_read_as_the_shell_splits_them() {
    let read = |text: &str| seal_command(text).map(|c| (c.program, c.client, c.hook));
    let ours = |program: &str, client: &str, hook: &str| {
        Some((program.to_owned(), client.to_owned(), hook.to_owned()))
    };
    assert_eq!(
        read("seal hook codex pre-tool-use"),
        ours("seal", "codex", "pre-tool-use")
    );
    assert_eq!(
        read("A=1 B_2= '/opt/my seal/seal' hook claude-code"),
        ours("/opt/my seal/seal", "claude-code", "")
    );
    for other in [
        "=1 seal hook codex pre-tool-use",
        "1A=1 seal hook codex pre-tool-use",
        "A-B=1 seal hook codex pre-tool-use",
        "seal doctor",
        "seal hook cursor pre-tool-use",
        "dcg hook codex pre-tool-use",
        "seal 'hook",
        "",
    ] {
        assert_eq!(read(other), None, "{other}");
    }
    let command =
        seal_command("seal hook codex pre-tool-use --rules r --deadline=45 --x").expect("seal's");
    assert_eq!(command.flag("--rules"), Some("r"));
    assert_eq!(command.flag("--deadline"), Some("45"));
    assert_eq!(command.flag("--x"), None);
    assert_eq!(command.flag("--store"), None);
}

/// A file with seal's hook as written today and `extra` more seal hooks under the same
/// event.
fn with_extras(extra: usize) -> String {
    let ours = r#"{"matcher": "*", "hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use --rules /r.json", "timeout": 60}]}"#;
    let old =
        r#"{"hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use"}]}"#;
    let mut groups = vec![ours.to_owned()];
    groups.extend(std::iter::repeat(old.to_owned()).take(extra));
    format!("{{\"hooks\": {{\"PreToolUse\": [{}]}}}}", groups.join(", "))
}

#[test]
fn duplicates_are_removed_up_to_the_bound() {
    let plan = install(Some(&with_extras(1)), &wanted()).expect("plan");
    assert!(
        plan.report
            .iter()
            .any(|line| line.starts_with("PreToolUse") && line.contains(" updated ")),
        "{:?}",
        plan.report
    );
    assert_eq!(plan.text.matches("seal hook").count(), 2, "{}", plan.text);
    // PreSkillShellCommand is added (one edit), then one removal per extra.
    assert!(install(Some(&with_extras(MAX_EDITS - 1)), &wanted()).is_ok());
    let refused = install(Some(&with_extras(MAX_EDITS)), &wanted()).expect_err("too many");
    assert!(refused.contains("more than 256"), "{refused}");
    let same = install(Some(&with_extras(0)), &wanted()).expect("plan");
    assert!(
        same.report
            .iter()
            .any(|line| line.starts_with("PreToolUse") && line.contains(" unchanged ")),
        "{:?}",
        same.report
    );
}

#[test]
fn a_seal_hook_sharing_a_group_is_updated_alone() {
    let shared = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}, {"type": "command", "command": "seal hook claude-code pre-tool-use --rules /old.json"}]}]}}"#;
    let plan = install(Some(shared), &wanted()).expect("plan");
    assert!(plan.report[1].contains(" updated "), "{:?}", plan.report);
    let root = parse(&plan.text).expect("json");
    let group = &root
        .get("hooks")
        .expect("hooks")
        .value
        .get("PreToolUse")
        .expect("event")
        .value;
    let group = &group.elements().expect("list")[0];
    assert_eq!(
        group.get("matcher").and_then(|m| m.value.as_str()),
        Some("Bash")
    );
    let handlers = group
        .get("hooks")
        .and_then(|m| m.value.elements())
        .expect("handlers");
    assert_eq!(handlers.len(), 2);
    assert_eq!(
        handlers[0].get("command").and_then(|m| m.value.as_str()),
        Some("audit")
    );
    assert!(same(
        &handlers[1],
        &handler(&wanted(), &events(Client::ClaudeCode)[1])
    ));
    let again = install(Some(&plan.text), &wanted()).expect("plan");
    assert_eq!(again.text, plan.text);
    assert!(
        again.report[1].contains(" unchanged "),
        "{:?}",
        again.report
    );
}

#[test]
fn a_prompt_hook_without_a_store_is_kept_or_not_written() {
    let with_prompt = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "seal hook claude-code user-prompt-submit --store /s.json"}]}]}}"#;
    let plan = install(Some(with_prompt), &wanted()).expect("plan");
    assert!(
        plan.report[0].contains("kept as it is"),
        "{:?}",
        plan.report
    );
    assert!(plan.text.contains("user-prompt-submit --store /s.json"));
    let plan = install(Some("{}"), &wanted()).expect("plan");
    assert!(plan.report[0].contains("not written"), "{:?}", plan.report);
}

#[test]
fn the_kept_check_sees_a_change_outside_seals_hooks() {
    let before = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#;
    let root = parse(before).expect("json");
    let kept = without_seal(before, &root).expect("value");
    assert!(check_kept(before, &kept).is_ok());
    for changed in [
        r#"{"model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
        r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "y"}]}]}}"#,
        r#"{"model": "opus"}"#,
    ] {
        assert!(check_kept(changed, &kept).is_err(), "{changed}");
    }
    let with_seal = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}, {"type": "command", "command": "seal hook claude-code pre-tool-use"}]}], "PreToolUse": [{"hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use"}]}]}}"#;
    assert!(check_kept(with_seal, &kept).is_ok());
}
