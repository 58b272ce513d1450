//! Every Wycheproof HMAC-SHA256 and Ed25519 case through this crate's API: a key built from the
//! vector's key with the tag length of the vector's `tagSize`, and this crate's verify.
//!
//! Both HMAC tag sizes in the file (256 and 128 bits) lie within the floor and the maximum of
//! `TagLength::from_bits`, so every case runs through `HmacKey::verify` and `verify_text`. Neither
//! is a whole-character length, so a store document cannot bind them (its `tag_chars` gives
//! multiples of six bits); that refusal, and the lengths no key accepts (below 96 bits, compact
//! without both compensating controls), are exercised in `keys.rs` and `trust_store.rs`. Each case
//! is also run against a key of the file's other tag size, which must refuse it on length.

use seal_verify::base64url;
use seal_verify::{Ed25519PublicKey, HmacKey, HmacSecret, SignatureError, TagLength, VerifyingKey};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!(
        "{}/../../vectors/wycheproof/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bytes(value: &Value) -> Vec<u8> {
    hex::decode(value.as_str().unwrap()).unwrap()
}

#[test]
fn hmac_sha256_every_case() {
    let file = load("hmac_sha256_test.json");
    let (mut valid, mut invalid) = (0, 0);
    for group in file["testGroups"].as_array().unwrap() {
        let tag_bits = u16::try_from(group["tagSize"].as_u64().unwrap()).unwrap();
        let length = TagLength::from_bits(tag_bits).unwrap();
        for case in group["tests"].as_array().unwrap() {
            let id = case["tcId"].as_u64().unwrap();
            let key = HmacKey::new(
                HmacSecret::from_bytes(&bytes(&case["key"])).unwrap(),
                length,
            );
            let message = bytes(&case["msg"]);
            let tag = bytes(&case["tag"]);
            let text = base64url::encode_bits(&tag, usize::from(tag_bits));
            let binary = key.verify(&message, &tag);
            let textual = key.verify_text(&message, &text);
            match case["result"].as_str().unwrap() {
                "valid" => {
                    valid += 1;
                    assert_eq!(binary, Ok(()), "case {id}");
                    assert_eq!(textual, Ok(()), "case {id}");
                    assert_eq!(key.sign(&message).as_bytes(), tag.as_slice(), "case {id}");
                    assert_eq!(key.sign(&message).to_text(), text, "case {id}");
                }
                "invalid" => {
                    invalid += 1;
                    assert_eq!(binary, Err(SignatureError::Mismatch), "case {id}");
                    assert_eq!(textual, Err(SignatureError::Mismatch), "case {id}");
                }
                other => panic!("case {id}: result {other}"),
            }
            // The same case under the other length the file uses fails on length, before any
            // comparison: the key, not the tag, decides the length.
            let other_bits = if tag_bits == 256 { 128 } else { 256 };
            let other = HmacKey::new(
                HmacSecret::from_bytes(&bytes(&case["key"])).unwrap(),
                TagLength::from_bits(other_bits).unwrap(),
            );
            assert!(
                matches!(
                    other.verify(&message, &tag),
                    Err(SignatureError::Length { .. })
                ),
                "case {id}"
            );
            assert!(
                matches!(
                    other.verify_text(&message, &text),
                    Err(SignatureError::Length { .. })
                ),
                "case {id}"
            );
        }
    }
    assert_eq!((valid, invalid), (66, 108));
}

#[test]
fn ed25519_every_case() {
    let file = load("ed25519_test.json");
    let (mut valid, mut invalid) = (0, 0);
    for group in file["testGroups"].as_array().unwrap() {
        let public = Ed25519PublicKey::from_bytes(&bytes(&group["publicKey"]["pk"])).unwrap();
        let key = VerifyingKey::Ed25519(public);
        for case in group["tests"].as_array().unwrap() {
            let id = case["tcId"].as_u64().unwrap();
            let message = bytes(&case["msg"]);
            let signature = bytes(&case["sig"]);
            let binary = key.verify(&message, &signature);
            match case["result"].as_str().unwrap() {
                "valid" => {
                    valid += 1;
                    assert_eq!(binary, Ok(()), "case {id}");
                    let text = base64url::encode(&signature);
                    assert_eq!(key.verify_text(&message, &text), Ok(()), "case {id}");
                }
                "invalid" => {
                    invalid += 1;
                    assert!(binary.is_err(), "case {id}");
                    if signature.len() != 64 {
                        assert!(
                            matches!(binary, Err(SignatureError::Length { .. })),
                            "case {id}"
                        );
                    }
                    // The text form of a 64-byte invalid signature fails too; a text of any
                    // other length is refused as a length before ring is called.
                    let text = base64url::encode(&signature);
                    assert!(key.verify_text(&message, &text).is_err(), "case {id}");
                }
                other => panic!("case {id}: result {other}"),
            }
        }
    }
    assert_eq!(valid + invalid, 151);
}
