//! A hook and a panel: register, see, answer, settle, consume; and every refusal and host
//! outcome on the way.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use seal_record::{Outcome, Sha256Digest};
use seal_serve::client::{request, ClientError};
use seal_serve::hookwire::{HookLine, ServerLine};

use crate::support::{ask, hook, pair, respond, response, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn an_allow_reaches_the_hook_and_is_spent_once_for_its_call() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let token = pair(&server);
    let mut panel = Panel::connect(port, &token);
    let hello = panel.next(WAIT).unwrap();
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["approvers"], 0);
    assert!(
        hello["warning"].as_str().unwrap().contains("same user")
            || hello["warning"].as_str().unwrap().contains("your user")
    );

    let the_ask = ask("session-1", 1, WAIT);
    let digest = the_ask.arguments_digest;
    let (waiting, registered) = hook(server.socket(), the_ask, WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let requested = panel.until("approval/requested", |f| f["rpc_id"] == rpc_id);
    assert_eq!(requested["session_id"], "session-1");
    assert_eq!(requested["approval_id"], "approval-1");
    assert_eq!(requested["tool"], "Bash");
    assert_eq!(requested["command"], "echo 1");
    assert_eq!(requested["card"], "Bash: echo 1");
    assert_eq!(requested["call_id"], "call-1");
    assert_eq!(requested["agent"], "claude-code");
    // The challenge is the one the hook computes for this entry (seal-verify's).
    let challenge = seal_verify::webauthn::approval_challenge(
        rpc_id,
        "session-1",
        "approval-1",
        digest.as_bytes(),
        &[1; 32],
    );
    use base64::Engine as _;
    assert_eq!(
        requested["challenge"],
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(challenge)
    );

    let foreign = respond(
        port,
        &token,
        &response(rpc_id, "session-2", "approval-1", "allowed-once"),
    );
    assert_eq!(foreign["reason"], "foreign");
    let malformed = respond(
        port,
        &token,
        "{\"response\":{\"rpc_id\":1},\"assertion\":null}",
    );
    assert_eq!(malformed["reason"], "malformed");
    let stale = respond(
        port,
        &token,
        &response(999, "session-1", "approval-1", "allowed-once"),
    );
    assert_eq!(stale["reason"], "stale");

    let answer = response(rpc_id, "session-1", "approval-1", "allowed-once");
    assert_eq!(
        respond(port, &token, &answer),
        serde_json::json!({"accepted": true})
    );
    let duplicate = respond(port, &token, &answer);
    assert_eq!(duplicate["accepted"], false);
    assert_eq!(duplicate["reason"], "duplicate");

    let resolved = panel.until("approval/resolved", |f| f["rpc_id"] == rpc_id);
    assert_eq!(resolved["outcome"], "allowed-once");
    assert_eq!(resolved["cause"], "answered");

    let mut settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.rpc_id, rpc_id);
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
    assert_eq!(settled.cause, "answered");
    assert!(settled.assertion.is_none());
    let deadline = Instant::now() + WAIT;
    match settled.consume(Sha256Digest::of(b"{\"command\":\"rm -rf /\"}"), deadline) {
        Err(ClientError::Refused { reason, .. }) => assert_eq!(reason, "other-digest"),
        other => panic!("{other:?}"),
    }
    settled.consume(digest, deadline).unwrap();
    match settled.consume(digest, deadline) {
        Err(ClientError::Refused { reason, .. }) => assert_eq!(reason, "already-consumed"),
        other => panic!("{other:?}"),
    }
    // On a fresh connection too.
    match request(
        server.socket(),
        &HookLine::Consume {
            rpc_id,
            arguments_digest: digest,
        },
    ) {
        Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "already-consumed"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_rejection_settles_and_cannot_be_consumed() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let the_ask = ask("session-1", 2, WAIT);
    let digest = the_ask.arguments_digest;
    let (waiting, registered) = hook(server.socket(), the_ask, WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let receipt = respond(
        server.port(),
        &token,
        &response(rpc_id, "session-1", "approval-2", "rejected"),
    );
    assert_eq!(receipt["accepted"], true);
    let mut settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.outcome, Outcome::Rejected);
    match settled.consume(digest, Instant::now() + WAIT) {
        Err(ClientError::Refused { reason, .. }) => assert_eq!(reason, "not-allowed"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_hook_that_goes_away_cancels_its_entry() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let mut panel = Panel::connect(server.port(), &token);
    let line = HookLine::Ask(Box::new(ask("session-1", 3, WAIT))).to_line();
    let mut stream = UnixStream::connect(server.socket()).unwrap();
    stream.write_all(format!("{line}\n").as_bytes()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut answer = String::new();
    reader.read_line(&mut answer).unwrap();
    let rpc_id = match ServerLine::parse(answer.trim_end().as_bytes()).unwrap() {
        ServerLine::Registered {
            rpc_id,
            again,
            approvers,
        } => {
            assert!(!again);
            assert_eq!(approvers, 0);
            rpc_id
        }
        other => panic!("{other:?}"),
    };
    panel.until("approval/requested", |f| f["rpc_id"] == rpc_id);
    drop(reader);
    drop(stream);
    let resolved = panel.until("approval/resolved", |f| f["rpc_id"] == rpc_id);
    assert_eq!(resolved["outcome"], "cancelled");
    assert_eq!(resolved["cause"], "hook-gone");
    let late = respond(
        server.port(),
        &token,
        &response(rpc_id, "session-1", "approval-3", "allowed-once"),
    );
    assert_eq!(late["reason"], "late");
}

#[test]
fn a_panel_that_reconnects_gets_the_same_rpc_ids() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let (_waiting, registered) = hook(server.socket(), ask("session-1", 4, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let mut first = Panel::connect(server.port(), &token);
    let seen = first.until("approval/requested", |f| f["rpc_id"] == rpc_id);
    drop(first);
    let mut second = Panel::connect(server.port(), &token);
    assert_eq!(second.next(WAIT).unwrap()["type"], "hello");
    let replayed = second.next(WAIT).unwrap();
    assert_eq!(replayed, seen);
    // Settle it so the hook thread ends.
    respond(
        server.port(),
        &token,
        &response(rpc_id, "session-1", "approval-4", "rejected"),
    );
}

#[test]
fn a_deadline_settles_unavailable() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let mut panel = Panel::connect(server.port(), &token);
    let the_ask = ask("session-1", 5, Duration::from_millis(500));
    // The hook waits longer than the entry's deadline, to hear the server's timeout.
    let (waiting, registered) = hook(server.socket(), the_ask, Duration::from_secs(10));
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.outcome, Outcome::Unavailable);
    assert_eq!(settled.cause, "timeout");
    let resolved = panel.until("approval/resolved", |f| f["rpc_id"] == rpc_id);
    assert_eq!(resolved["cause"], "timeout");
}

#[test]
fn an_answer_elsewhere_cancels_the_oldest_matching_entry() {
    let place = Place::new();
    let server = place.start();
    let the_ask = ask("session-1", 6, WAIT);
    let digest = the_ask.arguments_digest;
    let (waiting, registered) = hook(server.socket(), the_ask, WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let other_tool = HookLine::Elsewhere {
        session_id: "session-1".to_owned(),
        tool: "Read".to_owned(),
        arguments_digest: digest,
    };
    assert_eq!(
        request(server.socket(), &other_tool).unwrap(),
        ServerLine::Cancelled(vec![])
    );
    let line = HookLine::Elsewhere {
        session_id: "session-1".to_owned(),
        tool: "Bash".to_owned(),
        arguments_digest: digest,
    };
    assert_eq!(
        request(server.socket(), &line).unwrap(),
        ServerLine::Cancelled(vec![rpc_id])
    );
    let settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.outcome, Outcome::Cancelled);
    assert_eq!(settled.cause, "answered-elsewhere");
}

#[test]
fn hook_lines_are_refused_by_name() {
    let place = Place::new();
    let server = place.start();
    let mut past = ask("session-1", 7, WAIT);
    past.deadline_ms = 1;
    match request(server.socket(), &HookLine::Ask(Box::new(past))) {
        Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "past-deadline"),
        other => panic!("{other:?}"),
    }
    let mut agent = ask("session-1", 8, WAIT);
    agent.agent = "not an id".to_owned();
    match request(server.socket(), &HookLine::Ask(Box::new(agent))) {
        Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "invalid-agent"),
        other => panic!("{other:?}"),
    }
    // The same approval for another call conflicts.
    let (_waiting, registered) = hook(server.socket(), ask("session-1", 9, WAIT), WAIT);
    registered.recv_timeout(WAIT).unwrap();
    let mut conflicting = ask("session-1", 9, WAIT);
    conflicting.arguments_digest = Sha256Digest::of(b"{}");
    match request(server.socket(), &HookLine::Ask(Box::new(conflicting))) {
        Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "conflicting"),
        other => panic!("{other:?}"),
    }
    let mut stream = UnixStream::connect(server.socket()).unwrap();
    stream.write_all(b"{\"op\":\"ask\"}\n").unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    assert!(
        answer.starts_with("{\"refused\":{\"reason\":\"malformed\""),
        "{answer}"
    );
}

#[test]
fn shutdown_settles_pending_entries_cancelled() {
    let place = Place::new();
    let server = place.start();
    let (waiting, registered) = hook(
        server.socket(),
        ask("session-1", 10, WAIT),
        Duration::from_secs(3),
    );
    registered.recv_timeout(WAIT).unwrap();
    server.shutdown();
    let settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.outcome, Outcome::Cancelled);
    assert_eq!(settled.cause, "shutdown");
}

#[test]
fn a_revoked_token_ends_its_event_stream() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let first = pair(&server);
    let second = match request(server.socket(), &HookLine::Pair) {
        Ok(ServerLine::Pairing { url }) => crate::support::pair_with(port, &url),
        other => panic!("{other:?}"),
    };
    let mut panel = Panel::connect(port, &first);
    assert_eq!(panel.next(WAIT).unwrap()["type"], "hello");
    let listed = crate::support::api(port, "GET", "/api/tokens", Some(&second), None).json();
    let tokens = listed["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    // The first token paired first.
    let id = tokens[0]["id"].as_str().unwrap();
    let revoked = crate::support::api(
        port,
        "DELETE",
        &format!("/api/tokens/{id}"),
        Some(&second),
        None,
    );
    assert_eq!(revoked.status, 200);
    let (_waiting, registered) = hook(server.socket(), ask("session-1", 11, WAIT), WAIT);
    registered.recv_timeout(WAIT).unwrap();
    assert!(
        panel.next(Duration::from_secs(5)).is_none(),
        "no frame after revocation"
    );
}
