//! I10: a child's effective permissions are the meet of its parent's standing mode and its own
//! request; it captures only the parent's explicit session override; no one-shot grant of the
//! parent reaches it; its approval policy is `never` where approval exists; and the bound holds
//! after anything the child does to its own session.
//!
//! Parents are generated fresh or seeded, with or without an explicit override, themselves
//! children or not, with settings that changed after the parent was created, and with a live
//! one-shot grant obtained through the real escalation flow. The negative control (a child
//! that copies the parent's effective mode, grant included) must be caught with a fixed seed.

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_policy::approval::{answer_with, Answer, ApprovalPolicy, ApprovalService, Caller};
use seal_policy::delegation::{spawn_child, ChildRequest};
use seal_policy::escalation::{
    ask_escalation, check_escalation, plan_session_call, EscalationFields, EscalationLimits,
};
use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, SeededFacts, Session};

#[derive(Debug, Clone)]
struct Scenario {
    parent_settings: Knobs,
    parent_seed: Option<(Option<SandboxMode>, Option<SandboxMode>)>,
    parent_override: Option<SandboxMode>,
    grandparent: Option<(SandboxMode, Option<SandboxMode>)>,
    later_settings: Knobs,
    grant: Option<SandboxMode>,
    request: Option<SandboxMode>,
    approval_exists: bool,
    child_sets: Option<SandboxMode>,
}

/// A spawn under test: the parent, the mode of the parent's live one-shot grant (if any), the
/// child's request and the settings at creation.
type Spawn = fn(&Session, Option<SandboxMode>, ChildRequest, &PermissionState) -> Session;

fn real(
    parent: &Session,
    _grant: Option<SandboxMode>,
    request: ChildRequest,
    settings: &PermissionState,
) -> Session {
    spawn_child(parent, request, settings)
}

/// Negative control: the child copies the parent's effective mode for the current call (the
/// grant when one is live, else the standing mode) instead of taking the meet. Where the parent
/// has an override to capture (or the child asks), the copied mode is recorded as the child's
/// override.
fn copies_parent_effective_mode(
    parent: &Session,
    grant: Option<SandboxMode>,
    request: ChildRequest,
    _settings: &PermissionState,
) -> Session {
    let approval = if request.approval_exists {
        ApprovalPolicy::Never
    } else {
        parent.approval_policy()
    };
    let effective = grant.unwrap_or(parent.standing_mode());
    let copied = PermissionState::from_knobs(Knobs::new(effective, approval));
    match request.sandbox.or(parent.sandbox_override()) {
        // Recorded as captured, yet the child runs with the copied mode: the seeded override
        // is the copied mode and the captured one is only reported.
        Some(_) => Session::resume(
            &SeededFacts {
                sandbox_override: Some(effective),
                ..SeededFacts::default()
            },
            &copied,
        ),
        None => Session::fresh(&copied),
    }
}

fn mode() -> impl Strategy<Value = SandboxMode> {
    prop::sample::select(SandboxMode::ALL.to_vec())
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        mode(),
        prop::sample::select(vec![ApprovalPolicy::OnRequest, ApprovalPolicy::Never]),
    )
        .prop_map(|(sandbox, approval)| Knobs::new(sandbox, approval))
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        (
            knobs(),
            prop::option::of((prop::option::of(mode()), prop::option::of(mode()))),
            prop::option::of(mode()),
            prop::option::of((mode(), prop::option::of(mode()))),
        ),
        (
            knobs(),
            prop::option::of(mode()),
            prop::option::of(mode()),
            any::<bool>(),
            prop::option::of(mode()),
        ),
    )
        .prop_map(
            |(
                (parent_settings, parent_seed, parent_override, grandparent),
                (later_settings, grant, request, approval_exists, child_sets),
            )| Scenario {
                parent_settings,
                parent_seed,
                parent_override,
                grandparent,
                later_settings,
                grant,
                request,
                approval_exists,
                child_sets,
            },
        )
}

fn parent_of(scenario: &Scenario) -> Session {
    let settings = PermissionState::from_knobs(scenario.parent_settings);
    let mut parent = match (scenario.grandparent, scenario.parent_seed) {
        (Some((root_mode, asked)), _) => {
            let root = Session::fresh(&PermissionState::from_knobs(Knobs::new(
                root_mode,
                ApprovalPolicy::OnRequest,
            )));
            spawn_child(
                &root,
                ChildRequest {
                    sandbox: asked,
                    approval_exists: true,
                },
                &settings,
            )
        }
        (None, Some((sandbox, sandbox_override))) => Session::resume(
            &SeededFacts {
                sandbox,
                sandbox_override,
                ..SeededFacts::default()
            },
            &settings,
        ),
        (None, None) => Session::fresh(&settings),
    };
    if let Some(mode) = scenario.parent_override {
        parent.set_sandbox(mode);
    }
    parent
}

/// A live one-shot grant of the parent, through the real flow, when the scenario asks for a
/// mode wider than the parent's standing mode.
fn live_grant(parent: &Session, wanted: Option<SandboxMode>) -> Option<SandboxMode> {
    let wanted = wanted?;
    let escalation = check_escalation(
        &EscalationFields {
            sandbox_permissions: Some(wanted.as_str()),
            justification: Some("the parent's own call"),
        },
        parent.standing_mode(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .ok()??;
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service.register(answer_with(|_| Answer::AllowOnce)).ok()?;
    let asked = ask_escalation(
        Some(&mut service),
        &Caller::in_turn("parent", "agent"),
        "Bash",
        "call-1",
        &escalation,
        false,
    )
    .ok()?;
    asked.grant().ok().map(|grant| grant.mode())
}

fn i10(spawn: Spawn, scenario: &Scenario) -> Result<(), TestCaseError> {
    let parent = parent_of(scenario);
    let parent_before = parent.clone();
    let standing = parent.standing_mode();
    let grant = live_grant(&parent, scenario.grant);
    let settings = PermissionState::from_knobs(scenario.later_settings);
    let request = ChildRequest {
        sandbox: scenario.request,
        approval_exists: scenario.approval_exists,
    };
    let mut child = spawn(&parent, grant, request, &settings);

    let own = scenario
        .request
        .or(parent.sandbox_override())
        .unwrap_or(scenario.later_settings.sandbox);
    prop_assert_eq!(child.standing_mode(), standing.meet(own));
    if let Some(asked) = scenario.request {
        prop_assert_eq!(child.standing_mode(), standing.meet(asked));
    }
    prop_assert!(child.standing_mode() <= standing);
    if let Some(grant) = grant {
        prop_assert!(grant > standing);
        prop_assert!(child.standing_mode() < grant, "a grant reached the child");
    }
    prop_assert_eq!(
        child.sandbox_override(),
        scenario.request.or(parent.sandbox_override()),
        "only the explicit override (or the child's own request) is captured"
    );
    if scenario.approval_exists {
        prop_assert_eq!(child.approval_policy(), ApprovalPolicy::Never);
    }
    prop_assert_eq!(&parent, &parent_before);
    if let Some(asked) = scenario.grant {
        // The child's own per-call escalation never goes above the parent's standing mode.
        let fields = EscalationFields {
            sandbox_permissions: Some(asked.as_str()),
            justification: Some("the child's own call"),
        };
        if let Ok(plan) = plan_session_call(
            &child,
            &fields,
            Executor::CONFINING,
            EscalationLimits::DEFAULT,
        ) {
            if let Some(escalation) = plan.escalation {
                prop_assert!(
                    escalation.target() <= standing,
                    "child escalation above parent"
                );
            }
        }
    }
    if let Some(mode) = scenario.child_sets {
        child.set_sandbox(mode);
        prop_assert!(child.standing_mode() <= standing);
    }
    Ok(())
}

fn fixed_runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn counterexample(spawn: Spawn) -> Option<Scenario> {
    seal_test_support::counterexample(
        fixed_runner(1024).run(&scenario(), |scenario| i10(spawn, &scenario)),
    )
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn i10_a_child_holds_the_meet_of_parent_and_request(scenario in scenario()) {
        i10(real, &scenario)?;
    }
}

#[test]
fn i10_holds_for_the_real_spawn_with_a_fixed_seed() {
    assert!(counterexample(real).is_none());
}

#[test]
fn i10_catches_a_child_that_copies_the_parents_effective_mode() {
    let found =
        counterexample(copies_parent_effective_mode).expect("the suite finds a counterexample");
    let parent = parent_of(&found);
    let grant = live_grant(&parent, found.grant);
    let settings = PermissionState::from_knobs(found.later_settings);
    let request = ChildRequest {
        sandbox: found.request,
        approval_exists: found.approval_exists,
    };
    let broken = copies_parent_effective_mode(&parent, grant, request, &settings);
    let real = spawn_child(&parent, request, &settings);
    assert_ne!(broken.standing_mode(), real.standing_mode(), "{found:?}");
}
