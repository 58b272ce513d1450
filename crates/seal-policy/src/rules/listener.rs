//! The rules as a stage of the pre-execute chain.

use std::sync::Arc;

use seal_parse::shell::SegmentBuffer;

use crate::chain::{Listener, Next, Ruling, StageError, Subject, ToolCall, Trace};

use super::evaluation::Evaluation;
use super::explain::Explanation;
use super::set::RuleSet;

/// How much of its reading the rules listener records in the trace, asked for with
/// [`Trace::asking`].
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
    /// The reading the rules listener recorded in `trace` as it decided, when the trace asked
    /// for one ([`Trace::asking`] an [`Explain`]) and the waterfall reached the rules (`None`
    /// when a listener before them decided).
    #[must_use]
    pub fn of(trace: &Trace) -> Option<&Reading> {
        trace.note::<Reading>()
    }

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
        self.rules.evaluate(call.tool(), call.subject())
    }

    /// The reading this listener records when a trace asks for one ([`Trace::asking`] an
    /// [`Explain`]): for [`Explain::Forms`] and a
    /// shell command, the command form by form; otherwise the evaluation.
    #[must_use]
    pub fn read(&self, call: &ToolCall, explain: Explain) -> Reading {
        match (explain, call.subject()) {
            (Explain::Forms, Subject::Command(command)) => {
                Reading::Command(self.rules.explain(call.tool(), Subject::Command(command)))
            }
            _ => Reading::Other(self.evaluate(call)),
        }
    }
}

/// The rules listener's storage in the trace, reused from one evaluation to the next.
#[derive(Debug, Default)]
struct RulesScratch {
    /// Where a command is segmented.
    segments: SegmentBuffer,
    /// The string a matched form is written into (shared with the explanation).
    form: Option<Arc<String>>,
}

impl Listener for RulesListener {
    fn decide(&self, call: &ToolCall, mut next: Next<'_>) -> Result<Ruling, StageError> {
        if let Some(&explain) = next.request::<Explain>() {
            // One evaluation decides and is recorded as the reading: the explanation is the
            // decision's own, never a second evaluation.
            let reading = self.read(call, explain);
            let ruling = self.rules.ruling(reading.evaluation());
            next.record(reading);
            return match ruling {
                Some(ruling) => Ok(ruling),
                None => Ok(next.run()),
            };
        }
        // Segmented into the buffer the evaluation's trace carries, so that a reused trace
        // makes deciding a command free of allocations.
        let mut own = None;
        let scratch = match next.scratch::<RulesScratch>() {
            Some(scratch) => scratch,
            None => own.insert(RulesScratch::default()),
        };
        let decided = self.rules.decide(
            call.tool(),
            call.subject(),
            &mut scratch.segments,
            &mut scratch.form,
        );
        match decided {
            Some(ruling) => Ok(ruling),
            None => Ok(next.run()),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use super::*;
    use crate::chain::Because;
    use crate::rules::{ClientDefault, Effect};
    use seal_parse::shell::SegmentBuffer;

    const RULES: [(Effect, &str); 9] = [
        (Effect::Allow, "Bash(git log:*)"),
        (Effect::Allow, "Bash(ls:*)"),
        (Effect::Allow, "Read(src/**)"),
        (Effect::Allow, "WebFetch(domain:example.com)"),
        (Effect::Ask, "Bash(git push:*)"),
        (Effect::Ask, "Edit(/etc/**)"),
        (Effect::Deny, "Bash(rm:*)"),
        (Effect::Deny, "Read(./.env)"),
        (Effect::Deny, "Bash(curl caf\u{e9}:*)"),
    ];

    fn rule_set(default: ClientDefault) -> RuleSet {
        let mut rules = RuleSet::default().with_workspace_root("/ws");
        for (effect, text) in RULES {
            assert!(rules.push(effect, text).is_ok(), "{text}");
        }
        rules.with_client_default(default)
    }

    fn calls() -> impl Strategy<Value = (&'static str, String)> {
        let word = prop_oneof![
            Just("git"),
            Just("log"),
            Just("push"),
            Just("ls"),
            Just("rm"),
            Just("-rf"),
            Just("cat"),
            Just("curl"),
            Just("caf\u{e9}"),
            Just("$(date)"),
            Just("&&"),
            Just(";"),
            Just("|"),
            Just("bash -c 'rm t'"),
            Just("src/a"),
            Just("/etc/x"),
            Just(".env"),
            Just("\u{7}"),
            Just(">"),
            Just("out"),
            Just("sudo"),
            Just("xargs"),
        ];
        let command = prop::collection::vec(word, 1..7).prop_map(|words| words.join(" "));
        let path = prop_oneof![
            Just("src/a.rs"),
            Just("/ws/src/b"),
            Just("/etc/passwd"),
            Just(".env"),
            Just("/ws/.env"),
            Just("../x"),
            Just("")
        ]
        .prop_map(str::to_owned);
        let url = prop_oneof![
            Just("https://example.com/a"),
            Just("https://EXAMPLE.com."),
            Just("http://x.test"),
            Just("not a url"),
            Just("https://a@example.com:8/")
        ]
        .prop_map(str::to_owned);
        prop_oneof![
            command.prop_map(|c| ("Bash", c)),
            path.clone().prop_map(|p| ("Read", p)),
            path.prop_map(|p| ("Edit", p)),
            url.prop_map(|u| ("WebFetch", u)),
        ]
    }

    fn subject<'a>(tool: &str, text: &'a str) -> Subject<'a> {
        match tool {
            "Bash" => Subject::Command(text),
            "WebFetch" => Subject::Url(text),
            _ => Subject::Path(text),
        }
    }

    /// The ruling the listener gives from its recorded reading must be the ruling of its fast
    /// path, for every call, under every client default.
    fn same_ruling(
        read: impl Fn(&RuleSet, &Evaluation) -> Option<Ruling>,
    ) -> Result<(), proptest::test_runner::TestError<(&'static str, String)>> {
        let sets = [
            rule_set(ClientDefault::Nothing),
            rule_set(ClientDefault::ClaudeCode),
            rule_set(ClientDefault::ClaudeCodeAcceptEdits),
        ];
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: 512,
                failure_persistence: None,
                ..Config::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]),
        );
        runner.run(&calls(), |(tool, text)| {
            for rules in &sets {
                let (mut buffer, mut form) = (SegmentBuffer::new(), None);
                let fast = rules.decide(tool, subject(tool, &text), &mut buffer, &mut form);
                let evaluation = rules.evaluate(tool, subject(tool, &text));
                if tool == "Bash" {
                    let explained = rules.explain(tool, subject(tool, &text)).evaluation;
                    prop_assert_eq!(&explained, &evaluation, "the forms read otherwise");
                }
                let read = read(rules, &evaluation);
                prop_assert_eq!(&fast, &read, "{} {:?}: {:?}", tool, text, evaluation);
                prop_assert_eq!(
                    fast.as_ref().and_then(|r| r.explanation().cloned()),
                    read.as_ref().and_then(|r| r.explanation().cloned())
                );
            }
            Ok(())
        })
    }

    #[test]
    fn the_reading_decides_as_the_fast_path() {
        assert!(same_ruling(RuleSet::ruling).is_ok());
    }

    #[test]
    fn a_reading_that_drops_the_client_default_is_caught() {
        let broken = |rules: &RuleSet, evaluation: &Evaluation| match evaluation {
            Evaluation::ClientDefault(_) => None,
            other => rules.ruling(other),
        };
        assert!(same_ruling(broken).is_err());
    }

    #[test]
    fn a_reading_that_loses_the_form_is_caught() {
        let broken = |rules: &RuleSet, evaluation: &Evaluation| {
            rules
                .ruling(evaluation)
                .map(|ruling| match ruling.explanation() {
                    Some(because) => Ruling::new(ruling.decision().clone())
                        .because(Because::rule_and_form(because.rule_text().to_owned(), "")),
                    None => ruling,
                })
        };
        assert!(same_ruling(broken).is_err());
    }
}
