//! Approval: the pending value of a call that needs it, the answerers, and how it settles.

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use seal_policy::approval::{answer_with, Answer as CoreAnswer, Question as CoreQuestion};
use seal_policy::pipeline::{self, Answering};
use seal_record::ApprovalAsked;

use crate::dispatch::{AuditEvent, Deny, Dispatch, Run};
use crate::render::Escaped;
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
///     if question.tool() == "Read" { Answer::AllowOnce } else { Answer::Delegate }
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

/// What an answerer sees: the core's question (approval id, session, agent, tool, call id,
/// reason; read with this value's accessors) and the rendered card. Never the raw arguments:
/// the card shows them escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Question<'a> {
    /// The approval id, who asks, the tool, the call id and why.
    pub question: CoreQuestion<'a>,
    /// The approval card (ASCII).
    pub card: &'a str,
}

impl<'a> Question<'a> {
    /// The approval id (fresh for every request).
    pub fn approval_id(&self) -> &'a str {
        self.question.approval_id
    }

    /// The session id.
    pub fn session(&self) -> &'a str {
        self.question.session
    }

    /// The agent id.
    pub fn agent(&self) -> &'a str {
        self.question.agent
    }

    /// The tool name.
    pub fn tool(&self) -> &'a str {
        self.question.tool
    }

    /// The id of the recorded tool call, if there is one.
    pub fn call_id(&self) -> Option<&'a str> {
        self.question.call_id
    }

    /// Why approval is needed (escaped once for display), if a reason was recorded.
    pub fn reason(&self) -> Option<&'a str> {
        self.question.reason
    }
}

/// A call that needs approval before it may run: the pipeline's
/// [`seal_policy::pipeline::PendingApproval`] with the recorded request and the card.
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
    pub(crate) awaiting: pipeline::PendingApproval<'a>,
    pub(crate) asked: ApprovalAsked,
    pub(crate) card: Arc<str>,
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
    /// mode and justification, escaped once for display (the `approval/asked` record holds the
    /// same text, cut with a marker when it is longer than the record allows).
    pub fn reason(&self) -> &Escaped {
        self.awaiting.reason()
    }

    /// The trace so far: the waterfall's steps before the approval (read without settling).
    pub fn trace(&self) -> &crate::Trace {
        self.awaiting.trace()
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
        self.awaiting.escalation_target()
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
            awaiting,
            asked,
            card,
        } = self;
        let mut answerers: Vec<Box<dyn seal_policy::approval::Answerer>> = Vec::new();
        let answering = match how {
            How::Answerers => {
                answerers.extend(
                    seal.answerers
                        .iter()
                        .map(|answerer| adapter(Arc::clone(answerer), Arc::clone(&card))),
                );
                Answering::Answerers(&mut answerers)
            }
            How::Outcome(outcome) => Answering::Outcome(outcome),
        };
        let agent = call.agent().unwrap_or("");
        let settled = awaiting.settle(&asked, call.call.session(), agent, answering);
        let (audit, trace) = match &settled {
            Ok(cleared) => (cleared.audit(), cleared.trace()),
            Err(refused) => (refused.audit(), refused.trace()),
        };
        if let Err(error) = record_approval(seal, call, audit) {
            let reason = format!("the decision log could not record this approval: {error}");
            let refused = seal_policy::pipeline::Deny::failed_after(&reason, trace.clone());
            return Dispatch::Deny(Deny::refused(call, refused));
        }
        match settled {
            Ok(cleared) => Dispatch::Run(Run::cleared(call, &cleared)),
            Err(refused) => Dispatch::Deny(Deny::refused(call, refused)),
        }
    }
}

impl fmt::Debug for PendingApproval<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingApproval")
            .field("approval_id", &self.asked.id())
            .field("call_id", &self.call.call_id())
            .field("escalation_target", &self.awaiting.escalation_target())
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
            question: *question,
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

/// Records the approval pair among `audit` in the seal's log sink, if it has one, as
/// `approval/asked` (with the call's session) and `approval/decided`.
fn record_approval(
    seal: &Seal,
    call: &Call,
    audit: &[seal_policy::approval::Action],
) -> Result<(), String> {
    use crate::log::{LogEvent, LogEventType};
    use seal_policy::approval::Action;
    let Some((sink, _)) = &seal.log else {
        return Ok(());
    };
    for action in audit {
        let event = match action {
            Action::Asked(record) => {
                let event = LogEvent::new(LogEventType::ApprovalAsked)
                    .text("approval", record.id())
                    .and_then(|event| event.text("session", call.session_id()))
                    .and_then(|event| event.text("tool", record.tool()));
                match record.call_id() {
                    Some(call_id) => event.and_then(|event| event.text("call_id", call_id)),
                    None => event,
                }
            }
            Action::Decided(record) => LogEvent::new(LogEventType::ApprovalDecided)
                .text("approval", record.id())
                .and_then(|event| event.choice("outcome", record.outcome().as_str())),
            _ => continue,
        };
        sink.record(event.map_err(|error| error.to_string())?)?;
    }
    Ok(())
}
