//! Delegation: one test per rule (the child captures only the parent's explicit session
//! override, never the deployment default nor a one-shot grant; approval pinned to `never`
//! where approval exists; effective permissions the meet of parent and request; the bound
//! holds for the child's whole life), plus the named scenarios: a child asking wider than its
//! parent, and a read-only child of a workspace-write parent.

use std::cell::Cell;
use std::rc::Rc;

use seal_policy::approval::{answer_with, Answer, ApprovalPolicy, ApprovalService, Caller};
use seal_policy::delegation::{spawn_child, ChildRequest, CHILD_APPROVAL_NOTICE};
use seal_policy::escalation::{
    ask_escalation, ask_session_escalation, check_escalation, plan_call, plan_session_call,
    EscalationError, EscalationFields, EscalationLimits, NotGranted, SessionAskError,
};
use seal_policy::preset::{
    Executor, Knobs, PermissionState, PresetConfig, PresetTable, SandboxMode, Session, Settings,
};

use ApprovalPolicy::{Never, OnRequest};
use SandboxMode::{DangerFullAccess, ReadOnly, WorkspaceWrite};

fn settings(mode: SandboxMode) -> PermissionState {
    PermissionState::from_knobs(Knobs::new(mode, OnRequest))
}

fn request(sandbox: Option<SandboxMode>) -> ChildRequest {
    ChildRequest {
        sandbox,
        approval_exists: true,
    }
}

#[test]
fn a_child_captures_the_parents_explicit_session_override() {
    let mut parent = Session::fresh(&settings(DangerFullAccess));
    parent.set_sandbox(WorkspaceWrite);
    let child = spawn_child(&parent, request(None), &settings(DangerFullAccess));
    assert_eq!(child.sandbox_override(), Some(WorkspaceWrite));
    assert_eq!(child.standing_mode(), WorkspaceWrite);
}

#[test]
fn a_child_never_captures_the_deployment_default_as_an_override() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(&parent, request(None), &settings(WorkspaceWrite));
    assert_eq!(child.sandbox_override(), None);
    assert_eq!(child.standing_mode(), WorkspaceWrite);
}

#[test]
fn a_child_created_after_the_default_widened_stays_within_its_parent() {
    let parent = Session::fresh(&settings(ReadOnly));
    // The deployment default changed after the parent was created.
    let child = spawn_child(&parent, request(None), &settings(DangerFullAccess));
    assert_eq!(child.standing_mode(), ReadOnly);
}

#[test]
fn a_child_never_receives_a_one_shot_grant_of_its_parent() {
    let parent = Session::fresh(&settings(ReadOnly));
    let mut service = ApprovalService::new(OnRequest);
    service
        .register(answer_with(|_| Answer::AllowOnce))
        .unwrap();
    let escalation = check_escalation(
        &EscalationFields {
            sandbox_permissions: Some("danger-full-access"),
            justification: Some("install"),
        },
        parent.standing_mode(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap()
    .unwrap();
    let asked = ask_escalation(
        Some(&mut service),
        &Caller::in_turn("s1", "a1"),
        "Bash",
        "c1",
        &escalation,
        false,
    )
    .unwrap();
    let grant = asked.grant().unwrap();
    assert_eq!(grant.mode(), DangerFullAccess);
    // The child is spawned while the grant is live (for example by the granted call itself).
    let child = spawn_child(&parent, request(None), &settings(ReadOnly));
    assert_eq!(child.standing_mode(), ReadOnly);
    let asking_wide = spawn_child(
        &parent,
        request(Some(DangerFullAccess)),
        &settings(ReadOnly),
    );
    assert_eq!(asking_wide.standing_mode(), ReadOnly);
    drop(grant);
}

#[test]
fn a_childs_approval_policy_is_pinned_to_never_where_approval_exists() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(&parent, request(None), &settings(WorkspaceWrite));
    assert_eq!(child.approval_policy(), Never);
    assert!(CHILD_APPROVAL_NOTICE.contains("rejected"));
}

#[test]
fn a_childs_approval_policy_is_left_alone_where_no_approval_exists() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(
        &parent,
        ChildRequest {
            sandbox: None,
            approval_exists: false,
        },
        &settings(WorkspaceWrite),
    );
    assert_eq!(child.approval_policy(), OnRequest);
}

#[test]
fn a_childs_permissions_are_the_meet_of_parent_and_request() {
    for parent_mode in SandboxMode::ALL {
        for asked in SandboxMode::ALL {
            let parent = Session::fresh(&settings(parent_mode));
            let child = spawn_child(&parent, request(Some(asked)), &settings(parent_mode));
            assert_eq!(child.standing_mode(), parent_mode.meet(asked));
        }
    }
}

#[test]
fn a_child_asking_wider_than_its_parent_gets_the_parents_mode() {
    let parent = Session::fresh(&settings(ReadOnly));
    let child = spawn_child(
        &parent,
        request(Some(DangerFullAccess)),
        &settings(ReadOnly),
    );
    assert_eq!(child.standing_mode(), ReadOnly);
    assert_eq!(child.ceiling(), Some(ReadOnly));
    let plan = plan_call(
        &EscalationFields::default(),
        child.standing_mode(),
        child.approval_policy(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    assert_eq!(plan.standing.mode, ReadOnly);
    assert!(plan.standing.sandboxed);
}

#[test]
fn a_read_only_child_of_a_workspace_write_parent_is_read_only_and_cannot_escalate() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(&parent, request(Some(ReadOnly)), &settings(WorkspaceWrite));
    assert_eq!(child.standing_mode(), ReadOnly);
    assert_eq!(
        parent.standing_mode(),
        WorkspaceWrite,
        "the parent is unchanged"
    );

    // Its escalation to the parent's level is valid but needs approval, and under the pinned
    // `never` it is rejected without consulting any answerer.
    let consulted = Rc::new(Cell::new(0));
    let seen = Rc::clone(&consulted);
    let mut service = ApprovalService::new(child.approval_policy());
    service
        .register(answer_with(move |_| {
            seen.set(seen.get() + 1);
            Answer::AllowOnce
        }))
        .unwrap();
    let fields = EscalationFields {
        sandbox_permissions: Some("workspace-write"),
        justification: Some("write the summary"),
    };
    let plan = plan_call(
        &fields,
        child.standing_mode(),
        child.approval_policy(),
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    assert!(plan.needs_approval() && !plan.needs_prompt());
    let asked = ask_escalation(
        Some(&mut service),
        &Caller::in_turn("child-session", "child-agent"),
        "Write",
        "c1",
        plan.escalation.as_ref().unwrap(),
        false,
    )
    .unwrap();
    assert!(matches!(asked.grant(), Err(NotGranted::Settled(_))));
    assert_eq!(consulted.get(), 0);
    assert_eq!(child.standing_mode(), ReadOnly);
}

#[test]
fn a_child_selecting_a_wider_preset_stays_within_its_parent() {
    let table = PresetTable::load(&PresetConfig {
        rows: vec![
            ("read-only", Knobs::new(ReadOnly, OnRequest), None),
            ("full", Knobs::new(DangerFullAccess, OnRequest), None),
        ],
        default: Some("read-only"),
        composed_defaults: Knobs::new(ReadOnly, OnRequest),
        executor: Executor::CONFINING,
    })
    .unwrap();
    let settings = Settings::new(&table);
    let parent = settings.open_session();
    let mut child = spawn_child(&parent, request(None), settings.state());
    child.select(&table, "full").unwrap();
    assert_eq!(child.standing_mode(), ReadOnly);
    assert_eq!(child.approval_policy(), Never);
    child.set_sandbox(DangerFullAccess);
    assert_eq!(child.standing_mode(), ReadOnly);
}

#[test]
fn a_grandchild_stays_within_every_ancestor() {
    let root = Session::fresh(&settings(DangerFullAccess));
    let child = spawn_child(
        &root,
        request(Some(WorkspaceWrite)),
        &settings(DangerFullAccess),
    );
    let grandchild = spawn_child(
        &child,
        request(Some(DangerFullAccess)),
        &settings(DangerFullAccess),
    );
    assert_eq!(grandchild.standing_mode(), WorkspaceWrite);
}

#[test]
fn a_child_cannot_escalate_above_its_parent_whatever_the_answerer() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(&parent, request(Some(ReadOnly)), &settings(WorkspaceWrite));
    let wide = EscalationFields {
        sandbox_permissions: Some("danger-full-access"),
        justification: Some("install"),
    };
    assert_eq!(
        plan_session_call(
            &child,
            &wide,
            Executor::CONFINING,
            EscalationLimits::DEFAULT
        ),
        Err(EscalationError::AboveCeiling {
            requested: DangerFullAccess,
            ceiling: WorkspaceWrite
        })
    );
    // Up to the ceiling is a valid escalation (and then needs approval, which `never` rejects).
    let to_parent = EscalationFields {
        sandbox_permissions: Some("workspace-write"),
        justification: Some("write"),
    };
    let plan = plan_session_call(
        &child,
        &to_parent,
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    assert_eq!(plan.escalation.unwrap().target(), WorkspaceWrite);
    // A root session has no ceiling.
    assert!(plan_session_call(
        &parent,
        &wide,
        Executor::CONFINING,
        EscalationLimits::DEFAULT
    )
    .unwrap()
    .needs_prompt());
}

#[test]
fn a_childs_escalation_is_never_put_to_a_service_that_could_prompt() {
    let parent = Session::fresh(&settings(WorkspaceWrite));
    let child = spawn_child(&parent, request(Some(ReadOnly)), &settings(WorkspaceWrite));
    let plan = plan_session_call(
        &child,
        &EscalationFields {
            sandbox_permissions: Some("workspace-write"),
            justification: Some("write"),
        },
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    let escalation = plan.escalation.unwrap();
    let caller = Caller::in_turn("child-session", "child-agent");

    // The parent's service prompts; the child's escalation is not put to it.
    let consulted = Rc::new(Cell::new(0));
    let seen = Rc::clone(&consulted);
    let mut shared = ApprovalService::new(OnRequest);
    shared
        .register(answer_with(move |_| {
            seen.set(seen.get() + 1);
            Answer::AllowOnce
        }))
        .unwrap();
    assert_eq!(
        ask_session_escalation(
            Some(&mut shared),
            &child,
            &caller,
            "Write",
            "c1",
            &escalation,
            false
        ),
        Err(SessionAskError::PolicyMismatch {
            session: Never,
            service: OnRequest
        })
    );
    assert_eq!(consulted.get(), 0);

    // A `never` service records the audit pair and rejects without consulting anyone.
    let mut never = ApprovalService::new(Never);
    never.register(answer_with(|_| Answer::AllowOnce)).unwrap();
    let asked = ask_session_escalation(
        Some(&mut never),
        &child,
        &caller,
        "Write",
        "c1",
        &escalation,
        false,
    )
    .unwrap();
    assert_eq!(
        asked.grant(),
        Err(NotGranted::Settled(
            seal_policy::approval::Outcome::Rejected
        ))
    );
    assert!(!asked.asking.consulted_answerers());

    // The parent itself (policy `on-request`) may use the prompting service.
    let parent_plan = plan_session_call(
        &parent,
        &EscalationFields {
            sandbox_permissions: Some("danger-full-access"),
            justification: Some("install"),
        },
        Executor::CONFINING,
        EscalationLimits::DEFAULT,
    )
    .unwrap();
    let asked = ask_session_escalation(
        Some(&mut shared),
        &parent,
        &Caller::in_turn("s1", "a1"),
        "Bash",
        "c2",
        parent_plan.escalation.as_ref().unwrap(),
        false,
    )
    .unwrap();
    assert_eq!(asked.grant().unwrap().mode(), DangerFullAccess);
}
