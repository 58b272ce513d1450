//! Model-based test of the approval book: the real book and a plain `BTreeMap` model receive
//! the same random interleavings (register, re-register, valid / foreign / malformed / stale /
//! late / duplicate responses, machine answers, panel reconnects, server restarts rebuilt from
//! the book's export, time passing and ticks, consumption with the right and a wrong digest,
//! host cancellation, unavailability, shutdown) and must agree after every step. On top of the
//! comparison the run checks the invariants directly: at most one terminal state per approval,
//! an allow consumed at most once and only for its digest, replays carrying the rpc ids first
//! issued, every refused response named and leaving the book unchanged. A book whose settle
//! does not check that the entry is still pending is the negative control.

use std::collections::BTreeMap;

use proptest::prelude::*;
use seal_policy::approval::{
    ApprovalBook, BookLimits, CancelCause, ConsumeRefusal, Downlink, EntryError, EntryRegistration,
    EntryStatus, MachineResponse, Outcome, Receipt, Registered, Resolution, RpcId, SettleCause,
    ALLOW_ONCE_OPTION, REJECT_ONCE_OPTION,
};
use seal_record::{ApprovalAsked, Sha256Digest};

const SESSIONS: usize = 2;
const APPROVALS: usize = 4;
const AGENTS: usize = 2;
const MALFORMED_KINDS: usize = 5;
const START_MS: u64 = 1_000;

#[derive(Debug, Clone, Copy)]
enum Op {
    Register {
        session: usize,
        approval: usize,
        agent: usize,
        digest: u8,
        ttl: u64,
    },
    ReRegister {
        pick: usize,
    },
    RespondValid {
        pick: usize,
        allow: bool,
    },
    RespondForeign {
        pick: usize,
        wrong_session: bool,
    },
    RespondMalformed {
        pick: usize,
        kind: usize,
    },
    RespondStale {
        offset: u64,
    },
    Machine {
        pick: usize,
        agent: usize,
        option: usize,
    },
    Advance {
        ms: u64,
    },
    Tick,
    Reconnect,
    Restart,
    Consume {
        pick: usize,
        right: bool,
    },
    Cancel {
        pick: usize,
    },
    Unavailable {
        pick: usize,
    },
    Shutdown,
}

/// What one operation gave, in terms both sides can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Obs {
    Registered { rpc: u64, new: bool },
    Conflicting(u64),
    Accepted(u64, Outcome),
    Refused(&'static str),
    Resolved(Vec<(u64, Outcome)>),
    Consumed(u64),
    ConsumeRefused(&'static str),
    Replay(Vec<u64>),
    Nothing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Settled { outcome: Outcome, by_answer: bool },
}

#[derive(Debug, Clone)]
struct ModelEntry {
    session: usize,
    approval: usize,
    agent: usize,
    digest: u8,
    deadline: u64,
    state: State,
    consumed: bool,
}

#[derive(Debug)]
struct Model {
    entries: BTreeMap<u64, ModelEntry>,
    next: u64,
}

/// The book under test, and whether its settle skips the compare-and-set.
struct Subject {
    book: ApprovalBook,
    broken_cas: bool,
}

/// What the run has seen, for the direct invariants.
#[derive(Debug, Default)]
struct Seen {
    terminal: BTreeMap<u64, Outcome>,
    consumed: BTreeMap<u64, u8>,
    first_rpc: BTreeMap<(usize, usize), u64>,
}

impl Subject {
    /// A response through the real book; the broken variant, when the entry has settled
    /// already, settles it again instead of refusing (a settle without the pending check).
    fn respond(&mut self, input: &[u8], rpc: u64, outcome: Outcome, now: u64) -> Receipt {
        let receipt = self.book.respond(input, now);
        if !self.broken_cas {
            return receipt;
        }
        match (&receipt, self.book.entry(RpcId(rpc))) {
            (Receipt::Refused(_), Some(entry)) if entry.status != EntryStatus::Pending => {
                let resolution = Resolution {
                    rpc_id: entry.rpc_id,
                    session_id: entry.registration.session_id.clone(),
                    approval_id: entry.registration.asked.id().to_owned(),
                    outcome,
                    cause: SettleCause::Answered,
                };
                Receipt::Accepted(resolution)
            }
            _ => receipt,
        }
    }
}

impl Model {
    fn new() -> Model {
        Model {
            entries: BTreeMap::new(),
            next: 1,
        }
    }

    fn find(&self, session: usize, approval: usize) -> Option<u64> {
        self.entries
            .iter()
            .find(|(_, e)| e.session == session && e.approval == approval)
            .map(|(rpc, _)| *rpc)
    }

    fn register(
        &mut self,
        session: usize,
        approval: usize,
        agent: usize,
        digest: u8,
        deadline: u64,
    ) -> Obs {
        if let Some(rpc) = self.find(session, approval) {
            let kept = &self.entries[&rpc];
            return if kept.agent == agent && kept.digest == digest {
                Obs::Registered { rpc, new: false }
            } else {
                Obs::Conflicting(rpc)
            };
        }
        let rpc = self.next;
        self.next += 1;
        self.entries.insert(
            rpc,
            ModelEntry {
                session,
                approval,
                agent,
                digest,
                deadline,
                state: State::Pending,
                consumed: false,
            },
        );
        Obs::Registered { rpc, new: true }
    }

    /// Refusal by the rules after the rpc id and the ids matched.
    fn open(&self, rpc: u64, now: u64) -> Option<&'static str> {
        let entry = &self.entries[&rpc];
        match entry.state {
            State::Settled {
                by_answer: true, ..
            } => Some("duplicate"),
            State::Settled { .. } => Some("late"),
            State::Pending if entry.deadline <= now => Some("late"),
            State::Pending => None,
        }
    }

    fn respond(
        &mut self,
        rpc: u64,
        session: usize,
        approval: usize,
        outcome: Outcome,
        now: u64,
    ) -> Obs {
        let Some(entry) = self.entries.get(&rpc) else {
            return Obs::Refused("stale");
        };
        if entry.session != session || entry.approval != approval {
            return Obs::Refused("foreign");
        }
        self.answer(rpc, outcome, now)
    }

    fn machine(&mut self, rpc: u64, agent: usize, outcome: Outcome, now: u64) -> Obs {
        let Some(entry) = self.entries.get(&rpc) else {
            return Obs::Refused("stale");
        };
        if entry.agent != agent || !has_call_id(entry.approval) {
            return Obs::Refused("foreign");
        }
        self.answer(rpc, outcome, now)
    }

    fn answer(&mut self, rpc: u64, outcome: Outcome, now: u64) -> Obs {
        if let Some(name) = self.open(rpc, now) {
            return Obs::Refused(name);
        }
        self.settle(rpc, outcome, true);
        Obs::Accepted(rpc, outcome)
    }

    fn settle(&mut self, rpc: u64, outcome: Outcome, by_answer: bool) {
        if let Some(entry) = self.entries.get_mut(&rpc) {
            entry.state = State::Settled { outcome, by_answer };
        }
    }

    fn host(&mut self, rpcs: Vec<u64>, outcome: Outcome) -> Obs {
        for rpc in &rpcs {
            self.settle(*rpc, outcome, false);
        }
        Obs::Resolved(rpcs.into_iter().map(|rpc| (rpc, outcome)).collect())
    }

    fn pending(&self) -> Vec<u64> {
        self.entries
            .iter()
            .filter(|(_, e)| e.state == State::Pending)
            .map(|(rpc, _)| *rpc)
            .collect()
    }

    fn consume(&mut self, rpc: u64, digest: u8) -> Obs {
        let Some(entry) = self.entries.get_mut(&rpc) else {
            return Obs::ConsumeRefused("unknown");
        };
        match entry.state {
            State::Pending => Obs::ConsumeRefused("not-settled"),
            State::Settled { outcome, .. } if outcome != Outcome::AllowedOnce => {
                Obs::ConsumeRefused("not-allowed")
            }
            State::Settled { .. } if entry.consumed => Obs::ConsumeRefused("already-consumed"),
            State::Settled { .. } if entry.digest != digest => Obs::ConsumeRefused("other-digest"),
            State::Settled { .. } => {
                entry.consumed = true;
                Obs::Consumed(rpc)
            }
        }
    }

    fn issued(&self, pick: usize) -> Option<(u64, ModelEntry)> {
        if self.entries.is_empty() {
            return None;
        }
        self.entries
            .iter()
            .nth(pick % self.entries.len())
            .map(|(rpc, e)| (*rpc, e.clone()))
    }
}

fn has_call_id(approval: usize) -> bool {
    approval % 2 == 0
}

fn session(index: usize) -> String {
    format!("session-{index}")
}

fn approval(index: usize) -> String {
    format!("approval-{index}")
}

fn agent(index: usize) -> String {
    format!("agent-{index}")
}

fn digest(index: u8) -> Sha256Digest {
    Sha256Digest::of(&[index])
}

fn registration(
    s: usize,
    a: usize,
    g: usize,
    d: u8,
    deadline: u64,
) -> Result<EntryRegistration, TestCaseError> {
    let call_id = has_call_id(a).then(|| format!("call-{a}"));
    let asked = ApprovalAsked::new(&approval(a), "Bash", call_id.as_deref(), Some("runs tests"))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    Ok(EntryRegistration {
        session_id: session(s),
        agent: agent(g),
        asked,
        arguments_digest: digest(d),
        card: format!("card of {}", approval(a)),
        deadline_ms: deadline,
    })
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
        1 => response(rpc, session, approval, "allow-always"),
        2 => format!(r#"{{"approval_id":"{approval}","outcome":"allowed-once","rpc_id":{rpc}}}"#)
            .into_bytes(),
        3 => {
            let mut bytes = response(rpc, session, approval, "allowed-once");
            bytes.push(b'x');
            bytes
        }
        _ => response(0, session, approval, "allowed-once"),
    }
}

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::AllowedOnce => "allowed-once",
        Outcome::Rejected => "rejected",
        Outcome::Cancelled => "cancelled",
        Outcome::Unavailable => "unavailable",
    }
}

fn consume_name(refusal: ConsumeRefusal) -> &'static str {
    match refusal {
        ConsumeRefusal::Unknown { .. } => "unknown",
        ConsumeRefusal::NotSettled { .. } => "not-settled",
        ConsumeRefusal::NotAllowed { .. } => "not-allowed",
        ConsumeRefusal::AlreadyConsumed { .. } => "already-consumed",
        ConsumeRefusal::OtherDigest { .. } => "other-digest",
        _ => "other",
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..SESSIONS, 0..APPROVALS, 0..AGENTS, 0u8..2, 1u64..40).prop_map(
            |(session, approval, agent, digest, ttl)| Op::Register { session, approval, agent, digest, ttl }
        ),
        2 => any::<usize>().prop_map(|pick| Op::ReRegister { pick }),
        5 => (any::<usize>(), any::<bool>()).prop_map(|(pick, allow)| Op::RespondValid { pick, allow }),
        1 => (any::<usize>(), any::<bool>())
            .prop_map(|(pick, wrong_session)| Op::RespondForeign { pick, wrong_session }),
        1 => (any::<usize>(), 0..MALFORMED_KINDS).prop_map(|(pick, kind)| Op::RespondMalformed { pick, kind }),
        1 => (0u64..3).prop_map(|offset| Op::RespondStale { offset }),
        2 => (any::<usize>(), 0..AGENTS, 0usize..3)
            .prop_map(|(pick, agent, option)| Op::Machine { pick, agent, option }),
        2 => (0u64..25).prop_map(|ms| Op::Advance { ms }),
        1 => Just(Op::Tick),
        1 => Just(Op::Reconnect),
        1 => Just(Op::Restart),
        3 => (any::<usize>(), any::<bool>()).prop_map(|(pick, right)| Op::Consume { pick, right }),
        1 => any::<usize>().prop_map(|pick| Op::Cancel { pick }),
        1 => any::<usize>().prop_map(|pick| Op::Unavailable { pick }),
        1 => Just(Op::Shutdown),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    proptest::collection::vec(op(), 0..60)
}

fn receipt_obs(receipt: &Receipt) -> Obs {
    match receipt {
        Receipt::Accepted(resolution) => Obs::Accepted(resolution.rpc_id.0, resolution.outcome),
        Receipt::Refused(refusal) => Obs::Refused(refusal.name()),
    }
}

fn resolved_obs(resolutions: &[Resolution]) -> Obs {
    Obs::Resolved(
        resolutions
            .iter()
            .map(|resolution| (resolution.rpc_id.0, resolution.outcome))
            .collect(),
    )
}

/// Applies one operation to the subject and the model; returns (real, expected), after
/// checking the direct invariants on the real side.
fn apply(
    subject: &mut Subject,
    model: &mut Model,
    seen: &mut Seen,
    now: &mut u64,
    op: Op,
) -> Result<(Obs, Obs), TestCaseError> {
    let before = subject.book.export();
    let fallback = (1, 0usize, 0usize, 0usize, 0u8);
    let pick = |pick: usize| {
        model
            .issued(pick)
            .map(|(rpc, e)| (rpc, e.session, e.approval, e.agent, e.digest))
            .unwrap_or(fallback)
    };
    let pair = match op {
        Op::Register {
            session: s,
            approval: a,
            agent: g,
            digest: d,
            ttl,
        } => {
            let deadline = *now + ttl;
            let real = register(subject, registration(s, a, g, d, deadline)?, *now)?;
            if let Obs::Registered { rpc, .. } = real {
                let first = *seen.first_rpc.entry((s, a)).or_insert(rpc);
                prop_assert_eq!(first, rpc, "a re-registration got another rpc id");
            }
            (real, model.register(s, a, g, d, deadline))
        }
        Op::ReRegister { pick: p } => {
            let (_, s, a, g, d) = pick(p);
            let deadline = *now + 10;
            let real = register(subject, registration(s, a, g, d, deadline)?, *now)?;
            if let Obs::Registered { rpc, .. } = real {
                let first = *seen.first_rpc.entry((s, a)).or_insert(rpc);
                prop_assert_eq!(first, rpc, "a re-registration got another rpc id");
            }
            (real, model.register(s, a, g, d, deadline))
        }
        Op::RespondValid { pick: p, allow } => {
            let (rpc, s, a, _, _) = pick(p);
            let outcome = if allow {
                Outcome::AllowedOnce
            } else {
                Outcome::Rejected
            };
            let input = response(rpc, &session(s), &approval(a), outcome_name(outcome));
            let receipt = subject.respond(&input, rpc, outcome, *now);
            (
                receipt_obs(&receipt),
                model.respond(rpc, s, a, outcome, *now),
            )
        }
        Op::RespondForeign {
            pick: p,
            wrong_session,
        } => {
            let (rpc, s, a, _, _) = pick(p);
            let (s, a) = if wrong_session {
                (s + 1, a)
            } else {
                (s, a + 1)
            };
            let input = response(rpc, &session(s), &approval(a), "allowed-once");
            let receipt = subject.respond(&input, rpc, Outcome::AllowedOnce, *now);
            (
                receipt_obs(&receipt),
                model.respond(rpc, s, a, Outcome::AllowedOnce, *now),
            )
        }
        Op::RespondMalformed { pick: p, kind } => {
            let (rpc, s, a, _, _) = pick(p);
            let input = malformed(kind, rpc, &session(s), &approval(a));
            let receipt = subject.book.respond(&input, *now);
            (receipt_obs(&receipt), Obs::Refused("malformed"))
        }
        Op::RespondStale { offset } => {
            let rpc = model.next + offset;
            let input = response(rpc, &session(0), &approval(0), "allowed-once");
            let receipt = subject.respond(&input, rpc, Outcome::AllowedOnce, *now);
            (receipt_obs(&receipt), Obs::Refused("stale"))
        }
        Op::Machine {
            pick: p,
            agent: g,
            option,
        } => {
            let (rpc, _, _, _, _) = pick(p);
            let (selected, outcome) = match option {
                0 => (ALLOW_ONCE_OPTION, Outcome::AllowedOnce),
                1 => (REJECT_ONCE_OPTION, Outcome::Rejected),
                _ => ("allow-always", Outcome::Rejected),
            };
            let receipt = subject.book.respond_as_machine(
                &agent(g),
                RpcId(rpc),
                MachineResponse::Selected(selected),
                *now,
            );
            (receipt_obs(&receipt), model.machine(rpc, g, outcome, *now))
        }
        Op::Advance { ms } => {
            *now += ms;
            (Obs::Nothing, Obs::Nothing)
        }
        Op::Tick => {
            let due: Vec<u64> = model
                .entries
                .iter()
                .filter(|(_, e)| e.state == State::Pending && e.deadline <= *now)
                .map(|(rpc, _)| *rpc)
                .collect();
            let real = subject.book.tick(*now);
            prop_assert!(real.iter().all(|r| r.cause == SettleCause::Timeout));
            (resolved_obs(&real), model.host(due, Outcome::Unavailable))
        }
        Op::Reconnect => {
            let replay: Vec<u64> = subject
                .book
                .replay()
                .iter()
                .map(|event| match event {
                    Downlink::Requested(entry) => entry.rpc_id.0,
                    Downlink::Resolved(resolution) => resolution.rpc_id.0 + 1_000_000,
                })
                .collect();
            for event in subject.book.replay() {
                if let Downlink::Requested(entry) = event {
                    let key = (
                        index_of(&entry.registration.session_id),
                        index_of(entry.registration.asked.id()),
                    );
                    prop_assert_eq!(seen.first_rpc.get(&key), Some(&entry.rpc_id.0));
                }
            }
            (Obs::Replay(replay), Obs::Replay(model.pending()))
        }
        Op::Restart => {
            let snapshot = subject.book.export();
            subject.book = ApprovalBook::rebuild(BookLimits::default(), snapshot.clone())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(subject.book.export(), snapshot, "a rebuilt book differs");
            (Obs::Nothing, Obs::Nothing)
        }
        Op::Consume { pick: p, right } => {
            let (rpc, _, _, _, d) = pick(p);
            let given = if right { d } else { d + 1 };
            let real = match subject.book.consume(RpcId(rpc), &digest(given)) {
                Ok(consumed) => {
                    prop_assert_eq!(consumed.arguments_digest(), &digest(given));
                    prop_assert!(
                        seen.consumed.insert(rpc, given).is_none(),
                        "an allow was consumed twice"
                    );
                    prop_assert_eq!(seen.terminal.get(&rpc), Some(&Outcome::AllowedOnce));
                    Obs::Consumed(rpc)
                }
                Err(refusal) => Obs::ConsumeRefused(consume_name(refusal)),
            };
            (real, model.consume(rpc, given))
        }
        Op::Cancel { pick: p } => {
            let (rpc, _, _, _, _) = pick(p);
            let real: Vec<Resolution> = subject
                .book
                .cancel(RpcId(rpc), CancelCause::Aborted)
                .into_iter()
                .collect();
            let expected: Vec<u64> = model.pending().into_iter().filter(|r| *r == rpc).collect();
            (
                resolved_obs(&real),
                model.host(expected, Outcome::Cancelled),
            )
        }
        Op::Unavailable { pick: p } => {
            let (rpc, _, _, _, _) = pick(p);
            let real: Vec<Resolution> = subject
                .book
                .mark_unavailable(RpcId(rpc))
                .into_iter()
                .collect();
            let expected: Vec<u64> = model.pending().into_iter().filter(|r| *r == rpc).collect();
            (
                resolved_obs(&real),
                model.host(expected, Outcome::Unavailable),
            )
        }
        Op::Shutdown => {
            let real = subject.book.shutdown();
            let pending = model.pending();
            (resolved_obs(&real), model.host(pending, Outcome::Cancelled))
        }
    };
    check_invariants(subject, seen, &before, &pair.0)?;
    Ok(pair)
}

/// The invariants the run checks directly, whatever the model says.
fn check_invariants(
    subject: &Subject,
    seen: &mut Seen,
    before: &seal_policy::approval::BookSnapshot,
    real: &Obs,
) -> Result<(), TestCaseError> {
    let settled: Vec<(u64, Outcome)> = match real {
        Obs::Accepted(rpc, outcome) => vec![(*rpc, *outcome)],
        Obs::Resolved(list) => list.clone(),
        Obs::Refused(name) | Obs::ConsumeRefused(name) => {
            prop_assert!(!name.is_empty(), "a refusal without a name");
            prop_assert_eq!(&subject.book.export(), before, "a refusal changed the book");
            Vec::new()
        }
        Obs::Conflicting(_) => {
            prop_assert_eq!(
                &subject.book.export(),
                before,
                "a conflict changed the book"
            );
            Vec::new()
        }
        _ => Vec::new(),
    };
    for (rpc, outcome) in settled {
        if let Some(first) = seen.terminal.insert(rpc, outcome) {
            return Err(TestCaseError::fail(format!(
                "approval with rpc id {rpc} reached a second terminal state: {first} then {outcome}"
            )));
        }
    }
    Ok(())
}

fn index_of(id: &str) -> usize {
    id.rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

fn register(
    subject: &mut Subject,
    registration: EntryRegistration,
    now: u64,
) -> Result<Obs, TestCaseError> {
    match subject.book.register(registration, now) {
        Ok(Registered::New(entry)) => Ok(Obs::Registered {
            rpc: entry.rpc_id.0,
            new: true,
        }),
        Ok(Registered::Again(entry)) => Ok(Obs::Registered {
            rpc: entry.rpc_id.0,
            new: false,
        }),
        Err(EntryError::Conflicting { rpc_id }) => Ok(Obs::Conflicting(rpc_id.0)),
        Err(other) => Err(TestCaseError::fail(other.to_string())),
    }
}

fn agrees_with_model(broken_cas: bool, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut subject = Subject {
        book: ApprovalBook::default(),
        broken_cas,
    };
    let mut model = Model::new();
    let mut seen = Seen::default();
    let mut now = START_MS;
    for (step, op) in ops.iter().enumerate() {
        let (real, expected) = apply(&mut subject, &mut model, &mut seen, &mut now, *op)?;
        prop_assert_eq!(real, expected, "step {}: {:?}", step, op);
        let pending: Vec<u64> = subject.book.pending().map(|e| e.rpc_id.0).collect();
        prop_assert_eq!(
            pending,
            model.pending(),
            "step {}: pending sets differ",
            step
        );
    }
    Ok(())
}

fn counterexample(broken_cas: bool) -> Option<Vec<Op>> {
    let mut runner = seal_test_support::seeded(512);
    seal_test_support::counterexample(runner.run(&ops(), |ops| agrees_with_model(broken_cas, &ops)))
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(256))]

    #[test]
    fn book_agrees_with_the_map_model(ops in ops()) {
        agrees_with_model(false, &ops)?;
    }
}

#[test]
fn book_agrees_with_the_map_model_under_the_fixed_seed() {
    let found = counterexample(false);
    assert!(found.is_none(), "{found:?}");
}

#[test]
fn negative_control_settle_without_compare_and_set_is_caught() {
    let mut runner = seal_test_support::seeded(512);
    seal_test_support::assert_finds_counterexample(
        runner.run(&ops(), |ops| agrees_with_model(true, &ops)),
        "settle without compare-and-set",
    );
}

#[test]
fn refusals_are_named_on_the_wire() {
    let mut book = ApprovalBook::default();
    let Ok(reg) = registration(0, 0, 0, 0, 2_000) else {
        panic!("registration")
    };
    let rpc = book.register(reg.clone(), START_MS).map(|r| r.rpc_id());
    assert_eq!(rpc, Ok(RpcId(1)));
    let again = book.register(reg, START_MS + 5).map(|r| r.rpc_id());
    assert_eq!(again, Ok(RpcId(1)));
    let names: Vec<&str> = [
        book.respond(b"{}", START_MS),
        book.respond(
            &response(9, "session-0", "approval-0", "rejected"),
            START_MS,
        ),
        book.respond(
            &response(1, "session-1", "approval-0", "rejected"),
            START_MS,
        ),
        book.respond(&response(1, "session-0", "approval-0", "rejected"), 2_000),
    ]
    .iter()
    .map(|receipt| match receipt {
        Receipt::Refused(refusal) => refusal.name(),
        Receipt::Accepted(_) => "accepted",
    })
    .collect();
    assert_eq!(names, ["malformed", "stale", "foreign", "late"]);
    let accepted = book.respond(
        &response(1, "session-0", "approval-0", "allowed-once"),
        1_999,
    );
    assert!(matches!(accepted, Receipt::Accepted(_)));
    let duplicate = book.respond(&response(1, "session-0", "approval-0", "rejected"), 1_999);
    assert!(matches!(&duplicate, Receipt::Refused(r) if r.name() == "duplicate"));
    assert_eq!(
        book.consume(RpcId(1), &digest(1)),
        Err(ConsumeRefusal::OtherDigest { rpc_id: RpcId(1) })
    );
    assert!(book.consume(RpcId(1), &digest(0)).is_ok());
    assert_eq!(
        book.consume(RpcId(1), &digest(0)),
        Err(ConsumeRefusal::AlreadyConsumed { rpc_id: RpcId(1) })
    );
    assert_eq!(
        book.entry(RpcId(1)).map(|e| e.status.outcome()),
        Some(Some(Outcome::AllowedOnce))
    );
}

/// The fixed-seed corpus reaches every receipt, host outcome and consumption result the model
/// distinguishes, so the comparison exercises each rule.
#[test]
fn the_operations_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    let mut runner = seal_test_support::seeded(256);
    let mut reached = std::collections::BTreeSet::new();
    for _ in 0..256 {
        let Ok(tree) = ops().new_tree(&mut runner) else {
            panic!("the strategy generates")
        };
        let mut subject = Subject {
            book: ApprovalBook::default(),
            broken_cas: false,
        };
        let (mut model, mut seen, mut now) = (Model::new(), Seen::default(), START_MS);
        for op in tree.current() {
            let Ok((real, _)) = apply(&mut subject, &mut model, &mut seen, &mut now, op) else {
                panic!("the real book keeps the invariants")
            };
            reached.insert(match real {
                Obs::Registered { new: true, .. } => "registered".to_owned(),
                Obs::Registered { new: false, .. } => "registered-again".to_owned(),
                Obs::Conflicting(_) => "conflicting".to_owned(),
                Obs::Accepted(_, outcome) => format!("accepted-{outcome}"),
                Obs::Refused(name) => name.to_owned(),
                Obs::Resolved(list) if !list.is_empty() => "resolved".to_owned(),
                Obs::Consumed(_) => "consumed".to_owned(),
                Obs::ConsumeRefused(name) => format!("consume-{name}"),
                Obs::Replay(list) if !list.is_empty() => "replay".to_owned(),
                Obs::Resolved(_) | Obs::Replay(_) | Obs::Nothing => "nothing".to_owned(),
            });
        }
    }
    for name in [
        "registered",
        "registered-again",
        "conflicting",
        "accepted-allowed-once",
        "accepted-rejected",
        "malformed",
        "stale",
        "foreign",
        "late",
        "duplicate",
        "resolved",
        "consumed",
        "consume-other-digest",
        "consume-already-consumed",
        "consume-not-allowed",
        "replay",
    ] {
        assert!(reached.contains(name), "never reached {name}: {reached:?}");
    }
}

#[test]
fn rebuild_refuses_two_entries_for_one_approval_or_rpc_id() {
    let mut book = ApprovalBook::default();
    let Ok(reg) = registration(0, 0, 0, 0, 5_000) else {
        panic!("registration")
    };
    assert!(book.register(reg, START_MS).is_ok());
    let mut snapshot = book.export();
    let Some(first) = snapshot.entries.first().cloned() else {
        panic!("one entry")
    };
    let mut twin = first.clone();
    twin.rpc_id = RpcId(7);
    snapshot.entries.push(twin);
    assert_eq!(
        ApprovalBook::rebuild(BookLimits::default(), snapshot.clone()),
        Err(EntryError::Conflicting { rpc_id: RpcId(1) })
    );
    let mut same_rpc = first;
    same_rpc.registration.asked =
        ApprovalAsked::new("approval-9", "Bash", None, None).unwrap_or_else(|e| panic!("{e}"));
    snapshot.entries.truncate(1);
    snapshot.entries.push(same_rpc);
    assert!(matches!(
        ApprovalBook::rebuild(BookLimits::default(), snapshot),
        Err(EntryError::Wire(_))
    ));
    let rebuilt = ApprovalBook::rebuild(BookLimits::default(), book.export());
    let Ok(mut rebuilt) = rebuilt else {
        panic!("rebuilds")
    };
    let Ok(reg) = registration(1, 1, 0, 0, 5_000) else {
        panic!("registration")
    };
    assert_eq!(
        rebuilt.register(reg, START_MS).map(|r| r.rpc_id()),
        Ok(RpcId(2))
    );
}
