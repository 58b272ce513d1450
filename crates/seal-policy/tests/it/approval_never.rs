//! I8: approval policy `never` is unbypassable. For any answerers, registered in any order
//! (appended or prepended, including ones that always allow), a request under `never` settles
//! `rejected` and no answerer is consulted. The negative control consults answerers before the
//! policy check, and the suite must catch it.

use std::cell::Cell;
use std::rc::Rc;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_policy::approval::{
    answer_with, Action, Answer, ApprovalPolicy, ApprovalRequest, ApprovalService, Caller,
    DispatchVerdict, Event, Outcome,
};

/// One answerer and how it joins the waterfall.
#[derive(Debug, Clone, Copy)]
struct Registration {
    answer: Answer,
    prepend: bool,
}

#[derive(Debug, Clone)]
struct Scenario {
    registrations: Vec<Registration>,
    already_cancelled: bool,
    tool: String,
}

/// What an implementation did with the request.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Observed {
    outcome: Option<Outcome>,
    consulted: usize,
    verdict: DispatchVerdict,
}

type Implementation = fn(&Scenario, ApprovalPolicy) -> Observed;

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        3 => Just(Answer::AllowOnce),
        1 => Just(Answer::Reject),
        2 => Just(Answer::Delegate),
        1 => Just(Answer::Pending),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        proptest::collection::vec(
            (answer(), any::<bool>())
                .prop_map(|(answer, prepend)| Registration { answer, prepend }),
            0..8,
        ),
        any::<bool>(),
        prop_oneof![
            Just("Bash".to_owned()),
            Just("Edit".to_owned()),
            "[A-Za-z_]{1,12}"
        ],
    )
        .prop_map(|(registrations, already_cancelled, tool)| Scenario {
            registrations,
            already_cancelled,
            tool,
        })
}

/// The real service.
fn real(scenario: &Scenario, policy: ApprovalPolicy) -> Observed {
    let consulted = Rc::new(Cell::new(0));
    let mut service = ApprovalService::new(policy);
    for registration in &scenario.registrations {
        let seen = Rc::clone(&consulted);
        let answer = registration.answer;
        let answerer = answer_with(move |_| {
            seen.set(seen.get() + 1);
            answer
        });
        if registration.prepend {
            service.prepend(answerer).unwrap();
        } else {
            service.register(answerer).unwrap();
        }
    }
    let caller = Caller::in_turn("session-1", "agent-1");
    let request = ApprovalRequest::new(&scenario.tool).with_call_id("call-1");
    let mut asking = service
        .ask(&caller, &request, scenario.already_cancelled)
        .unwrap();
    let outcome = asking.outcome();
    let verdict = match asking.step(Event::DispatchCheck).as_slice() {
        [Action::Dispatch(verdict)] => *verdict,
        other => panic!("{other:?}"),
    };
    Observed {
        outcome,
        consulted: consulted.get(),
        verdict,
    }
}

/// A broken waterfall that consults answerers first and applies the policy only when they all
/// delegate: an answerer added first can bypass `never`.
fn answerers_before_policy(scenario: &Scenario, policy: ApprovalPolicy) -> Observed {
    let mut order: Vec<Answer> = Vec::new();
    for registration in &scenario.registrations {
        if registration.prepend {
            order.insert(0, registration.answer);
        } else {
            order.push(registration.answer);
        }
    }
    let mut consulted = 0;
    for answer in order {
        consulted += 1;
        match answer {
            Answer::AllowOnce => {
                return Observed {
                    outcome: Some(Outcome::AllowedOnce),
                    consulted,
                    verdict: DispatchVerdict::Proceed,
                }
            }
            Answer::Reject | Answer::Pending => {
                return Observed {
                    outcome: Some(Outcome::Rejected),
                    consulted,
                    verdict: DispatchVerdict::Denied(Outcome::Rejected),
                }
            }
            Answer::Delegate => {}
        }
    }
    let outcome = match policy {
        ApprovalPolicy::Never => Outcome::Rejected,
        ApprovalPolicy::OnRequest => Outcome::Unavailable,
    };
    Observed {
        outcome: Some(outcome),
        consulted,
        verdict: DispatchVerdict::Denied(outcome),
    }
}

/// I8 for one scenario.
fn never_is_unbypassable(
    implementation: Implementation,
    scenario: &Scenario,
) -> Result<(), TestCaseError> {
    let observed = implementation(scenario, ApprovalPolicy::Never);
    prop_assert_eq!(
        observed.consulted,
        0,
        "an answerer was consulted under never"
    );
    prop_assert_eq!(observed.outcome, Some(Outcome::Rejected));
    prop_assert_eq!(observed.verdict, DispatchVerdict::Denied(Outcome::Rejected));
    Ok(())
}

fn fixed_runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn counterexample(implementation: Implementation) -> Option<Scenario> {
    seal_test_support::counterexample(fixed_runner(1024).run(&scenario(), |scenario| {
        never_is_unbypassable(implementation, &scenario)
    }))
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn i8_never_rejects_without_consulting_any_answerer(scenario in scenario()) {
        never_is_unbypassable(real, &scenario)?;
    }
}

#[test]
fn i8_holds_for_the_real_service_under_the_fixed_seed() {
    assert!(counterexample(real).is_none());
}

#[test]
fn negative_control_answerer_consulted_before_the_policy_check_is_caught() {
    let found = counterexample(answerers_before_policy)
        .expect("I8 must catch an answerer consulted before the policy check");
    assert!(
        found
            .registrations
            .iter()
            .any(|registration| registration.answer != Answer::Delegate),
        "{found:?}"
    );
}

/// The same answerers do answer under `on-request`, so the property above is not vacuous.
#[test]
fn the_same_always_allowing_answerer_allows_under_on_request() {
    let scenario = Scenario {
        registrations: vec![Registration {
            answer: Answer::AllowOnce,
            prepend: true,
        }],
        already_cancelled: false,
        tool: "Bash".to_owned(),
    };
    let observed = real(&scenario, ApprovalPolicy::OnRequest);
    assert_eq!(observed.consulted, 1);
    assert_eq!(observed.verdict, DispatchVerdict::Proceed);
    let observed = real(&scenario, ApprovalPolicy::Never);
    assert_eq!(observed.consulted, 0);
    assert_eq!(observed.verdict, DispatchVerdict::Denied(Outcome::Rejected));
}
