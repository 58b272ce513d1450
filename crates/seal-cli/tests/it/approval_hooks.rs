//! Hooks that wait for a person (`permission-request` relay, `pre-tool-use --wait-approval`
//! hold) against a scripted approval server on a Unix socket: the hook answers allow only for a
//! panel allow it spent for this exact call; a refusal denies; every other ending leaves the
//! client's own prompt (relay: no decision; hold: the ask, or for Codex a deny).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{json, Value};

use crate::support::{self, fixture, seal, TempDir};

/// What the scripted server does with each connection's ask.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Script {
    /// Registers, settles with this outcome and cause, answers `consume` with `consumed`.
    Settle(&'static str, &'static str),
    /// As `Settle`, but refuses the consumption as already spent.
    SettleRefuseConsume,
    /// Registers and closes the connection (the server went away).
    RegisterThenClose,
    /// Registers and never settles.
    Hang,
    /// Answers an `elsewhere` line.
    Elsewhere,
    /// Registers with an approver enrolled, then allows with an assertion made as `Signer`
    /// says, over the challenge it computes from the ask.
    AllowAsserted(Signer),
}

/// How the scripted panel signs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Signer {
    /// Over this call's challenge, user verified.
    Honest,
    /// Over another approval's challenge.
    OtherCall,
    /// User presence without verification.
    NotVerified,
    /// No assertion at all.
    Missing,
}

/// A scripted server: one script per connection, in order; records every line it reads.
pub(crate) struct Server {
    socket: PathBuf,
    stop: Arc<std::sync::atomic::AtomicBool>,
    lines: Arc<Mutex<Vec<Value>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub(crate) fn start(dir: &TempDir, scripts: Vec<Script>) -> Server {
        let socket = dir.path.join("approvals.sock");
        let listener = UnixListener::bind(&socket).expect("bind");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = lines.clone();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            for script in scripts {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                if stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut writer = stream;
                let read = |reader: &mut BufReader<_>| -> Option<Value> {
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
                let Some(ask) = read(&mut reader) else {
                    continue;
                };
                if script == Script::Elsewhere {
                    assert_eq!(ask["op"], "elsewhere");
                    writeln!(writer, "{}", json!({"cancelled": [7]})).expect("write");
                    continue;
                }
                assert_eq!(ask["op"], "ask");
                let approvers = u64::from(matches!(script, Script::AllowAsserted(_)));
                let registered =
                    json!({"registered": {"rpc_id": 7, "again": false, "approvers": approvers}});
                writeln!(writer, "{registered}").expect("write");
                if let Script::AllowAsserted(signer) = script {
                    let assertion = authenticator::assert(&ask, signer);
                    let settled = json!({"settled": {"outcome": "allowed-once", "cause": "answered", "assertion": assertion}});
                    writeln!(writer, "{settled}").expect("write");
                    if read(&mut reader).is_some() {
                        writeln!(writer, "{}", json!({"consumed": true})).expect("write");
                    }
                    continue;
                }
                let (outcome, cause) = match script {
                    Script::Settle(outcome, cause) => (outcome, cause),
                    Script::SettleRefuseConsume => ("allowed-once", "answered"),
                    Script::RegisterThenClose | Script::Elsewhere | Script::AllowAsserted(_) => {
                        continue
                    }
                    Script::Hang => {
                        // Wait for the hook to give up (its end of the connection closes).
                        let _ = read(&mut reader);
                        continue;
                    }
                };
                let settled =
                    json!({"settled": {"outcome": outcome, "cause": cause, "assertion": null}});
                writeln!(writer, "{settled}").expect("write");
                if let Some(consume) = read(&mut reader) {
                    assert_eq!(consume["op"], "consume");
                    let answer = if script == Script::SettleRefuseConsume {
                        json!({"refused": {"reason": "already-consumed", "message": "spent"}})
                    } else {
                        json!({"consumed": true})
                    };
                    writeln!(writer, "{answer}").expect("write");
                }
            }
        });
        Server {
            socket,
            stop,
            lines,
            thread: Some(thread),
        }
    }

    pub(crate) fn socket(&self) -> String {
        self.socket.display().to_string()
    }

    /// Every line the server read (after the hook ended).
    pub(crate) fn lines(&mut self) -> Vec<Value> {
        self.lines.lock().expect("lock").clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Wake a server still waiting in `accept` (it stops at once), then join it.
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::os::unix::net::UnixStream::connect(&self.socket);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn request_input(harness_event: &str, tool: &str, input: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "session-1",
        "transcript_path": "/home/user/.claude/projects/demo/session-1.jsonl",
        "cwd": "/home/user/project",
        "permission_mode": "default",
        "hook_event_name": harness_event,
        "prompt_id": "prompt-1",
        "tool_name": tool,
        "tool_input": input,
    }))
    .expect("json")
}

fn run_hook(
    harness: &str,
    event: &str,
    socket: &str,
    dir: &TempDir,
    input: &[u8],
    extra: &[&str],
) -> support::Run {
    let rules = fixture("rules.json");
    let approvers = dir.path.join("approvers.json").display().to_string();
    let mut args = vec![
        "hook",
        harness,
        event,
        "--rules",
        &rules,
        "--approval-socket",
        socket,
        "--approvers",
        &approvers,
    ];
    args.extend_from_slice(extra);
    seal(&args, input, &[])
}

fn relay(server: &Server, dir: &TempDir, tool: &str, input: Value) -> support::Run {
    let input = request_input("PermissionRequest", tool, input);
    run_hook(
        "claude-code",
        "permission-request",
        &server.socket(),
        dir,
        &input,
        &["--approval-wait", "20"],
    )
}

fn behavior(run: &support::Run) -> (String, Option<String>) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = run.json();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "PermissionRequest"
    );
    let decision = &answer["hookSpecificOutput"]["decision"];
    (
        decision["behavior"].as_str().expect("behavior").to_owned(),
        decision["message"].as_str().map(str::to_owned),
    )
}

fn no_decision(run: &support::Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout, "",
        "no decision expected; stderr: {}",
        run.stderr
    );
}

#[test]
fn relay_allowed_on_the_panel_is_spent_once_for_this_call() {
    let dir = TempDir::new("relay-allow");
    let mut server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let run = relay(
        &server,
        &dir,
        "Bash",
        json!({"command": "git push origin main"}),
    );
    assert_eq!(behavior(&run), ("allow".to_owned(), None));
    let lines = server.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let ask = &lines[0];
    assert_eq!(ask["tool"], "Bash");
    assert_eq!(ask["session_id"], "session-1");
    assert_eq!(ask["agent"], "claude-code");
    assert_eq!(ask["call_id"], Value::Null);
    assert_eq!(ask["arguments"], r#"{"command":"git push origin main"}"#);
    let approval_id = ask["approval_id"].as_str().expect("approval id");
    let card = ask["card"].as_str().expect("card");
    assert!(card.contains(approval_id), "{card}");
    assert!(card.contains("git push origin main"), "{card}");
    // seal's own card: its reason line is the rule's, not the hook's `seal: ` sentence.
    assert!(
        card.lines()
            .any(|line| line.starts_with("| reason    rule `Bash(git push:*)` asks")),
        "{card}"
    );
    assert!(ask["reason"]
        .as_str()
        .expect("reason")
        .starts_with("seal: "));
    let consume = &lines[1];
    assert_eq!(consume["op"], "consume");
    assert_eq!(consume["rpc_id"], 7);
    assert_eq!(consume["arguments_digest"], ask["arguments_digest"]);
    assert_eq!(ask["nonce"].as_str().expect("nonce").len(), 64);
}

#[test]
fn relay_refused_on_the_panel_denies_with_the_panel_named() {
    let dir = TempDir::new("relay-refuse");
    let mut server = Server::start(&dir, vec![Script::Settle("rejected", "answered")]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    let (behavior, message) = behavior(&run);
    assert_eq!(behavior, "deny");
    assert!(message.expect("message").contains("approval panel"));
    // A refusal is never consumed.
    assert_eq!(server.lines().len(), 1);
}

#[test]
fn relay_leaves_the_prompt_for_every_other_ending() {
    for (outcome, cause) in [
        ("cancelled", "hook-gone"),
        ("cancelled", "answered-elsewhere"),
        ("unavailable", "timeout"),
        ("cancelled", "shutdown"),
    ] {
        let dir = TempDir::new("relay-other");
        let server = Server::start(&dir, vec![Script::Settle(outcome, cause)]);
        let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
        no_decision(&run);
        assert!(run.stderr.contains(cause), "{}", run.stderr);
    }
}

#[test]
fn relay_without_a_server_leaves_the_prompt() {
    let dir = TempDir::new("relay-none");
    let input = request_input("PermissionRequest", "Bash", json!({"command": "git push"}));
    let socket = dir.path.join("nobody.sock").display().to_string();
    let run = run_hook(
        "claude-code",
        "permission-request",
        &socket,
        &dir,
        &input,
        &["--approval-wait", "1"],
    );
    no_decision(&run);
    assert!(run.stderr.contains("not reachable"), "{}", run.stderr);
}

#[test]
fn relay_does_not_allow_an_allow_it_could_not_spend() {
    let dir = TempDir::new("relay-spent");
    let server = Server::start(&dir, vec![Script::SettleRefuseConsume]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    no_decision(&run);
    assert!(run.stderr.contains("already-consumed"), "{}", run.stderr);
}

#[test]
fn relay_reconnects_with_the_same_ask_when_the_server_goes_away() {
    let dir = TempDir::new("relay-again");
    let mut server = Server::start(
        &dir,
        vec![
            Script::RegisterThenClose,
            Script::Settle("allowed-once", "answered"),
        ],
    );
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    assert_eq!(behavior(&run).0, "allow");
    let lines = server.lines();
    let asks: Vec<&Value> = lines.iter().filter(|line| line["op"] == "ask").collect();
    assert_eq!(asks.len(), 2, "{lines:?}");
    assert_eq!(
        asks[0], asks[1],
        "the same ask, nonce and approval id included"
    );
}

#[test]
fn relay_gives_up_at_its_wait_and_leaves_the_prompt() {
    let dir = TempDir::new("relay-wait");
    let server = Server::start(&dir, vec![Script::Hang]);
    let input = request_input("PermissionRequest", "Bash", json!({"command": "git push"}));
    let run = run_hook(
        "claude-code",
        "permission-request",
        &server.socket(),
        &dir,
        &input,
        &["--approval-wait", "1"],
    );
    no_decision(&run);
    assert!(run.stderr.contains("no answer"), "{}", run.stderr);
}

#[test]
fn relay_denies_a_call_the_rules_deny_without_asking_anyone() {
    let dir = TempDir::new("relay-deny");
    let mut server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let run = relay(&server, &dir, "Bash", json!({"command": "rm -rf build"}));
    let (behavior, message) = behavior(&run);
    assert_eq!(behavior, "deny");
    assert!(message.expect("message").starts_with("seal: "));
    drop(std::os::unix::net::UnixStream::connect(&server.socket));
    assert!(server.lines().is_empty(), "nothing was put on the panel");
}

#[test]
fn relay_puts_a_call_the_client_asks_about_on_the_panel_even_when_the_rules_allow_it() {
    let dir = TempDir::new("relay-client");
    let mut server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git log -1"}));
    assert_eq!(behavior(&run).0, "allow");
    let lines = server.lines();
    let ask = &lines[0];
    assert_eq!(ask["reason"], "Claude Code asks for permission");
    let card = ask["card"].as_str().expect("card");
    assert!(
        card.contains(ask["approval_id"].as_str().expect("id")),
        "{card}"
    );
    assert!(card.contains("git log -1"), "{card}");
}

#[test]
fn relay_with_an_unreadable_approvers_file_does_not_allow() {
    let dir = TempDir::new("relay-approvers");
    std::fs::write(dir.path.join("approvers.json"), "{\"version\":1}").expect("write");
    let server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    no_decision(&run);
    assert!(run.stderr.contains("did not verify"), "{}", run.stderr);
}

fn hold(harness: &str, server_socket: &str, dir: &TempDir, command: &str) -> support::Run {
    let input = request_input("PreToolUse", "Bash", json!({"command": command}));
    run_hook(
        harness,
        "pre-tool-use",
        server_socket,
        dir,
        &input,
        &["--wait-approval", "--approval-wait", "20"],
    )
}

fn permission_decision(run: &support::Run) -> (String, String) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = run.json();
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    (
        output["permissionDecision"]
            .as_str()
            .expect("decision")
            .to_owned(),
        output["permissionDecisionReason"]
            .as_str()
            .expect("reason")
            .to_owned(),
    )
}

#[test]
fn hold_turns_an_ask_into_the_panels_answer() {
    let dir = TempDir::new("hold-allow");
    let server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let (decision, reason) =
        permission_decision(&hold("claude-code", &server.socket(), &dir, "git push"));
    assert_eq!(decision, "allow");
    assert!(reason.contains("approval panel"), "{reason}");

    let dir = TempDir::new("hold-refuse");
    let server = Server::start(&dir, vec![Script::Settle("rejected", "answered")]);
    let (decision, _) =
        permission_decision(&hold("claude-code", &server.socket(), &dir, "git push"));
    assert_eq!(decision, "deny");
}

#[test]
fn hold_without_an_answer_keeps_the_ask_and_codex_denies() {
    let dir = TempDir::new("hold-none");
    let socket = dir.path.join("nobody.sock").display().to_string();
    let (decision, reason) = permission_decision(&hold("claude-code", &socket, &dir, "git push"));
    assert_eq!(decision, "ask");
    assert!(
        reason.contains("no answer on the approval panel"),
        "{reason}"
    );
    let (decision, _) = permission_decision(&hold("codex", &socket, &dir, "git push"));
    assert_eq!(decision, "deny");
}

#[test]
fn hold_does_not_wait_for_calls_the_rules_decide() {
    let dir = TempDir::new("hold-decided");
    let mut server = Server::start(&dir, vec![]);
    let (decision, reason) =
        permission_decision(&hold("claude-code", &server.socket(), &dir, "rm -rf x"));
    assert_eq!(decision, "deny");
    assert!(reason.starts_with("seal: "), "{reason}");
    let (decision, reason) =
        permission_decision(&hold("claude-code", &server.socket(), &dir, "git log"));
    assert_eq!(
        (decision.as_str(), reason.as_str()),
        ("allow", "seal: allowed")
    );
    assert!(server.lines().is_empty());
}

#[test]
fn hold_leaves_a_codex_patch_to_the_patch_rules() {
    let dir = TempDir::new("hold-patch");
    let mut server = Server::start(&dir, vec![]);
    // A patch is decided path by path, exactly as without hold mode, and nothing is put on the
    // panel.
    let patch = "*** Begin Patch\n*** Add File: src/new.rs\n+fn main() {}\n*** End Patch\n";
    let input = request_input("PreToolUse", "apply_patch", json!({"command": patch}));
    let held = run_hook(
        "codex",
        "pre-tool-use",
        &server.socket(),
        &dir,
        &input,
        &["--wait-approval", "--approval-wait", "20"],
    );
    let plain = run_hook("codex", "pre-tool-use", &server.socket(), &dir, &input, &[]);
    assert_eq!(held.code, 0, "{}", held.stderr);
    assert_eq!(held.stdout, plain.stdout);
    assert!(
        server.lines().is_empty(),
        "a patch is not held on the panel"
    );
}

#[test]
fn post_tool_use_tells_the_server_the_call_was_answered_elsewhere() {
    let dir = TempDir::new("notice");
    let mut server = Server::start(
        &dir,
        vec![
            Script::Settle("allowed-once", "answered"),
            Script::Elsewhere,
        ],
    );
    // The relay registers the call, then the call runs and its PostToolUse arrives.
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    assert_eq!(behavior(&run).0, "allow");
    let input = request_input("PostToolUse", "Bash", json!({"command": "git push"}));
    let socket = server.socket();
    let run = seal(
        &[
            "hook",
            "claude-code",
            "post-tool-use",
            "--approval-socket",
            &socket,
        ],
        &input,
        &[],
    );
    no_decision(&run);
    let lines = server.lines();
    let notice = lines.last().expect("a line");
    assert_eq!(notice["op"], "elsewhere");
    assert_eq!(notice["session_id"], "session-1");
    assert_eq!(notice["tool"], "Bash");
    assert_eq!(notice["arguments_digest"], lines[0]["arguments_digest"]);
}

#[test]
fn post_tool_use_answers_nothing_whatever_happens() {
    let dir = TempDir::new("notice-none");
    let socket = dir.path.join("nobody.sock").display().to_string();
    let input = request_input("PostToolUse", "Bash", json!({"command": "ls"}));
    for (args, stdin) in [
        (
            vec![
                "hook",
                "claude-code",
                "post-tool-use",
                "--approval-socket",
                &socket,
            ],
            input.as_slice(),
        ),
        (
            vec![
                "hook",
                "codex",
                "post-tool-use",
                "--approval-socket",
                &socket,
            ],
            b"not json".as_slice(),
        ),
        (
            vec!["hook", "claude-code", "post-tool-use", "--no-such-flag"],
            input.as_slice(),
        ),
    ] {
        let run = seal(&args, stdin, &[]);
        no_decision(&run);
    }
}

#[test]
fn every_hook_run_registers_its_own_approval_id() {
    let dir = TempDir::new("ids");
    let mut server = Server::start(
        &dir,
        vec![
            Script::Settle("rejected", "answered"),
            Script::Settle("rejected", "answered"),
        ],
    );
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    assert_eq!(behavior(&run).0, "deny");
    // Hold mode registers under its run's own prefix too.
    let (decision, _) =
        permission_decision(&hold("claude-code", &server.socket(), &dir, "git push"));
    assert_eq!(decision, "deny");
    let lines = server.lines();
    assert_eq!(lines.len(), 2);
    assert_ne!(lines[0]["approval_id"], lines[1]["approval_id"]);
    for line in &lines {
        let id = line["approval_id"].as_str().expect("id");
        assert!(id.starts_with("ask-") && id.len() >= 30, "{id}");
        assert!(line["card"].as_str().expect("card").contains(id));
    }
}

/// A software authenticator with a fixed Ed25519 key, enrolled in an approvers file.
mod authenticator {
    use ring::signature::{Ed25519KeyPair, KeyPair};
    use serde_json::{json, Value};
    use sha2::{Digest, Sha256};

    use super::Signer;

    const SEED: [u8; 32] = [42; 32];
    const CREDENTIAL: &[u8] = b"seal-test-credential";
    const ORIGIN: &str = "http://localhost:7979";

    fn b64(bytes: &[u8]) -> String {
        seal::base64url::encode(bytes)
    }

    fn key() -> Ed25519KeyPair {
        Ed25519KeyPair::from_seed_unchecked(&SEED).expect("key")
    }

    /// The approvers file naming this authenticator.
    pub fn approvers_file() -> String {
        json!({"approvers": [{
            "alg": "ed25519", "enrolled_ms": 1_800_000_000_000u64, "id": b64(CREDENTIAL),
            "name": "test key", "public_key": b64(key().public_key().as_ref()), "sign_count": 0
        }], "version": 1})
        .to_string()
    }

    /// An assertion over the challenge of `ask` (rpc id 7), as `signer` makes it.
    pub fn assert(ask: &Value, signer: Signer) -> Value {
        if signer == Signer::Missing {
            return Value::Null;
        }
        let text = |name: &str| ask[name].as_str().expect("member").to_owned();
        let mut digest = [0u8; 32];
        hex::decode_to_slice(text("arguments_digest"), &mut digest).expect("digest");
        let mut nonce = [0u8; 32];
        hex::decode_to_slice(text("nonce"), &mut nonce).expect("nonce");
        let approval_id = match signer {
            Signer::OtherCall => "another-approval".to_owned(),
            _ => text("approval_id"),
        };
        let challenge = seal::webauthn::approval_challenge(
            7,
            &text("session_id"),
            &approval_id,
            &digest,
            &nonce,
        );
        let client_data =
            json!({"type": "webauthn.get", "challenge": b64(&challenge), "origin": ORIGIN})
                .to_string();
        let mut authenticator_data = Sha256::digest(b"localhost").to_vec();
        // UP, and UV unless the signer leaves it out.
        authenticator_data.push(if signer == Signer::NotVerified {
            0x01
        } else {
            0x05
        });
        authenticator_data.extend_from_slice(&0u32.to_be_bytes());
        let mut signed = authenticator_data.clone();
        signed.extend_from_slice(&Sha256::digest(client_data.as_bytes()));
        let signature = key().sign(&signed);
        json!({
            "credential_id": b64(CREDENTIAL),
            "client_data_json": b64(client_data.as_bytes()),
            "authenticator_data": b64(&authenticator_data),
            "signature": b64(signature.as_ref()),
        })
    }
}

#[test]
fn an_enrolled_approvers_allow_counts_only_with_their_assertion_over_this_call() {
    for (signer, allowed, named) in [
        (Signer::Honest, true, ""),
        (Signer::OtherCall, false, "challenge"),
        (Signer::NotVerified, false, "user-not-verified"),
        (Signer::Missing, false, "without an approver's assertion"),
    ] {
        let dir = TempDir::new("asserted");
        std::fs::write(
            dir.path.join("approvers.json"),
            authenticator::approvers_file(),
        )
        .expect("write");
        let mut server = Server::start(&dir, vec![Script::AllowAsserted(signer)]);
        let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
        if allowed {
            assert_eq!(behavior(&run).0, "allow", "{signer:?}: {}", run.stderr);
            assert_eq!(server.lines().last().expect("line")["op"], "consume");
        } else {
            no_decision(&run);
            assert!(run.stderr.contains(named), "{signer:?}: {}", run.stderr);
            // An allow that did not verify is never spent.
            assert!(server.lines().iter().all(|line| line["op"] != "consume"));
        }
    }
}

#[test]
fn an_allow_from_a_server_with_approvers_this_hook_does_not_know_is_not_taken() {
    let dir = TempDir::new("unknown-approvers");
    let server = Server::start(&dir, vec![Script::AllowAsserted(Signer::Honest)]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    no_decision(&run);
    assert!(
        run.stderr.contains("approvers file has none"),
        "{}",
        run.stderr
    );
}

#[test]
fn without_approvers_flag_the_hook_reads_the_users_approvers_file() {
    for (signer, allowed) in [(Signer::Honest, true), (Signer::Missing, false)] {
        let dir = TempDir::new("default-approvers");
        let home = dir.path.join("home");
        std::fs::create_dir_all(home.join(".config/seal")).expect("home");
        std::fs::write(
            home.join(".config/seal/approvers.json"),
            authenticator::approvers_file(),
        )
        .expect("write");
        let server = Server::start(&dir, vec![Script::AllowAsserted(signer)]);
        let rules = fixture("rules.json");
        let socket = server.socket();
        let input = request_input("PermissionRequest", "Bash", json!({"command": "git push"}));
        let home = home.display().to_string();
        let run = seal(
            &[
                "hook",
                "claude-code",
                "permission-request",
                "--rules",
                &rules,
                "--approval-socket",
                &socket,
                "--approval-wait",
                "20",
            ],
            &input,
            &[("HOME", &home)],
        );
        if allowed {
            assert_eq!(behavior(&run).0, "allow", "{}", run.stderr);
        } else {
            no_decision(&run);
        }
    }
}

#[test]
fn an_approvers_file_that_cannot_be_read_is_no_approval() {
    let dir = TempDir::new("approvers-unreadable");
    // A folder where the file should be: it exists, and reading it fails.
    std::fs::create_dir_all(dir.path.join("approvers.json")).expect("folder");
    let server = Server::start(&dir, vec![Script::Settle("allowed-once", "answered")]);
    let run = relay(&server, &dir, "Bash", json!({"command": "git push"}));
    no_decision(&run);
    assert!(run.stderr.contains("the approvers file"), "{}", run.stderr);
}
