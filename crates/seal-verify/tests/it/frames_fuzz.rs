//! The fuzz entry points for frame verification and manifest verification, run over the golden
//! vectors, attack texts, their mutations and generated hostile text.

use proptest::prelude::*;
use seal_test_support::{committed_vector, spec_vector};
use seal_verify::fuzz::{frame_verification, manifest_verification};
use serde_json::Value;

const FRAME_VECTORS: &str = "frame-signing-v1.json";
const SCAN_VECTORS: &str = "frame-v1.json";
const MANIFEST_VECTORS: &str = "manifest-v1.json";

fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_in(item, out)),
        Value::Object(members) => members.values().for_each(|item| strings_in(item, out)),
        _ => {}
    }
}

fn corpus(path: &std::path::Path) -> Vec<String> {
    let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    strings_in(&value, &mut out);
    out
}

#[test]
fn frame_verification_holds_on_the_vectors_and_their_mutations() {
    let mut texts = corpus(&spec_vector(FRAME_VECTORS));
    texts.extend(corpus(&spec_vector(SCAN_VECTORS)));
    texts.push(String::new());
    texts
        .push("<channel kid=\"k1\" id=\"x\" sig=\"AAAAAAAAAAAAAAAAAAAAAA\">x</channel>".to_owned());
    texts.push("<channel>".repeat(40));
    texts.push("</channel>".repeat(40));
    texts.push(
        "\n<seal-footer id=\"f\" kid=\"k1\" sig=\"AAAAAAAAAAAAAAAAAAAAAA\"></seal-footer>\n"
            .to_owned(),
    );
    let mut checked = 0;
    for text in &texts {
        frame_verification(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        checked += 1;
        // Byte-level mutations: drop, duplicate and flip each of the first 200 bytes.
        let bytes = text.as_bytes();
        for at in 0..bytes.len().min(200) {
            let mut dropped = bytes.to_vec();
            dropped.remove(at);
            let mut flipped = bytes.to_vec();
            flipped[at] ^= 0x20;
            for mutated in [dropped, flipped] {
                frame_verification(&mutated).unwrap_or_else(|e| panic!("{mutated:?}: {e}"));
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn manifest_verification_holds_on_the_vectors_and_their_mutations() {
    let value: Value = committed_vector(MANIFEST_VECTORS);
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for section in ["valid", "invalid"] {
        if let Some(cases) = value[section].as_array() {
            for case in cases {
                let mut strings = Vec::new();
                strings_in(case, &mut strings);
                inputs.extend(strings.into_iter().map(String::into_bytes));
            }
        }
    }
    inputs.push(b"payload".to_vec());
    inputs.push(Vec::new());
    let mut accepted = 0;
    for input in &inputs {
        manifest_verification(input)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(input)));
        if seal_record::Manifest::from_json(input, &Default::default()).is_ok() {
            accepted += 1;
            for at in 0..input.len().min(300) {
                let mut flipped = input.clone();
                flipped[at] ^= 0x01;
                manifest_verification(&flipped).unwrap();
            }
        }
    }
    assert!(accepted > 0, "the vectors hold accepted manifests");
}

/// Text with the characters frames are made of and the hostile ones readers stumble on.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "<",
        ">",
        "/",
        "\\",
        "\"",
        "=",
        " ",
        "\n",
        "\t",
        "\r",
        "channel",
        "CHANNEL",
        "seal-footer",
        "<channel",
        "</channel>",
        "<\\/channel>",
        " id=\"a\"",
        " kid=\"k1\"",
        " sig=\"AAAAAAAAAAAAAAAAAAAAAA\"",
        "\u{ff1c}",
        "\u{ff1e}",
        "\u{2215}",
        "\u{200b}",
        "\u{202e}",
        "\u{e0041}",
        "\u{fe0f}",
        "\u{0}",
        "\u{7f}",
        "\u{85}",
        "\u{feff}",
        "\u{d7ff}",
        "\u{e000}",
        "\u{10ffff}",
        "é",
        "x",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(256))]

    #[test]
    fn frame_verification_holds_on_generated_text(text in hostile_text()) {
        prop_assert!(frame_verification(text.as_bytes()).is_ok(), "{:?}", frame_verification(text.as_bytes()));
    }

    #[test]
    fn frame_verification_holds_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        prop_assert!(frame_verification(&bytes).is_ok());
    }

    #[test]
    fn manifest_verification_holds_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        prop_assert!(manifest_verification(&bytes).is_ok());
    }
}
