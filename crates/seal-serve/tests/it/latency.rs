//! How long an answer takes from the panel's POST to the waiting hook: measured and printed
//! (run with `--nocapture`), never asserted.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{ask, pair, respond, response, Place};

const ROUNDS: u64 = 20;

#[test]
fn answer_latency_from_panel_to_hook_is_reported() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let mut latencies = Vec::new();
    for n in 0..ROUNDS {
        let (registered_tx, registered) = mpsc::channel();
        let socket = server.socket().to_owned();
        let the_ask = ask("session-t", n, Duration::from_secs(30));
        let waiting = std::thread::spawn(move || {
            let settled = seal_serve::client::wait_for_answer(
                &socket,
                &the_ask,
                Instant::now() + Duration::from_secs(30),
                |rpc_id| {
                    let _ = registered_tx.send(rpc_id);
                },
            );
            (settled.map(|s| s.outcome), Instant::now())
        });
        let rpc_id = registered.recv_timeout(Duration::from_secs(30)).unwrap();
        let sent = Instant::now();
        let receipt = respond(
            server.port(),
            &token,
            &response(rpc_id, "session-t", &format!("approval-{n}"), "rejected"),
        );
        assert_eq!(receipt["accepted"], true);
        let (outcome, heard) = waiting.join().unwrap();
        assert!(outcome.is_ok());
        latencies.push(heard.saturating_duration_since(sent));
    }
    latencies.sort();
    eprintln!(
        "answer latency panel POST -> hook settled over {ROUNDS} rounds: median {:?}, max {:?}",
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1]
    );
}
