//! The assertion seam: with an approver enrolled, an allow without a passing check is
//! `unauthenticated` and the entry stays pending; the assertion of an accepted allow reaches
//! the hook. A store that cannot write refuses the ask (`store`).

use std::sync::Arc;
use std::time::Duration;

use seal_record::Outcome;
use seal_serve::client::request;
use seal_serve::hookwire::{HookLine, ServerLine, WireAssertion};
use seal_serve::AllowCheck;

use crate::support::{ask, hook, pair, respond, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

/// One approver; an assertion passes when its credential id is `good` and its signature is the
/// challenge's hex (a stand-in for WebAuthn that still binds the entry).
struct OneApprover;

impl AllowCheck for OneApprover {
    fn approvers(&self) -> u64 {
        1
    }

    fn check(&self, challenge: &[u8; 32], assertion: Option<&WireAssertion>) -> Result<(), String> {
        match assertion {
            Some(a) if a.credential_id == "good" && a.signature == hex::encode(challenge) => Ok(()),
            Some(_) => Err("the assertion does not verify".to_owned()),
            None => Err("no assertion".to_owned()),
        }
    }
}

fn body(rpc_id: u64, approval: &str, outcome: &str, assertion: &str) -> String {
    format!(
        "{{\"response\":{{\"approval_id\":\"{approval}\",\"outcome\":\"{outcome}\",\"rpc_id\":{rpc_id},\"session_id\":\"session-a\"}},\"assertion\":{assertion}}}"
    )
}

fn assertion(signature: &str) -> String {
    format!(
        "{{\"credential_id\":\"good\",\"client_data_json\":\"e30\",\"authenticator_data\":\"AA\",\"signature\":\"{signature}\"}}"
    )
}

#[test]
fn an_enrolled_approver_gates_allows_but_not_rejections() {
    let place = Place::new();
    let mut config = place.config();
    config.allow_check = Arc::new(OneApprover);
    let server = seal_serve::start(config).unwrap();
    let port = server.port();
    let token = pair(&server);
    let mut panel = Panel::connect(port, &token);
    let hello = panel.next(WAIT).unwrap();
    assert_eq!(hello["approvers"], 1);
    assert!(hello["warning"].is_null());

    let (waiting, registered) = hook(server.socket(), ask("session-a", 1, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let requested = panel.until("approval/requested", |f| f["rpc_id"] == rpc_id);
    let challenge = base64_decode(requested["challenge"].as_str().unwrap());

    let bare = respond(
        port,
        &token,
        &body(rpc_id, "approval-1", "allowed-once", "null"),
    );
    assert_eq!(bare["reason"], "unauthenticated");
    let wrong = respond(
        port,
        &token,
        &body(rpc_id, "approval-1", "allowed-once", &assertion("00")),
    );
    assert_eq!(wrong["reason"], "unauthenticated");
    // Still pending: a valid assertion over this entry's challenge is accepted.
    let good = assertion(&hex::encode(challenge));
    let accepted = respond(
        port,
        &token,
        &body(rpc_id, "approval-1", "allowed-once", &good),
    );
    assert_eq!(accepted["accepted"], true, "{accepted}");
    let settled = waiting.join().unwrap().unwrap();
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
    assert_eq!(settled.approvers, 1);
    let forwarded = settled.assertion.expect("the assertion reaches the hook");
    assert_eq!(forwarded.signature, hex::encode(challenge));

    // A rejection needs no assertion.
    let (waiting, registered) = hook(server.socket(), ask("session-a", 2, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let rejected = respond(
        port,
        &token,
        &body(rpc_id, "approval-2", "rejected", "null"),
    );
    assert_eq!(rejected["accepted"], true);
    assert_eq!(waiting.join().unwrap().unwrap().outcome, Outcome::Rejected);
}

fn base64_decode(text: &str) -> [u8; 32] {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
        .try_into()
        .unwrap()
}

#[test]
fn a_store_that_cannot_write_refuses_the_ask() {
    let place = Place::new();
    let server = place.start();
    let blocker = rusqlite::Connection::open(place.store()).unwrap();
    blocker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    match request(
        server.socket(),
        &HookLine::Ask(Box::new(ask("session-s", 1, WAIT))),
    ) {
        Ok(ServerLine::Refused { reason, .. }) => assert_eq!(reason, "store"),
        other => panic!("{other:?}"),
    }
    blocker.execute_batch("ROLLBACK").unwrap();
    drop(blocker);
    // Once the store writes again, new asks register.
    let (_waiting, registered) = hook(server.socket(), ask("session-s", 2, WAIT), WAIT);
    registered.recv_timeout(WAIT).unwrap();
}

#[test]
fn a_settled_allow_its_assertion_and_its_consumption_survive_a_restart() {
    let place = Place::new();
    let start = || {
        let mut config = place.config();
        config.allow_check = Arc::new(OneApprover);
        seal_serve::start(config).unwrap()
    };
    let server = start();
    let token = pair(&server);
    let the_ask = ask("session-a", 3, WAIT);
    let digest = the_ask.arguments_digest;
    let line = HookLine::Ask(Box::new(the_ask.clone()));
    let (waiting, registered) = hook(server.socket(), the_ask.clone(), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).unwrap();
    let mut panel = Panel::connect(server.port(), &token);
    let requested = panel.until("approval/requested", |f| f["rpc_id"] == rpc_id);
    let signature = hex::encode(base64_decode(requested["challenge"].as_str().unwrap()));
    let receipt = respond(
        server.port(),
        &token,
        &body(rpc_id, "approval-3", "allowed-once", &assertion(&signature)),
    );
    assert_eq!(receipt["accepted"], true);
    waiting.join().unwrap().unwrap();
    server.abort();

    // The hook asks again after the restart: the same rpc id, settled, with the assertion.
    let server = start();
    let mut hook_again = seal_serve::client::wait_for_answer(
        server.socket(),
        &the_ask,
        std::time::Instant::now() + WAIT,
        |_| {},
    )
    .unwrap();
    assert_eq!(hook_again.rpc_id, rpc_id);
    assert_eq!(hook_again.outcome, Outcome::AllowedOnce);
    assert_eq!(hook_again.assertion.as_ref().unwrap().signature, signature);
    hook_again
        .consume(digest, std::time::Instant::now() + WAIT)
        .unwrap();
    server.abort();

    // Spent stays spent.
    let server = start();
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
    match request(server.socket(), &line) {
        Err(error) => panic!("{error}"),
        Ok(answer) => assert!(
            matches!(answer, ServerLine::Registered { again: true, .. }),
            "{answer:?}"
        ),
    }
}
