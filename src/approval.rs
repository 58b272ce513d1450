//! Approval: the pending value of a call that needs it, the answerers, and how it settles.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use seal_policy::approval::{
    answer_with, Answer as CoreAnswer, ApprovalRequest, ApprovalService, Caller, DispatchVerdict,
    Effect, Event, IdSource, Question as CoreQuestion, Reply, Unanswered,
};
use seal_policy::chain::{Pending, Verdict};
use seal_policy::escalation::Stamp as CoreStamp;
use seal_record::ApprovalAsked;

use crate::dispatch::{AuditEvent, Deny, DenyCause, Dispatch, Run, Stamp, Trace};
use crate::seal::Seal;
use crate::session::Call;
use crate::{Outcome, SandboxMode};

/// An approver consulted when [`PendingApproval::ask_answerers`] runs: a human UI, a scripted
/// reviewer, a remote client. Answerers are consulted in registration order until one does not
/// delegate; under approval policy `never` none is consulted. A panic or a poisoned answerer
/// answers reject.
///
/// ```
/// use seal::{Answer, Question};
///
/// let reviewer = |question: &Question<'_>| -> Answer {
///     if question.tool == "Read" { Answer::AllowOnce } else { Answer::Delegate }
/// };
/// let seal = seal::Seal::builder().answerer(reviewer).build()?;
/// # Ok::<(), seal::BuildError>(())
/// ```
pub trait Answerer: Send + 'static {
    /// Answers or delegates `question`.
    fn answer(&mut self, question: &Question<'_>) -> Answer;
}

/// What an answerer says. There is no durable grant: the strongest answer covers this one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Allow this one call (`allowed-once`).
    AllowOnce,
    /// Reject this call (`rejected`).
    Reject,
    /// Pass to the next answerer; when every answerer delegates the request settles
    /// `unavailable` (deny).
    Delegate,
}

/// What an answerer sees: the approval id, who asks, the tool, the call id, the reason and the
/// rendered card. Never the raw arguments: the card shows them escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Question<'a> {
    /// The approval id.
    pub approval_id: &'a str,
    /// The session id.
    pub session: &'a str,
    /// The agent id.
    pub agent: &'a str,
    /// The tool name.
    pub tool: &'a str,
    /// The call id.
    pub call_id: Option<&'a str>,
    /// Why approval is needed.
    pub reason: Option<&'a str>,
    /// The approval card (ASCII).
    pub card: &'a str,
}

/// A call that needs approval before it may run.
///
/// Log [`PendingApproval::asked_event`], show [`PendingApproval::card`], then settle it exactly
/// once: with the configured answerers ([`PendingApproval::ask_answerers`]), with an outcome
/// your own UI obtained ([`PendingApproval::settle`]), or by cancelling
/// ([`PendingApproval::cancel`]). Each gives a [`Dispatch`] carrying the audit pair; only
/// `allowed-once` can lead to a run, and only if every guard passes. Dropping the value
/// dispatches nothing.
///
/// ```
/// use seal::{Dispatch, Outcome, Prepared, Seal};
///
/// let seal = Seal::builder()
///     .rules_json(r#"{"permissions": {"ask": ["Bash(cargo publish:*)"]}}"#)
///     .build()?;
/// let session = seal.open_session("s1")?;
/// let call = seal.call(&session, "agent-1", "c1", "Bash", r#"{"command":"cargo publish"}"#)?;
/// let Prepared::NeedsApproval(pending) = seal.prepare(&call, None) else { panic!("asks") };
/// assert!(pending.card().contains("cargo publish"));
/// assert_eq!(pending.asked_event().kind(), "approval/asked");
/// let Dispatch::Run(run) = pending.settle(Outcome::AllowedOnce) else { panic!("allowed") };
/// assert_eq!(run.audit_events().len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a pending approval must be settled; dropping it dispatches nothing"]
pub struct PendingApproval<'a> {
    pub(crate) seal: &'a Seal,
    pub(crate) call: &'a Call,
    pub(crate) waiting: Box<Waiting<'a>>,
    pub(crate) escalation_target: Option<SandboxMode>,
    pub(crate) standing: CoreStamp,
    pub(crate) asked: ApprovalAsked,
    pub(crate) card: Arc<str>,
}

/// What the approval unblocks: the waterfall's ask, or (for an escalation alone) the verdict
/// the chain already reached.
pub(crate) enum Waiting<'a> {
    Ask(Pending<'a>),
    Allowed(Verdict),
}

/// How a pending approval is settled.
#[derive(Clone, Copy)]
enum How {
    Answerers,
    Outcome(Outcome),
}

impl<'a> PendingApproval<'a> {
    /// The approval id (fresh for every request of this [`Seal`]).
    pub fn approval_id(&self) -> &str {
        self.asked.id()
    }

    /// Why approval is needed: the waterfall's reason and, for an escalation, the requested
    /// mode and justification.
    pub fn reason(&self) -> &str {
        self.asked.reason().unwrap_or("")
    }

    /// The approval card: ASCII, every field escaped behind a renderer-owned gutter, long
    /// fields elided with an explicit marker and their length and digest prefix.
    pub fn card(&self) -> &str {
        &self.card
    }

    /// The `approval/asked` event to append to the session log before settling (the same record
    /// [`Dispatch::audit_events`] lists first).
    pub fn asked_event(&self) -> AuditEvent {
        AuditEvent::asked(&self.asked)
    }

    /// The mode an escalation asks for, if the call carries one.
    pub fn escalation_target(&self) -> Option<SandboxMode> {
        self.escalation_target
    }

    /// Settles with the configured answerers: under approval policy `never` the request is
    /// rejected without consulting any; otherwise they are consulted in order until one does
    /// not delegate; if all delegate (or none is configured) it settles `unavailable`.
    pub fn ask_answerers(self) -> Dispatch {
        self.resolve(How::Answerers)
    }

    /// Settles with an outcome obtained elsewhere (the embedder's own prompt). Under approval
    /// policy `never` the request is rejected whatever the outcome; `cancelled` is
    /// [`PendingApproval::cancel`].
    pub fn settle(self, outcome: Outcome) -> Dispatch {
        self.resolve(How::Outcome(outcome))
    }

    /// Cancels: the request settles `cancelled` (or `rejected` under policy `never`) without
    /// consulting any answerer, and the call is denied.
    pub fn cancel(self) -> Dispatch {
        self.resolve(How::Outcome(Outcome::Cancelled))
    }

    fn resolve(self, how: How) -> Dispatch {
        let PendingApproval {
            seal,
            call,
            waiting,
            escalation_target,
            standing,
            asked,
            card,
        } = self;
        let policy = call.session.approval_policy();
        let mut service =
            ApprovalService::with_ids(policy, Box::new(OneId(Some(asked.id().to_owned()))));
        let cancelled = matches!(how, How::Outcome(Outcome::Cancelled));
        match how {
            How::Answerers => {
                for answerer in &seal.answerers {
                    // The builder bounds the number of answerers below the service's limit.
                    let _ = service.register(adapter(Arc::clone(answerer), Arc::clone(&card)));
                }
            }
            How::Outcome(Outcome::Cancelled) => {}
            How::Outcome(_) => {
                // A claim: the outcome is fed to the machine below.
                let _ = service.register(answer_with(|_| CoreAnswer::Pending));
            }
        }
        let caller = Caller::in_turn(call.session(), call.agent());
        let request = ApprovalRequest {
            tool: asked.tool(),
            call_id: asked.call_id(),
            reason: asked.reason(),
        };
        let mut asking = match service.ask(&caller, &request, cancelled) {
            Ok(asking) => asking,
            Err(refusal) => {
                let mut trace = match &*waiting {
                    Waiting::Ask(pending) => Trace::from_core(pending.trace()),
                    Waiting::Allowed(verdict) => Trace::from_core(verdict.trace()),
                };
                trace.push("approval", "approval", "unavailable".to_owned(), true);
                return Dispatch::Deny(Deny {
                    call_id: call.call_id().to_owned(),
                    reason: format!("approval could not be asked: {refusal}"),
                    cause: DenyCause::Approval(Outcome::Unavailable),
                    trace,
                    audit: Vec::new(),
                });
            }
        };
        let mut effects = std::mem::take(&mut asking.effects);
        if let (How::Outcome(outcome), None) = (how, asking.outcome()) {
            let event = match outcome {
                Outcome::AllowedOnce => Event::Answer(Reply::AllowOnce),
                Outcome::Rejected => Event::Answer(Reply::Reject),
                Outcome::Cancelled => Event::Cancel,
                Outcome::Unavailable => Event::Unanswered(Unanswered::Unavailable),
            };
            effects.extend(asking.machine.step(event));
        }
        effects.extend(asking.machine.step(Event::DispatchCheck));
        let audit: Vec<AuditEvent> = effects
            .iter()
            .filter_map(|effect| match effect {
                Effect::Asked(record) => Some(AuditEvent::asked(record)),
                Effect::Decided(record) => Some(AuditEvent::decided(record)),
                _ => None,
            })
            .collect();
        let proceed = effects.contains(&Effect::Dispatch(DispatchVerdict::Proceed));
        let outcome = match asking.machine.outcome() {
            _ if proceed => Outcome::AllowedOnce,
            Some(Outcome::AllowedOnce) => Outcome::Cancelled,
            Some(outcome) => outcome,
            None => Outcome::Unavailable,
        };
        let verdict = match *waiting {
            Waiting::Ask(pending) => pending.finish(outcome),
            Waiting::Allowed(verdict) => verdict,
        };
        let mut trace = Trace::from_core(verdict.trace());
        if escalation_target.is_some() {
            trace.push(
                "escalation",
                "approval",
                outcome.as_str().to_owned(),
                !proceed,
            );
        }
        match verdict {
            Verdict::Allow(_) if proceed => {
                let stamp = match escalation_target {
                    Some(target) => {
                        let granted = CoreStamp::new(target, seal.executor);
                        Stamp {
                            mode: granted.mode,
                            sandboxed: granted.sandboxed,
                            escalated: true,
                        }
                    }
                    None => Stamp {
                        mode: standing.mode,
                        sandboxed: standing.sandboxed,
                        escalated: false,
                    },
                };
                Dispatch::Run(Run {
                    call_id: call.call_id().to_owned(),
                    stamp,
                    trace,
                    audit,
                })
            }
            Verdict::Allow(_) => Dispatch::Deny(Deny {
                call_id: call.call_id().to_owned(),
                reason: format!("approval was {}", outcome.as_str()),
                cause: DenyCause::Approval(outcome),
                trace,
                audit,
            }),
            Verdict::Deny(denied) => Dispatch::Deny(Deny {
                call_id: call.call_id().to_owned(),
                reason: seal_render::escape(denied.reason().as_str(), seal_render::Context::Inline)
                    .into_owned(),
                cause: crate::seal::deny_cause(denied.cause()),
                trace,
                audit,
            }),
        }
    }
}

impl fmt::Debug for PendingApproval<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingApproval")
            .field("approval_id", &self.asked.id())
            .field("call_id", &self.call.call_id())
            .field("escalation_target", &self.escalation_target)
            .finish_non_exhaustive()
    }
}

impl<F> Answerer for F
where
    F: FnMut(&Question<'_>) -> Answer + Send + 'static,
{
    fn answer(&mut self, question: &Question<'_>) -> Answer {
        self(question)
    }
}

/// A shared answerer, as the seal holds it.
pub(crate) type SharedAnswerer = Arc<Mutex<Box<dyn Answerer>>>;

/// The core answerer that consults a facade answerer: a panic or a poisoned lock rejects.
fn adapter(answerer: SharedAnswerer, card: Arc<str>) -> Box<dyn seal_policy::approval::Answerer> {
    answer_with(move |question: &CoreQuestion<'_>| {
        let asked = Question {
            approval_id: question.approval_id,
            session: question.session,
            agent: question.agent,
            tool: question.tool,
            call_id: question.call_id,
            reason: question.reason,
            card: &card,
        };
        let answer = catch_unwind(AssertUnwindSafe(|| match answerer.lock() {
            Ok(mut answerer) => answerer.answer(&asked),
            Err(_) => Answer::Reject,
        }));
        match answer {
            Ok(Answer::AllowOnce) => CoreAnswer::AllowOnce,
            Ok(Answer::Delegate) => CoreAnswer::Delegate,
            Ok(Answer::Reject) | Err(_) => CoreAnswer::Reject,
        }
    })
}

/// The one approval id a pending request was given (then nothing valid).
struct OneId(Option<String>);

impl IdSource for OneId {
    fn next_id(&mut self) -> String {
        self.0.take().unwrap_or_default()
    }
}
