//! A server stopped as if killed, restarted on the same store: nothing pending is lost, the
//! hooks reconnect to the rpc ids first issued, the panel replays them, and the answers land.

use std::time::Duration;

use seal_record::Outcome;

use crate::support::{ask, hook, pair, respond, response, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_restart_keeps_pending_approvals_and_their_rpc_ids() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let mut hooks = Vec::new();
    for n in 1..=3 {
        let (waiting, registered) = hook(server.socket(), ask("session-r", n, WAIT), WAIT);
        let rpc_id = registered.recv_timeout(WAIT).unwrap();
        hooks.push((n, rpc_id, waiting));
    }
    server.abort();

    let server = place.start();
    assert_eq!(server.pending_count(), 3);
    // The token survived; the panel replays the same rpc ids.
    let mut panel = Panel::connect(server.port(), &token);
    assert_eq!(panel.next(WAIT).unwrap()["type"], "hello");
    let mut replayed = Vec::new();
    for _ in 0..3 {
        let frame = panel.next(WAIT).unwrap();
        assert_eq!(frame["type"], "approval/requested");
        replayed.push(frame["rpc_id"].as_u64().unwrap());
    }
    let issued: Vec<u64> = hooks.iter().map(|(_, rpc_id, _)| *rpc_id).collect();
    assert_eq!(replayed, issued);
    for (n, rpc_id, _) in &hooks {
        let receipt = respond(
            server.port(),
            &token,
            &response(
                *rpc_id,
                "session-r",
                &format!("approval-{n}"),
                "allowed-once",
            ),
        );
        assert_eq!(receipt["accepted"], true, "{receipt}");
    }
    for (_, rpc_id, waiting) in hooks {
        let settled = waiting.join().unwrap().unwrap();
        assert_eq!(settled.rpc_id, rpc_id);
        assert_eq!(settled.outcome, Outcome::AllowedOnce);
    }
    // A new ask after the restart gets a fresh rpc id above every one issued before.
    let (_waiting, registered) = hook(server.socket(), ask("session-r", 4, WAIT), WAIT);
    let fresh = registered.recv_timeout(WAIT).unwrap();
    assert!(fresh > issued.iter().copied().max().unwrap());
}
