//! The approval state machine of one request: explicit events in, effects out, every
//! (phase, event) pair handled.
//!
//! ```text
//! Idle{cancelled} --Ask(never)--------------------> Settled{rejected}
//! Idle{cancelled=true} --Ask(on-request)----------> Settled{cancelled}       (no answerer consulted)
//! Idle{cancelled=false} --Ask(on-request)---------> Consulting               (effect Consult)
//! Consulting --Answer(r) | Unanswered(u)----------> Settled{r | u}
//! Consulting --Cancel-----------------------------> Settled{cancelled}
//! Settled --Answer | Unanswered-------------------> Settled                  (late answer: no-op)
//! Settled{o} --Cancel-----------------------------> Settled{o, cancelled after}
//! Settled{o} --DispatchCheck----------------------> Checked{o, verdict}
//! ```
//!
//! At the dispatch check only `allowed-once` with no cancellation proceeds; a cancellation that
//! overtook the approval (or came after `allowed-once`) gives
//! [`DispatchVerdict::AbortedBeforeDispatch`]; a completed denial is kept even when cancellation came
//! after it, as the more informative result.

use std::fmt;

use seal_record::{ApprovalAsked, ApprovalDecided, Outcome, RecordError};

use super::answerer::Reply;
use super::policy::{ApprovalPolicy, Unanswered};

/// An event fed to [`ApprovalMachine::step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// The request is asked under the given standing policy.
    Ask(ApprovalPolicy),
    /// An answerer (or a client through the wire registry) replied.
    Answer(Reply),
    /// Every answerer delegated; settle as configured.
    Unanswered(Unanswered),
    /// The caller's cancellation signal fired.
    Cancel,
    /// The caller is about to dispatch the call and asks whether it may.
    DispatchCheck,
}

/// An action a step asks of the embedder, to carry out in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Append this `approval/asked` event to the session log.
    Asked(ApprovalAsked),
    /// Consult the answerer waterfall (feed its answer back as an event).
    Consult,
    /// Append this `approval/decided` event to the session log.
    Decided(ApprovalDecided),
    /// The answer to a [`Event::DispatchCheck`].
    Dispatch(DispatchVerdict),
    /// The event changed nothing, for this reason.
    Ignored(Ignored),
}

/// Why an event was a no-op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ignored {
    /// An answer before the request was asked.
    NotAsked,
    /// A second ask of the same request.
    AlreadyAsked,
    /// An answer after the request settled (for instance after cancellation).
    LateAnswer,
    /// A second cancellation.
    AlreadyCancelled,
    /// Any event after the dispatch check.
    AfterDispatchCheck,
}

/// Whether the call may be dispatched. Only [`DispatchVerdict::Proceed`] lets it run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DispatchVerdict {
    /// `allowed-once`, and no cancellation: dispatch this one call.
    Proceed,
    /// The request settled as this denial (`rejected` or `unavailable`).
    Denied(Outcome),
    /// Cancellation overtook the approval, or came after it: do not dispatch.
    AbortedBeforeDispatch,
    /// The request has not settled yet (or was never asked): do not dispatch.
    NotSettled,
    /// The dispatch check already ran: an `allowed-once` covers one dispatch only.
    AlreadyChecked,
}

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not asked yet; `cancelled` records whether the signal already fired.
    Idle {
        /// The cancellation signal fired before the ask.
        cancelled: bool,
    },
    /// Asked; waiting for the answerer waterfall or a claimed answer.
    Consulting,
    /// Settled with a closed outcome.
    Settled {
        /// The outcome recorded in `approval/decided`.
        outcome: Outcome,
        /// The cancellation signal fired (before or after settling).
        cancelled: bool,
    },
    /// The dispatch check ran.
    Checked {
        /// The outcome the request settled with.
        outcome: Outcome,
        /// The verdict the dispatch check gave.
        verdict: DispatchVerdict,
    },
}

/// One approval request as a state machine. Built from its `approval/asked` record, so its id,
/// tool, call id and reason are already validated; it owns the matching `approval/decided`
/// records, so settling cannot fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalMachine {
    asked: ApprovalAsked,
    decided: DecidedRecords,
    phase: Phase,
}

impl ApprovalMachine {
    /// A machine in [`Phase::Idle`] for the request `asked`.
    pub fn new(asked: ApprovalAsked) -> Result<ApprovalMachine, RecordError> {
        let decided = DecidedRecords::new(asked.id())?;
        Ok(ApprovalMachine {
            asked,
            decided,
            phase: Phase::Idle { cancelled: false },
        })
    }

    /// The approval id.
    pub fn id(&self) -> &str {
        self.asked.id()
    }

    /// The request record.
    pub fn asked(&self) -> &ApprovalAsked {
        &self.asked
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The settled outcome, once there is one (also after the dispatch check).
    pub fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Settled { outcome, .. } | Phase::Checked { outcome, .. } => Some(outcome),
            Phase::Idle { .. } | Phase::Consulting => None,
        }
    }

    /// Applies one event and returns its effects, in order. Every (phase, event) pair has a
    /// transition; none can produce [`DispatchVerdict::Proceed`] except a dispatch check after
    /// `allowed-once` with no cancellation.
    pub fn step(&mut self, event: Event) -> Vec<Action> {
        let (next, effects) = self.transition(event);
        self.phase = next;
        effects
    }

    fn transition(&self, event: Event) -> (Phase, Vec<Action>) {
        let phase = self.phase;
        match (phase, event) {
            (Phase::Idle { .. }, Event::Cancel) => (Phase::Idle { cancelled: true }, Vec::new()),
            (Phase::Idle { cancelled }, Event::Ask(ApprovalPolicy::Never)) => {
                let asked = Action::Asked(self.asked.clone());
                let (next, decided) = self.settle(Outcome::Rejected, cancelled);
                (next, vec![asked, decided])
            }
            (Phase::Idle { cancelled: true }, Event::Ask(ApprovalPolicy::OnRequest)) => {
                let asked = Action::Asked(self.asked.clone());
                let (next, decided) = self.settle(Outcome::Cancelled, true);
                (next, vec![asked, decided])
            }
            (Phase::Idle { cancelled: false }, Event::Ask(ApprovalPolicy::OnRequest)) => (
                Phase::Consulting,
                vec![Action::Asked(self.asked.clone()), Action::Consult],
            ),
            (Phase::Idle { .. }, Event::Answer(_) | Event::Unanswered(_)) => {
                ignored(phase, Ignored::NotAsked)
            }
            (Phase::Idle { .. } | Phase::Consulting, Event::DispatchCheck) => {
                (phase, vec![Action::Dispatch(DispatchVerdict::NotSettled)])
            }
            (Phase::Consulting | Phase::Settled { .. }, Event::Ask(_)) => {
                ignored(phase, Ignored::AlreadyAsked)
            }
            (Phase::Consulting, Event::Answer(reply)) => {
                let (next, decided) = self.settle(reply.outcome(), false);
                (next, vec![decided])
            }
            (Phase::Consulting, Event::Unanswered(unanswered)) => {
                let (next, decided) = self.settle(unanswered.outcome(), false);
                (next, vec![decided])
            }
            (Phase::Consulting, Event::Cancel) => {
                let (next, decided) = self.settle(Outcome::Cancelled, true);
                (next, vec![decided])
            }
            (Phase::Settled { .. }, Event::Answer(_) | Event::Unanswered(_)) => {
                ignored(phase, Ignored::LateAnswer)
            }
            (
                Phase::Settled {
                    cancelled: true, ..
                },
                Event::Cancel,
            ) => ignored(phase, Ignored::AlreadyCancelled),
            (
                Phase::Settled {
                    outcome,
                    cancelled: false,
                },
                Event::Cancel,
            ) => (
                Phase::Settled {
                    outcome,
                    cancelled: true,
                },
                Vec::new(),
            ),
            (Phase::Settled { outcome, cancelled }, Event::DispatchCheck) => {
                let verdict = verdict(outcome, cancelled);
                (
                    Phase::Checked { outcome, verdict },
                    vec![Action::Dispatch(verdict)],
                )
            }
            (Phase::Checked { .. }, Event::DispatchCheck) => (
                phase,
                vec![Action::Dispatch(DispatchVerdict::AlreadyChecked)],
            ),
            (
                Phase::Checked { .. },
                Event::Ask(_) | Event::Answer(_) | Event::Unanswered(_) | Event::Cancel,
            ) => ignored(phase, Ignored::AfterDispatchCheck),
        }
    }

    fn settle(&self, outcome: Outcome, cancelled: bool) -> (Phase, Action) {
        (
            Phase::Settled { outcome, cancelled },
            Action::Decided(self.decided.for_outcome(outcome).clone()),
        )
    }
}

impl DispatchVerdict {
    /// True only for [`DispatchVerdict::Proceed`].
    pub fn proceeds(self) -> bool {
        self == DispatchVerdict::Proceed
    }
}

impl fmt::Display for DispatchVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchVerdict::Proceed => f.write_str("approved for this one call"),
            DispatchVerdict::Denied(outcome) => write!(f, "approval was {outcome}"),
            DispatchVerdict::AbortedBeforeDispatch => f.write_str("aborted before dispatch"),
            DispatchVerdict::NotSettled => f.write_str("approval has not settled"),
            DispatchVerdict::AlreadyChecked => {
                f.write_str("the one dispatch this approval covered has been used")
            }
        }
    }
}

/// The dispatch verdict for a settled request.
fn verdict(outcome: Outcome, cancelled: bool) -> DispatchVerdict {
    match (outcome, cancelled) {
        (Outcome::AllowedOnce, false) => DispatchVerdict::Proceed,
        (Outcome::AllowedOnce | Outcome::Cancelled, _) => DispatchVerdict::AbortedBeforeDispatch,
        (Outcome::Rejected | Outcome::Unavailable, _) => DispatchVerdict::Denied(outcome),
    }
}

fn ignored(phase: Phase, why: Ignored) -> (Phase, Vec<Action>) {
    (phase, vec![Action::Ignored(why)])
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct DecidedRecords {
    allowed_once: ApprovalDecided,
    rejected: ApprovalDecided,
    cancelled: ApprovalDecided,
    unavailable: ApprovalDecided,
}

impl DecidedRecords {
    fn new(id: &str) -> Result<DecidedRecords, RecordError> {
        Ok(DecidedRecords {
            allowed_once: ApprovalDecided::new(id, Outcome::AllowedOnce)?,
            rejected: ApprovalDecided::new(id, Outcome::Rejected)?,
            cancelled: ApprovalDecided::new(id, Outcome::Cancelled)?,
            unavailable: ApprovalDecided::new(id, Outcome::Unavailable)?,
        })
    }

    fn for_outcome(&self, outcome: Outcome) -> &ApprovalDecided {
        match outcome {
            Outcome::AllowedOnce => &self.allowed_once,
            Outcome::Rejected => &self.rejected,
            Outcome::Cancelled => &self.cancelled,
            Outcome::Unavailable => &self.unavailable,
        }
    }
}
