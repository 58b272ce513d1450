//! The rules as a stage of the pre-execute chain.

use crate::chain::{self, Because, Listener, Next, Ruling, StageError, ToolCall};

use super::evaluation::{AskCause, Evaluation, Match, Site};
use super::set::{RuleSet, Subject};

/// A [`Listener`] that evaluates a [`RuleSet`] on the call's typed subject.
///
/// Deny, ask and allow short-circuit with the matching rule and form as the ruling's
/// [`Because`] (for allow, the first segment's match); an unanalysable field asks with the
/// reason; when no rule decides, the listener delegates to the rest of the chain. It never
/// fails.
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
}

impl Listener for RulesListener {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        // The evaluation is owned here: its decisive match moves into the explanation.
        let (ruling, decisive) = match self.rules.evaluate_decisive(call.tool(), subject_of(call)) {
            Evaluation::Deny(m) => (
                Ruling::deny(format!("denied by rule `{}`", m.text)),
                Some(m),
            ),
            Evaluation::Ask(AskCause::Rule(m)) => {
                (Ruling::ask(format!("rule `{}` asks", m.text)), Some(m))
            }
            Evaluation::Ask(AskCause::Unanalysed(u)) => (Ruling::ask(u.to_string()), None),
            Evaluation::Allow(matches) => (Ruling::allow(), matches.into_iter().next()),
            Evaluation::NoMatch(_) => return Ok(next.run()),
        };
        Ok(match decisive {
            Some(m) => ruling.because(because_of(m)),
            None => ruling,
        })
    }
}

/// The rule and the form it matched, as the chain's explanation.
fn because_of(m: Match) -> Because {
    match m.site {
        Site::Tool => Because::rule(m.text),
        Site::Segment { form, .. }
        | Site::Launcher { form, .. }
        | Site::Path(form)
        | Site::Host(form) => Because::rule_and_form(m.text, form),
    }
}

/// The typed field of the call that rules bind to.
fn subject_of(call: &ToolCall) -> Subject<'_> {
    match call.subject() {
        chain::Subject::Command(command) => Subject::Command(command),
        chain::Subject::Path(path) => Subject::Path(path),
        chain::Subject::Url { url, .. } => Subject::Url(url),
        _ => Subject::None,
    }
}
