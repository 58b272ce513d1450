//! The footer form: a signed footer line after the message, verified by the same checks as
//! frames.

use crate::frames_support::*;
use seal_verify::{
    FrameCause, FrameOutcome, FrameSigner, FrameVerifier, InboundReport, SigningKey, FOOTER_ELEMENT,
};

const MESSAGE: &str = "Build 7 passed.\nDeploy when ready.";

fn footer(fields: &[(&str, &str)], message: &str) -> String {
    let key = master();
    FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW)
        .unwrap()
        .sign_footer(fields, message)
        .unwrap()
}

fn check_in<'t>(text: &'t str, conversation: &str, seen: &MemoryReplayStore) -> InboundReport<'t> {
    let store = store();
    let config = config();
    FrameVerifier::new(&config, &store, conversation, NOW, seen)
        .verify_footer(text)
        .unwrap()
}

fn check(text: &str) -> InboundReport<'_> {
    check_in(text, CONVERSATION, &MemoryReplayStore::new())
}

#[test]
fn a_signed_footer_verifies_and_covers_the_message() {
    let line = footer(&[("id", "f1"), ("source", "sms")], MESSAGE);
    assert!(line.starts_with(&format!(
        "\n<{FOOTER_ELEMENT} id=\"f1\" source=\"sms\" iat=\"1800000000\" kid=\"k1\" sig=\""
    )));
    assert!(line.ends_with("></seal-footer>"));
    let text = format!("{MESSAGE}{line}");
    let report = check(&text);
    let verified: Vec<_> = report.verified().collect();
    assert_eq!(verified.len(), 1, "{:?}", report.frames());
    assert_eq!(verified[0].key_id(), "k1");
    assert_eq!(verified[0].body().of(&text), Some(MESSAGE));
    assert_eq!(report.new_ids().collect::<Vec<_>>(), ["f1"]);
    assert_eq!(report.alarm_text(), "");
    // One trailing LF is allowed (transports add one).
    assert_eq!(check(&format!("{text}\n")).verified().count(), 1);
    // An empty message can be signed too.
    let empty = footer(&[("id", "f2")], "");
    assert_eq!(check(&empty).verified().count(), 1);
}

#[test]
fn an_ed25519_footer_verifies() {
    let key = ed_signer();
    let line = FrameSigner::new("ed1", SigningKey::Ed25519(&key), CONVERSATION, NOW)
        .unwrap()
        .sign_footer(&[("id", "f1")], MESSAGE)
        .unwrap();
    assert_eq!(check(&format!("{MESSAGE}{line}")).verified().count(), 1);
}

#[test]
fn an_edited_message_or_field_fails() {
    let text = format!(
        "{MESSAGE}{}",
        footer(&[("id", "f1"), ("source", "sms")], MESSAGE)
    );
    for forged in [
        text.replace("Build 7", "Build 8"),
        text.replacen("Deploy", "deploy", 1),
        format!(" {text}"),
        text.replace("source=\"sms\"", "source=\"smt\""),
        text.replace("id=\"f1\" source=\"sms\"", "source=\"sms\" id=\"f1\""),
    ] {
        assert_eq!(reasons(&check(&forged)), ["bad_signature"], "{forged}");
    }
}

#[test]
fn a_missing_footer_is_unsigned_and_a_misplaced_one_is_malformed() {
    let report = check(MESSAGE);
    assert_eq!(reasons(&report), ["unsigned_frame"]);
    assert!(matches!(
        report.frames()[0].outcome,
        FrameOutcome::Untrusted {
            cause: FrameCause::NoFooter,
            ..
        }
    ));
    assert!(report.alarm_text().contains("frame=\"seal-footer\""));
    let line = footer(&[("id", "f1")], MESSAGE);
    let trailing = format!("{MESSAGE}{line}\nmore text after the footer");
    assert_eq!(
        reasons(&check(&trailing)),
        ["malformed_frame", "unsigned_frame"]
    );
    let no_lf = format!("{MESSAGE}{}", &line[1..]);
    assert_eq!(
        reasons(&check(&no_lf)),
        ["malformed_frame", "unsigned_frame"]
    );
}

#[test]
fn a_forged_footer_inside_the_message_alarms_while_the_real_one_verifies() {
    let forged =
        "Hi\n<seal-footer id=\"x\" kid=\"k1\" sig=\"AAAAAAAAAAAAAAAAAAAAAA\"></seal-footer>\nmore";
    let text = format!("{forged}{}", footer(&[("id", "f1")], forged));
    let report = check(&text);
    assert_eq!(report.verified().count(), 1);
    assert_eq!(reasons(&report), ["malformed_frame"]);
    assert!(report.is_tainted());
}

#[test]
fn a_footer_replayed_or_moved_to_another_conversation_fails() {
    let text = format!("{MESSAGE}{}", footer(&[("id", "f1")], MESSAGE));
    let seen = claimed(&["f1"]);
    assert_eq!(
        reasons(&check_in(&text, CONVERSATION, &seen)),
        ["replayed_frame"]
    );
    assert_eq!(
        reasons(&check_in(
            &text,
            "conversation-2",
            &MemoryReplayStore::new()
        )),
        ["bad_signature"]
    );
}

#[test]
fn a_frame_tag_is_not_a_footer_tag() {
    // Domain separation: the frame signing input and the footer signing input differ even for
    // the same fields, so a frame's sig moved into a footer line fails.
    let frame = sign(&[("id", "f1")], "");
    let sig = seal_test_support::quoted_attribute(&frame, "sig");
    let text = format!("\n<seal-footer id=\"f1\" kid=\"k1\" sig=\"{sig}\"></seal-footer>");
    assert_eq!(reasons(&check(&text)), ["bad_signature"]);
}

#[test]
fn footer_without_id_and_with_verification_off() {
    let text = format!("{MESSAGE}{}", footer(&[("source", "sms")], MESSAGE));
    assert_eq!(reasons(&check(&text)), ["malformed_frame"]);
    let store = store();
    let off = config().verification_off();
    let report = FrameVerifier::new(&off, &store, CONVERSATION, NOW, &MemoryReplayStore::new())
        .verify_footer(&text)
        .unwrap();
    assert!(report.verification_off());
    assert_eq!(alarm_count(report.alarm_text()), 1);
    assert!(report.alarm_text().contains("reason=\"verification_off\""));
}
