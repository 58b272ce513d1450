//! The frame id grammar (spec/frame-v1.md section 7.1): the signer refuses an id outside it,
//! and a frame whose tag checks but whose id is outside it alarms `malformed_frame`. Negative
//! twins: ids of 1 and 128 bytes, and every punctuation byte, sign and verify.

use crate::frames_support::*;
use seal_record::FrameSigningInput;
use seal_render::{escape, Context, StartTag};
use seal_verify::{
    check_frame_id, FrameCause, FrameIdProblem, FrameOutcome, FrameRefusal, FrameSigner,
    SigningKey, MAX_FRAME_ID_BYTES,
};

/// Ids outside the grammar, with the problem the check names.
fn refused() -> Vec<(String, FrameIdProblem)> {
    vec![
        (
            "a\nb".to_owned(),
            FrameIdProblem::Byte { byte: b'\n', at: 1 },
        ),
        (
            "cr\r".to_owned(),
            FrameIdProblem::Byte { byte: b'\r', at: 2 },
        ),
        (String::new(), FrameIdProblem::Empty),
        ("x".repeat(129), FrameIdProblem::TooLong { len: 129 }),
        ("a b".to_owned(), FrameIdProblem::Byte { byte: b' ', at: 1 }),
        (
            "tab\t".to_owned(),
            FrameIdProblem::Byte { byte: b'\t', at: 3 },
        ),
        ("q\"".to_owned(), FrameIdProblem::Byte { byte: b'"', at: 1 }),
        (
            "caf\u{e9}".to_owned(),
            FrameIdProblem::Byte { byte: 0xc3, at: 3 },
        ),
        ("nul\0".to_owned(), FrameIdProblem::Byte { byte: 0, at: 3 }),
    ]
}

/// Ids inside the grammar, at its edges.
fn accepted() -> Vec<String> {
    vec![
        "m".to_owned(),
        "x".repeat(MAX_FRAME_ID_BYTES),
        "A-Za-z0-9._:~".to_owned(),
        "conv:42~retry.1_b-c".to_owned(),
    ]
}

/// A frame tagged by `k1` in [`CONVERSATION`] exactly as the signer would tag it, but without
/// the signer's checks: what a compromised or older signer could send.
fn tagged_without_checks(id: &str) -> String {
    let attributes = [
        ("source", "telegram"),
        ("id", id),
        ("iat", "1800000000"),
        ("kid", "k1"),
    ];
    let body = escape("hello", Context::Block);
    let input = FrameSigningInput::new(
        "k1",
        "hmac-sha256",
        22,
        ELEMENT,
        &attributes,
        body.as_bytes(),
    )
    .unwrap();
    let sig = master()
        .conversation_subkey(CONVERSATION)
        .unwrap()
        .sign(input.bytes())
        .to_text();
    let mut all = attributes.to_vec();
    all.push(("sig", &sig));
    let tag = StartTag::new(ELEMENT, &all).unwrap();
    let mut out = String::new();
    tag.write(&mut out);
    out.push_str(&body);
    tag.write_end(&mut out);
    out
}

#[test]
fn the_check_names_the_first_problem() {
    for (id, problem) in refused() {
        assert_eq!(check_frame_id(&id), Err(problem), "{id:?}");
    }
    for id in accepted() {
        assert_eq!(check_frame_id(&id), Ok(()), "{id:?}");
    }
}

#[test]
fn the_signer_refuses_ids_outside_the_grammar_and_says_why() {
    let key = master();
    let signer = FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW).unwrap();
    for (id, problem) in refused() {
        let attributes = [("source", "telegram"), ("id", id.as_str())];
        for result in [
            signer.sign(ELEMENT, &attributes, "hello"),
            signer.sign_raw(ELEMENT, &attributes, "hello"),
            signer.sign_footer(&attributes, "hello"),
        ] {
            let error = result.unwrap_err();
            assert_eq!(
                error,
                FrameRefusal::InvalidFrameId {
                    id: id.clone(),
                    problem
                }
            );
            let message = error.to_string();
            assert!(message.starts_with("frame id `"), "{message}");
            assert!(
                !message.contains('\n') && !message.contains('\r'),
                "{message}"
            );
        }
    }
    let lf = signer
        .sign(ELEMENT, &[("id", "a\nb")], "x")
        .unwrap_err()
        .to_string();
    assert!(lf.contains("a line feed (LF) at byte 1"), "{lf}");
    let cr = signer
        .sign(ELEMENT, &[("id", "cr\r")], "x")
        .unwrap_err()
        .to_string();
    assert!(cr.contains("a carriage return (CR) at byte 2"), "{cr}");
    let empty = signer
        .sign(ELEMENT, &[("id", "")], "x")
        .unwrap_err()
        .to_string();
    assert!(empty.contains("the frame id is empty"), "{empty}");
    let long = signer
        .sign(ELEMENT, &[("id", &"x".repeat(129))], "x")
        .unwrap_err()
        .to_string();
    assert!(long.contains("129 bytes long, more than 128"), "{long}");
}

#[test]
fn ids_at_the_edges_of_the_grammar_sign_and_verify() {
    for id in accepted() {
        let frame = sign(&[("source", "telegram"), ("id", &id)], "hello");
        let report = verify(&frame);
        assert_eq!(reasons(&report), Vec::<&str>::new(), "{id:?}");
        assert_eq!(report.verified().count(), 1, "{id:?}");
        // The unchecked construction gives the same frame: the refusals below are the id's.
        assert_eq!(tagged_without_checks(&id), frame, "{id:?}");
    }
}

#[test]
fn a_frame_whose_id_is_outside_the_grammar_alarms_malformed_frame() {
    for (id, problem) in refused() {
        let frame = tagged_without_checks(&id);
        let report = verify(&frame);
        assert_eq!(reasons(&report), ["malformed_frame"], "{id:?}");
        assert_eq!(report.verified().count(), 0, "{id:?}");
        assert_eq!(report.new_ids().count(), 0, "{id:?}");
        match &report.frames()[0].outcome {
            FrameOutcome::Untrusted { cause, .. } => {
                assert_eq!(cause, &FrameCause::InvalidFrameId(problem), "{id:?}");
            }
            other => panic!("{id:?}: {other:?}"),
        }
        assert!(report.is_tainted());
    }
}

#[test]
fn a_footer_whose_id_is_outside_the_grammar_alarms_malformed_frame() {
    let key = master();
    let signer = FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW).unwrap();
    let good = format!(
        "hello{}",
        signer.sign_footer(&[("id", "f1")], "hello").unwrap()
    );
    let store = store();
    let config = config();
    let seen = MemoryReplayStore::new();
    let verifier = seal_verify::FrameVerifier::new(&config, &store, CONVERSATION, NOW, &seen);
    assert_eq!(verifier.verify_footer(&good).unwrap().verified().count(), 1);
    // A footer tagged over an id with a CR, built without the signer's checks.
    let fields = [("id", "f\r1"), ("iat", "1800000000"), ("kid", "k1")];
    let input =
        seal_record::FooterSigningInput::new("k1", "hmac-sha256", 22, &fields, b"hello").unwrap();
    let sig = master()
        .conversation_subkey(CONVERSATION)
        .unwrap()
        .sign(input.bytes())
        .to_text();
    let mut all = fields.to_vec();
    all.push(("sig", &sig));
    let tag = StartTag::new("seal-footer", &all).unwrap();
    let mut bad = String::from("hello\n");
    tag.write(&mut bad);
    tag.write_end(&mut bad);
    let report = verifier.verify_footer(&bad).unwrap();
    assert_eq!(reasons(&report), ["malformed_frame"]);
}
