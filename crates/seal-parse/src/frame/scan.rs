//! The scan: candidates, detection, pairing of opening and closing tags.

use smallvec::SmallVec;

use super::config::ScanConfig;
use super::finding::{
    CloseForm, Frame, FrameFinding, ScanError, ScanStats, Span, Suspect, SuspectReason, TagKind,
};
use super::search::CandidateSearch;
use super::strict::strict_tag;
use super::tag::{detect_lenient, Detection, Tag};

/// Finds every tag of the configured element in `text`, in document order of their first tag.
///
/// Returns one [`FrameFinding`] per opening tag (a strictly accepted [`Frame`] or a [`Suspect`]) and
/// one [`Suspect`] per closing tag that closes nothing. Pairing follows spec/frame-v1.md: without
/// a harness rewrite a closing tag closes the innermost open frame; with it, a literal `</name>`
/// closes the outermost open frame and `<\/name>` closes the innermost one only when that one is
/// nested. Runs in time linear in `text.len()` and allocates only per finding.
///
/// # Errors
///
/// [`ScanError`] when a count limit of [`ScanLimits`](super::ScanLimits) is exceeded; the text
/// must then be treated as failing verification.
pub fn scan<'t>(text: &'t str, config: &ScanConfig) -> Result<Vec<FrameFinding<'t>>, ScanError> {
    scan_with_stats(text, config).0
}

/// [`scan`], also returning the work counters (also when the scan stops at a limit).
pub fn scan_with_stats<'t>(
    text: &'t str,
    config: &ScanConfig,
) -> (Result<Vec<FrameFinding<'t>>, ScanError>, ScanStats) {
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
        entries: SmallVec::new(),
        top: None,
        open: 0,
    };
    let mut search = CandidateSearch::new(text);
    let mut from = 0;
    while let Some(at) = search.next_candidate(from, &mut stats) {
        stats.candidates += 1;
        // A strictly written tag goes to pairing as it was built (no copy into a detection).
        let (tag, steps) = match strict_tag(text, at, config) {
            Some(strict) => strict,
            None => match detect_lenient(text, at, config) {
                (Detection::Tag(tag), steps) => (tag, steps),
                (Detection::NotATag { resume }, steps) => {
                    stats.chars_examined += steps;
                    from = resume.max(at + 1);
                    continue;
                }
            },
        };
        stats.chars_examined += steps;
        from = tag.span.end.max(at + 1);
        if let Err(error) = pairing.add(tag) {
            return (Err(error), stats);
        }
    }
    (Ok(pairing.finish(text)), stats)
}

/// The findings of one scan, in document order of their first tag (see [`scan_findings`]).
#[derive(Debug)]
pub struct Findings<'t> {
    /// The entries, each taken in place (its lists moved out) when its finding is handed out.
    entries: SmallVec<[Entry<'t>; 1]>,
    next: usize,
    element_len: usize,
    text: &'t str,
}

impl<'t> Iterator for Findings<'t> {
    type Item = FrameFinding<'t>;

    #[inline]
    fn next(&mut self) -> Option<FrameFinding<'t>> {
        let entry = self.entries.get_mut(self.next)?;
        self.next += 1;
        Some(finding(entry, self.element_len, self.text))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.entries.len().saturating_sub(self.next);
        (left, Some(left))
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
    /// The detected tags in order; a message with one frame (the usual case) has one entry,
    /// the closing tag being held in it, and needs no allocation for it.
    entries: SmallVec<[Entry<'t>; 1]>,
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
                tag.reasons.add(SuspectReason::StrayClose);
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
            entries: self.entries,
            next: 0,
            element_len: self.config.element().len(),
            text,
        }
    }
}

fn finding<'t>(entry: &mut Entry<'t>, element_len: usize, text: &'t str) -> FrameFinding<'t> {
    let (tag, depth) = (&mut entry.tag, entry.depth);
    let mut reasons = std::mem::take(&mut tag.reasons);
    let opens = tag.kind == TagKind::Open && tag.terminated && !tag.self_closing;
    let mut body = None;
    let mut close_span = None;
    let mut close_form = CloseForm::Literal;
    if opens {
        match &mut entry.close {
            Some(close) => {
                body = Some(Span {
                    start: tag.span.end,
                    end: close.span.start,
                });
                close_span = Some(close.span);
                if close.kind == TagKind::RewrittenClose {
                    close_form = CloseForm::Rewritten;
                }
                reasons.extend(std::mem::take(&mut close.reasons));
            }
            None => reasons.add(SuspectReason::Unclosed),
        }
    }
    let reasons = reasons.into_vec();
    match (reasons.is_empty(), body, close_span) {
        (true, Some(body), Some(close)) => FrameFinding::Frame(Frame {
            // A strict header starts with `<` and the exact element name.
            element: text
                .get(tag.span.start + 1..tag.span.start + 1 + element_len)
                .unwrap_or_default(),
            attributes: std::mem::take(&mut tag.attributes),
            depth,
            header: tag.span,
            body,
            close,
            close_form,
        }),
        _ => FrameFinding::Suspect(Suspect {
            kind: tag.kind,
            depth,
            tag: tag.span,
            body,
            close: close_span,
            reasons,
        }),
    }
}
