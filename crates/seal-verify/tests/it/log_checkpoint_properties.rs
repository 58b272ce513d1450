//! Properties of the checkpoint opener and of verifier keys:
//!
//! - opening returns on any text (hostile characters included) and never panics;
//! - a note changed in any one byte is refused, or opens to the very checkpoint and signer of
//!   the note before the change (only bytes outside what the known key signed can change
//!   without a refusal: the lines of unknown keys);
//! - a verifier key text that parses formats back to the same text, and a key's own text
//!   parses.
//!
//! The second property also runs against an opener that skips the signature check, and must
//! find a counterexample.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use seal_record::tlog::{Checkpoint, NoteSignature, SignedNote};
use seal_test_support::{assert_finds_counterexample, exploring, seeded};
use seal_verify::{open_checkpoint, Ed25519SigningKey, LogSigningKey, LogVerifierKey};

use crate::log_checkpoints::{log_key, root_of, LOG};

/// Characters that default string strategies never produce, and the characters the note and
/// key grammars give meaning to.
const HOSTILE: &[char] = &[
    '\u{0}',
    '\t',
    '\n',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{a0}',
    '\u{200b}',
    '\u{202e}',
    '\u{feff}',
    '\u{2014}',
    '\u{2013}',
    '-',
    '+',
    '/',
    '=',
    ' ',
    '0',
    '\u{ff0b}',
    '\u{10ffff}',
];

fn hostile_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::char::range(' ', '~'),
            2 => prop::sample::select(HOSTILE),
            1 => any::<char>(),
        ],
        0..max,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// A good note of the log at `size`, with `unknown` lines before the log's line, by keys the
/// opener does not know, over the same text.
fn good_note(size: u64, unknown: usize) -> String {
    let checkpoint = Checkpoint::new(LOG, size, root_of(size)).unwrap();
    let signed = SignedNote::parse(&log_key().sign_checkpoint(&checkpoint).unwrap()).unwrap();
    let mut note = SignedNote::new(signed.text()).unwrap();
    for i in 0..unknown {
        let name = format!("witness-{i}.example");
        let witness = LogSigningKey::from_seed(&name, &[i as u8 + 1; 32]).unwrap();
        let raw = Ed25519SigningKey::from_seed(&[i as u8 + 1; 32]).unwrap();
        let signature = raw.sign(note.text().as_bytes());
        note.push(NoteSignature::new(&name, witness.key_id(), signature.as_bytes()).unwrap())
            .unwrap();
    }
    for line in signed.signatures() {
        note.push(line.clone()).unwrap();
    }
    note.to_text()
}

/// What an opener makes of a note: the checkpoint and the signer's key id, or a refusal.
type Opener = fn(&str, &[LogVerifierKey]) -> Option<(Checkpoint, [u8; 4])>;

fn real_opener(note: &str, keys: &[LogVerifierKey]) -> Option<(Checkpoint, [u8; 4])> {
    open_checkpoint(note, keys)
        .ok()
        .map(|verified| (verified.checkpoint().clone(), verified.key_id()))
}

/// The negative control: an opener that takes a line of a known key for a signature without
/// checking it.
fn unchecked_opener(note: &str, keys: &[LogVerifierKey]) -> Option<(Checkpoint, [u8; 4])> {
    let note = SignedNote::parse(note).ok()?;
    let key = keys.iter().find(|key| {
        note.signatures()
            .iter()
            .any(|line| line.name() == key.name() && line.key_id() == key.key_id())
    })?;
    let checkpoint = Checkpoint::parse(note.text()).ok()?;
    (checkpoint.origin() == key.name() && checkpoint.extensions().is_empty())
        .then(|| (checkpoint, key.key_id()))
}

#[derive(Debug, Clone)]
struct ByteChange {
    size: u64,
    unknown: usize,
    /// Where, as a fraction of the note's length.
    at: prop::sample::Index,
    byte: u8,
}

fn byte_change() -> impl Strategy<Value = ByteChange> {
    (
        prop_oneof![Just(0u64), 1u64..20, Just(u64::MAX)],
        0usize..3,
        any::<prop::sample::Index>(),
        prop_oneof![
            3 => 0x20u8..0x7f,
            1 => any::<u8>(),
        ],
    )
        .prop_map(|(size, unknown, at, byte)| ByteChange {
            size,
            unknown,
            at,
            byte,
        })
}

fn one_byte_change_is_refused_or_harmless(
    opener: Opener,
    change: &ByteChange,
) -> Result<(), TestCaseError> {
    // The root of a tree of u64::MAX leaves cannot be computed: that size gets a root of 7.
    let note = if change.size == u64::MAX {
        let checkpoint = Checkpoint::new(LOG, u64::MAX, root_of(7)).unwrap();
        log_key().sign_checkpoint(&checkpoint).unwrap()
    } else {
        good_note(change.size, change.unknown)
    };
    let keys = [log_key().verifier_key()];
    let before = opener(&note, &keys).ok_or_else(|| TestCaseError::fail("good note refused"))?;
    let mut bytes = note.into_bytes();
    let at = change.at.index(bytes.len());
    if bytes[at] == change.byte {
        return Ok(());
    }
    bytes[at] = change.byte;
    let Ok(changed) = String::from_utf8(bytes) else {
        // Not text: nothing to open.
        return Ok(());
    };
    if let Some(after) = opener(&changed, &keys) {
        prop_assert_eq!(
            &after,
            &before,
            "a changed note opened to another checkpoint"
        );
    }
    Ok(())
}

fn run_byte_change(
    runner: &mut TestRunner,
    opener: Opener,
) -> Result<(), proptest::test_runner::TestError<ByteChange>> {
    runner.run(&byte_change(), |change| {
        one_byte_change_is_refused_or_harmless(opener, &change)
    })
}

#[test]
fn a_one_byte_change_is_refused_or_opens_to_the_same_checkpoint() {
    run_byte_change(&mut seeded(512), real_opener).unwrap();
    run_byte_change(&mut exploring(256), real_opener).unwrap();
}

#[test]
fn negative_control_an_opener_without_the_signature_check_is_caught() {
    assert_finds_counterexample(
        run_byte_change(&mut seeded(512), unchecked_opener),
        "opener that skips the signature check",
    );
}

/// Arbitrary text, or a good note with a few characters spliced in, removed or replaced.
fn hostile_note() -> impl Strategy<Value = String> {
    let spliced = (
        0u64..5,
        0usize..3,
        prop::collection::vec(
            (any::<prop::sample::Index>(), 0usize..4, hostile_text(6)),
            1..4,
        ),
    )
        .prop_map(|(size, unknown, edits)| {
            let mut chars: Vec<char> = good_note(size, unknown).chars().collect();
            for (at, removed, inserted) in edits {
                let start = at.index(chars.len() + 1);
                let end = (start + removed).min(chars.len());
                chars.splice(start..end, inserted.chars());
            }
            chars.into_iter().collect::<String>()
        });
    prop_oneof![hostile_text(400), spliced]
}

#[test]
fn opening_returns_on_any_text() {
    let keys = [
        log_key().verifier_key(),
        LogSigningKey::from_seed("other.example/log", &[1; 32])
            .unwrap()
            .verifier_key(),
    ];
    let mut runner = seeded(1024);
    runner
        .run(&hostile_note(), |text| {
            if let Ok(verified) = open_checkpoint(&text, &keys) {
                // Whatever opens was signed by a known key over the checkpoint it reports.
                prop_assert!(text.starts_with(&verified.checkpoint().to_text()));
                prop_assert_eq!(verified.checkpoint().origin(), verified.key_name());
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn verifier_key_texts_that_parse_format_back_identically() {
    let good = log_key().verifier_key().to_text();
    let spliced = (any::<prop::sample::Index>(), 0usize..3, hostile_text(4)).prop_map(
        move |(at, removed, inserted)| {
            let mut chars: Vec<char> = good.chars().collect();
            let start = at.index(chars.len() + 1);
            let end = (start + removed).min(chars.len());
            chars.splice(start..end, inserted.chars());
            chars.into_iter().collect::<String>()
        },
    );
    let mut runner = seeded(2048);
    runner
        .run(&prop_oneof![hostile_text(80), spliced], |text| {
            if let Ok(key) = LogVerifierKey::parse(&text) {
                prop_assert_eq!(key.to_text(), text);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn every_key_formats_a_text_that_parses_to_it() {
    let names = "[!-*,-~]{1,40}";
    let mut runner = seeded(256);
    runner
        .run(&(names, any::<[u8; 32]>()), |(name, seed)| {
            let key = LogSigningKey::from_seed(&name, &seed).unwrap();
            let text = key.verifier_key().to_text();
            let parsed = LogVerifierKey::parse(&text).unwrap();
            prop_assert_eq!(parsed.name(), name.as_str());
            prop_assert_eq!(parsed.key_id(), key.key_id());
            prop_assert_eq!(parsed.public_key().as_bytes(), key.public_key().as_bytes());
            Ok(())
        })
        .unwrap();
}
