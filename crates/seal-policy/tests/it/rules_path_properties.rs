//! Path rules see through spellings: a deny that matches a canonical path also denies every
//! other spelling of it (`./`, `//`, `x/..`, the absolute path under the workspace root), and
//! no spelling that cannot be placed in the workspace is allowed. The suite also runs against a
//! matcher that skips canonicalization, which the fixed-seed runner must catch.

use proptest::prelude::{prop, prop_assert, prop_assert_eq, Strategy};
use proptest::test_runner::TestCaseError;
use seal_policy::rules::{Effect, PathPattern, RuleSet, Subject};

const ROOT: &str = "/ws";
const DENY: &[&str] = &["./.env", "*.key", "secrets/", "build/**/out"];
const ALLOW: &str = "**";

type Evaluator = fn(&str) -> Option<Effect>;

fn real(path: &str) -> Option<Effect> {
    let mut set = RuleSet::default();
    set.push(Effect::Allow, &format!("Read({ALLOW})")).unwrap();
    for deny in DENY {
        set.push(Effect::Deny, &format!("Read({deny})")).unwrap();
    }
    set.with_workspace_root(ROOT)
        .evaluate("Read", Subject::Path(path))
        .effect()
}

/// Matches the path as given, without making it canonical.
fn as_given(path: &str) -> Option<Effect> {
    let path = path.trim_start_matches("./");
    if DENY
        .iter()
        .any(|d| PathPattern::parse(d).unwrap().matches(path))
    {
        Some(Effect::Deny)
    } else {
        Some(Effect::Allow)
    }
}

fn components() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(
        prop::sample::select(
            &[
                "src", "secrets", ".env", "a.key", "build", "x", "out", "lib",
            ][..],
        ),
        1..5,
    )
}

/// A spelling of `canonical`: `./` prefixes, doubled slashes, `name/..` detours, or the
/// absolute path under the root.
fn spelling(canonical: &[&str], noise: &[u8]) -> String {
    let mut out = String::new();
    if noise.first().is_some_and(|b| b % 3 == 0) {
        out.push_str(ROOT);
        out.push('/');
    }
    for (at, part) in canonical.iter().enumerate() {
        match noise.get(at + 1).map(|b| b % 4) {
            Some(0) => out.push_str("./"),
            Some(1) => out.push_str("zz/../"),
            Some(2) if !out.is_empty() => out.push('/'),
            _ => {}
        }
        out.push_str(part);
        if at + 1 < canonical.len() {
            out.push('/');
        }
    }
    out
}

fn property(evaluate: Evaluator, canonical: &[&str], noise: &[u8]) -> Result<(), TestCaseError> {
    let plain = canonical.join("/");
    let spelled = spelling(canonical, noise);
    let want = evaluate(&plain);
    let got = evaluate(&spelled);
    if want == Some(Effect::Deny) {
        prop_assert_eq!(
            got,
            Some(Effect::Deny),
            "`{}` denied but `{}` is not",
            plain,
            spelled
        );
    }
    if got == Some(Effect::Allow) {
        prop_assert!(
            want == Some(Effect::Allow),
            "`{spelled}` allowed, `{plain}` not"
        );
    }
    Ok(())
}

fn run(evaluate: Evaluator) -> Result<(), String> {
    let mut runner = seal_test_support::seeded(1024);
    runner
        .run(
            &(components(), prop::collection::vec(0u8..=255, 6)),
            |(canonical, noise)| property(evaluate, &canonical, &noise),
        )
        .map_err(|e| e.to_string())
}

#[test]
fn a_denied_path_is_denied_in_every_spelling() {
    run(real).unwrap();
}

#[test]
fn negative_control_matching_the_path_as_given() {
    assert!(run(as_given).is_err());
}

#[test]
fn spellings_outside_the_workspace_are_never_allowed() {
    for path in [
        "../ws2/src/a",
        "../../ws/src/a",
        "/ws/../ws2/a",
        "/etc/passwd",
        "/ws",
        "",
        "src/../..",
        "a\0b",
    ] {
        assert_ne!(real(path), Some(Effect::Allow), "{path:?}");
    }
}
