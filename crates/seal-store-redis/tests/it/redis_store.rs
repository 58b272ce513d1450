//! The Redis store against a real `redis-server` (spec/frame-v1.md section 9.4), found through
//! `SEAL_TEST_REDIS` (for example `redis://127.0.0.1:6390/0`); every test fails, saying how to
//! start one, when the variable is unset or the server does not answer. Each test uses a key
//! prefix of its own, so tests and runs never see each other's claims. The faults (nothing
//! listening, a server that never answers or answers nonsense, a server stopped mid-run) use
//! servers of their own.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use seal_store_redis::{
    claim_key, RedisOptions, RedisReplayStore, RedisStoreError, DEFAULT_KEY_PREFIX,
};
use seal_test_support::redis_server::{free_port, server, PrivateServer};
use seal_verify::{Claim, ClaimError, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};

const NOW: UnixTime = UnixTime(1_800_000_000);

/// Options with a key prefix no other test or run uses.
fn options(label: &str) -> RedisOptions {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or(0);
    RedisOptions {
        key_prefix: format!(
            "seal-test:{label}:{}:{nanos}:{}:",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ),
        ..RedisOptions::default()
    }
}

fn store(label: &str) -> RedisReplayStore {
    RedisReplayStore::open(&server(), &options(label)).unwrap()
}

fn claim<'a>(scope: ClaimScope<'a>, id: &'a str) -> Claim<'a> {
    Claim {
        scope,
        id,
        now: NOW,
        expires_at: UnixTime(NOW.seconds() + 900),
    }
}

fn raw(url: &str) -> redis::Connection {
    redis::Client::open(url)
        .unwrap()
        .get_connection_with_timeout(Duration::from_secs(2))
        .unwrap()
}

#[test]
fn a_first_claim_is_fresh_and_a_second_is_replayed() {
    let store = store("fresh");
    let first = claim(ClaimScope::Conversation("conv-1"), "m1");
    assert_eq!(store.claim(&first).unwrap(), ClaimOutcome::Fresh);
    assert_eq!(store.claim(&first).unwrap(), ClaimOutcome::Replayed);
    // A store opened later (another lane) sees the claim too.
    let again = RedisReplayStore::open(&server(), store.options()).unwrap();
    assert_eq!(again.claim(&first).unwrap(), ClaimOutcome::Replayed);
    let other = claim(ClaimScope::Conversation("conv-1"), "m2");
    assert_eq!(again.claim(&other).unwrap(), ClaimOutcome::Fresh);
}

#[test]
fn the_key_lives_until_the_end_of_the_window_and_a_replay_does_not_extend_it() {
    let url = server();
    let store = RedisReplayStore::open(&url, &options("expiry")).unwrap();
    let first = claim(ClaimScope::Key("ed-1"), "m1");
    assert_eq!(store.claim(&first).unwrap(), ClaimOutcome::Fresh);
    let key = store.key(&first.scope, first.id);
    let mut connection = raw(&url);
    let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut connection).unwrap();
    // 900 s of window plus the claim's last second, minus the time since the claim.
    assert!((899_000..=901_000).contains(&ttl), "PTTL {ttl}");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(store.claim(&first).unwrap(), ClaimOutcome::Replayed);
    let after: i64 = redis::cmd("PTTL").arg(&key).query(&mut connection).unwrap();
    assert!(
        after < ttl,
        "a replay extended the claim: {ttl} then {after}"
    );
    let value: String = redis::cmd("GET").arg(&key).query(&mut connection).unwrap();
    assert_eq!(value, "1");
}

#[test]
fn an_expired_claim_is_forgotten_and_the_id_is_fresh_again() {
    let url = server();
    let store = RedisReplayStore::open(&url, &options("short")).unwrap();
    // A claim whose last second is its first: the key lives 1000 ms.
    let short = Claim {
        scope: ClaimScope::Conversation("conv-1"),
        id: "m1",
        now: NOW,
        expires_at: NOW,
    };
    assert_eq!(store.claim(&short).unwrap(), ClaimOutcome::Fresh);
    let mut connection = raw(&url);
    let ttl: i64 = redis::cmd("PTTL")
        .arg(store.key(&short.scope, short.id))
        .query(&mut connection)
        .unwrap();
    assert!((1..=1000).contains(&ttl), "PTTL {ttl}");
    assert_eq!(store.claim(&short).unwrap(), ClaimOutcome::Replayed);
    std::thread::sleep(Duration::from_millis(1200));
    let later = Claim {
        now: UnixTime(NOW.seconds() + 2),
        expires_at: UnixTime(NOW.seconds() + 2),
        ..short
    };
    assert_eq!(store.claim(&later).unwrap(), ClaimOutcome::Fresh);
    assert_eq!(store.claim(&later).unwrap(), ClaimOutcome::Replayed);
}

#[test]
fn scopes_are_separate() {
    let store = store("scopes");
    let scopes = [
        ClaimScope::Conversation("a"),
        ClaimScope::Key("a"),
        ClaimScope::Approval("a"),
        ClaimScope::Conversation("b"),
        ClaimScope::Conversation("A"),
        ClaimScope::Conversation("a "),
    ];
    for scope in scopes {
        assert_eq!(
            store.claim(&claim(scope, "m1")).unwrap(),
            ClaimOutcome::Fresh,
            "{scope:?}"
        );
    }
    for scope in scopes {
        assert_eq!(
            store.claim(&claim(scope, "m1")).unwrap(),
            ClaimOutcome::Replayed,
            "{scope:?}"
        );
    }
}

/// A scope name and an id.
type Parts = (&'static str, &'static str);

/// Pairs of `(scope name, id)` that plain concatenation (with or without a `:` between) would
/// give one key.
const COLLIDING: [(Parts, Parts); 4] = [
    (("a:1", "b"), ("a", "1:b")),
    (("ab", "c"), ("a", "bc")),
    (("x:1:y", "z"), ("x", "1:y:z")),
    (("", "a:b"), ("a:", "b")),
];

fn naive_key(kind: &str, name: &str, id: &str) -> String {
    format!("{DEFAULT_KEY_PREFIX}{kind}:{name}:{id}")
}

#[test]
fn the_colliding_pairs_do_collide_under_plain_concatenation() {
    // The negative control of the next test: each pair gives one naive key.
    for ((name_a, id_a), (name_b, id_b)) in COLLIDING {
        let (first, second) = (
            naive_key("conversation", name_a, id_a),
            naive_key("conversation", name_b, id_b),
        );
        let (glued_a, glued_b) = (format!("{name_a}{id_a}"), format!("{name_b}{id_b}"));
        assert!(first == second || glued_a == glued_b, "{first} {second}");
    }
}

#[test]
fn ids_and_scopes_that_collide_under_concatenation_get_distinct_keys() {
    let store = store("injective");
    for ((name_a, id_a), (name_b, id_b)) in COLLIDING {
        let a = claim(ClaimScope::Conversation(name_a), id_a);
        let b = claim(ClaimScope::Conversation(name_b), id_b);
        assert_ne!(store.key(&a.scope, a.id), store.key(&b.scope, b.id));
        assert_eq!(store.claim(&a).unwrap(), ClaimOutcome::Fresh, "{a:?}");
        assert_eq!(store.claim(&b).unwrap(), ClaimOutcome::Fresh, "{b:?}");
        assert_eq!(store.claim(&a).unwrap(), ClaimOutcome::Replayed, "{a:?}");
        assert_eq!(store.claim(&b).unwrap(), ClaimOutcome::Replayed, "{b:?}");
    }
}

/// Reads a key back into (kind, name, id): the decoder whose existence makes the encoding
/// injective.
fn decode(prefix: &str, key: &[u8]) -> Option<(String, Vec<u8>, Vec<u8>)> {
    let rest = key.strip_prefix(prefix.as_bytes())?;
    let colon = rest.iter().position(|byte| *byte == b':')?;
    let kind = String::from_utf8(rest[..colon].to_vec()).ok()?;
    let (name, rest) = length_prefixed(&rest[colon + 1..])?;
    let rest = rest.strip_prefix(b":")?;
    let (id, rest) = length_prefixed(rest)?;
    rest.is_empty().then_some((kind, name, id))
}

fn length_prefixed(bytes: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let colon = bytes.iter().position(|byte| *byte == b':')?;
    let len: usize = std::str::from_utf8(&bytes[..colon]).ok()?.parse().ok()?;
    let body = bytes.get(colon + 1..colon + 1 + len)?;
    Some((body.to_vec(), &bytes[colon + 1 + len..]))
}

fn scope_of(kind: u8, name: &str) -> ClaimScope<'_> {
    match kind % 3 {
        0 => ClaimScope::Conversation(name),
        1 => ClaimScope::Key(name),
        _ => ClaimScope::Approval(name),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn every_key_decodes_to_its_parts(
        kind in 0u8..3,
        name in "[a:1\\\\*?\\[\\] \u{0}\u{e9}]{0,12}",
        id in "[a:1 \u{7f}]{0,12}",
    ) {
        let scope = scope_of(kind, &name);
        let key = claim_key(DEFAULT_KEY_PREFIX, &scope, &id);
        let decoded = decode(DEFAULT_KEY_PREFIX, &key);
        prop_assert_eq!(
            decoded,
            Some((scope.kind().to_owned(), name.as_bytes().to_vec(), id.as_bytes().to_vec()))
        );
    }

    #[test]
    fn different_claims_get_different_keys(
        a in (0u8..3, "[a:1]{0,6}", "[a:1]{0,6}"),
        b in (0u8..3, "[a:1]{0,6}", "[a:1]{0,6}"),
    ) {
        let key_a = claim_key(DEFAULT_KEY_PREFIX, &scope_of(a.0, &a.1), &a.2);
        let key_b = claim_key(DEFAULT_KEY_PREFIX, &scope_of(b.0, &b.1), &b.2);
        prop_assert_eq!(key_a == key_b, (a.0, &a.1, &a.2) == (b.0, &b.1, &b.2));
    }
}

/// Lanes racing in [`race`].
const LANES: usize = 8;

/// Ids every lane claims in [`race`], in the same order.
const IDS: usize = 200;

/// Releases `LANES` threads at once, each claiming the same `IDS` ids in order through a store
/// of its own from `open`; returns how many lanes found each id fresh.
fn race<S: ReplayStore>(open: impl Fn() -> S + Send + Sync + 'static) -> Vec<usize> {
    let open = Arc::new(open);
    let start = Arc::new(Barrier::new(LANES));
    let lanes: Vec<_> = (0..LANES)
        .map(|_| {
            let (open, start) = (Arc::clone(&open), Arc::clone(&start));
            std::thread::spawn(move || {
                let store = open();
                start.wait();
                (0..IDS)
                    .map(|n| {
                        let id = format!("race-{n}");
                        store
                            .claim(&claim(ClaimScope::Conversation("c"), &id))
                            .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut fresh = vec![0usize; IDS];
    for lane in lanes {
        for (n, outcome) in lane.join().unwrap().into_iter().enumerate() {
            if outcome == ClaimOutcome::Fresh {
                fresh[n] += 1;
            }
        }
    }
    fresh
}

#[test]
fn eight_lanes_racing_on_200_ids_get_one_fresh_claim_each() {
    let (url, options) = (server(), options("race"));
    let fresh = race(move || RedisReplayStore::open(&url, &options).unwrap());
    assert!(fresh.iter().all(|count| *count == 1), "{fresh:?}");
}

/// The broken store of the negative control: `GET`, a pause, then `SET` without `NX`.
struct CheckThenSet {
    connection: std::sync::Mutex<redis::Connection>,
    prefix: String,
}

impl ReplayStore for CheckThenSet {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        let mut connection = self.connection.lock().unwrap();
        let key = claim_key(&self.prefix, &claim.scope, claim.id);
        let seen: Option<String> = redis::cmd("GET").arg(&key).query(&mut *connection).unwrap();
        if seen.is_some() {
            return Ok(ClaimOutcome::Replayed);
        }
        std::thread::sleep(Duration::from_millis(2));
        redis::cmd("SET")
            .arg(&key)
            .arg(1)
            .arg("PX")
            .arg(901_000)
            .query::<()>(&mut *connection)
            .unwrap();
        Ok(ClaimOutcome::Fresh)
    }
}

#[test]
fn the_race_catches_a_store_that_checks_then_sets() {
    let (url, prefix) = (server(), options("race-broken").key_prefix);
    let fresh = race(move || CheckThenSet {
        connection: std::sync::Mutex::new(raw(&url)),
        prefix: prefix.clone(),
    });
    let twice = fresh.iter().filter(|count| **count > 1).count();
    assert!(twice > 0, "{fresh:?}");
}

#[test]
fn live_count_counts_this_prefix_only_and_stops_at_its_limit() {
    let url = server();
    let store = RedisReplayStore::open(&url, &options("count")).unwrap();
    let neighbour = RedisReplayStore::open(&url, &options("count-neighbour")).unwrap();
    for n in 0..2500 {
        let id = format!("m{n}");
        assert_eq!(
            store
                .claim(&claim(ClaimScope::Conversation("c"), &id))
                .unwrap(),
            ClaimOutcome::Fresh
        );
    }
    neighbour
        .claim(&claim(ClaimScope::Conversation("c"), "m0"))
        .unwrap();
    let count = store.live_count(u64::MAX).unwrap();
    assert!(count.complete);
    assert_eq!(count.ids, 2500);
    assert_eq!(neighbour.live_count(u64::MAX).unwrap().ids, 1);
    let bounded = store.live_count(100).unwrap();
    assert!(bounded.ids >= 100 || bounded.complete, "{bounded:?}");
}

#[test]
fn garbage_urls_are_refused_with_a_clear_error() {
    let cases = [
        ("localhost:6379", "is given as `redis://host:port/db`"),
        ("http://localhost/0", "is given as `redis://host:port/db`"),
        (
            "unix:///run/redis.sock",
            "is given as `redis://host:port/db`",
        ),
        ("redis://localhost/zero", "Invalid database number"),
        ("redis://localhost/-1", "is not 0 or more"),
        ("redis://localhost:99999/0", "is not a Redis URL"),
        ("redis://localhost/0?protocol=resp3", "query"),
        ("redis://", "is not a Redis URL"),
        ("", "is given as `redis://host:port/db`"),
    ];
    for (url, expected) in cases {
        let error = RedisReplayStore::open(url, &RedisOptions::default()).unwrap_err();
        assert!(
            matches!(error, RedisStoreError::Url { .. }),
            "{url}: {error:?}"
        );
        let message = error.to_string();
        assert!(message.contains(expected), "{url}: {message}");
    }
    let long = format!("redis://{}/0", "h".repeat(2000));
    let message = RedisReplayStore::open(&long, &RedisOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.contains("more than 1024"), "{message}");
}

#[test]
fn tls_urls_are_refused_and_passwords_never_shown() {
    let error = RedisReplayStore::open(
        "rediss://user:hunter2@localhost/0",
        &RedisOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(error, RedisStoreError::TlsUnsupported { .. }));
    let message = error.to_string();
    assert!(message.contains("TLS"), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
    let message =
        RedisReplayStore::open("redis://:hunter2@localhost/0?x=1", &RedisOptions::default())
            .unwrap_err()
            .to_string();
    assert!(message.contains("redis://***@localhost/0?x=1"), "{message}");
}

#[test]
fn a_server_that_cannot_be_reached_is_an_error() {
    let url = format!("redis://127.0.0.1:{}/0", free_port());
    let error = RedisReplayStore::open(&url, &RedisOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, RedisStoreError::Redis { .. }), "{error:?}");
    assert!(message.contains(&url), "{message}");
    assert!(message.contains("cannot connect"), "{message}");
}

#[test]
fn a_server_that_never_answers_times_out() {
    // Accepts connections and reads, never writes.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}/0", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let options = RedisOptions {
        connect_timeout: Duration::from_millis(300),
        ..RedisOptions::default()
    };
    let started = Instant::now();
    let error = RedisReplayStore::open(&url, &options).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(error.to_string().contains("cannot connect"), "{error}");
}

/// A fake server: reads RESP commands, answers `+OK` to every command but `SET` (the
/// connection's setup), and `set_reply` to `SET` (`None`: never answers it).
fn fake_server(set_reply: Option<&'static [u8]>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}/0", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, set_reply));
        }
    });
    url
}

fn serve(stream: TcpStream, set_reply: Option<&'static [u8]>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let Ok(count) = line.trim_end().trim_start_matches('*').parse::<usize>() else {
            return;
        };
        let mut parts = Vec::new();
        for _ in 0..count {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let Ok(len) = header.trim_end().trim_start_matches('$').parse::<usize>() else {
                return;
            };
            let mut body = vec![0; len + 2];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            body.truncate(len);
            parts.push(body);
        }
        let is_set = parts
            .first()
            .is_some_and(|name| name.eq_ignore_ascii_case(b"SET"));
        let reply = if is_set {
            set_reply
        } else {
            Some(&b"+OK\r\n"[..])
        };
        if let Some(reply) = reply {
            if writer.write_all(reply).is_err() {
                return;
            }
        }
    }
}

#[test]
fn a_claim_left_unanswered_times_out_and_the_connection_is_replaced() {
    let url = fake_server(None);
    let options = RedisOptions {
        io_timeout: Duration::from_millis(300),
        ..RedisOptions::default()
    };
    let store = RedisReplayStore::open(&url, &options).unwrap();
    let started = Instant::now();
    let error = store
        .claim(&claim(ClaimScope::Conversation("c"), "m1"))
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    let ClaimError::Unavailable { detail } = error else {
        panic!("{error:?}")
    };
    assert!(detail.contains(&url), "{detail}");
    assert!(detail.contains("cannot claim an id"), "{detail}");
    // The next claim opens a new connection (and times out again, never reads a stale answer).
    assert!(store
        .claim(&claim(ClaimScope::Conversation("c"), "m2"))
        .is_err());
}

#[test]
fn an_unexpected_answer_is_an_error() {
    let replies: [&'static [u8]; 6] = [
        b":1\r\n",
        b"+QUEUED\r\n",
        b"$1\r\n1\r\n",
        b"-ERR no\r\n",
        b"*0\r\n",
        b"$-1\r\n",
    ];
    for reply in &replies[..5] {
        let store =
            RedisReplayStore::open(&fake_server(Some(reply)), &RedisOptions::default()).unwrap();
        let error = store
            .claim(&claim(ClaimScope::Conversation("c"), "m1"))
            .unwrap_err();
        let ClaimError::Unavailable { detail } = error else {
            panic!("{error:?}")
        };
        assert!(detail.contains("cannot claim an id"), "{detail}");
    }
    // The control: nil then OK are the two answers that decide.
    let store =
        RedisReplayStore::open(&fake_server(Some(replies[5])), &RedisOptions::default()).unwrap();
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("c"), "m1"))
            .unwrap(),
        ClaimOutcome::Replayed
    );
}

#[test]
fn a_server_stopped_mid_run_fails_closed_and_is_used_again_when_back() {
    let _ = server();
    let port = free_port();
    let mut private = PrivateServer::start_on(port);
    let store = RedisReplayStore::open(&private.url(), &options("stopped")).unwrap();
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("c"), "m1"))
            .unwrap(),
        ClaimOutcome::Fresh
    );
    private.stop();
    for id in ["m1", "m2"] {
        let error = store
            .claim(&claim(ClaimScope::Conversation("c"), id))
            .unwrap_err();
        let ClaimError::Unavailable { detail } = error else {
            panic!("{error:?}")
        };
        assert!(detail.contains(&private.url()), "{detail}");
    }
    let _back = PrivateServer::start_on(port);
    // A fresh server (no persistence) knows no claim; the store reconnects by itself.
    assert_eq!(
        store
            .claim(&claim(ClaimScope::Conversation("c"), "m2"))
            .unwrap(),
        ClaimOutcome::Fresh
    );
}

#[test]
fn a_database_the_server_does_not_have_is_refused_at_open() {
    let url = server();
    let address = seal_store_redis::RedisAddress::parse(&url).unwrap();
    let missing = format!("redis://{}:{}/100000", address.host(), address.port());
    let error = RedisReplayStore::open(&missing, &RedisOptions::default()).unwrap_err();
    assert!(error.to_string().contains("cannot connect"), "{error}");
}
