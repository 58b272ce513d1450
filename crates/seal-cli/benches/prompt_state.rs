//! The prompt hook's answer time with its replay state, as the client sees it: from spawning
//! the built `seal` binary to reading its answer, for `user-prompt-submit` on a prompt holding
//! one signed frame, with 0, 10,000 and 1,000,000 live ids in the SQLite state, next to the
//! same hook on a prompt without a frame (no claim) and `seal --version` (the process floor).
//!
//! Run with `cargo bench -p seal-cli --bench prompt_state`. Each row cycles through 400 frames
//! signed with distinct ids: the first pass claims them fresh, later passes are replays (the
//! same one-transaction claim, without the insert).
//!
//! The group `prompt_hook_redis` does the same with the Redis replay state of
//! `SEAL_TEST_REDIS` (for example `redis://127.0.0.1:6390/0`, a server of the bench's own: it
//! empties that database with `FLUSHDB` before each row, then fills it through pipelines with
//! 0, 10,000 and 1,000,000 live keys of another conversation). Without the variable the group
//! says it was skipped and measures nothing.
#![allow(missing_docs, clippy::unwrap_used, clippy::indexing_slicing)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};

const NOW: &str = "1780272000";
const FRAMES: usize = 400;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Spawns `seal args` with `stdin` and waits for its answer; panics unless it exits 0.
fn answer(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    output.stdout
}

fn prompt(text: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "session-1",
        "transcript_path": "/home/u/.claude/projects/p/session-1.jsonl",
        "cwd": "/home/u/project",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }))
    .unwrap()
}

fn signed(label: &str, n: usize) -> Vec<u8> {
    let keys = fixture("keys.json");
    let id = format!("id={label}-{n}");
    let frame = answer(
        &[
            "sign",
            "--keys",
            &keys,
            "--key-id",
            "test-frames",
            "--conversation",
            "session-1",
            "--attr",
            "source=telegram",
            "--attr",
            &id,
            "--now",
            NOW,
        ],
        b"deploy the docs when CI is green",
    );
    prompt(String::from_utf8(frame).unwrap().trim_end())
}

/// A state file holding `live` ids that stay live, written directly (one transaction).
fn state_with(dir: &Path, live: usize) -> String {
    let path = dir.join(format!("state-{live}.sqlite3"));
    let path_text = path.to_str().unwrap().to_owned();
    let store = seal_store_sqlite::SqliteReplayStore::open(
        &path,
        &seal_store_sqlite::StoreOptions::default(),
    )
    .unwrap();
    drop(store);
    let mut connection = rusqlite::Connection::open(&path).unwrap();
    let transaction = connection.transaction().unwrap();
    {
        let mut insert = transaction
            .prepare(
                "INSERT INTO claims (scope_kind, scope_name, id, expires_at) \
                 VALUES ('conversation', 'filler', ?1, 4000000000)",
            )
            .unwrap();
        for n in 0..live {
            insert.execute([format!("filler-{n:07}")]).unwrap();
        }
    }
    transaction.commit().unwrap();
    path_text
}

fn prompt_state(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("seal-bench-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let no_frame = prompt("a prompt with no frame");
    let mut group = c.benchmark_group("prompt_hook_state");
    group.sample_size(40);
    group.bench_function("seal_version_process_floor", |b| {
        b.iter(|| answer(&["--version"], b""))
    });
    for live in [0usize, 10_000, 1_000_000] {
        let state = state_with(&dir, live);
        let args = [
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--state",
            &state,
            "--now",
            NOW,
        ];
        let frames: Vec<Vec<u8>> = (0..FRAMES)
            .map(|n| signed(&format!("l{live}"), n))
            .collect();
        let first = String::from_utf8(answer(&args, &frames[0])).unwrap();
        assert!(first.contains("\"additionalContext\":\"\""), "{first}");
        let mut turn = frames.iter().cycle();
        group.bench_function(format!("one_frame_{live}_live_ids"), |b| {
            b.iter(|| answer(&args, turn.next().unwrap()))
        });
        group.bench_function(format!("no_frame_{live}_live_ids"), |b| {
            b.iter(|| answer(&args, &no_frame))
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Keys written per pipeline when filling the Redis database.
const FILL_BATCH: usize = 10_000;

/// Empties the database of `url`, then writes `live` keys of the conversation `filler` that
/// stay live for a day, `FILL_BATCH` per pipeline.
fn fill_redis(url: &str, live: usize) {
    let mut connection = redis::Client::open(url)
        .unwrap()
        .get_connection_with_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    redis::cmd("FLUSHDB").query::<()>(&mut connection).unwrap();
    let scope = seal::ClaimScope::Conversation("filler");
    let mut written = 0;
    while written < live {
        let mut pipeline = redis::pipe();
        for n in written..live.min(written + FILL_BATCH) {
            let key = seal_store_redis::claim_key(
                seal_store_redis::DEFAULT_KEY_PREFIX,
                &scope,
                &format!("filler-{n:07}"),
            );
            pipeline
                .cmd("SET")
                .arg(key)
                .arg(1)
                .arg("PX")
                .arg(86_400_000u64)
                .ignore();
        }
        pipeline.query::<()>(&mut connection).unwrap();
        written = live.min(written + FILL_BATCH);
    }
    let size: u64 = redis::cmd("DBSIZE").query(&mut connection).unwrap();
    assert_eq!(size, live as u64);
}

fn prompt_redis(c: &mut Criterion) {
    let Some(url) = std::env::var("SEAL_TEST_REDIS")
        .ok()
        .filter(|url| !url.is_empty())
    else {
        println!(
            "prompt_hook_redis: skipped (SEAL_TEST_REDIS is not set; start a server of the \
             bench's own with `redis-server --bind 127.0.0.1 --port 6390 --save '' --appendonly \
             no` and set SEAL_TEST_REDIS=redis://127.0.0.1:6390/0; the bench empties that \
             database)"
        );
        return;
    };
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let no_frame = prompt("a prompt with no frame");
    let mut group = c.benchmark_group("prompt_hook_redis");
    group.sample_size(40);
    group.bench_function("seal_version_process_floor", |b| {
        b.iter(|| answer(&["--version"], b""))
    });
    for live in [0usize, 10_000, 1_000_000] {
        fill_redis(&url, live);
        let args = [
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--state",
            &url,
            "--now",
            NOW,
        ];
        let frames: Vec<Vec<u8>> = (0..FRAMES)
            .map(|n| signed(&format!("r{live}"), n))
            .collect();
        let first = String::from_utf8(answer(&args, &frames[0])).unwrap();
        assert!(first.contains("\"additionalContext\":\"\""), "{first}");
        let mut turn = frames.iter().cycle();
        group.bench_function(format!("one_frame_{live}_live_ids"), |b| {
            b.iter(|| answer(&args, turn.next().unwrap()))
        });
        group.bench_function(format!("no_frame_{live}_live_ids"), |b| {
            b.iter(|| answer(&args, &no_frame))
        });
    }
    group.finish();
}

criterion_group!(benches, prompt_state, prompt_redis);
criterion_main!(benches);
