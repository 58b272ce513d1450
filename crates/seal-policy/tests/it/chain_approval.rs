//! A pending ask settled through the approval service: only `allowed-once` reaches the guards,
//! `never` rejects whatever answerer is registered, and every refusal of the service denies.

use seal_policy::approval::{
    answer_with, Answer, ApprovalPolicy, ApprovalRequest, ApprovalService, Caller,
};
use seal_policy::chain::{
    Chain, Check, Decision, DenyCause, Evaluated, Pending, Scope, StageKind, ToolCall, Verdict,
};
use seal_policy::rules::{RuleLimits, RuleSet, RulesListener};
use seal_record::Outcome;
use seal_test_support::tool_call::bash_call;

/// Rules ask about pushes; a guard refuses force pushes.
fn chain() -> Chain {
    let rules = RuleSet::from_json(
        br#"{"permissions": {"allow": ["Bash(git status)"], "ask": ["Bash(git push:*)"]}}"#,
        &RuleLimits::default(),
    )
    .unwrap();
    let mut chain = Chain::new(Decision::deny("no rule allows this"));
    chain
        .append("rules", Scope::everywhere(), RulesListener::new(rules))
        .unwrap();
    chain
        .add_global_guard("no-force-push", |call: &ToolCall| {
            Ok(match call.command() {
                Some(command) if command.contains("--force") => Check::deny("no force pushes"),
                _ => Check::Pass,
            })
        })
        .unwrap();
    chain
}

/// The embedder's glue: ask the service about the pending call (tool, call id and reason,
/// never the arguments) and finish the evaluation with its outcome; a refusal is `unavailable`.
fn settle(service: &mut ApprovalService, caller: &Caller<'_>, pending: Pending<'_>) -> Verdict {
    let outcome = {
        let reason = pending.reason().map(|reason| reason.as_str());
        let mut request = ApprovalRequest::for_call(pending.call().sealed());
        if let Some(reason) = reason {
            request = request.with_reason(reason);
        }
        match service.ask(caller, &request, false) {
            Ok(asking) => asking.outcome().unwrap_or(Outcome::Unavailable),
            Err(_refusal) => Outcome::Unavailable,
        }
    };
    pending.finish(outcome)
}

fn evaluate_with(service: &mut ApprovalService, caller: &Caller<'_>, command: &str) -> Verdict {
    let chain = chain();
    let call = bash_call(command);
    match chain.evaluate(&call) {
        Evaluated::Decided(verdict) => verdict,
        Evaluated::Pending(pending) => settle(service, caller, pending),
    }
}

fn approval_step(verdict: &Verdict) -> Option<Outcome> {
    verdict.trace().steps().iter().find_map(|step| {
        (step.stage().kind() == StageKind::Approval).then(|| match step.returned() {
            seal_policy::chain::Returned::Approval(outcome) => *outcome,
            other => panic!("approval step returned {other:?}"),
        })
    })
}

#[test]
fn allowed_once_goes_through_the_guards() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(answer_with(|_| Answer::AllowOnce))
        .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    let verdict = evaluate_with(&mut service, &caller, "git push origin main");
    assert!(verdict.is_allow(), "{}", verdict.trace());
    assert_eq!(approval_step(&verdict), Some(Outcome::AllowedOnce));
    let forced = evaluate_with(&mut service, &caller, "git push --force origin main");
    assert_eq!(forced.denied().unwrap().cause(), DenyCause::Guard);
    assert_eq!(approval_step(&forced), Some(Outcome::AllowedOnce));
}

#[test]
fn never_rejects_whatever_answerer_is_registered() {
    let mut service = ApprovalService::new(ApprovalPolicy::Never);
    service
        .register(answer_with(|_| Answer::AllowOnce))
        .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    let verdict = evaluate_with(&mut service, &caller, "git push origin main");
    assert_eq!(
        verdict.denied().unwrap().cause(),
        DenyCause::Approval(Outcome::Rejected)
    );
}

#[test]
fn a_service_that_cannot_ask_denies() {
    let caller = Caller::in_turn("s1", "a1");
    // No answerer at all.
    let mut silent = ApprovalService::new(ApprovalPolicy::OnRequest);
    let verdict = evaluate_with(&mut silent, &caller, "git push origin main");
    assert!(!verdict.is_allow());
    // No open turn, no agent, no session: refused before any answerer.
    let mut eager = ApprovalService::new(ApprovalPolicy::OnRequest);
    eager.register(answer_with(|_| Answer::AllowOnce)).unwrap();
    for caller in [
        Caller {
            turn_open: false,
            ..Caller::in_turn("s1", "a1")
        },
        Caller {
            agent: None,
            ..Caller::in_turn("s1", "a1")
        },
        Caller::default(),
    ] {
        let verdict = evaluate_with(&mut eager, &caller, "git push origin main");
        assert_eq!(
            verdict.denied().unwrap().cause(),
            DenyCause::Approval(Outcome::Unavailable),
            "{caller:?}"
        );
    }
}

#[test]
fn calls_that_need_no_approval_never_reach_the_service() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(answer_with(|_| {
            panic!("the answerer must not be consulted")
        }))
        .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    assert!(evaluate_with(&mut service, &caller, "git status").is_allow());
    let refused = evaluate_with(&mut service, &caller, "make");
    assert_eq!(refused.denied().unwrap().cause(), DenyCause::Decided);
    assert_eq!(approval_step(&refused), None);
}
