//! The reading the rules listener records in a decision's trace (`Seal::prepare_explaining`)
//! is what it decided with: the rule it reports in the trace is the evaluation's decisive rule,
//! the decision is the one `Seal::prepare` gives, and the forms of a command are the ones
//! `explain_rules` gives. The trace's accessors name the approval step and the deciding step by
//! type, not by string.

use seal::explain::{explain_rules, Effect, Explain, Reading};
use seal::{
    Call, Dispatch, Fallback, Prepared, Returned, Seal, StageKind, Trace, Via, RULES_LISTENER_NAME,
};

/// The trace of `call` prepared with `explain`, an approval cancelled.
fn trace_of(seal: &Seal, call: &Call, explain: Option<Explain>) -> Trace {
    let prepared = match explain {
        Some(explain) => seal.prepare_explaining(call, None, explain),
        None => seal.prepare(call, None),
    };
    match prepared {
        Prepared::Run(run) => run.trace().clone(),
        Prepared::Deny(deny) => deny.trace().clone(),
        Prepared::NeedsApproval(pending) => pending.cancel().trace().clone(),
    }
}

/// The rules listener's reading in `trace`.
fn reading_of(trace: &Trace) -> Reading {
    Reading::of(trace).cloned().expect("the rules listener ran")
}

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(git status)", "Bash(git log:*)", "Read(./src/**)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm:*)", "Read(./.env)"]
}}"#;

const ROOT: &str = "/work/project";

const CALLS: &[(&str, &str)] = &[
    ("Bash", r#"{"command":"git status"}"#),
    ("Bash", r#"{"command":"git log --oneline; git status"}"#),
    ("Bash", r#"{"command":"git push origin main"}"#),
    ("Bash", r#"{"command":"git status && rm -rf /"}"#),
    ("Bash", r#"{"command":"sudo rm -rf t"}"#),
    ("Bash", r#"{"command":"echo $(date)"}"#),
    ("Bash", r#"{"command":"make"}"#),
    ("Read", r#"{"file_path":"/work/project/.env"}"#),
    ("Read", r#"{"file_path":"/work/project/src/lib.rs"}"#),
    ("Read", r#"{"file_path":"/etc/passwd"}"#),
    ("WebFetch", r#"{"url":"https://example.com/"}"#),
    ("Agent", r#"{"subagent_type":"reviewer"}"#),
];

fn seal(fallback: Fallback) -> Seal {
    Seal::builder()
        .rules_json(RULES)
        .fallback(fallback)
        .workspace_root(ROOT)
        .build()
        .unwrap()
}

#[test]
fn the_explanation_names_the_rule_the_rules_listener_decided_with() {
    let mut effects = Vec::new();
    for fallback in [Fallback::Ask, Fallback::Deny, Fallback::ClaudeCode] {
        let seal = seal(fallback);
        let session = seal.open_session("session-1").unwrap();
        for (index, (tool, arguments)) in CALLS.iter().enumerate() {
            let call = seal
                .call(
                    &session,
                    "agent-1",
                    &format!("call-{index}"),
                    tool,
                    arguments,
                )
                .unwrap();
            let trace = trace_of(&seal, &call, Some(Explain::Evaluation));
            let explained = reading_of(&trace);
            assert!(matches!(explained, Reading::Other(_)));
            let evaluation = explained.evaluation();
            effects.push(evaluation.effect());
            // Recording the reading does not change the decision.
            let plain = trace_of(&seal, &call, None);
            assert_eq!(plain.steps(), trace.steps(), "{tool} {arguments}");
            assert_eq!(Reading::of(&plain), None);
            let step = trace
                .steps()
                .iter()
                .find(|step| step.stage().name() == RULES_LISTENER_NAME)
                .unwrap();
            let decisive = evaluation.decisive().map(|m| m.text.as_str());
            let reported = step.because().map(|because| because.rule_text());
            assert_eq!(reported, decisive, "{tool} {arguments} {fallback:?}");
            let returned = match step.returned() {
                Returned::Decision(decision) => decision.kind(),
                other => panic!("the rules listener returned {other:?}"),
            };
            match evaluation.effect() {
                Some(Effect::Deny) => assert_eq!(returned, "deny", "{tool} {arguments}"),
                Some(Effect::Ask) => assert_eq!(returned, "ask", "{tool} {arguments}"),
                Some(Effect::Allow) => assert_eq!(returned, "allow", "{tool} {arguments}"),
                // No rule decided: the listener delegated, and the fallback's answer is kept.
                None => assert_eq!(step.via(), Via::Kept, "{tool} {arguments}"),
            }
        }
    }
    // The calls exercise every answer: allow, ask (a rule, an unanalysable command, a path
    // outside the workspace), deny (a segment, a wrapper-stripped form, a path under the root)
    // and no rule; under the client's default mode an agent call is allowed.
    let (allow, ask, deny) = (Some(Effect::Allow), Some(Effect::Ask), Some(Effect::Deny));
    let expected = [
        allow, allow, ask, deny, deny, ask, None, deny, allow, ask, None, None,
    ];
    assert_eq!(effects[..12], expected);
    assert_eq!(effects[12..24], expected);
    assert_eq!(effects[24..35], expected[..11]);
    assert_eq!(effects[35], allow);
}

#[test]
fn a_command_is_explained_form_by_form_from_the_same_evaluation() {
    let seal = seal(Fallback::Ask);
    let session = seal.open_session("session-1").unwrap();
    for (index, (tool, arguments)) in CALLS.iter().enumerate() {
        let call = seal
            .call(
                &session,
                "agent-1",
                &format!("call-{index}"),
                tool,
                arguments,
            )
            .unwrap();
        let explained = reading_of(&trace_of(&seal, &call, Some(Explain::Forms)));
        let without_forms = reading_of(&trace_of(&seal, &call, Some(Explain::Evaluation)));
        assert_eq!(explained.evaluation(), without_forms.evaluation());
        match *tool {
            "Bash" => {
                let value: serde_json::Value = serde_json::from_str(arguments).unwrap();
                let command = value["command"].as_str().unwrap();
                let direct =
                    explain_rules(RULES, Fallback::Ask, Some(ROOT), "Bash", command).unwrap();
                assert_eq!(explained.command(), Some(&direct), "{command}");
                assert_eq!(explained.evaluation(), &direct.evaluation);
            }
            _ => assert_eq!(explained.command(), None, "{tool}"),
        }
    }
}

#[test]
fn rules_that_do_not_load_are_refused() {
    let explain = |rules, root| explain_rules(rules, Fallback::Ask, root, "Bash", "ls");
    assert!(explain(r#"{"permissions": {"allow": [7]}}"#, None).is_err());
    assert!(explain(RULES, Some("relative")).is_err());
    assert!(explain(RULES, Some(ROOT)).is_ok());
}

#[test]
fn a_stage_before_the_rules_leaves_no_reading() {
    let seal = Seal::builder()
        .rules_json(RULES)
        .destructive_guard(seal::destructive::DestructiveGuard::new())
        .workspace_root(ROOT)
        .build()
        .unwrap();
    let session = seal.open_session("session-1").unwrap();
    let call = seal
        .call(
            &session,
            "agent-1",
            "call-1",
            "Bash",
            r#"{"command":"rm -rf /"}"#,
        )
        .unwrap();
    let trace = trace_of(&seal, &call, Some(Explain::Forms));
    assert_eq!(
        Reading::of(&trace),
        None,
        "the destructive listener decided first"
    );
    let call = seal
        .call(
            &session,
            "agent-1",
            "call-2",
            "Bash",
            r#"{"command":"git status"}"#,
        )
        .unwrap();
    assert!(Reading::of(&trace_of(&seal, &call, Some(Explain::Forms))).is_some());
}

#[test]
fn the_trace_names_the_approval_step_and_the_deciding_step() {
    let seal = seal(Fallback::Ask);
    let session = seal.open_session("session-1").unwrap();
    let call = seal
        .call(
            &session,
            "agent-1",
            "call-1",
            "Bash",
            r#"{"command":"git push origin main"}"#,
        )
        .unwrap();
    let Prepared::NeedsApproval(pending) = seal.prepare(&call, None) else {
        panic!("an ask rule asks")
    };
    let Dispatch::Deny(deny) = pending.cancel() else {
        panic!("a cancelled approval denies")
    };
    let trace = deny.trace();
    let approval = trace
        .steps()
        .iter()
        .position(|step| step.stage().kind() == StageKind::Approval)
        .unwrap();
    assert_eq!(trace.before_approval(), &trace.steps()[..approval]);
    assert!(trace
        .before_approval()
        .iter()
        .all(|step| step.stage().kind() != StageKind::Approval));
    assert!(!trace.before_approval().is_empty());
    let index = trace.decided_by_index().unwrap();
    assert_eq!(trace.decided_by(), Some(&trace.steps()[index]));
    assert_eq!(index, approval);

    // Without an approval, every step is before it.
    let call = seal
        .call(
            &session,
            "agent-1",
            "call-2",
            "Bash",
            r#"{"command":"rm -rf t"}"#,
        )
        .unwrap();
    let Prepared::Deny(deny) = seal.prepare(&call, None) else {
        panic!("a deny rule denies")
    };
    let trace = deny.trace();
    assert_eq!(trace.before_approval(), trace.steps());
    assert!(trace
        .steps()
        .iter()
        .all(|step| step.stage().kind() != StageKind::Approval));
    let index = trace.decided_by_index().unwrap();
    assert_eq!(trace.steps()[index].stage().name(), RULES_LISTENER_NAME);
}
