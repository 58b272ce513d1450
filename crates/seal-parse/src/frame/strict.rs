//! The fast path of detection: a tag written exactly in the strict grammar, read in one pass
//! over its bytes.
//!
//! Almost every tag a verifier meets is a header or closing tag that seal itself rendered. This
//! path recognizes exactly those: `<name>` or `<name a="v" ..>` with one ASCII space before each
//! attribute, names in `[a-z][a-z0-9_-]{0,63}`, canonical escape-v1 values, distinct names, `sig`
//! last, within the attribute and header limits; and `</name>`. For such a tag it gives the same
//! tag, with the same attributes, span and count of characters consumed, as lenient detection;
//! for anything else it gives nothing and detection reads the tag character by character. The
//! test suite checks the agreement on generated tags (`fast == lenient`).

use std::borrow::Cow;

use super::config::{continues_attribute_name, ScanConfig};
use super::finding::{Attribute, Span, TagKind};
#[cfg(any(test, feature = "fuzz"))]
use super::tag::{detect_lenient, Detection};
use super::tag::{Reasons, Tag};
use super::value::{decode_attribute_value, is_literal};

/// The strictly written tag of `config.element()` whose `<` is at byte `start` of `text`, with the
/// number of characters it spans (lenient detection consumes exactly these); `None` when the
/// text at `start` is anything else.
pub(crate) fn strict_tag<'t>(
    text: &'t str,
    start: usize,
    config: &ScanConfig,
) -> Option<(Tag<'t>, usize)> {
    // Lenient detection reads no byte at or past this limit (a longer tag is `header_too_long`).
    let limit = start
        .saturating_add(config.limits().max_header_bytes)
        .min(text.len());
    let tag = text.as_bytes().get(start..limit)?;
    let element = config.element().as_bytes();
    let after = tag.strip_prefix(b"<")?;
    if let Some(close) = after.strip_prefix(b"/") {
        if close.strip_prefix(element)?.first() != Some(&b'>') {
            return None;
        }
        let len = element.len() + 3;
        return Some((strict(TagKind::Close, start, len, Vec::new()), len));
    }
    after.strip_prefix(element)?;
    let mut attributes: Vec<Attribute<'t>> = Vec::with_capacity(USUAL_ATTRIBUTES);
    let mut at = 1 + element.len();
    loop {
        match *tag.get(at)? {
            b'>' => break,
            b' ' => at += 1,
            _ => return None,
        }
        let (name_start, (name_end, value_end, escaped)) = (at, attribute_at(tag, at)?);
        at = value_end;
        let (name, raw) = text
            .get(start + name_start..start + at)?
            .split_at_checked(name_end - name_start)?;
        let raw = raw.get(2..)?;
        let after_sig = attributes.last().is_some_and(|held| held.name == "sig");
        if after_sig || attributes.len() >= config.limits().max_attributes {
            return None;
        }
        // Names are short: compared in place, not by a call to `memcmp` each.
        for held in &attributes {
            if held.name.len() == name.len() && held.name.bytes().eq(name.bytes()) {
                return None;
            }
        }
        // A value that does not decode leaves the tag to lenient detection.
        let value = if escaped {
            decode_attribute_value(raw).ok()?
        } else {
            Cow::Borrowed(raw)
        };
        attributes.push(Attribute { name, value });
        at += 1;
    }
    let len = at + 1;
    Some((strict(TagKind::Open, start, len, attributes), len))
}

/// The attribute whose name starts at `name_start` of `tag`: where its name ends, where its
/// value's closing quote stands, and whether the value holds an escape.
fn attribute_at(tag: &[u8], name_start: usize) -> Option<(usize, usize, bool)> {
    let (first, rest) = tag.get(name_start..)?.split_first()?;
    let name_len = 1 + rest
        .iter()
        .take_while(|&&b| continues_attribute_name(b))
        .count();
    let name_end = name_start + name_len;
    let equals_quote = tag.get(name_end..name_end + 2)? == b"=\"";
    if !first.is_ascii_lowercase() || name_len > MAX_NAME_LEN || !equals_quote {
        return None;
    }
    let (mut at, mut escaped) = (name_end + 2, false);
    loop {
        at += tag.get(at..)?.iter().position(|&byte| !is_literal(byte))?;
        match *tag.get(at)? {
            b'"' => return Some((name_end, at, escaped)),
            b'\\' => (escaped, at) = (true, at + 1),
            _ => return None,
        }
    }
}

/// Room made for the attributes of an opening tag: a signed frame usually has five (`source`,
/// `id`, `iat`, `kid`, `sig`), so its list is allocated once.
const USUAL_ATTRIBUTES: usize = 8;

/// Checks the strict path against lenient detection at every `<` of `text`: wherever the strict
/// path takes a tag, lenient detection finds the same tag (kind, span, attributes, characters
/// consumed) and no reason. Returns how many tags the strict path took; `Err` names the first
/// disagreement. An oracle for the fuzz checks and tests only.
#[cfg(any(test, feature = "fuzz"))]
pub(crate) fn agrees_with_lenient(text: &str, config: &ScanConfig) -> Result<usize, String> {
    let mut taken = 0;
    for (start, _) in text.match_indices('<') {
        let Some(strict) = strict_tag(text, start, config) else {
            continue;
        };
        taken += 1;
        if !same_tag(&strict, detect_lenient(text, start, config)) {
            return Err(format!(
                "{text:?} at {start}: strict and lenient tags differ"
            ));
        }
    }
    Ok(taken)
}

/// Whether a strict tag and a lenient detection, each with its characters consumed, are the
/// same tag, the lenient one without a reason.
#[cfg(any(test, feature = "fuzz"))]
fn same_tag(strict: &(Tag<'_>, usize), lenient: (Detection<'_>, usize)) -> bool {
    let ((tag, steps), (Detection::Tag(other), other_steps)) = (strict, lenient) else {
        return false;
    };
    let parts = (tag.kind, tag.span, tag.terminated, tag.self_closing, *steps);
    let other_parts = (
        other.kind,
        other.span,
        other.terminated,
        other.self_closing,
        other_steps,
    );
    other.reasons.into_vec().is_empty()
        && parts == other_parts
        && tag.attributes == other.attributes
}

/// Longest attribute name of the strict grammar, in bytes.
const MAX_NAME_LEN: usize = 64;

fn strict<'t>(kind: TagKind, start: usize, len: usize, attributes: Vec<Attribute<'t>>) -> Tag<'t> {
    Tag {
        kind,
        span: Span {
            start,
            end: start + len,
        },
        reasons: Reasons::default(),
        attributes,
        terminated: true,
        self_closing: false,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

    use super::*;
    use crate::frame::config::ScanLimits;
    use crate::frame::finding::SuspectReason;

    /// Tags the fast path took in the agreement checks (so a vacuous pass shows).
    static TAKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn agrees(text: &str, config: &ScanConfig) -> Result<(), TestCaseError> {
        let taken = agrees_with_lenient(text, config).map_err(TestCaseError::fail)?;
        TAKEN.fetch_add(taken, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    fn element() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            12 => Just("channel"),
            1 => Just("Channel"),
            1 => Just("channelx"),
            1 => Just("chan"),
        ]
    }

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => Just("id".to_owned()),
            3 => Just("sig".to_owned()),
            2 => Just("kid".to_owned()),
            2 => Just("x-y_1".to_owned()),
            1 => Just("A".to_owned()),
            1 => Just("1a".to_owned()),
            1 => Just("a".repeat(64)),
            1 => Just("a".repeat(65)),
            1 => Just(String::new()),
        ]
    }

    fn value() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            24 => Just("telegram"),
            4 => Just(""),
            2 => Just(r"say \u{22}hi\u{22} \\ \n"),
            1 => Just(r"\u{41}"),
            1 => Just(r"\u{0041}"),
            1 => Just(r"\x{41}"),
            1 => Just(r"a\"),
            1 => Just("a>b"),
            1 => Just("a<b"),
            1 => Just(r"caf\u{e9}"),
            1 => Just("tab\there"),
            1 => Just("caf\u{e9}"),
        ]
    }

    fn attribute() -> impl Strategy<Value = String> {
        let space = prop_oneof![24 => Just(" "), 1 => Just("  "), 1 => Just(""), 1 => Just("\t")];
        let quote = prop_oneof![24 => Just('"'), 1 => Just('\'')];
        (space, name(), quote, value())
            .prop_map(|(space, name, quote, value)| format!("{space}{name}={quote}{value}{quote}"))
    }

    fn tag() -> impl Strategy<Value = String> {
        let end = prop_oneof![12 => Just(">"), 1 => Just(" >"), 1 => Just("/>"), 1 => Just("")];
        let open = (element(), proptest::collection::vec(attribute(), 0..5), end).prop_map(
            |(element, attributes, end)| format!("<{element}{}{end}", attributes.concat()),
        );
        let close = prop_oneof![
            6 => Just("</channel>".to_owned()),
            1 => Just("</channel >".to_owned()),
            1 => Just("</Channel>".to_owned()),
            1 => Just("</channelx>".to_owned()),
            1 => Just("</channel".to_owned()),
            1 => Just(r"<\/channel>".to_owned()),
        ];
        prop_oneof![4 => open, 1 => close]
    }

    fn case() -> impl Strategy<Value = (String, bool)> {
        let text = proptest::collection::vec(
            prop_oneof![3 => tag(), 1 => Just("body text ".to_owned())],
            1..5,
        )
        .prop_map(|pieces| pieces.concat());
        (text, any::<bool>())
    }

    /// The default configuration, or one with small attribute and header limits.
    fn config(small: bool) -> ScanConfig {
        let config = ScanConfig::new("channel").unwrap();
        if small {
            config.with_limits(ScanLimits {
                max_attributes: 3,
                max_header_bytes: 48,
                ..ScanLimits::default()
            })
        } else {
            config
        }
    }

    /// The first counterexample to agreement under a fixed seed, if any.
    fn counterexample() -> Option<(String, bool)> {
        let runner_config = Config {
            cases: 3000,
            failure_persistence: None,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
        let mut runner = TestRunner::new_with_rng(runner_config, rng);
        match runner.run(&case(), |(text, small)| agrees(&text, &config(small))) {
            Ok(()) => None,
            Err(proptest::test_runner::TestError::Fail(_, case)) => Some(case),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn fast_path_agrees_with_lenient_detection() {
        let before = TAKEN.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(counterexample(), None);
        let taken = TAKEN.load(std::sync::atomic::Ordering::Relaxed) - before;
        // Other tests of this module run concurrently and add to the count; this one alone
        // takes well over this many tags under the fixed seed.
        assert!(taken >= 1000, "the fast path took only {taken} tags");
    }

    /// Tags rendered by seal take the fast path (else it would be correct but useless).
    #[test]
    fn rendered_tags_take_the_fast_path() {
        let config = ScanConfig::new("channel").unwrap();
        // A name of the longest length the strict grammar allows.
        let longest = "n".repeat(MAX_NAME_LEN);
        let cases: [&[(&str, &str)]; 5] = [
            &[],
            &[(longest.as_str(), "v")],
            &[
                ("source", "telegram"),
                ("id", "m1"),
                ("kid", "k1"),
                ("sig", "AbC"),
            ],
            &[("source", "ci \"nightly\" <x>"), ("note", "caf\u{e9}\n\\")],
            &[("a", "")],
        ];
        for attributes in cases {
            let text = seal_render::render_frame("channel", attributes, "body").unwrap();
            let (open, steps) = strict_tag(&text, 0, &config).expect("header");
            assert_eq!(open.attributes.len(), attributes.len());
            for (held, (name, value)) in open.attributes.iter().zip(attributes) {
                assert_eq!((held.name, held.value()), (*name, *value));
            }
            assert_eq!(steps, open.span.end);
            let close = text.rfind("</").unwrap();
            let (tag, _) = strict_tag(&text, close, &config).expect("close");
            assert_eq!(tag.kind, TagKind::Close);
        }
    }

    /// A rendered frame's header and closing tag are both taken, and agree.
    #[test]
    fn a_rendered_frame_takes_two_tags_that_agree() {
        let config = ScanConfig::new("channel").unwrap();
        let text = seal_render::render_frame("channel", &[("id", "m1")], "a < b").unwrap();
        assert_eq!(agrees_with_lenient(&text, &config), Ok(2));
        assert_eq!(agrees_with_lenient("no tag < here", &config), Ok(0));
    }

    /// Tags that differ in any one part, or a lenient tag with a reason, or no lenient tag at
    /// all, are not the same tag.
    #[test]
    fn tags_differing_in_any_part_are_not_the_same() {
        let config = ScanConfig::new("channel").unwrap();
        let text = "<channel a=\"1\"><channel a=\"2\">";
        let strict = strict_tag(text, 0, &config).unwrap();
        let lenient = || detect_lenient(text, 0, &config);
        assert!(same_tag(&strict, lenient()));
        let changed = |change: fn(&mut Tag<'_>)| {
            let (Detection::Tag(mut tag), steps) = lenient() else {
                panic!("a tag")
            };
            change(&mut tag);
            same_tag(&strict, (Detection::Tag(tag), steps))
        };
        assert!(!changed(|tag| tag.reasons.add(SuspectReason::NameCase)));
        assert!(!changed(|tag| tag.span.end += 1));
        assert!(!changed(|tag| tag.attributes.clear()));
        let (_, steps) = lenient();
        assert!(!same_tag(
            &strict,
            (Detection::NotATag { resume: 1 }, steps)
        ));
        assert_eq!(agrees_with_lenient(text, &config), Ok(2));
    }
}
