//! Freshness (spec/frame-v1.md section 9.2): every signer dates its frames with a signed
//! `iat`; the verifier accepts a frame from `max_skew` seconds before its issue time to
//! `max_age` seconds after it, both edges included, and alarms `stale_frame` one second
//! outside; undated frames alarm unless an explicit migration window is configured; the id's
//! claim lives exactly as long as the frame could verify.

use crate::frames_support::*;
use seal_verify::{
    FrameCause, FrameOutcome, FrameRefusal, FrameSigner, FrameVerifier, Freshness, IssuedAtProblem,
    SigningKey, Staleness, UnixTime, VerifyConfig, DEFAULT_MAX_AGE_SECONDS,
    DEFAULT_MAX_SKEW_SECONDS,
};

fn at(seconds: u64) -> UnixTime {
    UnixTime(seconds)
}

/// A frame signed by `k1` at `issued_at`.
fn dated(id: &str, issued_at: UnixTime) -> String {
    let key = master();
    FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, issued_at)
        .unwrap()
        .sign(ELEMENT, &[("source", "telegram"), ("id", id)], "hello")
        .unwrap()
}

/// A frame signed by `k1` without an issue time, with the caller's extra attributes.
fn undated(attributes: &[(&str, &str)]) -> String {
    let key = master();
    FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW)
        .unwrap()
        .without_issued_at()
        .sign(ELEMENT, attributes, "hello")
        .unwrap()
}

fn verify_at<'t>(
    text: &'t str,
    config: &VerifyConfig,
    now: UnixTime,
) -> seal_verify::InboundReport<'t> {
    let store = store();
    FrameVerifier::new(config, &store, CONVERSATION, now, &MemoryReplayStore::new())
        .verify(text)
        .unwrap()
}

fn cause(report: &seal_verify::InboundReport<'_>) -> FrameCause {
    match &report.frames()[0].outcome {
        FrameOutcome::Untrusted { cause, .. } => cause.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_defaults_are_fifteen_minutes_and_one_minute() {
    assert_eq!(DEFAULT_MAX_AGE_SECONDS, 900);
    assert_eq!(DEFAULT_MAX_SKEW_SECONDS, 60);
    assert_eq!(config().freshness(), Freshness::new(900, 60));
}

#[test]
fn every_signer_writes_a_signed_issue_time() {
    let text = dated("m1", NOW);
    assert!(
        text.starts_with(
            "<channel source=\"telegram\" id=\"m1\" iat=\"1800000000\" kid=\"k1\" sig=\""
        ),
        "{text}"
    );
    // The issue time is signed: changing it breaks the tag.
    let moved = text.replace("iat=\"1800000000\"", "iat=\"1800000500\"");
    assert_eq!(
        reasons(&verify_at(&moved, &config(), NOW)),
        ["bad_signature"]
    );
    // A dated signer refuses an `iat` of the caller's.
    let key = master();
    let signer = FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW).unwrap();
    assert_eq!(
        signer.sign(ELEMENT, &[("id", "m1"), ("iat", "1")], "x"),
        Err(FrameRefusal::ReservedAttribute {
            name: "iat".to_owned()
        })
    );
    // `at` re-dates a kept signer; the footer is dated too.
    let later = signer.at(at(1_800_000_123));
    let footer = later.sign_footer(&[("id", "f1")], "msg").unwrap();
    assert!(
        footer.contains(" iat=\"1800000123\" kid=\"k1\""),
        "{footer}"
    );
}

#[test]
fn a_frame_is_fresh_at_both_edges_of_the_window_and_stale_one_second_outside() {
    let text = dated("m1", NOW);
    let config = config();
    for now in [NOW.0 - 60, NOW.0, NOW.0 + 1, NOW.0 + 899, NOW.0 + 900] {
        let report = verify_at(&text, &config, at(now));
        assert_eq!(reasons(&report), Vec::<&str>::new(), "at {now}");
        assert_eq!(report.verified().count(), 1, "at {now}");
    }
    let old = verify_at(&text, &config, at(NOW.0 + 901));
    assert_eq!(reasons(&old), ["stale_frame"]);
    assert_eq!(
        cause(&old),
        FrameCause::Stale(Staleness::TooOld {
            issued_at: NOW,
            fresh_until: at(NOW.0 + 900)
        })
    );
    assert!(old.alarm_text().contains("reason=\"stale_frame\""));
    let early = verify_at(&text, &config, at(NOW.0 - 61));
    assert_eq!(reasons(&early), ["stale_frame"]);
    assert_eq!(
        cause(&early),
        FrameCause::Stale(Staleness::FromTheFuture {
            issued_at: NOW,
            now: at(NOW.0 - 61)
        })
    );
}

#[test]
fn a_configured_window_moves_the_edges() {
    let text = dated("m1", NOW);
    let tight = config().with_freshness(Freshness::new(10, 0));
    assert_eq!(
        verify_at(&text, &tight, at(NOW.0 + 10)).verified().count(),
        1
    );
    assert_eq!(
        reasons(&verify_at(&text, &tight, at(NOW.0 + 11))),
        ["stale_frame"]
    );
    assert_eq!(verify_at(&text, &tight, NOW).verified().count(), 1);
    assert_eq!(
        reasons(&verify_at(&text, &tight, at(NOW.0 - 1))),
        ["stale_frame"]
    );
}

#[test]
fn the_claim_of_a_fresh_frame_lives_until_the_end_of_its_window_and_a_stale_frame_claims_nothing() {
    let store = store();
    let config = config();
    let replay = MemoryReplayStore::new();
    let text = dated("m1", NOW);
    let stale = FrameVerifier::new(&config, &store, CONVERSATION, at(NOW.0 + 901), &replay);
    assert_eq!(reasons(&stale.verify(&text).unwrap()), ["stale_frame"]);
    assert!(replay.is_empty());
    let fresh = FrameVerifier::new(&config, &store, CONVERSATION, at(NOW.0 + 30), &replay);
    assert_eq!(fresh.verify(&text).unwrap().verified().count(), 1);
    assert_eq!(
        replay.live(NOW),
        [(
            "conversation",
            CONVERSATION.to_owned(),
            "m1".to_owned(),
            at(NOW.0 + 900)
        )]
    );
    // Replayed inside the window: the claim holds to its last second.
    let last = FrameVerifier::new(&config, &store, CONVERSATION, at(NOW.0 + 900), &replay);
    assert_eq!(reasons(&last.verify(&text).unwrap()), ["replayed_frame"]);
    // After the window the claim may be forgotten; the frame is stale anyway.
    assert_eq!(replay.purge(at(NOW.0 + 901)), 1);
    let after = FrameVerifier::new(&config, &store, CONVERSATION, at(NOW.0 + 901), &replay);
    assert_eq!(reasons(&after.verify(&text).unwrap()), ["stale_frame"]);
}

#[test]
fn an_undated_frame_alarms_unless_a_migration_window_is_open() {
    let text = undated(&[("source", "telegram"), ("id", "old-1")]);
    assert!(!text.contains("iat="));
    let refused = verify_at(&text, &config(), NOW);
    assert_eq!(reasons(&refused), ["stale_frame"]);
    assert_eq!(cause(&refused), FrameCause::Undated);
    let until = at(NOW.0 + 3_600);
    let migrating = config().accept_undated_until(until);
    let store = store();
    let replay = MemoryReplayStore::new();
    let verifier = FrameVerifier::new(&migrating, &store, CONVERSATION, until, &replay);
    assert_eq!(verifier.verify(&text).unwrap().verified().count(), 1);
    // Its claim lives until the end of the migration window.
    assert_eq!(replay.live(NOW)[0].3, until);
    let closed = verify_at(&text, &migrating, at(until.0 + 1));
    assert_eq!(reasons(&closed), ["stale_frame"]);
    assert_eq!(cause(&closed), FrameCause::UndatedAfter { until });
    // Dated frames keep their own window inside a migration window.
    let dated_text = dated("m2", NOW);
    assert_eq!(
        reasons(&verify_at(&dated_text, &migrating, at(NOW.0 + 901))),
        ["stale_frame"]
    );
}

#[test]
fn an_issue_time_that_is_not_decimal_seconds_alarms_malformed_frame() {
    for (value, problem) in [
        ("", IssuedAtProblem::NotDecimal),
        ("1.8e9", IssuedAtProblem::NotDecimal),
        ("-1", IssuedAtProblem::NotDecimal),
        ("01800000000", IssuedAtProblem::LeadingZero),
        ("18446744073709551616", IssuedAtProblem::TooLarge),
    ] {
        let text = undated(&[("id", "m1"), ("iat", value)]);
        let report = verify_at(&text, &config().accept_undated_until(NOW), NOW);
        assert_eq!(reasons(&report), ["malformed_frame"], "{value:?}");
        assert_eq!(
            cause(&report),
            FrameCause::InvalidIssuedAt(problem),
            "{value:?}"
        );
    }
}
