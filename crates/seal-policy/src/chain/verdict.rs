//! What evaluating a call yields: a final [`Verdict`], or a [`Pending`] ask that the embedder
//! settles with the approval outcome.

use seal_record::Outcome;

use super::call::ToolCall;
use super::decision::Reason;
use super::trace::{Returned, StageKind, Trace, Via};
use super::waterfall::{run_guards, Chain};

/// The result of [`Chain::evaluate`]: decided, or waiting for approval.
#[derive(Debug)]
#[must_use = "a pending ask must be finished with the approval outcome; dropping it allows nothing"]
pub enum Evaluated<'a> {
    /// The chain decided without asking.
    Decided(Verdict),
    /// The waterfall asked: settle it with [`Pending::finish`].
    Pending(Pending<'a>),
}

/// The final word on a call: allowed (a witness only the chain constructs) or denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The call may be dispatched.
    Allow(Allowed),
    /// The call must not be dispatched.
    Deny(Denied),
}

/// Witness that the chain allowed a call: the waterfall (or an `allowed-once` approval) allowed
/// it, no stage failed, and every global and scoped guard matching it passed. Only the chain
/// constructs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    trace: Trace,
}

/// A refused call: why, which kind of stage refused it, and the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    reason: Reason,
    cause: DenyCause,
    trace: Trace,
}

/// Which kind of stage refused a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DenyCause {
    /// A listener or the end-of-chain default decided deny.
    Decided,
    /// A guard denied.
    Guard,
    /// A listener or guard failed (returned an error or panicked).
    Failed,
    /// The approval outcome was not `allowed-once`.
    Approval(Outcome),
    /// The call's escalation request was invalid (partial, blank, unknown mode, not strictly
    /// wider, above a delegated child's ceiling, or on an executor that cannot sandbox): the
    /// [`Pipeline`](crate::pipeline::Pipeline) refused it before any stage ran.
    Escalation,
}

/// An ask from the waterfall, waiting for the approval state machine's outcome.
///
/// Only [`Pending::finish`] with [`Outcome::AllowedOnce`] can lead to an allow, and then only if
/// every guard passes. Dropping a pending ask allows nothing.
#[derive(Debug)]
#[must_use = "a pending ask must be finished with the approval outcome; dropping it allows nothing"]
pub struct Pending<'a> {
    chain: &'a Chain,
    call: &'a ToolCall,
    reason: Option<Reason>,
    trace: Trace,
}

impl Evaluated<'_> {
    /// The verdict if decided, or the verdict an answerer-less embedder must apply: a pending ask
    /// is finished as [`Outcome::Unavailable`] (deny).
    pub fn without_approval(self) -> Verdict {
        match self {
            Evaluated::Decided(verdict) => verdict,
            Evaluated::Pending(pending) => pending.finish(Outcome::Unavailable),
        }
    }
}

impl Verdict {
    /// `true` for [`Verdict::Allow`] only.
    pub fn is_allow(&self) -> bool {
        matches!(self, Verdict::Allow(_))
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        match self {
            Verdict::Allow(allowed) => allowed.trace(),
            Verdict::Deny(denied) => denied.trace(),
        }
    }

    /// The trace, given up (for example to [`Chain::evaluate_reusing`]).
    pub fn into_trace(self) -> Trace {
        match self {
            Verdict::Allow(allowed) => allowed.trace,
            Verdict::Deny(denied) => denied.trace,
        }
    }

    /// The denial, if the call was refused.
    pub fn denied(&self) -> Option<&Denied> {
        match self {
            Verdict::Allow(_) => None,
            Verdict::Deny(denied) => Some(denied),
        }
    }
}

impl Allowed {
    pub(crate) fn new(trace: Trace) -> Allowed {
        Allowed { trace }
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
}

impl Denied {
    pub(crate) fn new(reason: Reason, cause: DenyCause, trace: Trace) -> Denied {
        Denied {
            reason,
            cause,
            trace,
        }
    }

    /// Why the call was refused.
    pub fn reason(&self) -> &Reason {
        &self.reason
    }

    /// Which kind of stage refused it.
    pub fn cause(&self) -> DenyCause {
        self.cause
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }
}

impl<'a> Pending<'a> {
    pub(crate) fn new(
        chain: &'a Chain,
        call: &'a ToolCall,
        reason: Option<Reason>,
        trace: Trace,
    ) -> Pending<'a> {
        Pending {
            chain,
            call,
            reason,
            trace,
        }
    }

    /// The call waiting for approval.
    pub fn call(&self) -> &ToolCall {
        self.call
    }

    /// The reason the waterfall gave for asking, if any.
    pub fn reason(&self) -> Option<&Reason> {
        self.reason.as_ref()
    }

    /// The trace so far (the waterfall).
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Settles the ask with the approval outcome. `allowed-once` runs the guards (global, then
    /// scoped) and allows only if all pass; every other outcome denies with a message naming
    /// the outcome.
    pub fn finish(self, outcome: Outcome) -> Verdict {
        let Pending {
            chain,
            call,
            mut trace,
            ..
        } = self;
        let step = trace.enter(StageKind::Approval, chain.approval_name());
        trace.record(step, Returned::Approval(outcome), Via::Own, None);
        trace.set_decided_by(step);
        let reason = match outcome {
            Outcome::AllowedOnce => return run_guards(chain, call, trace),
            Outcome::Rejected => "approval was rejected",
            Outcome::Cancelled => "approval was cancelled",
            Outcome::Unavailable => "approval was unavailable",
        };
        Verdict::Deny(Denied::new(
            Reason::from(reason),
            DenyCause::Approval(outcome),
            trace,
        ))
    }
}
