//! The replay store contract (spec/frame-v1.md section 9.1), model-based: the real
//! `MemoryReplayStore` and a `BTreeMap` model get the same random claims, purges and clock
//! steps, and must agree on every answer and on the live claims after every step. Negative
//! controls: a store that forgets a claim one second early, one that ignores the scope, and one
//! that extends a claim's life on a replay are each caught. Then the atomicity half: threads
//! released together claiming the same ids get exactly one fresh answer per id (negative
//! control: a store that checks and records in two steps lets every thread through).

use std::collections::BTreeMap;
use std::sync::{Arc, Barrier, Mutex};

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_verify::{
    Claim, ClaimError, ClaimOutcome, ClaimScope, MemoryReplayStore, ReplayStore, UnixTime,
};

#[derive(Debug, Clone)]
enum Op {
    Claim {
        scope: u8,
        name: u8,
        id: u8,
        ttl: u64,
    },
    Advance(u64),
    Purge,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..3, 0u8..2, 0u8..4, 0u64..6).prop_map(|(scope, name, id, ttl)| Op::Claim {
            scope,
            name,
            id,
            ttl
        }),
        2 => (0u64..4).prop_map(Op::Advance),
        1 => Just(Op::Purge),
    ]
}

const NAMES: [&str; 2] = ["conv-a", "k1"];
const IDS: [&str; 4] = ["m1", "m2", "m1 ", "M1"];

fn scope(kind: u8, name: u8) -> ClaimScope<'static> {
    let name = NAMES[usize::from(name)];
    match kind {
        0 => ClaimScope::Conversation(name),
        1 => ClaimScope::Key(name),
        _ => ClaimScope::Approval(name),
    }
}

type Key = (&'static str, String, String);

/// The contract as a map: a claim is fresh unless a claim of the same key lives at its time.
#[derive(Default)]
struct Model {
    claims: BTreeMap<Key, UnixTime>,
}

impl Model {
    fn claim(&mut self, claim: &Claim<'_>) -> ClaimOutcome {
        let key = (
            claim.scope.kind(),
            claim.scope.name().to_owned(),
            claim.id.to_owned(),
        );
        match self.claims.get(&key) {
            Some(expires) if claim.now <= *expires => ClaimOutcome::Replayed,
            _ => {
                self.claims.insert(key, claim.expires_at);
                ClaimOutcome::Fresh
            }
        }
    }

    fn live(&self, now: UnixTime) -> Vec<(&'static str, String, String, UnixTime)> {
        self.claims
            .iter()
            .filter(|(_, expires)| now <= **expires)
            .map(|((kind, name, id), expires)| (*kind, name.clone(), id.clone(), *expires))
            .collect()
    }
}

/// What the property needs of a store besides the trait.
trait Inspect: ReplayStore {
    fn live(&self, now: UnixTime) -> Vec<(&'static str, String, String, UnixTime)>;
    fn purge(&self, now: UnixTime);
}

impl Inspect for MemoryReplayStore {
    fn live(&self, now: UnixTime) -> Vec<(&'static str, String, String, UnixTime)> {
        MemoryReplayStore::live(self, now)
    }
    fn purge(&self, now: UnixTime) {
        MemoryReplayStore::purge(self, now);
    }
}

/// Negative controls: the real store behind a broken front.
enum Broken {
    /// Records every claim one second shorter than asked.
    ForgetsEarly(MemoryReplayStore),
    /// Files every claim under one scope.
    IgnoresScope(MemoryReplayStore),
    /// On a replay, records the claim again with the new expiry.
    ExtendsOnReplay(Mutex<BTreeMap<Key, UnixTime>>),
}

impl ReplayStore for Broken {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        match self {
            Broken::ForgetsEarly(store) => store.claim(&Claim {
                expires_at: UnixTime(claim.expires_at.0.saturating_sub(1)),
                ..*claim
            }),
            Broken::IgnoresScope(store) => store.claim(&Claim {
                scope: ClaimScope::Conversation("one"),
                ..*claim
            }),
            Broken::ExtendsOnReplay(map) => {
                let mut map = map.lock().unwrap();
                let key = (
                    claim.scope.kind(),
                    claim.scope.name().to_owned(),
                    claim.id.to_owned(),
                );
                let outcome = match map.get(&key) {
                    Some(expires) if claim.now <= *expires => ClaimOutcome::Replayed,
                    _ => ClaimOutcome::Fresh,
                };
                map.insert(key, claim.expires_at);
                Ok(outcome)
            }
        }
    }
}

impl Inspect for Broken {
    fn live(&self, now: UnixTime) -> Vec<(&'static str, String, String, UnixTime)> {
        match self {
            // The broken stores are compared on their answers only.
            Broken::ForgetsEarly(store) | Broken::IgnoresScope(store) => store.live(now),
            Broken::ExtendsOnReplay(map) => map
                .lock()
                .unwrap()
                .iter()
                .filter(|(_, expires)| now <= **expires)
                .map(|((kind, name, id), expires)| (*kind, name.clone(), id.clone(), *expires))
                .collect(),
        }
    }
    fn purge(&self, _now: UnixTime) {}
}

/// Runs `ops` on `store` and the model; the first disagreement is an error. Live claims are
/// compared only for stores that keep the claims as asked (`compare_live`).
fn agree(store: &dyn Inspect, ops: &[Op], compare_live: bool) -> Result<(), TestCaseError> {
    let mut model = Model::default();
    let mut now = UnixTime(1_000);
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Claim {
                scope: kind,
                name,
                id,
                ttl,
            } => {
                let claim = Claim {
                    scope: scope(*kind, *name),
                    id: IDS[usize::from(*id)],
                    now,
                    expires_at: UnixTime(now.0 + ttl),
                };
                let real = store.claim(&claim).unwrap();
                let expected = model.claim(&claim);
                prop_assert_eq!(real, expected, "step {}: {:?}", step, claim);
            }
            Op::Advance(seconds) => now = UnixTime(now.0 + seconds),
            Op::Purge => store.purge(now),
        }
        if compare_live {
            prop_assert_eq!(store.live(now), model.live(now), "step {}", step);
        }
    }
    Ok(())
}

fn runner(cases: u32) -> TestRunner {
    seal_test_support::seeded_by(14, cases)
}

fn run(make: impl Fn() -> Box<dyn Inspect>, compare_live: bool) -> Result<(), String> {
    runner(512)
        .run(&prop::collection::vec(op(), 1..80), |ops| {
            agree(make().as_ref(), &ops, compare_live)
        })
        .map_err(|error| error.to_string())
}

#[test]
fn the_memory_store_agrees_with_the_model_after_every_step() {
    run(|| Box::new(MemoryReplayStore::new()), true).unwrap();
}

#[test]
fn a_full_store_refuses_and_an_expired_claim_frees_its_place() {
    let store = MemoryReplayStore::with_capacity(2);
    let claim = |id, now, expires_at| Claim {
        scope: ClaimScope::Conversation("c"),
        id,
        now: UnixTime(now),
        expires_at: UnixTime(expires_at),
    };
    assert_eq!(store.claim(&claim("a", 10, 20)), Ok(ClaimOutcome::Fresh));
    assert_eq!(store.claim(&claim("b", 10, 30)), Ok(ClaimOutcome::Fresh));
    assert_eq!(
        store.claim(&claim("c", 10, 30)),
        Err(ClaimError::Full { capacity: 2 })
    );
    // A full store still answers a replay.
    assert_eq!(store.claim(&claim("a", 20, 40)), Ok(ClaimOutcome::Replayed));
    // At 21 `a` has expired: purged by the claim, its place is free.
    assert_eq!(store.claim(&claim("c", 21, 30)), Ok(ClaimOutcome::Fresh));
    assert_eq!(store.len(), 2);
    assert_eq!(
        store.claim(&claim("a", 21, 40)),
        Err(ClaimError::Full { capacity: 2 })
    );
}

#[test]
fn negative_control_a_store_that_forgets_a_second_early_is_caught() {
    assert!(run(
        || Box::new(Broken::ForgetsEarly(MemoryReplayStore::new())),
        false
    )
    .is_err());
}

#[test]
fn negative_control_a_store_that_ignores_the_scope_is_caught() {
    assert!(run(
        || Box::new(Broken::IgnoresScope(MemoryReplayStore::new())),
        false
    )
    .is_err());
}

#[test]
fn negative_control_a_store_that_extends_a_claim_on_replay_is_caught() {
    assert!(run(
        || Box::new(Broken::ExtendsOnReplay(Mutex::default())),
        false
    )
    .is_err());
}

const THREADS: usize = 8;
const RACED_IDS: usize = 200;

/// `THREADS` threads released together each claim the same `RACED_IDS` ids; the number of
/// fresh answers per id.
fn race(store: Arc<dyn ReplayStore + Send + Sync>) -> Vec<usize> {
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let store = Arc::clone(&store);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                (0..RACED_IDS)
                    .map(|n| {
                        let id = format!("m{n}");
                        let claim = Claim {
                            scope: ClaimScope::Conversation("c"),
                            id: &id,
                            now: UnixTime(10),
                            expires_at: UnixTime(100),
                        };
                        store.claim(&claim).unwrap() == ClaimOutcome::Fresh
                    })
                    .collect::<Vec<bool>>()
            })
        })
        .collect();
    let mut fresh = vec![0; RACED_IDS];
    for handle in handles {
        for (count, was_fresh) in fresh.iter_mut().zip(handle.join().unwrap()) {
            *count += usize::from(was_fresh);
        }
    }
    fresh
}

#[test]
fn threads_racing_on_one_id_get_exactly_one_fresh_claim() {
    let fresh = race(Arc::new(MemoryReplayStore::new()));
    assert_eq!(fresh, vec![1; RACED_IDS]);
}

/// Negative control: check, wait for every thread to have checked, then record.
struct CheckThenRecord {
    claimed: Mutex<BTreeMap<String, UnixTime>>,
    checked: Barrier,
}

impl ReplayStore for CheckThenRecord {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        let seen = self.claimed.lock().unwrap().contains_key(claim.id);
        self.checked.wait();
        if seen {
            return Ok(ClaimOutcome::Replayed);
        }
        self.claimed
            .lock()
            .unwrap()
            .insert(claim.id.to_owned(), claim.expires_at);
        Ok(ClaimOutcome::Fresh)
    }
}

#[test]
fn negative_control_a_store_that_checks_then_records_lets_racers_through() {
    let fresh = race(Arc::new(CheckThenRecord {
        claimed: Mutex::default(),
        checked: Barrier::new(THREADS),
    }));
    assert!(fresh.iter().all(|count| *count == THREADS), "{fresh:?}");
}
