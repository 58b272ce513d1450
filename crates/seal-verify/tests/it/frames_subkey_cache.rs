//! The verifier's conversation subkeys are derived once and kept, and keeping them changes no
//! outcome: conversations stay apart, tag lengths come from the key resolved for each frame,
//! keys are resolved (validity, revocation, scope) for every frame, and more keys than the
//! cache holds still verify.

use std::cell::Cell;

use seal_test_support::verify_setup::{config, record, Forgetful, ELEMENT, NOW};
use seal_verify::store::{
    check_record, IntendedUse, KeyRecord, KeySource, KeyStatus, MemoryTrustStore, ResolveError,
    Resolved,
};
use seal_verify::{
    AlarmReason, ConversationKeys, FrameSigner, FrameVerifier, HmacKey, HmacSecret, SigningKey,
    TagLength, UnixTime, SUBKEY_CACHE_CAPACITY,
};

fn key(secret: u8, length: TagLength) -> HmacKey {
    HmacKey::new(HmacSecret::from_bytes(&[secret; 32]).unwrap(), length)
}

fn frame(key_id: &str, key: &HmacKey, conversation: &str, id: &str) -> String {
    FrameSigner::new(key_id, SigningKey::Hmac(key), conversation, NOW)
        .unwrap()
        .sign(ELEMENT, &[("source", "telegram"), ("id", id)], "hello")
        .unwrap()
}

fn reasons(report: &seal_verify::InboundReport) -> Vec<Option<AlarmReason>> {
    report
        .frames()
        .iter()
        .map(seal_verify::FrameReport::alarm_reason)
        .collect()
}

#[test]
fn a_reused_verifier_gives_the_outcomes_of_a_fresh_one() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record("k1", key(1, TagLength::STANDARD), KeyStatus::Active))
        .unwrap();
    let config = config();
    let master = key(1, TagLength::STANDARD);
    let good = frame("k1", &master, "conv-a", "m1");
    let foreign = frame("k1", &master, "conv-b", "m2");
    let forged = good.replace("telegram", "slack");
    let reused = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    for _ in 0..3 {
        for message in [&good, &foreign, &forged] {
            let fresh = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
            assert_eq!(
                reasons(&reused.verify(message).unwrap()),
                reasons(&fresh.verify(message).unwrap())
            );
        }
    }
    assert_eq!(reasons(&reused.verify(&good).unwrap()), vec![None]);
    assert_eq!(
        reasons(&reused.verify(&foreign).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert_eq!(
        reasons(&reused.verify(&forged).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
}

/// Verifiers built in turn over one `ConversationKeys` give the outcomes of fresh verifiers
/// (at each one's own time and seen set), and the subkey is derived once: the keys hold one
/// subkey per master key, however many verifiers used it.
#[test]
fn verifiers_over_kept_conversation_keys_give_the_outcomes_of_fresh_ones() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record("k1", key(1, TagLength::STANDARD), KeyStatus::Active))
        .unwrap();
    store
        .insert(record("k2", key(2, TagLength::STANDARD), KeyStatus::Active))
        .unwrap();
    let config = config();
    let master = key(1, TagLength::STANDARD);
    let good = frame("k1", &master, "conv-a", "m1");
    let second = frame("k2", &key(2, TagLength::STANDARD), "conv-a", "m2");
    let foreign = frame("k1", &master, "conv-b", "m3");
    let forged = good.replace("telegram", "slack");
    let keys = ConversationKeys::new("conv-a");
    assert_eq!(keys.conversation_id(), "conv-a");
    assert_eq!(keys.held(), 0);
    let seen_m1 = OnlyM1Claimed;
    // Inside and after the keys' validity window, with and without a seen set.
    for now in [NOW, UnixTime(1_860_000_000)] {
        for seen in [&Forgetful as &dyn seal_verify::ReplayStore, &seen_m1] {
            for message in [&good, &second, &foreign, &forged] {
                let kept = FrameVerifier::with_keys(&config, &store, &keys, now, seen);
                let fresh = FrameVerifier::new(&config, &store, "conv-a", now, seen);
                assert_eq!(
                    reasons(&kept.verify(message).unwrap()),
                    reasons(&fresh.verify(message).unwrap()),
                    "{message}"
                );
            }
        }
    }
    assert_eq!(keys.held(), 2, "{keys:?}");
    let kept = FrameVerifier::with_keys(&config, &store, &keys, NOW, &Forgetful);
    assert_eq!(reasons(&kept.verify(&good).unwrap()), vec![None]);
    assert_eq!(
        reasons(&kept.verify(&foreign).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert_eq!(
        reasons(&kept.verify(&forged).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert_eq!(
        reasons(
            &FrameVerifier::with_keys(&config, &store, &keys, NOW, &seen_m1)
                .verify(&good)
                .unwrap()
        ),
        vec![Some(AlarmReason::ReplayedFrame)]
    );
    assert_eq!(keys.held(), 2);
    // The keys of another conversation check its frames only.
    let keys_b = ConversationKeys::new("conv-b");
    let in_b = FrameVerifier::with_keys(&config, &store, &keys_b, NOW, &Forgetful);
    assert_eq!(reasons(&in_b.verify(&foreign).unwrap()), vec![None]);
    assert_eq!(
        reasons(&in_b.verify(&good).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert!(format!("{keys_b:?}").contains("conv-b"));
}

#[test]
fn verifiers_of_different_conversations_never_share_subkeys() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record("k1", key(1, TagLength::STANDARD), KeyStatus::Active))
        .unwrap();
    let config = config();
    let master = key(1, TagLength::STANDARD);
    let in_a = frame("k1", &master, "conv-a", "m1");
    let in_b = frame("k1", &master, "conv-b", "m1");
    let a = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    let b = FrameVerifier::new(&config, &store, "conv-b", NOW, &Forgetful);
    // Each verifier derives on its first frame; the other conversation's frame fails after.
    assert!(!a.verify(&in_a).unwrap().is_tainted());
    assert!(!b.verify(&in_b).unwrap().is_tainted());
    assert_eq!(
        reasons(&a.verify(&in_b).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert_eq!(
        reasons(&b.verify(&in_a).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
    assert!(!a.verify(&in_a).unwrap().is_tainted());
}

#[test]
fn one_secret_at_two_lengths_checks_each_frame_at_its_own_key_length() {
    // Same secret (same fingerprint) under two ids with different tag lengths: the cached
    // subkey is shared, the length is always the resolved key's.
    let long = TagLength::from_chars(30).unwrap();
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record(
            "short",
            key(1, TagLength::STANDARD),
            KeyStatus::Active,
        ))
        .unwrap();
    store
        .insert(record("long", key(1, long), KeyStatus::Active))
        .unwrap();
    let config = config();
    let standard_frame = frame("short", &key(1, TagLength::STANDARD), "conv-a", "m1");
    let long_frame = frame("long", &key(1, long), "conv-a", "m2");
    for order in [
        [&standard_frame, &long_frame],
        [&long_frame, &standard_frame],
    ] {
        let verifier = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
        for message in order {
            assert!(!verifier.verify(message).unwrap().is_tainted(), "{message}");
        }
        // A frame naming the other id with the other length's tag fails on its length.
        let swapped = standard_frame.replace("kid=\"short\"", "kid=\"long\"");
        assert_eq!(
            reasons(&verifier.verify(&swapped).unwrap()),
            vec![Some(AlarmReason::BadSignature)]
        );
        let swapped = long_frame.replace("kid=\"long\"", "kid=\"short\"");
        assert_eq!(
            reasons(&verifier.verify(&swapped).unwrap()),
            vec![Some(AlarmReason::BadSignature)]
        );
    }
}

#[test]
fn more_keys_than_the_cache_holds_all_verify_in_one_message() {
    let count = SUBKEY_CACHE_CAPACITY + 4;
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let mut message = String::new();
    for index in 0..count {
        let secret = u8::try_from(index + 10).unwrap();
        let id = format!("k{index}");
        store
            .insert(record(
                &id,
                key(secret, TagLength::STANDARD),
                KeyStatus::Active,
            ))
            .unwrap();
        message.push_str(&frame(
            &id,
            &key(secret, TagLength::STANDARD),
            "conv-a",
            &format!("m{index}"),
        ));
        message.push('\n');
    }
    let config = config();
    let verifier = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    for _ in 0..2 {
        let report = verifier.verify(&message).unwrap();
        assert_eq!(report.verified().count(), count);
        assert!(!report.is_tainted());
    }
    // A wrong secret under the last id (past the cache) still fails.
    let forged = frame(
        &format!("k{}", count - 1),
        &key(200, TagLength::STANDARD),
        "conv-a",
        "x",
    );
    assert_eq!(
        reasons(&verifier.verify(&forged).unwrap()),
        vec![Some(AlarmReason::BadSignature)]
    );
}

/// Kept conversation keys hold the subkeys of the first `SUBKEY_CACHE_CAPACITY` master keys
/// and still check the tags of every further key; their `Debug` shows how many they hold and
/// nothing of the keys.
#[test]
fn kept_keys_hold_at_most_the_capacity_and_check_every_key() {
    let count = SUBKEY_CACHE_CAPACITY + 3;
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let mut frames = Vec::new();
    for index in 0..count {
        let secret = u8::try_from(index + 40).unwrap();
        let id = format!("k{index}");
        store
            .insert(record(
                &id,
                key(secret, TagLength::STANDARD),
                KeyStatus::Active,
            ))
            .unwrap();
        let master = key(secret, TagLength::STANDARD);
        frames.push(frame(&id, &master, "conv-a", &format!("m{index}")));
    }
    let config = config();
    let keys = ConversationKeys::new("conv-a");
    assert_eq!(
        format!("{keys:?}"),
        "ConversationKeys { conversation_id: \"conv-a\", held: 0 }"
    );
    for round in 0..2 {
        for message in &frames {
            let kept = FrameVerifier::with_keys(&config, &store, &keys, NOW, &Forgetful);
            assert_eq!(
                reasons(&kept.verify(message).unwrap()),
                vec![None],
                "{round} {message}"
            );
        }
    }
    assert_eq!(keys.held(), SUBKEY_CACHE_CAPACITY);
    assert_eq!(
        format!("{keys:?}"),
        format!(
            "ConversationKeys {{ conversation_id: \"conv-a\", held: {SUBKEY_CACHE_CAPACITY} }}"
        )
    );
}

/// Frames of changing key ids, attribute lengths and bodies (signing inputs short and long),
/// each checked by one verifier against its own tag and with its body changed: keeping the
/// subkey never changes an answer.
#[test]
fn a_kept_subkey_never_changes_an_answer() {
    let master = key(5, TagLength::STANDARD);
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    for id in ["k1", "key-two"] {
        store
            .insert(record(id, key(5, TagLength::STANDARD), KeyStatus::Active))
            .unwrap();
    }
    let config = config();
    let verifier = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    let long_source = "s".repeat(400);
    let sources = ["tg", "telegram", &long_source, "a-much-longer-source", "t"];
    let kids = ["k1", "k1", "k1", "key-two", "k1"];
    for round in 0..3 {
        for (index, (source, kid)) in sources.iter().zip(kids).enumerate() {
            let signer = FrameSigner::new(kid, SigningKey::Hmac(&master), "conv-a", NOW).unwrap();
            let id = format!("m{round}-{index}");
            let body = format!("body {round} {index}");
            let message = signer
                .sign(ELEMENT, &[("source", source), ("id", &id)], &body)
                .unwrap();
            assert_eq!(
                reasons(&verifier.verify(&message).unwrap()),
                vec![None],
                "{message}"
            );
            let forged = message.replace(&body, "other");
            assert_eq!(
                reasons(&verifier.verify(&forged).unwrap()),
                vec![Some(AlarmReason::BadSignature)],
                "{forged}"
            );
        }
    }
}

/// A frame id verified earlier in the same message alarms as replayed even when the replay
/// store answers every claim fresh, among a few frames and among many.
#[test]
fn an_id_repeated_in_one_message_is_replayed() {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record("k1", key(1, TagLength::STANDARD), KeyStatus::Active))
        .unwrap();
    let config = config();
    let master = key(1, TagLength::STANDARD);
    let verifier = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    for count in [1, 3, 12] {
        let mut message = String::new();
        for index in 0..count {
            message.push_str(&frame("k1", &master, "conv-a", &format!("m{index}")));
        }
        message.push_str(&frame("k1", &master, "conv-a", "m0"));
        let mut expected = vec![None; count];
        expected.push(Some(AlarmReason::ReplayedFrame));
        assert_eq!(
            reasons(&verifier.verify(&message).unwrap()),
            expected,
            "{count}"
        );
    }
    let debug = format!("{verifier:?}");
    assert!(debug.starts_with("FrameVerifier {"), "{debug}");
    assert!(debug.contains("conv-a"), "{debug}");
}

/// A store whose single key can be revoked while a verifier holds its subkey.
struct Switchable {
    record: KeyRecord,
    revoked: Cell<bool>,
}

impl KeySource for Switchable {
    fn resolve(
        &self,
        key_id: &str,
        intended: &IntendedUse<'_>,
        now: UnixTime,
    ) -> Result<Resolved<'_>, ResolveError> {
        if key_id != self.record.id() {
            return Err(ResolveError::UnknownKey {
                key_id: key_id.to_owned(),
            });
        }
        if self.revoked.get() {
            return Err(ResolveError::Revoked { at: UnixTime(0) });
        }
        check_record(&self.record, intended, now)
    }
}

#[test]
fn a_held_subkey_does_not_outlive_its_key_in_the_store() {
    let store = Switchable {
        record: record("k1", key(1, TagLength::STANDARD), KeyStatus::Active),
        revoked: Cell::new(false),
    };
    let config = config();
    let message = frame("k1", &key(1, TagLength::STANDARD), "conv-a", "m1");
    let verifier = FrameVerifier::new(&config, &store, "conv-a", NOW, &Forgetful);
    assert!(!verifier.verify(&message).unwrap().is_tainted());
    store.revoked.set(true);
    assert_eq!(
        reasons(&verifier.verify(&message).unwrap()),
        vec![Some(AlarmReason::KeyNotValid)]
    );
    store.revoked.set(false);
    assert!(!verifier.verify(&message).unwrap().is_tainted());
}

/// A replay store in which `m1` is claimed and every other id is fresh, whatever the order of
/// claims: kept and fresh verifiers must agree on every message.
struct OnlyM1Claimed;

impl seal_verify::ReplayStore for OnlyM1Claimed {
    fn claim(
        &self,
        claim: &seal_verify::Claim<'_>,
    ) -> Result<seal_verify::ClaimOutcome, seal_verify::ClaimError> {
        Ok(if claim.id == "m1" {
            seal_verify::ClaimOutcome::Replayed
        } else {
            seal_verify::ClaimOutcome::Fresh
        })
    }
}
