//! End to end: the service asks, a web answerer claims the request into the wire registry, a
//! client answers (or the proxy goes away), and the settlement drives the request's machine to
//! its dispatch check.

use std::cell::RefCell;
use std::rc::Rc;

use seal_policy::approval::{
    answer_with, Action, Answer, ApprovalPolicy, ApprovalRequest, ApprovalService, Asking, Caller,
    DispatchVerdict, Event, Outcome, RegistryLimits, ResponseError, RpcId, WireRegistry,
};

fn web_service(registry: &Rc<RefCell<WireRegistry>>) -> ApprovalService {
    let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
    let shared = Rc::clone(registry);
    service
        .register(answer_with(move |question| {
            shared.borrow_mut().claim(question)
        }))
        .unwrap();
    service
}

fn ask(service: &mut ApprovalService, session: &str) -> Asking {
    let caller = Caller::in_turn(session, "agent-1");
    let request = ApprovalRequest::new("Bash")
        .with_call_id("call-1")
        .with_reason("deletes the build directory");
    service.ask(&caller, &request, false).unwrap()
}

fn dispatch(asking: &mut Asking) -> DispatchVerdict {
    match asking.step(Event::DispatchCheck).as_slice() {
        [Action::Dispatch(verdict)] => *verdict,
        other => panic!("{other:?}"),
    }
}

fn response(rpc: u64, session: &str, approval: &str, outcome: &str) -> Vec<u8> {
    format!(
        r#"{{"approval_id":"{approval}","outcome":"{outcome}","rpc_id":{rpc},"session_id":"{session}"}}"#
    )
    .into_bytes()
}

#[test]
fn a_client_allow_once_reaches_the_dispatch_check() {
    let registry = Rc::new(RefCell::new(WireRegistry::default()));
    let mut service = web_service(&registry);
    let mut asking = ask(&mut service, "session-1");
    assert_eq!(asking.outcome(), None);
    let pending = registry.borrow().replay();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].asked(), asking.machine().asked());
    let settled = registry
        .borrow_mut()
        .respond(&response(1, "session-1", "approval-1", "allowed-once"))
        .unwrap();
    let effects = asking.step(settled.event());
    assert!(
        matches!(effects.as_slice(), [Action::Decided(d)] if d.outcome() == Outcome::AllowedOnce)
    );
    assert_eq!(dispatch(&mut asking), DispatchVerdict::Proceed);
}

#[test]
fn pending_requests_survive_reconnect_and_teardown_cancels_them() {
    let registry = Rc::new(RefCell::new(WireRegistry::default()));
    let mut service = web_service(&registry);
    let mut first = ask(&mut service, "session-1");
    let mut second = ask(&mut service, "session-2");
    let before = registry.borrow().replay();
    let after_reconnect = registry.borrow().replay();
    assert_eq!(before, after_reconnect);
    assert_eq!(
        before.iter().map(|r| r.rpc_id()).collect::<Vec<_>>(),
        [RpcId(1), RpcId(2)]
    );
    let torn = registry.borrow_mut().teardown();
    for settled in torn {
        let machine = if settled.approval_id == first.machine().id() {
            &mut first
        } else {
            &mut second
        };
        machine.step(settled.event());
    }
    assert_eq!(dispatch(&mut first), DispatchVerdict::AbortedBeforeDispatch);
    assert_eq!(
        dispatch(&mut second),
        DispatchVerdict::AbortedBeforeDispatch
    );
    assert_eq!(
        registry
            .borrow_mut()
            .respond(&response(1, "session-1", "approval-1", "allowed-once")),
        Err(ResponseError::Late { rpc_id: RpcId(1) })
    );
}

#[test]
fn a_full_registry_delegates_instead_of_claiming() {
    let mut limits = RegistryLimits::DEFAULT;
    limits.max_pending = 1;
    let registry = Rc::new(RefCell::new(WireRegistry::new(limits)));
    let mut service = web_service(&registry);
    let fallback = Rc::new(RefCell::new(0));
    let count = Rc::clone(&fallback);
    service
        .register(answer_with(move |_| {
            *count.borrow_mut() += 1;
            Answer::Reject
        }))
        .unwrap();
    let first = ask(&mut service, "session-1");
    assert_eq!(first.outcome(), None);
    let second = ask(&mut service, "session-1");
    assert_eq!(*fallback.borrow(), 1, "the next answerer was consulted");
    assert_eq!(second.outcome(), Some(Outcome::Rejected));
}

#[test]
fn a_foreign_client_cannot_settle_another_sessions_request() {
    let registry = Rc::new(RefCell::new(WireRegistry::default()));
    let mut service = web_service(&registry);
    let mut asking = ask(&mut service, "session-1");
    let foreign =
        registry
            .borrow_mut()
            .respond(&response(1, "session-2", "approval-1", "allowed-once"));
    assert!(matches!(foreign, Err(ResponseError::Foreign { .. })));
    assert_eq!(dispatch(&mut asking), DispatchVerdict::NotSettled);
    asking.step(Event::Cancel);
    registry.borrow_mut().cancel(RpcId(1)).unwrap();
    assert_eq!(
        dispatch(&mut asking),
        DispatchVerdict::AbortedBeforeDispatch
    );
}
