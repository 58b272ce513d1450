//! JSONTestSuite (nst/JSONTestSuite): every `y_` file parses except the duplicate-key exceptions,
//! every `n_` file is rejected, every `i_` file is decided as recorded here and in
//! spec/canonical-json.md, and the transform cases behave as recorded.

use std::collections::BTreeSet;

use seal_parse::json::{canonicalize, JsonErrorKind, JsonLimits};

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/jsontestsuite");

/// `y_` files that the profile rejects: RFC 8259 only says names SHOULD be unique; a canonical
/// form cannot keep two members with one key without choosing one silently.
const DUPLICATE_KEY_EXCEPTIONS: &[&str] = &[
    "y_object_duplicated_key.json",
    "y_object_duplicated_key_and_value.json",
];

/// Decision for every implementation-defined `i_` file: `None` accepts, `Some(kind)` rejects
/// with that error kind. Same table as spec/canonical-json.md.
const I_DECISIONS: &[(&str, Option<&str>)] = &[
    (
        "i_number_double_huge_neg_exp.json",
        Some("number_not_exact"),
    ),
    ("i_number_huge_exp.json", Some("number_out_of_range")),
    (
        "i_number_neg_int_huge_exp.json",
        Some("number_out_of_range"),
    ),
    (
        "i_number_pos_double_huge_exp.json",
        Some("number_out_of_range"),
    ),
    (
        "i_number_real_neg_overflow.json",
        Some("number_out_of_range"),
    ),
    (
        "i_number_real_pos_overflow.json",
        Some("number_out_of_range"),
    ),
    ("i_number_real_underflow.json", Some("number_not_exact")),
    (
        "i_number_too_big_neg_int.json",
        Some("integer_out_of_range"),
    ),
    (
        "i_number_too_big_pos_int.json",
        Some("integer_out_of_range"),
    ),
    (
        "i_number_very_big_negative_int.json",
        Some("integer_out_of_range"),
    ),
    (
        "i_object_key_lone_2nd_surrogate.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_1st_surrogate_but_2nd_missing.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_1st_valid_surrogate_2nd_invalid.json",
        Some("lone_surrogate"),
    ),
    ("i_string_UTF-16LE_with_BOM.json", Some("invalid_utf8")),
    ("i_string_UTF-8_invalid_sequence.json", Some("invalid_utf8")),
    ("i_string_UTF8_surrogate_U+D800.json", Some("invalid_utf8")),
    (
        "i_string_incomplete_surrogate_and_escape_valid.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_incomplete_surrogate_pair.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_incomplete_surrogates_escape_valid.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_invalid_lonely_surrogate.json",
        Some("lone_surrogate"),
    ),
    ("i_string_invalid_surrogate.json", Some("lone_surrogate")),
    ("i_string_invalid_utf-8.json", Some("invalid_utf8")),
    (
        "i_string_inverted_surrogates_U+1D11E.json",
        Some("lone_surrogate"),
    ),
    ("i_string_iso_latin_1.json", Some("invalid_utf8")),
    (
        "i_string_lone_second_surrogate.json",
        Some("lone_surrogate"),
    ),
    (
        "i_string_lone_utf8_continuation_byte.json",
        Some("invalid_utf8"),
    ),
    ("i_string_not_in_unicode_range.json", Some("invalid_utf8")),
    (
        "i_string_overlong_sequence_2_bytes.json",
        Some("invalid_utf8"),
    ),
    (
        "i_string_overlong_sequence_6_bytes.json",
        Some("invalid_utf8"),
    ),
    (
        "i_string_overlong_sequence_6_bytes_null.json",
        Some("invalid_utf8"),
    ),
    ("i_string_truncated-utf-8.json", Some("invalid_utf8")),
    ("i_string_utf16BE_no_BOM.json", Some("invalid_utf8")),
    ("i_string_utf16LE_no_BOM.json", Some("invalid_utf8")),
    ("i_structure_500_nested_arrays.json", Some("depth_exceeded")),
    (
        "i_structure_UTF-8_BOM_empty_object.json",
        Some("byte_order_mark"),
    ),
];

/// Transform cases: accepted ones with their canonical bytes, rejected ones with the error kind.
const TRANSFORMS: &[(&str, Result<&str, &str>)] = &[
    (
        "number_-9223372036854775808.json",
        Err("integer_out_of_range"),
    ),
    (
        "number_-9223372036854775809.json",
        Err("integer_out_of_range"),
    ),
    ("number_1.0.json", Ok("[1]")),
    ("number_1.000000000000000005.json", Err("number_not_exact")),
    ("number_1000000000000000.json", Ok("[1000000000000000]")),
    (
        "number_10000000000000000999.json",
        Err("integer_out_of_range"),
    ),
    ("number_1e-999.json", Err("number_not_exact")),
    ("number_1e6.json", Ok("[1000000]")),
    (
        "number_9223372036854775807.json",
        Err("integer_out_of_range"),
    ),
    (
        "number_9223372036854775808.json",
        Err("integer_out_of_range"),
    ),
    (
        "object_key_nfc_nfd.json",
        Ok("{\"e\u{301}\":\"NFD\",\"\u{e9}\":\"NFC\"}"),
    ),
    (
        "object_key_nfd_nfc.json",
        Ok("{\"e\u{301}\":\"NFD\",\"\u{e9}\":\"NFC\"}"),
    ),
    (
        "object_same_key_different_values.json",
        Err("duplicate_key"),
    ),
    ("object_same_key_same_value.json", Err("duplicate_key")),
    ("object_same_key_unclear_values.json", Err("duplicate_key")),
    (
        "string_1_escaped_invalid_codepoint.json",
        Err("lone_surrogate"),
    ),
    ("string_1_invalid_codepoint.json", Err("invalid_utf8")),
    (
        "string_2_escaped_invalid_codepoints.json",
        Err("lone_surrogate"),
    ),
    ("string_2_invalid_codepoints.json", Err("invalid_utf8")),
    (
        "string_3_escaped_invalid_codepoints.json",
        Err("lone_surrogate"),
    ),
    ("string_3_invalid_codepoints.json", Err("invalid_utf8")),
    ("string_with_escaped_NULL.json", Ok("[\"A\\u0000B\"]")),
];

fn files(dir: &str) -> Vec<(String, Vec<u8>)> {
    let mut names: Vec<String> = std::fs::read_dir(format!("{SUITE}/{dir}"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(format!("{SUITE}/{dir}/{name}")).unwrap();
            (name, bytes)
        })
        .collect()
}

#[test]
fn every_y_file_parses_except_duplicate_keys() {
    let all = files("test_parsing");
    let y: Vec<_> = all
        .iter()
        .filter(|(name, _)| name.starts_with("y_"))
        .collect();
    assert_eq!(y.len(), 95);
    for (name, bytes) in y {
        let result = canonicalize(bytes, &JsonLimits::default());
        if DUPLICATE_KEY_EXCEPTIONS.contains(&name.as_str()) {
            let error = result.expect_err(name);
            assert!(
                matches!(error.kind, JsonErrorKind::DuplicateKey { .. }),
                "{name}: {error}"
            );
        } else {
            let canonical = result.unwrap_or_else(|error| panic!("{name}: {error}"));
            let again = canonicalize(canonical.as_bytes(), &JsonLimits::default()).unwrap();
            assert_eq!(
                again, canonical,
                "{name}: canonical bytes are not a fixed point"
            );
        }
    }
    for exception in DUPLICATE_KEY_EXCEPTIONS {
        assert!(
            all.iter().any(|(name, _)| name == exception),
            "{exception} is not in the suite"
        );
    }
}

#[test]
fn every_n_file_is_rejected() {
    let n: Vec<_> = files("test_parsing")
        .into_iter()
        .filter(|(name, _)| name.starts_with("n_"))
        .collect();
    assert_eq!(n.len(), 188);
    for (name, bytes) in n {
        assert!(
            canonicalize(&bytes, &JsonLimits::default()).is_err(),
            "{name} was accepted"
        );
    }
}

#[test]
fn every_i_file_is_decided_as_recorded() {
    let i: Vec<_> = files("test_parsing")
        .into_iter()
        .filter(|(name, _)| name.starts_with("i_"))
        .collect();
    let recorded: BTreeSet<&str> = I_DECISIONS.iter().map(|(name, _)| *name).collect();
    let present: BTreeSet<&str> = i.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        recorded, present,
        "the table must list exactly the suite's i_ files"
    );
    for (name, bytes) in &i {
        let decision = I_DECISIONS
            .iter()
            .find(|(recorded, _)| recorded == name)
            .unwrap()
            .1;
        match (canonicalize(bytes, &JsonLimits::default()), decision) {
            (Ok(_), None) => {}
            (Err(error), Some(kind)) => assert_eq!(error.kind.name(), kind, "{name}: {error}"),
            (Ok(canonical), Some(kind)) => panic!(
                "{name}: accepted as {:?}, recorded {kind}",
                canonical.as_bytes()
            ),
            (Err(error), None) => panic!("{name}: rejected ({error}), recorded as accepted"),
        }
    }
}

#[test]
fn transforms_behave_as_recorded() {
    let all = files("test_transform");
    let recorded: BTreeSet<&str> = TRANSFORMS.iter().map(|(name, _)| *name).collect();
    let present: BTreeSet<&str> = all.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(recorded, present);
    for (name, bytes) in &all {
        let expected = &TRANSFORMS
            .iter()
            .find(|(recorded, _)| recorded == name)
            .unwrap()
            .1;
        match (canonicalize(bytes, &JsonLimits::default()), expected) {
            (Ok(canonical), Ok(output)) => {
                assert_eq!(canonical.as_bytes(), output.as_bytes(), "{name}")
            }
            (Err(error), Err(kind)) => assert_eq!(error.kind.name(), *kind, "{name}: {error}"),
            (got, _) => panic!("{name}: got {got:?}, recorded {expected:?}"),
        }
    }
}

/// NFC and NFD spellings of one visible key are different keys: no normalization happens.
#[test]
fn nfc_and_nfd_keys_stay_distinct() {
    for name in ["object_key_nfc_nfd.json", "object_key_nfd_nfc.json"] {
        let bytes = std::fs::read(format!("{SUITE}/test_transform/{name}")).unwrap();
        let value = seal_parse::json::parse(&bytes, &JsonLimits::default()).unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.len(), 2, "{name}");
        assert_eq!(object.get("\u{e9}").and_then(|v| v.as_str()), Some("NFC"));
        assert_eq!(object.get("e\u{301}").and_then(|v| v.as_str()), Some("NFD"));
    }
}
