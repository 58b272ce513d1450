//! Runs the example table of `spec/policy.md` section 7 ("Examples") against the chain.

use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::{
    Chain, Check, Decision, Evaluated, Next, Ruling, Scope, StageError, ToolCall, Verdict,
};
use seal_record::{Outcome, SealedCall};

const SPEC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/policy.md"));

fn decision(word: &str) -> Decision {
    match word {
        "allow" => Decision::Allow,
        "deny" => Decision::deny("example deny"),
        "ask" => Decision::ask("example ask"),
        other => panic!("unknown decision `{other}`"),
    }
}

fn outcome(word: &str) -> Option<Outcome> {
    match word {
        "-" => None,
        word => Some(Outcome::from_name(word).unwrap()),
    }
}

fn register(chain: &mut Chain, spec: &str) {
    let (prepend, spec) = match spec.strip_prefix('^') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let (name, behavior) = spec.split_once(':').unwrap();
    let behavior = behavior.to_owned();
    let listener = move |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
        match behavior.as_str() {
            "keep" => Ok(next.run()),
            "fail" => Err(StageError::failed("example failure")),
            word => match word.strip_prefix("replace-") {
                Some(word) => {
                    let _ = next.run();
                    Ok(Ruling::new(decision(word)))
                }
                None => Ok(Ruling::new(decision(word))),
            },
        }
    };
    if prepend {
        chain.prepend(name, Scope::everywhere(), listener).unwrap();
    } else {
        chain.append(name, Scope::everywhere(), listener).unwrap();
    }
}

fn add_guard(chain: &mut Chain, spec: &str) {
    let (name, behavior) = spec.split_once(':').unwrap();
    let behavior = behavior.to_owned();
    chain
        .add_global_guard(name, move |_: &ToolCall| match behavior.as_str() {
            "pass" => Ok(Check::Pass),
            "deny" => Ok(Check::deny("example guard deny")),
            "fail" => Err(StageError::failed("example guard failure")),
            other => panic!("unknown guard behavior `{other}`"),
        })
        .unwrap();
}

fn rows() -> Vec<Vec<String>> {
    let begin = SPEC.find("<!-- chain-examples:begin -->").unwrap();
    let end = SPEC.find("<!-- chain-examples:end -->").unwrap();
    SPEC[begin..end]
        .lines()
        .filter(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim()
                .trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect()
}

#[test]
fn the_examples_of_the_spec_hold() {
    let rows = rows();
    assert!(rows.len() >= 16, "the example table was not found whole");
    let value = parse(br#"{"command":"ls"}"#, &JsonLimits::default()).unwrap();
    let call = ToolCall::new("s1", None, SealedCall::new("c1", "Bash", &value).unwrap()).unwrap();
    for row in rows {
        let [listeners, default, guards, approval, verdict, decided_by, consulted] = &row[..]
        else {
            panic!("a row of 7 cells expected: {row:?}");
        };
        let mut chain = Chain::new(decision(default));
        listeners
            .split_whitespace()
            .for_each(|spec| register(&mut chain, spec));
        guards
            .split_whitespace()
            .for_each(|spec| add_guard(&mut chain, spec));
        let result = match (chain.evaluate(&call), outcome(approval)) {
            (Evaluated::Decided(verdict), None) => verdict,
            (Evaluated::Pending(pending), Some(outcome)) => pending.finish(outcome),
            (Evaluated::Decided(_), Some(_)) => panic!("{row:?}: expected an ask"),
            (Evaluated::Pending(_), None) => panic!("{row:?}: unexpected ask"),
        };
        let got = match &result {
            Verdict::Allow(_) => "allow",
            Verdict::Deny(_) => "deny",
        };
        assert_eq!(got, verdict, "{row:?}\n{}", result.trace());
        let trace = result.trace();
        assert_eq!(
            trace.decided_by().unwrap().stage().name(),
            decided_by,
            "{row:?}\n{trace}"
        );
        let names: Vec<&str> = trace.steps().iter().map(|s| s.stage().name()).collect();
        assert_eq!(names.join(" "), *consulted, "{row:?}\n{trace}");
    }
}
