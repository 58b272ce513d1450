//! Segmentation into a reusable buffer: words as byte ranges (into the command when no quote
//! or escape had to be removed, into the buffer's decoded text otherwise), segments, launchers
//! and forms as index ranges. Nothing is allocated once the buffer has the capacity a command
//! needs.

use std::fmt;
use std::sync::Arc;

use super::forms::{FormMarks, FormRef, FormSet, NormalizedForms, WordList, Words};
use super::segment::{Operator, Segment, Segments};
use super::Span;

/// Storage a segmentation writes into, reused from one command to the next.
///
/// [`segment_into`](super::segment_into) clears the buffer and fills it; the
/// [`SegmentsRef`] it returns reads from the buffer and the command. The buffer keeps its
/// capacity: segmenting a command that needs no more room than one segmented before (in
/// decoded bytes, words, segments, launchers and forms) makes no heap allocation. A new buffer
/// holds nothing and costs no allocation either.
///
/// Room a command of `n` bytes may need: `(max_payload_depth + 1) * n` bytes of decoded words
/// and `n` of payload text, and a number of words, segments and form marks each below `n + 1`.
#[derive(Clone, Default)]
pub struct SegmentBuffer {
    /// Word values that differ from their text (quotes or escapes removed), and every word of a
    /// payload.
    pub(super) decoded: String,
    /// The payload text being segmented (a copy of the payload word's value).
    pub(super) payload: String,
    pub(super) words: Vec<WordEntry>,
    /// Segments as read by the lexer, pending analysis (a stack: one run per text).
    pub(super) lexed: Vec<LexedEntry>,
    pub(super) segments: Vec<SegmentEntry>,
    pub(super) invocations: Vec<InvocationEntry>,
    pub(super) forms: Vec<FormRef>,
}

impl SegmentBuffer {
    /// An empty buffer (no allocation until it is first used).
    #[must_use]
    pub fn new() -> SegmentBuffer {
        SegmentBuffer::default()
    }

    pub(super) fn clear(&mut self) {
        self.decoded.clear();
        self.payload.clear();
        self.words.clear();
        self.lexed.clear();
        self.segments.clear();
        self.invocations.clear();
        self.forms.clear();
    }
}

impl fmt::Debug for SegmentBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentBuffer")
            .field("segments", &self.segments.len())
            .field("words", &self.words.len())
            .field("decoded_bytes", &self.decoded.len())
            .finish_non_exhaustive()
    }
}

/// Where a word's value is: a byte range of the command, or of the decoded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Value {
    pub start: usize,
    pub end: usize,
    pub decoded: bool,
}

/// A word as read: where its value is, where it was in its text, and what of it was unquoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WordEntry {
    pub value: Value,
    pub span: Span,
    /// Unquoted `NAME=` or `NAME+=` prefix.
    pub assignment: bool,
    /// An unquoted glob character somewhere.
    pub glob: bool,
    /// Starts with an unquoted `~`.
    pub leading_tilde: bool,
    /// An unquoted `~` somewhere.
    pub tilde: bool,
    /// Starts with an unquoted `=`.
    pub leading_equals: bool,
}

/// The words (a range of [`SegmentBuffer::words`]) of one lexed segment and the operator after
/// it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LexedEntry {
    pub words: (usize, usize),
    pub span: Span,
    pub operator: Option<Operator>,
}

/// One segment of the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SegmentEntry {
    pub words: (usize, usize),
    pub assignments: usize,
    pub span: Span,
    pub operator: Option<Operator>,
    /// The innermost shell invocation the segment's payload came from.
    pub launcher: Option<usize>,
    pub depth: usize,
    pub marks: FormMarks,
    /// Range of [`SegmentBuffer::forms`]: the distinct forms after the canonical one.
    pub forms: (usize, usize),
}

/// A shell invocation whose payload was unwrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct InvocationEntry {
    pub words: (usize, usize),
    /// The invocation this one's segment came from, if it lies in a payload itself.
    pub parent: Option<usize>,
    /// Index of the first segment of its payload.
    pub first_segment: usize,
}

/// Words of a buffer, with the texts their values live in.
#[derive(Debug, Clone, Copy)]
pub(super) struct BufferWords<'a> {
    pub command: &'a str,
    pub decoded: &'a str,
    pub entries: &'a [WordEntry],
}

impl<'a> BufferWords<'a> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entry(&self, at: usize) -> Option<&'a WordEntry> {
        self.entries.get(at)
    }

    pub fn value(&self, at: usize) -> Option<&'a str> {
        self.entries.get(at).map(|word| self.value_of(word))
    }

    pub fn value_of(&self, word: &WordEntry) -> &'a str {
        let Value {
            start,
            end,
            decoded,
        } = word.value;
        let text = if decoded { self.decoded } else { self.command };
        let value = text.get(start..end);
        // The lexer records every value as a range of the text it wrote it in (the command or
        // the decoded text), on character boundaries: the empty fallback is never taken.
        debug_assert!(value.is_some(), "a word's value lies in its text");
        value.unwrap_or_default()
    }

    pub fn tail(&self, start: usize) -> BufferWords<'a> {
        BufferWords {
            entries: self.entries.get(start..).unwrap_or_default(),
            ..*self
        }
    }

    pub fn range(&self, (start, end): (usize, usize)) -> BufferWords<'a> {
        BufferWords {
            entries: self.entries.get(start..end).unwrap_or_default(),
            ..*self
        }
    }
}

/// The segments of an analysable command, read from a [`SegmentBuffer`]: the same segments,
/// words, forms and launchers as [`segment`](super::segment) gives, without copying them.
/// Never empty.
#[derive(Clone, Copy)]
pub struct SegmentsRef<'a> {
    command: &'a str,
    buffer: &'a SegmentBuffer,
}

impl<'a> SegmentsRef<'a> {
    pub(super) fn new(command: &'a str, buffer: &'a SegmentBuffer) -> SegmentsRef<'a> {
        SegmentsRef { command, buffer }
    }

    /// How many segments (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.buffer.segments.len()
    }

    /// Always `false`: an analysable command has a segment.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buffer.segments.is_empty()
    }

    /// The segment at `index`.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<SegmentRef<'a>> {
        let list = *self;
        self.buffer
            .segments
            .get(index)
            .map(|entry| SegmentRef { list, entry })
    }

    /// The segments in order (payload segments in place of their shell invocation).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = SegmentRef<'a>> + Clone + 'a {
        let list = *self;
        self.buffer
            .segments
            .iter()
            .map(move |entry| SegmentRef { list, entry })
    }

    /// Every shell invocation whose payload was unwrapped, once each, in the order of the
    /// first segment each launched (outer before inner for the same segment).
    pub fn launchers(&self) -> impl ExactSizeIterator<Item = LauncherRef<'a>> + Clone + 'a {
        let list = *self;
        self.buffer
            .invocations
            .iter()
            .map(move |entry| LauncherRef { list, entry })
    }

    /// The segments as owned values (launchers shared between the segments of one payload, as
    /// [`segment`](super::segment) gives them).
    #[must_use]
    pub fn to_segments(&self) -> Segments {
        let launchers: Vec<Arc<[String]>> = self
            .launchers()
            .map(|launcher| launcher.words().map(str::to_owned).collect())
            .collect();
        let segments = self
            .buffer
            .segments
            .iter()
            .map(|entry| self.owned(entry, &launchers))
            .collect();
        Segments::from_vec(segments)
    }

    fn words(&self) -> BufferWords<'a> {
        BufferWords {
            command: self.command,
            decoded: &self.buffer.decoded,
            entries: &self.buffer.words,
        }
    }

    fn chain(&self, entry: &SegmentEntry) -> impl Iterator<Item = usize> + Clone + 'a {
        // Outermost first: the ancestor `depth - 1 - level` steps above the innermost.
        let (innermost, depth, invocations) =
            (entry.launcher, entry.depth, &self.buffer.invocations);
        (0..depth).filter_map(move |level| {
            let mut at = innermost?;
            for _ in level + 1..depth {
                at = invocations.get(at)?.parent?;
            }
            Some(at)
        })
    }

    fn owned(&self, entry: &SegmentEntry, launchers: &[Arc<[String]>]) -> Segment {
        let words = Words::new(WordList::Buffer(self.words().range(entry.words)))
            .map(str::to_owned)
            .collect();
        let forms = FormSet {
            marks: entry.marks,
            after_canonical: self.after_canonical(entry).to_vec(),
        };
        let launchers = self
            .chain(entry)
            .filter_map(|at| launchers.get(at).cloned())
            .collect();
        Segment::from_parts(
            words,
            entry.assignments,
            entry.span,
            entry.operator,
            launchers,
            forms,
        )
    }

    fn after_canonical(&self, entry: &SegmentEntry) -> &'a [FormRef] {
        let (start, end) = entry.forms;
        self.buffer.forms.get(start..end).unwrap_or_default()
    }
}

impl fmt::Debug for SegmentsRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One segment in a [`SegmentBuffer`]: the view of a [`Segment`], same accessors, nothing
/// copied.
#[derive(Clone, Copy)]
pub struct SegmentRef<'a> {
    list: SegmentsRef<'a>,
    entry: &'a SegmentEntry,
}

impl<'a> SegmentRef<'a> {
    /// The words, with quotes and escapes removed (leading assignments included).
    #[must_use]
    pub fn words(&self) -> Words<'a> {
        Words::new(self.word_list())
    }

    /// How many leading words are shell assignments (`NAME=value`).
    #[must_use]
    pub fn assignments(&self) -> usize {
        self.entry.assignments
    }

    /// Whether the shell expands the word at `at` (counted as [`words`](Self::words) counts)
    /// into text the command does not show: an unquoted glob character (`*`, `?`, `[`, `^`)
    /// or an unquoted `~`. `true` for an index past the last word.
    #[must_use]
    pub fn word_expands(&self, at: usize) -> bool {
        self.list
            .words()
            .range(self.entry.words)
            .entry(at)
            .map_or(true, |word| word.glob || word.tilde || word.leading_tilde)
    }

    /// Byte span in the command, as [`Segment::span`].
    #[must_use]
    pub fn span(&self) -> Span {
        self.entry.span
    }

    /// The operator after the segment, as [`Segment::operator`].
    #[must_use]
    pub fn operator(&self) -> Option<Operator> {
        self.entry.operator
    }

    /// 0 for a segment of the command itself, `n` for one from the `n`-th nested shell payload.
    #[must_use]
    pub fn payload_depth(&self) -> usize {
        self.entry.depth
    }

    /// The shell invocations this segment's payload came from, outermost first, as
    /// [`Segment::launchers`].
    pub fn launchers(&self) -> impl Iterator<Item = LauncherRef<'a>> + Clone + 'a {
        let list = self.list;
        list.chain(self.entry).filter_map(move |at| {
            list.buffer
                .invocations
                .get(at)
                .map(|entry| LauncherRef { list, entry })
        })
    }

    /// The normalized forms.
    #[must_use]
    pub fn forms(&self) -> NormalizedForms<'a> {
        NormalizedForms::new(
            self.word_list(),
            self.entry.marks,
            self.list.after_canonical(self.entry),
        )
    }

    /// The segment as an owned value.
    #[must_use]
    pub fn to_segment(&self) -> Segment {
        let launchers: Vec<Arc<[String]>> = self
            .list
            .launchers()
            .map(|launcher| launcher.words().map(str::to_owned).collect())
            .collect();
        self.list.owned(self.entry, &launchers)
    }

    fn word_list(&self) -> WordList<'a> {
        WordList::Buffer(self.list.words().range(self.entry.words))
    }
}

impl fmt::Debug for SegmentRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SegmentRef")
            .field("words", &self.words())
            .field("assignments", &self.entry.assignments)
            .field("span", &self.entry.span)
            .field("operator", &self.entry.operator)
            .field("payload_depth", &self.entry.depth)
            .finish()
    }
}

/// A shell invocation (`bash -c '...'`, with any wrappers before it) whose payload was
/// unwrapped, in a [`SegmentBuffer`].
#[derive(Clone, Copy)]
pub struct LauncherRef<'a> {
    list: SegmentsRef<'a>,
    entry: &'a InvocationEntry,
}

impl<'a> LauncherRef<'a> {
    /// The canonical words of the invocation (`["sudo", "bash", "-c", "..."]`).
    #[must_use]
    pub fn words(&self) -> Words<'a> {
        Words::new(WordList::Buffer(self.list.words().range(self.entry.words)))
    }

    /// Index of the first segment of its payload.
    #[must_use]
    pub fn first_segment(&self) -> usize {
        self.entry.first_segment
    }
}

impl fmt::Debug for LauncherRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.words()).finish()
    }
}
