//! parse(render(frame)) round trip, I3 breakout-freedom with negative controls, and the attribute
//! decoder against the renderer's decoder.

use std::borrow::Cow;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_parse::frame::{decode_attribute_value, scan, FrameFinding, ScanConfig};
use seal_render::testing::hostile_string;
use seal_render::{decode, escape, render_frame, Context};
use seal_test_support::seeded;

/// A frame to render: element, attributes (distinct names, `sig` only last), body.
#[derive(Debug, Clone)]
struct FrameInput {
    element: String,
    attributes: Vec<(String, String)>,
    body: String,
}

impl FrameInput {
    fn attribute_refs(&self) -> Vec<(&str, &str)> {
        self.attributes
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect()
    }
}

/// Tag-shaped pieces for `element`, strict and lenient, opening and closing.
fn tag_pieces(element: &str) -> Vec<String> {
    let upper = element.to_uppercase();
    vec![
        format!("</{element}>"),
        format!("<\\/{element}>"),
        format!("<{element}>"),
        format!("<{element} sig=\"AAAAA\">"),
        format!("<{element} trustlevel=100>"),
        format!("</{upper}>"),
        format!("<{upper}>"),
        format!("< /{element} >"),
        format!("\u{ff1c}{element}\u{ff1e}"),
        format!("\u{ff1c}/{element}\u{ff1e}"),
        format!("\u{2039}{element}\u{203a}"),
        format!("<{element}\u{200b}>"),
        format!("<\u{202e}{element}>"),
        format!("<{element}/>"),
        format!("<{element}"),
        "\"".to_owned(),
        "\\u{3c}".to_owned(),
    ]
}

/// Hostile text mixed with tag-shaped pieces for `element`.
fn hostile_text(element: &str) -> impl Strategy<Value = String> {
    let pieces = tag_pieces(element);
    proptest::collection::vec(
        prop_oneof![
            3 => hostile_string(),
            1 => proptest::sample::select(pieces),
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

fn element() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("channel".to_owned()),
        1 => "[a-z][a-z0-9-]{0,8}",
    ]
}

fn frame_input() -> impl Strategy<Value = FrameInput> {
    element().prop_flat_map(|element| {
        let names = proptest::collection::btree_set("[a-z][a-z0-9_-]{0,6}", 0..5);
        let with_sig = any::<bool>();
        (
            Just(element.clone()),
            names,
            with_sig,
            proptest::collection::vec(hostile_text(&element), 6),
            hostile_text(&element),
        )
            .prop_map(|(element, names, with_sig, values, body)| {
                let mut names: Vec<String> = names.into_iter().filter(|n| n != "sig").collect();
                if with_sig {
                    names.push("sig".to_owned());
                }
                let attributes = names.into_iter().zip(values).collect();
                FrameInput {
                    element,
                    attributes,
                    body,
                }
            })
    })
}

/// A frame input, surrounding text that on its own holds no tag of the element, and whether the
/// harness rewrite is configured.
fn embedded() -> impl Strategy<Value = (FrameInput, String, String, bool)> {
    (frame_input(), any::<bool>()).prop_flat_map(|(input, rewrite)| {
        let config = config_for(&input.element, rewrite);
        let no_tags = move |text: &String| scan(text, &config).is_ok_and(|f| f.is_empty());
        (
            Just(input.clone()),
            hostile_text(&input.element)
                .prop_filter("surrounding text holds a tag", no_tags.clone()),
            hostile_text(&input.element).prop_filter("surrounding text holds a tag", no_tags),
            Just(rewrite),
        )
    })
}

fn config_for(element: &str, rewrite: bool) -> ScanConfig {
    let config = ScanConfig::new(element).unwrap();
    if rewrite {
        config.with_rewrite()
    } else {
        config
    }
}

/// I3 for one rendered frame inside `prefix`/`suffix`: the lenient scanner finds exactly one
/// finding, a strictly accepted top-level frame with the same element and attributes, spanning
/// exactly the rendered text. Returns the frame's body text.
fn exactly_one_frame<'t>(
    input: &FrameInput,
    text: &'t str,
    at: usize,
    rendered_len: usize,
    rewrite: bool,
) -> Result<&'t str, TestCaseError> {
    let findings = scan(text, &config_for(&input.element, rewrite))
        .map_err(|e| TestCaseError::fail(format!("scan error {e}")))?;
    let [FrameFinding::Frame(frame)] = findings.as_slice() else {
        return Err(TestCaseError::fail(format!(
            "expected one strict frame in {text:?}, got {findings:?}"
        )));
    };
    prop_assert_eq!(frame.element, input.element.as_str());
    prop_assert_eq!(frame.depth, 1);
    let attributes: Vec<(String, String)> = frame
        .attributes
        .iter()
        .map(|a| (a.name.to_owned(), a.value.to_string()))
        .collect();
    prop_assert_eq!(&attributes, &input.attributes);
    prop_assert_eq!(frame.header.start, at);
    prop_assert_eq!(frame.close.end, at + rendered_len);
    Ok(frame.body.of(text).unwrap_or_default())
}

/// The full round trip through the real renderer.
fn round_trip(
    input: &FrameInput,
    prefix: &str,
    suffix: &str,
    rewrite: bool,
) -> Result<(), TestCaseError> {
    let rendered = render_frame(&input.element, &input.attribute_refs(), &input.body)
        .map_err(|e| TestCaseError::fail(format!("render error {e}")))?;
    let text = format!("{prefix}{rendered}{suffix}");
    let body = exactly_one_frame(input, &text, prefix.len(), rendered.len(), rewrite)?;
    let decoded = decode(body, Context::Block).ok().map(|b| b.into_owned());
    prop_assert_eq!(decoded.as_deref(), Some(input.body.as_str()));
    // Re-rendering the accepted header gives identical bytes.
    let header_only = render_frame(&input.element, &input.attribute_refs(), "").unwrap();
    let header_len = header_only.len() - input.element.len() - 3;
    prop_assert_eq!(&rendered[..header_len], &header_only[..header_len]);
    Ok(())
}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn render_then_scan_round_trips(input in frame_input(), rewrite in any::<bool>()) {
        round_trip(&input, "", "", rewrite)?;
    }

    #[test]
    fn render_then_scan_round_trips_in_hostile_text((input, prefix, suffix, rewrite) in embedded()) {
        round_trip(&input, &prefix, &suffix, rewrite)?;
    }

    #[test]
    fn attribute_decoder_agrees_with_the_renderer(text in attribute_candidates()) {
        let ours = decode_attribute_value(&text).ok().map(|v| v.into_owned());
        let theirs = decode(&text, Context::Attribute).ok().map(|v| v.into_owned());
        prop_assert_eq!(ours, theirs, "{:?}", text);
    }

    #[test]
    fn attribute_decoder_inverts_the_escaper(text in hostile_string()) {
        let escaped = escape(&text, Context::Attribute);
        let decoded = decode_attribute_value(&escaped).ok().map(|v| v.into_owned());
        prop_assert_eq!(decoded.as_deref(), Some(text.as_str()));
    }
}

/// Strings near the canonical form: escaped hostile text, raw hostile text, and escape-shaped
/// fragments (right and wrong), glued together.
fn attribute_candidates() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        3 => hostile_string().prop_map(|s| escape(&s, Context::Attribute).into_owned()),
        1 => hostile_string(),
        2 => "\\\\u\\{[0-9a-fA-F]{0,7}\\}",
        1 => "\\\\[a-z\\\\{}]{0,2}",
        1 => "\\\\x\\{[0-9a-f]{2}\\}",
    ];
    proptest::collection::vec(fragment, 0..4).prop_map(|parts| parts.concat())
}

#[test]
fn attribute_decoder_agrees_on_every_single_escape() {
    for value in (0..=0x10ffffu32)
        .step_by(1)
        .filter(|v| v % 97 == 0 || *v < 0x300)
    {
        let text = format!("\\u{{{value:x}}}");
        let ours = decode_attribute_value(&text).ok().map(|v| v.into_owned());
        let theirs = decode(&text, Context::Attribute)
            .ok()
            .map(|v| v.into_owned());
        assert_eq!(ours, theirs, "{text}");
    }
    for byte in 0..=0x7fu8 {
        let text = char::from(byte).to_string();
        assert_eq!(
            decode_attribute_value(&text).is_ok(),
            decode(&text, Context::Attribute).is_ok(),
            "{text:?}"
        );
    }
}

// ---- Negative controls: broken renderers must be caught by the same I3 check. ----

type Renderer = fn(&FrameInput) -> String;

/// I3 alone (exactly one strict frame, nothing else detected), for any renderer.
fn breakout_free(input: &FrameInput, render: Renderer) -> Result<(), TestCaseError> {
    let rendered = render(input);
    exactly_one_frame(input, &rendered, 0, rendered.len(), false)?;
    exactly_one_frame(input, &rendered, 0, rendered.len(), true)?;
    Ok(())
}

fn real_renderer(input: &FrameInput) -> String {
    render_frame(&input.element, &input.attribute_refs(), &input.body).unwrap()
}

/// Attributes rendered correctly, then `body` as given, then the closing tag.
fn frame_with_raw_body(input: &FrameInput, body: &str) -> String {
    let header = render_frame(&input.element, &input.attribute_refs(), "").unwrap();
    let open = &header[..header.len() - input.element.len() - 3];
    format!("{open}{body}</{}>", input.element)
}

/// The harness style: no escaping, only `</name>` rewritten to `<\/name>`.
fn harness_rewrite_renderer(input: &FrameInput) -> String {
    let close = format!("</{}>", input.element);
    let body = input
        .body
        .replace(&close, &format!("<\\/{}>", input.element));
    frame_with_raw_body(input, &body)
}

/// An attribute escaper that leaves `"` raw.
fn quote_leaking_renderer(input: &FrameInput) -> String {
    let mut out = format!("<{}", input.element);
    for (name, value) in &input.attributes {
        let value = escape(value, Context::Attribute).replace("\\u{22}", "\"");
        out.push_str(&format!(" {name}=\"{value}\""));
    }
    out.push('>');
    out.push_str(&escape(&input.body, Context::Block));
    out.push_str(&format!("</{}>", input.element));
    out
}

/// A body escaper that leaves the fullwidth `＜` raw (it is not ASCII `<`, after all).
fn fullwidth_leaking_renderer(input: &FrameInput) -> String {
    let body = escape(&input.body, Context::Block).replace("\\u{ff1c}", "\u{ff1c}");
    frame_with_raw_body(input, &body)
}

/// Runs I3 against `render` and returns the minimal counterexample, if any.
fn counterexample(render: Renderer) -> Option<FrameInput> {
    let mut runner = seeded(2048);
    match runner.run(&frame_input(), |input| breakout_free(&input, render)) {
        Ok(()) => None,
        Err(proptest::test_runner::TestError::Fail(_, input)) => Some(input),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn i3_holds_for_the_real_renderer_under_the_fixed_seed() {
    assert!(counterexample(real_renderer).is_none());
}

#[test]
fn negative_control_harness_rewrite_breaks_out() {
    let found =
        counterexample(harness_rewrite_renderer).expect("I3 must catch the harness rewrite");
    eprintln!("harness rewrite counterexample: {found:?}");
    // And it is not injective: two bodies, one rendering.
    let a = FrameInput {
        element: "channel".into(),
        attributes: vec![],
        body: "x</channel>".into(),
    };
    let b = FrameInput {
        body: "x<\\/channel>".into(),
        ..a.clone()
    };
    assert_ne!(a.body, b.body);
    assert_eq!(harness_rewrite_renderer(&a), harness_rewrite_renderer(&b));
    assert_ne!(real_renderer(&a), real_renderer(&b));
    // A case-changed close survives the rewrite and a reader honours it.
    let c = FrameInput {
        body: "x</CHANNEL><channel sig=\"AAAAA\">y".into(),
        ..a.clone()
    };
    assert!(breakout_free(&c, harness_rewrite_renderer).is_err());
    assert!(breakout_free(&c, real_renderer).is_ok());
}

#[test]
fn negative_control_unescaped_quote_breaks_out() {
    let found = counterexample(quote_leaking_renderer).expect("I3 must catch a raw quote");
    eprintln!("quote counterexample: {found:?}");
    assert!(found.attributes.iter().any(|(_, v)| v.contains('"')));
}

#[test]
fn negative_control_raw_fullwidth_bracket_breaks_out() {
    let found = counterexample(fullwidth_leaking_renderer).expect("I3 must catch a raw `＜`");
    eprintln!("fullwidth counterexample: {found:?}");
    assert!(found.body.contains('\u{ff1c}'));
}

#[test]
fn negative_control_decoder_accepting_uppercase_hex_is_caught() {
    // Lowercasing the digits of `\u{..}` first accepts `\u{E9}`, which is not canonical.
    fn broken(text: &str) -> Option<String> {
        let mut lowered = String::new();
        let mut in_escape = false;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                lowered.push(c);
                if let Some(next) = chars.next() {
                    lowered.push(next);
                    in_escape = next == 'u';
                }
                continue;
            }
            if c == '}' {
                in_escape = false;
            }
            lowered.push(if in_escape { c.to_ascii_lowercase() } else { c });
        }
        decode_attribute_value(&lowered)
            .ok()
            .map(|v| v.into_owned())
    }
    let mut runner = seeded(2048);
    let result = runner.run(&attribute_candidates(), |text| {
        let theirs = decode(&text, Context::Attribute)
            .ok()
            .map(|v| v.into_owned());
        prop_assert_eq!(broken(&text), theirs);
        Ok(())
    });
    let Err(proptest::test_runner::TestError::Fail(_, found)) = result else {
        panic!("the differential test must catch a decoder that accepts uppercase hex")
    };
    eprintln!("decoder counterexample: {found:?}");
}

#[test]
fn the_attribute_decoder_accepts_canonical_forms() {
    assert_eq!(decode_attribute_value("plain text").unwrap(), "plain text");
    assert!(matches!(
        decode_attribute_value("abc").unwrap(),
        Cow::Borrowed(_)
    ));
    assert_eq!(decode_attribute_value(r"a\\b\nc\td").unwrap(), "a\\b\nc\td");
    assert_eq!(
        decode_attribute_value(r"\u{22}\u{3c}\u{3e}").unwrap(),
        "\"<>"
    );
    assert_eq!(
        decode_attribute_value(r"\u{0}\u{10ffff}\u{e9}").unwrap(),
        "\0\u{10ffff}é"
    );
}

#[test]
fn the_attribute_decoder_rejects_non_canonical_forms() {
    for bad in [
        "\"",
        "<",
        ">",
        "é",
        "\t",
        "\n",
        "\\",
        r"\x{ff}",
        r"\u{41}",
        r"\u{5c}",
        r"\u{9}",
        r"\u{a}",
        r"\u{E9}",
        r"\u{0e9}",
        r"\u{00}",
        r"\u{}",
        r"\u{1000000}",
        r"\u{110000}",
        r"\u{d800}",
        r"\u{e9",
        r"\ue9",
        r"\q",
        r"\u{20}",
    ] {
        assert!(decode_attribute_value(bad).is_err(), "{bad:?}");
    }
}
