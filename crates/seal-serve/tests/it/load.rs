//! 4 hooks x 50 asks, 2 panels answering every request they see at once: each approval
//! settles exactly once, none is lost.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use seal_record::Outcome;

use crate::support::{api, ask, response, Panel, Place};

const HOOKS: u64 = 4;
const ASKS: u64 = 50;

#[test]
fn concurrent_hooks_and_panels_settle_each_approval_exactly_once() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let total = usize::try_from(HOOKS * ASKS).unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let duplicates = Arc::new(AtomicUsize::new(0));
    let mut panels = Vec::new();
    for _ in 0..2 {
        let token = pair_fresh(&server);
        let accepted = Arc::clone(&accepted);
        let duplicates = Arc::clone(&duplicates);
        let mut panel = Panel::connect(port, &token);
        panels.push(std::thread::spawn(move || {
            let mut resolved = 0;
            while resolved < total {
                let frame = panel
                    .next(Duration::from_secs(60))
                    .expect("frames keep coming until every approval is resolved");
                match frame["type"].as_str() {
                    Some("approval/requested") => {
                        let rpc_id = frame["rpc_id"].as_u64().unwrap();
                        let body = response(
                            rpc_id,
                            frame["session_id"].as_str().unwrap(),
                            frame["approval_id"].as_str().unwrap(),
                            "allowed-once",
                        );
                        let receipt =
                            api(port, "POST", "/api/respond", Some(&token), Some(&body)).json();
                        if receipt["accepted"] == true {
                            accepted.fetch_add(1, Ordering::SeqCst);
                        } else {
                            assert_eq!(receipt["reason"], "duplicate", "{receipt}");
                            duplicates.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Some("approval/resolved") => resolved += 1,
                    _ => {}
                }
            }
        }));
    }
    let mut hooks = Vec::new();
    for h in 0..HOOKS {
        let socket = server.socket().to_owned();
        hooks.push(std::thread::spawn(move || {
            let mut settled_count = 0;
            for n in 0..ASKS {
                let the_ask = ask(&format!("session-{h}"), n, Duration::from_secs(60));
                let digest = the_ask.arguments_digest;
                let deadline = Instant::now() + Duration::from_secs(60);
                let mut settled =
                    seal_serve::client::wait_for_answer(&socket, &the_ask, deadline, |_| {})
                        .unwrap();
                assert_eq!(settled.outcome, Outcome::AllowedOnce);
                settled.consume(digest, deadline).unwrap();
                settled_count += 1;
            }
            settled_count
        }));
    }
    let settled: u64 = hooks.into_iter().map(|h| h.join().unwrap()).sum();
    for panel in panels {
        panel.join().unwrap();
    }
    assert_eq!(settled, HOOKS * ASKS);
    assert_eq!(accepted.load(Ordering::SeqCst), total);
    assert_eq!(
        duplicates.load(Ordering::SeqCst),
        total,
        "the other panel's answer is refused"
    );
    assert_eq!(server.pending_count(), 0);
}

/// A token from a fresh pairing secret (the start one is single-use).
fn pair_fresh(server: &seal_serve::RunningServer) -> String {
    match seal_serve::client::request(server.socket(), &seal_serve::hookwire::HookLine::Pair) {
        Ok(seal_serve::hookwire::ServerLine::Pairing { url }) => {
            crate::support::pair_with(server.port(), &url)
        }
        other => panic!("{other:?}"),
    }
}
