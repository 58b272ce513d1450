//! Pre-execute listeners and the [`Next`] handle through which one delegates to the rest of the
//! chain.

use super::call::ToolCall;
use super::decision::Ruling;
use super::failure::StageError;
use super::trace::{Scratch, Via};
use super::waterfall::{descend, Chain, Run};

/// A stage of the pre-execute waterfall.
///
/// A listener sees the call and a [`Next`] handle for the rest of the chain, and may
///
/// - **short-circuit**: return a ruling without calling `next` (the rest of the chain is not
///   consulted);
/// - **delegate**: call [`Next::run`] and return that ruling unchanged (*keep*);
/// - **replace**: call [`Next::run`] and return a different ruling.
///
/// Whatever it returns, guards still run after an allow: no listener can reach them. An `Err`
/// denies the call, and so does a panic caught by [`CatchPanics`](crate::chain::CatchPanics) or
/// the embedder; a failure is final: once any consulted stage fails, the verdict is deny even if
/// a listener upstream of it replaces the downstream ruling (I12).
///
/// Listeners are synchronous and sans-IO: a listener that needs an answer from outside (a hook
/// process, a reviewer) is given it by the embedder before evaluation, or asks through
/// [`Decision::Ask`](crate::chain::Decision::Ask) and the approval state machine.
pub trait Listener {
    /// Rules on the call, possibly by delegating to `next`.
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError>;
}

/// The rest of the chain after a listener: the next listeners whose scope matches the call, then
/// the end-of-chain default. It can be run at most once (running consumes it); dropping it
/// without running is a short-circuit.
#[derive(Debug)]
pub struct Next<'a> {
    chain: &'a Chain,
    from: usize,
    call: &'a ToolCall,
    run: &'a mut Run,
    caller: usize,
}

impl<'a> Next<'a> {
    pub(crate) fn new(
        chain: &'a Chain,
        from: usize,
        call: &'a ToolCall,
        run: &'a mut Run,
        caller: usize,
    ) -> Next<'a> {
        Next {
            chain,
            from,
            call,
            run,
            caller,
        }
    }

    /// Storage carried by the evaluation's trace, reused from one evaluation to the next.
    pub(crate) fn scratch(&mut self) -> &mut Scratch {
        self.run.trace.scratch()
    }

    /// What the evaluation's trace asks a listener to record of its reading, if anything
    /// ([`Trace::explaining`](crate::chain::Trace::explaining)).
    pub(crate) fn explain_request(&self) -> Option<crate::rules::Explain> {
        self.run.trace.explain_request()
    }

    /// Records the rules listener's reading of the call in the evaluation's trace.
    pub(crate) fn record_reading(&mut self, reading: crate::rules::Reading) {
        self.run.trace.set_reading(reading);
    }

    /// Runs the rest of the chain and returns its ruling. Returning that ruling unchanged keeps
    /// it; the trace then names the downstream stage that decided.
    pub fn run(self) -> Ruling {
        self.run.trace.record_via(self.caller, Via::Replaced);
        descend(self.chain, self.from, self.call, self.run)
    }
}

impl<F> Listener for F
where
    F: Fn(&ToolCall, Next<'_>) -> Result<Ruling, StageError>,
{
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        self(call, next)
    }
}
