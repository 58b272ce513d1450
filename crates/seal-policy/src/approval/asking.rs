//! The one driver of a request's [`ApprovalMachine`]: the ask under the standing policy, the
//! answerer waterfall or an outcome obtained elsewhere, later events, the dispatch check, and the
//! audit records they produce.
//!
//! The approval service ([`ApprovalService::ask`](super::ApprovalService::ask), hence escalation)
//! and the decision pipeline
//! ([`PendingApproval::settle`](crate::pipeline::PendingApproval::settle)) both step a request
//! through an [`Asking`]; nothing else steps an [`ApprovalMachine`].

use seal_record::{ApprovalAsked, Outcome, RecordError};

use super::answerer::{Answer, Answerer, Reply};
use super::machine::{Action, ApprovalMachine, DispatchVerdict, Event, Phase};
use super::policy::{ApprovalPolicy, Unanswered};
use super::request::Question;

/// One approval request in progress: its state machine and the audit records so far.
///
/// [`Asking::start`] asks under the standing policy (a cancellation that already fired settles
/// first, policy `never` rejects). A request still waiting for an answer then takes one: the
/// answerer waterfall ([`Asking::consult`]), an outcome obtained elsewhere ([`Asking::settle`]),
/// or any later event ([`Asking::step`]: a claimed answer, a wire settlement, a cancellation).
/// [`Asking::dispatch_check`] says whether the call may run. Every step goes through this value,
/// so its audit ([`Asking::audit`]: `approval/asked`, then `approval/decided` once settled) is
/// complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asking {
    machine: ApprovalMachine,
    audit: Vec<Action>,
    consulted: bool,
}

impl Asking {
    /// Asks the request `asked` under `policy`. `already_cancelled` is the state of the caller's
    /// cancellation signal now: when set, the request settles `cancelled` (or `rejected` under
    /// policy `never`) without waiting for any answer.
    ///
    /// # Errors
    /// The record's refusal when the `approval/decided` records of `asked`'s id cannot be built.
    pub fn start(
        asked: ApprovalAsked,
        policy: ApprovalPolicy,
        already_cancelled: bool,
    ) -> Result<Asking, RecordError> {
        let mut asking = Asking {
            machine: ApprovalMachine::new(asked)?,
            audit: Vec::new(),
            consulted: false,
        };
        if already_cancelled {
            asking.step(Event::Cancel);
        }
        asking.step(Event::Ask(policy));
        Ok(asking)
    }

    /// Consults `answerers` in order on behalf of `session` and `agent`, until one does not
    /// delegate: [`Answer::AllowOnce`] and [`Answer::Reject`] settle the request,
    /// [`Answer::Pending`] claims it for a later answer (through [`Asking::step`]), and when every
    /// answerer delegates (or there is none) it settles as `unanswered`.
    ///
    /// Answerers are consulted only when the ask asked for them ([`Action::Consult`]: not under
    /// policy `never`, not after a cancellation) and only once: otherwise this does nothing.
    pub fn consult(
        &mut self,
        session: &str,
        agent: &str,
        answerers: &mut [Box<dyn Answerer>],
        unanswered: Unanswered,
    ) {
        if self.consulted || self.machine.phase() != Phase::Consulting {
            return;
        }
        self.consulted = true;
        let asked = self.machine.asked();
        let question = Question {
            approval_id: asked.id(),
            session,
            agent,
            tool: asked.tool(),
            call_id: asked.call_id(),
            reason: asked.reason(),
        };
        if let Some(event) = waterfall(&question, answerers, unanswered) {
            self.step(event);
        }
    }

    /// Settles with an outcome obtained elsewhere (the embedder's own prompt, a deadline that
    /// passed): `allowed-once` and `rejected` as an answer, `cancelled` as the caller's
    /// cancellation, `unavailable` as a request nobody answered. A request that has settled
    /// already keeps its outcome. Returns the step's actions.
    pub fn settle(&mut self, outcome: Outcome) -> Vec<Action> {
        self.step(match outcome {
            Outcome::AllowedOnce => Event::Answer(Reply::AllowOnce),
            Outcome::Rejected => Event::Answer(Reply::Reject),
            Outcome::Cancelled => Event::Cancel,
            Outcome::Unavailable => Event::Unanswered(Unanswered::Unavailable),
        })
    }

    /// Applies one event to the request's machine ([`ApprovalMachine::step`]) and returns its
    /// actions, in order; the audit records among them join [`Asking::audit`].
    pub fn step(&mut self, event: Event) -> Vec<Action> {
        let actions = self.machine.step(event);
        self.audit.extend(
            actions
                .iter()
                .filter(|action| matches!(action, Action::Asked(_) | Action::Decided(_)))
                .cloned(),
        );
        actions
    }

    /// Runs the dispatch check ([`Event::DispatchCheck`]): only [`DispatchVerdict::Proceed`] lets
    /// the call run, and only the first check after `allowed-once` gives it.
    pub fn dispatch_check(&mut self) -> DispatchVerdict {
        self.step(Event::DispatchCheck)
            .into_iter()
            .find_map(|action| match action {
                Action::Dispatch(verdict) => Some(verdict),
                _ => None,
            })
            // The machine answers every dispatch check with exactly one `Dispatch` action; were
            // it ever missing, the call does not run.
            .unwrap_or(DispatchVerdict::NotSettled)
    }

    /// The settled outcome, or `None` while the request waits for an answer.
    pub fn outcome(&self) -> Option<Outcome> {
        self.machine.outcome()
    }

    /// True when [`Asking::consult`] consulted the answerers.
    pub fn consulted_answerers(&self) -> bool {
        self.consulted
    }

    /// The audit records so far, in order: the `approval/asked` record ([`Action::Asked`]), then
    /// the `approval/decided` record ([`Action::Decided`]) once the request settled.
    pub fn audit(&self) -> &[Action] {
        &self.audit
    }

    /// [`Asking::audit`], taken.
    pub fn into_audit(self) -> Vec<Action> {
        self.audit
    }

    /// The request's state machine (read only: events go through [`Asking::step`]).
    pub fn machine(&self) -> &ApprovalMachine {
        &self.machine
    }
}

/// The event of the first answerer that does not delegate; `None` when one claimed the request
/// for a later answer.
fn waterfall(
    question: &Question<'_>,
    answerers: &mut [Box<dyn Answerer>],
    unanswered: Unanswered,
) -> Option<Event> {
    for answerer in answerers {
        match answerer.answer(question) {
            Answer::AllowOnce => return Some(Event::Answer(Reply::AllowOnce)),
            Answer::Reject => return Some(Event::Answer(Reply::Reject)),
            Answer::Pending => return None,
            Answer::Delegate => {}
        }
    }
    Some(Event::Unanswered(unanswered))
}
