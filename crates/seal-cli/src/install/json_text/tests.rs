use super::*;

fn member_out() -> Out {
    Out::Array(vec![Out::Object(vec![(
        "hooks".into(),
        Out::Array(vec![Out::Object(vec![
            ("type".into(), Out::String("command".into())),
            ("timeout".into(), Out::Number(60)),
        ])]),
    )])])
}

fn round_trip(text: &str) -> String {
    let root = parse(text).unwrap();
    let layout = Layout::of(text);
    let edit = append(text, &root, Some("hooks"), &member_out(), &layout);
    let added = apply(text, &[edit]);
    let again = parse(&added).unwrap();
    let index = again.members().unwrap().len() - 1;
    assert_eq!(again.members().unwrap()[index].key, "hooks");
    let removed = apply(&added, &[remove(&again, index).unwrap()]);
    assert!(parse(&removed).is_ok());
    added
}

#[test]
fn append_then_remove_gives_the_original_bytes() {
    for text in [
        "{\n  \"a\": 1\n}\n",
        "{\r\n\t\"a\": [1, 2],\r\n\t\"b\": {}\r\n}",
        "{\"a\":1}",
        "{ \"a\" : 1 , \"b\":2 }",
        "\u{feff}{\n    \"x\": \"y\"\n}",
    ] {
        let added = round_trip(text);
        let root = parse(&added).unwrap();
        let index = root.members().unwrap().len() - 1;
        let removed = apply(&added, &[remove(&root, index).unwrap()]);
        assert_eq!(removed, text);
    }
}

#[test]
fn an_append_follows_the_siblings_layout() {
    assert_eq!(
        round_trip("{\n  \"a\": 1\n}\n"),
        "{\n  \"a\": 1,\n  \"hooks\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"timeout\": 60\n        }\n      ]\n    }\n  ]\n}\n"
    );
    assert_eq!(
        round_trip("{\"a\":1}"),
        "{\"a\":1,\"hooks\": [{\"hooks\": [{\"type\": \"command\", \"timeout\": 60}]}]}"
    );
    assert_eq!(
        round_trip("{}"),
        "{\n  \"hooks\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"timeout\": 60\n        }\n      ]\n    }\n  ]\n}"
    );
}

#[test]
fn removing_a_middle_or_first_item_takes_its_following_separator() {
    let text = "[1, 2, 3]";
    let root = parse(text).unwrap();
    assert_eq!(apply(text, &[remove(&root, 0).unwrap()]), "[2, 3]");
    assert_eq!(apply(text, &[remove(&root, 1).unwrap()]), "[1, 3]");
    assert_eq!(apply(text, &[remove(&root, 2).unwrap()]), "[1, 2]");
    assert!(remove(&root, 3).is_none());
}

#[test]
fn errors_name_the_line_and_column() {
    let cases = [
        ("{\n  \"a\": 1,\n}", 3, 1, "`}` where a key"),
        (
            "{\n  \"a\": 1\n  \"b\": 2\n}",
            3,
            3,
            "`\"` where `,` or `}`",
        ),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "written twice"),
        ("{\"a\": 01}", 1, 7, "leading zero"),
        ("{\"a\": \"x", 1, 7, "never closed"),
        ("{} x", 1, 4, "text after"),
        ("", 1, 1, "ends where a value"),
        ("// c\n{}", 1, 1, "`/` where a value"),
        ("{\"a\": \"\u{1}\"}", 1, 8, "control character"),
    ];
    for (text, line, column, problem) in cases {
        let error = parse(text).unwrap_err();
        assert_eq!(
            (error.line, error.column),
            (line, column),
            "{text:?}: {error}"
        );
        assert!(error.problem.contains(problem), "{text:?}: {error}");
    }
    let deep = "[".repeat(MAX_DEPTH + 1);
    assert!(parse(&deep).unwrap_err().problem.contains("nested deeper"));
    let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(parse(&fine).is_ok());
}

#[test]
fn the_layout_is_the_files_own() {
    assert_eq!(Layout::of("{\n\t\"a\": 1\n}").unit, "\t");
    assert_eq!(Layout::of("{\r\n    \"a\": 1\r\n}").unit, "    ");
    assert_eq!(Layout::of("{\r\n    \"a\": 1\r\n}").newline, "\r\n");
    assert_eq!(
        Layout::of("{\"a\": 1}"),
        Layout {
            newline: "\n",
            unit: "  ".into()
        }
    );
    let layout = Layout::of("{}");
    let value = Out::Object(vec![
        ("a".into(), Out::Array(Vec::new())),
        ("b".into(), Out::Object(Vec::new())),
        ("c".into(), Out::Array(vec![Out::Number(1)])),
    ]);
    assert_eq!(
        render(&value, &layout, "", true),
        "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1\n  ]\n}"
    );
    assert_eq!(
        render(&value, &layout, "", false),
        "{\"a\": [], \"b\": {}, \"c\": [1]}"
    );
}

#[test]
fn every_escape_and_number_form_is_read() {
    let root = parse(
        r#"["\b\f\n\r\t\/\"\\", "\u00E9\u00e9\u0041", 0, -0, 10, 1.5, 1e5, 1E+5, 2e-3, -12.75E10]"#,
    )
    .unwrap();
    let items = root.elements().unwrap();
    assert_eq!(items[0].as_str(), Some("\u{8}\u{c}\n\r\t/\"\\"));
    assert_eq!(items[1].as_str(), Some("\u{e9}\u{e9}A"));
    let numbers: Vec<&str> = items[2..]
        .iter()
        .map(|item| match &item.kind {
            Kind::Number(text) => text.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(
        numbers,
        ["0", "-0", "10", "1.5", "1e5", "1E+5", "2e-3", "-12.75E10"]
    );
    for bad in [
        "1.",
        "1e",
        "1e+",
        "-",
        ".5",
        "01",
        "1.e5",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\uZZZZ\"",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn strings_are_decoded() {
    let root = parse(r#"{"k\u00e9y": "a\"b\\c\ud83d\ude00\ud800"}"#).unwrap();
    let member = &root.members().unwrap()[0];
    assert_eq!(member.key, "k\u{e9}y");
    assert_eq!(member.value.as_str(), Some("a\"b\\c\u{1f600}\u{fffd}"));
}
