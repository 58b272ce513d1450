//! The chain's ruling from the rules: a deny or an ask carries its rule's reason, an allow is
//! explained by its first match.

use std::sync::Arc;

use seal_parse::shell::SegmentBuffer;

use crate::chain::{Because, Decision, Reason, Ruling, Subject};

use super::evaluation::{AskCause, Evaluation, Input, Match};
use super::scan::{combine, Outcome};
use super::set::{RuleEntry, RuleSet};
use super::site::Hit;
use super::Effect;

impl RuleSet {
    /// The chain's rules listener: the ruling [`RuleSet::evaluate`] leads to (deny, ask, or
    /// allow explained by its first match; `None` when no rule decides), segmenting into
    /// `buffer` and writing the matched form into the pooled string `form`. For a command,
    /// deciding allocates nothing once both have the room the command needs, unless the
    /// command is unanalysable (the ask then carries the reason).
    pub(crate) fn decide(
        &self,
        tool: &str,
        subject: Subject<'_>,
        buffer: &mut SegmentBuffer,
        form: &mut Option<Arc<String>>,
    ) -> Option<Ruling> {
        let rules = self.applicable(tool);
        let field = self.field(rules, subject, Input::Submitted, buffer);
        let mut first = None;
        let scan = self.scan(rules, &field, Input::Submitted, &mut |hit: Hit<'_>| {
            first = Some(hit);
            false
        });
        match combine(scan, None) {
            Outcome::Deny(hit) | Outcome::Ask(hit) => {
                Some(Ruling::new(hit.entry.ruling_decision()).because(hit.because(form)))
            }
            Outcome::Unanalysed(u) => Some(Ruling::ask(u.to_string())),
            Outcome::Allow | Outcome::ClientDefault => Some(match first {
                Some(hit) => Ruling::allow().because(hit.because(form)),
                None => Ruling::allow(),
            }),
            Outcome::NoMatch(_) => None,
        }
    }

    /// The ruling `evaluation` (of this rule set, by [`RuleSet::evaluate`] or
    /// [`RuleSet::explain`]) leads to: the ruling the chain's rules listener gives for the same
    /// call, read off the evaluation instead of scanning the rules again. Deny and ask carry
    /// their rule's reason and the rule and form as the explanation; an unanalysable field asks
    /// with its reason; allow is explained by its first match; `None` when no rule decided.
    /// A match whose rule index is not in this set (an evaluation of another set) denies.
    pub(crate) fn ruling(&self, evaluation: &Evaluation) -> Option<Ruling> {
        let explained = |m: &Match, decision: Option<Decision>| {
            let Some(entry) = self.rules.get(m.rule) else {
                debug_assert!(false, "a match names rule {} of another set", m.rule);
                return Ruling::deny("the rules' evaluation names a rule they do not hold");
            };
            let rule = Because::shared_rule(Arc::clone(&entry.text));
            let because = match m.site.text() {
                Some(form) => rule.with_form(form),
                None => rule,
            };
            let decision = decision.unwrap_or_else(|| entry.ruling_decision());
            Ruling::new(decision).because(because)
        };
        match evaluation {
            Evaluation::Deny(m) | Evaluation::Ask(AskCause::Rule(m)) => Some(explained(m, None)),
            Evaluation::Ask(AskCause::Unanalysed(u)) => Some(Ruling::ask(u.to_string())),
            Evaluation::Allow(matches) | Evaluation::ClientDefault(matches) => {
                Some(match matches.first() {
                    Some(m) => explained(m, Some(Decision::Allow)),
                    None => Ruling::allow(),
                })
            }
            Evaluation::NoMatch(_) => None,
        }
    }
}

impl RuleEntry {
    /// The decision a deny or an ask by this rule gives (its reason shared, not copied).
    fn ruling_decision(&self) -> Decision {
        let reason = Reason::from(Arc::clone(&self.reason));
        match self.effect {
            Effect::Deny => Decision::Deny(reason),
            Effect::Ask => Decision::Ask(Some(reason)),
            Effect::Allow => Decision::Allow,
        }
    }
}
