//! A fleet: several servers on one Redis database (spec/approval-server.md, "Fleet store
//! (Redis)"). A hook on one server is answered from the panel of another; under load every
//! approval settles exactly once; a killed server comes back with the same rpc ids; a Redis
//! that is down refuses asks and answers (`store`); and the compare-and-set's negative control
//! (writes without the version check) settles one approval twice.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use seal_record::Outcome;
use seal_serve::client::{wait_for_answer, ClientError};
use seal_serve::hookwire::{HookLine, ServerLine};
use seal_serve::{start, FleetStore, RedisAddress, RunningServer, ServeConfig};
use seal_test_support::redis_server::{self, PrivateServer};

use crate::support::{api, ask, fail, hook, pair, pair_with, respond, response, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

/// Each test's own database of the test server (emptied first).
const CROSS_DB: u32 = 10;
const LOAD_DB: u32 = 11;
const RESTART_DB: u32 = 12;
const CAS_DB: u32 = 13;
const UNCHECKED_DB: u32 = 14;
const DEADLINE_DB: u32 = 15;

/// A server of the fleet on `url`, in `place`.
fn config(place: &Place, url: &str) -> ServeConfig {
    let mut config = place.config();
    config.fleet = Some(FleetStore::new(
        RedisAddress::parse(url).unwrap_or_else(|e| fail(e)),
    ));
    config
}

fn member(place: &Place, url: &str) -> RunningServer {
    start(config(place, url)).unwrap_or_else(|e| fail(e))
}

/// A token from a fresh pairing secret (the start one is single-use).
fn pair_fresh(server: &RunningServer) -> String {
    match seal_serve::client::request(server.socket(), &HookLine::Pair) {
        Ok(ServerLine::Pairing { url }) => pair_with(server.port(), &url),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hook_on_one_server_is_answered_from_the_panel_of_another() {
    let url = redis_server::database(CROSS_DB);
    let (place_a, place_b) = (Place::new(), Place::new());
    let a = member(&place_a, &url);
    let b = member(&place_b, &url);
    let token_b = pair(&b);
    let mut panel_b = Panel::connect(b.port(), &token_b);

    let the_ask = ask("session-x", 1, WAIT);
    let digest = the_ask.arguments_digest;
    let (waiting, registered) = hook(a.socket(), the_ask, WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let requested = panel_b.until("approval/requested", |frame| frame["rpc_id"] == rpc_id);
    assert_eq!(requested["approval_id"], "approval-1");
    assert_eq!(requested["card"], "Bash: echo 1");
    assert_eq!(b.pending_count(), 1);

    let receipt = respond(
        b.port(),
        &token_b,
        &response(rpc_id, "session-x", "approval-1", "allowed-once"),
    );
    assert_eq!(receipt["accepted"], true, "{receipt}");
    panel_b.until("approval/resolved", |frame| frame["rpc_id"] == rpc_id);

    let mut settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.rpc_id, rpc_id);
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
    settled
        .consume(digest, Instant::now() + WAIT)
        .unwrap_or_else(|e| fail(e));
    // Spent once, fleet-wide: neither server spends it again.
    for server in [&a, &b] {
        let again = seal_serve::client::request(
            server.socket(),
            &HookLine::Consume {
                rpc_id,
                arguments_digest: digest,
            },
        );
        match again {
            Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "already-consumed"),
            other => panic!("{other:?}"),
        }
    }
    // A second answer on the hook's own server is refused: the entry settled on the other.
    let token_a = pair(&a);
    let receipt = respond(
        a.port(),
        &token_a,
        &response(rpc_id, "session-x", "approval-1", "rejected"),
    );
    assert_eq!(receipt["accepted"], false, "{receipt}");
    assert_eq!(a.pending_count(), 0);
}

const HOOKS: u64 = 4;
const ASKS: u64 = 50;

#[test]
fn under_load_across_two_servers_each_approval_settles_exactly_once() {
    let url = redis_server::database(LOAD_DB);
    let (place_a, place_b) = (Place::new(), Place::new());
    let servers = [member(&place_a, &url), member(&place_b, &url)];
    let total = usize::try_from(HOOKS * ASKS).unwrap();
    let started = Instant::now();
    let done = Arc::new(AtomicBool::new(false));
    // Accepted receipts per rpc id, and refusals by reason, over both panels.
    let accepted: Arc<Mutex<HashMap<u64, usize>>> = Arc::default();
    let refusals: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let mut panels = Vec::new();
    for server in &servers {
        let port = server.port();
        let token = pair_fresh(server);
        let mut panel = Panel::connect(port, &token);
        let (done, accepted, refusals) = (
            Arc::clone(&done),
            Arc::clone(&accepted),
            Arc::clone(&refusals),
        );
        panels.push(std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let Some(frame) = panel.next(Duration::from_millis(200)) else {
                    continue;
                };
                if frame["type"] != "approval/requested" {
                    continue;
                }
                let rpc_id = frame["rpc_id"].as_u64().unwrap();
                let body = response(
                    rpc_id,
                    frame["session_id"].as_str().unwrap(),
                    frame["approval_id"].as_str().unwrap(),
                    "allowed-once",
                );
                let receipt = api(port, "POST", "/api/respond", Some(&token), Some(&body)).json();
                if receipt["accepted"] == true {
                    *accepted.lock().unwrap().entry(rpc_id).or_default() += 1;
                } else {
                    let reason = receipt["reason"].as_str().unwrap_or("?").to_owned();
                    *refusals.lock().unwrap().entry(reason).or_default() += 1;
                }
            }
        }));
    }
    let consumed = Arc::new(AtomicUsize::new(0));
    let mut hooks = Vec::new();
    for h in 0..HOOKS {
        // Hooks 0 and 2 wait on server A, 1 and 3 on server B.
        let socket = servers[usize::try_from(h % 2).unwrap()].socket().to_owned();
        let consumed = Arc::clone(&consumed);
        hooks.push(std::thread::spawn(move || {
            let mut rpc_ids = Vec::new();
            for n in 0..ASKS {
                let the_ask = ask(&format!("fleet-{h}"), n, Duration::from_secs(120));
                let digest = the_ask.arguments_digest;
                let deadline = Instant::now() + Duration::from_secs(120);
                let mut settled = wait_for_answer(&socket, &the_ask, deadline, |_| {})
                    .unwrap_or_else(|e| fail(e));
                assert_eq!(settled.outcome, Outcome::AllowedOnce);
                settled
                    .consume(digest, deadline)
                    .unwrap_or_else(|e| fail(e));
                consumed.fetch_add(1, Ordering::SeqCst);
                rpc_ids.push(settled.rpc_id);
            }
            rpc_ids
        }));
    }
    let mut settled_ids: Vec<u64> = hooks.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let elapsed = started.elapsed();
    done.store(true, Ordering::SeqCst);
    for panel in panels {
        panel.join().unwrap();
    }
    let accepted = accepted.lock().unwrap();
    let refusals = refusals.lock().unwrap();
    let receipts: usize = accepted.values().sum();
    eprintln!(
        "fleet load: {total} asks over 2 servers in {elapsed:?}; {receipts} accepted receipts \
         for {} rpc ids; refusals {refusals:?}; {} consumed",
        accepted.len(),
        consumed.load(Ordering::SeqCst)
    );
    // 0 lost: every hook heard its allow and spent it.
    assert_eq!(settled_ids.len(), total);
    assert_eq!(consumed.load(Ordering::SeqCst), total);
    // rpc ids are unique fleet-wide.
    settled_ids.sort_unstable();
    settled_ids.dedup();
    assert_eq!(settled_ids.len(), total, "an rpc id was issued twice");
    // 0 double: exactly one accepted receipt per approval.
    assert_eq!(receipts, total);
    assert!(accepted.values().all(|count| *count == 1), "{accepted:?}");
    let mut answered: Vec<u64> = accepted.keys().copied().collect();
    answered.sort_unstable();
    assert_eq!(answered, settled_ids);
    assert!(
        refusals.keys().all(|reason| reason == "duplicate"),
        "{refusals:?}"
    );
    for server in &servers {
        assert_eq!(server.pending_count(), 0);
    }
}

#[test]
fn a_killed_server_comes_back_with_the_same_rpc_ids() {
    let url = redis_server::database(RESTART_DB);
    let (place_a, place_b) = (Place::new(), Place::new());
    let a = member(&place_a, &url);
    let b = member(&place_b, &url);
    let mut hooks = Vec::new();
    for n in 1..=3 {
        let (waiting, registered) = hook(a.socket(), ask("session-k", n, WAIT), WAIT);
        let rpc_id = registered.recv_timeout(WAIT).unwrap();
        hooks.push((n, rpc_id, waiting));
    }
    let issued: Vec<u64> = hooks.iter().map(|(_, rpc_id, _)| *rpc_id).collect();
    a.abort();

    let a = member(&place_a, &url);
    assert_eq!(a.pending_count(), 3);
    let token_a = pair(&a);
    let mut panel = Panel::connect(a.port(), &token_a);
    assert_eq!(panel.next(WAIT).unwrap()["type"], "hello");
    let mut replayed = Vec::new();
    for _ in 0..3 {
        let frame = panel.next(WAIT).unwrap();
        assert_eq!(frame["type"], "approval/requested");
        replayed.push(frame["rpc_id"].as_u64().unwrap());
    }
    assert_eq!(replayed, issued);
    // Answered from the other server; the hooks, reconnected to the restarted one, hear it.
    let token_b = pair(&b);
    for (n, rpc_id, _) in &hooks {
        let receipt = respond(
            b.port(),
            &token_b,
            &response(
                *rpc_id,
                "session-k",
                &format!("approval-{n}"),
                "allowed-once",
            ),
        );
        assert_eq!(receipt["accepted"], true, "{receipt}");
    }
    for (_, rpc_id, waiting) in hooks {
        let settled = waiting.join().unwrap().unwrap_or_else(|e| fail(e));
        assert_eq!(settled.rpc_id, rpc_id);
        assert_eq!(settled.outcome, Outcome::AllowedOnce);
    }
    // A fresh ask on either server gets an rpc id above every one issued.
    let (_waiting, registered) = hook(b.socket(), ask("session-k", 4, WAIT), WAIT);
    let fresh = registered.recv_timeout(WAIT).unwrap();
    assert!(fresh > issued.iter().copied().max().unwrap());
}

#[test]
fn a_deadline_times_out_once_whichever_server_ticks_first() {
    let url = redis_server::database(DEADLINE_DB);
    let (place_a, place_b) = (Place::new(), Place::new());
    let a = member(&place_a, &url);
    let b = member(&place_b, &url);
    let (token_a, token_b) = (pair(&a), pair(&b));
    let mut panels = [
        Panel::connect(a.port(), &token_a),
        Panel::connect(b.port(), &token_b),
    ];
    let the_ask = ask("session-t", 1, Duration::from_millis(500));
    let (waiting, registered) = hook(a.socket(), the_ask, Duration::from_secs(10));
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let settled = waiting.join().unwrap().unwrap_or_else(|e| fail(e));
    assert_eq!(settled.outcome, Outcome::Unavailable);
    assert_eq!(settled.cause, "timeout");
    for panel in &mut panels {
        let resolved = panel.until("approval/resolved", |frame| frame["rpc_id"] == rpc_id);
        assert_eq!(resolved["cause"], "timeout");
        // One resolution per panel: nothing else about this entry follows.
        while let Some(frame) = panel.next(Duration::from_millis(400)) {
            assert_ne!(frame["rpc_id"], rpc_id, "{frame}");
        }
    }
}

#[test]
fn a_redis_that_is_down_refuses_asks_and_answers() {
    let mut redis = PrivateServer::start();
    let place = Place::new();
    let server = member(&place, &redis.url());
    let token = pair(&server);
    let (waiting, registered) = hook(server.socket(), ask("session-d", 1, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    redis.stop();

    let receipt = respond(
        server.port(),
        &token,
        &response(rpc_id, "session-d", "approval-1", "allowed-once"),
    );
    assert_eq!(receipt["accepted"], false, "{receipt}");
    assert_eq!(receipt["reason"], "store", "{receipt}");
    let refused = wait_for_answer(
        server.socket(),
        &ask("session-d", 2, WAIT),
        Instant::now() + WAIT,
        |_| {},
    );
    match refused {
        Err(ClientError::Refused { reason, .. }) => assert_eq!(reason, "store"),
        other => panic!("{other:?}"),
    }
    // Nothing settled: the first entry is still pending, its hook still waiting.
    assert_eq!(server.pending_count(), 1);
    assert!(!waiting.is_finished());
}

#[test]
fn a_redis_that_lost_its_data_never_gets_an_rpc_id_issued_again() {
    let redis = PrivateServer::start();
    let place = Place::new();
    let server = member(&place, &redis.url());
    let (_first, registered) = hook(server.socket(), ask("session-l", 1, WAIT), WAIT);
    let first = registered.recv_timeout(WAIT).unwrap();
    // Redis restarted without persistence: the keys are gone, the version back to 0.
    let mut connection = redis_server::connect(&redis.url()).unwrap();
    redis::cmd("FLUSHDB").query::<()>(&mut connection).unwrap();
    let (_second, registered) = hook(server.socket(), ask("session-l", 2, WAIT), WAIT);
    let second = registered.recv_timeout(WAIT).unwrap();
    assert!(second > first, "rpc id {second} issued after {first}");
}

/// Registers one approval on server A, starts server B (which reads it pending and, polling
/// never, learns of changes only from its own writes), answers it on A and then on B: how many
/// answers were accepted.
fn answers_accepted_twice_over(db: u32, unchecked_writes: bool) -> usize {
    let url = redis_server::database(db);
    let (place_a, place_b) = (Place::new(), Place::new());
    let a = member(&place_a, &url);
    let (_waiting, registered) = hook(a.socket(), ask("session-c", 1, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let mut config_b = config(&place_b, &url);
    if let Some(fleet) = config_b.fleet.as_mut() {
        fleet.poll = Duration::from_secs(3600);
        fleet.unchecked_writes = unchecked_writes;
    }
    let b = start(config_b).unwrap_or_else(|e| fail(e));
    assert_eq!(b.pending_count(), 1);
    let body = response(rpc_id, "session-c", "approval-1", "allowed-once");
    let (token_a, token_b) = (pair(&a), pair(&b));
    let first = respond(a.port(), &token_a, &body);
    assert_eq!(first["accepted"], true, "{first}");
    let second = respond(b.port(), &token_b, &body);
    [first, second]
        .iter()
        .filter(|receipt| receipt["accepted"] == true)
        .count()
}

#[test]
fn the_version_check_lets_only_the_first_answer_settle() {
    assert_eq!(answers_accepted_twice_over(CAS_DB, false), 1);
}

/// The negative control: the same two answers with the version check switched off on one
/// server are both accepted, a double settlement the test above would catch.
#[test]
fn without_the_version_check_an_approval_settles_twice() {
    assert_eq!(answers_accepted_twice_over(UNCHECKED_DB, true), 2);
}
