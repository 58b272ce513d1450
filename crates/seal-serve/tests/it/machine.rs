//! An embedder's machine answerer plugged into the server (`RunningServer::answer_as_machine`):
//! it claims only its own agent's entries that have a call id, `allow-once` allows once, any
//! other option rejects, a cancellation cancels; what it settles reaches the hook and the panels.

use std::time::Duration;

use seal_policy::approval::{MachineResponse, Receipt, ResponseRefusal};
use seal_record::Outcome;

use crate::support::{ask, hook, pair, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn a_machine_answerer_settles_only_its_own_agents_calls() {
    let place = Place::new();
    let server = place.start();
    let token = pair(&server);
    let mut panel = Panel::connect(server.port(), &token);
    let _hello = panel.next(WAIT);

    let (allowed, registered) = hook(server.socket(), ask("session-m", 1, WAIT), WAIT);
    let rpc_allowed = registered.recv_timeout(WAIT).expect("registered");
    // Another agent's answerer cannot claim it.
    assert!(matches!(
        server.answer_as_machine(
            "codex",
            rpc_allowed,
            MachineResponse::Selected("allow-once")
        ),
        Some(Receipt::Refused(ResponseRefusal::Foreign { .. }))
    ));
    let receipt = server.answer_as_machine(
        "claude-code",
        rpc_allowed,
        MachineResponse::Selected("allow-once"),
    );
    assert!(matches!(receipt, Some(Receipt::Accepted(_))), "{receipt:?}");
    assert_eq!(
        allowed.join().expect("join").expect("settled").outcome,
        Outcome::AllowedOnce
    );
    let resolved = panel.until("approval/resolved", |frame| frame["rpc_id"] == rpc_allowed);
    assert_eq!(resolved["cause"], "machine-answered");
    // A second answer is a duplicate.
    assert!(matches!(
        server.answer_as_machine(
            "claude-code",
            rpc_allowed,
            MachineResponse::Selected("reject-once")
        ),
        Some(Receipt::Refused(ResponseRefusal::Duplicate { .. }))
    ));

    // An option the answerer does not know rejects.
    let (rejected, registered) = hook(server.socket(), ask("session-m", 2, WAIT), WAIT);
    let rpc_rejected = registered.recv_timeout(WAIT).expect("registered");
    let receipt = server.answer_as_machine(
        "claude-code",
        rpc_rejected,
        MachineResponse::Selected("allow-always"),
    );
    assert!(matches!(receipt, Some(Receipt::Accepted(_))), "{receipt:?}");
    assert_eq!(
        rejected.join().expect("join").expect("settled").outcome,
        Outcome::Rejected
    );

    // An entry without a call id is claimed by no machine answerer.
    let mut anonymous = ask("session-m", 3, WAIT);
    anonymous.call_id = None;
    let (pending, registered) = hook(server.socket(), anonymous, Duration::from_secs(2));
    let rpc_anonymous = registered.recv_timeout(WAIT).expect("registered");
    assert!(matches!(
        server.answer_as_machine(
            "claude-code",
            rpc_anonymous,
            MachineResponse::Selected("allow-once")
        ),
        Some(Receipt::Refused(ResponseRefusal::Foreign { .. }))
    ));
    assert!(pending.join().expect("join").is_err(), "nobody answered it");
}
