//! The signing input of a frame found by the scanner equals the one built from the signer's
//! fields: rendering, scanning and signing agree on attributes (decoded, in order, `sig`
//! excluded) and on the body bytes (as they stand in the text).

use seal_parse::frame::{scan, Frame, FrameFinding, ScanConfig};
use seal_record::{FrameSigningInput, SigningInputError};
use seal_render::{escape, render_frame, Context};

fn scanned(text: &str) -> Frame<'_> {
    let findings = scan(text, &ScanConfig::new("channel").unwrap()).unwrap();
    match findings.as_slice() {
        [FrameFinding::Frame(frame)] => frame.clone(),
        other => panic!("expected one frame, got {other:?}"),
    }
}

#[test]
fn scanned_frame_gives_the_signers_input() {
    let body = "deploy <done>\n\tline two \u{202e} \\ end";
    let attributes = [("source", "ci \"x\" <y>"), ("id", "f-1\u{e9}")];
    let mut with_sig = attributes.to_vec();
    with_sig.push(("sig", "AAAAAAAAAAAAAAAAAAAAAA"));
    let frame_text = render_frame("channel", &with_sig, body).unwrap();
    let text = format!("before {frame_text} after");
    let frame = scanned(&text);

    let signer = FrameSigningInput::new(
        "k1",
        "hmac-sha256",
        22,
        "channel",
        &attributes,
        escape(body, Context::Block).as_bytes(),
    )
    .unwrap();
    let verifier =
        FrameSigningInput::for_scanned_frame("k1", "hmac-sha256", 22, &frame, &text).unwrap();
    assert_eq!(signer, verifier);

    // Without a sig attribute the same.
    let unsigned_text = render_frame("channel", &attributes, body).unwrap();
    let frame = scanned(&unsigned_text);
    let unsigned =
        FrameSigningInput::for_scanned_frame("k1", "hmac-sha256", 22, &frame, &unsigned_text)
            .unwrap();
    assert_eq!(unsigned, signer);
}

#[test]
fn body_span_outside_the_text_is_refused() {
    let text = render_frame("channel", &[("id", "1")], "a body").unwrap();
    let frame = scanned(&text);
    assert_eq!(
        FrameSigningInput::for_scanned_frame("k", "a", 1, &frame, "short").unwrap_err(),
        SigningInputError::BodyOutOfRange
    );
}
