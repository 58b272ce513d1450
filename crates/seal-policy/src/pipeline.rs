//! One call's decision, in its one order: the escalation request, the waterfall (listeners, the
//! rules, the fallback), approval, the guards, and the sandbox stamp the call runs with
//! (spec/policy.md section 10.4.1).
//!
//! [`Pipeline::decide`] checks the escalation request first (an invalid one denies before any
//! stage runs), then evaluates the chain. A deny ends there; an allow without escalation runs
//! with the standing stamp; an ask, or a valid escalation, waits for approval
//! ([`PendingApproval`]). [`PendingApproval::settle`] runs the approval state machine for the request the
//! embedder recorded (the answerers in order, or an outcome obtained elsewhere), then the
//! dispatch check, then the guards, and stamps the call: the escalation's mode for this call
//! only when one was granted, else the standing mode. Only `allowed-once` can lead to a run, and
//! only when every guard passes.
//!
//! ```
//! use seal_policy::chain::{Chain, Decision, ToolCall};
//! use seal_policy::escalation::EscalationFields;
//! use seal_policy::pipeline::{Answering, Pipeline, Prepared};
//! use seal_policy::approval::ApprovalPolicy;
//! use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, Session};
//! use seal_record::{ApprovalAsked, Outcome, SealedCall};
//!
//! let pipeline = Pipeline::new(Chain::new(Decision::ask("no rule decides")), Executor::CONFINING);
//! let session = Session::fresh(&PermissionState::from_knobs(Knobs {
//!     sandbox: SandboxMode::WorkspaceWrite,
//!     approval: ApprovalPolicy::OnRequest,
//! }));
//! let sealed = SealedCall::from_json_arguments("c1", "Bash", br#"{"command":"make"}"#, &Default::default())?;
//! let call = ToolCall::new("s1", Some("agent-1"), sealed)?;
//! let Prepared::NeedsApproval(awaiting) = pipeline.decide(&session, &call, &EscalationFields::default()) else {
//!     panic!("the fallback asks");
//! };
//! let asked = ApprovalAsked::new("approval-1", "Bash", Some("c1"), Some(awaiting.reason().as_str()))?;
//! let ran = awaiting.settle(&asked, "s1", "agent-1", Answering::Outcome(Outcome::AllowedOnce));
//! assert!(ran.is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use seal_record::{ApprovalAsked, Outcome, RecordError};
use seal_render::Escaped;

use crate::approval::{
    approval_card, Action, Answerer, ApprovalPolicy, Asking, DispatchVerdict, Unanswered,
};
use crate::chain::{
    Chain, Decision, DenyCause, Evaluated, Pending, Returned, StageKind, ToolCall, Trace, Verdict,
    Via,
};
use crate::escalation::{plan_session_call, CallPlan, EscalationFields, EscalationLimits, Stamp};
use crate::preset::{Executor, SandboxMode, Session};
use crate::rules::Explain;

/// The name of the trace step that records the escalation check or the escalation's approval.
pub const ESCALATION_STAGE_NAME: &str = "escalation";

/// The name of the trace step that records how an escalation's approval settled.
pub const ESCALATION_APPROVAL_STAGE_NAME: &str = "approval";

/// The reason of an ask whose stage gave none.
pub const DEFAULT_ASK_REASON: &str = "the policy asks";

/// The decision pipeline: the chain (listeners, rules, fallback, guards), the executor that
/// runs calls, and the escalation limits.
#[derive(Debug)]
pub struct Pipeline {
    chain: Chain,
    executor: Executor,
    limits: EscalationLimits,
}

/// Most characters of an approval request's reason ([`PendingApproval::ask`]); the record allows
/// 2,000.
pub const MAX_APPROVAL_REASON_CHARS: usize = 1_900;

/// What [`Pipeline::decide`] gives: run now, deny, or wait for approval.
#[derive(Debug)]
#[must_use = "a plan must be carried out; dropping it dispatches nothing"]
pub enum Prepared<'a> {
    /// Dispatch the call with this stamp.
    Run(Run),
    /// Do not dispatch the call.
    Deny(Deny),
    /// The call needs approval: record the request, then [`PendingApproval::settle`] it.
    NeedsApproval(PendingApproval<'a>),
}

/// Permission to dispatch one call, with the stamp it runs with. Only the pipeline constructs
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    stamp: Stamp,
    escalated: bool,
    trace: Trace,
    audit: Vec<Action>,
}

/// A refused call: why, which stage refused it, and the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deny {
    reason: Escaped,
    cause: DenyCause,
    trace: Trace,
    audit: Vec<Action>,
}

/// A call waiting for approval: the waterfall's ask, or an allowed call whose escalation needs
/// approval.
#[derive(Debug)]
#[must_use = "a call waiting for approval must be settled; dropping it dispatches nothing"]
pub struct PendingApproval<'a> {
    waiting: Waiting<'a>,
    plan: CallPlan,
    executor: Executor,
    reason: String,
    escaped: Escaped,
}

/// What the approval unblocks.
#[derive(Debug)]
enum Waiting<'a> {
    /// The waterfall asked.
    Ask(Pending<'a>),
    /// The waterfall allowed; the escalation asks.
    Allowed(Verdict),
}

/// How a request is answered.
pub enum Answering<'q> {
    /// Consult these answerers in order until one does not delegate; when all delegate (or there
    /// are none) the request settles `unavailable`.
    Answerers(&'q mut [Box<dyn Answerer>]),
    /// An outcome obtained elsewhere (the embedder's own prompt). `cancelled` cancels before
    /// any answerer is consulted.
    Outcome(Outcome),
}

impl Pipeline {
    /// A pipeline of `chain` for calls run by `executor`, with the default escalation limits.
    pub fn new(chain: Chain, executor: Executor) -> Pipeline {
        Pipeline {
            chain,
            executor,
            limits: EscalationLimits::DEFAULT,
        }
    }

    /// The same pipeline with other escalation limits.
    pub fn with_limits(self, limits: EscalationLimits) -> Pipeline {
        Pipeline { limits, ..self }
    }

    /// The chain.
    pub fn chain(&self) -> &Chain {
        &self.chain
    }

    /// The executor.
    pub fn executor(&self) -> Executor {
        self.executor
    }

    /// The escalation limits.
    pub fn limits(&self) -> EscalationLimits {
        self.limits
    }

    /// Decides `call` of `session` carrying the escalation request `escalation`: the escalation
    /// is checked first (an invalid one denies, cause [`DenyCause::Escalation`]), then the
    /// chain. A deny ends there; an allow with no escalation runs with the standing stamp; an
    /// ask, or a valid escalation, waits for approval.
    pub fn decide<'a>(
        &'a self,
        session: &Session,
        call: &'a ToolCall,
        escalation: &EscalationFields<'_>,
    ) -> Prepared<'a> {
        self.decide_into(session, call, escalation, Trace::default())
    }

    /// [`Pipeline::decide`], with the rules listener's reading of the call recorded in the
    /// plan's trace as it decides ([`Trace::asking`], [`Reading::of`](crate::rules::Reading::of)): an explanation
    /// that comes from the decision itself, under the very rules that decided.
    pub fn decide_explaining<'a>(
        &'a self,
        session: &Session,
        call: &'a ToolCall,
        escalation: &EscalationFields<'_>,
        explain: Explain,
    ) -> Prepared<'a> {
        self.decide_into(session, call, escalation, Trace::asking(explain))
    }

    fn decide_into<'a>(
        &'a self,
        session: &Session,
        call: &'a ToolCall,
        escalation: &EscalationFields<'_>,
        mut trace: Trace,
    ) -> Prepared<'a> {
        let plan = match plan_session_call(session, escalation, self.executor, self.limits) {
            Ok(plan) => plan,
            Err(error) => {
                let reason = format!("escalation refused: {error}");
                let step = trace.enter(StageKind::Escalation, &Arc::from(ESCALATION_STAGE_NAME));
                trace.record(
                    step,
                    Returned::Decision(Decision::deny(reason.clone())),
                    Via::Own,
                    None,
                );
                trace.set_decided_by(step);
                return Prepared::Deny(Deny::new(
                    &reason,
                    DenyCause::Escalation,
                    trace,
                    Vec::new(),
                ));
            }
        };
        let waiting = match self.chain.evaluate_reusing(call, trace) {
            Evaluated::Decided(Verdict::Deny(denied)) => {
                let (reason, cause) = (denied.reason().as_str().to_owned(), denied.cause());
                let trace = Verdict::Deny(denied).into_trace();
                return Prepared::Deny(Deny::new(&reason, cause, trace, Vec::new()));
            }
            Evaluated::Decided(verdict) if plan.escalation.is_none() => {
                return Prepared::Run(Run {
                    stamp: plan.standing,
                    escalated: false,
                    trace: verdict.into_trace(),
                    audit: Vec::new(),
                })
            }
            Evaluated::Decided(verdict) => Waiting::Allowed(verdict),
            Evaluated::Pending(pending) => Waiting::Ask(pending),
        };
        let mut reasons = Vec::new();
        if let Waiting::Ask(pending) = &waiting {
            reasons.push(
                pending
                    .reason()
                    .map_or(DEFAULT_ASK_REASON, |reason| reason.as_str())
                    .to_owned(),
            );
        }
        if let Some(escalation) = &plan.escalation {
            reasons.push(escalation.reason());
        }
        let reason = reasons.join("; ");
        Prepared::NeedsApproval(PendingApproval {
            waiting,
            plan,
            executor: self.executor,
            escaped: Escaped::new(&reason),
            reason,
        })
    }
}

impl<'a> PendingApproval<'a> {
    /// Why approval is needed: the waterfall's reason (or [`DEFAULT_ASK_REASON`]) and, for an
    /// escalation, its standing and target modes and justification, joined by `; `, escaped
    /// once for display (escape-v1, inline context: a listener's or a command's text may hold
    /// anything).
    pub fn reason(&self) -> &Escaped {
        &self.escaped
    }

    /// The mode the call's escalation asks for, if it carries one.
    pub fn escalation_target(&self) -> Option<SandboxMode> {
        self.plan
            .escalation
            .as_ref()
            .map(|escalation| escalation.target())
    }

    /// The stamp of the standing mode (what the call runs with unless an escalation is
    /// granted).
    pub fn standing(&self) -> Stamp {
        self.plan.standing
    }

    /// The approval request of `call` as `approval_id`: the `approval/asked` record, whose
    /// reason is [`PendingApproval::reason`] (the record refuses control and invisible characters),
    /// past [`MAX_APPROVAL_REASON_CHARS`] cut between escapes with an explicit marker
    /// ([`Escaped::within`]), and the approval card the approver reads ([`approval_card`]).
    ///
    /// # Errors
    /// The record's refusal (an approval id, tool or call id outside its grammar): settle
    /// [`PendingApproval::unavailable`].
    pub fn ask(
        &self,
        approval_id: &str,
        call: &ToolCall,
    ) -> Result<(ApprovalAsked, String), RecordError> {
        let reason = Escaped::within(&self.reason, MAX_APPROVAL_REASON_CHARS);
        let (tool, call_id) = (call.tool(), Some(call.call_id()));
        let asked = ApprovalAsked::new(approval_id, tool, call_id, Some(reason.as_str()))?;
        let (standing, target) = (self.plan.standing.mode, self.escalation_target());
        let card = approval_card(approval_id, call, &self.reason, standing, target);
        Ok((asked, card))
    }

    /// The approval policy the call was planned under.
    pub fn approval_policy(&self) -> ApprovalPolicy {
        self.plan.approval
    }

    /// The trace so far (the waterfall).
    pub fn trace(&self) -> &Trace {
        match &self.waiting {
            Waiting::Ask(pending) => pending.trace(),
            Waiting::Allowed(verdict) => verdict.trace(),
        }
    }

    /// Refuses the call because its approval could not be asked (`reason` says why): cause
    /// [`DenyCause::Approval`] with `unavailable`, the trace so far.
    pub fn unavailable(self, reason: String) -> Deny {
        let trace = match self.waiting {
            Waiting::Ask(pending) => pending.finish(Outcome::Unavailable).into_trace(),
            Waiting::Allowed(verdict) => verdict.into_trace(),
        };
        let cause = DenyCause::Approval(Outcome::Unavailable);
        Deny::new(&reason, cause, trace, Vec::new())
    }

    /// Settles the approval of the request `asked` (the record the embedder logs and shows) for
    /// `session` and `agent`, then runs the dispatch check, the guards and the stamp.
    ///
    /// Under approval policy `never` the request settles `rejected` and no answerer is
    /// consulted. A cancellation settles `cancelled` before any answerer. The audit pair (the
    /// `approval/asked` and `approval/decided` records) comes with the result.
    pub fn settle(
        self,
        asked: &ApprovalAsked,
        session: &str,
        agent: &str,
        answering: Answering<'_>,
    ) -> Result<Run, Deny> {
        let PendingApproval {
            waiting,
            plan,
            executor,
            ..
        } = self;
        let (proceed, outcome, audit) =
            run_approval(asked, plan.approval, session, agent, answering);
        let verdict = match waiting {
            Waiting::Ask(pending) => pending.finish(outcome),
            Waiting::Allowed(verdict) => verdict,
        };
        let allowed = verdict.is_allow();
        let (reason, cause) = match verdict.denied() {
            Some(denied) => (denied.reason().as_str().to_owned(), denied.cause()),
            None => (
                format!("approval was {}", outcome.as_str()),
                DenyCause::Approval(outcome),
            ),
        };
        let mut trace = verdict.into_trace();
        if let Some(escalation) = &plan.escalation {
            let step = trace.enter(
                StageKind::Escalation,
                &Arc::from(ESCALATION_APPROVAL_STAGE_NAME),
            );
            trace.record(step, Returned::Approval(outcome), Via::Own, None);
            if !proceed {
                trace.set_decided_by(step);
            }
            if allowed && proceed {
                return Ok(Run {
                    stamp: Stamp::new(escalation.target(), executor),
                    escalated: true,
                    trace,
                    audit,
                });
            }
        } else if allowed && proceed {
            return Ok(Run {
                stamp: plan.standing,
                escalated: false,
                trace,
                audit,
            });
        }
        Err(Deny::new(&reason, cause, trace, audit))
    }
}

/// Drives the approval of `asked` under `policy` ([`Asking`]) and runs its dispatch check:
/// whether the call may proceed, the outcome it goes with, and the audit records.
///
/// A claim ([`Answer::Pending`](crate::approval::Answer::Pending)) cannot be waited for here:
/// it settles `unavailable`, as does a request whose record cannot be driven.
fn run_approval(
    asked: &ApprovalAsked,
    policy: ApprovalPolicy,
    session: &str,
    agent: &str,
    answering: Answering<'_>,
) -> (bool, Outcome, Vec<Action>) {
    let cancelled = matches!(answering, Answering::Outcome(Outcome::Cancelled));
    let Ok(mut asking) = Asking::start(asked.clone(), policy, cancelled) else {
        return (false, Outcome::Unavailable, Vec::new());
    };
    match answering {
        Answering::Answerers(answerers) => {
            asking.consult(session, agent, answerers, Unanswered::Unavailable);
            if asking.outcome().is_none() {
                asking.settle(Outcome::Unavailable);
            }
        }
        Answering::Outcome(outcome) => {
            asking.settle(outcome);
        }
    }
    let verdict = asking.dispatch_check();
    let outcome = match verdict {
        DispatchVerdict::Proceed => Outcome::AllowedOnce,
        DispatchVerdict::Denied(outcome) => outcome,
        // Cancelled, or allowed but overtaken by a cancellation.
        DispatchVerdict::AbortedBeforeDispatch => Outcome::Cancelled,
        DispatchVerdict::NotSettled | DispatchVerdict::AlreadyChecked => Outcome::Unavailable,
    };
    (verdict.proceeds(), outcome, asking.into_audit())
}

impl Run {
    /// The stamp the call runs with.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// True when the stamp's mode is an escalation granted for this call only.
    pub fn escalated(&self) -> bool {
        self.escalated
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The audit records of the approval (`approval/asked`, then `approval/decided`), empty
    /// when none was needed.
    pub fn audit(&self) -> &[Action] {
        &self.audit
    }
}

impl Deny {
    /// A refusal made after the pipeline decided, because something the decision depends on
    /// failed (for example, the decision log could not record it): cause
    /// [`DenyCause::Failed`], with the decision's `trace` kept for the explanation.
    pub fn failed_after(reason: &str, trace: Trace) -> Deny {
        Deny::new(reason, DenyCause::Failed, trace, Vec::new())
    }

    fn new(reason: &str, cause: DenyCause, trace: Trace, audit: Vec<Action>) -> Deny {
        Deny {
            reason: Escaped::new(reason),
            cause,
            trace,
            audit,
        }
    }

    /// Why the call was refused, escaped once for display (escape-v1, inline context: a
    /// listener's or a command's text may hold anything), for the agent and the operator.
    pub fn reason(&self) -> &Escaped {
        &self.reason
    }

    /// Which stage refused it.
    pub fn cause(&self) -> DenyCause {
        self.cause
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The audit records of the approval, empty when none was asked.
    pub fn audit(&self) -> &[Action] {
        &self.audit
    }
}
