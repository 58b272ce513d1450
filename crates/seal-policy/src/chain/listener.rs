//! Pre-execute listeners and the [`Next`] handle through which one delegates to the rest of the
//! chain.

use super::call::ToolCall;
use super::decision::Ruling;
use super::failure::StageError;
use super::note::Note;
use super::trace::Via;
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

    /// Storage of type `T` carried by the evaluation's trace, reused from one evaluation to
    /// the next (see [`Scratch`](super::note)); `None` never happens in practice, and the
    /// caller then works in storage of its own.
    pub(crate) fn scratch<T: std::any::Any + Default + Send + Sync>(&mut self) -> Option<&mut T> {
        self.run.trace.scratch()
    }

    /// The caller's request of type `T` to the stages, if the trace carries one
    /// ([`Trace::asking`](crate::chain::Trace::asking)).
    pub(crate) fn request<T: std::any::Any>(&self) -> Option<&T> {
        self.run.trace.request::<T>()
    }

    /// Records `note` in the evaluation's trace ([`Trace::note`](crate::chain::Trace::note)).
    pub(crate) fn record<T: Note>(&mut self, note: T) {
        self.run.trace.record_note(note);
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
