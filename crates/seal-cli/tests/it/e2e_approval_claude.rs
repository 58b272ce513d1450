//! The Claude Code record of the relay (`fixtures/e2e/approval-relay.claude-code-2.1.332.json`):
//! Claude Code 2.1.332, offline, with `seal serve` and a person answering on the panel. Each
//! recorded hook input is replayed through today's binary against a scripted server that gives
//! the panel's recorded answer: the relay must answer as it did then, and what the client did
//! with that answer (recorded) must be what the answer means.

use serde_json::Value;

use crate::approval_hooks::{Script, Server};
use crate::support::{fixture, seal, TempDir};

fn record() -> Value {
    let text = std::fs::read_to_string(fixture("e2e/approval-relay.claude-code-2.1.332.json"))
        .expect("the record");
    serde_json::from_str(&text).expect("json")
}

/// The scenario's hook runs of `event`.
fn runs<'a>(scenario: &'a Value, event: &str) -> Vec<&'a Value> {
    scenario["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .filter(|run| run["args"][2] == event)
        .collect()
}

#[test]
fn each_recorded_permission_request_gets_the_recorded_answer() {
    let record = record();
    let rules = record["case"]["files"]["rules.json"].to_string();
    for scenario in record["scenarios"].as_array().expect("scenarios") {
        let name = scenario["name"].as_str().expect("name");
        let relayed = runs(scenario, "permission-request");
        assert_eq!(relayed.len(), 1, "{name}: one call was put to the person");
        let recorded = relayed[0];
        let dir = TempDir::new("e2e-relay-claude");
        let workspace = dir.path.join("workspace");
        std::fs::create_dir_all(&workspace).expect("workspace");
        std::fs::write(workspace.join("rules.json"), &rules).expect("rules");
        let script = match scenario["panel_answer"].as_str().expect("answer") {
            "allowed-once" => Script::Settle("allowed-once", "answered"),
            "rejected" => Script::Settle("rejected", "answered"),
            _ => Script::Hang,
        };
        let mut server = Server::start(&dir, vec![script]);
        let placed = |text: &str| {
            text.replace("${WORKSPACE}", &workspace.display().to_string())
                .replace("${SOCKET}", &server.socket())
                .replace("${APPROVERS}", &dir.file("approvers.json"))
        };
        let mut args: Vec<String> = recorded["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|arg| placed(arg.as_str().expect("arg")))
            .collect();
        if script == Script::Hang {
            // The record waited 3 seconds for nobody; 1 shows the same.
            let at = args
                .iter()
                .position(|arg| arg == "--approval-wait")
                .expect("wait");
            args[at + 1] = "1".to_owned();
        }
        let input = placed(&recorded["input"].to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = seal(&args, input.as_bytes(), &[]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert_eq!(
            run.stdout.trim_end(),
            recorded["stdout"],
            "{name}: {}",
            run.stderr
        );
        let lines = server.lines();
        let ask = lines.first().expect("the relay put the call on the panel");
        assert_eq!(ask["tool"], "Bash");
        assert_eq!(
            ask["arguments"],
            recorded["input"]["tool_input"].to_string(),
            "{name}: the call as Claude Code gave it"
        );
        // What Claude Code did with the answer, as recorded.
        let asked = &scenario["oracle"][1];
        assert_eq!(asked["input"], recorded["input"]["tool_input"]);
        let text = asked["text"].as_str().expect("text");
        match scenario["panel_answer"].as_str().expect("answer") {
            "allowed-once" => assert_eq!(text, "hi there", "{name}: the call ran"),
            "rejected" => assert_eq!(text, "seal: refused on the approval panel"),
            _ => assert!(
                text.starts_with("oracle refused"),
                "{name}: the client's prompt decided"
            ),
        }
    }
}

#[test]
fn the_recorded_notice_names_the_relays_call() {
    let record = record();
    let scenario = &record["scenarios"][0];
    let relayed = runs(scenario, "permission-request")[0];
    let noticed = runs(scenario, "post-tool-use");
    assert!(
        noticed
            .iter()
            .any(|run| run["input"]["tool_input"] == relayed["input"]["tool_input"]),
        "PostToolUse carries the same tool_input as PermissionRequest"
    );
    for run in noticed {
        assert_eq!(run["stdout"], "", "the notice answers nothing");
    }
}
