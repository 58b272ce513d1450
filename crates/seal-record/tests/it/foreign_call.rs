//! Sealed calls of a foreign client: arguments read with the lossless profile are frozen,
//! hashed and read back exactly as the client sent them (spec/records.md section 5).

use seal_parse::json::JsonLimits;
use seal_record::{Record, RecordError, SealedCall};

/// A client's arguments as it wrote them: spacing, member order, an uppercase escape.
const ARGS: &[u8] = br#"{ "file_path": "/ws/a.txt", "count": 12345678901234567000, "content": "\uD800 half an emoji" }"#;
const ARGS_LAST_DIGIT: &[u8] = br#"{ "file_path": "/ws/a.txt", "count": 12345678901234567001, "content": "\uD800 half an emoji" }"#;

/// The frozen bytes, and their SHA-256 computed outside this code (`printf '%s' ... | sha256sum`).
const FROZEN: &str =
    r#"{"content":"\ud800 half an emoji","count":12345678901234567000,"file_path":"/ws/a.txt"}"#;
const FROZEN_SHA256: &str = "a6d628c9755c162e5db4e3d6459afeee250c5545da991ba7e92fa7d77567874a";
const FROZEN_LAST_DIGIT_SHA256: &str =
    "9947051e1ca658c68587636e1bb271d5e1f248cfda0a39ced2827e2cdbfdd640";

fn foreign(arguments: &[u8]) -> SealedCall {
    SealedCall::from_foreign_json_arguments("toolu_01", "Write", arguments, &JsonLimits::default())
        .unwrap()
}

#[test]
fn foreign_arguments_freeze_exactly_with_a_fixed_digest() {
    let call = foreign(ARGS);
    assert_eq!(call.arguments_bytes(), FROZEN.as_bytes());
    assert_eq!(call.arguments_sha256().to_hex(), FROZEN_SHA256);
    // Sealing again, or sealing the frozen bytes, gives the same digest.
    assert_eq!(foreign(ARGS), call);
    assert_eq!(
        foreign(FROZEN.as_bytes()).arguments_sha256(),
        call.arguments_sha256()
    );
}

#[test]
fn the_last_digit_of_a_big_integer_changes_the_digest() {
    let call = foreign(ARGS);
    let other = foreign(ARGS_LAST_DIGIT);
    assert_eq!(other.arguments_sha256().to_hex(), FROZEN_LAST_DIGIT_SHA256);
    assert_ne!(other.arguments_sha256(), call.arguments_sha256());
}

#[test]
fn a_lone_surrogate_is_not_a_string_argument() {
    let call = foreign(ARGS);
    let arguments = call.arguments().as_object().unwrap();
    assert_eq!(
        arguments.get("file_path").unwrap().as_str(),
        Some("/ws/a.txt")
    );
    assert_eq!(arguments.get("content").unwrap().as_str(), None);
    let repaired = foreign(br#"{"file_path":"/ws/a.txt","count":12345678901234567000,"content":"\ufffd half an emoji"}"#);
    assert_ne!(repaired.arguments_sha256(), call.arguments_sha256());
}

#[test]
fn the_strict_entry_still_refuses_foreign_arguments() {
    for (arguments, kind) in [
        (
            &br#"{"count":12345678901234567000}"#[..],
            "integer_out_of_range",
        ),
        (br#"{"content":"\ud800"}"#, "lone_surrogate"),
    ] {
        let error = SealedCall::from_json_arguments("c", "t", arguments, &JsonLimits::default())
            .unwrap_err();
        let RecordError::Arguments(json) = error else {
            panic!("{error}")
        };
        assert_eq!(json.kind.name(), kind);
        assert!(SealedCall::from_foreign_json_arguments(
            "c",
            "t",
            arguments,
            &JsonLimits::default()
        )
        .is_ok());
    }
}

#[test]
fn duplicate_keys_are_refused_for_foreign_arguments_too() {
    let error = SealedCall::from_foreign_json_arguments(
        "c",
        "Bash",
        br#"{"command":"ls","command":"rm -rf /"}"#,
        &JsonLimits::default(),
    )
    .unwrap_err();
    let RecordError::Arguments(json) = error else {
        panic!("{error}")
    };
    assert_eq!(json.kind.name(), "duplicate_key");
}

#[test]
fn the_record_of_a_foreign_call_reads_back_losslessly() {
    let call = foreign(ARGS);
    let record = call.canonical();
    let text = std::str::from_utf8(record.as_bytes()).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"_type":"seal/call/v1","arguments":{FROZEN},"arguments_sha256":"{FROZEN_SHA256}","call_id":"toolu_01","tool":"Write"}}"#
        )
    );
    let read = SealedCall::from_foreign_json(record.as_bytes(), &JsonLimits::default()).unwrap();
    assert_eq!(read, call);
    // The strict reader refuses it rather than rounding it.
    let strict = SealedCall::from_json(record.as_bytes(), &JsonLimits::default()).unwrap_err();
    assert!(matches!(strict, RecordError::Json(_)), "{strict}");
    // A digest that does not match is caught by the lossless reader as by the strict one.
    let tampered = text.replace("12345678901234567000", "12345678901234567001");
    assert_eq!(
        SealedCall::from_foreign_json(tampered.as_bytes(), &JsonLimits::default()).unwrap_err(),
        RecordError::ArgumentsDigestMismatch
    );
}

#[test]
fn strict_calls_read_the_same_under_both_readers() {
    let strict = SealedCall::from_json_arguments(
        "c",
        "Bash",
        br#"{"command":"git status","n":1.0}"#,
        &JsonLimits::default(),
    )
    .unwrap();
    let record = strict.canonical();
    assert_eq!(
        SealedCall::from_foreign_json(record.as_bytes(), &JsonLimits::default()).unwrap(),
        SealedCall::from_json(record.as_bytes(), &JsonLimits::default()).unwrap()
    );
}
