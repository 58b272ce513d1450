//! The decision pipeline and escalation through the approval service drive a request through the
//! same driver (`approval::Asking`): for every standing policy, answer and cancellation, the same
//! request gives the same questions to the answerers, the same audit records, the same outcome,
//! and a run in the escalated mode exactly when the escalation is granted. A claim, which the
//! synchronous pipeline cannot wait for, is the one difference: the pipeline settles it
//! `unavailable`, as the service's request does when told so.

use std::cell::RefCell;
use std::rc::Rc;

use seal_policy::approval::{
    answer_with, Answer, Answerer, ApprovalPolicy, ApprovalService, Caller, DispatchVerdict,
    Outcome,
};
use seal_policy::chain::{Chain, Decision, DenyCause, ToolCall};
use seal_policy::escalation::{
    ask_escalation, check_escalation, EscalationFields, EscalationLimits, NotGranted,
};
use seal_policy::pipeline::{Answering, Pipeline, Prepared};
use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, Session};
use seal_test_support::tool_call::bash_call;

const TARGET: &str = "danger-full-access";
const JUSTIFICATION: &str = "fetch the crates";

/// One answerer that records the questions it sees and answers `answer`; `None` is no answerer.
fn answerers(answer: Option<Answer>, seen: &Rc<RefCell<Vec<String>>>) -> Vec<Box<dyn Answerer>> {
    let seen = Rc::clone(seen);
    answer
        .map(|answer| {
            answer_with(move |question| {
                seen.borrow_mut().push(format!("{question:?}"));
                answer
            })
        })
        .into_iter()
        .collect()
}

/// What one path did with the request.
#[derive(Debug, PartialEq, Eq)]
struct Observed {
    questions: Vec<String>,
    audit: Vec<seal_policy::approval::Action>,
    outcome: Outcome,
    granted: Option<SandboxMode>,
}

/// The escalation path: `ask_escalation` through an approval service, then (as the pipeline does
/// with a claim it cannot wait for) `unavailable` for a request still pending, then the dispatch
/// check.
fn through_the_service(
    policy: ApprovalPolicy,
    answer: Option<Answer>,
    cancelled: bool,
) -> Observed {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut service = ApprovalService::new(policy);
    for answerer in answerers(answer, &seen) {
        service.register(answerer).unwrap();
    }
    let escalation = check_escalation(
        &EscalationFields::new(TARGET, JUSTIFICATION),
        SandboxMode::WorkspaceWrite,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap()
    .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    let mut asked = ask_escalation(
        Some(&mut service),
        &caller,
        "Bash",
        "c1",
        &escalation,
        cancelled,
    )
    .unwrap();
    if answer == Some(Answer::Pending) && !cancelled && policy == ApprovalPolicy::OnRequest {
        assert_eq!(asked.grant(), Err(NotGranted::Pending));
        asked.asking.settle(Outcome::Unavailable);
    }
    let granted = asked.grant().ok().map(|grant| grant.mode());
    let outcome = asked.asking.outcome().unwrap();
    let verdict = asked.asking.dispatch_check();
    assert_eq!(verdict.proceeds(), granted.is_some());
    if let DispatchVerdict::Denied(denied) = verdict {
        assert_eq!(denied, outcome);
    }
    let questions = seen.borrow().clone();
    Observed {
        questions,
        audit: asked.asking.into_audit(),
        outcome,
        granted,
    }
}

/// The pipeline path: the call carries the escalation, the chain allows, and the approval is
/// settled with the answerers (or, when cancelled, with the cancellation).
fn through_the_pipeline(
    policy: ApprovalPolicy,
    answer: Option<Answer>,
    cancelled: bool,
) -> Observed {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut answerers = answerers(answer, &seen);
    let pipeline = Pipeline::new(Chain::new(Decision::Allow), Executor::CONFINING);
    let session = Session::fresh(&PermissionState::from_knobs(Knobs {
        sandbox: SandboxMode::WorkspaceWrite,
        approval: policy,
    }));
    let call: ToolCall = bash_call("cargo fetch");
    let fields = EscalationFields::new(TARGET, JUSTIFICATION);
    let Prepared::NeedsApproval(awaiting) = pipeline.decide(&session, &call, &fields) else {
        panic!("an escalation waits for approval");
    };
    let (asked, _) = awaiting.ask("approval-1", &call).unwrap();
    let answering = if cancelled {
        Answering::Outcome(Outcome::Cancelled)
    } else {
        Answering::Answerers(&mut answerers)
    };
    let settled = awaiting.settle(&asked, "s1", "a1", answering);
    let questions = seen.borrow().clone();
    match settled {
        Ok(run) => {
            assert!(run.escalated());
            Observed {
                questions,
                audit: run.audit().to_vec(),
                outcome: Outcome::AllowedOnce,
                granted: Some(run.stamp().mode),
            }
        }
        Err(deny) => {
            let DenyCause::Approval(outcome) = deny.cause() else {
                panic!("{:?}", deny.cause());
            };
            Observed {
                questions,
                audit: deny.audit().to_vec(),
                outcome,
                granted: None,
            }
        }
    }
}

#[test]
fn the_pipeline_and_escalation_settle_the_same_request_alike() {
    let answers = [
        None,
        Some(Answer::AllowOnce),
        Some(Answer::Reject),
        Some(Answer::Delegate),
        Some(Answer::Pending),
    ];
    let mut outcomes = Vec::new();
    for policy in [ApprovalPolicy::OnRequest, ApprovalPolicy::Never] {
        for answer in answers {
            for cancelled in [false, true] {
                let service = through_the_service(policy, answer, cancelled);
                let pipeline = through_the_pipeline(policy, answer, cancelled);
                assert_eq!(service, pipeline, "{policy:?} {answer:?} {cancelled}");
                assert_eq!(service.audit.len(), 2, "{policy:?} {answer:?} {cancelled}");
                outcomes.push(service.outcome);
            }
        }
    }
    for outcome in [
        Outcome::AllowedOnce,
        Outcome::Rejected,
        Outcome::Cancelled,
        Outcome::Unavailable,
    ] {
        assert!(outcomes.contains(&outcome), "no scenario settled {outcome}");
    }
    let granted = through_the_service(ApprovalPolicy::OnRequest, Some(Answer::AllowOnce), false);
    assert_eq!(granted.granted, Some(SandboxMode::DangerFullAccess));
    assert_eq!(granted.questions.len(), 1);
}
