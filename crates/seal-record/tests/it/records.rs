//! Sealed tool call, approval audit events and the hash-chained log.

use proptest::prelude::*;
use proptest::test_runner::{TestError, TestRunner};
use seal_parse::json::{parse, JsonLimits};
use seal_record::{
    entry_hash, verify_log, verify_log_from, ApprovalAsked, ApprovalDecided, BreakKind, Log,
    LogBreak, LogEntry, Outcome, Record, RecordError, SealedCall, Sha256Digest, GENESIS_HASH,
};

const ARGS: &[u8] = br#"{ "command": "git push --force", "cwd": "/repo", "n": 1.0 }"#;

fn call() -> SealedCall {
    SealedCall::from_json_arguments("toolu_01", "Bash", ARGS, &JsonLimits::default()).unwrap()
}

fn json(record: &impl Record) -> serde_json::Value {
    serde_json::from_slice(record.canonical().as_bytes()).unwrap()
}

#[test]
fn sealed_call_freezes_canonical_arguments() {
    let sealed = call();
    assert_eq!(
        sealed.arguments_bytes(),
        br#"{"command":"git push --force","cwd":"/repo","n":1}"#
    );
    assert_eq!(
        sealed.arguments_sha256(),
        Sha256Digest::of(sealed.arguments_bytes())
    );
    let record = sealed.canonical();
    let text = std::str::from_utf8(record.as_bytes()).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"_type":"seal/call/v1","arguments":{{"command":"git push --force","cwd":"/repo","n":1}},"arguments_sha256":"{}","call_id":"toolu_01","tool":"Bash"}}"#,
            sealed.arguments_sha256()
        )
    );
    // Equal values, different spellings: one frozen form.
    let other = SealedCall::from_json_arguments(
        "toolu_01",
        "Bash",
        br#"{"n":1,"cwd":"/repo","command":"git push --force"}"#,
        &JsonLimits::default(),
    )
    .unwrap();
    assert_eq!(other.canonical(), sealed.canonical());
}

#[test]
fn sealed_call_rejects_lossy_arguments_and_bad_names() {
    let limits = JsonLimits::default();
    for bad in [
        &br#"{"a":1,"a":2}"#[..],
        br#"{"a":"\ud800"}"#,
        br#"{"a":9007199254740993}"#,
        b"{",
    ] {
        assert!(matches!(
            SealedCall::from_json_arguments("c", "t", bad, &limits).unwrap_err(),
            RecordError::Arguments(_)
        ));
    }
    let value = parse(b"{}", &limits).unwrap();
    assert!(matches!(
        SealedCall::new("", "t", &value).unwrap_err(),
        RecordError::InvalidIdentifier {
            field: "call_id",
            ..
        }
    ));
    assert!(matches!(
        SealedCall::new("c", "my tool", &value).unwrap_err(),
        RecordError::InvalidIdentifier { field: "tool", .. }
    ));
}

#[test]
fn approval_asked_has_no_arguments() {
    let sealed = call();
    let asked = ApprovalAsked::for_call("ap-1", &sealed, Some("force push to main")).unwrap();
    let value = json(&asked);
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["_type", "call_id", "id", "reason", "tool"]);
    let bytes = asked.canonical().into_bytes();
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(
        text,
        r#"{"_type":"approval/asked","call_id":"toolu_01","id":"ap-1","reason":"force push to main","tool":"Bash"}"#
    );
    assert!(!text.contains("git push"), "arguments leaked: {text}");
    assert!(!text.contains(&sealed.arguments_sha256().to_hex()));
    // Optional members are omitted, not null.
    let bare = ApprovalAsked::new("ap-2", "Bash", None, None).unwrap();
    assert_eq!(
        bare.canonical().as_bytes(),
        br#"{"_type":"approval/asked","id":"ap-2","tool":"Bash"}"#
    );
}

#[test]
fn approval_asked_rejects_hostile_reason() {
    for bad in ["ok\u{202e}evil", "line\nbreak", "", "  ", "\u{e0041}"] {
        assert!(
            ApprovalAsked::new("a", "t", None, Some(bad)).is_err(),
            "{bad:?}"
        );
    }
    let long = "r".repeat(2001);
    assert!(matches!(
        ApprovalAsked::new("a", "t", None, Some(&long)).unwrap_err(),
        RecordError::TooLong {
            len: 2001,
            max: 2000,
            ..
        }
    ));
}

#[test]
fn approval_decided_outcomes_are_closed() {
    let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
    assert_eq!(
        names,
        ["allowed-once", "rejected", "cancelled", "unavailable"]
    );
    for outcome in Outcome::ALL {
        assert_eq!(Outcome::from_name(outcome.as_str()), Ok(outcome));
        assert_eq!(outcome.proceeds(), outcome == Outcome::AllowedOnce);
        let decided = ApprovalDecided::new("ap-1", outcome).unwrap();
        assert_eq!(
            String::from_utf8(decided.canonical().into_bytes()).unwrap(),
            format!(r#"{{"_type":"approval/decided","id":"ap-1","outcome":"{outcome}"}}"#)
        );
    }
    for bad in [
        "allowed",
        "Allowed-Once",
        "allowed-once ",
        "approved",
        "allowed-always",
        "",
    ] {
        assert!(Outcome::from_name(bad).is_err(), "{bad:?}");
    }
}

fn sample_log() -> Log {
    let sealed = call();
    let mut log = Log::new();
    log.append(&sealed);
    log.append(&ApprovalAsked::for_call("ap-1", &sealed, None).unwrap());
    log.append(&ApprovalDecided::new("ap-1", Outcome::Rejected).unwrap());
    log.append_canonical(br#"{"_type":"note","n":4}"#).unwrap();
    log
}

#[test]
fn a_built_log_verifies() {
    let log = sample_log();
    assert_eq!(log.len(), 4);
    assert_eq!(verify_log(log.entries()), Ok(log.head()));
    assert_eq!(verify_log(&[]), Ok(GENESIS_HASH));
    let first = &log.entries()[0];
    assert_eq!(first.prev_hash, GENESIS_HASH);
    assert_eq!(first.hash, entry_hash(&GENESIS_HASH, 0, &first.record));
    // A suffix verifies from its anchor.
    let entries = log.entries();
    assert_eq!(
        verify_log_from(&entries[2..], 2, entries[1].hash),
        Ok(log.head())
    );
}

fn broken(edit: impl FnOnce(&mut Vec<LogEntry>)) -> LogBreak {
    let mut entries = sample_log().entries().to_vec();
    edit(&mut entries);
    verify_log(&entries).unwrap_err()
}

fn rehash(entry: &mut LogEntry) {
    entry.hash = entry_hash(&entry.prev_hash, entry.sequence, &entry.record);
}

#[test]
fn verifier_names_the_first_broken_link() {
    // A record edited in place: its own hash no longer matches.
    let b = broken(|e| {
        let at = e[1].record.windows(4).position(|w| w == b"ap-1").unwrap();
        e[1].record[at + 3] = b'2';
    });
    assert_eq!(b.index, 1);
    assert!(matches!(b.kind, BreakKind::HashMismatch { .. }));
    let b = broken(|e| {
        e[2].record =
            br#"{"_type":"approval/decided","id":"ap-1","outcome":"allowed-once"}"#.to_vec()
    });
    assert_eq!(b.index, 2);
    assert!(matches!(b.kind, BreakKind::HashMismatch { .. }));
    // The edited entry rehashed: the next link breaks.
    let b = broken(|e| {
        e[1].record = br#"{"_type":"approval/asked","id":"ap-9","tool":"Bash"}"#.to_vec();
        rehash(&mut e[1]);
    });
    assert_eq!(b.index, 2);
    assert!(matches!(b.kind, BreakKind::PrevHashMismatch { .. }));
    // An entry removed.
    let b = broken(|e| {
        e.remove(1);
    });
    assert_eq!(
        b,
        LogBreak {
            index: 1,
            kind: BreakKind::SequenceGap {
                expected: 1,
                found: 2
            }
        }
    );
    // Entries swapped.
    let b = broken(|e| e.swap(1, 2));
    assert_eq!(b.index, 1);
    assert!(matches!(
        b.kind,
        BreakKind::SequenceGap {
            expected: 1,
            found: 2
        }
    ));
    // Renumbered after a removal: the previous hash gives it away.
    let b = broken(|e| {
        e.remove(1);
        e[1].sequence = 1;
    });
    assert_eq!(b.index, 1);
    assert!(matches!(b.kind, BreakKind::PrevHashMismatch { .. }));
    // Not starting at the genesis.
    let b = broken(|e| {
        e[0].prev_hash = Sha256Digest::of(b"elsewhere");
    });
    assert_eq!(b.index, 0);
    assert!(matches!(b.kind, BreakKind::PrevHashMismatch { .. }));
    // A stored hash flipped.
    let b = broken(|e| {
        let mut bytes = *e[3].hash.as_bytes();
        bytes[0] ^= 1;
        e[3].hash = Sha256Digest::from_bytes(bytes);
    });
    assert_eq!(b.index, 3);
    assert!(matches!(b.kind, BreakKind::HashMismatch { .. }));
    // Record bytes that are JSON but not canonical, even with a matching hash.
    let b = broken(|e| {
        e[3].record = br#"{ "_type":"note","n":4}"#.to_vec();
        rehash(&mut e[3]);
    });
    assert_eq!(
        b,
        LogBreak {
            index: 3,
            kind: BreakKind::RecordNotCanonical
        }
    );
    let b = broken(|e| {
        e[3].record = br#"{"_type":"note","n":4.0}"#.to_vec();
        rehash(&mut e[3]);
    });
    assert_eq!(
        b,
        LogBreak {
            index: 3,
            kind: BreakKind::RecordNotCanonical
        }
    );
    // Not JSON at all.
    let b = broken(|e| {
        e[3].record = b"note".to_vec();
        rehash(&mut e[3]);
    });
    assert!(matches!(
        b,
        LogBreak {
            index: 3,
            kind: BreakKind::RecordNotJson { .. }
        }
    ));
    // Canonical JSON without a string `_type`.
    for record in [&br#"{"n":4}"#[..], br#"{"_type":4}"#, br#"["_type"]"#] {
        let b = broken(|e| {
            e[3].record = record.to_vec();
            rehash(&mut e[3]);
        });
        assert_eq!(
            b,
            LogBreak {
                index: 3,
                kind: BreakKind::RecordWithoutType
            }
        );
    }
}

#[test]
fn truncation_is_seen_only_against_a_recorded_head() {
    let log = sample_log();
    let kept = &log.entries()[..3];
    // A prefix is a valid log on its own...
    let head = verify_log(kept).unwrap();
    // ...whose head is not the recorded one.
    assert_ne!(head, log.head());
    assert_eq!(head, log.entries()[2].hash);
}

#[test]
fn append_checks_record_bytes() {
    let mut log = Log::new();
    assert!(log.append_canonical(br#"{"b":1,"a":2}"#).is_err());
    assert!(log
        .append_canonical(br#"{"_type":"x","b":1,"a":2}"#)
        .is_err());
    assert!(log.append_canonical(br#"{"x":1}"#).is_err());
    assert!(log.is_empty());
}

/// One change anywhere in a log: the verifier must refuse it (a random byte edit, a removal or a
/// swap of entries). Run against the real verifier and a broken one that only checks sequence
/// numbers, which must be caught.
fn tamper(entries: &mut Vec<LogEntry>, how: usize, at: usize, byte: usize) {
    let n = entries.len();
    let i = at % n;
    match how % 4 {
        0 => {
            let record = &mut entries[i].record;
            let j = byte % record.len();
            record[j] ^= 1 << (byte % 7);
        }
        1 => {
            let mut bytes = *entries[i].prev_hash.as_bytes();
            bytes[byte % 32] ^= 1;
            entries[i].prev_hash = Sha256Digest::from_bytes(bytes);
        }
        2 => {
            entries.remove(i);
        }
        _ => {
            let j = (i + 1) % n;
            entries.swap(i, j);
            if i == j {
                entries[i].sequence += 1;
            }
        }
    }
}

fn tamper_detected(
    verify: fn(&[LogEntry], Sha256Digest) -> bool,
    (how, at, byte): (usize, usize, usize),
) -> Result<(), TestCaseError> {
    let mut entries = sample_log().entries().to_vec();
    let original = entries.clone();
    let head = sample_log().head();
    tamper(&mut entries, how, at, byte);
    if entries != original {
        prop_assert!(
            !verify(&entries, head),
            "tampered log accepted (how {})",
            how % 4
        );
    }
    Ok(())
}

/// The verifier as used: the chain must verify and end at the head recorded elsewhere.
fn real_verifier(entries: &[LogEntry], head: Sha256Digest) -> bool {
    verify_log(entries) == Ok(head)
}

fn sequence_only_verifier(entries: &[LogEntry], _head: Sha256Digest) -> bool {
    entries
        .iter()
        .enumerate()
        .all(|(i, e)| e.sequence == i as u64)
}

fn runner() -> TestRunner {
    seal_test_support::seeded(512)
}

#[test]
fn any_tampering_is_detected() {
    runner()
        .run(&(any::<usize>(), any::<usize>(), any::<usize>()), |case| {
            tamper_detected(real_verifier, case)
        })
        .unwrap();
}

#[test]
fn negative_control_sequence_only_verifier_is_caught() {
    let result = runner().run(&(any::<usize>(), any::<usize>(), any::<usize>()), |case| {
        tamper_detected(sequence_only_verifier, case)
    });
    assert!(
        matches!(result, Err(TestError::Fail(..))),
        "a verifier blind to hashes was not caught: {result:?}"
    );
}
