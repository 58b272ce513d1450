//! Policy decisions: one full seal decision (a three-segment `Bash` command, 20 rules, 3
//! listeners, 3 guards, trace reused) against Cedar 4's `Authorizer::is_authorized` on the same
//! 20 rules and an equivalent request, and shell segmentation alone of a 200-byte command (into
//! a reused `SegmentBuffer`, the decision's path, and into owned values), in the same run. The
//! setup is shared with `tests/policy_alloc.rs`, which counts the heap allocations of the same
//! decision (none after warm-up).
#![allow(missing_docs, clippy::unwrap_used, clippy::panic)]

#[path = "policy_setup/mod.rs"]
mod policy_setup;

use std::hint::black_box;
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision as CedarDecision, Entities, EntityUid, PolicySet, Request,
    RestrictedExpression,
};
use criterion::{criterion_group, criterion_main, Criterion};
use policy_setup::{Setup, COMMAND, COMMAND_200};
use seal_parse::shell::{segment, segment_into, SegmentBuffer, ShellLimits};
use seal_policy::chain::{Evaluated, Trace};
use seal_policy::rules::Subject;

/// The 20 rules of `policy_setup::RULES_JSON` in Cedar.
///
/// Encoding. Cedar has no quantifier over a set, so the request carries the command's three
/// segments (canonical forms, words joined by single spaces, as seal reads them) in the context
/// slots `s0`, `s1`, `s2`. A word pattern `P:*` becomes `S == "P" || S like "P *"` on a slot
/// `S` (a prefix of whole words, as in seal); an exact pattern `P` becomes `S == "P"`.
/// - Allow (seal: every segment covered by some allow rule): one `permit` whose condition is,
///   for each slot, the disjunction of the 10 allow patterns, the three joined by `&&`.
/// - Deny (seal: any segment matching): one `forbid` per deny rule, the rule's pattern on any
///   slot.
/// - Ask: one `forbid` per ask rule, annotated `@effect("ask")` (Cedar has no third answer; the
///   caller would read the annotation of the determining policy to ask instead of deny).
///
/// That is 11 policies for 20 rules, each term the same comparison seal performs on the
/// canonical form. Forbid beats permit in Cedar as deny beats allow in seal.
fn cedar_policies() -> PolicySet {
    let allow = [
        ("git status", false),
        ("git log", true),
        ("git diff", true),
        ("npm test", true),
        ("npm run lint", true),
        ("tee", true),
        ("ls", true),
        ("cat", true),
        ("grep", true),
        ("cargo test", true),
    ];
    let ask = ["git push", "npm publish", "docker", "ssh"];
    let deny = ["rm", "git clean", "curl", "wget", "chmod", "dd"];
    let slots = ["s0", "s1", "s2"];
    let term = |slot: &str, words: &str, prefix: bool| {
        if prefix {
            format!("context.{slot} == \"{words}\" || context.{slot} like \"{words} *\"")
        } else {
            format!("context.{slot} == \"{words}\"")
        }
    };
    let head = r#"(principal, action == Action::"Bash", resource == Tool::"Bash")"#;
    let mut text = String::new();
    let covered: Vec<String> = slots
        .iter()
        .map(|slot| {
            let any: Vec<String> = allow
                .iter()
                .map(|(words, prefix)| term(slot, words, *prefix))
                .collect();
            format!("({})", any.join(" || "))
        })
        .collect();
    text.push_str(&format!(
        "@effect(\"allow\")\npermit{head} when {{ {} }};\n",
        covered.join(" && ")
    ));
    for (effect, rules) in [("ask", &ask[..]), ("deny", &deny[..])] {
        for words in rules {
            let any: Vec<String> = slots.iter().map(|slot| term(slot, words, true)).collect();
            text.push_str(&format!(
                "@effect(\"{effect}\")\nforbid{head} when {{ {} }};\n",
                any.join(" || ")
            ));
        }
    }
    PolicySet::from_str(&text).unwrap()
}

fn cedar_request(segments: [&str; 3]) -> Request {
    let context = Context::from_pairs(["s0", "s1", "s2"].into_iter().zip(segments).map(
        |(slot, form)| {
            (
                slot.to_owned(),
                RestrictedExpression::new_string(form.to_owned()),
            )
        },
    ))
    .unwrap();
    Request::new(
        EntityUid::from_str(r#"Agent::"a1""#).unwrap(),
        EntityUid::from_str(r#"Action::"Bash""#).unwrap(),
        EntityUid::from_str(r#"Tool::"Bash""#).unwrap(),
        context,
        None,
    )
    .unwrap()
}

fn seal_allows(setup: &Setup, trace: Trace) -> (bool, Trace) {
    match setup.chain.evaluate_reusing(&setup.call, trace) {
        Evaluated::Decided(verdict) => (verdict.is_allow(), verdict.into_trace()),
        Evaluated::Pending(_) => panic!("the bench command is decided without approval"),
    }
}

fn decision(c: &mut Criterion) {
    let setup = Setup::new();
    let (allowed, mut trace) = seal_allows(&setup, Trace::default());
    assert!(allowed, "seal allows `{COMMAND}`");

    let policies = cedar_policies();
    let entities = Entities::empty();
    let authorizer = Authorizer::new();
    let segments = ["git status", "npm test -- --watch=false", "tee out.txt"];
    let request = cedar_request(segments);
    let answer = authorizer.is_authorized(&request, &policies, &entities);
    assert_eq!(answer.decision(), CedarDecision::Allow, "{answer:?}");
    // The encoding is not vacuous: a denied or an uncovered segment is refused.
    for refused in [
        ["git status", "rm -rf t", "tee out.txt"],
        ["git status", "npm test", "make"],
        ["git status", "docker run x", "tee out.txt"],
    ] {
        let answer = authorizer.is_authorized(&cedar_request(refused), &policies, &entities);
        assert_eq!(answer.decision(), CedarDecision::Deny, "{refused:?}");
    }

    let mut group = c.benchmark_group("policy_decision");
    group.bench_function("seal_full_decision_3_segments_20_rules", |b| {
        b.iter(|| {
            let (allowed, reused) = seal_allows(black_box(&setup), std::mem::take(&mut trace));
            trace = reused;
            black_box(allowed)
        });
    });
    group.bench_function("cedar_is_authorized_20_rules", |b| {
        b.iter(|| {
            let answer = authorizer.is_authorized(
                black_box(&request),
                black_box(&policies),
                black_box(&entities),
            );
            black_box(answer.decision())
        });
    });
    // The parts of the seal decision, alone: rule evaluation (segmentation included) and
    // segmentation of the same command.
    let rules = policy_setup::rules();
    group.bench_function("seal_rules_evaluate_3_segments", |b| {
        b.iter(|| {
            black_box(rules.evaluate("Bash", Subject::Command(black_box(COMMAND))))
                .effect()
                .is_some()
        });
    });
    let limits = ShellLimits::default();
    let mut buffer = SegmentBuffer::new();
    group.bench_function("seal_segment_into_3_segments", |b| {
        b.iter(|| {
            black_box(segment_into(black_box(COMMAND), &limits, &mut buffer).map(|s| s.len()))
        });
    });
    group.bench_function("seal_segment_owned_3_segments", |b| {
        b.iter(|| black_box(segment(black_box(COMMAND), &limits).map(|s| s.len())));
    });
    group.finish();
}

fn segmentation(c: &mut Criterion) {
    assert_eq!(COMMAND_200.len(), 200);
    let limits = ShellLimits::default();
    let segments = segment(COMMAND_200, &limits).unwrap();
    assert_eq!(segments.len(), 7);
    let mut buffer = SegmentBuffer::new();
    c.bench_function("shell_segment_into_200_bytes", |b| {
        b.iter(|| {
            black_box(segment_into(black_box(COMMAND_200), &limits, &mut buffer).map(|s| s.len()))
        });
    });
    c.bench_function("shell_segment_200_bytes", |b| {
        b.iter(|| black_box(segment(black_box(COMMAND_200), &limits).map(|s| s.len())));
    });
}

criterion_group!(benches, decision, segmentation);
criterion_main!(benches);
