//! Cancellation races of the approval state machine: one test per rule, named by the behaviour,
//! plus an exhaustive check of every event sequence up to length 6.

use std::cell::Cell;
use std::rc::Rc;

use seal_policy::approval::{
    answer_with, Action, Answer, ApprovalMachine, ApprovalPolicy, ApprovalRequest, ApprovalService,
    Asking, Caller, DispatchVerdict, Event, Ignored, Outcome, Phase, Reply, Unanswered,
};
use seal_record::ApprovalAsked;

fn service_with(answer: Answer, consulted: &Rc<Cell<usize>>) -> ApprovalService {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let seen = Rc::clone(consulted);
    service
        .register(answer_with(move |_| {
            seen.set(seen.get() + 1);
            answer
        }))
        .unwrap();
    service
}

fn ask(service: &mut ApprovalService, already_cancelled: bool) -> Asking {
    let caller = Caller::in_turn("session-1", "agent-1");
    let request = ApprovalRequest::new("Bash")
        .with_call_id("call-1")
        .with_reason("runs the tests");
    service.ask(&caller, &request, already_cancelled).unwrap()
}

fn decided(effects: &[Action]) -> Vec<Outcome> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Action::Decided(decided) => Some(decided.outcome()),
            _ => None,
        })
        .collect()
}

fn dispatch(asking: &mut Asking) -> DispatchVerdict {
    verdict(&asking.step(Event::DispatchCheck))
}

fn verdict(effects: &[Action]) -> DispatchVerdict {
    match effects {
        [Action::Dispatch(verdict)] => *verdict,
        other => panic!("dispatch check gave {other:?}"),
    }
}

#[test]
fn already_cancelled_request_settles_cancelled_before_any_answerer() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::AllowOnce, &consulted);
    let mut asking = ask(&mut service, true);
    assert_eq!(consulted.get(), 0, "no answerer may be consulted");
    assert!(!asking.consulted_answerers());
    assert_eq!(asking.outcome(), Some(Outcome::Cancelled));
    assert!(matches!(
        asking.audit(),
        [Action::Asked(_), Action::Decided(_)]
    ));
    assert_eq!(decided(asking.audit()), vec![Outcome::Cancelled]);
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::AbortedBeforeDispatch
    );
}

#[test]
fn answer_after_cancellation_is_a_no_op() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Pending, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(consulted.get(), 1);
    assert_eq!(asking.machine().phase(), Phase::Consulting);
    let cancel = asking.step(Event::Cancel);
    assert_eq!(decided(&cancel), vec![Outcome::Cancelled]);
    for late in [
        Event::Answer(Reply::AllowOnce),
        Event::Answer(Reply::Reject),
        Event::Unanswered(Unanswered::Unavailable),
    ] {
        assert_eq!(
            asking.step(late),
            vec![Action::Ignored(Ignored::LateAnswer)]
        );
    }
    assert_eq!(asking.machine().outcome(), Some(Outcome::Cancelled));
    assert_eq!(decided(asking.audit()), vec![Outcome::Cancelled]);
}

#[test]
fn cancellation_overtaking_approval_gives_aborted_before_dispatch() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Pending, &consulted);
    let mut asking = ask(&mut service, false);
    asking.step(Event::Cancel);
    asking.step(Event::Answer(Reply::AllowOnce));
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::AbortedBeforeDispatch
    );
}

#[test]
fn cancellation_after_allowed_once_but_before_dispatch_aborts() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::AllowOnce, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(asking.outcome(), Some(Outcome::AllowedOnce));
    assert_eq!(asking.step(Event::Cancel), vec![]);
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::AbortedBeforeDispatch
    );
}

#[test]
fn completed_denial_that_settles_before_cancellation_is_kept() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Reject, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(asking.outcome(), Some(Outcome::Rejected));
    asking.step(Event::Cancel);
    assert_eq!(asking.machine().outcome(), Some(Outcome::Rejected));
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::Denied(Outcome::Rejected)
    );
}

#[test]
fn completed_unavailable_that_settles_before_cancellation_is_kept() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Delegate, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(asking.outcome(), Some(Outcome::Unavailable));
    asking.step(Event::Cancel);
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::Denied(Outcome::Unavailable)
    );
}

#[test]
fn never_policy_rejection_is_kept_even_when_already_cancelled() {
    let mut service = ApprovalService::new(ApprovalPolicy::Never);
    let mut asking = ask(&mut service, true);
    assert_eq!(asking.outcome(), Some(Outcome::Rejected));
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::Denied(Outcome::Rejected)
    );
}

#[test]
fn second_cancellation_is_a_no_op() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Pending, &consulted);
    let mut asking = ask(&mut service, false);
    asking.step(Event::Cancel);
    assert_eq!(
        asking.step(Event::Cancel),
        vec![Action::Ignored(Ignored::AlreadyCancelled)]
    );
}

#[test]
fn allowed_once_covers_exactly_one_dispatch() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::AllowOnce, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(dispatch(&mut asking), DispatchVerdict::Proceed);
    assert_eq!(dispatch(&mut asking), DispatchVerdict::AlreadyChecked);
}

#[test]
fn dispatch_check_while_waiting_denies_and_keeps_waiting() {
    let consulted = Rc::new(Cell::new(0));
    let mut service = service_with(Answer::Pending, &consulted);
    let mut asking = ask(&mut service, false);
    assert_eq!(dispatch(&mut asking), DispatchVerdict::NotSettled);
    assert_eq!(asking.machine().phase(), Phase::Consulting);
    asking.step(Event::Answer(Reply::AllowOnce));
    assert_eq!(dispatch(&mut asking), DispatchVerdict::Proceed);
}

#[test]
fn answer_before_ask_is_ignored() {
    let mut machine = fresh_machine();
    assert_eq!(
        machine.step(Event::Answer(Reply::AllowOnce)),
        vec![Action::Ignored(Ignored::NotAsked)]
    );
    assert_eq!(
        verdict(&machine.step(Event::DispatchCheck)),
        DispatchVerdict::NotSettled
    );
}

fn fresh_machine() -> ApprovalMachine {
    ApprovalMachine::new(ApprovalAsked::new("approval-1", "Bash", Some("call-1"), None).unwrap())
        .unwrap()
}

const EVENTS: [Event; 8] = [
    Event::Ask(ApprovalPolicy::OnRequest),
    Event::Ask(ApprovalPolicy::Never),
    Event::Answer(Reply::AllowOnce),
    Event::Answer(Reply::Reject),
    Event::Unanswered(Unanswered::Unavailable),
    Event::Unanswered(Unanswered::Rejected),
    Event::Cancel,
    Event::DispatchCheck,
];

/// Every sequence of up to six events: at most one `approval/asked`, at most one
/// `approval/decided` and only after it, `Proceed` at most once and only for a first settling
/// answer `allow-once` asked under `on-request` with no cancellation before the dispatch check.
#[test]
fn every_event_sequence_up_to_six_keeps_the_rules() {
    let mut sequences = 0usize;
    let mut proceeded = 0usize;
    let mut stack: Vec<Vec<Event>> = vec![vec![]];
    while let Some(sequence) = stack.pop() {
        check_sequence(&sequence, &mut proceeded);
        sequences += 1;
        if sequence.len() < 6 {
            for event in EVENTS {
                let mut longer = sequence.clone();
                longer.push(event);
                stack.push(longer);
            }
        }
    }
    assert_eq!(sequences, (0..=6).map(|n| 8usize.pow(n)).sum::<usize>());
    assert!(proceeded > 0, "some sequence must proceed");
}

fn check_sequence(sequence: &[Event], proceeded: &mut usize) {
    let mut machine = fresh_machine();
    let mut asked = 0;
    let mut decided_outcome: Option<Outcome> = None;
    let mut cancelled = false;
    let mut first_ask: Option<ApprovalPolicy> = None;
    let mut proceeds = 0;
    for &event in sequence {
        let effects = machine.step(event);
        for effect in &effects {
            match effect {
                Action::Asked(_) => asked += 1,
                Action::Decided(record) => {
                    assert_eq!(asked, 1, "{sequence:?}: decided before asked");
                    assert!(decided_outcome.is_none(), "{sequence:?}: decided twice");
                    decided_outcome = Some(record.outcome());
                }
                Action::Consult => assert_eq!(
                    first_ask.or(match event {
                        Event::Ask(policy) => Some(policy),
                        _ => None,
                    }),
                    Some(ApprovalPolicy::OnRequest),
                    "{sequence:?}: consulted under never"
                ),
                Action::Dispatch(DispatchVerdict::Proceed) => {
                    proceeds += 1;
                    assert_eq!(decided_outcome, Some(Outcome::AllowedOnce), "{sequence:?}");
                    assert!(!cancelled, "{sequence:?}: proceeded after cancellation");
                    assert_eq!(first_ask, Some(ApprovalPolicy::OnRequest), "{sequence:?}");
                }
                Action::Dispatch(_) | Action::Ignored(_) => {}
            }
        }
        match event {
            Event::Cancel => cancelled = true,
            Event::Ask(policy) if first_ask.is_none() => first_ask = Some(policy),
            _ => {}
        }
        assert!(asked <= 1, "{sequence:?}: asked twice");
    }
    assert!(proceeds <= 1, "{sequence:?}: allowed-once used twice");
    *proceeded += proceeds;
}

#[test]
fn dispatch_verdicts_have_distinct_messages() {
    let verdicts = [
        DispatchVerdict::Proceed,
        DispatchVerdict::Denied(Outcome::Rejected),
        DispatchVerdict::Denied(Outcome::Unavailable),
        DispatchVerdict::AbortedBeforeDispatch,
        DispatchVerdict::NotSettled,
        DispatchVerdict::AlreadyChecked,
    ];
    let messages: Vec<String> = verdicts.iter().map(ToString::to_string).collect();
    let mut unique = messages.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), messages.len());
    assert_eq!(messages[1], "approval was rejected");
    assert!(verdicts.iter().filter(|v| v.proceeds()).count() == 1);
}
