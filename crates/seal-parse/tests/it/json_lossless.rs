//! The lossless profile on the exact shapes real hook payloads carry (spec/canonical-json.md,
//! "Lossless profile"), and what the strict profile says about the same bytes.

use seal_parse::json::{
    canonicalize, canonicalize_lossless, parse, parse_lossless, JsonLimits, Value,
};

fn limits() -> JsonLimits {
    JsonLimits::default()
}

fn lossless(input: &str) -> String {
    let canonical = canonicalize_lossless(input.as_bytes(), &limits())
        .unwrap_or_else(|error| panic!("{input}: {error}"));
    let tree = parse_lossless(input.as_bytes(), &limits()).unwrap();
    assert_eq!(canonical.as_bytes(), tree.canonical_bytes(), "{input}");
    String::from_utf8(canonical.into_bytes()).unwrap()
}

fn strict_error(input: &str) -> &'static str {
    canonicalize(input.as_bytes(), &limits())
        .expect_err(input)
        .kind
        .name()
}

fn lossless_error(input: &[u8]) -> (&'static str, usize, String) {
    let error = canonicalize_lossless(input, &limits()).expect_err("rejected");
    let tree = parse_lossless(input, &limits()).expect_err("rejected by the tree");
    assert_eq!(error, tree);
    (error.kind.name(), error.offset, error.path)
}

fn member<'v>(value: &'v Value<'_>, key: &str) -> &'v Value<'v> {
    value.as_object().unwrap().get(key).unwrap()
}

#[test]
fn integer_beyond_2_53_is_kept_as_written() {
    let input = r#"{"n":12345678901234567000}"#;
    assert_eq!(lossless(input), input);
    assert_eq!(strict_error(input), "integer_out_of_range");
    let value = parse_lossless(input.as_bytes(), &limits()).unwrap();
    let n = member(&value, "n").as_number_literal().unwrap();
    assert_eq!(n.text(), "12345678901234567000");
    assert_eq!(n.as_i64(), None, "beyond i64");
    // JavaScript's own spelling of the double 12345678901234567168: exact in the strict sense.
    assert_eq!(n.as_f64(), Some(12_345_678_901_234_567_168.0));
    assert_eq!(n.as_number(), None, "the strict profile cannot hold it");
    assert_eq!(member(&value, "n").as_number(), None);
}

#[test]
fn the_last_digit_of_a_big_integer_changes_the_bytes() {
    let a = lossless(r#"{"n":12345678901234567000}"#);
    let b = lossless(r#"{"n":12345678901234567001}"#);
    assert_ne!(a, b);
    // Both are the same double: a reader through f64 would not tell them apart.
    assert_eq!(
        "12345678901234567000".parse::<f64>().unwrap(),
        "12345678901234567001".parse::<f64>().unwrap()
    );
}

#[test]
fn lone_high_surrogate_is_kept_and_is_not_text() {
    for input in [r#"{"s":"\ud800"}"#, r#"{"s":"\uD800"}"#] {
        assert_eq!(lossless(input), r#"{"s":"\ud800"}"#, "lowercase hex");
        assert_eq!(strict_error(input), "lone_surrogate");
        let value = parse_lossless(input.as_bytes(), &limits()).unwrap();
        let s = member(&value, "s");
        assert_eq!(s.as_str(), None, "no str view of an ill-formed string");
        let ill = s.as_ill_formed_string().unwrap();
        assert_eq!(ill.code_units(), [0xd800]);
        assert_eq!(ill.literal(), r#""\ud800""#);
        assert_eq!(ill.to_string_lossy(), "\u{fffd}");
    }
}

#[test]
fn lone_low_surrogate_before_a_pair() {
    let input = r#"{"s":"\udc00x\ud83d\ude00"}"#;
    assert_eq!(lossless(input), "{\"s\":\"\\udc00x\u{1f600}\"}");
    assert_eq!(strict_error(input), "lone_surrogate");
    let value = parse_lossless(input.as_bytes(), &limits()).unwrap();
    let s = member(&value, "s").as_ill_formed_string().unwrap();
    assert_eq!(s.code_units(), [0xdc00, u16::from(b'x'), 0xd83d, 0xde00]);
    assert_eq!(member(&value, "s").as_str(), None);
}

#[test]
fn surrogate_shapes_pair_only_high_then_low() {
    let cases = [
        (r#"["\ud83d\ude00"]"#, "[\"\u{1f600}\"]"),
        (r#"["\ude00\ud83d"]"#, r#"["\ude00\ud83d"]"#),
        (r#"["\ud800\ud800\udc00"]"#, "[\"\\ud800\u{10000}\"]"),
        (r#"["\ud800\u0041"]"#, r#"["\ud800A"]"#),
        (r#"["\ud800\n"]"#, r#"["\ud800\n"]"#),
        (r#"["a\udfffb"]"#, r#"["a\udfffb"]"#),
        (r#"["\ud800\"\\\/\u001F"]"#, r#"["\ud800\"\\/\u001f"]"#),
        (r#"["\\ud800"]"#, r#"["\\ud800"]"#),
    ];
    for (input, canonical) in cases {
        assert_eq!(lossless(input), canonical, "{input}");
        assert_eq!(lossless(canonical), canonical, "idempotent: {canonical}");
    }
    // Text that spells an escape is not the escape.
    assert_ne!(lossless(r#"["\ud800"]"#), lossless(r#"["\\ud800"]"#));
    assert_ne!(lossless(r#"["\ud800"]"#), lossless(r#"["\ufffd"]"#));
}

#[test]
fn a_lone_surrogate_in_a_key_is_rejected() {
    let (kind, offset, path) = lossless_error(br#"{"a":{"\ud800":1}}"#);
    assert_eq!((kind, offset, path.as_str()), ("lone_surrogate", 7, "$.a"));
    // A repairing reader would see two members named U+FFFD here.
    let (kind, ..) = lossless_error(br#"{"\ufffd":1,"\udfff":2}"#);
    assert_eq!(kind, "lone_surrogate");
}

#[test]
fn duplicate_keys_stay_rejected() {
    for (input, offset, path) in [
        (&br#"{"a":1,"a":2}"#[..], 7, "$.a"),
        (br#"{"a":1,"\u0061":1}"#, 7, "$.a"),
        (
            br#"{"n":12345678901234567000,"n":12345678901234567001}"#,
            26,
            "$.n",
        ),
        (br#"{"s":"\ud800","s":"\udc00"}"#, 14, "$.s"),
    ] {
        let (kind, found_offset, found_path) = lossless_error(input);
        assert_eq!(
            (kind, found_offset, found_path.as_str()),
            ("duplicate_key", offset, path),
            "{}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn numbers_keep_their_literal_text() {
    let input = "[1.0,-0,-0.0,1E2,1e+2,0.10,0.10000000000000001,1e400,-1e-400,9007199254740993,\
                 123456789012345678901234567890.000000000000000000001e-7]";
    assert_eq!(lossless(input), input);
    let value = parse_lossless(input.as_bytes(), &limits()).unwrap();
    let items = value.as_array().unwrap();
    assert!(items.iter().all(|item| item.as_number_literal().is_some()));
    let literal = |index: usize| items[index].as_number_literal().unwrap();
    assert_eq!(literal(0).as_number().map(|n| n.as_f64()), Some(1.0));
    assert_eq!(literal(0).as_i64(), Some(1));
    assert_eq!(literal(1).as_number().map(|n| n.as_f64()), Some(0.0));
    assert_eq!(literal(3).as_i64(), Some(100));
    assert_eq!(literal(6).as_f64(), None, "not exactly its double");
    assert_eq!(literal(6).as_number(), None);
    assert_eq!(literal(7).as_f64(), None, "overflows");
    assert_eq!(literal(8).as_f64(), None, "underflows to a different value");
    assert_eq!(literal(9).as_i64(), Some(9_007_199_254_740_993));
    assert_eq!(literal(9).as_f64(), None, "no double is 2^53 + 1");
    assert_eq!(literal(10).as_i64(), None, "has a fraction");
}

#[test]
fn canonical_spellings_are_plain_numbers() {
    let input = "[0,-1,0.5,1e+21,1.5e-7,9007199254740992]";
    let value = parse_lossless(input.as_bytes(), &limits()).unwrap();
    assert_eq!(value, parse(input.as_bytes(), &limits()).unwrap());
    assert!(value
        .as_array()
        .unwrap()
        .iter()
        .all(|item| matches!(item, Value::Number(_))));
}

#[test]
fn strict_canonical_bytes_are_a_lossless_fixed_point() {
    let input =
        r#"{ "b": [1.0, 4.50, 1E2, -0, "\u00e9\u0001"], "a": {"\ud83d\ude00": 1, "\ue000": 2} }"#;
    let strict = canonicalize(input.as_bytes(), &limits()).unwrap();
    let lossless_of_strict = canonicalize_lossless(strict.as_bytes(), &limits()).unwrap();
    assert_eq!(lossless_of_strict, strict);
    assert_eq!(
        parse_lossless(strict.as_bytes(), &limits()).unwrap(),
        parse(strict.as_bytes(), &limits()).unwrap()
    );
    // The document itself keeps its number spellings under lossless, and strict after lossless
    // gives the strict bytes.
    let kept = lossless(input);
    assert_eq!(
        kept,
        "{\"a\":{\"\u{1f600}\":1,\"\u{e000}\":2},\"b\":[1.0,4.50,1E2,-0,\"\u{e9}\\u0001\"]}"
    );
    assert_eq!(canonicalize(kept.as_bytes(), &limits()).unwrap(), strict);
}

#[test]
fn grammar_and_limits_are_the_strict_ones() {
    for input in [
        &b"[01]"[..],
        b"[+1]",
        b"[1.]",
        b"[.5]",
        b"[1e]",
        b"[NaN]",
        b"[Infinity]",
        b"['a']",
        b"[1,]",
        b"{\"a\":1,}",
        b"[\"\\x\"]",
        b"[\"\\u12\"]",
        b"[\"\\ud800\\u12\"]",
        b"[\"a\x01\"]",
        b"\xef\xbb\xbf[]",
        b"[\"\xed\xa0\x80\"]",
        b"[\"\xff\"]",
        b"{} {}",
        b"",
    ] {
        let lossless = canonicalize_lossless(input, &limits()).expect_err("rejected");
        let strict = canonicalize(input, &limits()).expect_err("rejected");
        assert_eq!(lossless, strict, "{}", String::from_utf8_lossy(input));
    }
    let deep = "[".repeat(129) + &"]".repeat(129);
    let (kind, offset, _) = lossless_error(deep.as_bytes());
    assert_eq!((kind, offset), ("depth_exceeded", 128));
    let mut small = JsonLimits::default();
    small.max_bytes = 4;
    let error = canonicalize_lossless(b"[1.0]", &small).unwrap_err();
    assert_eq!(error.kind.name(), "input_too_large");
}

#[test]
fn from_utf16_builds_the_same_values_as_the_parser() {
    let value = Value::from_utf16(&[0xdc00, u16::from(b'x'), 0xd83d, 0xde00]);
    let parsed = parse_lossless(br#""\udc00x\ud83d\ude00""#, &limits()).unwrap();
    assert_eq!(value, parsed);
    assert_eq!(
        Value::from_utf16(&[0x41, 0xd83d, 0xde00]),
        Value::from("A\u{1f600}")
    );
}

#[test]
fn owned_values_keep_everything() {
    let input = br#"{"n":1.0,"s":"\ud800","t":"plain"}"#;
    let value = parse_lossless(input, &limits()).unwrap();
    let owned = value.clone().into_owned();
    assert_eq!(owned, value);
    assert_eq!(owned.canonical_bytes(), value.canonical_bytes());
}

#[test]
fn the_accessor_table_of_the_spec() {
    // spec/canonical-json.md section 12.3, column by column.
    let value = parse_lossless(
        b"[1.0,-0,9007199254740993,12345678901234567000,0.10000000000000001,1e400]",
        &limits(),
    )
    .unwrap();
    let literals: Vec<_> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_number_literal().unwrap())
        .collect();
    let i64s: Vec<_> = literals.iter().map(|l| l.as_i64()).collect();
    assert_eq!(
        i64s,
        [
            Some(1),
            Some(0),
            Some(9_007_199_254_740_993),
            None,
            None,
            None
        ]
    );
    let f64s: Vec<_> = literals.iter().map(|l| l.as_f64()).collect();
    assert_eq!(
        f64s,
        [
            Some(1.0),
            Some(-0.0),
            None,
            Some(12_345_678_901_234_567_168.0),
            None,
            None
        ]
    );
    assert!(f64s[1].unwrap().is_sign_negative());
    let numbers: Vec<_> = literals
        .iter()
        .map(|l| l.as_number().map(|n| n.as_f64()))
        .collect();
    assert_eq!(numbers, [Some(1.0), Some(0.0), None, None, None, None]);
}
