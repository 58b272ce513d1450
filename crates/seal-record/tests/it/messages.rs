//! Error messages as an operator reads them: one snapshot per error family. Messages are
//! lowercase, without trailing period, with user input quoted in backticks and escaped.

use seal_record::{
    canonical_path, verify_log, ApprovalAsked, FrameSigningInput, Log, Manifest, ManifestLimits,
    Outcome, Sha256Digest,
};

fn lines(items: impl IntoIterator<Item = (String, String)>) -> String {
    items
        .into_iter()
        .map(|(input, message)| format!("{input}\n    -> {message}\n"))
        .collect()
}

#[test]
fn path_errors() {
    let inputs = [
        "",
        "..",
        "a/../../b",
        "/etc/passwd",
        "src\\lib.rs",
        "a\nb",
        "\u{202e}/../..",
    ];
    let text = lines(inputs.iter().map(|input| {
        let message = canonical_path(input).map_or_else(|e| e.to_string(), |p| format!("ok `{p}`"));
        (format!("{input:?}"), message)
    }));
    insta::assert_snapshot!("path_errors", text);
}

#[test]
fn manifest_errors() {
    let doc: serde_json::Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../spec/vectors/manifest-v1.json"
    )))
    .unwrap();
    let text = lines(doc["invalid"].as_array().unwrap().iter().map(|case| {
        let error = Manifest::from_json(
            case["json"].as_str().unwrap().as_bytes(),
            &ManifestLimits::default(),
        )
        .unwrap_err();
        (case["name"].as_str().unwrap().to_owned(), error.to_string())
    }));
    insta::assert_snapshot!("manifest_errors", text);
}

#[test]
fn signing_input_and_record_errors() {
    let mut items = Vec::new();
    for (name, attributes) in [
        ("sig passed", vec![("sig", "x")]),
        ("duplicate", vec![("id", "1"), ("id", "2")]),
        ("bad name", vec![("Id\u{202e}", "1")]),
    ] {
        let error = FrameSigningInput::new("k", "a", 1, "channel", &attributes, b"").unwrap_err();
        items.push((name.to_owned(), error.to_string()));
    }
    let error = FrameSigningInput::new("k", "a", 1, "Chan<nel>", &[], b"").unwrap_err();
    items.push(("bad element".to_owned(), error.to_string()));
    let error = ApprovalAsked::new("a 1", "t", None, None).unwrap_err();
    items.push(("approval id with space".to_owned(), error.to_string()));
    let error = ApprovalAsked::new("a", "t", None, Some("x\u{2066}y")).unwrap_err();
    items.push(("reason with bidi isolate".to_owned(), error.to_string()));
    let error = Outcome::from_name("Allowed-Once").unwrap_err();
    items.push(("outcome".to_owned(), error.to_string()));
    let error = Sha256Digest::from_hex("ABC").unwrap_err();
    items.push(("digest".to_owned(), error.to_string()));
    insta::assert_snapshot!("signing_input_and_record_errors", lines(items));
}

#[test]
fn log_breaks() {
    let mut log = Log::new();
    log.append_canonical(br#"{"_type":"note","n":1}"#).unwrap();
    log.append_canonical(br#"{"_type":"note","n":2}"#).unwrap();
    let mut items = Vec::new();
    let mut gap = log.entries().to_vec();
    gap.remove(0);
    items.push((
        "first entry removed".to_owned(),
        verify_log(&gap).unwrap_err().to_string(),
    ));
    let mut edited = log.entries().to_vec();
    edited[1].record = br#"{"_type":"note","n":3}"#.to_vec();
    items.push((
        "record edited".to_owned(),
        verify_log(&edited).unwrap_err().to_string(),
    ));
    let mut spaced = log.entries().to_vec();
    spaced[0].record = br#"{"_type": "note","n":1}"#.to_vec();
    items.push((
        "record respaced".to_owned(),
        verify_log(&spaced).unwrap_err().to_string(),
    ));
    insta::assert_snapshot!("log_breaks", lines(items));
}
