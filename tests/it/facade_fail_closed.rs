//! Every failure is closed (I12), through the facade: random stacks of listeners, guards,
//! fallbacks and approval outcomes give exactly the verdict of a small reference model, and a
//! call runs only when no consulted stage failed. A deliberately broken embedding (a listener
//! wrapper that turns its own error into an allow) is caught by the same property under a
//! fixed seed. Runs with feature `testing` (which brings proptest).

#[cfg(feature = "testing")]
mod fail_closed {
    use proptest::prelude::*;
    use proptest::test_runner::{TestCaseError, TestRunner};

    use seal::{
        Check, Dispatch, Fallback, Next, Outcome, Prepared, Ruling, Scope, Seal, StageError,
        ToolCall,
    };

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Act {
        Delegate,
        Allow,
        Deny,
        Ask,
        Fail,
        Panic,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum GuardAct {
        Pass,
        Deny,
        Fail,
    }

    #[derive(Debug, Clone)]
    struct Case {
        listeners: Vec<Act>,
        guards: Vec<GuardAct>,
        fallback: Fallback,
        outcome: Outcome,
    }

    fn case() -> impl Strategy<Value = Case> {
        let act = prop_oneof![
            3 => Just(Act::Delegate),
            1 => Just(Act::Allow),
            1 => Just(Act::Deny),
            1 => Just(Act::Ask),
            1 => Just(Act::Fail),
            1 => Just(Act::Panic),
        ];
        let guard = prop_oneof![3 => Just(GuardAct::Pass), 1 => Just(GuardAct::Deny), 1 => Just(GuardAct::Fail)];
        let fallback = prop_oneof![
            Just(Fallback::Allow),
            Just(Fallback::Ask),
            Just(Fallback::Deny),
            Just(Fallback::ClaudeCode)
        ];
        (
            proptest::collection::vec(act, 0..5),
            proptest::collection::vec(guard, 0..3),
            fallback,
            proptest::sample::select(Outcome::ALL.to_vec()),
        )
            .prop_map(|(listeners, guards, fallback, outcome)| Case {
                listeners,
                guards,
                fallback,
                outcome,
            })
    }

    fn listener(
        act: Act,
    ) -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling, StageError> + Send + Sync {
        move |_: &ToolCall, next: Next<'_>| match act {
            Act::Delegate => Ok(next.run()),
            Act::Allow => Ok(Ruling::allow()),
            Act::Deny => Ok(Ruling::deny("listener denies")),
            Act::Ask => Ok(Ruling::ask("listener asks")),
            Act::Fail => Err(StageError::failed("listener failed")),
            Act::Panic => panic!("listener panicked"),
        }
    }

    /// The broken embedding: a wrapper that swallows the listener's failure and allows.
    fn error_to_allow(
        act: Act,
    ) -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling, StageError> + Send + Sync {
        move |_: &ToolCall, next: Next<'_>| match act {
            Act::Fail | Act::Panic => Ok(Ruling::allow()),
            Act::Delegate => Ok(next.run()),
            Act::Allow => Ok(Ruling::allow()),
            Act::Deny => Ok(Ruling::deny("listener denies")),
            Act::Ask => Ok(Ruling::ask("listener asks")),
        }
    }

    fn build(case: &Case, broken: bool) -> Seal {
        let mut builder = Seal::builder().fallback(case.fallback);
        for (index, act) in case.listeners.iter().enumerate() {
            let name = format!("l{index}");
            builder = if broken {
                builder.listener(&name, Scope::everywhere(), error_to_allow(*act))
            } else {
                builder.listener(&name, Scope::everywhere(), listener(*act))
            };
        }
        for (index, act) in case.guards.iter().enumerate() {
            let act = *act;
            builder = builder.guard(&format!("g{index}"), move |_: &ToolCall| match act {
                GuardAct::Pass => Ok(Check::Pass),
                GuardAct::Deny => Ok(Check::deny("guard denies")),
                GuardAct::Fail => Err(StageError::failed("guard failed")),
            });
        }
        builder.build().unwrap()
    }

    /// Whether the call runs, and whether a consulted stage failed.
    fn outcome_of(seal: &Seal, case: &Case) -> (bool, bool) {
        let session = seal.open_session("s1").unwrap();
        let call = seal.call(&session, "a1", "c1", "Deploy", "{}").unwrap();
        let runs = match seal.prepare(&call, None) {
            Prepared::Run(_) => true,
            Prepared::Deny(_) => false,
            Prepared::NeedsApproval(pending) => {
                matches!(pending.settle(case.outcome), Dispatch::Run(_))
            }
        };
        (runs, consulted_failure(case))
    }

    /// The reference model: does the call run?
    fn model_runs(case: &Case) -> bool {
        let mut decision = None;
        for act in &case.listeners {
            match act {
                Act::Delegate => continue,
                Act::Fail | Act::Panic => return false,
                other => {
                    decision = Some(*other);
                    break;
                }
            }
        }
        let decision = decision.unwrap_or(match case.fallback {
            Fallback::Allow => Act::Allow,
            Fallback::Ask => Act::Ask,
            Fallback::Deny => Act::Deny,
            // `Deploy` is no tool Claude Code's default mode allows: the rest asks.
            Fallback::ClaudeCode | Fallback::ClaudeCodeAcceptEdits => Act::Ask,
        });
        let allowed = match decision {
            Act::Allow => true,
            Act::Ask => case.outcome == Outcome::AllowedOnce,
            _ => false,
        };
        allowed && case.guards.iter().all(|guard| *guard == GuardAct::Pass)
    }

    /// Whether a stage that the waterfall consults fails.
    fn consulted_failure(case: &Case) -> bool {
        case.listeners
            .iter()
            .find(|act| **act != Act::Delegate)
            .is_some_and(|act| matches!(act, Act::Fail | Act::Panic))
    }

    fn property(case: &Case, broken: bool) -> Result<(), TestCaseError> {
        let seal = build(case, broken);
        let (runs, failed) = outcome_of(&seal, case);
        prop_assert!(
            !(runs && failed),
            "a failed stage let the call run: {case:?}"
        );
        prop_assert_eq!(
            runs,
            model_runs(case),
            "verdict differs from the model: {:?}",
            case
        );
        Ok(())
    }

    fn runner() -> TestRunner {
        seal_test_support::seeded(400)
    }

    #[test]
    fn every_failure_is_closed_and_the_verdict_matches_the_model() {
        std::panic::set_hook(Box::new(|_| {}));
        let result = runner().run(&case(), |case| property(&case, false));
        let _ = std::panic::take_hook();
        result.unwrap();
    }

    #[test]
    fn negative_control_an_embedding_that_turns_errors_into_allow_is_caught() {
        let result = runner().run(&case(), |case| property(&case, true));
        let error = result.expect_err("the broken embedding must be caught");
        assert!(error.to_string().contains("failed stage"), "{error}");
    }
}
