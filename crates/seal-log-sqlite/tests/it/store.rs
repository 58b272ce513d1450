use std::path::Path;

use seal_log_sqlite::{CheckpointSigner, EntryFilter, LogError, LogOptions, SqliteLog};
use seal_record::tlog::{leaf_hash, Checkpoint, Tree};
use seal_record::{LogEvent, LogEventType, LogRecord, Sha256Digest};

/// A stand-in signer: the "signature" is a digest of the body, enough for the store, which
/// never checks signatures (seal-verify does).
struct TestSigner(&'static str);

impl CheckpointSigner for TestSigner {
    fn origin(&self) -> &str {
        self.0
    }

    fn sign(&self, checkpoint: &Checkpoint) -> Result<String, String> {
        let body = checkpoint.to_text();
        Ok(format!(
            "{body}\n\u{2014} {} {}\n",
            self.0,
            Sha256Digest::of(body.as_bytes())
        ))
    }
}

const ORIGIN: &str = "seal.audit/test";

fn decision(session: &str, tool: &str, decision: &str) -> LogEvent {
    LogEvent::new(LogEventType::Decision)
        .text("agent", "claude-code")
        .and_then(|e| e.text("session", session))
        .and_then(|e| e.text("tool", tool))
        .and_then(|e| e.choice("decision", decision))
        .and_then(|e| e.text("by", "rule Bash(ls:*)"))
        .and_then(|e| e.digest("policy", Sha256Digest::of(b"policy")))
        .and_then(|e| e.digest("arguments", Sha256Digest::of(tool.as_bytes())))
        .unwrap()
}

fn create(path: &Path) -> SqliteLog {
    SqliteLog::create(
        path,
        &LogOptions::default(),
        "vkey",
        &TestSigner(ORIGIN),
        100,
    )
    .unwrap()
}

#[test]
fn each_append_commits_its_leaf_and_a_checkpoint_of_the_new_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    let mut log = create(&path);
    let mut tree = Tree::new();
    let mut first = Vec::new();
    log.for_each_entry(|entry| {
        first.push(entry);
        Ok::<(), ()>(())
    })
    .unwrap()
    .unwrap();
    let genesis = LogRecord::from_bytes(&first[0].record).unwrap();
    assert_eq!(genesis.event().kind(), LogEventType::Genesis);
    assert_eq!(genesis.event().text_of("origin"), Some(ORIGIN));
    tree.push(leaf_hash(&first[0].record));
    for i in 1..=40u64 {
        let appended = log
            .append(
                decision("s1", &format!("T{i}"), "allow"),
                100 + i,
                &TestSigner(ORIGIN),
            )
            .unwrap();
        assert_eq!(appended.seq, i);
        let stored = log.entry(i).unwrap().unwrap();
        assert_eq!(stored.leaf, appended.leaf.as_bytes().to_vec());
        tree.push(leaf_hash(&stored.record));
        let (size, note) = log.latest_checkpoint().unwrap().unwrap();
        assert_eq!(size, i + 1);
        assert_eq!(note, appended.note);
        let body = note.split("\n\n").next().unwrap().to_owned() + "\n";
        let checkpoint = Checkpoint::parse(&body).unwrap();
        assert_eq!(checkpoint.root(), &tree.root(i + 1).unwrap());
        assert_eq!(checkpoint.origin(), ORIGIN);
    }
    assert_eq!(log.size().unwrap(), 41);
    assert_eq!(
        log.checkpoint_sizes().unwrap(),
        (1..=41).collect::<Vec<_>>()
    );
    drop(log);
    // Reopened, the log goes on from the stored frontier.
    let mut log = SqliteLog::open(&path, &LogOptions::default()).unwrap();
    let appended = log
        .append(decision("s2", "Read", "deny"), 200, &TestSigner(ORIGIN))
        .unwrap();
    tree.push(appended.leaf);
    assert_eq!(appended.seq, 41);
    let body = appended.note.split("\n\n").next().unwrap().to_owned() + "\n";
    assert_eq!(
        Checkpoint::parse(&body).unwrap().root(),
        &tree.root(42).unwrap()
    );
}

#[test]
fn the_index_selects_by_session_tool_decision_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = create(&dir.path().join("audit.db"));
    let signer = TestSigner(ORIGIN);
    log.append(decision("s1", "Bash", "allow"), 1_000, &signer)
        .unwrap();
    log.append(decision("s1", "Read", "deny"), 2_000, &signer)
        .unwrap();
    log.append(decision("s2", "Bash", "deny"), 3_000, &signer)
        .unwrap();
    let seqs = |filter: EntryFilter| -> Vec<u64> {
        log.select(&filter).unwrap().iter().map(|e| e.seq).collect()
    };
    let mut filter = EntryFilter::default();
    assert_eq!(seqs(filter.clone()), vec![0, 1, 2, 3]);
    filter.decision = Some("deny".to_owned());
    assert_eq!(seqs(filter.clone()), vec![2, 3]);
    filter.session = Some("s1".to_owned());
    assert_eq!(seqs(filter.clone()), vec![2]);
    let mut filter = EntryFilter::default();
    filter.tool = Some("Bash".to_owned());
    filter.since = Some(2_500);
    assert_eq!(seqs(filter), vec![3]);
    let mut filter = EntryFilter::default();
    filter.limit = Some(2);
    assert_eq!(seqs(filter), vec![2, 3]);
    let mut filter = EntryFilter::default();
    filter.kind = Some("log/genesis".to_owned());
    assert_eq!(seqs(filter), vec![0]);
}

#[test]
fn an_append_interrupted_at_any_step_leaves_the_log_as_it_was() {
    for step in ["entry", "checkpoint", "frontier", "index", "commit"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.db");
        drop(create(&path));
        let result = std::panic::catch_unwind(|| {
            let mut log = SqliteLog::open(&path, &LogOptions::default())
                .unwrap()
                .with_steps(Box::new(move |at| {
                    if at == step {
                        panic!("interrupted at {at}");
                    }
                }));
            log.append(decision("s", "Bash", "allow"), 5, &TestSigner(ORIGIN))
        });
        assert!(result.is_err(), "{step}");
        let mut log = SqliteLog::open(&path, &LogOptions::default()).unwrap();
        assert_eq!(log.size().unwrap(), 1, "{step}");
        assert_eq!(log.checkpoint_sizes().unwrap(), vec![1], "{step}");
        let appended = log
            .append(decision("s", "Bash", "allow"), 6, &TestSigner(ORIGIN))
            .unwrap();
        assert_eq!(appended.seq, 1, "{step}");
    }
}

#[test]
fn concurrent_writers_get_consecutive_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    drop(create(&path));
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut log = SqliteLog::open(&path, &LogOptions::default()).unwrap();
                (0..50)
                    .map(|i| {
                        log.append(
                            decision(&format!("w{writer}"), &format!("T{i}"), "allow"),
                            7,
                            &TestSigner(ORIGIN),
                        )
                        .unwrap()
                        .seq
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut seqs: Vec<u64> = writers
        .into_iter()
        .flat_map(|writer| writer.join().unwrap())
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=400).collect::<Vec<_>>());
    let log = SqliteLog::open(&path, &LogOptions::default()).unwrap();
    let mut tree = Tree::new();
    log.for_each_entry(|entry| {
        assert_eq!(
            LogRecord::from_bytes(&entry.record).unwrap().seq(),
            entry.seq
        );
        tree.push(leaf_hash(&entry.record));
        Ok::<(), ()>(())
    })
    .unwrap()
    .unwrap();
    let (size, note) = log.latest_checkpoint().unwrap().unwrap();
    assert_eq!(size, 401);
    let body = note.split("\n\n").next().unwrap().to_owned() + "\n";
    assert_eq!(
        Checkpoint::parse(&body).unwrap().root(),
        &tree.root(401).unwrap()
    );
}

#[test]
fn opening_refuses_what_is_not_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let error = SqliteLog::open(&missing, &LogOptions::default()).unwrap_err();
    assert!(matches!(error, LogError::Sqlite { .. }), "{error}");
    let path = dir.path().join("audit.db");
    drop(create(&path));
    let again = SqliteLog::create(
        &path,
        &LogOptions::default(),
        "vkey",
        &TestSigner(ORIGIN),
        1,
    );
    assert_eq!(
        again.unwrap_err().to_string(),
        format!("log {}: already holds a log", path.display())
    );
    let mut log = SqliteLog::open(&path, &LogOptions::default()).unwrap();
    let other = log.append(
        decision("s", "Bash", "allow"),
        1,
        &TestSigner("seal.audit/other"),
    );
    assert_eq!(
        other.unwrap_err().to_string(),
        "the key signs for seal.audit/other, the log's origin is seal.audit/test"
    );
}

/// Every row of every table, in a fixed order, as text.
fn dump(path: &Path) -> Vec<String> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let mut rows = Vec::new();
    for (table, order) in [
        ("meta", "k"),
        ("entry", "idx"),
        ("checkpoint", "size"),
        ("frontier", "size"),
        ("ev", "idx"),
    ] {
        let mut statement = connection
            .prepare(&format!("SELECT * FROM {table} ORDER BY {order}"))
            .unwrap();
        let columns = statement.column_count();
        let mut query = statement.query([]).unwrap();
        while let Some(row) = query.next().unwrap() {
            let values: Vec<String> = (0..columns)
                .map(|column| format!("{:?}", row.get_ref(column).unwrap()))
                .collect();
            rows.push(format!("{table}: {}", values.join(" | ")));
        }
    }
    rows
}

#[test]
fn append_all_writes_what_separate_appends_write() {
    let events = |from: u64| {
        (from..from + 30).map(|i| {
            let event = if i % 7 == 3 {
                LogEvent::new(LogEventType::ManifestVerified)
                    .digest("manifest", Sha256Digest::of(&i.to_be_bytes()))
                    .and_then(|e| e.digest("payload", Sha256Digest::of(b"payload")))
                    .and_then(|e| e.text("provider", "provider"))
                    .and_then(|e| e.text("model", "model"))
                    .unwrap()
            } else {
                decision(&format!("s{}", i % 3), &format!("T{i}"), "allow")
            };
            (event, 1_000 + i)
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let (one_by_one, together) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let mut log = create(&one_by_one);
    for (event, time) in events(0).chain(events(30)) {
        log.append(event, time, &TestSigner(ORIGIN)).unwrap();
    }
    drop(log);
    let mut log = create(&together);
    assert_eq!(log.append_all(events(0), &TestSigner(ORIGIN)).unwrap(), 31);
    assert_eq!(log.append_all(events(30), &TestSigner(ORIGIN)).unwrap(), 61);
    drop(log);
    let (a, b) = (dump(&one_by_one), dump(&together));
    assert_eq!(a.len(), 2 + 61 + 61 + 1 + 61);
    assert_eq!(a, b);
    // And the log goes on from the frontier `append_all` left.
    let mut log = SqliteLog::open(&together, &LogOptions::default()).unwrap();
    let appended = log
        .append(decision("s", "Bash", "allow"), 9, &TestSigner(ORIGIN))
        .unwrap();
    assert_eq!(appended.seq, 61);
}

#[test]
fn append_all_refuses_another_origins_signer_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    let mut log = create(&path);
    let refused = log.append_all(
        [(decision("s", "Bash", "allow"), 5)],
        &TestSigner("seal.audit/other"),
    );
    assert!(matches!(refused, Err(LogError::OtherOrigin { .. })));
    assert_eq!(log.size().unwrap(), 1);
}

#[test]
fn the_write_ahead_log_stays_bounded_across_appends() {
    let limit = seal_log_sqlite::DEFAULT_WAL_LIMIT_BYTES;
    let largest = largest_wal(LogOptions::default());
    // At most the bound plus the pages of the one append that crossed it.
    assert!(
        largest <= limit + 64 * 1024,
        "write-ahead log reached {largest} bytes"
    );
    assert!(largest > 0);
    // The twin: with no bound, the same appends grow it past that.
    let mut unbounded = LogOptions::default();
    unbounded.wal_limit_bytes = u64::MAX;
    assert!(largest_wal(unbounded) > limit + 64 * 1024);
}

/// The largest the write-ahead log grows over 120 appends, each by a new connection (as each
/// hook process opens the log anew).
fn largest_wal(options: LogOptions) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    drop(create(&path));
    let wal = dir.path().join("audit.db-wal");
    let mut largest = 0;
    for i in 0..120u64 {
        let mut log = SqliteLog::open(&path, &options).unwrap();
        log.append(
            decision("s", &format!("T{i}"), "allow"),
            i,
            &TestSigner(ORIGIN),
        )
        .unwrap();
        drop(log);
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |meta| meta.len()));
    }
    let log = SqliteLog::open(&path, &options).unwrap();
    assert_eq!(log.size().unwrap(), 121);
    largest
}
