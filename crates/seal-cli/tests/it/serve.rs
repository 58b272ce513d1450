//! `seal serve` as a process: killed with SIGKILL and restarted on the same store (nothing
//! pending is lost, the hooks get their rpc ids back), its memory with 1,000 pending approvals
//! and 50 connected panels, `seal serve pair`, and the start refusals beyond loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use seal::Sha256Digest;
use seal_serve::client::wait_for_answer;
use seal_serve::hookwire::{Ask, HookLine, ServerLine};

const WAIT: Duration = Duration::from_secs(60);

/// A running `seal serve`, killed when dropped.
struct Served {
    child: Child,
    port: u16,
    pairing_url: String,
    /// The line after the pairing address: the same-user warning while no approver is enrolled.
    after_address: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(socket: &Path, store: &Path) -> Served {
    serve_with(socket, store, &[])
}

fn serve_with(socket: &Path, store: &Path, extra: &[&str]) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_seal"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--socket"])
        .arg(socket)
        .arg("--store")
        .arg(store)
        // The approvers file of the test's own folder, never the user's.
        .arg("--approvers")
        .arg(socket.with_file_name("approvers.json"))
        .args(extra);
    served(command)
}

/// A server of the fleet `fleet` on the Redis database `url` (given in SEAL_SERVE_STORE, where
/// a password could be).
fn serve_fleet(socket: &Path, url: &str, fleet: &str) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_seal"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--socket"])
        .arg(socket)
        .args(["--fleet", fleet])
        .arg("--approvers")
        .arg(socket.with_file_name("approvers.json"))
        .env("SEAL_SERVE_STORE", url);
    served(command)
}

fn served(mut command: Command) -> Served {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("seal serve starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let mut lines = BufReader::new(stderr).lines();
    let pairing_url = loop {
        let line = lines
            .next()
            .expect("seal serve prints its pairing address")
            .expect("stderr reads");
        if line.starts_with("http://localhost:") {
            break line;
        }
    };
    let after_address = lines.next().and_then(Result::ok).unwrap_or_default();
    // Keep draining stderr so the server never blocks on it.
    std::thread::spawn(move || for _ in lines {});
    let port = pairing_url
        .trim_start_matches("http://localhost:")
        .split('/')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("a port in the pairing address");
    Served {
        child,
        port,
        pairing_url,
        after_address,
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn ask(session: &str, n: u64) -> Ask {
    let arguments = format!("{{\"command\":\"echo {n}\"}}");
    Ask {
        session_id: session.to_owned(),
        agent: "claude-code".to_owned(),
        approval_id: format!("approval-{n}"),
        tool: "Bash".to_owned(),
        call_id: Some(format!("call-{n}")),
        reason: "runs a command".to_owned(),
        arguments_digest: Sha256Digest::of(arguments.as_bytes()),
        arguments,
        card: format!("Bash: echo {n}\nin /home/someone/project, asked by claude-code"),
        deadline_ms: now_ms() + 600_000,
        nonce: [7; 32],
    }
}

/// One HTTP/1.1 exchange with `Connection: close`; the status and the body.
fn http(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (u16, String) {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: localhost:{port}\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("Connection: close\r\n\r\n");
    request.push_str(body.unwrap_or_default());
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream.write_all(request.as_bytes()).expect("writes");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn pair(port: u16, url: &str) -> String {
    let rest = url.split_once("#pair=").expect("a secret").1;
    // The start-up address also carries the enrolment secret (`&enrol=`).
    let secret = rest.split('&').next().unwrap_or(rest);
    let (status, body) = http(
        port,
        "POST",
        "/api/pair",
        None,
        Some(&format!("{{\"secret\":\"{secret}\"}}")),
    );
    assert_eq!(status, 200, "{body}");
    let value: serde_json::Value = serde_json::from_str(&body).expect("json");
    value["token"].as_str().expect("a token").to_owned()
}

/// Opens an event stream and returns it once `frames` `approval/requested` frames came.
fn panel(port: u16, token: &str, frames: usize) -> (TcpStream, Vec<u64>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let request = format!(
        "GET /api/events HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).expect("writes");
    stream.set_read_timeout(Some(WAIT)).expect("a read timeout");
    let mut seen = Vec::new();
    let mut text = Vec::new();
    let mut buffer = [0u8; 65_536];
    while seen.len() < frames {
        let read = stream.read(&mut buffer).expect("the stream stays open");
        assert!(read > 0, "the stream ended");
        text.extend_from_slice(&buffer[..read]);
        seen = requested_ids(&text);
    }
    (stream, seen)
}

/// The rpc ids of the `approval/requested` frames in a raw (chunked) stream, in order.
fn requested_ids(raw: &[u8]) -> Vec<u64> {
    let text = String::from_utf8_lossy(raw);
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
        .filter(|frame| frame["type"] == "approval/requested")
        .filter_map(|frame| frame["rpc_id"].as_u64())
        .collect()
}

fn place() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let socket = dir.path().join("run").join("approvals.sock");
    let store = dir.path().join("state").join("approvals.db");
    (dir, socket, store)
}

#[test]
fn serve_killed_and_restarted_loses_no_pending_approval() {
    let (_dir, socket, store) = place();
    let first = serve(&socket, &store);
    let token = pair(first.port, &first.pairing_url);
    let mut hooks = Vec::new();
    for n in 1..=3 {
        let (sender, receiver) = mpsc::channel();
        let socket = socket.clone();
        let the_ask = ask("session-k", n);
        let handle = std::thread::spawn(move || {
            wait_for_answer(&socket, &the_ask, Instant::now() + WAIT, |rpc_id| {
                let _ = sender.send(rpc_id);
            })
        });
        let rpc_id = receiver.recv_timeout(WAIT).expect("registered");
        hooks.push((n, rpc_id, handle));
    }
    drop(first); // SIGKILL: nothing is settled, the socket file stays behind.
    assert!(socket.exists(), "a killed server leaves its socket file");

    let second = serve(&socket, &store);
    let issued: Vec<u64> = hooks.iter().map(|(_, rpc_id, _)| *rpc_id).collect();
    let (_stream, replayed) = panel(second.port, &token, 3);
    assert_eq!(
        replayed, issued,
        "the panel replays the rpc ids first issued"
    );
    for (n, rpc_id, _) in &hooks {
        let body = format!(
            "{{\"response\":{{\"approval_id\":\"approval-{n}\",\"outcome\":\"allowed-once\",\"rpc_id\":{rpc_id},\"session_id\":\"session-k\"}},\"assertion\":null}}"
        );
        let (status, receipt) = http(
            second.port,
            "POST",
            "/api/respond",
            Some(&token),
            Some(&body),
        );
        assert_eq!((status, receipt.as_str()), (200, "{\"accepted\":true}"));
    }
    for (n, rpc_id, handle) in hooks {
        let mut settled = handle.join().expect("the hook thread").expect("settled");
        assert_eq!(settled.rpc_id, rpc_id);
        assert_eq!(settled.outcome, seal::Outcome::AllowedOnce);
        settled
            .consume(ask("session-k", n).arguments_digest, Instant::now() + WAIT)
            .expect("consumed once");
    }
}

#[test]
fn serve_memory_with_1000_pending_and_50_panels() {
    let (_dir, socket, store) = place();
    let served = serve(&socket, &store);
    let token = pair(served.port, &served.pairing_url);
    let mut hooks = Vec::new();
    for n in 0..1000 {
        let line = HookLine::Ask(Box::new(ask("session-m", n))).to_line();
        let mut stream = UnixStream::connect(&socket).expect("the hook socket");
        stream
            .write_all(format!("{line}\n").as_bytes())
            .expect("writes the ask");
        let mut reader = BufReader::new(stream);
        let mut answer = String::new();
        reader
            .read_line(&mut answer)
            .expect("reads the registration");
        assert!(
            matches!(
                ServerLine::parse(answer.trim_end().as_bytes()),
                Ok(ServerLine::Registered { again: false, .. })
            ),
            "{answer}"
        );
        hooks.push(reader);
    }
    let mut panels = Vec::new();
    for _ in 0..50 {
        let (stream, seen) = panel(served.port, &token, 1000);
        assert_eq!(seen.len(), 1000);
        panels.push(stream);
    }
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", served.child.id())).expect("/proc");
    let rss_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    eprintln!("seal serve VmRSS with 1000 pending and 50 panels: {rss_kib} KiB");
    assert!(rss_kib <= 64 * 1024, "VmRSS {rss_kib} KiB above 64 MiB");
    drop(panels);
    drop(hooks);
}

#[test]
fn serve_pair_prints_a_fresh_single_use_address() {
    let (_dir, socket, store) = place();
    let served = serve(&socket, &store);
    let output = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(["serve", "pair", "--socket"])
        .arg(&socket)
        .output()
        .expect("seal serve pair runs");
    assert!(output.status.success(), "{output:?}");
    let url = String::from_utf8(output.stdout).expect("utf-8");
    let url = url.trim_end();
    assert!(
        url.starts_with(&format!("http://localhost:{}/#pair=", served.port)),
        "{url}"
    );
    assert_ne!(url, served.pairing_url);
    // With no approver enrolled, the server says at once what that means.
    assert!(
        served
            .after_address
            .contains("any process running as your user"),
        "{}",
        served.after_address
    );
    // Only the address printed at start carries the enrolment secret; the socket never gives
    // it out.
    assert!(
        served.pairing_url.contains("&enrol="),
        "{}",
        served.pairing_url
    );
    assert!(!url.contains("enrol"), "{url}");
    let token = pair(served.port, url);
    let (status, _) = http(served.port, "GET", "/api/tokens", Some(&token), None);
    assert_eq!(status, 200);
    let secret = url.split_once("#pair=").expect("a secret").1;
    let (again, _) = http(
        served.port,
        "POST",
        "/api/pair",
        None,
        Some(&format!("{{\"secret\":\"{secret}\"}}")),
    );
    assert_eq!(again, 401);
}

#[test]
fn serve_records_asked_and_decided_in_the_decision_log() {
    let log = crate::support::audit::AuditLog::new("serve-log");
    let (_dir, socket, store) = place();
    let served = serve_with(&socket, &store, &["--log", &log.log, "--log-key", &log.key]);
    let token = pair(served.port, &served.pairing_url);
    let the_ask = ask("session-l", 1);
    let (sender, receiver) = mpsc::channel();
    let hook_socket = socket.clone();
    let handle = std::thread::spawn(move || {
        wait_for_answer(&hook_socket, &the_ask, Instant::now() + WAIT, |rpc_id| {
            let _ = sender.send(rpc_id);
        })
    });
    let rpc_id = receiver.recv_timeout(WAIT).expect("registered");
    let body = format!(
        "{{\"response\":{{\"approval_id\":\"approval-1\",\"outcome\":\"rejected\",\"rpc_id\":{rpc_id},\"session_id\":\"session-l\"}},\"assertion\":null}}"
    );
    let (status, receipt) = http(
        served.port,
        "POST",
        "/api/respond",
        Some(&token),
        Some(&body),
    );
    assert_eq!((status, receipt.as_str()), (200, "{\"accepted\":true}"));
    let settled = handle.join().expect("the hook thread").expect("settled");
    assert_eq!(settled.outcome, seal::Outcome::Rejected);
    drop(served);
    let show = crate::support::seal(&["audit", "show", "--log", &log.log, "--json"], b"", &[]);
    assert_eq!(show.code, 0, "{}", show.snapshot());
    let asked = show
        .stdout
        .lines()
        .find(|line| line.contains("approval/asked"))
        .expect("approval/asked recorded");
    assert!(
        asked.contains("approval-1") && asked.contains("session-l"),
        "{asked}"
    );
    let decided = show
        .stdout
        .lines()
        .find(|line| line.contains("approval/decided"))
        .expect("approval/decided recorded");
    assert!(
        decided.contains("rejected") && decided.contains("answered"),
        "{decided}"
    );
}

/// The real waiting hook against the real server: the Claude Code relay puts a call the
/// client asks about on the panel, the panel allows it, and the hook answers `allow` after
/// spending the allow once.
#[test]
fn serve_and_the_relay_hook_carry_an_allow_end_to_end() {
    let (dir, socket, store) = place();
    let served = serve(&socket, &store);
    let token = pair(served.port, &served.pairing_url);
    let approvers = dir.path().join("approvers.json").display().to_string();
    let socket_text = socket.display().to_string();
    let input = serde_json::to_vec(&serde_json::json!({
        "session_id": "session-e2e",
        "transcript_path": "/home/user/.claude/projects/demo/session-e2e.jsonl",
        "cwd": "/home/user/project",
        "permission_mode": "default",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "git push origin main"},
    }))
    .expect("json");
    let relay = std::thread::spawn(move || {
        let rules = crate::support::fixture("rules.json");
        crate::support::seal(
            &[
                "hook",
                "claude-code",
                "permission-request",
                "--rules",
                &rules,
                "--approval-socket",
                &socket_text,
                "--approvers",
                &approvers,
                "--approval-wait",
                "30",
            ],
            &input,
            &[],
        )
    });
    // The panel sees the request, with the command the card shows.
    let mut stream = TcpStream::connect(("127.0.0.1", served.port)).expect("connects");
    stream
        .write_all(
            format!(
                "GET /api/events HTTP/1.1\r\nHost: localhost:{}\r\nAuthorization: Bearer {token}\r\n\r\n",
                served.port
            )
            .as_bytes(),
        )
        .expect("writes");
    stream.set_read_timeout(Some(WAIT)).expect("a read timeout");
    let mut raw = Vec::new();
    let mut buffer = [0u8; 65_536];
    let frame = loop {
        let read = stream.read(&mut buffer).expect("the stream stays open");
        assert!(read > 0, "the stream ended");
        raw.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&raw).into_owned();
        let found = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str::<serde_json::Value>(data).ok())
            .find(|frame| frame["type"] == "approval/requested");
        if let Some(frame) = found {
            break frame;
        }
    };
    assert_eq!(frame["command"], "git push origin main");
    assert_eq!(frame["session_id"], "session-e2e");
    let body = serde_json::json!({
        "response": {
            "approval_id": frame["approval_id"],
            "outcome": "allowed-once",
            "rpc_id": frame["rpc_id"],
            "session_id": "session-e2e",
        },
        "assertion": null,
    })
    .to_string();
    let (status, receipt) = http(
        served.port,
        "POST",
        "/api/respond",
        Some(&token),
        Some(&body),
    );
    assert_eq!((status, receipt.as_str()), (200, "{\"accepted\":true}"));
    let run = relay.join().expect("the hook thread");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = run.json();
    assert_eq!(
        answer["hookSpecificOutput"]["decision"]["behavior"], "allow",
        "{answer}"
    );
}

/// `seal serve` with `extra`, expected to refuse at start: its exit code and stderr.
fn refused(extra: &[&str]) -> (Option<i32>, String) {
    let (_dir, socket, store) = place();
    let output = Command::new(env!("CARGO_BIN_EXE_seal"))
        .arg("serve")
        .arg("--socket")
        .arg(&socket)
        .arg("--store")
        .arg(&store)
        .arg("--approvers")
        .arg(socket.with_file_name("approvers.json"))
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("seal serve runs");
    assert!(!socket.exists(), "nothing was bound");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn serve_beyond_loopback_needs_tls_an_approver_and_a_trusted_host() {
    let (code, stderr) = refused(&["--listen", "0.0.0.0:0"]);
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("--tls-cert and --tls-key"), "{stderr}");
    // The rule on approvers comes before the certificate is read (these files do not exist).
    let tls = [
        "--tls-cert",
        "/nonexistent/panel.crt",
        "--tls-key",
        "/nonexistent/panel.key",
    ];
    let mut public = vec!["--listen", "0.0.0.0:0"];
    public.extend(tls);
    let (code, stderr) = refused(&public);
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("no approver is enrolled"), "{stderr}");
    let mut loopback = vec!["--listen", "127.0.0.1:0", "--trusted-host", "approve.test"];
    loopback.extend(tls);
    let (code, stderr) = refused(&loopback);
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("/nonexistent/panel.crt"), "{stderr}");
    // Flags that need their partner are usage errors.
    let (code, stderr) = refused(&["--listen", "127.0.0.1:0", "--trusted-host", "approve.test"]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("--tls-cert"), "{stderr}");
    let (code, stderr) = refused(&["--tls-cert", "/nonexistent/panel.crt"]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("--tls-key"), "{stderr}");
}

const FLEET_REDIS_DB: u32 = 9;

#[test]
fn serve_fleet_on_redis_answers_a_hook_from_the_other_server() {
    let url = crate::support::redis_server::database(FLEET_REDIS_DB);
    let (_dir_a, socket_a, _) = place();
    let (_dir_b, socket_b, _) = place();
    let a = serve_fleet(&socket_a, &url, "cli-test");
    let b = serve_fleet(&socket_b, &url, "cli-test");
    let token = pair(b.port, &b.pairing_url);
    let (sender, receiver) = mpsc::channel();
    let the_ask = ask("session-f", 1);
    let digest = the_ask.arguments_digest;
    let hook = std::thread::spawn(move || {
        wait_for_answer(&socket_a, &the_ask, Instant::now() + WAIT, |rpc_id| {
            let _ = sender.send(rpc_id);
        })
    });
    let rpc_id = receiver.recv_timeout(WAIT).expect("registered on A");
    let (_stream, seen) = panel(b.port, &token, 1);
    assert_eq!(seen, vec![rpc_id], "B's panel shows A's approval");
    let body = format!(
        "{{\"response\":{{\"approval_id\":\"approval-1\",\"outcome\":\"allowed-once\",\"rpc_id\":{rpc_id},\"session_id\":\"session-f\"}},\"assertion\":null}}"
    );
    let (status, receipt) = http(b.port, "POST", "/api/respond", Some(&token), Some(&body));
    assert_eq!((status, receipt.as_str()), (200, "{\"accepted\":true}"));
    let mut settled = hook.join().expect("the hook thread").expect("settled");
    assert_eq!(settled.outcome, seal::Outcome::AllowedOnce);
    settled
        .consume(digest, Instant::now() + WAIT)
        .expect("consumed once");
    drop(a);
}

#[test]
fn serve_refuses_a_store_password_on_the_command_line() {
    let (_dir, socket, _) = place();
    let output = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(["serve", "--listen", "127.0.0.1:0", "--socket"])
        .arg(&socket)
        .args(["--store", "redis://:hunter2@127.0.0.1:6379/0"])
        .env_remove("SEAL_SERVE_STORE")
        .output()
        .expect("seal serve runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("SEAL_SERVE_STORE"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    // --fleet without a Redis store is a usage error too.
    let output = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(["serve", "--listen", "127.0.0.1:0", "--socket"])
        .arg(&socket)
        .args(["--fleet", "one"])
        .env_remove("SEAL_SERVE_STORE")
        .output()
        .expect("seal serve runs");
    assert_eq!(output.status.code(), Some(2));
}
