//! The rules as a stage of the pre-execute chain.

use crate::chain::{self, Listener, Next, Ruling, StageError, ToolCall};

use super::evaluation::Evaluation;
use super::explain::Explanation;
use super::set::{RuleSet, Subject};

/// How much of its reading the rules listener records in the trace
/// ([`Trace::explaining`](crate::chain::Trace::explaining)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Explain {
    /// What the rules alone give on the call ([`Reading::Other`] for every call).
    Evaluation,
    /// As [`Explain::Evaluation`], and a shell command form by form ([`Reading::Command`]).
    Forms,
}

/// What the rules read in one call, recorded by the rules listener as it decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// A call of the shell tool with a command, explained form by form ([`Explain::Forms`]):
    /// every segment and form, and the evaluation.
    Command(Explanation),
    /// Any other call, or a command without [`Explain::Forms`]: what the rules give on its
    /// typed field.
    Other(Evaluation),
}

impl Reading {
    /// What the rules alone give on the call.
    pub fn evaluation(&self) -> &Evaluation {
        match self {
            Reading::Command(explanation) => &explanation.evaluation,
            Reading::Other(evaluation) => evaluation,
        }
    }

    /// The explanation form by form, for a shell command read with [`Explain::Forms`].
    pub fn command(&self) -> Option<&Explanation> {
        match self {
            Reading::Command(explanation) => Some(explanation),
            Reading::Other(_) => None,
        }
    }
}

/// A [`Listener`] that evaluates a [`RuleSet`] on the call's typed subject.
///
/// Deny, ask and allow short-circuit with the matching rule and form as the ruling's
/// [`Because`](crate::chain::Because) (for allow, the first segment's match); an unanalysable
/// field asks with the reason; when no rule decides, the listener delegates to the rest of the
/// chain. It never fails. The command is segmented into the buffer the evaluation's trace
/// carries, so deciding with a reused trace allocates nothing (spec/policy.md, section 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesListener {
    rules: RuleSet,
}

impl RulesListener {
    /// A listener over `rules`.
    #[must_use]
    pub fn new(rules: RuleSet) -> RulesListener {
        RulesListener { rules }
    }

    /// The rules.
    #[must_use]
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// What the rules say about `call`, without the chain.
    #[must_use]
    pub fn evaluate(&self, call: &ToolCall) -> Evaluation {
        self.rules.evaluate(call.tool(), subject_of(call))
    }

    /// The reading this listener records when a trace asks for one
    /// ([`Trace::explaining`](crate::chain::Trace::explaining)): for [`Explain::Forms`] and a
    /// shell command, the command form by form; otherwise the evaluation.
    #[must_use]
    pub fn read(&self, call: &ToolCall, explain: Explain) -> Reading {
        match (explain, call.subject()) {
            (Explain::Forms, chain::Subject::Command(command)) => {
                Reading::Command(self.rules.explain(call.tool(), Subject::Command(command)))
            }
            _ => Reading::Other(self.evaluate(call)),
        }
    }
}

impl Listener for RulesListener {
    fn decide(&self, call: &ToolCall, mut next: Next<'_>) -> Result<Ruling, StageError> {
        if let Some(explain) = next.explain_request() {
            next.record_reading(self.read(call, explain));
        }
        // Segmented into the buffer the evaluation's trace carries, so that a reused trace
        // makes deciding a command free of allocations.
        let scratch = next.scratch();
        let decided = self.rules.decide(
            call.tool(),
            subject_of(call),
            &mut scratch.segments,
            &mut scratch.form,
        );
        match decided {
            Some(ruling) => Ok(ruling),
            None => Ok(next.run()),
        }
    }
}

/// The typed field of the call that rules bind to.
fn subject_of(call: &ToolCall) -> Subject<'_> {
    match call.subject() {
        chain::Subject::Command(command) => Subject::Command(command),
        chain::Subject::Path(path) => Subject::Path(path),
        chain::Subject::Url { url, .. } => Subject::Url(url),
        _ => {
            let field = match call.tool() {
                "Agent" | "Task" => "subagent_type",
                "Skill" => "skill",
                _ => return Subject::None,
            };
            call.sealed()
                .arguments()
                .as_object()
                .and_then(|object| object.get(field))
                .and_then(seal_parse::json::Value::as_str)
                .map_or(Subject::None, Subject::Name)
        }
    }
}
