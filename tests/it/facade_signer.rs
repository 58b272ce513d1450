//! Signing frames with one key outside a seal (`FrameSigner`): what it signs verifies in a seal
//! trusting the key, and only there; a key's tag length is bound to it.

use seal::{AlarmReason, ApproverKey, FrameKey, FrameSigner, KeyError, MemoryReplayStore};
use seal::{FrameRefusal, HarnessRewrite, Seal, TrustStore, UnixTime};

const NOW: UnixTime = UnixTime(1_800_000_000);
const END: UnixTime = UnixTime(2_000_000_000);

fn key() -> FrameKey {
    FrameKey::from_secret(&[7; 32]).unwrap()
}

fn seal_trusting(key: &FrameKey) -> Seal {
    let mut store = TrustStore::new(END);
    store
        .add_frame_key("ingress", key, "channel", UnixTime(0), END)
        .unwrap();
    Seal::builder().trust_store(store).build().unwrap()
}

fn reasons(seal: &Seal, text: &str) -> Vec<AlarmReason> {
    let replay = MemoryReplayStore::new();
    seal.verify_inbound(text, "conv-1", NOW, &replay)
        .unwrap()
        .report()
        .alarms()
        .map(|(_, reason)| reason)
        .collect()
}

fn sig(frame: &str) -> &str {
    let start = frame.find(" sig=\"").unwrap() + 6;
    let end = start + frame[start..].find('"').unwrap();
    &frame[start..end]
}

#[test]
fn a_signed_frame_is_the_one_the_seal_signs_and_verifies_only_under_its_key() {
    let key = key();
    let attributes = [("source", "telegram"), ("id", "m1")];
    let signer = FrameSigner::new("ingress", key.as_signing_key(), "conv-1", NOW).unwrap();
    let frame = signer
        .sign("channel", &attributes, "deploy </channel> now")
        .unwrap();

    let mut store = TrustStore::new(END);
    store
        .add_frame_key("ingress", &key, "channel", UnixTime(0), END)
        .unwrap();
    let sealed = Seal::builder()
        .trust_store(store)
        .signing_key("ingress", key.duplicate())
        .build()
        .unwrap();
    let same = sealed
        .sign_frame(
            "conv-1",
            NOW,
            "channel",
            &attributes,
            "deploy </channel> now",
        )
        .unwrap();
    assert_eq!(frame, same);

    let seal = seal_trusting(&key);
    assert_eq!(reasons(&seal, &frame), []);
    let replay = MemoryReplayStore::new();
    assert_eq!(
        seal.verify_inbound(&frame, "conv-1", NOW, &replay)
            .unwrap()
            .report()
            .verified()
            .count(),
        1
    );
    // Another conversation, another key, a changed attribute, body or tag: each alarms.
    let replay = MemoryReplayStore::new();
    assert_ne!(
        seal.verify_inbound(&frame, "conv-2", NOW, &replay)
            .unwrap()
            .report()
            .alarms()
            .count(),
        0
    );
    let other = seal_trusting(&FrameKey::from_secret(&[8; 32]).unwrap());
    assert_eq!(reasons(&other, &frame), [AlarmReason::BadSignature]);
    let forged = frame.replace("telegram", "slack");
    assert_eq!(reasons(&seal, &forged), [AlarmReason::BadSignature]);
    let body = frame.replace("deploy", "Deploy");
    assert_eq!(reasons(&seal, &body), [AlarmReason::BadSignature]);
    let tag = sig(&frame);
    let flipped = if tag.starts_with('A') { "B" } else { "A" };
    let retagged = frame.replace(tag, &format!("{flipped}{}", &tag[1..]));
    assert_eq!(reasons(&seal, &retagged), [AlarmReason::BadSignature]);
}

#[test]
fn a_raw_body_is_signed_after_the_closing_tag_rewrite() {
    let key = key();
    let signer = FrameSigner::new("ingress", key.as_signing_key(), "conv-1", NOW)
        .unwrap()
        .with_rewrite(HarnessRewrite::closing_tag("channel").unwrap());
    let frame = signer
        .sign_raw("channel", &[("id", "m2")], "a</channel>b")
        .unwrap();
    assert!(frame.contains(">a<\\/channel>b</channel>"), "{frame}");
    assert_eq!(reasons(&seal_trusting(&key), &frame), []);

    // Without the rewrite the raw body closes the frame early, which alarms.
    let bare = FrameSigner::new("ingress", key.as_signing_key(), "conv-1", NOW).unwrap();
    let broken = bare
        .sign_raw("channel", &[("id", "m3")], "a</channel>b")
        .unwrap();
    assert_ne!(reasons(&seal_trusting(&key), &broken), []);

    assert!(HarnessRewrite::closing_tag("Not An Element").is_err());
}

#[test]
fn the_tag_length_is_the_key_s() {
    let key = key();
    assert_eq!(key.tag_chars(), 22);
    let long = key.duplicate().with_tag_chars(16).unwrap();
    assert_eq!(long.tag_chars(), 16);
    let standard = FrameSigner::new("ingress", key.as_signing_key(), "conv-1", NOW)
        .unwrap()
        .sign("channel", &[("id", "m1")], "hi")
        .unwrap();
    let short = FrameSigner::new("ingress", long.as_signing_key(), "conv-1", NOW)
        .unwrap()
        .sign("channel", &[("id", "m1")], "hi")
        .unwrap();
    assert_eq!(sig(&standard).len(), 22);
    assert_eq!(sig(&short).len(), 16);
    // A frame verifies only at the length its key is trusted with.
    assert_eq!(reasons(&seal_trusting(&long), &short), []);
    assert_eq!(
        reasons(&seal_trusting(&key), &short),
        [AlarmReason::BadSignature]
    );
    assert_eq!(
        reasons(&seal_trusting(&long), &standard),
        [AlarmReason::BadSignature]
    );

    for chars in [0, 5, 15, 43, 255] {
        assert!(
            matches!(
                key.duplicate().with_tag_chars(chars),
                Err(KeyError::TagChars { chars: c, .. }) if c == chars
            ),
            "{chars}"
        );
    }
}

#[test]
fn an_ed25519_signer_writes_the_full_signature_and_refuses_what_the_grammar_refuses() {
    let approver = ApproverKey::from_seed(&[9; 32]).unwrap();
    let signer = FrameSigner::new("root", approver.as_signing_key(), "conv-1", NOW).unwrap();
    let frame = signer.sign("channel", &[("id", "m1")], "hi").unwrap();
    assert_eq!(sig(&frame).len(), 86);
    let again = signer.sign("channel", &[("id", "m1")], "hj").unwrap();
    assert_ne!(sig(&frame), sig(&again));

    for attributes in [
        &[("kid", "x")][..],
        &[("sig", "x")],
        &[("iat", "1")],
        &[("id", "a b")],
    ] {
        assert!(
            matches!(
                signer.sign("channel", attributes, "hi"),
                Err(FrameRefusal::ReservedAttribute { .. } | FrameRefusal::InvalidFrameId { .. })
            ),
            "{attributes:?}"
        );
    }
    let key = key();
    assert!(FrameSigner::new("bad key id", key.as_signing_key(), "conv-1", NOW).is_err());
    assert!(FrameSigner::new("ingress", key.as_signing_key(), "", NOW).is_err());
    assert!(ApproverKey::check_seed(&[9; 32]).is_ok());
    assert_eq!(
        ApproverKey::check_seed(&[9; 31]),
        Err(KeyError::Ed25519Length { len: 31 })
    );
}
