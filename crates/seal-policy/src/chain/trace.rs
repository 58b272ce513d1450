//! The explanation trace: every stage consulted for a call, in order, what each returned, and
//! which one decided.

use std::fmt;
use std::sync::Arc;

use seal_record::Outcome;
use seal_render::{escape, Context};

use super::decision::{Because, Decision};
use super::failure::StageError;
use super::note::{Note, Notes, Scratch};

/// Every stage consulted for one call, in the order each was entered, and the step that decided.
///
/// Listeners appear in the order the waterfall reached them (a listener that delegates comes
/// before the stages it delegated to); stages whose scope did not match the call, and stages
/// after a short-circuit, are not consulted and do not appear.
///
/// A trace also carries what its caller asked the stages to record ([`Trace::asking`]) and
/// the notes they recorded ([`Trace::note`]; the rules listener's reading of the call is one),
/// of types the chain does not know. And it carries working storage for the next evaluation
/// that reuses it ([`Chain::evaluate_reusing`](crate::chain::Chain::evaluate_reusing)), of the
/// one stage that keeps some there: it is not part of the explanation (equality, `Debug` and
/// `Display` ignore it, and a clone starts without it).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Trace {
    steps: Vec<Step>,
    decided_by: Option<usize>,
    /// What the caller asks the stages to record, if anything.
    requests: Notes,
    /// What the stages recorded as they decided.
    notes: Notes,
    /// Made at the first evaluation that needs it, then kept.
    scratch: Scratch,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("steps", &self.steps)
            .field("decided_by", &self.decided_by)
            .field("notes", &self.notes)
            .finish()
    }
}

/// One stage consulted, and what it returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    stage: Stage,
    returned: Returned,
    via: Via,
    because: Option<Because>,
}

/// A stage of the chain: its kind and the name it was registered under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    kind: StageKind,
    name: Arc<str>,
}

/// The kinds of stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StageKind {
    /// A pre-execute listener.
    Listener,
    /// The configured end-of-chain default.
    EndOfChain,
    /// The approval state machine's outcome, given to [`Pending::finish`](crate::chain::Pending::finish).
    Approval,
    /// A global guard.
    GlobalGuard,
    /// A scoped guard.
    ScopedGuard,
    /// The escalation request of the call: its check, or how its approval settled (added by
    /// the [`Pipeline`](crate::pipeline::Pipeline), never by the chain).
    Escalation,
}

/// What a stage returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Returned {
    /// A listener's or the default's decision.
    Decision(Decision),
    /// A guard passed.
    Pass,
    /// A stage failed (the call is denied).
    Failed(StageError),
    /// The approval outcome.
    Approval(Outcome),
    /// The stage never returned: a panic unwound through it and was caught further up.
    Unfinished,
}

/// How a listener reached its ruling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Via {
    /// Without delegating (a short-circuit); also every stage that is not a listener.
    Own,
    /// It delegated to the rest of the chain and returned that ruling unchanged.
    Kept,
    /// It delegated to the rest of the chain and returned a ruling of its own.
    Replaced,
}

impl Trace {
    /// The steps, in the order the stages were entered.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The step that decided: the stage whose ruling the call ended with (through any number of
    /// listeners that kept it), the guard that denied, the approval outcome that was not
    /// `allowed-once`, or the first stage that failed.
    pub fn decided_by(&self) -> Option<&Step> {
        self.decided_by.and_then(|index| self.steps.get(index))
    }

    /// The index in [`Trace::steps`] of the step that decided.
    pub fn decided_by_index(&self) -> Option<usize> {
        self.decided_by
    }

    /// An empty trace that carries `request` to the stages: a stage that knows the request's
    /// type may record a note in answer ([`Trace::note`]); the others ignore it. (The rules
    /// listener answers a request of its own `Explain` type with its reading.) The decision is
    /// the same as without it.
    pub fn asking<T: Note>(request: T) -> Trace {
        let mut trace = Trace::default();
        trace.requests.put(request);
        trace
    }

    /// The note of type `T` a stage recorded as it decided, if one did (`None` when the
    /// stage that records it was not reached).
    pub fn note<T: std::any::Any>(&self) -> Option<&T> {
        self.notes.get::<T>()
    }

    /// The steps before the first approval step: the waterfall's (and an escalation check's),
    /// all of them when no approval was settled.
    pub fn before_approval(&self) -> &[Step] {
        let end = (self.steps.iter())
            .position(|step| step.stage.kind == StageKind::Approval)
            .unwrap_or(self.steps.len());
        self.steps.get(..end).unwrap_or(&self.steps)
    }

    pub(crate) fn request<T: std::any::Any>(&self) -> Option<&T> {
        self.requests.get::<T>()
    }

    pub(crate) fn record_note<T: Note>(&mut self, note: T) {
        self.notes.put(note);
    }

    pub(crate) fn reset(&mut self, capacity: usize) {
        self.steps.clear();
        self.steps.reserve(capacity);
        self.decided_by = None;
        self.notes.clear();
    }

    pub(crate) fn enter(&mut self, kind: StageKind, name: &Arc<str>) -> usize {
        let index = self.steps.len();
        self.steps.push(Step {
            stage: Stage {
                kind,
                name: Arc::clone(name),
            },
            returned: Returned::Unfinished,
            via: Via::Own,
            because: None,
        });
        index
    }

    pub(crate) fn record(
        &mut self,
        index: usize,
        returned: Returned,
        via: Via,
        because: Option<Because>,
    ) {
        if let Some(step) = self.steps.get_mut(index) {
            step.returned = returned;
            step.via = via;
            step.because = because;
        }
    }

    pub(crate) fn record_via(&mut self, index: usize, via: Via) {
        if let Some(step) = self.steps.get_mut(index) {
            step.via = via;
        }
    }

    pub(crate) fn via_of(&self, index: usize) -> Option<Via> {
        self.steps.get(index).map(|step| step.via)
    }

    pub(crate) fn set_decided_by(&mut self, index: usize) {
        self.decided_by = Some(index);
    }

    pub(crate) fn len(&self) -> usize {
        self.steps.len()
    }

    pub(crate) fn scratch<T: std::any::Any + Default + Send + Sync>(&mut self) -> Option<&mut T> {
        self.scratch.get::<T>()
    }
}

impl Step {
    /// The stage.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// What it returned.
    pub fn returned(&self) -> &Returned {
        &self.returned
    }

    /// How a listener reached its ruling ([`Via::Own`] for every other stage).
    pub fn via(&self) -> Via {
        self.via
    }

    /// The rule and normalized form the stage reported, if any. A listener that kept the
    /// downstream ruling reports nothing of its own: the explanation is on the step that decided.
    pub fn because(&self) -> Option<&Because> {
        self.because.as_ref()
    }
}

impl Stage {
    /// The kind of stage.
    pub fn kind(&self) -> StageKind {
        self.kind
    }

    /// The name it was registered under (`default` for the end of the chain, `approval` for the
    /// approval outcome).
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl StageKind {
    /// A lowercase name: `listener`, `end-of-chain`, `approval`, `global-guard`, `scoped-guard`.
    pub fn as_str(self) -> &'static str {
        match self {
            StageKind::Listener => "listener",
            StageKind::EndOfChain => "end-of-chain",
            StageKind::Approval => "approval",
            StageKind::GlobalGuard => "global-guard",
            StageKind::ScopedGuard => "scoped-guard",
            StageKind::Escalation => "escalation",
        }
    }
}

impl fmt::Display for Trace {
    /// One line per step (see [`Step`]'s `Display`), numbered from 1, then `decided by: n` (or
    /// `decided by: none`). Printable ASCII only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, step) in self.steps.iter().enumerate() {
            writeln!(f, "{}. {step}", index + 1)?;
        }
        match self.decided_by {
            Some(index) => write!(f, "decided by: {}", index + 1),
            None => write!(f, "decided by: none"),
        }
    }
}

impl fmt::Display for Step {
    /// `<kind> <name>: <returned>`: `allow`, `deny: <reason>`, `ask: <reason>`, `pass`,
    /// `failed: <detail>`, `panicked: <detail>`, an approval outcome or `unfinished`; then
    /// ` (kept)` or ` (replaced)` for a listener that delegated, and ``[rule `r` form `f`]``
    /// when the stage reports the rule that decided. Names, reasons, rules and forms are
    /// escaped (escape-v1, inline context), so the line is printable ASCII.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inline = |text: &str| escape(text, Context::Inline).into_owned();
        let stage = &self.stage;
        write!(f, "{} {}: ", stage.kind.as_str(), inline(&stage.name))?;
        match &self.returned {
            Returned::Decision(decision) => match decision.reason() {
                Some(reason) => write!(f, "{}: {}", decision.kind(), inline(reason.as_str()))?,
                None => f.write_str(decision.kind())?,
            },
            Returned::Pass => f.write_str("pass")?,
            Returned::Failed(error) => write!(f, "{}: {}", error.kind(), inline(error.detail()))?,
            Returned::Approval(outcome) => f.write_str(outcome.as_str())?,
            Returned::Unfinished => f.write_str("unfinished")?,
        }
        match self.via {
            Via::Own => {}
            Via::Kept => f.write_str(" (kept)")?,
            Via::Replaced => f.write_str(" (replaced)")?,
        }
        if let Some(because) = &self.because {
            write!(f, " [rule `{}`", inline(because.rule_text()))?;
            if let Some(form) = because.form() {
                write!(f, " form `{}`", inline(form))?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}
