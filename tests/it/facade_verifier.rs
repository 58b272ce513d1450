//! A verifier alone: the frame settings of a seal without its policy, verifying exactly as a
//! seal built with the same settings does; and the message a replay store could not answer for,
//! which gets no verdict.

use seal::{
    AlarmReason, BuildError, Claim, ClaimError, ClaimOutcome, FrameKey, FrameOutcome,
    MemoryReplayStore, ReplayStore, Seal, SealBuilder, TrustStore, UnixTime, Verifier,
    VerifierBuilder,
};

const NOW: UnixTime = UnixTime(1_800_000_000);
const END: UnixTime = UnixTime(2_000_000_000);

fn key() -> FrameKey {
    FrameKey::from_secret(&[9; 32]).unwrap()
}

fn store(element: &str) -> TrustStore {
    let mut store = TrustStore::new(END);
    store
        .add_frame_key("ingress", &key(), element, UnixTime(0), END)
        .unwrap();
    store
        .add_frame_key("footer", &key(), "seal-footer", UnixTime(0), END)
        .unwrap();
    store
}

/// The same frame settings for a seal and a verifier.
fn settings_of_seal(builder: SealBuilder) -> SealBuilder {
    builder
        .trust_store(store("note"))
        .frame_element("note")
        .frame_freshness(300, 10)
        .accept_undated_frames_until(UnixTime(NOW.seconds() + 5))
}

fn settings_of_verifier(builder: VerifierBuilder) -> VerifierBuilder {
    builder
        .trust_store(store("note"))
        .frame_element("note")
        .frame_freshness(300, 10)
        .accept_undated_frames_until(UnixTime(NOW.seconds() + 5))
}

fn reasons(inbound: &seal::Inbound<'_>) -> Vec<AlarmReason> {
    inbound
        .report()
        .alarms()
        .map(|(_, reason)| reason)
        .collect()
}

#[test]
fn a_verifier_gives_what_a_seal_with_the_same_settings_gives() {
    let seal = settings_of_seal(Seal::builder().signing_key("ingress", key()))
        .rules_json(r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#)
        .build()
        .unwrap();
    let verifier = settings_of_verifier(Verifier::builder()).build().unwrap();
    let sign = |at: UnixTime, id: &str, body: &str| {
        seal.sign_frame(
            "conv-1",
            at,
            "note",
            &[("source", "mail"), ("id", id)],
            body,
        )
        .unwrap()
    };
    let good = sign(NOW, "m1", "hi </note>");
    let stale = sign(UnixTime(NOW.seconds() - 301), "m2", "old");
    let undated = "<note source=\"mail\" id=\"m3\">x</note>".to_owned();
    let messages = [
        good.clone(),
        good.replace("hi", "ho"),
        format!("{good}\n{good}"),
        stale,
        undated,
        "<channel id=\"m4\">another element</channel>".to_owned(),
        "no frame at all".to_owned(),
    ];
    let (for_seal, for_verifier) = (MemoryReplayStore::new(), MemoryReplayStore::new());
    for _ in 0..2 {
        for message in &messages {
            let by_seal = seal
                .verify_inbound(message, "conv-1", NOW, &for_seal)
                .unwrap();
            let alone = verifier
                .verify_inbound(message, "conv-1", NOW, &for_verifier)
                .unwrap();
            assert_eq!(by_seal.alarms(), alone.alarms(), "{message}");
            assert_eq!(by_seal.to_string(), alone.to_string(), "{message}");
        }
    }
    // The frame signed now verified once, then alarmed as a replay, in both.
    assert_eq!(
        reasons(
            &verifier
                .verify_inbound(&good, "conv-1", NOW, &MemoryReplayStore::new())
                .unwrap()
        ),
        []
    );
    assert_eq!(
        reasons(
            &verifier
                .verify_inbound(&good, "conv-1", NOW, &for_verifier)
                .unwrap()
        ),
        [AlarmReason::ReplayedFrame]
    );
    // The footer lane and the kept conversation verifier, likewise.
    let message = "deploy when green";
    let footer = Seal::builder()
        .trust_store(store("note"))
        .signing_key("footer", key())
        .build()
        .unwrap()
        .sign_footer("conv-1", NOW, &[("id", "f1")], message)
        .unwrap();
    let text = format!("{message}{footer}");
    let by_seal = seal
        .verify_footer(&text, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    let alone = verifier
        .verify_footer(&text, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    assert_eq!(alone.alarms(), "");
    assert_eq!(by_seal.to_string(), alone.to_string());
    let kept = verifier.inbound("conv-1");
    assert_eq!(kept.conversation(), "conv-1");
    let replay = MemoryReplayStore::new();
    assert_eq!(kept.verify(&good, NOW, &replay).unwrap().alarms(), "");
    assert_eq!(
        reasons(&kept.verify(&good, NOW, &replay).unwrap()),
        [AlarmReason::ReplayedFrame]
    );
}

#[test]
fn a_seal_verifies_through_its_own_verifier() {
    let seal = settings_of_seal(Seal::builder()).build().unwrap();
    let own = seal.verifier();
    assert_eq!(
        own.trust_store().key_ids().collect::<Vec<_>>(),
        seal.trust_store().key_ids().collect::<Vec<_>>()
    );
    assert!(own.verification_on());
    let text =
        "<note source=\"mail\" id=\"m1\" kid=\"ingress\" sig=\"AAAAAAAAAAAAAAAAAAAAAA\">x</note>";
    let by_seal = seal
        .verify_inbound(text, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    let by_own = own
        .verify_inbound(text, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    assert_eq!(reasons(&by_seal), [AlarmReason::BadSignature]);
    assert_eq!(by_seal.to_string(), by_own.to_string());
}

#[test]
fn verification_off_is_visible_on_a_verifier() {
    let verifier = Verifier::builder().verification_off().build().unwrap();
    assert!(!verifier.verification_on());
    let inbound = verifier
        .verify_inbound("plain text", "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    assert!(inbound.report().verification_off());
    assert!(inbound.alarms().contains("verification_off"));
    // On by default; the default store has expired, so a signed frame alarms.
    let verifier = Verifier::builder().build().unwrap();
    assert!(verifier.verification_on());
    let signed = "<channel id=\"m1\" kid=\"k\" sig=\"AAAAAAAAAAAAAAAAAAAAAA\">x</channel>";
    let inbound = verifier
        .verify_inbound(signed, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    assert!(inbound.report().is_tainted());
    assert_eq!(inbound.report().verified().count(), 0);
}

#[test]
fn a_verifier_refuses_what_a_seal_refuses_in_its_frame_settings() {
    for element in ["Channel", "", "1note", "a b"] {
        let alone = Verifier::builder().frame_element(element).build();
        assert_eq!(
            alone.unwrap_err(),
            BuildError::Element {
                element: element.to_owned()
            }
        );
        let seal = Seal::builder().frame_element(element).build();
        assert_eq!(
            seal.unwrap_err(),
            BuildError::Element {
                element: element.to_owned()
            }
        );
    }
    // Without the harness rewrite a rewritten closing tag ends nothing: the seal and the
    // verifier agree on it too.
    let seal = Seal::builder()
        .trust_store(store("channel"))
        .signing_key("ingress", key())
        .without_harness_rewrite()
        .build()
        .unwrap();
    let verifier = Verifier::builder()
        .trust_store(store("channel"))
        .without_harness_rewrite()
        .build()
        .unwrap();
    let frame = seal
        .sign_frame(
            "conv-1",
            NOW,
            "channel",
            &[("id", "m1")],
            "a <\\/channel> b",
        )
        .unwrap();
    let by_seal = seal
        .verify_inbound(&frame, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    let alone = verifier
        .verify_inbound(&frame, "conv-1", NOW, &MemoryReplayStore::new())
        .unwrap();
    assert_eq!(by_seal.to_string(), alone.to_string());
    assert!(format!("{verifier:?}").starts_with("Verifier"));
}

/// A replay store that cannot answer.
struct Down;

impl ReplayStore for Down {
    fn claim(&self, _claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        Err(ClaimError::Unavailable {
            detail: "connection refused".to_owned(),
        })
    }
}

#[test]
fn a_claim_the_replay_store_cannot_answer_leaves_the_message_without_a_verdict() {
    let seal = Seal::builder()
        .trust_store(store("channel"))
        .signing_key("ingress", key())
        .build()
        .unwrap();
    let frame = seal
        .sign_frame("conv-1", NOW, "channel", &[("id", "m1")], "hi")
        .unwrap();
    let verifier = seal.verifier();
    let unanswered = verifier
        .verify_inbound(&frame, "conv-1", NOW, &Down)
        .unwrap_err();
    assert_eq!(unanswered.frame_id(), "m1");
    assert!(matches!(
        unanswered.error(),
        ClaimError::Unavailable { detail } if detail == "connection refused"
    ));
    assert!(matches!(
        unanswered.report().frames()[0].outcome,
        FrameOutcome::Unanswered { .. }
    ));
    // The same for the seal, the kept conversation verifier and the footer lane.
    assert!(seal.verify_inbound(&frame, "conv-1", NOW, &Down).is_err());
    assert!(verifier
        .inbound("conv-1")
        .verify(&frame, NOW, &Down)
        .is_err());
    let footer_seal = Seal::builder()
        .trust_store(store("channel"))
        .signing_key("footer", key())
        .build()
        .unwrap();
    let footer = footer_seal
        .sign_footer("conv-1", NOW, &[("id", "f1")], "hello")
        .unwrap();
    let text = format!("hello{footer}");
    let unanswered = footer_seal
        .verify_footer(&text, "conv-1", NOW, &Down)
        .unwrap_err();
    assert_eq!(unanswered.frame_id(), "f1");
    // Negative twins: a store that answers gives a verdict; and a store that cannot answer is
    // not asked about a forged frame, whose message gets its verdict.
    assert_eq!(
        verifier
            .verify_inbound(&frame, "conv-1", NOW, &MemoryReplayStore::new())
            .unwrap()
            .alarms(),
        ""
    );
    let forged = frame.replace(">hi<", ">ho<");
    let inbound = verifier
        .verify_inbound(&forged, "conv-1", NOW, &Down)
        .unwrap();
    assert_eq!(reasons(&inbound), [AlarmReason::BadSignature]);
}
