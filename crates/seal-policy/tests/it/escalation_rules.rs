//! Per-call escalation: one test per rule (both fields together, a nonblank justification,
//! strictly wider than the standing mode, refused before any prompt, asked through the approval
//! service with the target and justification in the reason, only `allowed-once` grants, one
//! call only, never persisted, unadvertised keys refused on an executor that cannot sandbox),
//! plus the stamp being a separate output from the prompt.

use std::cell::Cell;
use std::rc::Rc;

use seal_policy::approval::{
    answer_with, map_machine_response, Action, Answer, ApprovalPolicy, ApprovalService, Caller,
    Event, MachineAnswer, MachineResponse, Outcome, Refusal, Reply, ALLOW_ONCE_OPTION,
};
use seal_policy::escalation::{
    ask_escalation, check_escalation, is_blank_justification, plan_call, CallPlan, EscalationError,
    EscalationFields, EscalationLimits, NotGranted, Stamp,
};
use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, Session};

use SandboxMode::{DangerFullAccess, ReadOnly, WorkspaceWrite};

fn fields<'a>(mode: Option<&'a str>, justification: Option<&'a str>) -> EscalationFields<'a> {
    EscalationFields {
        sandbox_permissions: mode,
        justification,
    }
}

fn check(
    mode: Option<&str>,
    justification: Option<&str>,
    standing: SandboxMode,
) -> Result<Option<SandboxMode>, EscalationError> {
    check_escalation(
        &fields(mode, justification),
        standing,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .map(|e| e.map(|e| e.target()))
}

/// A service whose one answerer allows once and counts how often it is consulted.
fn counted_service(policy: ApprovalPolicy, answer: Answer) -> (ApprovalService, Rc<Cell<u32>>) {
    let count = Rc::new(Cell::new(0));
    let seen = Rc::clone(&count);
    let mut service = ApprovalService::new(policy);
    service
        .register(answer_with(move |_| {
            seen.set(seen.get() + 1);
            answer
        }))
        .unwrap();
    (service, count)
}

/// The whole per-call flow: plan (refusing before any prompt), then ask, then stamp.
fn run_call(
    session: &Session,
    service: &mut ApprovalService,
    fields: &EscalationFields<'_>,
    call_id: &str,
) -> Result<Stamp, String> {
    let plan = plan_call(
        fields,
        session.standing_mode(),
        session.approval_policy(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .map_err(|e| e.to_string())?;
    let Some(escalation) = &plan.escalation else {
        return Ok(plan.standing);
    };
    let asked = ask_escalation(
        Some(service),
        &Caller::in_turn("s1", "a1"),
        "Bash",
        call_id,
        escalation,
        false,
    )
    .map_err(|e| e.to_string())?;
    let grant = asked.grant().map_err(|e| e.to_string())?;
    Ok(grant.into_stamp(Executor::CONFINING))
}

fn session(mode: SandboxMode) -> Session {
    Session::fresh(&PermissionState::from_knobs(Knobs::new(
        mode,
        ApprovalPolicy::OnRequest,
    )))
}

#[test]
fn a_call_without_escalation_fields_runs_in_the_standing_mode() {
    assert_eq!(check(None, None, ReadOnly), Ok(None));
}

#[test]
fn sandbox_permissions_without_a_justification_is_refused() {
    assert_eq!(
        check(Some("danger-full-access"), None, ReadOnly),
        Err(EscalationError::MissingJustification)
    );
}

#[test]
fn a_justification_without_sandbox_permissions_is_refused() {
    assert_eq!(
        check(None, Some("needs network"), ReadOnly),
        Err(EscalationError::MissingSandboxPermissions)
    );
}

#[test]
fn a_blank_justification_is_refused() {
    for blank in [
        "",
        " ",
        "\t\n ",
        "\u{3000}\u{2003}\u{a0}",
        "\u{85}",
        "\u{200b}",
        "\u{feff}\u{2060}",
        "\u{202e}\u{2066}",
        "\u{e0041}\u{e007f}",
        "\u{ad}\u{34f}\u{115f}\u{3164}\u{ffa0}",
        "\u{fe0f}\u{e0100}\u{180e}",
        "\u{2800}",
    ] {
        assert!(is_blank_justification(blank), "{blank:?}");
        assert_eq!(
            check(Some("danger-full-access"), Some(blank), ReadOnly),
            Err(EscalationError::BlankJustification),
            "{blank:?}"
        );
    }
}

#[test]
fn a_justification_hiding_characters_is_refused() {
    assert_eq!(
        check(
            Some("danger-full-access"),
            Some("fetch\u{202e}sgnirts"),
            ReadOnly
        ),
        Err(EscalationError::ForbiddenCharacter {
            character: '\u{202e}'
        })
    );
    assert_eq!(
        check(Some("danger-full-access"), Some("a\u{200b}b"), ReadOnly),
        Err(EscalationError::ForbiddenCharacter {
            character: '\u{200b}'
        })
    );
}

#[test]
fn a_visible_justification_in_any_script_is_accepted() {
    for text in [
        "x",
        "сеть",
        "ＮＥＴ",
        "\u{d7ff}",
        "✓ build needs it",
        "  padded  ",
    ] {
        assert!(!is_blank_justification(text), "{text:?}");
        assert_eq!(
            check(Some("workspace-write"), Some(text), ReadOnly),
            Ok(Some(WorkspaceWrite)),
            "{text:?}"
        );
    }
}

#[test]
fn a_justification_over_the_limit_is_refused() {
    let long = "j".repeat(1001);
    assert_eq!(
        check(Some("workspace-write"), Some(&long), ReadOnly),
        Err(EscalationError::JustificationTooLong {
            len: 1001,
            max: 1000
        })
    );
    let limits = EscalationLimits::DEFAULT.with_max_justification_chars(3);
    assert!(check_escalation(
        &fields(Some("workspace-write"), Some("four")),
        ReadOnly,
        Executor::CONFINING,
        limits
    )
    .is_err());
}

#[test]
fn an_unknown_mode_is_refused() {
    for mode in [
        "Danger-Full-Access",
        "full",
        "",
        " read-only",
        "workspace_write",
    ] {
        assert_eq!(
            check(Some(mode), Some("because"), ReadOnly),
            Err(EscalationError::UnknownMode {
                value: mode.to_owned()
            })
        );
    }
}

#[test]
fn a_same_level_request_is_refused() {
    for mode in SandboxMode::ALL {
        assert_eq!(
            check(Some(mode.as_str()), Some("because"), mode),
            Err(EscalationError::NotWider {
                requested: mode,
                standing: mode
            })
        );
    }
}

#[test]
fn a_narrowing_request_is_refused() {
    assert_eq!(
        check(Some("read-only"), Some("because"), WorkspaceWrite),
        Err(EscalationError::NotWider {
            requested: ReadOnly,
            standing: WorkspaceWrite
        })
    );
}

#[test]
fn a_strictly_wider_request_is_accepted() {
    assert_eq!(
        check(Some("workspace-write"), Some("because"), ReadOnly),
        Ok(Some(WorkspaceWrite))
    );
    assert_eq!(
        check(Some("danger-full-access"), Some("because"), ReadOnly),
        Ok(Some(DangerFullAccess))
    );
}

#[test]
fn a_same_level_or_narrowing_request_fails_before_any_prompt() {
    for (standing, target) in [
        (WorkspaceWrite, "workspace-write"),
        (WorkspaceWrite, "read-only"),
        (DangerFullAccess, "danger-full-access"),
    ] {
        let (mut service, count) = counted_service(ApprovalPolicy::OnRequest, Answer::AllowOnce);
        let result = run_call(
            &session(standing),
            &mut service,
            &fields(Some(target), Some("because")),
            "call-1",
        );
        assert!(result.is_err());
        assert_eq!(count.get(), 0, "no answerer was consulted");
    }
}

#[test]
fn escalation_asks_the_approval_service_with_target_and_justification_in_the_reason() {
    let (mut service, count) = counted_service(ApprovalPolicy::OnRequest, Answer::AllowOnce);
    let escalation = check_escalation(
        &fields(Some("danger-full-access"), Some("fetch crates")),
        WorkspaceWrite,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap()
    .unwrap();
    let asked = ask_escalation(
        Some(&mut service),
        &Caller::in_turn("s1", "a1"),
        "Bash",
        "call-9",
        &escalation,
        false,
    )
    .unwrap();
    assert_eq!(count.get(), 1);
    let Some(Action::Asked(event)) = asked.asking.audit().first() else {
        panic!("the first effect is the asked event");
    };
    assert_eq!(event.call_id(), Some("call-9"));
    assert_eq!(
        event.reason(),
        Some("sandbox escalation from `workspace-write` to `danger-full-access`: fetch crates")
    );
    let grant = asked.grant().unwrap();
    assert_eq!(grant.mode(), DangerFullAccess);
    assert_eq!(grant.call_id(), "call-9");
}

#[test]
fn only_allowed_once_grants() {
    let escalation = check_escalation(
        &fields(Some("workspace-write"), Some("write the report")),
        ReadOnly,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap()
    .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    let (mut rejecting, _) = counted_service(ApprovalPolicy::OnRequest, Answer::Reject);
    let asked = ask_escalation(
        Some(&mut rejecting),
        &caller,
        "Bash",
        "c1",
        &escalation,
        false,
    )
    .unwrap();
    assert_eq!(asked.grant(), Err(NotGranted::Settled(Outcome::Rejected)));

    let mut unanswered = ApprovalService::new(ApprovalPolicy::OnRequest);
    let asked = ask_escalation(
        Some(&mut unanswered),
        &caller,
        "Bash",
        "c2",
        &escalation,
        false,
    )
    .unwrap();
    assert_eq!(
        asked.grant(),
        Err(NotGranted::Settled(Outcome::Unavailable))
    );

    let (mut allowing, count) = counted_service(ApprovalPolicy::OnRequest, Answer::AllowOnce);
    let asked = ask_escalation(
        Some(&mut allowing),
        &caller,
        "Bash",
        "c3",
        &escalation,
        true,
    )
    .unwrap();
    assert_eq!(asked.grant(), Err(NotGranted::Settled(Outcome::Cancelled)));
    assert_eq!(count.get(), 0);

    let (mut claiming, _) = counted_service(ApprovalPolicy::OnRequest, Answer::Pending);
    let mut asked = ask_escalation(
        Some(&mut claiming),
        &caller,
        "Bash",
        "c4",
        &escalation,
        false,
    )
    .unwrap();
    assert_eq!(asked.grant(), Err(NotGranted::Pending));
    asked.asking.step(Event::Answer(Reply::AllowOnce));
    assert_eq!(asked.grant().unwrap().mode(), WorkspaceWrite);
}

#[test]
fn escalation_without_an_approval_service_or_turn_is_refused() {
    let escalation = check_escalation(
        &fields(Some("workspace-write"), Some("write")),
        ReadOnly,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap()
    .unwrap();
    let caller = Caller::in_turn("s1", "a1");
    assert_eq!(
        ask_escalation(None, &caller, "Bash", "c1", &escalation, false).unwrap_err(),
        Refusal::NoService
    );
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let no_agent = Caller {
        agent: None,
        ..caller
    };
    assert_eq!(
        ask_escalation(
            Some(&mut service),
            &no_agent,
            "Bash",
            "c1",
            &escalation,
            false
        )
        .unwrap_err(),
        Refusal::NoAgent
    );
}

#[test]
fn under_policy_never_an_escalation_is_rejected_without_a_prompt() {
    let (mut service, count) = counted_service(ApprovalPolicy::Never, Answer::AllowOnce);
    let standing = Session::fresh(&PermissionState::from_knobs(Knobs::new(
        ReadOnly,
        ApprovalPolicy::Never,
    )));
    let call = fields(Some("workspace-write"), Some("write"));
    let plan = plan_call(
        &call,
        standing.standing_mode(),
        standing.approval_policy(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    assert!(plan.needs_approval());
    assert!(!plan.needs_prompt());
    let result = run_call(&standing, &mut service, &call, "c1");
    assert_eq!(result, Err("the escalation settled `rejected`".to_owned()));
    assert_eq!(count.get(), 0);
}

#[test]
fn a_grant_lasts_one_call_and_is_never_persisted() {
    let session = session(ReadOnly);
    let before = session.clone();
    let (mut service, _) = counted_service(ApprovalPolicy::OnRequest, Answer::AllowOnce);
    let granted = run_call(
        &session,
        &mut service,
        &fields(Some("danger-full-access"), Some("network")),
        "c1",
    )
    .unwrap();
    assert_eq!(
        granted,
        Stamp {
            mode: DangerFullAccess,
            sandboxed: false
        }
    );
    assert_eq!(session, before, "the session holds no grant");
    assert_eq!(session.standing_mode(), ReadOnly);
    let next = run_call(&session, &mut service, &fields(None, None), "c2").unwrap();
    assert_eq!(
        next,
        Stamp {
            mode: ReadOnly,
            sandboxed: true
        }
    );
}

#[test]
fn unadvertised_escalation_keys_are_refused_when_the_executor_cannot_sandbox() {
    for (mode, justification, key) in [
        (Some("danger-full-access"), Some("x"), "sandbox_permissions"),
        (Some("workspace-write"), None, "sandbox_permissions"),
        (None, Some("x"), "justification"),
    ] {
        assert_eq!(
            check_escalation(
                &fields(mode, justification),
                ReadOnly,
                Executor::UNCONFINED,
                EscalationLimits::DEFAULT
            ),
            Err(EscalationError::Unsupported { key })
        );
    }
    assert_eq!(
        check_escalation(
            &fields(None, None),
            ReadOnly,
            Executor::UNCONFINED,
            EscalationLimits::DEFAULT
        ),
        Ok(None)
    );
}

#[test]
fn escalation_fields_are_read_from_the_call_arguments_and_must_be_strings() {
    use seal_parse::json::{parse, JsonLimits};
    let value = parse(
        br#"{"command":"cargo fetch","sandbox_permissions":"danger-full-access","justification":"network"}"#,
        &JsonLimits::default(),
    )
    .unwrap();
    let read = EscalationFields::from_arguments(&value).unwrap();
    assert_eq!(read, fields(Some("danger-full-access"), Some("network")));
    let value = parse(
        br#"{"command":"ls","sandbox_permissions":2,"justification":"x"}"#,
        &JsonLimits::default(),
    )
    .unwrap();
    assert_eq!(
        EscalationFields::from_arguments(&value),
        Err(EscalationError::NotAString {
            key: "sandbox_permissions"
        })
    );
    let value = parse(
        br#"{"command":"ls","justification":null}"#,
        &JsonLimits::default(),
    )
    .unwrap();
    assert_eq!(
        EscalationFields::from_arguments(&value),
        Err(EscalationError::NotAString {
            key: "justification"
        })
    );
}

#[test]
fn whether_a_call_runs_sandboxed_is_separate_from_whether_it_needs_a_prompt() {
    let plan = |standing, mode: Option<&str>, executor| -> CallPlan {
        plan_call(
            &fields(mode, mode.map(|_| "because")),
            standing,
            ApprovalPolicy::OnRequest,
            executor,
            EscalationLimits::DEFAULT,
        )
        .unwrap()
    };
    // Unsandboxed, no prompt: a full-access standing mode needs no approval.
    let full = plan(DangerFullAccess, None, Executor::CONFINING);
    assert!(!full.standing.sandboxed && !full.needs_prompt());
    // Sandboxed, with a prompt: a read-only call asking for more.
    let asking = plan(ReadOnly, Some("workspace-write"), Executor::CONFINING);
    assert!(asking.standing.sandboxed && asking.needs_prompt());
    // Sandboxed, no prompt.
    let plain = plan(WorkspaceWrite, None, Executor::CONFINING);
    assert!(plain.standing.sandboxed && !plain.needs_prompt());
    // Unsandboxed because the executor cannot confine, and no prompt.
    let bare = plan(ReadOnly, None, Executor::UNCONFINED);
    assert!(!bare.standing.sandboxed && !bare.needs_prompt());
    assert_eq!(bare.standing.mode, ReadOnly);
}

#[test]
fn an_automated_answerer_facing_a_non_widening_escalation_is_never_consulted() {
    // A machine client that would pick "allow once" for anything it is asked.
    let consulted = Rc::new(Cell::new(0));
    let seen = Rc::clone(&consulted);
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .prepend(answer_with(move |_| {
            seen.set(seen.get() + 1);
            match map_machine_response(MachineResponse::Selected(ALLOW_ONCE_OPTION)) {
                MachineAnswer::Reply(Reply::AllowOnce) => Answer::AllowOnce,
                _ => Answer::Reject,
            }
        }))
        .unwrap();
    let session = session(WorkspaceWrite);
    for target in ["workspace-write", "read-only"] {
        let result = run_call(
            &session,
            &mut service,
            &fields(Some(target), Some("please")),
            "c1",
        );
        assert!(
            result
                .unwrap_err()
                .contains("not wider than the standing mode"),
            "{target}"
        );
    }
    assert_eq!(consulted.get(), 0);
    // The same answerer is consulted for a widening request, which proves it was wired.
    let wider = run_call(
        &session,
        &mut service,
        &fields(Some("danger-full-access"), Some("please")),
        "c2",
    );
    assert_eq!(wider.unwrap().mode, DangerFullAccess);
    assert_eq!(consulted.get(), 1);
}
