//! Decisions, reasons, explanations and rulings as values, and the explanation the rules
//! listener writes into a reused trace.
//!
//! - Equality of a [`Ruling`] compares the decision and the explanation, and nothing else: two
//!   rulings that differ in kind, reason, rule or form are unequal, and a ruling handed back by
//!   the rest of the chain equals a new one with the same decision.
//! - Reasons and explanation texts compare and hash as their characters, whatever the storage
//!   (static, owned, shared, or the rules listener's pooled form): equal values hash equal and
//!   collapse in a `HashSet`; values differing only in text hash differently.
//! - The form the rules listener reports is written into a string the trace keeps for the next
//!   evaluation. While an earlier explanation still holds that string, the next evaluation must
//!   not write into it: the kept explanation keeps its own form and the new one shows the new
//!   form (an overwritten form would be a wrong explanation). Once nothing else holds it, the
//!   string is rewritten in place.
//! - A trace handed back has room for every stage of the chain, even when the evaluation that
//!   made it stopped at the first listener: reusing it for a call that goes through every
//!   listener, the default, the approval outcome and every guard does not grow its list of
//!   steps (so that such an evaluation can run without allocating).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::{
    Because, Chain, Check, Decision, Evaluated, Next, Reason, Ruling, Scope, StageError, ToolCall,
    Trace, Verdict, Via,
};
use seal_policy::rules::{RuleLimits, RuleSet, RulesListener};
use seal_record::{Outcome, SealedCall};
use seal_test_support::tool_call::bash_call;

const RULES: &[u8] = br#"{"permissions": {
    "allow": ["Bash(git log:*)", "Bash(npm test:*)"],
    "deny": ["Bash(rm:*)", "Bash(curl:*)"]
}}"#;

/// A chain whose default asks, with the rules as its only listener.
fn rules_chain() -> Chain {
    let rules = RuleSet::from_json(RULES, &RuleLimits::default()).unwrap();
    let mut chain = Chain::new(Decision::ask("no rule"));
    chain
        .append("rules", Scope::everywhere(), RulesListener::new(rules))
        .unwrap();
    chain
}

fn finished(evaluation: Evaluated<'_>) -> Verdict {
    match evaluation {
        Evaluated::Decided(verdict) => verdict,
        Evaluated::Pending(pending) => pending.finish(Outcome::Rejected),
    }
}

/// The explanation of the step that decided.
fn explanation(trace: &Trace) -> Because {
    trace
        .decided_by()
        .expect("a step decided")
        .because()
        .expect("the rules listener explains its ruling")
        .clone()
}

/// The matched form of the deciding step, as an owned string (so that holding it does not hold
/// the trace's buffer).
fn form_of(trace: &Trace) -> String {
    explanation(trace).form().expect("a form").to_owned()
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

// ----- the pooled form in a reused trace -----

#[test]
fn a_kept_trace_keeps_its_form_when_the_next_evaluation_reuses_its_buffer() {
    let chain = rules_chain();
    let first_call = bash_call("rm -rf build");
    let first = finished(chain.evaluate(&first_call));
    assert!(!first.is_allow());
    let first_form = form_of(first.trace());
    assert!(first_form.contains("rm -rf build"), "{first_form}");

    // The caller keeps a clone of the trace and hands the original back for reuse.
    let trace = first.into_trace();
    let kept = trace.clone();
    let second_call = bash_call("curl https://example.invalid");
    let second = finished(chain.evaluate_reusing(&second_call, trace));
    assert!(!second.is_allow());

    let second_form = form_of(second.trace());
    assert!(
        second_form.contains("curl https://example.invalid"),
        "the new trace shows a stale form: {second_form}"
    );
    assert_eq!(form_of(&kept), first_form, "the kept trace was overwritten");
    assert_eq!(explanation(&kept).rule_text(), "Bash(rm:*)");
    assert_eq!(explanation(second.trace()).rule_text(), "Bash(curl:*)");
}

#[test]
fn a_kept_explanation_keeps_its_form_across_several_reuses() {
    let chain = rules_chain();
    let commands = [
        "rm a",
        "git log --oneline",
        "curl x",
        "npm test --watch",
        "rm b",
    ];
    let mut kept: Vec<(Because, &str)> = Vec::new();
    let mut trace = Trace::default();
    for command in commands {
        let call = bash_call(command);
        let verdict = finished(chain.evaluate_reusing(&call, trace));
        let because = explanation(verdict.trace());
        assert!(
            because.form().unwrap().contains(command),
            "evaluation of `{command}` explained by {because}"
        );
        kept.push((because, command));
        trace = verdict.into_trace();
    }
    for (because, command) in &kept {
        assert!(
            because.form().unwrap().contains(command),
            "the explanation kept for `{command}` now reads {because}"
        );
    }
}

#[test]
fn a_kept_verdict_keeps_its_form_and_an_allow_explains_its_own_match() {
    let chain = rules_chain();
    let first = finished(chain.evaluate(&bash_call("git log -n 3")));
    assert!(first.is_allow());
    let kept = first.clone();
    let second = finished(chain.evaluate_reusing(&bash_call("npm test --ci"), first.into_trace()));
    assert!(second.is_allow());
    assert!(form_of(kept.trace()).contains("git log -n 3"));
    assert!(form_of(second.trace()).contains("npm test --ci"));
    assert_eq!(explanation(kept.trace()).rule_text(), "Bash(git log:*)");
    assert_eq!(explanation(second.trace()).rule_text(), "Bash(npm test:*)");
}

#[test]
fn an_unshared_form_string_is_rewritten_in_place() {
    let chain = rules_chain();
    let first = finished(chain.evaluate(&bash_call("rm -rf build")));
    let first_form = explanation(first.trace());
    let address = first_form.form().unwrap().as_ptr() as usize;
    drop(first_form);
    // Nothing outside the trace holds the form now: the next evaluation writes into the same
    // string (a short form fits in the room it was made with).
    let second = finished(chain.evaluate_reusing(&bash_call("curl x"), first.into_trace()));
    let second_form = explanation(second.trace());
    assert!(second_form.form().unwrap().contains("curl x"));
    assert_eq!(second_form.form().unwrap().as_ptr() as usize, address);
}

#[test]
fn a_shared_form_string_is_not_reused() {
    let chain = rules_chain();
    let first = finished(chain.evaluate(&bash_call("rm -rf build")));
    let kept = explanation(first.trace());
    let second = finished(chain.evaluate_reusing(&bash_call("curl x"), first.into_trace()));
    let second_form = explanation(second.trace());
    assert_ne!(
        second_form.form().unwrap().as_ptr(),
        kept.form().unwrap().as_ptr()
    );
    assert!(kept.form().unwrap().contains("rm -rf build"));
    assert!(second_form.form().unwrap().contains("curl x"));
}

#[test]
fn a_pooled_form_compares_and_hashes_as_its_text() {
    let chain = rules_chain();
    let verdict = finished(chain.evaluate(&bash_call("curl x")));
    let pooled = explanation(verdict.trace());
    let written = Because::rule_and_form("Bash(curl:*)", pooled.form().unwrap().to_owned());
    assert_eq!(pooled, written);
    assert_eq!(hash_of(&pooled), hash_of(&written));
    let other = Because::rule_and_form("Bash(curl:*)", "curl y");
    assert_ne!(pooled, other);
    assert_ne!(hash_of(&pooled), hash_of(&other));
}

// ----- room for every stage in a reused trace -----

/// A chain of `listeners` listeners (the first denies `stop`, every other call is delegated by
/// all of them), a default that asks, and `global` and `scoped` guards that pass.
fn shaped_chain(listeners: usize, global: usize, scoped: usize) -> Chain {
    let mut chain = Chain::new(Decision::ask("no listener decides"));
    for index in 0..listeners {
        chain
            .append(
                &format!("l{index}"),
                Scope::everywhere(),
                move |call: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
                    if index == 0 && call.command() == Some("stop") {
                        Ok(Ruling::deny("stopped"))
                    } else {
                        Ok(next.run())
                    }
                },
            )
            .unwrap();
    }
    for index in 0..global {
        chain
            .add_global_guard(&format!("g{index}"), |_: &ToolCall| Ok(Check::Pass))
            .unwrap();
    }
    for index in 0..scoped {
        chain
            .add_scoped_guard(
                &format!("s{index}"),
                Scope::everywhere().tool("Bash"),
                |_: &ToolCall| Ok(Check::Pass),
            )
            .unwrap();
    }
    chain
}

#[test]
fn a_trace_from_a_short_circuit_has_room_for_every_stage() {
    let shapes = [
        (1, 1, 1),
        (1, 0, 0),
        (1, 1, 0),
        (1, 0, 1),
        (1, 0, 3),
        (2, 0, 3),
        (3, 1, 0),
        (1, 3, 1),
        (2, 2, 2),
        (4, 2, 1),
    ];
    let (stop, through) = (bash_call("stop"), bash_call("ls"));
    for (listeners, global, scoped) in shapes {
        let chain = shaped_chain(listeners, global, scoped);
        for _ in 0..8 {
            let first = finished(chain.evaluate(&stop));
            assert_eq!(first.trace().steps().len(), 1);
            let address = first.trace().steps().as_ptr() as usize;
            // Live allocations made after the first evaluation, so that a list of steps that
            // has to grow cannot do so where it stands.
            let fence: Vec<Box<[usize; 16]>> = (0..64).map(|i| Box::new([i; 16])).collect();
            let second = match chain.evaluate_reusing(&through, first.into_trace()) {
                Evaluated::Pending(pending) => pending.finish(Outcome::AllowedOnce),
                Evaluated::Decided(verdict) => panic!("the default asks: {verdict:?}"),
            };
            assert!(second.is_allow());
            let steps = second.trace().steps();
            assert_eq!(steps.len(), listeners + global + scoped + 2);
            assert_eq!(
                steps.as_ptr() as usize,
                address,
                "the list of steps grew for {listeners} listeners, {global} global and \
                 {scoped} scoped guards"
            );
            drop(fence);
        }
    }
}

// ----- a ruling kept from an earlier evaluation -----

/// A chain of a listener that only sees `Bash` calls (it delegates), a listener that returns
/// the ruling it stored from its first evaluation (after delegating), and a default that allows.
fn storing_chain() -> Chain {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "bash-only",
            Scope::everywhere().tool("Bash"),
            |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> { Ok(next.run()) },
        )
        .unwrap();
    let stored: Arc<Mutex<Option<Ruling>>> = Arc::default();
    chain
        .append(
            "storing",
            Scope::everywhere(),
            move |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
                let downstream = next.run();
                let mut slot = stored.lock().unwrap();
                Ok(slot.get_or_insert(downstream).clone())
            },
        )
        .unwrap();
    chain
}

fn other_tool() -> ToolCall {
    let value = parse(br#"{"x":1}"#, &JsonLimits::default()).unwrap();
    ToolCall::new("s1", None, SealedCall::new("c2", "Other", &value).unwrap()).unwrap()
}

/// Whatever step a stale ruling makes the trace name, it is a step of the trace and not one
/// that kept a downstream ruling.
fn assert_coherent(verdict: &Verdict) {
    assert!(verdict.is_allow());
    let trace = verdict.trace();
    let index = trace.decided_by_index().expect("a step decided");
    assert!(index < trace.steps().len(), "{trace}");
    let decider = trace.decided_by().expect("the decider is a step");
    assert_ne!(decider.via(), Via::Kept, "{trace}");
}

#[test]
fn a_stale_ruling_never_names_a_missing_or_keeping_step_as_the_decider() {
    // The stored ruling names step index 2 of a three-step trace: one past the end of the
    // next (two-step) trace.
    let chain = storing_chain();
    let first = finished(chain.evaluate(&bash_call("ls")));
    assert_coherent(&first);
    assert_coherent(&finished(chain.evaluate(&other_tool())));

    // The stored ruling names step index 1, where the storing listener itself stands next time.
    let chain = storing_chain();
    assert_coherent(&finished(chain.evaluate(&other_tool())));
    assert_coherent(&finished(chain.evaluate(&bash_call("ls"))));
}

#[test]
fn the_debug_form_of_a_chain_names_its_stages() {
    let chain = shaped_chain(2, 1, 1);
    let debug = format!("{chain:?}");
    for name in [
        "l0",
        "l1",
        "g0",
        "s0",
        "listeners",
        "global_guards",
        "scoped_guards",
    ] {
        assert!(debug.contains(name), "{debug}");
    }
}

// ----- Ruling equality -----

fn assorted_rulings() -> Vec<Ruling> {
    vec![
        Ruling::allow(),
        Ruling::deny("a"),
        Ruling::deny("b"),
        Ruling::ask("a"),
        Ruling::ask("b"),
        Ruling::ask_without_reason(),
        Ruling::allow().because(Because::rule("r1")),
        Ruling::allow().because(Because::rule("r2")),
        Ruling::allow().because(Because::rule_and_form("r1", "f1")),
        Ruling::allow().because(Because::rule_and_form("r1", "f2")),
        Ruling::deny("a").because(Because::rule("r1")),
        Ruling::deny("a").because(Because::rule("r2")),
        Ruling::deny("b").because(Because::rule("r1")),
        Ruling::ask("a").because(Because::rule("r1")),
        Ruling::ask_without_reason().because(Because::rule("r1")),
    ]
}

#[test]
fn rulings_are_equal_exactly_when_decision_and_explanation_are() {
    let left = assorted_rulings();
    let right = assorted_rulings();
    for (i, a) in left.iter().enumerate() {
        for (j, b) in right.iter().enumerate() {
            assert_eq!(a == b, i == j, "{a:?} vs {b:?}");
        }
    }
}

#[test]
fn same_decision_different_explanation_is_unequal() {
    assert_ne!(
        Ruling::deny("a").because(Because::rule("r1")),
        Ruling::deny("a").because(Because::rule("r2"))
    );
    assert_ne!(
        Ruling::deny("a"),
        Ruling::deny("a").because(Because::rule("r1"))
    );
}

#[test]
fn same_explanation_different_decision_is_unequal() {
    let because = Because::rule_and_form("r", "f");
    assert_ne!(
        Ruling::allow().because(because.clone()),
        Ruling::deny("a").because(because.clone())
    );
    assert_ne!(
        Ruling::deny("a").because(because.clone()),
        Ruling::deny("b").because(because.clone())
    );
    assert_ne!(
        Ruling::ask("a").because(because.clone()),
        Ruling::deny("a").because(because)
    );
}

#[test]
fn equal_rulings_are_equal_whatever_the_storage_of_their_text() {
    assert_eq!(
        Ruling::deny("a").because(Because::rule_and_form("r", "f")),
        Ruling::deny(String::from("a"))
            .because(Because::rule_and_form(String::from("r"), String::from("f")))
    );
    assert_eq!(
        Ruling::ask(Arc::<str>::from("a")).because(Because::shared_rule(Arc::from("r"))),
        Ruling::ask("a").because(Because::rule("r"))
    );
    assert_eq!(Ruling::from(Decision::Allow), Ruling::allow());
}

#[test]
fn a_ruling_from_the_rest_of_the_chain_equals_a_new_one_with_the_same_decision() {
    let mut chain = Chain::new(Decision::deny("end"));
    chain
        .append(
            "compare",
            Scope::everywhere(),
            |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
                let downstream = next.run();
                let equal = downstream == Ruling::deny("end");
                let unequal = downstream != Ruling::deny("other");
                Ok(Ruling::deny(if equal && unequal {
                    "as expected"
                } else {
                    "mismatch"
                }))
            },
        )
        .unwrap();
    let verdict = finished(chain.evaluate(&bash_call("ls")));
    let Verdict::Deny(denied) = verdict else {
        panic!("the listener denies")
    };
    assert_eq!(denied.reason().as_str(), "as expected");
}

// ----- Reason, Because and Decision equality and hashing -----

#[test]
fn reasons_differing_in_text_are_unequal_and_hash_differently() {
    let texts = ["", "a", "b", "ab", "ba", "a ", "A", "deny", "denied"];
    for (i, x) in texts.iter().enumerate() {
        for (j, y) in texts.iter().enumerate() {
            let (a, b) = (Reason::from(*x), Reason::from(*y));
            assert_eq!(a == b, i == j, "`{x}` vs `{y}`");
            if i != j {
                assert_ne!(hash_of(&a), hash_of(&b), "`{x}` vs `{y}`");
            }
        }
    }
}

#[test]
fn equal_reasons_hash_equal_whatever_the_storage() {
    let forms = [
        Reason::from("rm is denied"),
        Reason::from(String::from("rm is denied")),
        Reason::from(Arc::<str>::from("rm is denied")),
        Reason::new(String::from("rm is denied")),
    ];
    for a in &forms {
        for b in &forms {
            assert_eq!(a, b);
            assert_eq!(hash_of(a), hash_of(b));
        }
    }
    let set: HashSet<Reason> = forms.iter().cloned().collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn decisions_and_explanations_collapse_in_a_set_exactly_when_their_text_is_equal() {
    let decisions: HashSet<Decision> = [
        Decision::deny("a"),
        Decision::deny(String::from("a")),
        Decision::deny(Arc::<str>::from("a")),
        Decision::deny("b"),
        Decision::ask("a"),
        Decision::ask(String::from("a")),
        Decision::Ask(None),
        Decision::Allow,
    ]
    .into_iter()
    .collect();
    assert_eq!(decisions.len(), 5);

    let explanations: HashSet<Because> = [
        Because::rule("r"),
        Because::rule(String::from("r")),
        Because::shared_rule(Arc::from("r")),
        Because::rule("s"),
        Because::rule_and_form("r", "f"),
        Because::rule_and_form(String::from("r"), String::from("f")),
        Because::rule_and_form("r", "g"),
    ]
    .into_iter()
    .collect();
    assert_eq!(explanations.len(), 4);
}

#[test]
fn explanations_differing_only_in_text_hash_differently() {
    let pairs = [
        (Because::rule("r1"), Because::rule("r2")),
        (
            Because::rule_and_form("r", "f1"),
            Because::rule_and_form("r", "f2"),
        ),
        (
            Because::shared_rule(Arc::from("Bash(rm:*)")),
            Because::shared_rule(Arc::from("Bash(rm -rf:*)")),
        ),
    ];
    for (a, b) in &pairs {
        assert_ne!(a, b);
        assert_ne!(hash_of(a), hash_of(b), "{a} vs {b}");
    }
    assert_ne!(hash_of(&Decision::deny("x")), hash_of(&Decision::deny("y")));
}
