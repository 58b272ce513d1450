//! The end-to-end record of spec/cli.md section 6.1 ("Installed, observed"), replayed:
//! `fixtures/e2e/install-claude-code.case.json` was run by the real Claude Code 2.1.332
//! (offline, a mock model making the calls) with the user settings exactly as `seal install
//! claude-code` wrote them, and with those hooks removed by `seal uninstall`; the `.jsonl`
//! files and the skill-line record are what Claude Code did, and the prompt-alarm record is
//! where the prompt hook's alarm reached the model. This test checks that the installer still
//! writes those settings, and that the hooks as built now answer what Claude Code received from
//! them then: Bash calls, skill lines and the prompt.

use crate::support::{seal, TempDir};
use serde_json::{json, Value};

const FAKE_HOME: &str = "/SEALHOME";

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/e2e/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("fixture")
}

fn lines(name: &str) -> Vec<Value> {
    fixture(name)
        .lines()
        .map(|line| serde_json::from_str(line).expect("line"))
        .collect()
}

/// A temporary HOME holding the case's `.seal` files, and a workspace.
struct Machine {
    _dir: TempDir,
    home: String,
    workspace: String,
}

impl Machine {
    fn of(case: &Value) -> Machine {
        let dir = TempDir::new("e2e-install");
        let home = dir.file("home");
        let workspace = dir.file("workspace");
        std::fs::create_dir_all(format!("{home}/.seal")).expect("home");
        std::fs::create_dir_all(&workspace).expect("workspace");
        for name in [".seal/rules.json", ".seal/store.json", ".seal/keys.json"] {
            let text = serde_json::to_string(&case["home_files"][name]).expect("file");
            std::fs::write(format!("{home}/{name}"), text).expect("write");
        }
        Machine {
            _dir: dir,
            home,
            workspace,
        }
    }

    /// The installed command of `event`, with the case's `${HOME}` made this HOME, as words.
    fn command(&self, case: &Value, event: &str) -> Vec<String> {
        let command = case["home_files"][".claude/settings.json"]["hooks"][event][0]["hooks"][0]
            ["command"]
            .as_str()
            .expect("command")
            .replace("${HOME}", &self.home);
        shlex::split(&command).expect("words")
    }

    fn run(&self, words: &[String], input: &Value) -> Value {
        assert_eq!(words[0], "seal");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let run = seal(
            &args,
            serde_json::to_string(input).expect("input").as_bytes(),
            &[("HOME", &self.home)],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
        run.json()["hookSpecificOutput"].clone()
    }
}

#[test]
fn the_installer_still_writes_the_recorded_settings() {
    let case: Value =
        serde_json::from_str(&fixture("install-claude-code.case.json")).expect("case");
    let dir = TempDir::new("e2e-install-settings");
    let settings = dir.file("settings.json");
    let run = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            "~/.seal/rules.json",
            "--store",
            "~/.seal/store.json",
            "--keys",
            "~/.seal/keys.json",
        ],
        b"",
        &[("HOME", FAKE_HOME)],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(&settings)
            .expect("settings")
            .replace(FAKE_HOME, "${HOME}"),
    )
    .expect("json");
    assert_eq!(written, case["home_files"][".claude/settings.json"]);
}

#[test]
fn the_recorded_answers_hold() {
    let case: Value =
        serde_json::from_str(&fixture("install-claude-code.case.json")).expect("case");
    let with_seal = lines("install-claude-code.claude-code-2.1.332.with-seal.jsonl");
    let alone = lines("install-claude-code.claude-code-2.1.332.alone.jsonl");
    let calls = case["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), with_seal.len());
    assert_eq!(calls.len(), alone.len());
    let machine = Machine::of(&case);
    let tool_hook = machine.command(&case, "PreToolUse");
    let mut checked = 0;
    for ((call, seen), by_itself) in calls.iter().zip(&with_seal).zip(&alone) {
        let via = seen["via"].as_str().expect("via");
        assert!(
            via.ends_with("/hook"),
            "every call went through seal's hook: {seen}"
        );
        let input = json!({
            "session_id": "e2e",
            "hook_event_name": "PreToolUse",
            "tool_name": call["tool"],
            "tool_input": call["input"],
            "tool_use_id": "toolu_01",
            "cwd": machine.workspace,
            "permission_mode": "default",
        });
        let answer = machine.run(&tool_hook, &input);
        assert_eq!(answer["permissionDecision"], seen["decision"], "{call}");
        if seen["decision"] != "allow" {
            // Claude Code showed seal's reason.
            let reason = answer["permissionDecisionReason"].as_str().expect("reason");
            assert!(
                seen["text"].as_str().expect("text").contains(reason),
                "{seen}"
            );
        }
        // Never looser than the client: what the hook allowed, Claude Code alone allowed.
        if answer["permissionDecision"] == "allow" {
            assert_eq!(by_itself["decision"], "allow", "{call}");
        }
        checked += 1;
    }
    assert_eq!(checked, 9);

    let skill_hook = machine.command(&case, "PreSkillShellCommand");
    let record: Value = serde_json::from_str(&fixture(
        "install-claude-code.skill-lines.claude-code-2.1.332.json",
    ))
    .expect("skill lines");
    let mut blocked = 0;
    for (skill, seen) in record["with-seal"].as_object().expect("skills") {
        let input = json!({
            "session_id": "e2e",
            "cwd": machine.workspace,
            "permission_mode": "default",
            "hook_event_name": "PreSkillShellCommand",
            "tool_name": "Bash",
            "tool_input": {"command": seen["line"]},
            "tool_use_id": "toolu_oracle_4:preamble-0",
            "command_name": skill,
            "command_source": "projectSettings",
            "invoked_by": "claude",
        });
        let answer = machine.run(&skill_hook, &input);
        assert_eq!(answer["hookEventName"], "PreSkillShellCommand");
        match seen["fate"].as_str() {
            Some("ran") => assert_eq!(answer["permissionDecision"], "allow", "{skill}"),
            Some("blocked") => {
                assert_ne!(answer["permissionDecision"], "allow", "{skill}");
                assert_eq!(
                    answer["permissionDecisionReason"], seen["reason"],
                    "{skill}"
                );
                blocked += 1;
            }
            other => panic!("{skill}: fate {other:?}"),
        }
        // Alone, Claude Code ran every line.
        assert_eq!(record["alone"][skill]["fate"], "ran", "{skill}");
    }
    assert_eq!(blocked, 2);
}

#[test]
fn the_recorded_prompt_alarm_holds() {
    let case: Value =
        serde_json::from_str(&fixture("install-claude-code.prompt-case.json")).expect("case");
    let recorded: Value = serde_json::from_str(&fixture(
        "install-claude-code.prompt-alarm.claude-code-2.1.332.json",
    ))
    .expect("alarm");
    let machine = Machine::of(&case);
    let hook = machine.command(&case, "UserPromptSubmit");
    let input = json!({
        "session_id": "e2e",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": machine.workspace,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": case["prompt"],
    });
    let answer = machine.run(&hook, &input);
    let context = answer["additionalContext"].as_str().expect("context");
    let block = recorded["block"]["text"].as_str().expect("block");
    assert!(context.contains("reason=\"bad_signature\""), "{context}");
    assert_eq!(
        block,
        format!("<system-reminder>\nUserPromptSubmit hook additional context: {context}\n</system-reminder>")
    );
}

/// The Codex record (`fixtures/e2e/install-codex.codex-0.171.json`): Codex 0.171.0 ran the hooks
/// `seal install codex` wrote, after another tool's hook, once reviewed, and skipped them before
/// the review and after the definition changed. The installer still writes that file, and the
/// hook as built now answers each input Codex gave it what Codex acted on then.
#[test]
fn the_recorded_codex_run_holds() {
    let record: Value =
        serde_json::from_str(&fixture("install-codex.codex-0.171.json")).expect("record");
    let dir = TempDir::new("e2e-install-codex");
    let home = dir.file("home");
    let workspace = dir.file("workspace");
    std::fs::create_dir_all(format!("{home}/.seal")).expect("home");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let rules = format!("{home}/.seal/rules.json");
    std::fs::write(&rules, record["rules"].to_string()).expect("rules");
    let placed = |value: &Value| -> String {
        value
            .to_string()
            .replace("${HOME}", &home)
            .replace("${WORKSPACE}", &workspace)
            .replace("${CODEX_HOME}", &format!("{home}/.codex"))
    };

    // The installer writes the recorded file from the recorded one before it.
    let hooks = dir.file("hooks.json");
    std::fs::write(&hooks, placed(&record["hooks_before"])).expect("before");
    let run = seal(
        &[
            "install",
            "codex",
            "--settings",
            &hooks,
            "--rules",
            &rules,
            "--store",
            &format!("{home}/.seal/store.json"),
            "--keys",
            &format!("{home}/.seal/keys.json"),
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).expect("hooks")).expect("json");
    let recorded: Value = serde_json::from_str(&placed(&record["hooks_installed"])).expect("json");
    assert_eq!(written, recorded);

    // Each input Codex gave the reviewed hook, answered as Codex acted on it.
    let command = recorded["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
        .as_str()
        .expect("command");
    let words = shlex::split(command).expect("words");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let calls = record["calls"].as_array().expect("calls");
    let mut blocked = 0;
    for input in record["pre_tool_use_inputs_reviewed"]
        .as_array()
        .expect("inputs")
    {
        let text = placed(input);
        let cmd = input["tool_input"]["command"].as_str().expect("cmd");
        let seen = calls
            .iter()
            .find(|call| call["phase"] == "4-reviewed" && call["cmd"] == cmd)
            .expect("the call's record");
        let run = seal(&args, text.as_bytes(), &[("HOME", &home)]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        if seen["blocked_by_hook"] == true {
            let answer = run.json();
            assert_eq!(
                answer["hookSpecificOutput"]["permissionDecision"], "deny",
                "{cmd}"
            );
            let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .expect("reason");
            assert_eq!(
                seen["tool_output_seen_by_model"],
                format!("Command blocked by PreToolUse hook: {reason}. Command: {cmd}")
            );
            blocked += 1;
        } else {
            assert_eq!(seen["ran"], true);
            assert_eq!(run.stdout, "{}\n", "{cmd}");
        }
        // Unreviewed, and changed since review, Codex ran every call: seal never ran.
        for phase in ["2-unreviewed", "5-changed"] {
            let skipped = calls
                .iter()
                .find(|call| call["phase"] == phase && call["cmd"] == cmd)
                .expect("the call's record");
            assert_eq!(skipped["ran"], true, "{phase} {cmd}");
        }
    }
    assert_eq!(blocked, 3);
}
