//! The displayed trace cannot be forged by the text it shows: whatever reasons, rules, forms and
//! failure details the stages report (hostile corpus included), it has exactly one line per step
//! plus the `decided by` line, and no control, bidi or line-separator character. The negative
//! control is a trace printer that writes that text raw.

use std::fmt::Write as _;

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};
use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::{
    Because, Chain, Check, Decision, Evaluated, Next, Reason, Returned, Ruling, Scope, StageError,
    ToolCall, Trace,
};
use seal_record::{Outcome, SealedCall};

const HOSTILE: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\u{0}",
    "\u{1b}[2J",
    "\u{7f}",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{200b}",
    "\u{200e}",
    "\u{200f}",
    "\u{202a}",
    "\u{202e}",
    "\u{2066}",
    "\u{2069}",
    "\u{61c}",
    "\u{feff}",
    "\u{fe0f}",
    "\u{e0041}",
    "\u{ff1c}",
    "\u{0435}",
    "`",
    "\\",
    "decided by: 1",
    "2. listener `x`: allow",
    "\u{10ffff}",
];

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(HOSTILE).prop_map(str::to_owned),
                "[a-z ]{0,6}",
            ],
            0..8
        )
        .prop_map(|parts| parts.concat()),
        any::<String>(),
    ]
}

#[derive(Debug, Clone)]
enum Stage {
    Deny(String, Option<(String, String)>),
    Ask(Option<String>),
    Fail(String),
    Keep,
}

fn stage() -> impl Strategy<Value = Stage> {
    prop_oneof![
        (
            hostile_text(),
            proptest::option::of((hostile_text(), hostile_text()))
        )
            .prop_map(|(reason, because)| Stage::Deny(reason, because)),
        proptest::option::of(hostile_text()).prop_map(Stage::Ask),
        hostile_text().prop_map(Stage::Fail),
        Just(Stage::Keep),
    ]
}

fn ruling_of(stage: &Stage, next: Next<'_>) -> Result<Ruling, StageError> {
    match stage {
        Stage::Deny(reason, because) => {
            let ruling = Ruling::deny(reason.clone());
            Ok(match because {
                Some((rule, form)) => {
                    ruling.because(Because::rule_and_form(rule.clone(), form.clone()))
                }
                None => ruling,
            })
        }
        Stage::Ask(Some(reason)) => Ok(Ruling::ask(reason.clone())),
        Stage::Ask(None) => Ok(Ruling::ask_without_reason()),
        Stage::Fail(detail) => Err(StageError::failed(detail.clone())),
        Stage::Keep => Ok(next.run()),
    }
}

fn trace_of(listeners: &[Stage], default_reason: &str, guard_reason: &str) -> Trace {
    let mut chain = Chain::new(Decision::Ask(Some(Reason::new(default_reason.to_owned()))));
    for (index, stage) in listeners.iter().enumerate() {
        let stage = stage.clone();
        chain
            .append(
                &format!("l{index}"),
                Scope::everywhere(),
                move |_: &ToolCall, next: Next<'_>| ruling_of(&stage, next),
            )
            .unwrap();
    }
    let guard_reason = guard_reason.to_owned();
    chain
        .add_global_guard("g", move |_: &ToolCall| {
            Ok(Check::Deny {
                reason: Reason::new(guard_reason.clone()),
                because: Some(Because::rule(guard_reason.clone())),
            })
        })
        .unwrap();
    let value = parse(br#"{"command":"ls"}"#, &JsonLimits::default()).unwrap();
    let call = ToolCall::new("s", None, SealedCall::new("c", "Bash", &value).unwrap()).unwrap();
    match chain.evaluate(&call) {
        Evaluated::Decided(verdict) => verdict.into_trace(),
        Evaluated::Pending(pending) => pending.finish(Outcome::AllowedOnce).into_trace(),
    }
}

fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{61c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

fn one_line_per_step(
    render: fn(&Trace) -> String,
    listeners: &[Stage],
    default_reason: &str,
    guard_reason: &str,
) -> Result<(), TestCaseError> {
    let trace = trace_of(listeners, default_reason, guard_reason);
    let text = render(&trace);
    prop_assert_eq!(
        text.split('\n').count(),
        trace.steps().len() + 1,
        "{}",
        text
    );
    prop_assert!(
        !text.split('\n').flat_map(str::chars).any(forbidden),
        "{:?}",
        text
    );
    Ok(())
}

fn display(trace: &Trace) -> String {
    trace.to_string()
}

/// A printer that shows reasons raw.
fn raw(trace: &Trace) -> String {
    let mut text = String::new();
    for (index, step) in trace.steps().iter().enumerate() {
        let shown = match step.returned() {
            Returned::Decision(decision) => decision.reason().map_or("", |r| r.as_str()).to_owned(),
            Returned::Failed(error) => error.detail().to_owned(),
            other => format!("{other:?}"),
        };
        writeln!(text, "{}. {} {shown}", index + 1, step.stage().name()).unwrap();
    }
    write!(text, "decided by: {:?}", trace.decided_by_index()).unwrap();
    text
}

fn input() -> impl Strategy<Value = (Vec<Stage>, String, String)> {
    (
        proptest::collection::vec(stage(), 0..5),
        hostile_text(),
        hostile_text(),
    )
}

#[test]
fn the_displayed_trace_has_one_line_per_step_and_nothing_invisible() {
    seal_test_support::exploring(2048)
        .run(&input(), |(listeners, default_reason, guard_reason)| {
            one_line_per_step(display, &listeners, &default_reason, &guard_reason)
        })
        .unwrap();
}

#[test]
fn the_trace_property_catches_a_raw_printer() {
    let result = seal_test_support::seeded(1024).run(
        &input(),
        |(listeners, default_reason, guard_reason)| {
            one_line_per_step(raw, &listeners, &default_reason, &guard_reason)
        },
    );
    match result {
        Err(TestError::Fail(reason, _)) => eprintln!("counterexample found as expected: {reason}"),
        other => panic!("the raw printer passed: {other:?}"),
    }
}
