//! Tool dispatch through the facade: run, deny and needs-approval, every failure closed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use seal::{
    Answer, BuildError, Check, DenyCause, Dispatch, EscalationFields, Fallback, Next, Outcome,
    Prepared, Question, Ruling, SandboxMode, Scope, Seal, StageError, ToolCall,
};

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(git status)", "Bash(cargo test:*)", "Read"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm:*)", "Read(./.env)"]
}}"#;

fn rules_seal() -> Seal {
    Seal::builder().rules_json(RULES).build().unwrap()
}

fn bash(command: &str) -> String {
    format!("{{\"command\":{}}}", json_string(command))
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn expect_run(prepared: Prepared<'_>) -> seal::Run {
    match prepared {
        Prepared::Run(run) => run,
        other => panic!("expected run, got {other:?}"),
    }
}

fn expect_deny(prepared: Prepared<'_>) -> seal::Deny {
    match prepared {
        Prepared::Deny(deny) => deny,
        other => panic!("expected deny, got {other:?}"),
    }
}

/// The pending approval of a call that needs one; panics on any other outcome.
fn expect_approval(prepared: Prepared<'_>) -> seal::PendingApproval<'_> {
    match prepared {
        Prepared::NeedsApproval(pending) => pending,
        other => panic!("expected needs-approval, got {other:?}"),
    }
}

/// The run a settled approval dispatches; panics on a deny.
fn expect_dispatched_run(dispatch: Dispatch) -> seal::Run {
    match dispatch {
        Dispatch::Run(run) => run,
        other => panic!("expected run, got {other:?}"),
    }
}

/// The deny a settled approval gives; panics on a run.
fn expect_dispatched_deny(dispatch: Dispatch) -> seal::Deny {
    match dispatch {
        Dispatch::Deny(deny) => deny,
        other => panic!("expected deny, got {other:?}"),
    }
}

#[test]
fn allowed_call_runs_with_the_standing_stamp_and_a_trace() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git status"))
        .unwrap();
    let run = expect_run(seal.prepare(&call, None));
    assert_eq!(run.call_id(), "c1");
    assert_eq!(run.stamp().mode, SandboxMode::WorkspaceWrite);
    assert!(run.stamp().sandboxed && !run.stamp().escalated);
    let decided = run.trace().decided_by().unwrap();
    assert_eq!(decided.stage().name(), "rules");
    let rule = decided.because().map(|because| because.rule_text());
    assert_eq!(rule, Some("Bash(git status)"));
    assert!(run.audit_events().is_empty());
}

#[test]
fn a_deny_rule_on_any_segment_denies_with_the_rule_in_the_trace() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    for command in [
        "git status && rm -rf ~",
        "bash -c 'rm -rf /'",
        "/bin/rm -rf x",
    ] {
        let call = seal
            .call(&session, "a1", "c1", "Bash", &bash(command))
            .unwrap();
        let deny = expect_deny(seal.prepare(&call, None));
        assert_eq!(deny.cause(), DenyCause::Decided, "{command}");
        assert!(
            deny.reason().as_str().contains("Bash(rm:*)"),
            "{}",
            deny.reason()
        );
        let text = deny.trace().to_string();
        assert!(text.contains("[rule `Bash(rm:*)`"), "{text}");
        assert!(text.is_ascii());
    }
}

#[test]
fn a_file_deny_rule_and_the_fallback() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Read", r#"{"file_path":".env"}"#)
        .unwrap();
    assert_eq!(
        expect_deny(seal.prepare(&call, None)).cause(),
        DenyCause::Decided
    );
    let call = seal
        .call(
            &session,
            "a1",
            "c2",
            "WebFetch",
            r#"{"url":"https://example.com"}"#,
        )
        .unwrap();
    assert!(matches!(
        seal.prepare(&call, None),
        Prepared::NeedsApproval(_)
    ));
    let strict = Seal::builder()
        .rules_json(RULES)
        .fallback(Fallback::Deny)
        .build()
        .unwrap();
    let session = strict.open_session("s1").unwrap();
    let call = strict
        .call(
            &session,
            "a1",
            "c2",
            "WebFetch",
            r#"{"url":"https://example.com"}"#,
        )
        .unwrap();
    assert_eq!(
        expect_deny(strict.prepare(&call, None)).cause(),
        DenyCause::Decided
    );
}

#[test]
fn a_listener_error_denies_even_when_the_rules_would_allow() {
    let failing = |_: &ToolCall, _: Next<'_>| -> Result<Ruling, StageError> {
        Err(StageError::failed("reviewer unreachable"))
    };
    let seal = Seal::builder()
        .rules_json(RULES)
        .prepend_listener("reviewer", Scope::everywhere(), failing)
        .fallback(Fallback::Allow)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git status"))
        .unwrap();
    let deny = expect_deny(seal.prepare(&call, None));
    assert_eq!(deny.cause(), DenyCause::Failed);
    assert!(deny.trace().to_string().contains("reviewer unreachable"));
}

#[test]
fn a_listener_that_replaces_a_downstream_failure_still_denies() {
    let failing = |_: &ToolCall, _: Next<'_>| -> Result<Ruling, StageError> {
        Err(StageError::failed("broken"))
    };
    let overrules = |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
        let _ = next.run();
        Ok(Ruling::allow())
    };
    let seal = Seal::builder()
        .prepend_listener("broken", Scope::everywhere(), failing)
        .prepend_listener("overrules", Scope::everywhere(), overrules)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("ls"))
        .unwrap();
    assert_eq!(
        expect_deny(seal.prepare(&call, None)).cause(),
        DenyCause::Failed
    );
}

#[test]
fn a_panicking_listener_or_guard_denies() {
    let panics =
        |_: &ToolCall, _: Next<'_>| -> Result<Ruling, StageError> { panic!("listener bug") };
    let seal = Seal::builder()
        .listener("buggy", Scope::everywhere().tool("Bash"), panics)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("ls"))
        .unwrap();
    assert_eq!(
        expect_deny(seal.prepare(&call, None)).cause(),
        DenyCause::Failed
    );

    let guard_panics = |_: &ToolCall| -> Result<Check, StageError> { panic!("guard bug") };
    let seal = Seal::builder()
        .rules_json(RULES)
        .guard("buggy", guard_panics)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git status"))
        .unwrap();
    assert_eq!(
        expect_deny(seal.prepare(&call, None)).cause(),
        DenyCause::Failed
    );
}

#[test]
fn guards_deny_after_an_allow_and_an_approval_and_fail_closed() {
    let no_push_to_main = |call: &ToolCall| -> Result<Check, StageError> {
        match call.command() {
            Some(command) if command.contains("main") => Ok(Check::deny("main is protected")),
            Some(_) => Ok(Check::Pass),
            None => Err(StageError::failed("no command")),
        }
    };
    let seal = Seal::builder()
        .rules_json(RULES)
        .scoped_guard(
            "protect-main",
            Scope::everywhere().tool("Bash"),
            no_push_to_main,
        )
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push origin main"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let deny = expect_dispatched_deny(pending.settle(Outcome::AllowedOnce));
    assert_eq!(deny.cause(), DenyCause::Guard);
    assert_eq!(deny.reason().as_str(), "main is protected");
    assert_eq!(deny.audit_events().len(), 2);

    let call = seal
        .call(&session, "a1", "c2", "Bash", &bash("git push origin dev"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    assert!(pending.settle(Outcome::AllowedOnce).is_run());
}

#[test]
fn approval_allowed_once_runs_and_logs_the_audit_pair() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c9", "Bash", &bash("git push origin dev"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let asked = pending.asked_event();
    assert_eq!(asked.kind(), "approval/asked");
    assert_eq!(asked.approval_id(), pending.approval_id());
    assert!(
        asked.json().contains("\"call_id\":\"c9\""),
        "{}",
        asked.json()
    );
    assert!(
        !asked.json().contains("origin dev"),
        "no arguments in the audit event"
    );
    assert!(pending.card().contains("git push origin dev"));
    let run = expect_dispatched_run(pending.settle(Outcome::AllowedOnce));
    let events = run.audit_events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0], asked);
    assert_eq!(events[1].kind(), "approval/decided");
    assert!(events[1].json().contains("allowed-once"));
    let decided = run.trace().decided_by().unwrap();
    assert_eq!(decided.stage().kind(), seal::StageKind::Approval);
}

#[test]
fn rejection_cancellation_and_unavailability_deny() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    for (outcome, word) in [
        (Outcome::Rejected, "rejected"),
        (Outcome::Cancelled, "cancelled"),
        (Outcome::Unavailable, "unavailable"),
    ] {
        let call = seal
            .call(&session, "a1", "c1", "Bash", &bash("git push"))
            .unwrap();
        let pending = expect_approval(seal.prepare(&call, None));
        let deny = expect_dispatched_deny(pending.settle(outcome));
        assert_eq!(deny.cause(), DenyCause::Approval(outcome));
        assert!(deny.reason().as_str().contains(word), "{}", deny.reason());
        assert!(deny.audit_events()[1].json().contains(word));
    }
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let deny = expect_dispatched_deny(pending.cancel());
    assert_eq!(deny.cause(), DenyCause::Approval(Outcome::Cancelled));
}

#[test]
fn approval_ids_are_fresh_per_request() {
    let seal = Seal::builder()
        .rules_json(RULES)
        .approval_id_prefix("run7-")
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let first = expect_approval(seal.prepare(&call, None));
    let second = expect_approval(seal.prepare(&call, None));
    assert_eq!(first.approval_id(), "run7-1");
    assert_eq!(second.approval_id(), "run7-2");
    let _ = (first.cancel(), second.cancel());
}

#[test]
fn answerers_are_consulted_in_order_and_fail_closed() {
    let consulted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&consulted);
    let delegates = move |_: &Question<'_>| {
        count.fetch_add(1, Ordering::SeqCst);
        Answer::Delegate
    };
    let allows_push = |question: &Question<'_>| {
        assert!(question.card.contains("git push"));
        if question.reason().is_some_and(|r| r.contains("git push")) {
            Answer::AllowOnce
        } else {
            Answer::Reject
        }
    };
    let seal = Seal::builder()
        .rules_json(RULES)
        .answerer(delegates)
        .answerer(allows_push)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    assert!(pending.ask_answerers().is_run());
    assert_eq!(consulted.load(Ordering::SeqCst), 1);

    // No answerer: unavailable.
    let lonely = rules_seal();
    let session = lonely.open_session("s1").unwrap();
    let call = lonely
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let pending = expect_approval(lonely.prepare(&call, None));
    let deny = expect_dispatched_deny(pending.ask_answerers());
    assert_eq!(deny.cause(), DenyCause::Approval(Outcome::Unavailable));

    // A panicking answerer rejects.
    let panics = |_: &Question<'_>| -> Answer { panic!("answerer bug") };
    let seal = Seal::builder()
        .rules_json(RULES)
        .answerer(panics)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let deny = expect_dispatched_deny(pending.ask_answerers());
    assert_eq!(deny.cause(), DenyCause::Approval(Outcome::Rejected));
}

#[test]
fn approval_policy_never_rejects_without_consulting_any_answerer() {
    let consulted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&consulted);
    let allows_all = move |_: &Question<'_>| {
        count.fetch_add(1, Ordering::SeqCst);
        Answer::AllowOnce
    };
    let seal = Seal::builder()
        .rules_json(RULES)
        .approval_policy(seal::ApprovalPolicy::Never)
        .answerer(allows_all)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push"))
        .unwrap();
    let deny = expect_deny(seal.prepare(&call, None));
    assert_eq!(deny.cause(), DenyCause::Approval(Outcome::Rejected));
    assert_eq!(deny.audit_events().len(), 2);
    assert_eq!(consulted.load(Ordering::SeqCst), 0);
}

#[test]
fn a_granted_escalation_stamps_this_call_only() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("cargo test --all"))
        .unwrap();
    let escalation =
        EscalationFields::new("danger-full-access", "integration tests need the network");
    let pending = expect_approval(seal.prepare(&call, Some(escalation)));
    assert_eq!(
        pending.escalation_target(),
        Some(SandboxMode::DangerFullAccess)
    );
    assert!(pending
        .card()
        .contains("workspace-write -> danger-full-access"));
    let run = expect_dispatched_run(pending.settle(Outcome::AllowedOnce));
    assert_eq!(run.stamp().mode, SandboxMode::DangerFullAccess);
    assert!(run.stamp().escalated && !run.stamp().sandboxed);
    // The next call of the session runs at the standing mode again.
    let call = seal
        .call(&session, "a1", "c2", "Bash", &bash("cargo test"))
        .unwrap();
    assert_eq!(
        expect_run(seal.prepare(&call, None)).stamp().mode,
        SandboxMode::WorkspaceWrite
    );
    // A refused escalation denies an otherwise allowed call.
    let call = seal
        .call(&session, "a1", "c3", "Bash", &bash("cargo test"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, Some(escalation)));
    let deny = expect_dispatched_deny(pending.settle(Outcome::Rejected));
    assert_eq!(deny.cause(), DenyCause::Approval(Outcome::Rejected));
}

#[test]
fn invalid_escalations_deny_before_any_prompt() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git status"))
        .unwrap();
    for escalation in [
        EscalationFields::new("workspace-write", "same level"),
        EscalationFields::new("read-only", "narrower"),
        EscalationFields::new("root", "unknown mode"),
        EscalationFields::new("danger-full-access", "  \u{200b} "),
        EscalationFields {
            sandbox_permissions: Some("danger-full-access"),
            justification: None,
        },
        EscalationFields {
            sandbox_permissions: None,
            justification: Some("why"),
        },
    ] {
        let deny = expect_deny(seal.prepare(&call, Some(escalation)));
        assert_eq!(deny.cause(), DenyCause::Escalation, "{escalation:?}");
        assert!(deny.reason().as_str().is_ascii());
    }
}

#[test]
fn a_child_session_never_exceeds_its_parent() {
    let seal = rules_seal();
    let parent = seal.open_session("parent").unwrap();
    let child = seal
        .spawn_child(&parent, "child", Some(SandboxMode::DangerFullAccess))
        .unwrap();
    assert_eq!(child.standing_mode(), SandboxMode::WorkspaceWrite);
    let call = seal
        .call(&child, "a1", "c1", "Bash", &bash("git status"))
        .unwrap();
    let escalation = EscalationFields::new("danger-full-access", "wants out");
    let deny = expect_deny(seal.prepare(&call, Some(escalation)));
    assert_eq!(deny.cause(), DenyCause::Escalation);
    // Asks are rejected in a child (approval policy never).
    let call = seal
        .call(&child, "a1", "c2", "Bash", &bash("git push"))
        .unwrap();
    assert_eq!(
        expect_deny(seal.prepare(&call, None)).cause(),
        DenyCause::Approval(Outcome::Rejected)
    );
}

#[test]
fn sessions_pin_their_settings() {
    let read_only = Seal::builder().preset("read-only").build().unwrap();
    assert_eq!(
        read_only.open_session("s").unwrap().standing_mode(),
        SandboxMode::ReadOnly
    );
    let full = Seal::builder().preset("full-access").build().unwrap();
    let session = full.open_session("s").unwrap();
    assert_eq!(session.standing_mode(), SandboxMode::DangerFullAccess);
    assert_eq!(session.approval_policy(), seal::ApprovalPolicy::Never);
    let custom = Seal::builder()
        .sandbox_mode(SandboxMode::ReadOnly)
        .build()
        .unwrap();
    assert_eq!(
        custom.open_session("s").unwrap().standing_mode(),
        SandboxMode::ReadOnly
    );
}

#[test]
fn the_card_is_ascii_escapes_hostile_text_and_marks_elision() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let hostile = "git push \u{202e}niam\u{202c} \u{1b}[31m\n--force";
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash(hostile))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let card = pending.card().to_owned();
    assert!(card.is_ascii(), "{card}");
    assert!(card.contains("\\u{202e}") && card.contains("\\u{1b}") && card.contains("\\n"));
    assert!(card
        .lines()
        .all(|line| line.starts_with('|') || line.starts_with('+')));
    let _ = pending.cancel();

    let long = format!("git push {}", "x".repeat(1000));
    let call = seal
        .call(&session, "a1", "c2", "Bash", &bash(&long))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    assert!(pending.card().contains(" [...]"));
    assert!(pending
        .card()
        .contains(&format!("{} bytes, sha256 ", long.len())));
    assert!(pending.card().contains("bytes elided"));
    let _ = pending.cancel();
}

#[test]
fn calls_refuse_what_cannot_be_frozen() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    for (agent, call_id, tool, arguments) in [
        (
            "a1",
            "c1",
            "Bash",
            r#"{"command":"ls","command":"rm -rf /"}"#,
        ),
        ("a1", "c1", "Bash", r#"{"n":12345678901234567890}"#),
        ("a1", "c1", "Bash", "not json"),
        ("a 1", "c1", "Bash", "{}"),
        ("a1", "", "Bash", "{}"),
        ("a1", "c1", "Ba sh", "{}"),
    ] {
        let error = seal
            .call(&session, agent, call_id, tool, arguments)
            .unwrap_err();
        assert!(!error.to_string().is_empty());
    }
    assert!(seal.open_session("has space").is_err());
    assert!(seal.open_session("").is_err());
}

#[test]
fn the_builder_names_what_is_wrong() {
    let error = Seal::builder()
        // A structural error: rule text itself always loads (an unbalanced `Bash(git push`
        // loads uninterpreted, as Claude Code loads it).
        .rules_json("{\"permissions\": {\n  \"allow\": [\"Bash(git push\", 7]}}")
        .build()
        .unwrap_err();
    assert!(
        matches!(
            error,
            BuildError::Policy(seal::PolicyError::Rules { line: 2, .. })
        ),
        "{error}"
    );

    let pass = |_: &ToolCall| -> Result<Check, StageError> { Ok(Check::Pass) };
    let error = Seal::builder()
        .guard("g", pass)
        .guard("g", pass)
        .build()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "stage `g` refused: stage name `g` is already registered"
    );

    let error = Seal::builder().guard("rules", pass).build().unwrap_err();
    assert!(
        matches!(error, BuildError::Policy(seal::PolicyError::Stage { .. })),
        "{error}"
    );

    assert!(matches!(
        Seal::builder().preset("custom").build().unwrap_err(),
        BuildError::Policy(seal::PolicyError::UnknownPreset { .. })
    ));
    assert!(matches!(
        Seal::builder()
            .executor_cannot_sandbox()
            .build()
            .unwrap_err(),
        BuildError::Policy(seal::PolicyError::Preset { .. })
    ));
    assert!(matches!(
        Seal::builder()
            .frame_element("Channel")
            .build()
            .unwrap_err(),
        BuildError::Element { .. }
    ));
    assert!(matches!(
        Seal::builder()
            .workspace_root("relative/dir")
            .build()
            .unwrap_err(),
        BuildError::Policy(seal::PolicyError::WorkspaceRoot { .. })
    ));
    assert!(matches!(
        Seal::builder()
            .approval_id_prefix("has space")
            .build()
            .unwrap_err(),
        BuildError::ApprovalIdPrefix { .. }
    ));
    let key = seal::FrameKey::from_secret(&[1; 32]).unwrap();
    assert!(matches!(
        Seal::builder()
            .signing_key("k1", key.duplicate())
            .build()
            .unwrap_err(),
        BuildError::SigningKeyNotTrusted { .. }
    ));
    assert!(matches!(
        Seal::builder()
            .signing_key("bad id", key)
            .build()
            .unwrap_err(),
        BuildError::SigningKeyId { .. }
    ));
    let mut builder = Seal::builder();
    for index in 0..=seal::MAX_ANSWERERS {
        builder = builder.answerer(move |_: &Question<'_>| {
            let _ = index;
            Answer::Delegate
        });
    }
    assert!(matches!(
        builder.build().unwrap_err(),
        BuildError::TooManyAnswerers { .. }
    ));
}

#[test]
fn seal_is_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Seal>();
    assert_send_sync::<seal::Call>();
}

#[test]
fn the_card_layout() {
    let seal = rules_seal();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash("git push origin dev"))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let expected = [
        "+- approval needed ------------------------------------------------------------",
        "| approval  approval-1",
        "| tool      Bash",
        "| call      c1",
        "| session   s1",
        "| agent     a1",
        "| command   git push origin dev",
        "|           19 bytes, sha256 ",
        "| arguments {\"command\":\"git push origin dev\"}",
        "|           33 bytes, sha256 ",
        "| sandbox   workspace-write",
        "| reason    rule `Bash(git push:*)` asks",
        "+------------------------------------------------------------------------------",
    ];
    let lines: Vec<&str> = pending.card().lines().collect();
    assert_eq!(lines.len(), expected.len(), "{}", pending.card());
    for (line, expected) in lines.iter().zip(expected) {
        assert!(
            line.starts_with(expected),
            "{line:?} does not start with {expected:?}"
        );
        assert!(line.len() <= 80, "{line}");
    }
    let _ = pending.cancel();
}

#[test]
fn approvals_from_many_threads_get_distinct_ids() {
    let seal = Seal::builder()
        .rules_json(RULES)
        .answerer(|_: &Question<'_>| Answer::AllowOnce)
        .build()
        .unwrap();
    let ids = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let (seal, ids) = (&seal, &ids);
            scope.spawn(move || {
                let session = seal.open_session(&format!("s{thread}")).unwrap();
                for index in 0..25 {
                    let call = seal
                        .call(
                            &session,
                            "a1",
                            &format!("c{index}"),
                            "Bash",
                            &bash("git push"),
                        )
                        .unwrap();
                    let pending = expect_approval(seal.prepare(&call, None));
                    ids.lock().unwrap().push(pending.approval_id().to_owned());
                    assert!(pending.ask_answerers().is_run());
                }
            });
        }
    });
    let mut ids = ids.into_inner().unwrap();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 100);
}

#[test]
fn a_hostile_or_long_ask_reason_still_asks_and_is_shown_escaped_once() {
    let hostile = |call: &ToolCall, _: Next<'_>| -> Result<Ruling, StageError> {
        Ok(Ruling::ask(format!(
            "review \u{202e}this\n{}",
            call.command().unwrap_or("")
        )))
    };
    let seal = Seal::builder()
        .listener("reviewer", Scope::everywhere().tool("Bash"), hostile)
        .build()
        .unwrap();
    let session = seal.open_session("s1").unwrap();
    let call = seal
        .call(&session, "a1", "c1", "Bash", &bash(&"y".repeat(3000)))
        .unwrap();
    let pending = expect_approval(seal.prepare(&call, None));
    let reason = pending.reason().as_str();
    assert!(reason.is_ascii());
    assert!(reason.starts_with("review \\u{202e}this\\n"), "{reason}");
    assert!(
        reason.ends_with(&"y".repeat(3000)),
        "the reason itself is whole"
    );
    // The record holds it cut between escapes, with the marker.
    let asked = pending.asked_event();
    assert!(
        asked.json().contains("characters elided]"),
        "{}",
        asked.json()
    );
    assert!(pending
        .card()
        .contains("| reason    review \\u{202e}this\\n"));
    assert!(pending.settle(Outcome::AllowedOnce).is_run());
}

#[test]
fn a_custom_preset_table_decides_the_sessions_and_the_digest() {
    use seal::{ApprovalPolicy, SandboxMode};
    let table = [
        ("locked", SandboxMode::ReadOnly, ApprovalPolicy::Never),
        (
            "open",
            SandboxMode::WorkspaceWrite,
            ApprovalPolicy::OnRequest,
        ),
    ];
    let locked = Seal::builder()
        .preset_table(&table)
        .preset("locked")
        .build()
        .unwrap();
    let session = locked.open_session("s1").unwrap();
    assert_eq!(session.standing_mode(), SandboxMode::ReadOnly);
    assert_eq!(session.approval_policy(), ApprovalPolicy::Never);
    let open = Seal::builder()
        .preset_table(&table)
        .preset("open")
        .build()
        .unwrap();
    assert_eq!(
        open.open_session("s1").unwrap().standing_mode(),
        SandboxMode::WorkspaceWrite
    );
    // The table is part of the policy: another table with the same selected row differs.
    let other = Seal::builder()
        .preset_table(&[
            table[1],
            ("spare", SandboxMode::ReadOnly, ApprovalPolicy::Never),
        ])
        .preset("open")
        .build()
        .unwrap();
    assert_ne!(open.policy_digest(), other.policy_digest());
    // `auto` is not a row of this table: refused, naming the table's presets.
    let error = Seal::builder().preset_table(&table).build().unwrap_err();
    assert!(
        matches!(&error, BuildError::Policy(seal::PolicyError::UnknownPreset { known, .. }) if known == &["locked", "open"]),
        "{error}"
    );
    assert!(error.to_string().ends_with("locked, open"), "{error}");
    // A key outside the preset key grammar is refused by the table loader.
    let bad = Seal::builder()
        .preset_table(&[("Not A Key", SandboxMode::ReadOnly, ApprovalPolicy::Never)])
        .preset("Not A Key")
        .build()
        .unwrap_err();
    assert!(
        matches!(bad, BuildError::Policy(seal::PolicyError::Preset(_))),
        "{bad}"
    );
}

#[test]
fn frame_limits_bound_the_scan_and_the_alarm_text() {
    use seal::{MemoryReplayStore, ScanLimits, UnixTime, VerifyLimits};
    let frames = "<channel>a</channel> <channel>b</channel> <channel>c</channel>";
    let seal = |max_frames: usize, max_frame_alarms: usize| {
        Seal::builder()
            .frame_limits(
                ScanLimits {
                    max_frames,
                    ..ScanLimits::default()
                },
                VerifyLimits { max_frame_alarms },
            )
            .build()
            .unwrap()
    };
    let now = UnixTime(1_800_000_000);
    let all = seal(16, 16)
        .verify_inbound(frames, "c1", now, &MemoryReplayStore::new())
        .unwrap();
    assert_eq!(all.report().frames().len(), 3);
    assert!(all.report().scan_error().is_none());
    // One finding allowed: the scan stops with an alarm, never silently.
    let stopped = seal(1, 16)
        .verify_inbound(frames, "c1", now, &MemoryReplayStore::new())
        .unwrap();
    assert!(stopped.report().scan_error().is_some());
    assert!(stopped.report().is_tainted());
    // One per-frame alarm in the text: the others are counted as left out.
    let short = seal(16, 1)
        .verify_inbound(frames, "c1", now, &MemoryReplayStore::new())
        .unwrap();
    assert!(
        short.alarms().contains("omitted=\"2\""),
        "{}",
        short.alarms()
    );
    assert_eq!(short.report().frames().len(), 3);
}
