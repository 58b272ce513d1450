//! The approval service, the wire registry and the machine-answerer mapping, rule by rule:
//! refusals, the audit pair without arguments, fresh ids, the waterfall order, limits, and
//! the wire and machine forms.

use std::cell::RefCell;
use std::rc::Rc;

use proptest::prelude::*;
use seal_parse::json::{parse, JsonLimits};
use seal_policy::approval::{
    answer_with, machine_claims, map_machine_response, parse_machine_response, request_approval,
    Action, Answer, ApprovalPolicy, ApprovalRequest, ApprovalService, Caller, IdSource,
    MachineAnswer, MachineResponse, Outcome, Question, Refusal, RegisterError, RegistryLimits,
    Reply, ResponseError, RpcId, ServiceLimits, Unanswered, WireRegistry, MACHINE_OPTIONS,
};
use seal_record::{ApprovalAsked, ApprovalDecided, Record, SealedCall};

fn caller() -> Caller<'static> {
    Caller::in_turn("session-1", "agent-1")
}

fn request() -> ApprovalRequest<'static> {
    ApprovalRequest::new("Bash")
        .with_call_id("call-1")
        .with_reason("runs the test suite")
}

// ---- refusals ----

#[test]
fn missing_service_session_agent_or_turn_each_deny_with_a_distinct_message() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(answer_with(|_| Answer::AllowOnce))
        .unwrap();
    let no_service = request_approval(None, &caller(), &request(), false).unwrap_err();
    let no_session = service
        .ask(
            &Caller {
                session: None,
                ..caller()
            },
            &request(),
            false,
        )
        .unwrap_err();
    let no_agent = service
        .ask(
            &Caller {
                agent: None,
                ..caller()
            },
            &request(),
            false,
        )
        .unwrap_err();
    let no_turn = service
        .ask(
            &Caller {
                turn_open: false,
                ..caller()
            },
            &request(),
            false,
        )
        .unwrap_err();
    assert_eq!(no_service, Refusal::NoService);
    assert_eq!(no_session, Refusal::NoSession);
    assert_eq!(no_agent, Refusal::NoAgent);
    assert_eq!(no_turn, Refusal::NoOpenTurn);
    let refusals = [&no_service, &no_session, &no_agent, &no_turn];
    let messages: Vec<String> = refusals.iter().map(|r| r.to_string()).collect();
    for (i, a) in messages.iter().enumerate() {
        for b in &messages[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(refusals.iter().all(|r| r.outcome() == Outcome::Unavailable));
    assert!(refusals.iter().all(|r| !r.outcome().proceeds()));
}

#[test]
fn invalid_ids_and_requests_are_refused() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let bad_session = Caller {
        session: Some("two words"),
        ..caller()
    };
    assert!(matches!(
        service.ask(&bad_session, &request(), false),
        Err(Refusal::InvalidSessionId { .. })
    ));
    let bad_agent = Caller {
        agent: Some(""),
        ..caller()
    };
    assert!(matches!(
        service.ask(&bad_agent, &request(), false),
        Err(Refusal::InvalidAgentId { .. })
    ));
    let bad_reason = request().with_reason("hidden\u{202e}text");
    assert!(matches!(
        service.ask(&caller(), &bad_reason, false),
        Err(Refusal::InvalidRequest(_))
    ));
    let bad_tool = ApprovalRequest::new("rm -rf");
    assert!(matches!(
        service.ask(&caller(), &bad_tool, false),
        Err(Refusal::InvalidRequest(_))
    ));
}

#[test]
fn refusal_messages() {
    let refusals = [
        Refusal::NoService,
        Refusal::NoSession,
        Refusal::NoAgent,
        Refusal::NoOpenTurn,
        Refusal::InvalidSessionId {
            id: "two words".into(),
        },
        Refusal::InvalidAgentId { id: String::new() },
        Refusal::InvalidApprovalId { id: "a\tb".into() },
        Refusal::ReusedApprovalId {
            id: "approval-1".into(),
        },
        Refusal::TooManyApprovals { max: 1 },
    ];
    let text: Vec<String> = refusals.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(text.join("\n"));
}

// ---- the audit pair ----

#[test]
fn audit_pair_is_asked_then_decided_with_the_same_fresh_id() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service.register(answer_with(|_| Answer::Reject)).unwrap();
    let asking = service.ask(&caller(), &request(), false).unwrap();
    assert!(asking.consulted_answerers());
    let [Action::Asked(asked), Action::Decided(decided)] = asking.audit() else {
        panic!("{:?}", asking.audit());
    };
    assert_eq!(asked.id(), "approval-1");
    assert_eq!(decided.id(), "approval-1");
    assert_eq!(decided.outcome(), Outcome::Rejected);
    assert_eq!(asked.tool(), "Bash");
    assert_eq!(asked.call_id(), Some("call-1"));
    assert_eq!(asked.reason(), Some("runs the test suite"));
    let limits = JsonLimits::default();
    let asked_bytes = asked.canonical().into_bytes();
    assert_eq!(
        ApprovalAsked::from_json(&asked_bytes, &limits).unwrap(),
        *asked
    );
    let decided_bytes = decided.canonical().into_bytes();
    assert_eq!(
        ApprovalDecided::from_json(&decided_bytes, &limits).unwrap(),
        *decided
    );
    insta::assert_snapshot!(format!(
        "{}\n{}",
        String::from_utf8(asked_bytes).unwrap(),
        String::from_utf8(decided_bytes).unwrap()
    ));
}

fn argument_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-z0-9 ./-]{1,8}",
            Just("\u{202e}".to_owned()),
            Just("\"".to_owned()),
            Just("\\".to_owned()),
        ],
        1..6,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(256))]

    /// The request is built from a sealed call whose arguments hold a marker: neither audit
    /// event nor the wire request carries any member beyond the closed sets, nor the marker.
    #[test]
    fn audit_events_and_wire_requests_carry_no_arguments(argument in argument_text(), allow in any::<bool>()) {
        let marker = format!("MARKER-{argument}");
        let arguments = seal_parse::json::Value::from(marker.as_str());
        let call = SealedCall::new("call-9", "Bash", &arguments).unwrap();
        let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
        let answer = if allow { Answer::AllowOnce } else { Answer::Pending };
        service.register(answer_with(move |_| answer)).unwrap();
        let asking = service.ask(&caller(), &ApprovalRequest::for_call(&call), false).unwrap();
        let mut registry = WireRegistry::default();
        let wire = registry.register("session-1", asking.machine().asked()).unwrap().to_json();
        let mut documents = vec![wire.clone()];
        for effect in asking.audit() {
            match effect {
                Action::Asked(asked) => documents.push(asked.canonical().into_bytes()),
                Action::Decided(decided) => documents.push(decided.canonical().into_bytes()),
                _ => {}
            }
        }
        let allowed_members = [
            "_type", "approval_id", "call_id", "id", "method", "outcome", "reason", "rpc_id",
            "session_id", "tool",
        ];
        for document in &documents {
            let text = String::from_utf8(document.clone()).unwrap();
            prop_assert!(!text.contains("MARKER"), "{}", text);
            let value = parse(document, &JsonLimits::default()).unwrap();
            for (key, _) in value.as_object().unwrap().iter() {
                prop_assert!(allowed_members.contains(&key), "member `{}`", key);
            }
        }
    }
}

// ---- fresh ids ----

struct Fixed(Vec<String>);

impl IdSource for Fixed {
    fn next_id(&mut self) -> String {
        if self.0.is_empty() {
            String::new()
        } else {
            self.0.remove(0)
        }
    }
}

#[test]
fn ids_are_fresh_and_a_repeating_source_fails_closed() {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let first = service.ask(&caller(), &request(), false).unwrap();
    let second = service.ask(&caller(), &request(), false).unwrap();
    assert_eq!(first.machine().id(), "approval-1");
    assert_eq!(second.machine().id(), "approval-2");

    let ids = Fixed(vec!["x-1".into(), "x-1".into(), "bad id".into()]);
    let mut service = ApprovalService::with_ids(ApprovalPolicy::OnRequest, Box::new(ids));
    assert_eq!(
        service
            .ask(&caller(), &request(), false)
            .unwrap()
            .machine()
            .id(),
        "x-1"
    );
    assert_eq!(
        service.ask(&caller(), &request(), false).unwrap_err(),
        Refusal::ReusedApprovalId { id: "x-1".into() }
    );
    assert_eq!(
        service.ask(&caller(), &request(), false).unwrap_err(),
        Refusal::InvalidApprovalId {
            id: "bad id".into()
        }
    );
}

#[test]
fn approval_limit_is_named() {
    let mut limits = ServiceLimits::DEFAULT;
    limits.max_approvals = 1;
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest).with_limits(limits);
    service.ask(&caller(), &request(), false).unwrap();
    assert_eq!(
        service.ask(&caller(), &request(), false).unwrap_err(),
        Refusal::TooManyApprovals { max: 1 }
    );
}

// ---- the waterfall ----

fn recording(
    log: &Rc<RefCell<Vec<&'static str>>>,
    name: &'static str,
    answer: Answer,
) -> Box<dyn seal_policy::approval::Answerer> {
    let log = Rc::clone(log);
    answer_with(move |_| {
        log.borrow_mut().push(name);
        answer
    })
}

#[test]
fn answerers_are_consulted_in_order_with_prepended_ones_first() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(recording(&log, "b", Answer::Delegate))
        .unwrap();
    service
        .register(recording(&log, "c", Answer::Reject))
        .unwrap();
    service
        .register(recording(&log, "d", Answer::AllowOnce))
        .unwrap();
    service
        .prepend(recording(&log, "a", Answer::Delegate))
        .unwrap();
    let asking = service.ask(&caller(), &request(), false).unwrap();
    assert_eq!(*log.borrow(), vec!["a", "b", "c"]);
    assert_eq!(asking.outcome(), Some(Outcome::Rejected));
}

#[test]
fn unanswered_settles_unavailable_or_as_configured_never_allowed() {
    for (unanswered, expected) in [
        (Unanswered::Unavailable, Outcome::Unavailable),
        (Unanswered::Rejected, Outcome::Rejected),
    ] {
        let mut service =
            ApprovalService::new(ApprovalPolicy::OnRequest).with_unanswered(unanswered);
        assert_eq!(
            service.ask(&caller(), &request(), false).unwrap().outcome(),
            Some(expected)
        );
        service.register(answer_with(|_| Answer::Delegate)).unwrap();
        assert_eq!(
            service.ask(&caller(), &request(), false).unwrap().outcome(),
            Some(expected)
        );
    }
}

#[test]
fn a_pending_answerer_claims_the_request_and_stops_the_waterfall() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service
        .register(recording(&log, "web", Answer::Pending))
        .unwrap();
    service
        .register(recording(&log, "late", Answer::AllowOnce))
        .unwrap();
    let asking = service.ask(&caller(), &request(), false).unwrap();
    assert_eq!(*log.borrow(), vec!["web"]);
    assert_eq!(asking.outcome(), None);
    assert!(asking.consulted_answerers());
    assert!(matches!(asking.audit(), [Action::Asked(_)]));
}

#[test]
fn answerers_see_the_question_but_no_arguments() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let record = Rc::clone(&seen);
    service
        .register(answer_with(move |question: &Question<'_>| {
            record.borrow_mut().push(format!("{question:?}"));
            Answer::Delegate
        }))
        .unwrap();
    service.ask(&caller(), &request(), false).unwrap();
    insta::assert_snapshot!(seen.borrow().join("\n"));
}

#[test]
fn answerer_limit_is_named() {
    let mut limits = ServiceLimits::DEFAULT;
    limits.max_answerers = 1;
    let mut service = ApprovalService::new(ApprovalPolicy::Never).with_limits(limits);
    service
        .register(answer_with(|_| Answer::AllowOnce))
        .unwrap();
    assert_eq!(
        service
            .prepend(answer_with(|_| Answer::AllowOnce))
            .unwrap_err()
            .max,
        1
    );
    assert_eq!(service.answerer_count(), 1);
}

#[test]
fn policy_names_round_trip() {
    for policy in [ApprovalPolicy::OnRequest, ApprovalPolicy::Never] {
        assert_eq!(ApprovalPolicy::from_name(policy.as_str()), Some(policy));
    }
    assert_eq!(ApprovalPolicy::from_name("Never"), None);
    assert_eq!(ApprovalPolicy::default(), ApprovalPolicy::OnRequest);
}

// ---- the wire registry ----

fn asked(id: &str) -> ApprovalAsked {
    ApprovalAsked::new(id, "Bash", Some("call-1"), Some("runs the test suite")).unwrap()
}

fn respond(rpc: u64, session: &str, approval: &str, outcome: &str) -> Vec<u8> {
    format!(
        r#"{{"approval_id":"{approval}","outcome":"{outcome}","rpc_id":{rpc},"session_id":"{session}"}}"#
    )
    .into_bytes()
}

#[test]
fn wire_request_json() {
    let mut registry = WireRegistry::default();
    let request = registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    let bare = registry
        .register(
            "session-1",
            &ApprovalAsked::new("approval-2", "Edit", None, None).unwrap(),
        )
        .unwrap();
    insta::assert_snapshot!(format!(
        "{}\n{}",
        String::from_utf8(request.to_json()).unwrap(),
        String::from_utf8(bare.to_json()).unwrap()
    ));
}

#[test]
fn first_valid_response_settles_and_a_second_is_stale() {
    let mut registry = WireRegistry::default();
    let request = registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    assert_eq!(request.rpc_id(), RpcId(1));
    let settled = registry
        .respond(&respond(1, "session-1", "approval-1", "allowed-once"))
        .unwrap();
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
    assert_eq!(
        settled.event(),
        seal_policy::approval::Event::Answer(Reply::AllowOnce)
    );
    assert_eq!(
        registry.respond(&respond(1, "session-1", "approval-1", "rejected")),
        Err(ResponseError::Stale { rpc_id: RpcId(1) })
    );
    assert_eq!(registry.pending_count(), 0);
}

#[test]
fn response_after_cancellation_is_late() {
    let mut registry = WireRegistry::default();
    registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    let cancelled = registry.cancel(RpcId(1)).unwrap();
    assert_eq!(cancelled.outcome, Outcome::Cancelled);
    assert_eq!(cancelled.event(), seal_policy::approval::Event::Cancel);
    assert_eq!(
        registry.respond(&respond(1, "session-1", "approval-1", "allowed-once")),
        Err(ResponseError::Late { rpc_id: RpcId(1) })
    );
}

#[test]
fn reconnect_replays_pending_requests_with_the_same_ids() {
    let mut registry = WireRegistry::default();
    let first = registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    let second = registry
        .register("session-2", &asked("approval-1"))
        .unwrap();
    let third = registry
        .register("session-1", &asked("approval-3"))
        .unwrap();
    registry
        .respond(&respond(2, "session-2", "approval-1", "rejected"))
        .unwrap();
    assert_eq!(registry.replay(), vec![first.clone(), third.clone()]);
    assert_eq!(registry.replay(), vec![first, third]);
    assert_eq!(second.rpc_id(), RpcId(2));
    let torn = registry.teardown();
    assert_eq!(torn.len(), 2);
    assert!(torn.iter().all(|s| s.outcome == Outcome::Cancelled));
    assert!(registry.replay().is_empty());
}

#[test]
fn registry_limits_are_named() {
    let mut limits = RegistryLimits::DEFAULT;
    limits.max_pending = 1;
    limits.max_remembered = 1;
    let mut registry = WireRegistry::new(limits);
    registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    assert_eq!(
        registry.register("session-1", &asked("approval-1")),
        Err(RegisterError::AlreadyPending { rpc_id: RpcId(1) })
    );
    assert_eq!(
        registry.register("session-1", &asked("approval-2")),
        Err(RegisterError::TooManyPending { max: 1 })
    );
    assert!(matches!(
        registry.register("two words", &asked("approval-2")),
        Err(RegisterError::InvalidSessionId { .. })
    ));
    registry.cancel(RpcId(1)).unwrap();
    registry
        .register("session-1", &asked("approval-2"))
        .unwrap();
    registry.cancel(RpcId(2)).unwrap();
    // Only one settled id is remembered: rpc 1 is forgotten (stale), rpc 2 is late.
    assert_eq!(
        registry.respond(&respond(1, "session-1", "approval-1", "rejected")),
        Err(ResponseError::Stale { rpc_id: RpcId(1) })
    );
    assert_eq!(
        registry.respond(&respond(2, "session-1", "approval-2", "rejected")),
        Err(ResponseError::Late { rpc_id: RpcId(2) })
    );
    let mut big = Vec::from(&b"{\"a\":\""[..]);
    big.resize(70 * 1024, b'x');
    assert!(matches!(
        registry.respond(&big),
        Err(ResponseError::Malformed(_))
    ));
}

#[test]
fn response_error_messages() {
    let mut registry = WireRegistry::default();
    registry
        .register("session-1", &asked("approval-1"))
        .unwrap();
    registry
        .register("session-1", &asked("approval-2"))
        .unwrap();
    registry.cancel(RpcId(2)).unwrap();
    let inputs: Vec<Vec<u8>> = vec![
        br#"{"rpc_id":1,}"#.to_vec(),
        b"[]".to_vec(),
        br#"{"approval_id":"approval-1","arguments":{},"outcome":"allowed-once","rpc_id":1,"session_id":"session-1"}"#.to_vec(),
        br#"{"approval_id":"approval-1","rpc_id":1,"session_id":"session-1"}"#.to_vec(),
        br#"{"approval_id":"approval-1","outcome":"allowed-once","rpc_id":0,"session_id":"session-1"}"#.to_vec(),
        respond(1, "session-1", "approval-1", "allow"),
        respond(1, "session-1", "approval-1", "cancelled"),
        respond(1, "session-2", "approval-1", "allowed-once"),
        respond(1, "session-1", "approval-9", "allowed-once"),
        respond(7, "session-1", "approval-1", "allowed-once"),
        respond(2, "session-1", "approval-2", "allowed-once"),
    ];
    let messages: Vec<String> = inputs
        .iter()
        .map(|input| registry.respond(input).unwrap_err().to_string())
        .collect();
    assert_eq!(registry.pending_count(), 1, "no rejected response settles");
    insta::assert_snapshot!(messages.join("\n"));
}

// ---- machine answerers ----

#[test]
fn machine_options_are_allow_once_and_reject_once() {
    let ids: Vec<&str> = MACHINE_OPTIONS.iter().map(|option| option.id).collect();
    assert_eq!(ids, ["allow-once", "reject-once"]);
    assert_eq!(MACHINE_OPTIONS[0].reply, Reply::AllowOnce);
    assert_eq!(MACHINE_OPTIONS[1].reply, Reply::Reject);
}

#[test]
fn machine_mapping_rejects_anything_unknown() {
    assert_eq!(
        map_machine_response(MachineResponse::Selected("allow-once")),
        MachineAnswer::Reply(Reply::AllowOnce)
    );
    assert_eq!(
        map_machine_response(MachineResponse::Cancelled),
        MachineAnswer::Cancel
    );
    for option in [
        "reject-once",
        "allow-always",
        "Allow-Once",
        "allow-once ",
        "",
        "allow_once",
    ] {
        assert_eq!(
            map_machine_response(MachineResponse::Selected(option)),
            MachineAnswer::Reply(Reply::Reject),
            "{option:?}"
        );
    }
}

#[test]
fn machine_responses_parse_strictly_and_unknown_shapes_reject() {
    let limits = JsonLimits::default();
    let cases: [(&str, MachineAnswer); 8] = [
        (
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once"}}"#,
            MachineAnswer::Reply(Reply::AllowOnce),
        ),
        (
            r#"{"outcome":{"outcome":"cancelled"}}"#,
            MachineAnswer::Cancel,
        ),
        (
            r#"{"outcome":{"outcome":"selected","optionId":"reject-once"}}"#,
            MachineAnswer::Reply(Reply::Reject),
        ),
        (
            r#"{"outcome":{"outcome":"selected","optionId":"allow-always"}}"#,
            MachineAnswer::Reply(Reply::Reject),
        ),
        (
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once","persist":true}}"#,
            MachineAnswer::Reply(Reply::Reject),
        ),
        (
            r#"{"outcome":{"outcome":"cancelled","optionId":"allow-once"}}"#,
            MachineAnswer::Reply(Reply::Reject),
        ),
        (
            r#"{"outcome":{"outcome":"selected","optionId":"allow-once","optionId":"allow-once"}}"#,
            MachineAnswer::Reply(Reply::Reject),
        ),
        ("\u{feff}{}", MachineAnswer::Reply(Reply::Reject)),
    ];
    for (input, expected) in cases {
        assert_eq!(
            parse_machine_response(input.as_bytes(), &limits),
            expected,
            "{input}"
        );
    }
}

#[test]
fn machine_answerer_claims_only_its_exact_agent_with_a_call_id() {
    let question = Question {
        approval_id: "approval-1",
        session: "session-1",
        agent: "agent-1",
        tool: "Bash",
        call_id: Some("call-1"),
        reason: None,
    };
    assert!(machine_claims("agent-1", &question));
    assert!(!machine_claims("agent-10", &question));
    assert!(!machine_claims("Agent-1", &question));
    assert!(!machine_claims(
        "agent-1",
        &Question {
            call_id: None,
            ..question
        }
    ));
}

// ---- the spec ----

/// The examples in spec/policy-approval.md are what the code produces.
#[test]
fn spec_examples_are_the_code_output() {
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../spec/policy-approval.md"
    ))
    .unwrap();
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    service.register(answer_with(|_| Answer::Reject)).unwrap();
    let asking = service.ask(&caller(), &request(), false).unwrap();
    let mut expected: Vec<String> = asking
        .audit()
        .iter()
        .filter_map(|effect| match effect {
            Action::Asked(asked) => Some(asked.canonical().into_bytes()),
            Action::Decided(decided) => Some(decided.canonical().into_bytes()),
            _ => None,
        })
        .map(|bytes| String::from_utf8(bytes).unwrap())
        .collect();
    let mut registry = WireRegistry::default();
    let wire = registry
        .register("session-1", asking.machine().asked())
        .unwrap();
    expected.push(String::from_utf8(wire.to_json()).unwrap());
    let response = respond(1, "session-1", "approval-1", "allowed-once");
    assert!(registry.respond(&response).is_ok());
    expected.push(String::from_utf8(response).unwrap());
    for refusal in [
        Refusal::NoService,
        Refusal::NoSession,
        Refusal::NoAgent,
        Refusal::NoOpenTurn,
    ] {
        expected.push(format!("`{refusal}`"));
    }
    assert_eq!(expected.len(), 8);
    for text in expected {
        assert!(spec.contains(&text), "spec lacks {text}");
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    /// Arbitrary bytes never panic the response readers and never settle a request (the only
    /// pending request has an approval id no generated input can guess).
    #[test]
    fn arbitrary_responses_never_settle(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut registry = WireRegistry::default();
        registry.register("session-1", &asked("approval-unguessable-7f3a")).unwrap();
        prop_assert!(registry.respond(&bytes).is_err());
        prop_assert_eq!(registry.pending_count(), 1);
        let answer = parse_machine_response(&bytes, &JsonLimits::default());
        prop_assert_ne!(answer, MachineAnswer::Reply(Reply::AllowOnce));
    }
}
