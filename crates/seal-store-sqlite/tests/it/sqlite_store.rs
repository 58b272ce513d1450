//! The SQLite replay store against the contract of spec/frame-v1.md section 9.1: the same
//! random claims and clock steps as a `BTreeMap` model, compared answer by answer and on the
//! live count after every step; connections racing on one file (as processes do) get one fresh
//! claim per id; imported seen-id files count in every scope and are imported once; and every
//! fault (a lock held past the timeout, a corrupt file, a file of another schema) fails closed
//! with an error naming the file.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use proptest::prelude::*;
use seal_store_sqlite::{SqliteReplayStore, StoreError, StoreOptions};
use seal_test_support::sqlite_lock::{hold_lock_if_asked, spawn_lock_holder};
use seal_verify::{Claim, ClaimError, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};

/// A fresh directory under the temporary directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(label: &str) -> Dir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "seal-sqlite-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        Dir(path)
    }

    fn file(&self) -> PathBuf {
        self.0.join("replay.sqlite3")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn open(path: &std::path::Path) -> SqliteReplayStore {
    SqliteReplayStore::open(path, &StoreOptions::default()).unwrap()
}

fn claim<'a>(scope: ClaimScope<'a>, id: &'a str, now: u64, expires_at: u64) -> Claim<'a> {
    Claim {
        scope,
        id,
        now: UnixTime(now),
        expires_at: UnixTime(expires_at),
    }
}

#[derive(Debug, Clone)]
enum Op {
    Claim { scope: u8, id: u8, ttl: u64 },
    Advance(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u8..3, 0u8..4, 0u64..6).prop_map(|(scope, id, ttl)| Op::Claim { scope, id, ttl }),
        2 => (0u64..4).prop_map(Op::Advance),
    ]
}

const IDS: [&str; 4] = ["m1", "m2", "M1", "m1 "];

fn scope(kind: u8) -> ClaimScope<'static> {
    match kind {
        0 => ClaimScope::Conversation("c"),
        1 => ClaimScope::Key("c"),
        _ => ClaimScope::Approval("c"),
    }
}

#[test]
fn the_sqlite_store_agrees_with_the_model_after_every_step() {
    let dir = Dir::new("model");
    let mut runner = seal_test_support::seeded_by(14, 48);
    let case = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&prop::collection::vec(op(), 1..60), |ops| {
            let n = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let store = open(&dir.0.join(format!("case-{n}.sqlite3")));
            let mut model: BTreeMap<(u8, &str), u64> = BTreeMap::new();
            let mut now = 1_000;
            for (step, op) in ops.iter().enumerate() {
                match op {
                    Op::Claim {
                        scope: kind,
                        id,
                        ttl,
                    } => {
                        let id = IDS[usize::from(*id)];
                        let real = store
                            .claim(&claim(scope(*kind), id, now, now + ttl))
                            .unwrap();
                        let expected = match model.get(&(*kind, id)) {
                            Some(expires) if now <= *expires => ClaimOutcome::Replayed,
                            _ => {
                                model.insert((*kind, id), now + ttl);
                                ClaimOutcome::Fresh
                            }
                        };
                        prop_assert_eq!(real, expected, "step {}", step);
                    }
                    Op::Advance(seconds) => now += seconds,
                }
                let live = model.values().filter(|expires| now <= **expires).count();
                prop_assert_eq!(
                    store.live_count(UnixTime(now)).unwrap(),
                    live as u64,
                    "step {}",
                    step
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn connections_racing_on_one_file_get_one_fresh_claim_per_id() {
    const RACERS: usize = 4;
    const IDS: usize = 200;
    let dir = Dir::new("race");
    let path = dir.file();
    let start = Arc::new(Barrier::new(RACERS));
    let handles: Vec<_> = (0..RACERS)
        .map(|_| {
            let path = path.clone();
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                // Each racer opens the new file itself, as separate processes do.
                start.wait();
                let store = open(&path);
                (0..IDS)
                    .map(|n| {
                        let id = format!("m{n}");
                        store
                            .claim(&claim(ClaimScope::Conversation("c"), &id, 10, 100))
                            .unwrap()
                            == ClaimOutcome::Fresh
                    })
                    .collect::<Vec<bool>>()
            })
        })
        .collect();
    let mut fresh = vec![0; IDS];
    for handle in handles {
        for (count, was_fresh) in fresh.iter_mut().zip(handle.join().unwrap()) {
            *count += usize::from(was_fresh);
        }
    }
    assert_eq!(fresh, vec![1; IDS]);
    assert_eq!(open(&path).live_count(UnixTime(10)).unwrap(), IDS as u64);
}

#[test]
fn expired_claims_are_purged_as_part_of_normal_work() {
    let dir = Dir::new("purge");
    let store = SqliteReplayStore::open(
        &dir.file(),
        &StoreOptions {
            purge_batch: 10,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    for n in 0..100 {
        let id = format!("old-{n}");
        store
            .claim(&claim(ClaimScope::Conversation("c"), &id, 10, 20))
            .unwrap();
    }
    assert_eq!(store.live_count(UnixTime(0)).unwrap(), 100);
    // After the window, each claim adds one row and removes up to 10 expired ones.
    for n in 0..12 {
        let id = format!("new-{n}");
        store
            .claim(&claim(ClaimScope::Conversation("c"), &id, 30, 40))
            .unwrap();
    }
    assert_eq!(
        store.live_count(UnixTime(0)).unwrap(),
        12,
        "only the new ids remain"
    );
    // An expired claim of the same id is fresh again (the frame would be stale anyway).
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("c"), "new-0", 41, 50))
            .unwrap(),
        ClaimOutcome::Fresh
    );
}

/// Opens the file `claims` times, one claim per opening (as hooks do: one process, one
/// claim), and returns the longest the write-ahead log got.
fn longest_log_over_short_lived_openings(dir: &Dir, wal_limit_bytes: u64, claims: usize) -> u64 {
    let mut log = dir.file().into_os_string();
    log.push("-wal");
    let options = StoreOptions {
        wal_limit_bytes,
        ..StoreOptions::default()
    };
    let mut longest = 0;
    for n in 0..claims {
        let store = SqliteReplayStore::open(&dir.file(), &options).unwrap();
        let id = format!("id-{n}");
        let answer = store
            .claim(&claim(ClaimScope::Conversation("c"), &id, 10, 1_000))
            .unwrap();
        assert_eq!(answer, ClaimOutcome::Fresh);
        drop(store);
        longest = longest.max(std::fs::metadata(&log).map_or(0, |meta| meta.len()));
    }
    let store = SqliteReplayStore::open(&dir.file(), &options).unwrap();
    assert_eq!(store.live_count(UnixTime(0)).unwrap(), claims as u64);
    longest
}

#[test]
fn the_log_stays_bounded_when_every_opening_claims_once() {
    const LIMIT: u64 = 64 * 1024;
    let dir = Dir::new("log-bound");
    let longest = longest_log_over_short_lived_openings(&dir, LIMIT, 300);
    // Past the limit by at most the one commit that crossed it (a few pages).
    assert!(
        longest <= LIMIT + 16 * 4_096,
        "the log reached {longest} bytes with a limit of {LIMIT}"
    );
    // Negative control: without the bound the same openings grow the log well past it
    // (SQLite's own checkpoints never restart a log that each opening recovers anew).
    let unbounded = Dir::new("log-unbounded");
    let longest = longest_log_over_short_lived_openings(&unbounded, u64::MAX, 300);
    assert!(
        longest > 4 * LIMIT,
        "the unbounded log reached only {longest} bytes: this test would not see a regression"
    );
}

#[test]
fn an_imported_seen_id_file_counts_in_every_scope_and_is_imported_once() {
    let dir = Dir::new("import");
    let store = open(&dir.file());
    let ids = ["old-1", "old-2"];
    assert_eq!(
        store
            .import_legacy("/old/seen.txt", ids, UnixTime(10), UnixTime(100))
            .unwrap(),
        2
    );
    assert!(store.imported("/old/seen.txt").unwrap());
    assert_eq!(
        store
            .import_legacy("/old/seen.txt", ["old-3"], UnixTime(10), UnixTime(100))
            .unwrap(),
        0
    );
    for scope in [
        ClaimScope::Conversation("a"),
        ClaimScope::Key("k"),
        ClaimScope::Approval("x"),
    ] {
        assert_eq!(
            store.claim(&claim(scope, "old-1", 50, 60)).unwrap(),
            ClaimOutcome::Replayed
        );
    }
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("a"), "old-3", 50, 60))
            .unwrap(),
        ClaimOutcome::Fresh
    );
    // After their expiry the imported ids no longer count.
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("a"), "old-2", 101, 200))
            .unwrap(),
        ClaimOutcome::Fresh
    );
}

#[test]
fn a_file_locked_past_the_busy_timeout_fails_closed() {
    let dir = Dir::new("locked");
    let path = dir.file();
    drop(open(&path));
    let holder = spawn_lock_holder("sqlite_store::lock_holder_helper", &path);
    let store = SqliteReplayStore::open(
        &path,
        &StoreOptions {
            busy_timeout: Duration::from_millis(100),
            ..StoreOptions::default()
        },
    )
    .unwrap();
    let error = store
        .claim(&claim(ClaimScope::Conversation("c"), "m1", 10, 20))
        .unwrap_err();
    let ClaimError::Unavailable { detail } = &error else {
        panic!("{error:?}");
    };
    assert!(detail.contains("replay.sqlite3"), "{detail}");
    assert!(
        detail.contains("locked") || detail.contains("busy"),
        "{detail}"
    );
    let mut holder = holder;
    holder.kill().unwrap();
    holder.wait().unwrap();
    // Released: the same claim is fresh, so nothing was recorded by the failed one.
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("c"), "m1", 10, 20))
            .unwrap(),
        ClaimOutcome::Fresh
    );
}

#[test]
#[ignore = "helper of a_file_locked_past_the_busy_timeout_fails_closed, run as a child process"]
fn lock_holder_helper() {
    hold_lock_if_asked(Duration::from_secs(3));
}

#[test]
fn a_corrupt_file_and_a_file_of_another_schema_are_refused() {
    let dir = Dir::new("corrupt");
    let path = dir.file();
    std::fs::write(&path, vec![0x5a; 8192]).unwrap();
    let error = SqliteReplayStore::open(&path, &StoreOptions::default()).unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("replay state `"), "{text}");
    assert!(text.contains("not a database"), "{text}");
    let other = dir.0.join("other.sqlite3");
    let store = open(&other);
    drop(store);
    set_user_version(&other, 7);
    assert!(matches!(
        SqliteReplayStore::open(&other, &StoreOptions::default()),
        Err(StoreError::Schema { found: 7, .. })
    ));
}

fn set_user_version(path: &std::path::Path, version: i64) {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection
        .execute_batch(&format!("PRAGMA user_version = {version};"))
        .unwrap();
}
