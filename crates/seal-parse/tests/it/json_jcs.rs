//! RFC 8785 examples (cyberphone/json-canonicalization testdata): input -> canonical bytes.

use seal_parse::json::{canonicalize, canonicalize_with, JsonErrorKind, JsonLimits, NumberRule};
use sha2::{Digest, Sha256};

const JCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/jcs");

fn read(kind: &str, name: &str) -> Vec<u8> {
    std::fs::read(format!("{JCS}/{kind}/{name}")).unwrap()
}

fn outhex(name: &str) -> Vec<u8> {
    let text = String::from_utf8(read("outhex", &format!("{name}.txt"))).unwrap();
    text.split_whitespace()
        .map(|pair| u8::from_str_radix(pair, 16).unwrap())
        .collect()
}

fn check(name: &str, rule: NumberRule) {
    let input = read("input", &format!("{name}.json"));
    let expected = read("output", &format!("{name}.json"));
    assert_eq!(expected, outhex(name), "{name}: output and outhex disagree");
    let canonical = canonicalize_with(&input, &JsonLimits::default(), rule).unwrap();
    assert_eq!(
        String::from_utf8_lossy(canonical.as_bytes()),
        String::from_utf8_lossy(&expected),
        "{name}"
    );
    assert_eq!(canonical.as_bytes(), &expected[..], "{name}");
    let digest: [u8; 32] = Sha256::digest(&expected).into();
    assert_eq!(canonical.sha256(), digest, "{name}");
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    assert_eq!(canonical.sha256_hex(), hex, "{name}");
    // Canonical bytes are a fixed point.
    assert_eq!(
        canonicalize(canonical.as_bytes(), &JsonLimits::default()).unwrap(),
        canonical
    );
}

#[test]
fn arrays() {
    check("arrays", NumberRule::Exact);
}

#[test]
fn french() {
    check("french", NumberRule::Exact);
}

#[test]
fn structures() {
    check("structures", NumberRule::Exact);
}

#[test]
fn unicode() {
    check("unicode", NumberRule::Exact);
}

#[test]
fn weird_orders_keys_by_utf16_code_units() {
    check("weird", NumberRule::Exact);
}

/// `values.json` writes `333333333.33333329`, which is not exactly a double: the strict profile
/// rejects it, naming the nearest double; RFC 8785's rounding behaviour is available as
/// `NumberRule::Nearest` and then reproduces the expected bytes exactly.
#[test]
fn values_is_rejected_strictly_and_exact_under_nearest() {
    let input = read("input", "values.json");
    let error = canonicalize(&input, &JsonLimits::default()).unwrap_err();
    assert_eq!(
        error.kind,
        JsonErrorKind::NumberNotExact {
            literal: "333333333.33333329".into(),
            nearest: "333333333.3333333".into()
        }
    );
    assert_eq!(error.path, "$.numbers[0]");
    assert_eq!(
        &input[error.offset..error.offset + 18],
        b"333333333.33333329"
    );
    check("values", NumberRule::Nearest);
}
