//! I5 as properties: canonical JSON loses nothing silently. Each property also runs against a
//! deliberately broken canonicalizer through a fixed-seed `TestRunner`, which must find a
//! counterexample (otherwise the property could not fail and proves nothing).

use std::borrow::Cow;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_parse::json::{canonicalize, compare_keys, parse, JsonLimits, Number, Value};

// ---------------------------------------------------------------------------------------------
// A model of JSON documents and a renderer that spells one value in many equivalent ways.

#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
    /// A token written as is (used to plant a hostile literal).
    Raw(String),
}

/// Deterministic choices for one rendering.
struct Style(u64);

impl Style {
    fn pick(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }

    fn space(&mut self, out: &mut String) {
        out.push_str(["", "", " ", "\n", "\t", "\r\n  "][self.pick(6) as usize]);
    }
}

fn render(value: &J, seed: u64) -> String {
    let mut out = String::new();
    let mut style = Style(seed | 1);
    style.space(&mut out);
    render_into(value, &mut style, &mut out);
    style.space(&mut out);
    out
}

fn render_into(value: &J, style: &mut Style, out: &mut String) {
    match value {
        J::Null => out.push_str("null"),
        J::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        J::Num(number) => out.push_str(&spell_number(*number, style.pick(5))),
        J::Str(text) => render_string(text, style, out),
        J::Raw(token) => out.push_str(token),
        J::Arr(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                style.space(out);
                render_into(item, style, out);
                style.space(out);
            }
            style.space(out);
            out.push(']');
        }
        J::Obj(members) => {
            let mut order: Vec<usize> = (0..members.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, style.pick(i as u64 + 1) as usize);
            }
            out.push('{');
            for (index, &at) in order.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                style.space(out);
                render_string(&members[at].0, style, out);
                style.space(out);
                out.push(':');
                style.space(out);
                render_into(&members[at].1, style, out);
            }
            style.space(out);
            out.push('}');
        }
    }
}

fn render_string(text: &str, style: &mut Style, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        let must_escape = (c as u32) < 0x20 || c == '"' || c == '\\';
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        match style.pick(4) {
            0 | 1 if !must_escape => out.push(c),
            2 if short.is_some() => out.push_str(short.unwrap()),
            choice => {
                let mut units = [0_u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    if choice == 3 {
                        out.push_str(&format!("\\u{unit:04X}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
        }
    }
    out.push('"');
}

/// One of several spellings of the exact decimal value of the shortest form of `value`.
fn spell_number(value: f64, variant: u64) -> String {
    let mut buffer = ryu_js::Buffer::new();
    let shortest = buffer.format_finite(value).to_owned();
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let unsigned = shortest.trim_start_matches('-');
    let (mantissa, exponent) = match unsigned.split_once('e') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap()),
        None => (unsigned, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = format!("{int}{frac}").trim_start_matches('0').to_owned();
    let mut exponent = exponent - frac.len() as i64;
    if digits.is_empty() {
        digits = "0".into();
        exponent = 0;
    }
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
        exponent += 1;
    }
    let n = digits.len() as i64;
    match variant {
        0 => format!("{sign}{unsigned}"),
        1 => format!("{sign}{digits}e{exponent}"),
        2 if digits == "0" => format!("{sign}0.000E+0"),
        2 => format!("{sign}{digits}000E{:+}", exponent - 3),
        3 => format!(
            "{sign}{}.{}0e{}",
            &digits[..1],
            &digits[1..],
            exponent + n - 1
        ),
        _ if (0..30).contains(&exponent) => {
            format!("{sign}{digits}{}.0", "0".repeat(exponent as usize))
        }
        _ if (-30..0).contains(&exponent) => {
            let places = (-exponent) as usize;
            let padded = format!(
                "{}{digits}",
                "0".repeat((places + 1).saturating_sub(digits.len()))
            );
            let (whole, fraction) = padded.split_at(padded.len() - places);
            format!("{sign}{whole}.{fraction}0")
        }
        _ => format!("{sign}{digits}e{exponent}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators, including the hostile corpus (controls, bidi, format, surrogate-adjacent, astral).

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range('a', 'e'),
        3 => prop::sample::select(vec![
            '"', '\\', '/', ' ', '\u{0}', '\u{1f}', '\n', '\r', '\t', '\u{8}', '\u{c}', '\u{7f}',
            '\u{80}', '\u{e9}', '\u{301}', '\u{2028}', '\u{202e}', '\u{200b}', '\u{feff}',
            '\u{d7ff}', '\u{e000}', '\u{fb33}', '\u{fffd}', '\u{ffff}', '\u{10000}', '\u{1f602}',
            '\u{e0041}', '\u{10ffff}', '\u{ff1c}',
        ]),
        1 => any::<char>(),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_char(), 0..max).prop_map(|chars| chars.into_iter().collect())
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1000_i64..1000).prop_map(|v| v as f64),
        (-(1_i64 << 53)..=(1_i64 << 53)).prop_map(|v| v as f64),
        ((1_i64 << 53) - 3..=(1_i64 << 53)).prop_map(|v| v as f64),
        (any::<i32>(), -40_i32..40).prop_map(|(m, e)| format!("{m}e{e}").parse().unwrap()),
        any::<f64>(),
        prop::sample::select(vec![
            -0.0,
            0.5,
            1e21,
            -1e21,
            1e300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE
        ]),
    ]
    .prop_filter("a JSON number of the profile", |v| {
        Number::from_f64(*v).is_ok()
    })
}

fn unique(members: Vec<(String, J)>) -> Vec<(String, J)> {
    let mut seen = std::collections::BTreeSet::new();
    members
        .into_iter()
        .filter(|(key, _)| seen.insert(key.clone()))
        .collect()
}

fn document() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        number().prop_map(J::Num),
        text(8).prop_map(J::Str),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(J::Arr),
            prop::collection::vec((text(4), inner), 0..7).prop_map(|m| J::Obj(unique(m))),
        ]
    })
}

/// Puts `inner` at the bottom of a few arrays and objects.
fn wrapped(inner: impl Strategy<Value = J>) -> impl Strategy<Value = J> {
    let layer = prop_oneof![(0_usize..3).prop_map(Ok), text(3).prop_map(Err)];
    (inner, prop::collection::vec(layer, 0..3)).prop_map(|(mut value, layers)| {
        for layer in layers {
            value = match layer {
                Ok(before) => {
                    let mut items = vec![J::Num(before as f64); before];
                    items.push(value);
                    J::Arr(items)
                }
                Err(key) => J::Obj(vec![(key, value)]),
            };
        }
        value
    })
}

// ---------------------------------------------------------------------------------------------
// Canonicalizers under test: the real one and deliberately broken ones.

type Canonicalizer = fn(&[u8]) -> Result<Vec<u8>, String>;

fn ours(input: &[u8]) -> Result<Vec<u8>, String> {
    canonicalize(input, &JsonLimits::default())
        .map(|canonical| canonical.into_bytes())
        .map_err(|error| error.kind.name().to_owned())
}

/// serde_json keeps the last of duplicate keys; serde_jcs writes RFC 8785 bytes.
fn last_duplicate_wins(input: &[u8]) -> Result<Vec<u8>, String> {
    let value: serde_json::Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    serde_jcs::to_vec(&value).map_err(|e| e.to_string())
}

/// Every number through f64, so integers beyond 2^53 are rounded instead of rejected.
fn rounds_big_integers(input: &[u8]) -> Result<Vec<u8>, String> {
    fn to_f64(value: serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
            serde_json::Value::Array(items) => items.into_iter().map(to_f64).collect(),
            serde_json::Value::Object(members) => {
                members.into_iter().map(|(k, v)| (k, to_f64(v))).collect()
            }
            other => other,
        }
    }
    let value: serde_json::Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    serde_jcs::to_vec(&to_f64(value)).map_err(|e| e.to_string())
}

/// serde_json's own compact output: sorted by UTF-8 bytes, numbers as written by serde_json.
fn serde_json_compact(input: &[u8]) -> Result<Vec<u8>, String> {
    let value: serde_json::Value = serde_json::from_slice(input).map_err(|e| e.to_string())?;
    serde_json::to_vec(&value).map_err(|e| e.to_string())
}

/// Our parser, but arrays written back to front (a stack-order bug).
fn reverses_arrays(input: &[u8]) -> Result<Vec<u8>, String> {
    fn reverse(value: Value<'_>) -> Value<'_> {
        match value {
            Value::Array(items) => Value::Array(items.into_iter().rev().map(reverse).collect()),
            Value::Object(object) => {
                let members = object
                    .into_members()
                    .into_iter()
                    .map(|(k, v)| (k, reverse(v)))
                    .collect();
                Value::Object(seal_parse::json::Object::from_members(members).unwrap())
            }
            other => other,
        }
    }
    let value = parse(input, &JsonLimits::default()).map_err(|e| e.to_string())?;
    Ok(reverse(value).canonical_bytes())
}

/// Our parser, but members sorted by UTF-8 bytes instead of UTF-16 code units.
fn sorts_by_utf8(input: &[u8]) -> Result<Vec<u8>, String> {
    fn write(value: &Value<'_>, out: &mut Vec<u8>) {
        match value {
            Value::Array(items) => {
                out.push(b'[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    write(item, out);
                }
                out.push(b']');
            }
            Value::Object(object) => {
                let mut members: Vec<_> = object.iter().collect();
                members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                out.push(b'{');
                for (index, (key, item)) in members.into_iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    Value::String(Cow::Borrowed(key)).write_canonical(out);
                    out.push(b':');
                    write(item, out);
                }
                out.push(b'}');
            }
            scalar => scalar.write_canonical(out),
        }
    }
    let value = parse(input, &JsonLimits::default()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    write(&value, &mut out);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The properties, written once and run against any canonicalizer.

fn idempotent(canon: Canonicalizer, (doc, seed): (J, u64)) -> Result<(), TestCaseError> {
    let input = render(&doc, seed);
    let once = canon(input.as_bytes()).map_err(|e| TestCaseError::fail(format!("{input}: {e}")))?;
    let twice = canon(&once).map_err(TestCaseError::fail)?;
    prop_assert_eq!(
        String::from_utf8_lossy(&twice),
        String::from_utf8_lossy(&once)
    );
    Ok(())
}

fn equal_values_equal_bytes(
    canon: Canonicalizer,
    (doc, a, b): (J, u64, u64),
) -> Result<(), TestCaseError> {
    let first = render(&doc, a);
    let second = render(&doc, b);
    let x = canon(first.as_bytes()).map_err(|e| TestCaseError::fail(format!("{first}: {e}")))?;
    let y = canon(second.as_bytes()).map_err(|e| TestCaseError::fail(format!("{second}: {e}")))?;
    prop_assert_eq!(String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
    Ok(())
}

fn matches_serde_jcs(canon: Canonicalizer, (doc, seed): (J, u64)) -> Result<(), TestCaseError> {
    let input = render(&doc, seed);
    let expected = last_duplicate_wins(input.as_bytes()).map_err(TestCaseError::fail)?;
    let got = canon(input.as_bytes()).map_err(|e| TestCaseError::fail(format!("{input}: {e}")))?;
    prop_assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected)
    );
    Ok(())
}

fn rejects(canon: Canonicalizer, input: &str, kind: &str) -> Result<(), TestCaseError> {
    match canon(input.as_bytes()) {
        Err(found) if found == kind => Ok(()),
        Err(found) => Err(TestCaseError::fail(format!(
            "{input}: rejected as {found}, not {kind}"
        ))),
        Ok(out) => Err(TestCaseError::fail(format!(
            "{input}: accepted as {}",
            String::from_utf8_lossy(&out)
        ))),
    }
}

/// An object with one key repeated (spelled independently each time), somewhere in a document.
fn duplicate_key_document() -> impl Strategy<Value = String> {
    let object = (
        prop::collection::vec((text(4), document()), 1..5),
        any::<prop::sample::Index>(),
        document(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(members, which, value, at)| {
            let mut members = unique(members);
            let key = members[which.index(members.len())].0.clone();
            let at = at.index(members.len() + 1);
            members.insert(at, (key, value));
            J::Obj(members)
        });
    (wrapped(object), any::<u64>()).prop_map(|(doc, seed)| render(&doc, seed))
}

fn lone_surrogate_document() -> impl Strategy<Value = String> {
    let token = (
        0xd800_u32..=0xdfff,
        "[a-z]{0,3}",
        prop_oneof![
            Just(""),
            Just("x"),
            Just("\\n"),
            Just("\\u0041"),
            Just("\\ud800")
        ],
    )
        .prop_map(|(unit, prefix, suffix)| format!("\"{prefix}\\u{unit:04x}{suffix}\""));
    (wrapped(token.prop_map(J::Raw)), any::<u64>()).prop_map(|(doc, seed)| render(&doc, seed))
}

fn big_integer_document() -> impl Strategy<Value = String> {
    let literal =
        (((1_u128 << 53) + 1)..10_u128.pow(25), any::<bool>()).prop_map(|(magnitude, negative)| {
            format!("{}{magnitude}", if negative { "-" } else { "" })
        });
    (wrapped(literal.prop_map(J::Raw)), any::<u64>()).prop_map(|(doc, seed)| render(&doc, seed))
}

fn non_finite_document() -> impl Strategy<Value = String> {
    let literal = (1_u32..1000, 309_u32..100_000, any::<bool>(), any::<bool>()).prop_map(
        |(mantissa, exponent, negative, fraction)| {
            let sign = if negative { "-" } else { "" };
            let fraction = if fraction { ".5" } else { "" };
            format!("{sign}{mantissa}{fraction}e{exponent}")
        },
    );
    (wrapped(literal.prop_map(J::Raw)), any::<u64>()).prop_map(|(doc, seed)| render(&doc, seed))
}

fn config() -> ProptestConfig {
    seal_test_support::no_persistence(256)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn canonical_bytes_are_idempotent(case in (document(), any::<u64>())) {
        idempotent(ours, case)?;
    }

    #[test]
    fn equal_values_give_equal_bytes(case in (document(), any::<u64>(), any::<u64>())) {
        equal_values_equal_bytes(ours, case)?;
    }

    #[test]
    fn agrees_with_serde_json_and_serde_jcs(case in (document(), any::<u64>())) {
        matches_serde_jcs(ours, case)?;
    }

    #[test]
    fn duplicate_keys_are_rejected(input in duplicate_key_document()) {
        rejects(ours, &input, "duplicate_key")?;
    }

    #[test]
    fn lone_surrogates_are_rejected(input in lone_surrogate_document()) {
        rejects(ours, &input, "lone_surrogate")?;
    }

    #[test]
    fn integers_beyond_2_53_are_rejected(input in big_integer_document()) {
        rejects(ours, &input, "integer_out_of_range")?;
    }

    #[test]
    fn non_finite_numbers_are_rejected(input in non_finite_document()) {
        rejects(ours, &input, "number_out_of_range")?;
    }

    #[test]
    fn tree_and_stream_agree_on_damaged_input(
        case in (document(), any::<u64>()),
        damage in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(b"{}[],:\"\\0123456789eE.+- \nu\xff\xc3\xed".to_vec())),
            1..4,
        ),
    ) {
        let mut input = render(&case.0, case.1).into_bytes();
        for (at, byte) in damage {
            let at = at.index(input.len());
            input[at] = byte;
        }
        let tree = parse(&input, &JsonLimits::default()).map(|value| value.canonical_bytes());
        let stream = canonicalize(&input, &JsonLimits::default()).map(|c| c.into_bytes());
        prop_assert_eq!(tree, stream);
    }

    #[test]
    fn tree_and_stream_agree(case in (document(), any::<u64>())) {
        let input = render(&case.0, case.1);
        let tree = parse(input.as_bytes(), &JsonLimits::default()).unwrap().canonical_bytes();
        let stream = canonicalize(input.as_bytes(), &JsonLimits::default()).unwrap();
        prop_assert_eq!(tree, stream.into_bytes());
    }
}

// ---------------------------------------------------------------------------------------------
// Negative controls: each property must find a counterexample in a broken canonicalizer.

fn finds_counterexample<S: Strategy>(
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> bool {
    let mut runner = seal_test_support::seeded(512);
    runner.run(&strategy, property).is_err()
}

#[test]
fn control_duplicate_keys_catch_last_duplicate_wins() {
    assert!(finds_counterexample(duplicate_key_document(), |input| {
        rejects(last_duplicate_wins, &input, "duplicate_key")
    }));
}

#[test]
fn control_big_integers_catch_f64_rounding() {
    assert!(finds_counterexample(big_integer_document(), |input| {
        rejects(rounds_big_integers, &input, "integer_out_of_range")
    }));
}

#[test]
fn control_idempotence_catches_reversed_arrays() {
    assert!(finds_counterexample((document(), any::<u64>()), |case| {
        idempotent(reverses_arrays, case)
    }));
}

#[test]
fn control_equal_bytes_catches_serde_json_compact_output() {
    assert!(finds_counterexample(
        (document(), any::<u64>(), any::<u64>()),
        |case| { equal_values_equal_bytes(serde_json_compact, case) }
    ));
}

#[test]
fn control_differential_catches_utf8_key_order() {
    assert!(finds_counterexample((document(), any::<u64>()), |case| {
        matches_serde_jcs(sorts_by_utf8, case)
    }));
}

#[test]
fn utf8_and_utf16_orders_differ_on_the_generated_keys() {
    // The generator's astral and U+E000..U+FFFF characters are where the two orders disagree.
    assert_eq!(
        compare_keys("\u{1f602}", "\u{e000}"),
        std::cmp::Ordering::Less
    );
    assert!("\u{1f602}".as_bytes() > "\u{e000}".as_bytes());
}
