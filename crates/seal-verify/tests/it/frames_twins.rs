//! Negative twins of a signed frame: one-bit flips of the key id, of each attribute, of the
//! attribute order, of the body, of the tag and of the key; truncated and extended tags; the
//! wrong key; the wrong algorithm. Every twin fails, and the untouched frame verifies.

use crate::frames_support::*;
use seal_record::FrameSigningInput;
use seal_render::render_frame;
use seal_verify::base64url;
use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
use seal_verify::{
    Algorithm, FrameSigner, FrameVerifier, HmacKey, HmacSecret, InboundReport, SigningKey,
    TagLength, UnixTime, VerifyingKey,
};

const ATTRIBUTES: [(&str, &str); 3] = [("source", "telegram"), ("id", "m42"), ("lane", "ops")];
const BODY: &str = "Deploy build 7 to staging.";

/// A store where `k1` and its one-bit twin `k0` are the same HMAC secret, and `e1` is Ed25519.
fn twin_store() -> MemoryTrustStore {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let validity = Validity {
        not_before: UnixTime(1_700_000_000),
        not_after: UnixTime(1_850_000_000),
    };
    let scopes = || Scopes {
        frames: vec![FrameScope::new(ELEMENT, vec![]).unwrap()],
        ..Scopes::default()
    };
    for id in ["k1", "k0"] {
        store
            .insert(
                KeyRecord::new(
                    id,
                    VerifyingKey::Hmac(master()),
                    validity,
                    KeyStatus::Active,
                    scopes(),
                )
                .unwrap(),
            )
            .unwrap();
    }
    store
        .insert(
            KeyRecord::new(
                "e1",
                VerifyingKey::Ed25519(ed_signer().public_key()),
                validity,
                KeyStatus::Active,
                scopes(),
            )
            .unwrap(),
        )
        .unwrap();
    store
}

fn check(text: &str) -> InboundReport<'_> {
    let store = twin_store();
    let config = config();
    FrameVerifier::new(
        &config,
        &store,
        CONVERSATION,
        NOW,
        &MemoryReplayStore::new(),
    )
    .verify(text)
    .unwrap()
}

fn verifies(text: &str) -> bool {
    let report = check(text);
    report.verified().count() == 1 && !report.is_tainted()
}

/// The frame with these attributes (kid included), this sig and this body, rendered strictly.
fn frame(attributes: &[(String, String)], sig: &str, body: &str) -> String {
    let mut all: Vec<(&str, &str)> = attributes
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    all.push(("sig", sig));
    render_frame(ELEMENT, &all, body).unwrap()
}

struct Signed {
    attributes: Vec<(String, String)>,
    sig: String,
}

fn signed(key_id: &str, key: SigningKey<'_>) -> Signed {
    let text = FrameSigner::new(key_id, key, CONVERSATION, NOW)
        .unwrap()
        .sign(ELEMENT, &ATTRIBUTES, BODY)
        .unwrap();
    let sig = text
        .split("sig=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let mut attributes: Vec<(String, String)> = ATTRIBUTES
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    attributes.push(("iat".to_owned(), NOW.to_string()));
    attributes.push(("kid".to_owned(), key_id.to_owned()));
    assert_eq!(frame(&attributes, &sig, BODY), text);
    Signed { attributes, sig }
}

/// Every text obtained by flipping the lowest bit of one character of `text`, keeping only
/// results that stay printable ASCII outside `"`, `<`, `>`, `\`.
fn bit_flips(text: &str) -> Vec<String> {
    (0..text.len())
        .filter_map(|at| {
            let mut bytes = text.as_bytes().to_vec();
            bytes[at] ^= 1;
            let c = bytes[at];
            let printable = (0x20..0x7f).contains(&c) && !matches!(c, b'"' | b'<' | b'>' | b'\\');
            printable.then(|| String::from_utf8(bytes).unwrap())
        })
        .collect()
}

/// A signing algorithm under test and how to sign the fixed frame with it.
struct KeyCase {
    name: &'static str,
    make: fn() -> Signed,
}

fn keys() -> [KeyCase; 2] {
    [
        KeyCase {
            name: "hmac",
            make: || signed("k1", SigningKey::Hmac(&master())),
        },
        KeyCase {
            name: "ed25519",
            make: || signed("e1", SigningKey::Ed25519(&ed_signer())),
        },
    ]
}

#[test]
fn the_untouched_frames_verify() {
    for KeyCase { name, make } in keys() {
        let s = make();
        assert!(verifies(&frame(&s.attributes, &s.sig, BODY)), "{name}");
    }
}

#[test]
fn one_bit_flips_of_every_attribute_value_and_the_key_id_fail() {
    for KeyCase { name, make } in keys() {
        let s = make();
        let mut twins = 0;
        for index in 0..s.attributes.len() {
            for flipped in bit_flips(&s.attributes[index].1) {
                let mut attributes = s.attributes.clone();
                attributes[index].1 = flipped;
                assert!(
                    !verifies(&frame(&attributes, &s.sig, BODY)),
                    "{name}: {attributes:?}"
                );
                twins += 1;
            }
            for flipped in bit_flips(&s.attributes[index].0) {
                if !seal_record::is_attribute_name(&flipped) || flipped == "sig" {
                    continue;
                }
                let mut attributes = s.attributes.clone();
                attributes[index].0 = flipped;
                if attributes
                    .iter()
                    .filter(|(n, _)| *n == attributes[index].0)
                    .count()
                    > 1
                {
                    continue;
                }
                assert!(
                    !verifies(&frame(&attributes, &s.sig, BODY)),
                    "{name}: {attributes:?}"
                );
                twins += 1;
            }
        }
        assert!(twins > 20, "{name}: {twins}");
    }
    // `k0` is a real key with the same secret: only the key id in the signing input tells them
    // apart.
    let s = signed("k1", SigningKey::Hmac(&master()));
    let mut attributes = s.attributes.clone();
    attributes.last_mut().unwrap().1 = "k0".to_owned();
    assert_eq!(
        reasons(&check(&frame(&attributes, &s.sig, BODY))),
        ["bad_signature"]
    );
}

#[test]
fn every_reordering_of_the_attributes_fails() {
    for KeyCase { name, make } in keys() {
        let s = make();
        let n = s.attributes.len();
        for a in 0..n {
            for b in (a + 1)..n {
                let mut attributes = s.attributes.clone();
                attributes.swap(a, b);
                assert_eq!(
                    reasons(&check(&frame(&attributes, &s.sig, BODY))),
                    ["bad_signature"],
                    "{name}: {attributes:?}"
                );
            }
        }
    }
}

#[test]
fn one_bit_flips_of_the_body_fail() {
    for KeyCase { name, make } in keys() {
        let s = make();
        let flips = bit_flips(BODY);
        assert!(flips.len() > 20);
        for body in flips {
            assert_eq!(
                reasons(&check(&frame(&s.attributes, &s.sig, &body))),
                ["bad_signature"],
                "{name}: {body}"
            );
        }
        // Appending or dropping one character fails too.
        assert!(!verifies(&frame(
            &s.attributes,
            &s.sig,
            &format!("{BODY} ")
        )));
        assert!(!verifies(&frame(&s.attributes, &s.sig, &BODY[1..])));
    }
}

#[test]
fn one_bit_flips_of_the_tag_fail() {
    for KeyCase { name, make } in keys() {
        let s = make();
        let bits = s.sig.len() * 6 - if name == "hmac" { 0 } else { 4 };
        let bytes = base64url::decode_bits(&s.sig, if name == "hmac" { 132 } else { 512 }).unwrap();
        for bit in 0..bits.min(bytes.len() * 8) {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 0x80 >> (bit % 8);
            let text = base64url::encode_bits(&flipped, if name == "hmac" { 132 } else { 512 });
            if text == s.sig {
                continue;
            }
            assert!(
                !verifies(&frame(&s.attributes, &text, BODY)),
                "{name}: bit {bit}"
            );
        }
        // Character-level flips of the text form (some land in padding bits: refused as encoding).
        for text in bit_flips(&s.sig) {
            assert!(
                !verifies(&frame(&s.attributes, &text, BODY)),
                "{name}: {text}"
            );
        }
    }
}

#[test]
fn truncated_and_extended_tags_fail_on_length() {
    for KeyCase { name, make } in keys() {
        let s = make();
        let truncated = &s.sig[..s.sig.len() - 1];
        let extended = format!("{}A", s.sig);
        for text in [truncated, extended.as_str(), "", &s.sig[..5]] {
            let twin = frame(&s.attributes, text, BODY);
            let report = check(&twin);
            assert_eq!(reasons(&report), ["bad_signature"], "{name}: {text}");
            let cause = format!("{:?}", report.frames()[0].outcome);
            assert!(cause.contains("Length"), "{name}: {cause}");
        }
    }
}

#[test]
fn a_one_bit_flip_of_the_key_and_a_wrong_key_fail() {
    let mut secret = hmac_secret();
    secret[0] ^= 1;
    let flipped = HmacKey::new(
        HmacSecret::from_bytes(&secret).unwrap(),
        TagLength::STANDARD,
    );
    let s = signed("k1", SigningKey::Hmac(&flipped));
    assert_eq!(
        reasons(&check(&frame(&s.attributes, &s.sig, BODY))),
        ["bad_signature"]
    );
    let s = signed("k1", SigningKey::Hmac(&other_master()));
    assert_eq!(
        reasons(&check(&frame(&s.attributes, &s.sig, BODY))),
        ["bad_signature"]
    );
    let other_ed = seal_verify::Ed25519SigningKey::from_seed(&[9; 32]).unwrap();
    let s = signed("e1", SigningKey::Ed25519(&other_ed));
    assert_eq!(
        reasons(&check(&frame(&s.attributes, &s.sig, BODY))),
        ["bad_signature"]
    );
    // A master key tag (no conversation subkey) fails as well.
    let s = signed("k1", SigningKey::Hmac(&master()));
    let attributes: Vec<(&str, &str)> = s
        .attributes
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let input = FrameSigningInput::new(
        "k1",
        "hmac-sha256",
        22,
        ELEMENT,
        &attributes,
        BODY.as_bytes(),
    )
    .unwrap();
    let master_tag = master().sign(input.bytes()).to_text();
    assert!(!verifies(&frame(&s.attributes, &master_tag, BODY)));
}

#[test]
fn the_wrong_algorithm_fails() {
    // An Ed25519 signature presented under the HMAC key id, and an HMAC tag under the Ed25519 id.
    let ed = signed("e1", SigningKey::Ed25519(&ed_signer()));
    let mut attributes = ed.attributes.clone();
    attributes.last_mut().unwrap().1 = "k1".to_owned();
    assert_eq!(
        reasons(&check(&frame(&attributes, &ed.sig, BODY))),
        ["bad_signature"]
    );
    let hmac = signed("k1", SigningKey::Hmac(&master()));
    let mut attributes = hmac.attributes.clone();
    attributes.last_mut().unwrap().1 = "e1".to_owned();
    assert_eq!(
        reasons(&check(&frame(&attributes, &hmac.sig, BODY))),
        ["bad_signature"]
    );
    // The right key bytes with the algorithm piece of the signing input changed: the tag differs.
    let subkey = master().conversation_subkey(CONVERSATION).unwrap();
    let pairs: Vec<(&str, &str)> = hmac
        .attributes
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    for algorithm in [Algorithm::Ed25519.name(), "hmac-sha512", "HMAC-SHA256"] {
        let input =
            FrameSigningInput::new("k1", algorithm, 22, ELEMENT, &pairs, BODY.as_bytes()).unwrap();
        let tag = subkey.sign(input.bytes()).to_text();
        assert_eq!(
            reasons(&check(&frame(&hmac.attributes, &tag, BODY))),
            ["bad_signature"],
            "{algorithm}"
        );
    }
    // And with the right algorithm the hand-built tag is the signer's.
    let input =
        FrameSigningInput::new("k1", "hmac-sha256", 22, ELEMENT, &pairs, BODY.as_bytes()).unwrap();
    assert_eq!(subkey.sign(input.bytes()).to_text(), hmac.sig);
}
