//! Detection completeness and structural invariants of the scanner on hostile text, with
//! negative controls: scanners blind to lookalike brackets or to ignorables must be caught; and
//! the shape of the usual one-frame message's scan.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};
use seal_parse::frame::{scan, scan_findings, FrameFinding, ScanConfig, ScanError, ScanLimits};
use seal_render::render_frame;
use seal_render::testing::hostile_string;
use seal_test_support::seeded;

const OPEN: &[&str] = &[
    "<", "\u{ff1c}", "\u{fe64}", "\u{2039}", "\u{2329}", "\u{3008}", "\u{27e8}", "\u{1438}",
];
const CLOSE: &[&str] = &[
    ">", "\u{ff1e}", "\u{fe65}", "\u{203a}", "\u{232a}", "\u{3009}", "\u{27e9}", "\u{1433}",
];
const SLASH: &[&str] = &[
    "/", "\u{ff0f}", "\u{2215}", "\u{2044}", "\u{29f8}", "\u{2571}",
];
const IGNORABLE: &[&str] = &[
    "\u{200b}",
    "\u{200c}",
    "\u{200d}",
    "\u{2060}",
    "\u{feff}",
    "\u{ad}",
    "\u{200e}",
    "\u{200f}",
    "\u{61c}",
    "\u{202a}",
    "\u{202e}",
    "\u{2066}",
    "\u{2069}",
    "\u{fe0f}",
    "\u{e0100}",
    "\u{e0041}",
    "\u{34f}",
    "\u{115f}",
    "\u{3164}",
];
const SPACE: &[&str] = &["", "", " ", "\n", "\t", "\u{a0}", "\u{3000}"];

/// One letter of `channel`: as is, uppercase, or fullwidth, maybe preceded by an ignorable.
fn letter(c: char) -> impl Strategy<Value = String> {
    let forms = vec![
        c.to_string(),
        c.to_ascii_uppercase().to_string(),
        char::from_u32(u32::from(c) - 0x21 + 0xff01)
            .unwrap()
            .to_string(),
    ];
    (
        prop_oneof![4 => Just(0usize), 1 => 1usize..3],
        proptest::sample::select(forms),
        proptest::sample::select(IGNORABLE),
    )
        .prop_map(|(form_weight, form, ignorable)| {
            if form_weight == 0 {
                form
            } else {
                format!("{ignorable}{form}")
            }
        })
}

/// A tag of `channel` the way a reader would still read it: brackets, slash, case, ignorables and
/// space all varied.
fn lenient_tag() -> impl Strategy<Value = String> {
    let name = "channel"
        .chars()
        .map(letter)
        .collect::<Vec<_>>()
        .prop_map(|letters| letters.concat());
    (
        proptest::sample::select(OPEN),
        proptest::sample::select(SPACE),
        proptest::option::of(proptest::sample::select(SLASH)),
        name,
        proptest::sample::select(SPACE),
        proptest::sample::select(vec![
            "",
            "a=\"1\"",
            "trustlevel=100",
            "a='x'",
            "sig=\"AAAAA\"",
        ]),
        proptest::sample::select(CLOSE),
    )
        .prop_map(|(open, space, slash, name, space2, attribute, close)| {
            let slash = slash.unwrap_or_default();
            let attribute = if slash.is_empty() && !attribute.is_empty() {
                format!(" {attribute}")
            } else {
                String::new()
            };
            format!("{open}{space}{slash}{name}{attribute}{space2}{close}")
        })
}

fn config(rewrite: bool) -> ScanConfig {
    let config = ScanConfig::new("channel").unwrap();
    if rewrite {
        config.with_rewrite()
    } else {
        config
    }
}

fn tag_free(rewrite: bool) -> impl Strategy<Value = String> {
    hostile_string().prop_filter("holds a tag", move |text| {
        scan(text, &config(rewrite)).is_ok_and(|f| f.is_empty())
    })
}

fn embedded_tag() -> impl Strategy<Value = (String, String, String, bool)> {
    any::<bool>().prop_flat_map(|rewrite| {
        (
            tag_free(rewrite),
            lenient_tag(),
            tag_free(rewrite),
            Just(rewrite),
        )
    })
}

/// A scanner under test, reduced to what the detection property reads: for each finding in
/// order, whether it is a suspect and where its tag starts.
type Scanner = fn(&str, &ScanConfig) -> Vec<(bool, usize)>;

fn summary(findings: &[FrameFinding<'_>]) -> Vec<(bool, usize)> {
    findings
        .iter()
        .map(|f| (matches!(f, FrameFinding::Suspect(_)), f.tag().start))
        .collect()
}

fn real_scanner(text: &str, config: &ScanConfig) -> Vec<(bool, usize)> {
    summary(&scan(text, config).unwrap())
}

/// Any lenient tag of the element inside tag-free text is detected, and not accepted as is.
fn detected(input: &(String, String, String, bool), scanner: Scanner) -> Result<(), TestCaseError> {
    let (prefix, tag, suffix, rewrite) = input;
    let text = format!("{prefix}{tag}{suffix}");
    let findings = scanner(&text, &config(*rewrite));
    let suspect = findings.iter().any(|(suspect, _)| *suspect);
    prop_assert!(suspect, "{:?} gave (suspect, start) {:?}", text, findings);
    let start = findings.first().map(|(_, start)| *start);
    prop_assert_eq!(start, Some(prefix.len()));
    Ok(())
}

/// Structural invariants of every scan.
fn well_formed(text: &str, rewrite: bool) -> Result<(), TestCaseError> {
    let findings = scan(text, &config(rewrite)).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut last_start = None;
    for finding in &findings {
        let tag = finding.tag();
        prop_assert!(last_start < Some(tag.start), "findings out of order");
        last_start = Some(tag.start);
        prop_assert!(tag.of(text).is_some());
        match finding {
            FrameFinding::Frame(frame) => {
                prop_assert!(frame.depth >= 1);
                prop_assert_eq!(frame.header.end, frame.body.start);
                prop_assert_eq!(frame.body.end, frame.close.start);
                prop_assert!(frame.close.of(text).is_some());
                // Strictly accepted headers re-render to identical bytes.
                let attributes: Vec<(&str, &str)> = frame
                    .attributes
                    .iter()
                    .map(|a| (a.name, a.value()))
                    .collect();
                let rendered = render_frame(frame.element, &attributes, "").unwrap();
                let header = &rendered[..rendered.len() - frame.element.len() - 3];
                prop_assert_eq!(frame.header.of(text), Some(header));
            }
            FrameFinding::Suspect(suspect) => {
                prop_assert!(!suspect.reasons.is_empty());
                if let (Some(body), Some(close)) = (suspect.body, suspect.close) {
                    prop_assert_eq!(suspect.tag.end, body.start);
                    prop_assert_eq!(body.end, close.start);
                }
            }
        }
    }
    Ok(())
}

/// Text with strict headers carrying hostile values, lenient tags and hostile filler.
fn mixed_text() -> impl Strategy<Value = String> {
    let strict = (hostile_string(), hostile_string()).prop_map(|(a, b)| {
        let rendered = render_frame("channel", &[("a", &a), ("sig", &b)], "").unwrap();
        rendered[..rendered.len() - "</channel>".len()].to_owned()
    });
    let piece = prop_oneof![
        3 => hostile_string(),
        2 => strict,
        2 => lenient_tag(),
        1 => Just("</channel>".to_owned()),
        1 => Just("<\\/channel>".to_owned()),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn every_lenient_tag_is_detected(input in embedded_tag()) {
        detected(&input, real_scanner)?;
    }

    #[test]
    fn scans_are_well_formed(text in mixed_text(), rewrite in any::<bool>()) {
        well_formed(&text, rewrite)?;
    }
}

fn counterexample(scanner: Scanner) -> Option<(String, String, String, bool)> {
    match seeded(1024).run(&embedded_tag(), |input| detected(&input, scanner)) {
        Ok(()) => None,
        Err(TestError::Fail(_, input)) => Some(input),
        Err(other) => panic!("{other}"),
    }
}

/// A scanner that does not know lookalike brackets (it sees them as letters).
fn lookalike_blind(text: &str, config: &ScanConfig) -> Vec<(bool, usize)> {
    let mut plain = text.to_owned();
    for lookalike in OPEN[1..].iter().chain(&CLOSE[1..]).chain(&SLASH[1..]) {
        plain = plain.replace(lookalike, &"x".repeat(lookalike.len()));
    }
    summary(&scan(&plain, config).unwrap())
}

/// A scanner that does not know ignorables (it sees them as letters).
fn ignorable_blind(text: &str, config: &ScanConfig) -> Vec<(bool, usize)> {
    let mut plain = text.to_owned();
    for ignorable in IGNORABLE {
        plain = plain.replace(ignorable, &"x".repeat(ignorable.len()));
    }
    summary(&scan(&plain, config).unwrap())
}

#[test]
fn detection_holds_for_the_real_scanner_under_the_fixed_seed() {
    assert_eq!(counterexample(real_scanner), None);
}

#[test]
fn negative_control_lookalike_blind_scanner_is_caught() {
    let found = counterexample(lookalike_blind).expect("a lookalike-blind scanner must be caught");
    eprintln!("lookalike-blind counterexample: {found:?}");
}

#[test]
fn negative_control_ignorable_blind_scanner_is_caught() {
    let found = counterexample(ignorable_blind).expect("an ignorable-blind scanner must be caught");
    eprintln!("ignorable-blind counterexample: {found:?}");
}

/// A rendered frame in plain text (ASCII or not) scans as exactly that frame at top level,
/// from two candidates, and the findings count themselves exactly.
#[test]
fn the_usual_message_scans_as_its_one_frame() {
    let config = ScanConfig::new("channel").unwrap();
    // The body is written ASCII-only (`caf\u{e9}`); the text around it need not be.
    let frame = seal_render::render_frame("channel", &[("id", "m1")], "caf\u{e9}").unwrap();
    for text in [
        frame.clone(),
        format!("before {frame} after"),
        format!("\u{2014} {frame} \u{e9}"),
    ] {
        let (findings, stats) = scan_findings(&text, &config);
        let findings = findings.unwrap();
        assert_eq!(findings.size_hint(), (1, Some(1)));
        let found: Vec<FrameFinding<'_>> = findings.collect();
        let [FrameFinding::Frame(found)] = found.as_slice() else {
            panic!("{text:?}: {found:?}")
        };
        assert_eq!(found.depth, 1);
        assert_eq!(Some(found.header.start), text.find('<'));
        assert_eq!(found.close.end, text.rfind('>').unwrap() + 1);
        assert_eq!(stats.candidates, 2);
    }
    let no_frames = ScanLimits {
        max_frames: 0,
        ..ScanLimits::default()
    };
    let no_depth = ScanLimits {
        max_depth: 0,
        ..ScanLimits::default()
    };
    let limited = |limits| scan(&frame, &config.clone().with_limits(limits));
    assert_eq!(
        limited(no_frames),
        Err(ScanError::TooManyFindings { limit: 0, at: 0 })
    );
    assert_eq!(
        limited(no_depth),
        Err(ScanError::TooDeep { limit: 0, at: 0 })
    );
}

/// Every detected tag becomes one finding, in document order, and the iterator knows how
/// many are left.
#[test]
fn findings_come_in_document_order_with_an_exact_count() {
    let config = ScanConfig::new("channel").unwrap();
    let text = "</channel>".repeat(6);
    let (findings, _) = scan_findings(&text, &config);
    let findings = findings.unwrap();
    assert_eq!(findings.size_hint(), (6, Some(6)));
    let starts: Vec<usize> = findings.map(|finding| finding.tag().start).collect();
    assert_eq!(starts, vec![0, 10, 20, 30, 40, 50]);
}
