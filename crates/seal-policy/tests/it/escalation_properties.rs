//! I9: an escalation is accepted only when it is strictly wider than the standing mode, carries
//! both fields and a nonblank justification, and the grant lasts one call.
//!
//! Justifications are built from tagged pieces (visible characters in several scripts,
//! whitespace, hidden characters that are refused, hidden characters that only render as
//! nothing), so the oracle knows whether a reader would see anything without calling the code
//! under test. Negative controls, each of which the suite must catch with a fixed seed: an
//! equal-level request accepted; blankness judged by ASCII-style `trim` only; one field taken
//! as enough.

use std::cell::Cell;
use std::rc::Rc;

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_policy::approval::{answer_with, Answer, ApprovalPolicy, ApprovalService, Caller};
use seal_policy::escalation::{
    ask_escalation, check_escalation, plan_call, EscalationError, EscalationFields,
    EscalationLimits,
};
use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, Session};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Visible(char),
    Space(char),
    HiddenRefused(char),
    HiddenBlank(char),
}

#[derive(Debug, Clone)]
struct Scenario {
    standing: SandboxMode,
    target: Option<String>,
    justification: Option<Vec<Piece>>,
    can_sandbox: bool,
}

/// An escalation check under test: the accepted target, `Ok(None)` for no escalation, `Err`
/// for a refusal.
type Check = fn(&EscalationFields<'_>, SandboxMode, Executor) -> Result<Option<SandboxMode>, ()>;

fn real(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    executor: Executor,
) -> Result<Option<SandboxMode>, ()> {
    check_escalation(fields, standing, executor, EscalationLimits::DEFAULT)
        .map(|found| found.map(|escalation| escalation.target()))
        .map_err(|_| ())
}

/// Negative control: a request at the standing level is accepted.
fn equal_level_accepted(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    executor: Executor,
) -> Result<Option<SandboxMode>, ()> {
    match check_escalation(fields, standing, executor, EscalationLimits::DEFAULT) {
        Err(EscalationError::NotWider {
            requested,
            standing,
        }) if requested == standing => Ok(Some(requested)),
        other => other.map(|found| found.map(|e| e.target())).map_err(|_| ()),
    }
}

/// Negative control: blankness judged by `trim` alone (invisible characters count as text).
fn trim_only_blank(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    executor: Executor,
) -> Result<Option<SandboxMode>, ()> {
    match check_escalation(fields, standing, executor, EscalationLimits::DEFAULT) {
        Err(EscalationError::BlankJustification)
            if fields.justification.is_some_and(|j| !j.trim().is_empty()) =>
        {
            let target = fields
                .sandbox_permissions
                .and_then(SandboxMode::from_name)
                .ok_or(())?;
            if target > standing {
                Ok(Some(target))
            } else {
                Err(())
            }
        }
        other => other.map(|found| found.map(|e| e.target())).map_err(|_| ()),
    }
}

/// Negative control: a mode without a justification is enough.
fn one_field_enough(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    executor: Executor,
) -> Result<Option<SandboxMode>, ()> {
    match check_escalation(fields, standing, executor, EscalationLimits::DEFAULT) {
        Err(EscalationError::MissingJustification) => {
            let target = fields
                .sandbox_permissions
                .and_then(SandboxMode::from_name)
                .ok_or(())?;
            if target > standing {
                Ok(Some(target))
            } else {
                Err(())
            }
        }
        other => other.map(|found| found.map(|e| e.target())).map_err(|_| ()),
    }
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        prop::sample::select(vec![
            'x',
            'Q',
            '7',
            'а',
            'Ｎ',
            '\u{d7ff}',
            '\u{e000}',
            '✓',
            '语',
            '\u{10ffff}'
        ])
        .prop_map(Piece::Visible),
        prop::sample::select(vec![' ', '\u{a0}', '\u{2003}', '\u{3000}', '\u{1680}'])
            .prop_map(Piece::Space),
        prop::sample::select(vec![
            '\t',
            '\n',
            '\r',
            '\0',
            '\u{7f}',
            '\u{85}',
            '\u{200b}',
            '\u{200d}',
            '\u{202e}',
            '\u{2066}',
            '\u{2028}',
            '\u{feff}',
            '\u{2060}',
            '\u{e0041}',
            '\u{061c}',
        ])
        .prop_map(Piece::HiddenRefused),
        prop::sample::select(vec![
            '\u{ad}',
            '\u{34f}',
            '\u{115f}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{180e}',
            '\u{2800}',
        ])
        .prop_map(Piece::HiddenBlank),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    let mode = prop::sample::select(SandboxMode::ALL.to_vec());
    let target = prop_oneof![
        4 => mode.clone().prop_map(|m| m.as_str().to_owned()),
        1 => prop::sample::select(vec!["Read-Only", "full", "", "danger-full-access ", "workspace_write"])
            .prop_map(str::to_owned),
    ];
    (
        mode,
        prop::option::weighted(0.85, target),
        prop::option::weighted(0.85, prop::collection::vec(piece(), 0..6)),
        prop::bool::weighted(0.9),
    )
        .prop_map(|(standing, target, justification, can_sandbox)| Scenario {
            standing,
            target,
            justification,
            can_sandbox,
        })
}

fn text(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|piece| match *piece {
            Piece::Visible(c)
            | Piece::Space(c)
            | Piece::HiddenRefused(c)
            | Piece::HiddenBlank(c) => c,
        })
        .collect()
}

/// The oracle: the target the call may escalate to, if any.
fn expected(scenario: &Scenario) -> Option<SandboxMode> {
    if !scenario.can_sandbox {
        return None;
    }
    let target = SandboxMode::from_name(scenario.target.as_deref()?)?;
    let pieces = scenario.justification.as_ref()?;
    let visible = pieces.iter().any(|p| matches!(p, Piece::Visible(_)));
    let refused = pieces.iter().any(|p| matches!(p, Piece::HiddenRefused(_)));
    (visible && !refused && target > scenario.standing).then_some(target)
}

fn i9(check: Check, scenario: &Scenario) -> Result<(), TestCaseError> {
    let justification = scenario.justification.as_deref().map(text);
    let fields = EscalationFields {
        sandbox_permissions: scenario.target.as_deref(),
        justification: justification.as_deref(),
    };
    let executor = Executor {
        can_sandbox: scenario.can_sandbox,
    };
    let got = check(&fields, scenario.standing, executor);
    match expected(scenario) {
        Some(target) => prop_assert_eq!(got, Ok(Some(target))),
        None if fields.is_empty() => prop_assert_eq!(got, Ok(None)),
        None => prop_assert!(got.is_err(), "accepted {:?}", got),
    }
    if let Ok(Some(target)) = got {
        prop_assert!(target > scenario.standing);
    }
    lasts_one_call(scenario, &fields, executor)
}

/// With an answerer that allows everything, a granted call runs in the target mode; the session
/// is unchanged and the next call runs in the standing mode again.
fn lasts_one_call(
    scenario: &Scenario,
    fields: &EscalationFields<'_>,
    executor: Executor,
) -> Result<(), TestCaseError> {
    let session = Session::fresh(&PermissionState::from_knobs(Knobs::new(
        scenario.standing,
        ApprovalPolicy::OnRequest,
    )));
    let before = session.clone();
    let consulted = Rc::new(Cell::new(0u32));
    let seen = Rc::clone(&consulted);
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(answer_with(move |_| {
            seen.set(seen.get() + 1);
            Answer::AllowOnce
        }))
        .unwrap();
    let plan = plan_call(
        fields,
        session.standing_mode(),
        session.approval_policy(),
        executor,
        EscalationLimits::DEFAULT,
    );
    let Ok(plan) = plan else {
        prop_assert_eq!(consulted.get(), 0);
        return Ok(());
    };
    if let Some(escalation) = &plan.escalation {
        let asked = ask_escalation(
            Some(&mut service),
            &Caller::in_turn("s1", "a1"),
            "Bash",
            "call-1",
            escalation,
            false,
        )
        .unwrap();
        let stamp = asked.grant().unwrap().into_stamp(executor);
        prop_assert!(stamp.mode > scenario.standing);
    }
    prop_assert_eq!(&session, &before);
    let next = plan_call(
        &EscalationFields::default(),
        session.standing_mode(),
        session.approval_policy(),
        executor,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    prop_assert_eq!(next.standing.mode, scenario.standing);
    Ok(())
}

fn fixed_runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn counterexample(check: Check) -> Option<Scenario> {
    seal_test_support::counterexample(
        fixed_runner(1024).run(&scenario(), |scenario| i9(check, &scenario)),
    )
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn i9_escalation_is_strictly_wider_explicit_and_one_call(scenario in scenario()) {
        i9(real, &scenario)?;
    }
}

#[test]
fn i9_holds_for_the_real_check_with_a_fixed_seed() {
    assert!(counterexample(real).is_none());
}

#[test]
fn i9_catches_an_equal_level_request_accepted() {
    let found = counterexample(equal_level_accepted).expect("the suite finds a counterexample");
    let target = found.target.as_deref().and_then(SandboxMode::from_name);
    assert_eq!(target, Some(found.standing), "{found:?}");
}

#[test]
fn i9_catches_blankness_judged_by_trim_alone() {
    let found = counterexample(trim_only_blank).expect("the suite finds a counterexample");
    let pieces = found.justification.expect("a justification");
    assert!(!pieces.iter().any(|p| matches!(p, Piece::Visible(_))));
}

#[test]
fn i9_catches_one_field_taken_as_enough() {
    let found = counterexample(one_field_enough).expect("the suite finds a counterexample");
    assert!(found.justification.is_none(), "{found:?}");
}
