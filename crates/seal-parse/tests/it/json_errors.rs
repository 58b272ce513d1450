//! Error kinds, offsets, paths and messages; numbers at the edge of the rules; the value API.

use std::borrow::Cow;

use seal_parse::json::{
    canonicalize, parse, JsonError, JsonErrorKind, JsonLimits, Number, NumberError, Object, Value,
};

fn error(input: &str) -> JsonError {
    let tree = parse(input.as_bytes(), &JsonLimits::default()).unwrap_err();
    let stream = canonicalize(input.as_bytes(), &JsonLimits::default()).unwrap_err();
    assert_eq!(tree, stream, "tree and stream disagree on {input:?}");
    tree
}

fn canonical(input: &str) -> String {
    let bytes = canonicalize(input.as_bytes(), &JsonLimits::default())
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .into_bytes();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn duplicate_key_names_path_and_second_offset() {
    let input = r#"{"a":[1,2,3,{"b":1,"c":2,"b":3}]}"#;
    let found = error(input);
    assert_eq!(found.kind, JsonErrorKind::DuplicateKey { key: "b".into() });
    assert_eq!(found.path, "$.a[3].b");
    assert_eq!(found.offset, input.rfind("\"b\"").unwrap());
    assert_eq!(
        found.to_string(),
        format!("duplicate key `b` at byte {} ($.a[3].b)", found.offset)
    );
    // The same key spelled with an escape is the same key.
    let found = error(r#"{"x":{"é":1,"\u00e9":2}}"#);
    assert_eq!(found.kind, JsonErrorKind::DuplicateKey { key: "é".into() });
    assert_eq!(found.path, "$.x[\"é\"]");
    assert_eq!(found.offset, 13);
}

#[test]
fn paths_point_at_the_value_being_read() {
    for (input, offset, path, name) in [
        ("[1,2,[3,01]]", 8, "$[2][1]", "invalid_number"),
        (
            r#"{"a":{"b c":[true,nul]}}"#,
            21,
            "$.a[\"b c\"][1]",
            "unexpected_character",
        ),
        (r#"{"a":1 "b":2}"#, 7, "$.a", "unexpected_character"),
        (r#"{"a":1,}"#, 7, "$", "unexpected_character"),
        ("[1,]", 3, "$[1]", "unexpected_character"),
        ("[1 2]", 3, "$[0]", "unexpected_character"),
        (r#"["\ud800"]"#, 2, "$[0]", "lone_surrogate"),
        ("[\"a\u{1}\"]", 3, "$[0]", "control_character_in_string"),
        (r#"["\x"]"#, 2, "$[0]", "invalid_escape"),
        (r#"["\u12G4"]"#, 2, "$[0]", "invalid_unicode_escape"),
        ("[9007199254740993]", 1, "$[0]", "integer_out_of_range"),
        ("[0.10000000000000001]", 1, "$[0]", "number_not_exact"),
        ("[1e400]", 1, "$[0]", "number_out_of_range"),
        ("[1e-400]", 1, "$[0]", "number_not_exact"),
        ("[1e20]", 1, "$[0]", "integer_out_of_range"),
        ("{} x", 3, "$", "trailing_characters"),
        ("[1,", 3, "$[1]", "unexpected_end"),
        ("", 0, "$", "unexpected_end"),
        ("\u{feff}{}", 0, "$", "byte_order_mark"),
        ("[-]", 2, "$[0]", "invalid_number"),
        ("[1.]", 3, "$[0]", "invalid_number"),
        ("[1e+]", 4, "$[0]", "invalid_number"),
        ("/* c */ 1", 0, "$", "unexpected_character"),
        ("[NaN]", 1, "$[0]", "unexpected_character"),
        ("[Infinity]", 1, "$[0]", "unexpected_character"),
    ] {
        let found = error(input);
        assert_eq!(
            (found.offset, found.path.as_str(), found.kind.name()),
            (offset, path, name),
            "{input}"
        );
    }
    let found = parse(b"[\"\xff\"]", &JsonLimits::default()).unwrap_err();
    assert_eq!(
        (found.offset, found.kind.clone()),
        (2, JsonErrorKind::InvalidUtf8)
    );
}

#[test]
fn messages_name_the_problem() {
    assert_eq!(
        error("[0.10000000000000001]").kind.to_string(),
        "number `0.10000000000000001` is not exactly a double (the nearest is `0.1`)"
    );
    assert_eq!(
        error("[9007199254740993]").kind.to_string(),
        "number `9007199254740993` is an integer beyond the exact range of ±2^53"
    );
    assert_eq!(
        error("[1e400]").kind.to_string(),
        "number `1e400` is outside the range of a double"
    );
    assert_eq!(
        error(r#"["\udc00"]"#).kind.to_string(),
        "lone surrogate `\\udc00` in string"
    );
    assert_eq!(
        error("[1,]").kind.to_string(),
        "unexpected character `]`, expected a value"
    );
}

#[test]
fn numbers_follow_the_exact_rule() {
    for (input, output) in [
        ("0.1", "0.1"),
        ("1.0", "1"),
        ("1e2", "100"),
        ("123e45", "1.23e+47"),
        ("-0", "0"),
        ("-0.0e7", "0"),
        ("9007199254740992", "9007199254740992"),
        ("-9007199254740992", "-9007199254740992"),
        ("1e21", "1e+21"),
        ("0.000001", "0.000001"),
        ("1e-7", "1e-7"),
        ("5e-324", "5e-324"),
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("4.50", "4.5"),
        ("0.30000000000000004", "0.30000000000000004"),
    ] {
        assert_eq!(
            canonical(&format!("[{input}]")),
            format!("[{output}]"),
            "{input}"
        );
    }
    for (input, kind) in [
        ("0.10000000000000001", "number_not_exact"),
        ("9007199254740993", "integer_out_of_range"),
        ("-9007199254740993", "integer_out_of_range"),
        ("18014398509481984", "integer_out_of_range"),
        ("1e400", "number_out_of_range"),
        ("-1e400", "number_out_of_range"),
        ("1e-400", "number_not_exact"),
        ("2e-324", "number_not_exact"),
        ("9007199254740993.0", "number_not_exact"),
        ("9007199254740994.0", "integer_out_of_range"),
        ("1e16", "integer_out_of_range"),
        ("1.00000000000000011", "number_not_exact"),
    ] {
        assert_eq!(error(&format!("[{input}]")).kind.name(), kind, "{input}");
    }
}

#[test]
fn strings_are_minimally_escaped_and_keys_sorted_by_utf16() {
    assert_eq!(
        canonical(r#"["\u0000\u001F\u007f\u0080\/\b\f\n\r\t\"\\\u2028\uD83D\uDE02"]"#),
        "[\"\\u0000\\u001f\u{7f}\u{80}/\\b\\f\\n\\r\\t\\\"\\\\\u{2028}\u{1f602}\"]"
    );
    assert_eq!(
        canonical("{\"\u{e000}\":1,\"\u{1f602}\":2,\"\u{ffff}\":3,\"\u{d7ff}\":4}"),
        "{\"\u{d7ff}\":4,\"\u{1f602}\":2,\"\u{e000}\":1,\"\u{ffff}\":3}"
    );
}

#[test]
fn value_constructors_enforce_the_profile() {
    assert_eq!(Number::from_f64(f64::INFINITY), Err(NumberError::NonFinite));
    assert_eq!(Number::from_f64(f64::NAN), Err(NumberError::NonFinite));
    assert_eq!(
        Number::from_f64(9_007_199_254_740_994.0),
        Err(NumberError::IntegerOutOfRange)
    );
    assert_eq!(
        Number::from_i64(9_007_199_254_740_993),
        Err(NumberError::IntegerOutOfRange)
    );
    assert_eq!(Number::from_f64(-0.0).unwrap(), Number::ZERO);
    assert_eq!(Number::from_f64(0.5).unwrap().to_string(), "0.5");

    let mut object = Object::new();
    object.insert("b", Value::from(Number::from(1))).unwrap();
    object.insert("\u{1f602}", Value::Null).unwrap();
    object.insert("\u{e000}", true).unwrap();
    object.insert(String::from("a"), "text").unwrap();
    assert_eq!(object.insert("b", Value::Null).unwrap_err().key, "b");
    let keys: Vec<&str> = object.iter().map(|(key, _)| key).collect();
    assert_eq!(keys, ["a", "b", "\u{1f602}", "\u{e000}"]);
    assert_eq!(object.get("a").and_then(Value::as_str), Some("text"));
    let value = Value::Object(object);
    assert_eq!(
        String::from_utf8(value.canonical_bytes()).unwrap(),
        "{\"a\":\"text\",\"b\":1,\"\u{1f602}\":null,\"\u{e000}\":true}"
    );
    let members = vec![
        (Cow::Borrowed("k"), Value::Null),
        (Cow::Borrowed("k"), Value::Bool(true)),
    ];
    assert_eq!(Object::from_members(members).unwrap_err().key, "k");
}

#[test]
fn parsed_strings_without_escapes_are_borrowed() {
    let input = br#"{"plain":"text","esc\u0061ped":"a\nb"}"#;
    let value = parse(input, &JsonLimits::default()).unwrap();
    let object = value.as_object().unwrap();
    assert!(matches!(
        object.members()[0],
        (Cow::Owned(_), Value::String(Cow::Owned(_)))
    ));
    assert!(matches!(
        object.members()[1],
        (Cow::Borrowed("plain"), Value::String(Cow::Borrowed("text")))
    ));
    let owned: Value<'static> = value.clone().into_owned();
    assert_eq!(owned, value);
}
