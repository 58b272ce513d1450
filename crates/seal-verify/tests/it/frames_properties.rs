//! Property suites of frame verification, each also run against a deliberately broken verifier
//! with a fixed seed, which it must catch:
//!
//! - nothing verifies but what was signed: after any one-character edit of a signed frame, every
//!   trusted frame has exactly the signed header and body (negative control: a verifier that
//!   compares all but the last tag character);
//! - a signed frame quoted inside another frame's body is never trusted (negative control: a
//!   verifier that checks signatures at every depth).

use crate::frames_support::*;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_parse::frame::{scan, FrameFinding};
use seal_record::FrameSigningInput;
use seal_test_support::seeded;
use seal_verify::store::{verify_signature_in_conversation, Purpose};
use seal_verify::FrameVerifier;

/// A frame some verifier trusts: its depth, header bytes and body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Trusted {
    depth: usize,
    header: String,
    body: String,
}

type Verifier = fn(&str) -> Vec<Trusted>;

/// The real verifier.
fn real(text: &str) -> Vec<Trusted> {
    let store = store();
    let config = config();
    let seen = MemoryReplayStore::new();
    let report = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &seen)
        .verify(text)
        .unwrap();
    report
        .frames()
        .iter()
        .filter_map(|frame| {
            frame.verified().map(|verified| Trusted {
                depth: frame.depth,
                header: verified.header().of(text).unwrap().to_owned(),
                body: verified.body().of(text).unwrap().to_owned(),
            })
        })
        .collect()
}

/// Broken: accepts a tag whose first 21 characters are right.
fn prefix_comparing(text: &str) -> Vec<Trusted> {
    let subkey = master().conversation_subkey(CONVERSATION).unwrap();
    strict_frames(text)
        .into_iter()
        .filter(|(frame, _)| frame.depth == 1)
        .filter_map(|(frame, sig)| {
            let input =
                FrameSigningInput::for_scanned_frame("k1", "hmac-sha256", 22, &frame, text).ok()?;
            let genuine = subkey.sign(input.bytes()).to_text();
            (sig.len() == 22 && sig.get(..21) == genuine.get(..21)).then(|| trusted(&frame, text))
        })
        .collect()
}

/// Broken: checks the signature of every strict frame, nested or not.
fn depth_blind(text: &str) -> Vec<Trusted> {
    let store = store();
    strict_frames(text)
        .into_iter()
        .filter_map(|(frame, sig)| {
            let input =
                FrameSigningInput::for_scanned_frame("k1", "hmac-sha256", 22, &frame, text).ok()?;
            let attributes: Vec<(&str, &str)> = frame
                .attributes
                .iter()
                .filter(|a| a.name != "sig")
                .map(|a| (a.name, a.value()))
                .collect();
            let purpose = Purpose::Frame {
                element: ELEMENT,
                attributes: &attributes,
            };
            verify_signature_in_conversation(
                &store,
                "k1",
                purpose,
                NOW,
                CONVERSATION,
                input.bytes(),
                &sig,
            )
            .ok()
            .map(|_| trusted(&frame, text))
        })
        .collect()
}

fn strict_frames(text: &str) -> Vec<(seal_parse::frame::Frame<'_>, String)> {
    scan(text, config().scan())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|finding| match finding {
            FrameFinding::Frame(frame) => {
                let sig = frame
                    .attributes
                    .last()
                    .filter(|a| a.name == "sig")?
                    .value
                    .to_string();
                Some((frame, sig))
            }
            FrameFinding::Suspect(_) => None,
        })
        .collect()
}

fn trusted(frame: &seal_parse::frame::Frame<'_>, text: &str) -> Trusted {
    Trusted {
        depth: frame.depth,
        header: frame.header.of(text).unwrap().to_owned(),
        body: frame.body.of(text).unwrap().to_owned(),
    }
}

/// Ids in the frame id grammar (spec/frame-v1.md section 7.1), the only ids a signer writes.
fn frame_id() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._:~-]{1,128}"
}

/// Text mixing frame syntax with hostile characters.
fn hostile() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "Z",
        "0",
        " ",
        "\n",
        "\t",
        "\\",
        "\"",
        "<",
        ">",
        "/",
        "=",
        "</channel>",
        "<\\/channel>",
        "<channel id=\"x\">",
        "\u{ff1c}",
        "\u{200b}",
        "\u{202e}",
        "\u{e0041}",
        "\u{0}",
        "\u{7f}",
        "é",
        "\u{10ffff}",
    ]);
    prop::collection::vec(pieces, 0..12).prop_map(|parts| parts.concat())
}

#[derive(Debug, Clone)]
enum Edit {
    Delete,
    Insert(char),
    Replace(char),
}

fn edit() -> impl Strategy<Value = (bool, usize, Edit)> {
    let chars = prop::sample::select(vec![
        'A', 'a', '0', '"', '<', '>', '\\', ' ', '\n', '_', '-', '=', '/',
    ]);
    (
        any::<bool>(),
        any::<usize>(),
        prop_oneof![
            Just(Edit::Delete),
            chars.clone().prop_map(Edit::Insert),
            chars.prop_map(Edit::Replace),
        ],
    )
}

fn apply(text: &str, in_sig: bool, at: usize, edit: &Edit) -> String {
    let sig_start = text.find(" sig=\"").unwrap() + 6;
    let at = if in_sig {
        sig_start + at % 22
    } else {
        at % (text.len() + 1)
    };
    let mut bytes = text.as_bytes().to_vec();
    match edit {
        Edit::Delete if at < bytes.len() => {
            bytes.remove(at);
        }
        Edit::Insert(c) => bytes.insert(at.min(bytes.len()), *c as u8),
        Edit::Replace(c) if at < bytes.len() => bytes[at] = *c as u8,
        _ => {}
    }
    String::from_utf8(bytes).unwrap()
}

fn tamper_property(verifier: Verifier, runner: &mut TestRunner) -> Result<(), String> {
    runner
        .run(
            &(hostile(), frame_id(), hostile(), edit()),
            |(source, id, body, (in_sig, at, edit))| {
                let text = sign(&[("source", &source), ("id", &id)], &body);
                let (header, rest) = text.split_at(text.find('>').unwrap() + 1);
                let signed_body = rest.strip_suffix("</channel>").unwrap();
                let edited = apply(&text, in_sig, at, &edit);
                for frame in verifier(&edited) {
                    prop_assert_eq!(&frame.header, header, "edited: {:?}", edited);
                    prop_assert_eq!(&frame.body, signed_body, "edited: {:?}", edited);
                }
                Ok(())
            },
        )
        .map_err(|error| error.to_string())
}

fn nesting_property(verifier: Verifier, runner: &mut TestRunner) -> Result<(), String> {
    runner
        .run(
            &(hostile(), hostile(), hostile()),
            |(before, body, after)| {
                let inner = sign(&[("id", "inner")], &body);
                let outer = sign_raw(&[("id", "outer")], &format!("{before}{inner}{after}"));
                for frame in verifier(&outer) {
                    prop_assert_eq!(frame.depth, 1, "trusted nested frame in {:?}", outer);
                }
                Ok(())
            },
        )
        .map_err(|error| error.to_string())
}

#[test]
fn nothing_verifies_but_what_was_signed() {
    tamper_property(real, &mut seeded(512)).unwrap();
}

#[test]
fn negative_control_a_prefix_comparing_verifier_is_caught() {
    let error = tamper_property(prefix_comparing, &mut seeded(512)).unwrap_err();
    assert!(error.contains("edited"), "{error}");
}

#[test]
fn a_quoted_signed_frame_is_never_trusted() {
    nesting_property(real, &mut seeded(256)).unwrap();
}

#[test]
fn negative_control_a_depth_blind_verifier_is_caught() {
    let error = nesting_property(depth_blind, &mut seeded(256)).unwrap_err();
    assert!(error.contains("trusted nested frame"), "{error}");
}

#[test]
fn the_broken_verifiers_agree_with_the_real_one_on_untouched_frames() {
    // So the controls fail for the property's reason, not because they never accept.
    let text = sign(&[("source", "s"), ("id", "m1")], "body");
    assert_eq!(real(&text), prefix_comparing(&text));
    assert_eq!(real(&text), depth_blind(&text));
    assert_eq!(real(&text).len(), 1);
}
