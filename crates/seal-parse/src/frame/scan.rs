//! The scan: candidates, detection, pairing of opening and closing tags.

use super::config::ScanConfig;
use super::finding::{
    CloseForm, Finding, Frame, Reason, ScanError, ScanStats, Span, Suspect, TagKind,
};
use super::search::CandidateSearch;
use super::strict::strict_tag;
use super::tag::{detect, Detection, Tag};

/// Finds every tag of the configured element in `text`, in document order of their first tag.
///
/// Returns one [`Finding`] per opening tag (a strictly accepted [`Frame`] or a [`Suspect`]) and
/// one [`Suspect`] per closing tag that closes nothing. Pairing follows spec/frame-v1.md: without
/// a harness rewrite a closing tag closes the innermost open frame; with it, a literal `</name>`
/// closes the outermost open frame and `<\/name>` closes the innermost one only when that one is
/// nested. Runs in time linear in `text.len()` and allocates only per finding.
///
/// # Errors
///
/// [`ScanError`] when a count limit of [`ScanLimits`](super::ScanLimits) is exceeded; the text
/// must then be treated as failing verification.
pub fn scan<'t>(text: &'t str, config: &ScanConfig) -> Result<Vec<Finding<'t>>, ScanError> {
    scan_with_stats(text, config).0
}

/// [`scan`], also returning the work counters (also when the scan stops at a limit).
pub fn scan_with_stats<'t>(
    text: &'t str,
    config: &ScanConfig,
) -> (Result<Vec<Finding<'t>>, ScanError>, ScanStats) {
    let (findings, stats) = scan_findings(text, config);
    (findings.map(Iterator::collect), stats)
}

/// [`scan_with_stats`] with the findings handed out one by one, in the same order, instead of
/// collected: the scan keeps one list of detected tags, and each finding is built from it as
/// it is taken.
pub fn scan_findings<'t>(
    text: &'t str,
    config: &ScanConfig,
) -> (Result<Findings<'t>, ScanError>, ScanStats) {
    let mut stats = ScanStats::default();
    let mut pairing = Pairing {
        config,
        entries: Entries::default(),
        top: None,
        open: 0,
    };
    let mut search = CandidateSearch::new(text);
    let mut from = 0;
    while let Some(at) = search.next_candidate(from, &mut stats) {
        stats.candidates += 1;
        let (detection, steps) = detect(text, at, config);
        stats.chars_examined += steps;
        match detection {
            Detection::NotATag { resume } => from = resume.max(at + 1),
            Detection::Tag(tag) => {
                from = tag.span.end.max(at + 1);
                if let Err(error) = pairing.add(tag) {
                    return (Err(error), stats);
                }
            }
        }
    }
    (Ok(pairing.finish(text)), stats)
}

/// The one frame of `text`, when `text` is the usual message: exactly one frame of the element,
/// its header and its literal closing tag written in the strict grammar, and no other candidate
/// (no other `<`, no lookalike bracket) anywhere. Then [`scan_with_stats`] gives exactly
/// `[Finding::Frame(frame)]` at depth 1 with the same [`ScanStats`]; this finds it with the
/// same search and the strict path alone, without the pairing.
///
/// `None` says only that the text is not of that shape (no frame, more, a suspect, a nested or
/// unclosed one, another `<`, or count limits below one frame): call [`scan_findings`] then.
/// It never says the text is clean.
#[must_use]
pub fn scan_single<'t>(text: &'t str, config: &ScanConfig) -> Option<(Frame<'t>, ScanStats)> {
    scan_single_checking(text, config, SingleChecks::ALL)
}

/// The conditions of [`scan_single`] that are checks rather than shape (the test suite shows
/// that dropping any of them is caught).
#[derive(Debug, Clone, Copy)]
struct SingleChecks {
    /// The count limits allow one frame.
    limits: bool,
    /// The second tag is a closing tag.
    close_kind: bool,
    /// No candidate follows the closing tag.
    nothing_after: bool,
}

impl SingleChecks {
    const ALL: SingleChecks = SingleChecks {
        limits: true,
        close_kind: true,
        nothing_after: true,
    };
}

fn scan_single_checking<'t>(
    text: &'t str,
    config: &ScanConfig,
    checks: SingleChecks,
) -> Option<(Frame<'t>, ScanStats)> {
    let limits = config.limits();
    if checks.limits && (limits.max_frames == 0 || limits.max_depth == 0) {
        return None;
    }
    let mut stats = ScanStats::default();
    let mut search = CandidateSearch::new(text);
    let open_at = search.next_candidate(0, &mut stats)?;
    let (open, open_steps) = strict_tag(text, open_at, config)?;
    if open.kind != TagKind::Open {
        return None;
    }
    let close_at = search.next_candidate(open.span.end, &mut stats)?;
    let (close, close_steps) = strict_tag(text, close_at, config)?;
    if checks.close_kind && close.kind != TagKind::Close {
        return None;
    }
    if checks.nothing_after && search.next_candidate(close.span.end, &mut stats).is_some() {
        return None;
    }
    stats.candidates = 2;
    stats.chars_examined = open_steps + close_steps;
    let element = text.get(open.span.start + 1..open.span.start + 1 + config.element().len())?;
    let frame = Frame {
        element,
        attributes: open.attributes,
        depth: 1,
        header: open.span,
        body: Span {
            start: open.span.end,
            end: close.span.start,
        },
        close: close.span,
        close_form: CloseForm::Literal,
    };
    Some((frame, stats))
}

/// The findings of one scan, in document order of their first tag (see [`scan_findings`]).
#[derive(Debug)]
pub struct Findings<'t> {
    first: Option<Entry<'t>>,
    rest: std::vec::IntoIter<Entry<'t>>,
    element_len: usize,
    text: &'t str,
}

impl<'t> Iterator for Findings<'t> {
    type Item = Finding<'t>;

    fn next(&mut self) -> Option<Finding<'t>> {
        let entry = match self.first.take() {
            Some(first) => first,
            None => self.rest.next()?,
        };
        Some(finding(entry, self.element_len, self.text))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = usize::from(self.first.is_some()) + self.rest.len();
        (len, Some(len))
    }
}

/// The detected tags of one scan in order: the first in place (a message with one frame, the
/// usual case, has one entry, since the closing tag is held in it), the others on the heap.
#[derive(Debug, Default)]
struct Entries<'t> {
    first: Option<Entry<'t>>,
    rest: Vec<Entry<'t>>,
}

impl<'t> Entries<'t> {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn get(&self, index: usize) -> Option<&Entry<'t>> {
        match index.checked_sub(1) {
            None => self.first.as_ref(),
            Some(index) => self.rest.get(index),
        }
    }

    fn get_mut(&mut self, index: usize) -> Option<&mut Entry<'t>> {
        match index.checked_sub(1) {
            None => self.first.as_mut(),
            Some(index) => self.rest.get_mut(index),
        }
    }

    fn push(&mut self, entry: Entry<'t>) {
        if self.first.is_none() {
            self.first = Some(entry);
            return;
        }
        self.rest.push(entry);
    }
}

impl ExactSizeIterator for Findings<'_> {}

/// A detected tag and what it paired with.
#[derive(Debug)]
struct Entry<'t> {
    tag: Tag<'t>,
    depth: usize,
    close: Option<Tag<'t>>,
    /// For a frame open now: the index of the frame open around it (the next one down the
    /// stack of open frames), so the stack lives in `entries` and needs no allocation of its own.
    below: Option<usize>,
}

struct Pairing<'c, 't> {
    config: &'c ScanConfig,
    entries: Entries<'t>,
    /// Index into `entries` of the innermost frame open now; the others follow `below`.
    top: Option<usize>,
    /// How many frames are open now.
    open: usize,
}

impl<'t> Pairing<'_, 't> {
    fn add(&mut self, tag: Tag<'t>) -> Result<(), ScanError> {
        let opens = tag.kind == TagKind::Open && tag.terminated && !tag.self_closing;
        let closes = tag.kind != TagKind::Open && tag.terminated;
        if opens {
            let limit = self.config.limits().max_depth;
            if self.open >= limit {
                return Err(ScanError::TooDeep {
                    limit,
                    at: tag.span.start,
                });
            }
            let index = self.entries.len();
            self.push(tag, self.open + 1)?;
            if let Some(entry) = self.entries.get_mut(index) {
                entry.below = self.top;
            }
            self.top = Some(index);
            self.open += 1;
            return Ok(());
        }
        if !closes {
            // Unterminated or self-closing: reported where it stands, pairs with nothing.
            let depth = match tag.kind {
                TagKind::Open => self.open + 1,
                _ => self.open,
            };
            return self.push(tag, depth);
        }
        let target = match (tag.kind, self.config.rewrite().is_some()) {
            (TagKind::RewrittenClose, _) => match self.open {
                0 => None,
                1 => return Ok(()), // ordinary body text of the top-level frame
                _ => self.pop(),
            },
            (_, true) => {
                // Each open frame is walked past once before the stack empties: linear overall.
                let mut outermost = None;
                while let Some(index) = self.pop() {
                    outermost = Some(index);
                }
                outermost
            }
            (_, false) => self.pop(),
        };
        match target.and_then(|index| self.entries.get_mut(index)) {
            Some(entry) => {
                entry.close = Some(tag);
                Ok(())
            }
            None => {
                let mut tag = tag;
                tag.reasons.add(Reason::StrayClose);
                self.push(tag, 0)
            }
        }
    }

    /// Closes the innermost open frame: its index.
    fn pop(&mut self) -> Option<usize> {
        let top = self.top?;
        self.top = self.entries.get(top).and_then(|entry| entry.below);
        self.open = self.open.saturating_sub(1);
        Some(top)
    }

    fn push(&mut self, tag: Tag<'t>, depth: usize) -> Result<(), ScanError> {
        let limit = self.config.limits().max_frames;
        if self.entries.len() >= limit {
            return Err(ScanError::TooManyFindings {
                limit,
                at: tag.span.start,
            });
        }
        self.entries.push(Entry {
            tag,
            depth,
            close: None,
            below: None,
        });
        Ok(())
    }

    fn finish(self, text: &'t str) -> Findings<'t> {
        Findings {
            first: self.entries.first,
            rest: self.entries.rest.into_iter(),
            element_len: self.config.element().len(),
            text,
        }
    }
}

fn finding<'t>(entry: Entry<'t>, element_len: usize, text: &'t str) -> Finding<'t> {
    let Entry {
        tag, depth, close, ..
    } = entry;
    let mut reasons = tag.reasons;
    let opens = tag.kind == TagKind::Open && tag.terminated && !tag.self_closing;
    let mut body = None;
    let mut close_span = None;
    let mut close_form = CloseForm::Literal;
    if opens {
        match close {
            Some(close) => {
                body = Some(Span {
                    start: tag.span.end,
                    end: close.span.start,
                });
                close_span = Some(close.span);
                if close.kind == TagKind::RewrittenClose {
                    close_form = CloseForm::Rewritten;
                }
                reasons.extend(close.reasons);
            }
            None => reasons.add(Reason::Unclosed),
        }
    }
    let reasons = reasons.into_vec();
    match (reasons.is_empty(), body, close_span) {
        (true, Some(body), Some(close)) => Finding::Frame(Frame {
            // A strict header starts with `<` and the exact element name.
            element: text
                .get(tag.span.start + 1..tag.span.start + 1 + element_len)
                .unwrap_or_default(),
            attributes: tag.attributes,
            depth,
            header: tag.span,
            body,
            close,
            close_form,
        }),
        _ => Finding::Suspect(Suspect {
            kind: tag.kind,
            depth,
            tag: tag.span,
            body,
            close: close_span,
            reasons,
        }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

    use super::*;
    use crate::frame::tag::Reasons;
    use crate::frame::ScanLimits;

    /// Texts taken by the shortcut in the agreement checks (so a vacuous pass shows).
    static TAKEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// Wherever the shortcut gives a frame, the full scan gives exactly that frame and the same
    /// counters.
    fn agrees(checks: SingleChecks, text: &str, config: &ScanConfig) -> Result<(), TestCaseError> {
        let Some((frame, stats)) = scan_single_checking(text, config, checks) else {
            return Ok(());
        };
        TAKEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (full, full_stats) = scan_with_stats(text, config);
        prop_assert_eq!(full, Ok(vec![Finding::Frame(frame)]), "{:?}", text);
        prop_assert_eq!(stats, full_stats, "{:?}", text);
        Ok(())
    }

    fn frame() -> impl Strategy<Value = String> {
        let attributes = prop_oneof![
            Just(vec![]),
            Just(vec![
                ("source", "telegram"),
                ("id", "m1"),
                ("kid", "k1"),
                ("sig", "AbC")
            ]),
            Just(vec![
                ("source", "ci \"nightly\" <x>"),
                ("note", "caf\u{e9}")
            ]),
            Just(vec![("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")]),
        ];
        let body = prop_oneof![
            Just("hello"),
            Just(""),
            Just("caf\u{e9} \u{2014} ok"),
            Just("a < b"),
            Just("<channel id=\"x\">inner</channel>"),
            Just("\u{ff1c}channel\u{ff1e}"),
        ];
        (attributes, body).prop_map(|(attributes, body)| {
            seal_render::render_frame("channel", &attributes, body).unwrap()
        })
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => Just("plain text ".to_owned()),
            2 => Just("caf\u{e9} \u{2014} ".to_owned()),
            1 => Just("a < b ".to_owned()),
            1 => Just("\u{ff1c}channel\u{ff1e}".to_owned()),
            1 => Just("\u{2039}x".to_owned()),
            1 => Just("</channel>".to_owned()),
            1 => Just(r"<\/channel>".to_owned()),
            1 => Just("<channel id=\"x\">".to_owned()),
            1 => Just("<Channel>".to_owned()),
            1 => Just("<channelx>".to_owned()),
            2 => frame(),
        ]
    }

    /// Texts around one rendered frame, often with nothing else that looks like a tag, and texts
    /// of tags alone (two opening tags and nothing else, say).
    fn case() -> impl Strategy<Value = (String, u8)> {
        let around = (
            proptest::collection::vec(piece(), 0..3),
            frame(),
            proptest::collection::vec(piece(), 0..3),
        )
            .prop_map(|(before, frame, after)| {
                format!("{}{frame}{}", before.concat(), after.concat())
            });
        let tag = prop_oneof![
            3 => Just("<channel id=\"x\">"),
            1 => Just("<channel>"),
            2 => Just("</channel>"),
            2 => Just("text "),
        ];
        let pieces = proptest::collection::vec(tag, 1..4).prop_map(|pieces| pieces.concat());
        (prop_oneof![3 => around, 1 => pieces], 0u8..6)
    }

    /// Default; with the harness rewrite; limits of one frame; no frame at all; no depth;
    /// small attribute and header limits.
    fn config(which: u8) -> ScanConfig {
        let config = ScanConfig::new("channel").unwrap();
        let limits = |limits: ScanLimits| config.clone().with_limits(limits);
        match which {
            1 => config.clone().with_rewrite(),
            2 => limits(ScanLimits {
                max_frames: 1,
                max_depth: 1,
                ..ScanLimits::default()
            }),
            3 => limits(ScanLimits {
                max_frames: 0,
                ..ScanLimits::default()
            }),
            4 => limits(ScanLimits {
                max_depth: 0,
                ..ScanLimits::default()
            }),
            5 => limits(ScanLimits {
                max_attributes: 3,
                max_header_bytes: 40,
                ..ScanLimits::default()
            }),
            _ => config,
        }
    }

    /// The first counterexample to agreement under a fixed seed, if any.
    fn counterexample(checks: SingleChecks) -> Option<(String, u8)> {
        let runner_config = Config {
            cases: 3000,
            failure_persistence: None,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]);
        let mut runner = TestRunner::new_with_rng(runner_config, rng);
        match runner.run(&case(), |(text, which)| {
            agrees(checks, &text, &config(which))
        }) {
            Ok(()) => None,
            Err(proptest::test_runner::TestError::Fail(_, case)) => Some(case),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn single_frame_shortcut_agrees_with_the_full_scan() {
        let before = TAKEN.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(counterexample(SingleChecks::ALL), None);
        let taken = TAKEN.load(std::sync::atomic::Ordering::Relaxed) - before;
        // Other tests of this module run concurrently and add to the count; this one alone
        // takes well over this many texts under the fixed seed.
        assert!(taken >= 300, "the shortcut took only {taken} texts");
    }

    #[test]
    fn negative_controls_a_shortcut_missing_a_check_is_caught() {
        let all = SingleChecks::ALL;
        let broken = [
            (
                "limits",
                SingleChecks {
                    limits: false,
                    ..all
                },
            ),
            (
                "close kind",
                SingleChecks {
                    close_kind: false,
                    ..all
                },
            ),
            (
                "nothing after",
                SingleChecks {
                    nothing_after: false,
                    ..all
                },
            ),
        ];
        for (name, checks) in broken {
            assert!(counterexample(checks).is_some(), "{name}");
        }
    }

    /// A rendered frame in plain text (ASCII or not) takes the shortcut; any other tag, `<`
    /// or lookalike bracket in the text, or a limit below one frame, does not.
    #[test]
    fn the_usual_message_takes_the_shortcut_and_others_do_not() {
        let config = ScanConfig::new("channel").unwrap();
        // The body is written ASCII-only (`caf\u{e9}`); the text around it need not be.
        let frame = seal_render::render_frame("channel", &[("id", "m1")], "caf\u{e9}").unwrap();
        for text in [
            frame.clone(),
            format!("before {frame} after"),
            format!("\u{2014} {frame} \u{e9}"),
        ] {
            let (found, stats) = scan_single(&text, &config).expect(&text);
            assert_eq!(Some(found.header.start), text.find('<'));
            assert_eq!(found.close.end, text.rfind('>').unwrap() + 1);
            assert_eq!(stats.candidates, 2);
        }
        for text in [
            String::new(),
            "plain".to_owned(),
            format!("a < b {frame}"),
            format!("{frame} a < b"),
            format!("{frame}{frame}"),
            format!("\u{ff1c} {frame}"),
            format!("{frame}</channel>"),
            format!("<channel>{frame}"),
            "<channel id=\"1\">unclosed".to_owned(),
            r"<channel>a<\/channel>".to_owned(),
        ] {
            assert!(scan_single(&text, &config).is_none(), "{text:?}");
        }
        for limits in [
            ScanLimits {
                max_frames: 0,
                ..ScanLimits::default()
            },
            ScanLimits {
                max_depth: 0,
                ..ScanLimits::default()
            },
        ] {
            let config = config.clone().with_limits(limits);
            assert!(scan_single(&frame, &config).is_none(), "{limits:?}");
        }
    }

    fn entry(start: usize) -> Entry<'static> {
        Entry {
            tag: Tag {
                kind: TagKind::Open,
                span: Span {
                    start,
                    end: start + 1,
                },
                reasons: Reasons::default(),
                attributes: Vec::new(),
                terminated: true,
                self_closing: false,
            },
            depth: 1,
            close: None,
            below: None,
        }
    }

    /// The first entry is held in place, the others on the heap: every index reads (and
    /// writes) the entry pushed at it, and nothing past the end.
    #[test]
    fn entries_read_back_by_index_in_place_and_on_the_heap() {
        let mut entries = Entries::default();
        for pushed in 0..6 {
            assert_eq!(entries.len(), pushed);
            assert_eq!(entries.rest.capacity() > 0, pushed > 1, "{pushed}");
            for index in 0..pushed {
                assert_eq!(entries.get(index).map(|e| e.tag.span.start), Some(index));
                if let Some(entry) = entries.get_mut(index) {
                    entry.depth = index + 10;
                }
                assert_eq!(entries.get(index).map(|e| e.depth), Some(index + 10));
            }
            assert!(entries.get(pushed).is_none());
            assert!(entries.get_mut(pushed).is_none());
            entries.push(entry(pushed));
        }
        let config = ScanConfig::new("channel").unwrap();
        let pairing = Pairing {
            config: &config,
            entries,
            top: None,
            open: 0,
        };
        let findings = pairing.finish("xxxxxxxxxx");
        assert_eq!(findings.size_hint(), (6, Some(6)));
        let starts: Vec<usize> = findings
            .map(|finding| match finding {
                Finding::Suspect(suspect) => suspect.tag.start,
                Finding::Frame(frame) => frame.header.start,
            })
            .collect();
        assert_eq!(starts, vec![0, 1, 2, 3, 4, 5]);
    }
}
