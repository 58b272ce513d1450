//! The relay record of spec/cli.md section 6.4 ("Codex 0.171, observed"):
//! `fixtures/e2e/approval-relay.codex-0.171.json` is what the real Codex 0.171.0 did (`codex
//! exec` and `codex app-server`, offline, a mock model making one `exec_command` call) with the
//! hooks `seal install codex --approvals relay` wrote, reviewed, against a scripted approval
//! server that allowed, refused, never answered, or was not there. This test checks that the
//! installer still writes those hooks, and that the hooks as built now give each input Codex gave
//! them the answer Codex acted on then, registering the call on the server as then.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{json, Value};

use crate::support::{seal, TempDir};

fn record() -> Value {
    let path = format!(
        "{}/tests/fixtures/e2e/approval-relay.codex-0.171.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("record")
}

/// A temporary HOME with the record's rules, a workspace, and the socket's folder.
struct Machine {
    dir: TempDir,
    home: String,
    workspace: String,
}

impl Machine {
    fn of(record: &Value) -> Machine {
        let dir = TempDir::new("e2e-relay");
        let home = dir.file("home");
        let workspace = dir.file("ws");
        std::fs::create_dir_all(format!("{home}/.seal")).expect("home");
        std::fs::create_dir_all(&workspace).expect("workspace");
        let serve = format!("{home}/.config/seal/serve");
        std::fs::create_dir_all(&serve).expect("socket folder");
        std::fs::set_permissions(&serve, std::fs::Permissions::from_mode(0o700)).expect("mode");
        std::fs::write(
            format!("{home}/.seal/rules.json"),
            record["rules"].to_string(),
        )
        .expect("rules");
        Machine {
            dir,
            home,
            workspace,
        }
    }

    /// `value` as JSON text with the record's placeholders made this machine's paths.
    fn placed(&self, value: &Value) -> String {
        value
            .to_string()
            .replace("${CODEX_HOME}", &format!("{}/.codex", self.home))
            .replace("${HOME}", &self.home)
            .replace("${WORKSPACE}", &self.workspace)
    }

    /// The default hook socket with `XDG_RUNTIME_DIR` unset, as in the recorded runs.
    fn socket(&self) -> String {
        format!("{}/.config/seal/serve/approvals.sock", self.home)
    }

    /// The installed hook of `event`, run as Codex ran it: the command's words, the input on
    /// stdin, this HOME.
    fn run_hook(&self, record: &Value, event: &str, input: &Value) -> crate::support::Run {
        let hooks: Value =
            serde_json::from_str(&self.placed(&record["hooks_installed"])).expect("hooks");
        let command = hooks["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .expect("command");
        let words = shlex::split(command).expect("words");
        assert_eq!(words[0], "seal");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        seal(
            &args,
            self.placed(input).as_bytes(),
            &[("HOME", &self.home)],
        )
    }
}

/// What the scripted approval server does with the one ask it takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Panel {
    /// Registers, settles `allowed-once` (no approvers, no assertion), answers the consume.
    Allow,
    /// Registers, settles `rejected`.
    Reject,
    /// Registers and never settles.
    Hang,
}

impl Panel {
    /// The recorded server's name as a script; `none` is no server at all.
    fn of(name: &str) -> Option<Panel> {
        let panel = [
            ("allow", Panel::Allow),
            ("reject", Panel::Reject),
            ("hang", Panel::Hang),
        ]
        .into_iter()
        .find(|(known, _)| *known == name)
        .map(|(_, panel)| panel);
        assert!(
            panel.is_some() || name == "none",
            "approval server `{name}`"
        );
        panel
    }
}

/// The scripted server on the socket: one connection, every line it read kept.
struct Server {
    socket: String,
    lines: Arc<Mutex<Vec<Value>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(socket: String, panel: Panel) -> Server {
        let listener = UnixListener::bind(&socket).expect("bind");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = lines.clone();
        let thread = std::thread::spawn(move || {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut writer = stream;
            let mut read = || -> Option<Value> {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => {
                        let value: Value = serde_json::from_str(&line).expect("a json line");
                        seen.lock().expect("lock").push(value.clone());
                        Some(value)
                    }
                }
            };
            let Some(ask) = read() else {
                return;
            };
            assert_eq!(ask["op"], "ask");
            let registered = json!({"registered": {"rpc_id": 1, "again": false, "approvers": 0}});
            writeln!(writer, "{registered}").expect("write");
            let outcome = match panel {
                Panel::Allow => "allowed-once",
                Panel::Reject => "rejected",
                Panel::Hang => {
                    // Until the hook gives up and closes its end.
                    let _ = read();
                    return;
                }
            };
            let settled =
                json!({"settled": {"outcome": outcome, "cause": "answered", "assertion": null}});
            writeln!(writer, "{settled}").expect("write");
            if let Some(consume) = read() {
                assert_eq!(consume["op"], "consume");
                writeln!(writer, "{}", json!({"consumed": true})).expect("write");
            }
        });
        Server {
            socket,
            lines,
            thread: Some(thread),
        }
    }

    /// Every line the server read, once the connection is over.
    fn lines(mut self) -> Vec<Value> {
        if let Some(thread) = self.thread.take() {
            thread.join().expect("server");
        }
        self.lines.lock().expect("lock").clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            // Wake a server still waiting in `accept`, then join it.
            let _ = std::os::unix::net::UnixStream::connect(&self.socket);
            let _ = thread.join();
        }
    }
}

#[test]
fn the_installer_still_writes_the_recorded_relay_hooks() {
    let record = record();
    let machine = Machine::of(&record);
    let hooks = machine.dir.file("hooks.json");
    let rules = format!("{}/.seal/rules.json", machine.home);
    let run = seal(
        &[
            "install",
            "codex",
            "--settings",
            &hooks,
            "--rules",
            &rules,
            "--approvals",
            "relay",
            "--approval-wait",
            "2",
        ],
        b"",
        &[("HOME", &machine.home)],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks).expect("hooks")).expect("json");
    let mut recorded: Value =
        serde_json::from_str(&machine.placed(&record["hooks_installed"])).expect("json");
    // The recorded run also had the `PostToolUse` notice; it showed that Codex asks the person
    // only after the relay ends, so nothing is answered elsewhere meanwhile, and an install for
    // Codex no longer writes it.
    let notice = recorded["hooks"]
        .as_object_mut()
        .and_then(|hooks| hooks.remove("PostToolUse"));
    assert!(notice.is_some(), "the record had the notice hook");
    assert_eq!(written, recorded);
}

/// Each `PermissionRequest` input Codex gave the relay, against the server the scenario had:
/// the same answer on stdout, the same ask on the socket, and the answer Codex acted on as
/// recorded (allow ran the command, deny showed seal's message, no decision left it to Codex's
/// automatic reviewer).
#[test]
fn the_recorded_permission_requests_get_the_recorded_answers() {
    let record = record();
    let mut relayed = 0;
    for scenario in record["scenarios"].as_array().expect("scenarios") {
        let name = scenario["name"].as_str().expect("name");
        let fired = &scenario["permission_request"];
        if fired.is_null() {
            continue;
        }
        let machine = Machine::of(&record);
        let panel = Panel::of(scenario["approval_server"].as_str().expect("server"));
        let server = panel.map(|panel| Server::start(machine.socket(), panel));
        let run = machine.run_hook(&record, "PermissionRequest", &fired["input"]);
        assert_eq!(run.code, 0, "{name}: {}", run.snapshot());
        assert_eq!(run.stdout, fired["seal_stdout"], "{name}: {}", run.stderr);
        if run.stdout.is_empty() {
            assert!(run.stderr.contains("no decision"), "{name}: {}", run.stderr);
        }

        // The ask seal put on the server, as then.
        let lines = server.map(Server::lines).unwrap_or_default();
        let recorded: Vec<&Value> = scenario["server_lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter(|line| line["op"] == "ask" || line["op"] == "consume")
            .collect();
        assert_eq!(lines.len(), recorded.len(), "{name}: {lines:?}");
        for (line, seen) in lines.iter().zip(recorded) {
            assert_eq!(line["op"], seen["op"], "{name}");
            assert_eq!(line["arguments_digest"], seen["arguments_digest"], "{name}");
            if line["op"] == "ask" {
                for member in ["tool", "session_id", "call_id", "reason", "arguments"] {
                    assert_eq!(line[member], seen[member], "{name}: {member}");
                }
                assert_eq!(line["agent"], "codex", "{name}");
            }
        }

        // What Codex did with the answer.
        let output = scenario["tool_output_seen_by_model"]
            .as_str()
            .expect("output");
        let took_effect = scenario["took_effect"] == true;
        let fallback = &scenario["fallback"];
        let asked = fallback["asked"].as_u64().expect("asked");
        match run.stdout.as_str() {
            "" => {
                // No decision: Codex's own approval (its automatic reviewer, or the client's
                // prompt) was asked once, and obeyed.
                assert_eq!(asked, 1, "{name}");
                let yes = matches!(fallback["answer"].as_str(), Some("allow" | "accept"));
                assert_eq!(took_effect, yes, "{name}");
            }
            stdout => {
                let decision = &run.json()["hookSpecificOutput"]["decision"];
                assert_eq!(asked, 0, "{name}: the hook's decision is final");
                match decision["behavior"].as_str() {
                    Some("allow") => {
                        assert!(took_effect, "{name}");
                        assert_eq!(scenario["command_execution_status"], "completed");
                    }
                    Some("deny") => {
                        assert!(!took_effect, "{name}");
                        let message = decision["message"].as_str().expect("message");
                        assert_eq!(
                            output,
                            format!(
                                "exec_command failed: CreateProcess {{ message: \"Rejected(\\\"{message}\\\")\" }}"
                            ),
                            "{name}"
                        );
                    }
                    other => panic!("{name}: {other:?} in {stdout}"),
                }
            }
        }
        relayed += 1;
    }
    assert_eq!(relayed, 10);
}

/// Every `PreToolUse` input Codex gave seal's tool hook gets the recorded answer; Codex fired
/// `PermissionRequest` only after seal's `PreToolUse` gave no decision, and never while its
/// approval policy was `never` (plain `codex exec`).
#[test]
fn the_recorded_tool_hook_answers_hold() {
    let record = record();
    let machine = Machine::of(&record);
    for scenario in record["scenarios"].as_array().expect("scenarios") {
        let name = scenario["name"].as_str().expect("name");
        let seen = &scenario["pre_tool_use"];
        let run = machine.run_hook(&record, "PreToolUse", &seen["input"]);
        assert_eq!(run.code, 0, "{name}: {}", run.snapshot());
        assert_eq!(run.stdout, seen["seal_stdout"], "{name}");
        let fired: Vec<&str> = scenario["hooks_fired"]
            .as_array()
            .expect("fired")
            .iter()
            .map(|event| event.as_str().expect("event"))
            .collect();
        let relayed = fired.contains(&"PermissionRequest");
        assert_eq!(
            relayed,
            run.stdout == "{}\n" && scenario["approvals"] != "never",
            "{name}: {fired:?}"
        );
        if run.stdout != "{}\n" {
            let answer = &run.json()["hookSpecificOutput"];
            assert_eq!(answer["permissionDecision"], "deny", "{name}");
            let reason = answer["permissionDecisionReason"].as_str().expect("reason");
            let command = seen["input"]["tool_input"]["command"]
                .as_str()
                .expect("command");
            assert_eq!(
                scenario["tool_output_seen_by_model"],
                format!("Command blocked by PreToolUse hook: {reason}. Command: {command}"),
                "{name}"
            );
        }
    }
}
