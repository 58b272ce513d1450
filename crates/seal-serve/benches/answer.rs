//! How long a panel's answer takes to reach the waiting hook, on loopback: from the panel's
//! `POST /api/respond` to the hook reading `settled` on its socket (the store's write
//! included). Each iteration registers a fresh ask from a hook thread first, outside the timing.
#![allow(
    missing_docs,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use seal_record::Sha256Digest;
use seal_serve::client::wait_for_answer;
use seal_serve::hookwire::Ask;
use seal_serve::{RunningServer, ServeConfig};

const WAIT: Duration = Duration::from_secs(30);

fn post(port: u16, path: &str, token: Option<&str>, body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let bearer = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{bearer}Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default()
}

fn ask(n: u64) -> Ask {
    let arguments = format!("{{\"command\":\"echo {n}\"}}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis();
    Ask {
        session_id: "bench".to_owned(),
        agent: "claude-code".to_owned(),
        approval_id: format!("approval-{n}"),
        tool: "Bash".to_owned(),
        call_id: None,
        reason: "bench".to_owned(),
        arguments_digest: Sha256Digest::of(arguments.as_bytes()),
        arguments,
        card: format!("Bash: echo {n}"),
        deadline_ms: u64::try_from(now).expect("ms") + 30_000,
        nonce: [7; 32],
    }
}

fn start(dir: &std::path::Path) -> (RunningServer, String) {
    let mut config = ServeConfig::new(dir.join("run/approvals.sock"), dir.join("approvals.db"));
    config.listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    config.announce = false;
    let server = seal_serve::start(config).expect("start");
    let secret = server
        .pairing_url()
        .split_once("#pair=")
        .map(|(_, rest)| rest.split('&').next().unwrap_or(rest).to_owned())
        .expect("secret");
    let paired = post(
        server.port(),
        "/api/pair",
        None,
        &format!("{{\"secret\":\"{secret}\"}}"),
    );
    let token: serde_json::Value = serde_json::from_str(&paired).expect("json");
    let token = token["token"].as_str().expect("token").to_owned();
    (server, token)
}

fn answer(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let (server, token) = start(dir.path());
    let mut n = 0u64;
    c.bench_function("panel_answer_to_waiting_hook", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                n += 1;
                let (registered_tx, registered) = mpsc::channel();
                let socket = server.socket().to_owned();
                let the_ask = ask(n);
                let waiting = std::thread::spawn(move || {
                    let settled =
                        wait_for_answer(&socket, &the_ask, Instant::now() + WAIT, |rpc_id| {
                            let _ = registered_tx.send(rpc_id);
                        });
                    (settled.is_ok(), Instant::now())
                });
                let rpc_id = registered.recv_timeout(WAIT).expect("registered");
                let body = format!(
                    "{{\"response\":{{\"approval_id\":\"approval-{n}\",\"outcome\":\"rejected\",\
                     \"rpc_id\":{rpc_id},\"session_id\":\"bench\"}},\"assertion\":null}}"
                );
                let sent = Instant::now();
                let receipt = post(server.port(), "/api/respond", Some(&token), &body);
                assert!(receipt.contains("\"accepted\":true"), "{receipt}");
                let (settled, heard) = waiting.join().expect("join");
                assert!(settled);
                total += heard.saturating_duration_since(sent);
            }
            total
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(5));
    targets = answer
}
criterion_main!(benches);
