//! Asking for approval (`pipeline::PendingApproval::ask`): the asked record carries the call's tool and
//! id and the reason escaped to printable ASCII, cut at `MAX_APPROVAL_REASON_CHARS` with a
//! marker that says how much was left out; the card shows the approval id, the standing sandbox
//! mode and an escalation's target; a bad approval id is refused.

use seal_policy::assembly::{Policy, PolicyBuilder};
use seal_policy::chain::{Listener, Next, Ruling, Scope, StageError, ToolCall};
use seal_policy::escalation::EscalationFields;
use seal_policy::pipeline::{PendingApproval, Prepared, MAX_APPROVAL_REASON_CHARS};
use seal_policy::preset::Session;
use seal_test_support::tool_call::bash_call;

/// A listener that asks with a fixed reason.
struct Asks(String);

impl Listener for Asks {
    fn decide(&self, _call: &ToolCall, _next: Next<'_>) -> Result<Ruling, StageError> {
        Ok(Ruling::ask(self.0.clone()))
    }
}

fn policy(reason: &str) -> Policy {
    PolicyBuilder::new()
        .prepend_listener("asker", Scope::everywhere(), Asks(reason.to_owned()))
        .build()
        .unwrap()
}

fn awaiting<'a>(
    policy: &'a Policy,
    session: &Session,
    call: &'a ToolCall,
    escalation: &EscalationFields<'_>,
) -> PendingApproval<'a> {
    match policy.pipeline.decide(session, call, escalation) {
        Prepared::NeedsApproval(awaiting) => awaiting,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_record_and_card_carry_the_call_and_the_escaped_reason() {
    let policy = policy("check\u{1b}[2J this \u{202e}call");
    let session = Session::fresh(&policy.settings);
    let call = bash_call("make deploy");
    let waiting = awaiting(&policy, &session, &call, &EscalationFields::default());
    let (asked, card) = waiting.ask("ap-7", &call).unwrap();
    assert_eq!(asked.id(), "ap-7");
    assert_eq!(asked.tool(), "Bash");
    assert_eq!(asked.call_id(), Some("c1"));
    let reason = asked.reason().unwrap();
    assert!(
        reason.bytes().all(|b| (0x20..0x7f).contains(&b)),
        "{reason}"
    );
    assert!(
        reason.starts_with("check") && reason.ends_with("call"),
        "{reason}"
    );
    assert_ne!(reason, "check\u{1b}[2J this \u{202e}call");
    assert!(card.contains("ap-7"), "{card}");
    assert!(card.contains("make deploy"), "{card}");
    assert!(card.contains("workspace-write"), "{card}");
    assert!(!card.contains("escalation"), "{card}");
    assert!(
        card.lines().all(|line| line.len() <= 80 && line.is_ascii()),
        "{card}"
    );
}

#[test]
fn a_long_reason_is_cut_with_a_marker_that_counts_what_was_left_out() {
    for (len, cut) in [
        (MAX_APPROVAL_REASON_CHARS - 1, false),
        (MAX_APPROVAL_REASON_CHARS, false),
        (MAX_APPROVAL_REASON_CHARS + 1, true),
        (3 * MAX_APPROVAL_REASON_CHARS, true),
    ] {
        let policy = policy(&"r".repeat(len));
        let session = Session::fresh(&policy.settings);
        let call = bash_call("make");
        let waiting = awaiting(&policy, &session, &call, &EscalationFields::default());
        let (asked, _) = waiting.ask("ap-1", &call).unwrap();
        let reason = asked.reason().unwrap();
        if cut {
            let marker = format!(
                " [... {} characters elided]",
                len - MAX_APPROVAL_REASON_CHARS
            );
            assert_eq!(
                reason,
                format!("{}{marker}", "r".repeat(MAX_APPROVAL_REASON_CHARS)),
                "{len}"
            );
        } else {
            assert_eq!(reason, "r".repeat(len), "{len}");
        }
    }
}

#[test]
fn an_escalation_shows_its_target_and_a_bad_id_is_refused() {
    let policy = policy("needs the network");
    let session = Session::fresh(&policy.settings);
    let call = bash_call("curl https://example.com");
    let escalation = EscalationFields::new("danger-full-access", "fetch the release notes");
    let waiting = awaiting(&policy, &session, &call, &escalation);
    let (_, card) = waiting.ask("ap-2", &call).unwrap();
    assert!(
        card.contains("workspace-write -> danger-full-access (escalation for this call only"),
        "{card}"
    );
    assert!(waiting.ask("bad id", &call).is_err());
    assert!(waiting.ask("", &call).is_err());
}
