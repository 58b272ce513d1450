//! The chain: listeners in registration order with scope routing, the end-of-chain default, and
//! the guards that run after an allow.

use std::fmt;
use std::sync::Arc;

use super::call::ToolCall;
use super::decision::{Decision, Reason, Ruling};
use super::guard::{Check, Guard};
use super::listener::{Listener, Next};
use super::scope::Scope;
use super::trace::{Returned, StageKind, Trace, Via};
use super::verdict::{Allowed, Denied, DenyCause, Evaluated, Pending, Verdict};

/// The most listeners, or guards, any [`ChainLimits`] may allow (listeners delegate by
/// recursion, so this bounds the stack depth of an evaluation).
pub const MAX_STAGES_CEILING: usize = 1024;

/// Longest stage name, in bytes.
pub const MAX_STAGE_NAME_BYTES: usize = 64;

/// Name of the end-of-chain step in a trace.
pub const END_OF_CHAIN_NAME: &str = "default";

/// Name of the approval step in a trace.
pub const APPROVAL_NAME: &str = "approval";

/// The pre-execute chain: listeners, an end-of-chain default, global and scoped guards.
///
/// Order for one call: the listeners whose scope matches it, in registration order (a
/// [`Chain::prepend`]ed listener comes before every listener registered so far), each able to
/// delegate, replace or short-circuit; then the end-of-chain default if the waterfall reaches it.
/// On `deny` the call is refused; on `ask` the evaluation is [`Pending`] on the approval outcome;
/// on `allow` (or `allowed-once`) every global guard, then every scoped guard matching the call,
/// in registration order, must pass. Any stage failure denies.
pub struct Chain {
    listeners: Vec<ListenerEntry>,
    global_guards: Vec<GuardEntry>,
    scoped_guards: Vec<GuardEntry>,
    default: Decision,
    limits: ChainLimits,
    end_of_chain_name: Arc<str>,
    approval_name: Arc<str>,
}

/// Caller-visible bounds on a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainLimits {
    /// Most listeners (default 64, at most [`MAX_STAGES_CEILING`]).
    pub max_listeners: usize,
    /// Most guards, global and scoped together (default 64, at most [`MAX_STAGES_CEILING`]).
    pub max_guards: usize,
}

/// A registration the chain refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChainError {
    /// Registering one more listener would exceed [`ChainLimits::max_listeners`].
    TooManyListeners {
        /// The limit.
        limit: usize,
    },
    /// Registering one more guard would exceed [`ChainLimits::max_guards`].
    TooManyGuards {
        /// The limit.
        limit: usize,
    },
    /// A limit above [`MAX_STAGES_CEILING`].
    LimitAboveCeiling {
        /// The limit asked for.
        limit: usize,
    },
    /// A stage name that is empty, longer than [`MAX_STAGE_NAME_BYTES`], or holds a byte
    /// outside printable ASCII without space.
    InvalidName {
        /// The name given.
        name: String,
    },
    /// A stage name already registered (listener and guard names share one namespace).
    DuplicateName {
        /// The name given.
        name: String,
    },
}

impl Default for ChainLimits {
    fn default() -> ChainLimits {
        ChainLimits {
            max_listeners: 64,
            max_guards: 64,
        }
    }
}

impl Chain {
    /// An empty chain whose end-of-chain default is `default`, with [`ChainLimits::default`].
    pub fn new(default: Decision) -> Chain {
        Chain {
            listeners: Vec::new(),
            global_guards: Vec::new(),
            scoped_guards: Vec::new(),
            default,
            limits: ChainLimits::default(),
            end_of_chain_name: Arc::from(END_OF_CHAIN_NAME),
            approval_name: Arc::from(APPROVAL_NAME),
        }
    }

    /// An empty chain with the given limits.
    pub fn with_limits(default: Decision, limits: ChainLimits) -> Result<Chain, ChainError> {
        for limit in [limits.max_listeners, limits.max_guards] {
            if limit > MAX_STAGES_CEILING {
                return Err(ChainError::LimitAboveCeiling { limit });
            }
        }
        let mut chain = Chain::new(default);
        chain.limits = limits;
        Ok(chain)
    }

    /// Registers a listener after every listener registered so far.
    pub fn append<L>(&mut self, name: &str, scope: Scope, listener: L) -> Result<(), ChainError>
    where
        L: Listener + Send + Sync + 'static,
    {
        let entry = self.listener_entry(name, scope, Box::new(listener))?;
        self.listeners.push(entry);
        Ok(())
    }

    /// Registers a listener before every listener registered so far.
    pub fn prepend<L>(&mut self, name: &str, scope: Scope, listener: L) -> Result<(), ChainError>
    where
        L: Listener + Send + Sync + 'static,
    {
        let entry = self.listener_entry(name, scope, Box::new(listener))?;
        self.listeners.insert(0, entry);
        Ok(())
    }

    /// Registers a guard that checks every allowed call, after the global guards registered so
    /// far and before every scoped guard.
    pub fn add_global_guard<G>(&mut self, name: &str, guard: G) -> Result<(), ChainError>
    where
        G: Guard + Send + Sync + 'static,
    {
        let entry = self.guard_entry(name, Scope::everywhere(), Box::new(guard))?;
        self.global_guards.push(entry);
        Ok(())
    }

    /// Registers a guard that checks allowed calls matching `scope`, after every global guard
    /// and after the scoped guards registered so far.
    pub fn add_scoped_guard<G>(
        &mut self,
        name: &str,
        scope: Scope,
        guard: G,
    ) -> Result<(), ChainError>
    where
        G: Guard + Send + Sync + 'static,
    {
        let entry = self.guard_entry(name, scope, Box::new(guard))?;
        self.scoped_guards.push(entry);
        Ok(())
    }

    /// The end-of-chain default.
    pub fn default_decision(&self) -> &Decision {
        &self.default
    }

    /// The limits.
    pub fn limits(&self) -> ChainLimits {
        self.limits
    }

    /// The listeners with their scopes, in the order the waterfall consults them.
    pub fn listeners(&self) -> impl Iterator<Item = (&str, &Scope)> {
        self.listeners
            .iter()
            .map(|entry| (&*entry.name, &entry.scope))
    }

    /// The global guards' names, in the order they run.
    pub fn global_guards(&self) -> impl Iterator<Item = &str> {
        self.global_guards.iter().map(|entry| &*entry.name)
    }

    /// The scoped guards with their scopes, in the order they run (after the global ones).
    pub fn scoped_guards(&self) -> impl Iterator<Item = (&str, &Scope)> {
        self.scoped_guards
            .iter()
            .map(|entry| (&*entry.name, &entry.scope))
    }

    /// Listener names, in the order the waterfall consults them.
    pub fn listener_names(&self) -> impl Iterator<Item = &str> {
        self.listeners.iter().map(|entry| &*entry.name)
    }

    /// Guard names, in the order they run (global, then scoped).
    pub fn guard_names(&self) -> impl Iterator<Item = &str> {
        self.global_guards
            .iter()
            .chain(&self.scoped_guards)
            .map(|entry| &*entry.name)
    }

    /// Evaluates a call: the waterfall, then either a verdict (deny; or allow after the guards)
    /// or a [`Pending`] ask. See [`Chain`] for the order.
    ///
    /// The chain itself never panics. A stage that panics outside a
    /// [`CatchPanics`](crate::chain::CatchPanics) wrapper unwinds out of this call; an embedder
    /// that catches the panic here has no verdict and must not dispatch the call.
    pub fn evaluate<'a>(&'a self, call: &'a ToolCall) -> Evaluated<'a> {
        self.evaluate_reusing(call, Trace::default())
    }

    /// [`Chain::evaluate`], writing the trace into the buffer of `trace` (cleared first). Handing
    /// back the trace of an earlier verdict ([`Verdict::into_trace`]) lets an evaluation whose
    /// stages give static or shared reasons run without allocating; the trace also carries the
    /// buffers the rules listener reuses, so that deciding a command no larger in any respect
    /// than one decided before allocates nothing, unless the command is unanalysable
    /// (spec/policy.md, section 4).
    pub fn evaluate_reusing<'a>(&'a self, call: &'a ToolCall, mut trace: Trace) -> Evaluated<'a> {
        let capacity =
            self.listeners.len() + self.global_guards.len() + self.scoped_guards.len() + 2;
        trace.reset(capacity);
        let mut run = Run {
            trace,
            failure: None,
        };
        let ruling = descend(self, 0, call, &mut run);
        let Run { mut trace, failure } = run;
        if let Some(failed) = failure {
            trace.set_decided_by(failed);
            let reason = failure_reason(&trace, failed);
            return Evaluated::Decided(Verdict::Deny(Denied::new(
                reason,
                DenyCause::Failed,
                trace,
            )));
        }
        if let Some(origin) = ruling.origin() {
            trace.set_decided_by(origin);
        }
        match ruling.into_decision() {
            Decision::Allow => Evaluated::Decided(run_guards(self, call, trace)),
            Decision::Deny(reason) => Evaluated::Decided(Verdict::Deny(Denied::new(
                reason,
                DenyCause::Decided,
                trace,
            ))),
            Decision::Ask(reason) => Evaluated::Pending(Pending::new(self, call, reason, trace)),
        }
    }

    pub(crate) fn approval_name(&self) -> &Arc<str> {
        &self.approval_name
    }

    fn listener_entry(
        &self,
        name: &str,
        scope: Scope,
        listener: Box<dyn Listener + Send + Sync>,
    ) -> Result<ListenerEntry, ChainError> {
        if self.listeners.len() >= self.limits.max_listeners {
            return Err(ChainError::TooManyListeners {
                limit: self.limits.max_listeners,
            });
        }
        Ok(ListenerEntry {
            name: self.checked_name(name)?,
            scope,
            listener,
        })
    }

    fn guard_entry(
        &self,
        name: &str,
        scope: Scope,
        guard: Box<dyn Guard + Send + Sync>,
    ) -> Result<GuardEntry, ChainError> {
        if self.global_guards.len() + self.scoped_guards.len() >= self.limits.max_guards {
            return Err(ChainError::TooManyGuards {
                limit: self.limits.max_guards,
            });
        }
        Ok(GuardEntry {
            name: self.checked_name(name)?,
            scope,
            guard,
        })
    }

    fn checked_name(&self, name: &str) -> Result<Arc<str>, ChainError> {
        let valid = !name.is_empty()
            && name.len() <= MAX_STAGE_NAME_BYTES
            && name.bytes().all(|byte| (0x21..=0x7e).contains(&byte));
        if !valid {
            return Err(ChainError::InvalidName {
                name: name.to_owned(),
            });
        }
        let taken = self
            .listener_names()
            .chain(self.guard_names())
            .any(|existing| existing == name);
        if taken {
            return Err(ChainError::DuplicateName {
                name: name.to_owned(),
            });
        }
        Ok(Arc::from(name))
    }
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field(
                "listeners",
                &self
                    .listeners
                    .iter()
                    .map(|e| (&*e.name, &e.scope))
                    .collect::<Vec<_>>(),
            )
            .field(
                "global_guards",
                &self
                    .global_guards
                    .iter()
                    .map(|e| &*e.name)
                    .collect::<Vec<_>>(),
            )
            .field(
                "scoped_guards",
                &self
                    .scoped_guards
                    .iter()
                    .map(|e| (&*e.name, &e.scope))
                    .collect::<Vec<_>>(),
            )
            .field("default", &self.default)
            .field("limits", &self.limits)
            .finish()
    }
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChainError::TooManyListeners { limit } => {
                write!(f, "more than {limit} listeners")
            }
            ChainError::TooManyGuards { limit } => write!(f, "more than {limit} guards"),
            ChainError::LimitAboveCeiling { limit } => write!(
                f,
                "limit {limit} is above the ceiling of {MAX_STAGES_CEILING} stages"
            ),
            ChainError::InvalidName { name } => write!(
                f,
                "stage name `{}` is not 1 to {MAX_STAGE_NAME_BYTES} bytes of printable ascii without space",
                name.escape_debug()
            ),
            ChainError::DuplicateName { name } => {
                write!(f, "stage name `{}` is already registered", name.escape_debug())
            }
        }
    }
}

impl std::error::Error for ChainError {}

/// The mutable state of one evaluation, shared down the waterfall through [`Next`].
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) trace: Trace,
    failure: Option<usize>,
}

struct ListenerEntry {
    name: Arc<str>,
    scope: Scope,
    listener: Box<dyn Listener + Send + Sync>,
}

struct GuardEntry {
    name: Arc<str>,
    scope: Scope,
    guard: Box<dyn Guard + Send + Sync>,
}

/// Runs the waterfall from listener position `from`: the first listener at or after it whose
/// scope matches the call, or the end-of-chain default.
pub(crate) fn descend(chain: &Chain, from: usize, call: &ToolCall, run: &mut Run) -> Ruling {
    let rest = chain.listeners.get(from..).unwrap_or_default();
    let Some((offset, entry)) = rest
        .iter()
        .enumerate()
        .find(|(_, entry)| entry.scope.matches(call))
    else {
        let step = run
            .trace
            .enter(StageKind::EndOfChain, &chain.end_of_chain_name);
        run.trace.record(
            step,
            Returned::Decision(chain.default.clone()),
            Via::Own,
            None,
        );
        return Ruling::new(chain.default.clone()).with_origin(step);
    };
    let step = run.trace.enter(StageKind::Listener, &entry.name);
    let next = Next::new(chain, from + offset + 1, call, run, step);
    let result = entry.listener.decide(call, next);
    let delegated = run.trace.via_of(step) == Some(Via::Replaced);
    match result {
        Ok(ruling) => {
            let end = run.trace.len();
            let kept = delegated
                && ruling
                    .origin()
                    .is_some_and(|origin| origin > step && origin < end);
            let returned = Returned::Decision(ruling.decision().clone());
            if kept {
                run.trace.record(step, returned, Via::Kept, None);
                ruling
            } else {
                let via = if delegated { Via::Replaced } else { Via::Own };
                run.trace
                    .record(step, returned, via, ruling.explanation().cloned());
                ruling.with_origin(step)
            }
        }
        Err(error) => {
            let via = if delegated { Via::Replaced } else { Via::Own };
            run.trace.record(step, Returned::Failed(error), via, None);
            run.failure.get_or_insert(step);
            Ruling::new(Decision::Deny(failure_reason(&run.trace, step))).with_origin(step)
        }
    }
}

/// Runs the global guards, then the scoped guards matching the call; allows only if every one
/// passes.
pub(crate) fn run_guards(chain: &Chain, call: &ToolCall, mut trace: Trace) -> Verdict {
    let global = chain
        .global_guards
        .iter()
        .map(|entry| (StageKind::GlobalGuard, entry));
    let scoped = chain
        .scoped_guards
        .iter()
        .filter(|entry| entry.scope.matches(call))
        .map(|entry| (StageKind::ScopedGuard, entry));
    for (kind, entry) in global.chain(scoped) {
        let step = trace.enter(kind, &entry.name);
        match entry.guard.check(call) {
            Ok(Check::Pass) => trace.record(step, Returned::Pass, Via::Own, None),
            Ok(Check::Deny { reason, because }) => {
                trace.record(
                    step,
                    Returned::Decision(Decision::Deny(reason.clone())),
                    Via::Own,
                    because,
                );
                trace.set_decided_by(step);
                return Verdict::Deny(Denied::new(reason, DenyCause::Guard, trace));
            }
            Err(error) => {
                trace.record(step, Returned::Failed(error), Via::Own, None);
                trace.set_decided_by(step);
                let reason = failure_reason(&trace, step);
                return Verdict::Deny(Denied::new(reason, DenyCause::Failed, trace));
            }
        }
    }
    Verdict::Allow(Allowed::new(trace))
}

fn failure_reason(trace: &Trace, step: usize) -> Reason {
    match trace.steps().get(step) {
        Some(step) => Reason::from(format!(
            "{} {} failed",
            step.stage().kind().as_str(),
            step.stage().name()
        )),
        None => Reason::from("a stage failed"),
    }
}
