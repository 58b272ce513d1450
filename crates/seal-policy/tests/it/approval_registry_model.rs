//! Model-based test of the approval wire registry: the real registry and a plain `BTreeMap`
//! model receive the same random operations (register, valid / malformed / foreign /
//! mismatched / stale / late responses, cancel, reconnect, teardown) and must agree after every
//! step, on the result and on the pending set. A registry whose teardown leaves requests
//! pending is the negative control, and the suite must catch it.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use seal_policy::approval::{
    Outcome, RegisterError, ResponseError, RpcId, WireRegistry, WireSettlement,
};
use seal_record::ApprovalAsked;

const SESSIONS: usize = 3;
const APPROVALS: usize = 5;
const MALFORMED_KINDS: usize = 10;

#[derive(Debug, Clone, Copy)]
enum Op {
    Register { session: usize, approval: usize },
    RespondValid { pick: usize, allow: bool },
    RespondMalformed { pick: usize, kind: usize },
    RespondForeign { pick: usize },
    RespondMismatched { pick: usize },
    RespondUnknown { offset: u64 },
    Cancel { pick: usize },
    Reconnect,
    Teardown,
}

/// What one operation gave, in terms both sides can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Obs {
    Registered(u64),
    AlreadyPending(u64),
    Settled(u64, Outcome),
    Malformed,
    Foreign(u64),
    Mismatched(u64),
    Stale(u64),
    Late(u64),
    Cancelled(Option<u64>),
    Replay(Vec<(u64, String, String)>),
    TornDown(Vec<u64>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Answered,
    Cancelled,
}

#[derive(Debug, Default)]
struct Model {
    entries: BTreeMap<u64, (String, String, State)>,
    next: u64,
}

/// The operations a registry under test offers.
trait Registry {
    fn register(&mut self, session: &str, asked: &ApprovalAsked) -> Obs;
    fn respond(&mut self, bytes: &[u8]) -> Obs;
    fn cancel(&mut self, rpc: u64) -> Obs;
    fn teardown(&mut self) -> Obs;
    fn pending(&self) -> Vec<(u64, String, String)>;
}

impl Registry for WireRegistry {
    fn register(&mut self, session: &str, asked: &ApprovalAsked) -> Obs {
        match WireRegistry::register(self, session, asked) {
            Ok(request) => Obs::Registered(request.rpc_id().0),
            Err(RegisterError::AlreadyPending { rpc_id }) => Obs::AlreadyPending(rpc_id.0),
            Err(other) => panic!("{other}"),
        }
    }

    fn respond(&mut self, bytes: &[u8]) -> Obs {
        match WireRegistry::respond(self, bytes) {
            Ok(settled) => Obs::Settled(settled.rpc_id.0, settled.outcome),
            Err(ResponseError::Malformed(_)) => Obs::Malformed,
            Err(ResponseError::Foreign { rpc_id, .. }) => Obs::Foreign(rpc_id.0),
            Err(ResponseError::MismatchedApproval { rpc_id, .. }) => Obs::Mismatched(rpc_id.0),
            Err(ResponseError::Stale { rpc_id }) => Obs::Stale(rpc_id.0),
            Err(ResponseError::Late { rpc_id }) => Obs::Late(rpc_id.0),
            Err(other) => panic!("{other}"),
        }
    }

    fn cancel(&mut self, rpc: u64) -> Obs {
        let settled = WireRegistry::cancel(self, RpcId(rpc));
        if let Some(settled) = &settled {
            assert_eq!(settled.outcome, Outcome::Cancelled);
        }
        Obs::Cancelled(settled.map(|settled| settled.rpc_id.0))
    }

    fn teardown(&mut self) -> Obs {
        let settled: Vec<WireSettlement> = WireRegistry::teardown(self);
        assert!(settled.iter().all(|s| s.outcome == Outcome::Cancelled));
        Obs::TornDown(settled.iter().map(|s| s.rpc_id.0).collect())
    }

    fn pending(&self) -> Vec<(u64, String, String)> {
        self.replay()
            .iter()
            .map(|request| {
                (
                    request.rpc_id().0,
                    request.session_id().to_owned(),
                    request.asked().id().to_owned(),
                )
            })
            .collect()
    }
}

/// Negative control: a teardown that reports nothing and leaves every request pending.
struct TeardownKeepsPending(WireRegistry);

impl Registry for TeardownKeepsPending {
    fn register(&mut self, session: &str, asked: &ApprovalAsked) -> Obs {
        Registry::register(&mut self.0, session, asked)
    }
    fn respond(&mut self, bytes: &[u8]) -> Obs {
        Registry::respond(&mut self.0, bytes)
    }
    fn cancel(&mut self, rpc: u64) -> Obs {
        Registry::cancel(&mut self.0, rpc)
    }
    fn teardown(&mut self) -> Obs {
        Obs::TornDown(Vec::new())
    }
    fn pending(&self) -> Vec<(u64, String, String)> {
        Registry::pending(&self.0)
    }
}

impl Model {
    fn new() -> Model {
        Model {
            entries: BTreeMap::new(),
            next: 1,
        }
    }

    fn register(&mut self, session: &str, approval: &str) -> Obs {
        let existing = self
            .entries
            .iter()
            .find(|(_, (s, a, state))| s == session && a == approval && *state == State::Pending);
        if let Some((rpc, _)) = existing {
            return Obs::AlreadyPending(*rpc);
        }
        let rpc = self.next;
        self.next += 1;
        self.entries.insert(
            rpc,
            (session.to_owned(), approval.to_owned(), State::Pending),
        );
        Obs::Registered(rpc)
    }

    fn respond(&mut self, rpc: u64, session: &str, approval: &str, outcome: Outcome) -> Obs {
        let Some((s, a, state)) = self.entries.get_mut(&rpc) else {
            return Obs::Stale(rpc);
        };
        match state {
            State::Answered => Obs::Stale(rpc),
            State::Cancelled => Obs::Late(rpc),
            State::Pending if s != session => Obs::Foreign(rpc),
            State::Pending if a != approval => Obs::Mismatched(rpc),
            State::Pending => {
                *state = State::Answered;
                Obs::Settled(rpc, outcome)
            }
        }
    }

    fn cancel(&mut self, rpc: u64) -> Obs {
        match self.entries.get_mut(&rpc) {
            Some((_, _, state)) if *state == State::Pending => {
                *state = State::Cancelled;
                Obs::Cancelled(Some(rpc))
            }
            _ => Obs::Cancelled(None),
        }
    }

    fn teardown(&mut self) -> Obs {
        let mut torn = Vec::new();
        for (rpc, (_, _, state)) in &mut self.entries {
            if *state == State::Pending {
                *state = State::Cancelled;
                torn.push(*rpc);
            }
        }
        Obs::TornDown(torn)
    }

    fn pending(&self) -> Vec<(u64, String, String)> {
        self.entries
            .iter()
            .filter(|(_, (_, _, state))| *state == State::Pending)
            .map(|(rpc, (s, a, _))| (*rpc, s.clone(), a.clone()))
            .collect()
    }

    /// The rpc id, session and approval of an issued request chosen by `pick`, if any.
    fn issued(&self, pick: usize) -> Option<(u64, String, String)> {
        if self.entries.is_empty() {
            return None;
        }
        let (rpc, (s, a, _)) = self.entries.iter().nth(pick % self.entries.len())?;
        Some((*rpc, s.clone(), a.clone()))
    }
}

fn session(index: usize) -> String {
    format!("session-{}", index % SESSIONS)
}

fn approval(index: usize) -> String {
    format!("approval-{}", index % APPROVALS)
}

fn response(rpc: u64, session: &str, approval: &str, outcome: &str) -> Vec<u8> {
    format!(
        r#"{{"approval_id":"{approval}","outcome":"{outcome}","rpc_id":{rpc},"session_id":"{session}"}}"#
    )
    .into_bytes()
}

fn malformed(kind: usize, rpc: u64, session: &str, approval: &str) -> Vec<u8> {
    match kind % MALFORMED_KINDS {
        0 => response(rpc, session, approval, "cancelled"),
        1 => response(rpc, session, approval, "unavailable"),
        2 => response(rpc, session, approval, "allow"),
        3 => format!(r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":{rpc}}}"#)
            .into_bytes(),
        4 => format!(
            r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":{rpc},"session_id":"{session}","tool":"Bash"}}"#
        )
        .into_bytes(),
        5 => format!(
            r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":{rpc}.5,"session_id":"{session}"}}"#
        )
        .into_bytes(),
        6 => format!(
            r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":-{rpc},"session_id":"{session}"}}"#
        )
        .into_bytes(),
        7 => format!(
            r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":{rpc},"rpc_id":{rpc},"session_id":"{session}"}}"#
        )
        .into_bytes(),
        8 => {
            let mut bytes = response(rpc, session, approval, "allowed-once");
            bytes.push(b'x');
            bytes
        }
        _ => format!(r#"[{rpc},"{session}","{approval}","allowed-once"]"#).into_bytes(),
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..SESSIONS, 0..APPROVALS)
            .prop_map(|(session, approval)| Op::Register { session, approval }),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(pick, allow)| Op::RespondValid { pick, allow }),
        2 => (any::<usize>(), 0..MALFORMED_KINDS).prop_map(|(pick, kind)| Op::RespondMalformed { pick, kind }),
        1 => any::<usize>().prop_map(|pick| Op::RespondForeign { pick }),
        1 => any::<usize>().prop_map(|pick| Op::RespondMismatched { pick }),
        1 => (0u64..3).prop_map(|offset| Op::RespondUnknown { offset }),
        2 => any::<usize>().prop_map(|pick| Op::Cancel { pick }),
        1 => Just(Op::Reconnect),
        1 => Just(Op::Teardown),
    ]
}

fn apply(registry: &mut dyn Registry, model: &mut Model, op: Op) -> (Obs, Obs) {
    match op {
        Op::Register {
            session: s,
            approval: a,
        } => {
            let (session, approval) = (session(s), approval(a));
            let asked = ApprovalAsked::new(&approval, "Bash", Some("call-1"), None).unwrap();
            (
                registry.register(&session, &asked),
                model.register(&session, &approval),
            )
        }
        Op::RespondValid { pick, allow } => {
            let (rpc, session, approval) =
                model.issued(pick).unwrap_or((1, session(0), approval(0)));
            let (name, outcome) = if allow {
                ("allowed-once", Outcome::AllowedOnce)
            } else {
                ("rejected", Outcome::Rejected)
            };
            (
                registry.respond(&response(rpc, &session, &approval, name)),
                model.respond(rpc, &session, &approval, outcome),
            )
        }
        Op::RespondMalformed { pick, kind } => {
            let (rpc, session, approval) =
                model.issued(pick).unwrap_or((1, session(0), approval(0)));
            (
                registry.respond(&malformed(kind, rpc, &session, &approval)),
                Obs::Malformed,
            )
        }
        Op::RespondForeign { pick } => {
            let (rpc, s, approval) = model.issued(pick).unwrap_or((1, session(0), approval(0)));
            let index: usize = s.trim_start_matches("session-").parse().unwrap();
            let other = session(index + 1);
            (
                registry.respond(&response(rpc, &other, &approval, "allowed-once")),
                model.respond(rpc, &other, &approval, Outcome::AllowedOnce),
            )
        }
        Op::RespondMismatched { pick } => {
            let (rpc, session, a) = model.issued(pick).unwrap_or((1, session(0), approval(0)));
            let index: usize = a.trim_start_matches("approval-").parse().unwrap();
            let other = approval(index + 1);
            (
                registry.respond(&response(rpc, &session, &other, "rejected")),
                model.respond(rpc, &session, &other, Outcome::Rejected),
            )
        }
        Op::RespondUnknown { offset } => {
            let rpc = model.next + offset;
            let (session, approval) = (session(0), approval(0));
            (
                registry.respond(&response(rpc, &session, &approval, "allowed-once")),
                model.respond(rpc, &session, &approval, Outcome::AllowedOnce),
            )
        }
        Op::Cancel { pick } => {
            let rpc = model.issued(pick).map_or(1, |(rpc, _, _)| rpc);
            (registry.cancel(rpc), model.cancel(rpc))
        }
        Op::Reconnect => (
            Obs::Replay(registry.pending()),
            Obs::Replay(model.pending()),
        ),
        Op::Teardown => (registry.teardown(), model.teardown()),
    }
}

fn agrees_with_model(make: fn() -> Box<dyn Registry>, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut registry = make();
    let mut model = Model::new();
    for (step, &op) in ops.iter().enumerate() {
        let (real, expected) = apply(registry.as_mut(), &mut model, op);
        prop_assert_eq!(real, expected, "step {} ({:?})", step, op);
        prop_assert_eq!(
            registry.pending(),
            model.pending(),
            "step {} ({:?})",
            step,
            op
        );
    }
    Ok(())
}

fn real_registry() -> Box<dyn Registry> {
    Box::new(WireRegistry::default())
}

fn teardown_keeps_pending() -> Box<dyn Registry> {
    Box::new(TeardownKeepsPending(WireRegistry::default()))
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(op(), 0..60)
}

fn counterexample(make: fn() -> Box<dyn Registry>) -> Option<Vec<Op>> {
    let mut runner = seal_test_support::seeded(512);
    seal_test_support::counterexample(runner.run(&ops(), |ops| agrees_with_model(make, &ops)))
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn registry_agrees_with_the_map_model(ops in ops()) {
        agrees_with_model(real_registry, &ops)?;
    }
}

#[test]
fn registry_agrees_with_the_map_model_under_the_fixed_seed() {
    assert!(counterexample(real_registry).is_none());
}

#[test]
fn negative_control_teardown_that_keeps_requests_pending_is_caught() {
    let found = counterexample(teardown_keeps_pending)
        .expect("the model test must catch a teardown that keeps requests pending");
    assert!(
        found.iter().any(|op| matches!(op, Op::Teardown)),
        "{found:?}"
    );
}

/// Every kind of response the model distinguishes occurs in the fixed-seed corpus, so the
/// comparison exercises each rule.
#[test]
fn the_operations_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = ops();
    let mut seen = [false; 10];
    for _ in 0..256 {
        let ops = strategy.new_tree(&mut runner).unwrap().current();
        let mut registry = WireRegistry::default();
        let mut model = Model::new();
        for op in ops {
            let (real, _) = apply(&mut registry, &mut model, op);
            let slot = match real {
                Obs::Registered(_) => 0,
                Obs::AlreadyPending(_) => 1,
                Obs::Settled(..) => 2,
                Obs::Malformed => 3,
                Obs::Foreign(_) => 4,
                Obs::Mismatched(_) => 5,
                Obs::Stale(_) => 6,
                Obs::Late(_) => 7,
                Obs::Cancelled(Some(_)) => 8,
                Obs::TornDown(torn) if !torn.is_empty() => 9,
                _ => continue,
            };
            seen[slot] = true;
        }
    }
    assert_eq!(seen, [true; 10]);
}
