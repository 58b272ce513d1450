//! Properties of the chain over random listener stacks, guards, calls and approval outcomes:
//! agreement with a tiny reference evaluator, I7 (guards are monotonic) and I12 (every failure
//! is closed), each with a deliberately broken chain that the same property must catch.

use seal_test_support::{assert_finds_counterexample, exploring, seeded};
use std::collections::VecDeque;
use std::sync::Once;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::{
    CatchPanics, Chain, Check, Decision, Evaluated, Guard, Listener, Next, Returned, Ruling, Scope,
    StageError, ToolCall, Verdict,
};
use seal_record::{Outcome, SealedCall};

// ------------------------------------------------------------------ the model

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dec {
    Allow,
    Deny,
    Ask,
}

/// What a scripted listener does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Behavior {
    /// Short-circuit with a decision.
    Decide(Dec),
    /// Delegate and keep.
    Delegate,
    /// Delegate, then replace with a decision.
    Replace(Dec),
    /// Delegate; replace the downstream decision `.0` by `.1`, keep any other.
    ReplaceIf(Dec, Dec),
    /// Return an error without delegating.
    Fail,
    /// Delegate, then return an error.
    FailAfter,
    /// Panic without delegating (wrapped in `CatchPanics`).
    Panic,
    /// Delegate, then panic (wrapped in `CatchPanics`).
    PanicAfter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GuardBehavior {
    Pass,
    Deny,
    Fail,
    Panic,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ScopeSpec {
    session: Option<&'static str>,
    agent: Option<&'static str>,
    tool: Option<&'static str>,
}

#[derive(Debug, Clone)]
struct ListenerSpec {
    behavior: Behavior,
    scope: ScopeSpec,
    prepend: bool,
}

#[derive(Debug, Clone)]
struct GuardSpec {
    behavior: GuardBehavior,
    /// `None`: a global guard.
    scope: Option<ScopeSpec>,
}

#[derive(Debug, Clone)]
struct CallSpec {
    session: &'static str,
    agent: Option<&'static str>,
    tool: &'static str,
}

#[derive(Debug, Clone)]
struct Case {
    listeners: Vec<ListenerSpec>,
    default: Dec,
    guards: Vec<GuardSpec>,
    call: CallSpec,
    outcome: Outcome,
}

/// What a chain did with a call, compared between implementations.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Observed {
    /// What the waterfall produced: `allow`, `deny`, `ask` or `failed`.
    waterfall: &'static str,
    /// Whether the final verdict (after approval and guards) allows.
    allowed: bool,
    /// Names of the stages consulted, in order.
    consulted: Vec<String>,
    /// Name of the stage that decided.
    decided_by: Option<String>,
}

const SESSIONS: [&str; 2] = ["s1", "s2"];
const AGENTS: [&str; 2] = ["a1", "a2"];
const TOOLS: [&str; 3] = ["Bash", "Read", "mcp__x__y"];

fn dec() -> impl Strategy<Value = Dec> {
    prop_oneof![Just(Dec::Allow), Just(Dec::Deny), Just(Dec::Ask)]
}

fn behavior() -> impl Strategy<Value = Behavior> {
    prop_oneof![
        4 => dec().prop_map(Behavior::Decide),
        4 => Just(Behavior::Delegate),
        2 => dec().prop_map(Behavior::Replace),
        3 => (dec(), dec()).prop_map(|(from, to)| Behavior::ReplaceIf(from, to)),
        1 => Just(Behavior::Fail),
        1 => Just(Behavior::FailAfter),
        1 => Just(Behavior::Panic),
        1 => Just(Behavior::PanicAfter),
    ]
}

fn guard_behavior() -> impl Strategy<Value = GuardBehavior> {
    prop_oneof![
        6 => Just(GuardBehavior::Pass),
        2 => Just(GuardBehavior::Deny),
        1 => Just(GuardBehavior::Fail),
        1 => Just(GuardBehavior::Panic),
    ]
}

fn maybe(values: &'static [&'static str]) -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![2 => Just(None), 1 => proptest::sample::select(values).prop_map(Some)]
}

fn scope_spec() -> impl Strategy<Value = ScopeSpec> {
    (maybe(&SESSIONS), maybe(&AGENTS), maybe(&TOOLS)).prop_map(|(session, agent, tool)| ScopeSpec {
        session,
        agent,
        tool,
    })
}

fn listener_spec() -> impl Strategy<Value = ListenerSpec> {
    (behavior(), scope_spec(), proptest::bool::weighted(0.25)).prop_map(
        |(behavior, scope, prepend)| ListenerSpec {
            behavior,
            scope,
            prepend,
        },
    )
}

fn guard_spec() -> impl Strategy<Value = GuardSpec> {
    (
        guard_behavior(),
        proptest::option::weighted(0.5, scope_spec()),
    )
        .prop_map(|(behavior, scope)| GuardSpec { behavior, scope })
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        3 => Just(Outcome::AllowedOnce),
        1 => Just(Outcome::Rejected),
        1 => Just(Outcome::Cancelled),
        1 => Just(Outcome::Unavailable),
    ]
}

fn call_spec() -> impl Strategy<Value = CallSpec> {
    (
        proptest::sample::select(&SESSIONS[..]),
        proptest::option::of(proptest::sample::select(&AGENTS[..])),
        proptest::sample::select(&TOOLS[..]),
    )
        .prop_map(|(session, agent, tool)| CallSpec {
            session,
            agent,
            tool,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(listener_spec(), 0..9),
        dec(),
        proptest::collection::vec(guard_spec(), 0..5),
        call_spec(),
        outcome(),
    )
        .prop_map(|(listeners, default, guards, call, outcome)| Case {
            listeners,
            default,
            guards,
            call,
            outcome,
        })
}

// ------------------------------------------------------------------ scripted stages

fn ruling(dec: Dec) -> Ruling {
    match dec {
        Dec::Allow => Ruling::allow(),
        Dec::Deny => Ruling::deny("scripted deny"),
        Dec::Ask => Ruling::ask("scripted ask"),
    }
}

fn decision(dec: Dec) -> Decision {
    ruling(dec).into_decision()
}

fn dec_of(decision: &Decision) -> Dec {
    match decision {
        Decision::Allow => Dec::Allow,
        Decision::Deny(_) => Dec::Deny,
        Decision::Ask(_) => Dec::Ask,
    }
}

const PANIC_TEXT: &str = "deliberate stage panic";

struct Scripted(Behavior);

impl Listener for Scripted {
    fn decide(&self, _call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match self.0 {
            Behavior::Decide(dec) => Ok(ruling(dec)),
            Behavior::Delegate => Ok(next.run()),
            Behavior::Replace(dec) => {
                let _ = next.run();
                Ok(ruling(dec))
            }
            Behavior::ReplaceIf(from, to) => {
                let downstream = next.run();
                if dec_of(downstream.decision()) == from {
                    Ok(ruling(to))
                } else {
                    Ok(downstream)
                }
            }
            Behavior::Fail => Err(StageError::failed("scripted failure")),
            Behavior::FailAfter => {
                let _ = next.run();
                Err(StageError::failed("scripted failure"))
            }
            Behavior::Panic => panic!("{PANIC_TEXT}"),
            Behavior::PanicAfter => {
                let _ = next.run();
                panic!("{PANIC_TEXT}")
            }
        }
    }
}

struct ScriptedGuard(GuardBehavior);

impl Guard for ScriptedGuard {
    fn check(&self, _call: &ToolCall) -> Result<Check, StageError> {
        match self.0 {
            GuardBehavior::Pass => Ok(Check::Pass),
            GuardBehavior::Deny => Ok(Check::deny("scripted guard deny")),
            GuardBehavior::Fail => Err(StageError::failed("scripted guard failure")),
            GuardBehavior::Panic => panic!("{PANIC_TEXT}"),
        }
    }
}

/// Negative control for I7: a "guard" that is just one more listener, appended to the
/// waterfall, so an earlier listener can short-circuit or overrule it.
struct GuardAsListener(GuardBehavior);

impl Listener for GuardAsListener {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match ScriptedGuard(self.0).check(call)? {
            Check::Pass => Ok(next.run()),
            Check::Deny { reason, .. } => Ok(Ruling::new(Decision::Deny(reason))),
        }
    }
}

/// Negative control for I12: errors mapped to the default decision (here: allow).
struct ErrorToAllow<L>(L);

impl<L: Listener> Listener for ErrorToAllow<L> {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        Ok(self
            .0
            .decide(call, next)
            .unwrap_or_else(|_| Ruling::allow()))
    }
}

impl<G: Guard> Guard for ErrorToAllow<G> {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        Ok(self.0.check(call).unwrap_or(Check::Pass))
    }
}

fn quiet_deliberate_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let deliberate = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|text| text == PANIC_TEXT);
            if !deliberate {
                previous(info);
            }
        }));
    });
}

// ------------------------------------------------------------------ building and observing

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum System {
    /// The chain as shipped.
    Real,
    /// Broken: every listener registered for every call (no scope routing).
    NoScopeRouting,
    /// Broken (I7 control): guards are listeners at the end of the waterfall.
    GuardsAsListeners,
    /// Broken (I12 control): a stage error becomes the default allow.
    ErrorsToAllow,
}

fn scope(spec: &ScopeSpec) -> Scope {
    let mut scope = Scope::everywhere();
    if let Some(session) = spec.session {
        scope = scope.session(session);
    }
    if let Some(agent) = spec.agent {
        scope = scope.agent(agent);
    }
    if let Some(tool) = spec.tool {
        scope = scope.tool(tool);
    }
    scope
}

fn listener_name(index: usize) -> String {
    format!("l{index}")
}

fn guard_name(index: usize) -> String {
    format!("g{index}")
}

fn is_panic(behavior: Behavior) -> bool {
    matches!(behavior, Behavior::Panic | Behavior::PanicAfter)
}

fn build(system: System, case: &Case) -> Chain {
    let mut chain = Chain::new(decision(case.default));
    for (index, spec) in case.listeners.iter().enumerate() {
        let name = listener_name(index);
        let scope = if system == System::NoScopeRouting {
            Scope::everywhere()
        } else {
            scope(&spec.scope)
        };
        let result = match (system == System::ErrorsToAllow, spec.prepend) {
            (false, false) => chain.append(&name, scope, CatchPanics(Scripted(spec.behavior))),
            (false, true) => chain.prepend(&name, scope, CatchPanics(Scripted(spec.behavior))),
            (true, false) => chain.append(
                &name,
                scope,
                ErrorToAllow(CatchPanics(Scripted(spec.behavior))),
            ),
            (true, true) => chain.prepend(
                &name,
                scope,
                ErrorToAllow(CatchPanics(Scripted(spec.behavior))),
            ),
        };
        result.unwrap();
    }
    // Guards: global ones first in the specification order, as the chain runs them.
    for (index, spec) in case.guards.iter().enumerate() {
        let name = guard_name(index);
        let guard = CatchPanics(ScriptedGuard(spec.behavior));
        match system {
            System::GuardsAsListeners => {
                let scope = spec.scope.as_ref().map_or_else(Scope::everywhere, scope);
                chain
                    .append(&name, scope, CatchPanics(GuardAsListener(spec.behavior)))
                    .unwrap();
            }
            System::ErrorsToAllow => match &spec.scope {
                None => chain.add_global_guard(&name, ErrorToAllow(guard)).unwrap(),
                Some(spec) => chain
                    .add_scoped_guard(&name, scope(spec), ErrorToAllow(guard))
                    .unwrap(),
            },
            System::Real | System::NoScopeRouting => match &spec.scope {
                None => chain.add_global_guard(&name, guard).unwrap(),
                Some(spec) => chain.add_scoped_guard(&name, scope(spec), guard).unwrap(),
            },
        }
    }
    chain
}

fn tool_call(spec: &CallSpec) -> ToolCall {
    let arguments: &[u8] = match spec.tool {
        "Bash" => br#"{"command":"git status"}"#,
        "Read" => br#"{"file_path":"src/lib.rs"}"#,
        _ => br#"{"x":1}"#,
    };
    let value = parse(arguments, &JsonLimits::default()).unwrap();
    let sealed = SealedCall::new("c1", spec.tool, &value).unwrap();
    ToolCall::new(spec.session, spec.agent, sealed).unwrap()
}

fn observe(system: System, case: &Case) -> Observed {
    quiet_deliberate_panics();
    let chain = build(system, case);
    let call = tool_call(&case.call);
    let (waterfall, verdict) = match chain.evaluate(&call) {
        Evaluated::Pending(pending) => ("ask", pending.finish(case.outcome)),
        Evaluated::Decided(verdict) => {
            let waterfall = match &verdict {
                Verdict::Allow(_) => "allow",
                Verdict::Deny(denied) => match denied.cause() {
                    seal_policy::chain::DenyCause::Decided => "deny",
                    seal_policy::chain::DenyCause::Guard => "allow",
                    seal_policy::chain::DenyCause::Failed => {
                        let failed_in_guard = denied
                            .trace()
                            .decided_by()
                            .is_some_and(|step| step.stage().name().starts_with('g'));
                        if failed_in_guard {
                            "allow"
                        } else {
                            "failed"
                        }
                    }
                    _ => "other",
                },
            };
            (waterfall, verdict)
        }
    };
    let trace = verdict.trace();
    Observed {
        waterfall,
        allowed: verdict.is_allow(),
        consulted: trace
            .steps()
            .iter()
            .map(|step| step.stage().name().to_owned())
            .collect(),
        decided_by: trace
            .decided_by()
            .map(|step| step.stage().name().to_owned()),
    }
}

// ------------------------------------------------------------------ the reference evaluator

fn matches(spec: &ScopeSpec, call: &CallSpec) -> bool {
    spec.session.map_or(true, |session| session == call.session)
        && spec.agent.map_or(true, |agent| Some(agent) == call.agent)
        && spec.tool.map_or(true, |tool| tool == call.tool)
}

/// (decision, stage that produced it, first stage that failed)
type Step = (Dec, String, Option<String>);

fn reference_waterfall(
    visible: &[(String, Behavior)],
    default: Dec,
    consulted: &mut Vec<String>,
) -> Step {
    let Some(((name, behavior), rest)) = visible.split_first() else {
        consulted.push("default".to_owned());
        return (default, "default".to_owned(), None);
    };
    consulted.push(name.clone());
    match *behavior {
        Behavior::Decide(dec) => (dec, name.clone(), None),
        Behavior::Delegate => reference_waterfall(rest, default, consulted),
        Behavior::Replace(dec) => {
            let (_, _, failure) = reference_waterfall(rest, default, consulted);
            (dec, name.clone(), failure)
        }
        Behavior::ReplaceIf(from, to) => {
            let (dec, origin, failure) = reference_waterfall(rest, default, consulted);
            if dec == from {
                (to, name.clone(), failure)
            } else {
                (dec, origin, failure)
            }
        }
        Behavior::Fail | Behavior::Panic => (Dec::Deny, name.clone(), Some(name.clone())),
        Behavior::FailAfter | Behavior::PanicAfter => {
            let (_, _, failure) = reference_waterfall(rest, default, consulted);
            (
                Dec::Deny,
                name.clone(),
                failure.or_else(|| Some(name.clone())),
            )
        }
    }
}

/// The chain, said as plainly as possible: registration order with prepend, scope filter,
/// recursive waterfall, sticky failure, approval, then globals and matching scoped guards.
fn reference(case: &Case) -> Observed {
    let mut order: VecDeque<(String, &ListenerSpec)> = VecDeque::new();
    for (index, spec) in case.listeners.iter().enumerate() {
        if spec.prepend {
            order.push_front((listener_name(index), spec));
        } else {
            order.push_back((listener_name(index), spec));
        }
    }
    let visible: Vec<(String, Behavior)> = order
        .into_iter()
        .filter(|(_, spec)| matches(&spec.scope, &case.call))
        .map(|(name, spec)| (name, spec.behavior))
        .collect();
    let mut consulted = Vec::new();
    let (dec, origin, failure) = reference_waterfall(&visible, case.default, &mut consulted);
    if let Some(failed) = failure {
        return Observed {
            waterfall: "failed",
            allowed: false,
            consulted,
            decided_by: Some(failed),
        };
    }
    let (waterfall, mut decided_by) = match dec {
        Dec::Deny => {
            return Observed {
                waterfall: "deny",
                allowed: false,
                consulted,
                decided_by: Some(origin),
            }
        }
        Dec::Ask => {
            consulted.push("approval".to_owned());
            if case.outcome != Outcome::AllowedOnce {
                return Observed {
                    waterfall: "ask",
                    allowed: false,
                    consulted,
                    decided_by: Some("approval".to_owned()),
                };
            }
            ("ask", "approval".to_owned())
        }
        Dec::Allow => ("allow", origin),
    };
    let globals = case
        .guards
        .iter()
        .enumerate()
        .filter(|(_, spec)| spec.scope.is_none());
    let scoped = case.guards.iter().enumerate().filter(|(_, spec)| {
        spec.scope
            .as_ref()
            .is_some_and(|scope| matches(scope, &case.call))
    });
    let mut allowed = true;
    for (index, spec) in globals.chain(scoped) {
        consulted.push(guard_name(index));
        if spec.behavior != GuardBehavior::Pass {
            allowed = false;
            decided_by = guard_name(index);
            break;
        }
    }
    Observed {
        waterfall,
        allowed,
        consulted,
        decided_by: Some(decided_by),
    }
}

// ------------------------------------------------------------------ properties

fn agrees_with_reference(system: System, case: &Case) -> Result<(), TestCaseError> {
    let real = observe(system, case);
    let model = reference(case);
    prop_assert_eq!(real, model);
    Ok(())
}

/// I7: adding a guard (anywhere in the guard list, global or scoped) never turns a verdict that
/// is not allow into allow, and a guard that denies or fails on a call it applies to leaves no
/// way to allow that call, whatever the listeners do.
fn guards_are_monotonic(
    system: System,
    case: &Case,
    extra: &GuardSpec,
    position: usize,
) -> Result<(), TestCaseError> {
    let before = observe(system, case);
    let mut widened = case.clone();
    let position = position % (widened.guards.len() + 1);
    widened.guards.insert(position, extra.clone());
    let after = observe(system, &widened);
    prop_assert_eq!(
        before.waterfall,
        after.waterfall,
        "a guard changed what the waterfall decided"
    );
    prop_assert!(
        !after.allowed || before.allowed,
        "adding a guard turned a refusal into allow: before {:?}, after {:?}",
        before,
        after
    );
    let applies = extra
        .scope
        .as_ref()
        .map_or(true, |scope| matches(scope, &case.call));
    if applies && extra.behavior != GuardBehavior::Pass {
        prop_assert!(!after.allowed, "a denying guard was bypassed: {:?}", after);
    }
    Ok(())
}

/// I12: a call during which any stage failed is never allowed; an ask that is not answered
/// `allowed-once` (or not answered at all) is never allowed.
fn failures_are_closed(system: System, case: &Case) -> Result<(), TestCaseError> {
    let observed = observe(system, case);
    let failing: Vec<String> = case
        .listeners
        .iter()
        .enumerate()
        .filter(|(_, spec)| {
            matches!(spec.behavior, Behavior::Fail | Behavior::FailAfter) || is_panic(spec.behavior)
        })
        .map(|(index, _)| listener_name(index))
        .chain(
            case.guards
                .iter()
                .enumerate()
                .filter(|(_, spec)| {
                    matches!(spec.behavior, GuardBehavior::Fail | GuardBehavior::Panic)
                })
                .map(|(index, _)| guard_name(index)),
        )
        .collect();
    let consulted_a_failure = observed.consulted.iter().any(|name| failing.contains(name));
    if consulted_a_failure {
        prop_assert!(
            !observed.allowed,
            "a failing stage was consulted, yet allow: {:?}",
            observed
        );
    }
    if observed.waterfall == "ask" && case.outcome != Outcome::AllowedOnce {
        prop_assert!(!observed.allowed);
    }
    // No approval service at all: an ask can never become allow.
    let chain = build(system, case);
    let call = tool_call(&case.call);
    if let Evaluated::Pending(pending) = chain.evaluate(&call) {
        prop_assert!(!pending.finish(Outcome::Unavailable).is_allow());
        let Evaluated::Pending(pending) = chain.evaluate(&call) else {
            return Err(TestCaseError::fail("evaluation is not deterministic"));
        };
        drop(pending);
        prop_assert!(!chain.evaluate(&call).without_approval().is_allow());
    }
    // The trace records every failure as such.
    for step in observed_failures(system, case) {
        prop_assert!(failing.contains(&step), "step {} failed unexpectedly", step);
    }
    Ok(())
}

fn observed_failures(system: System, case: &Case) -> Vec<String> {
    let chain = build(system, case);
    let call = tool_call(&case.call);
    let verdict = match chain.evaluate(&call) {
        Evaluated::Pending(pending) => pending.finish(case.outcome),
        Evaluated::Decided(verdict) => verdict,
    };
    verdict
        .trace()
        .steps()
        .iter()
        .filter(|step| matches!(step.returned(), Returned::Failed(_)))
        .map(|step| step.stage().name().to_owned())
        .collect()
}

// ------------------------------------------------------------------ tests

#[test]
fn chain_agrees_with_the_reference_evaluator() {
    exploring(2048)
        .run(&case(), |case| agrees_with_reference(System::Real, &case))
        .unwrap();
    seeded(1024)
        .run(&case(), |case| agrees_with_reference(System::Real, &case))
        .unwrap();
}

#[test]
fn reference_property_catches_a_chain_without_scope_routing() {
    let result = seeded(1024).run(&case(), |case| {
        agrees_with_reference(System::NoScopeRouting, &case)
    });
    assert_finds_counterexample(result, "no scope routing");
}

fn monotonic_input() -> impl Strategy<Value = (Case, GuardSpec, usize)> {
    (case(), guard_spec(), 0..8usize)
}

#[test]
fn i7_guards_are_monotonic() {
    exploring(2048)
        .run(&monotonic_input(), |(case, extra, position)| {
            guards_are_monotonic(System::Real, &case, &extra, position)
        })
        .unwrap();
}

#[test]
fn i7_catches_a_guard_stage_a_listener_can_short_circuit() {
    let result = seeded(1024).run(&monotonic_input(), |(case, extra, position)| {
        guards_are_monotonic(System::GuardsAsListeners, &case, &extra, position)
    });
    assert_finds_counterexample(result, "guards as listeners");
}

#[test]
fn i12_failures_are_closed() {
    exploring(2048)
        .run(&case(), |case| failures_are_closed(System::Real, &case))
        .unwrap();
}

#[test]
fn i12_catches_errors_mapped_to_the_default_allow() {
    let result = seeded(1024).run(&case(), |case| {
        failures_are_closed(System::ErrorsToAllow, &case)
    });
    assert_finds_counterexample(result, "errors to default allow");
}

/// The three broken chains really are broken on a hand-picked stack, so each control fails for
/// the reason it is named after.
#[test]
fn negative_controls_fail_for_their_named_reason() {
    let call = CallSpec {
        session: "s1",
        agent: None,
        tool: "Bash",
    };
    // A listener for another tool must not be consulted.
    let scoped = Case {
        listeners: vec![ListenerSpec {
            behavior: Behavior::Decide(Dec::Deny),
            scope: ScopeSpec {
                session: None,
                agent: None,
                tool: Some("Read"),
            },
            prepend: false,
        }],
        default: Dec::Allow,
        guards: vec![],
        call: call.clone(),
        outcome: Outcome::AllowedOnce,
    };
    assert!(observe(System::Real, &scoped).allowed);
    assert!(!observe(System::NoScopeRouting, &scoped).allowed);
    // An allowing listener in front of a denying guard.
    let short_circuit = Case {
        listeners: vec![ListenerSpec {
            behavior: Behavior::Decide(Dec::Allow),
            scope: ScopeSpec {
                session: None,
                agent: None,
                tool: None,
            },
            prepend: false,
        }],
        default: Dec::Deny,
        guards: vec![GuardSpec {
            behavior: GuardBehavior::Deny,
            scope: None,
        }],
        call: call.clone(),
        outcome: Outcome::AllowedOnce,
    };
    assert!(!observe(System::Real, &short_circuit).allowed);
    assert!(observe(System::GuardsAsListeners, &short_circuit).allowed);
    // A failing listener with an allow default.
    let failing = Case {
        listeners: vec![ListenerSpec {
            behavior: Behavior::Fail,
            scope: ScopeSpec {
                session: None,
                agent: None,
                tool: None,
            },
            prepend: false,
        }],
        default: Dec::Allow,
        guards: vec![],
        call,
        outcome: Outcome::AllowedOnce,
    };
    assert!(!observe(System::Real, &failing).allowed);
    assert!(observe(System::ErrorsToAllow, &failing).allowed);
}

fn finished(evaluation: Evaluated<'_>, outcome: Outcome) -> Verdict {
    match evaluation {
        Evaluated::Pending(pending) => pending.finish(outcome),
        Evaluated::Decided(verdict) => verdict,
    }
}

/// Reusing the trace buffer of an earlier verdict gives exactly the verdict of a fresh
/// evaluation.
#[test]
fn reusing_a_trace_changes_nothing() {
    quiet_deliberate_panics();
    exploring(512)
        .run(&(case(), case()), |(first, second)| {
            let first_chain = build(System::Real, &first);
            let first_call = tool_call(&first.call);
            let stale = finished(first_chain.evaluate(&first_call), first.outcome).into_trace();
            let chain = build(System::Real, &second);
            let call = tool_call(&second.call);
            let fresh = finished(chain.evaluate(&call), second.outcome);
            let reused = finished(chain.evaluate_reusing(&call, stale), second.outcome);
            prop_assert_eq!(fresh, reused);
            Ok(())
        })
        .unwrap();
}
