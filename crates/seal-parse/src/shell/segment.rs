//! Segments: the simple commands of a command line, each with its normalized forms.

mod analyse;
mod run;

use std::sync::Arc;

use super::buffer::{SegmentBuffer, SegmentsRef};
use super::forms::{FormSet, NormalizedForms, WordList};
use super::quote::quote_word;
use super::{ShellLimits, Span, Unanalysable};
use run::run;

/// The operator that ends a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;`
    Semicolon,
    /// `|`
    Pipe,
    /// `|&` (pipe of standard output and standard error)
    PipeAll,
    /// `&` (run in the background)
    Background,
    /// A newline.
    Newline,
}

impl Operator {
    /// The operator as written (`"\n"` for [`Operator::Newline`]).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::And => "&&",
            Operator::Or => "||",
            Operator::Semicolon => ";",
            Operator::Pipe => "|",
            Operator::PipeAll => "|&",
            Operator::Background => "&",
            Operator::Newline => "\n",
        }
    }
}

/// One simple command: plain words, where it came from, and its normalized forms.
///
/// Only [`segment`] builds one, so a `Segment` always has at least one word, a program that
/// passed every program-position check, and forms computed by the documented wrapper table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    words: Vec<String>,
    assignments: usize,
    span: Span,
    operator: Option<Operator>,
    launchers: Vec<Arc<[String]>>,
    forms: FormSet,
}

impl Segment {
    /// The words, with quotes and escapes removed (the values the program receives, leading
    /// assignments included).
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// How many leading words are shell assignments (`NAME=value`).
    #[must_use]
    pub fn assignments(&self) -> usize {
        self.assignments
    }

    /// Byte span in the command given to [`segment`]: first to last word for a segment of the
    /// command itself; the outermost payload word for a segment of a shell payload.
    #[must_use]
    pub fn span(&self) -> Span {
        self.span
    }

    /// The operator after the segment; `None` for the last one. The last segment of a payload
    /// that ends without an operator takes the operator that followed its shell invocation.
    #[must_use]
    pub fn operator(&self) -> Option<Operator> {
        self.operator
    }

    /// 0 for a segment of the command itself, `n` for one from the `n`-th nested shell payload.
    #[must_use]
    pub fn payload_depth(&self) -> usize {
        self.launchers.len()
    }

    /// The canonical words of each shell invocation this segment's payload came from,
    /// outermost first (`["sudo", "bash", "-c", "..."]`). A rule engine should require these
    /// to be allowed too: a payload runs with whatever its launcher gives it.
    #[must_use]
    pub fn launchers(&self) -> &[Arc<[String]>] {
        &self.launchers
    }

    /// The normalized forms.
    #[must_use]
    pub fn forms(&self) -> NormalizedForms<'_> {
        NormalizedForms::new(
            WordList::Owned(&self.words),
            self.forms.marks,
            &self.forms.after_canonical,
        )
    }

    pub(super) fn from_parts(
        words: Vec<String>,
        assignments: usize,
        span: Span,
        operator: Option<Operator>,
        launchers: Vec<Arc<[String]>>,
        forms: FormSet,
    ) -> Segment {
        Segment {
            words,
            assignments,
            span,
            operator,
            launchers,
            forms,
        }
    }

    /// The words in one fixed quoting that segments back to the same words and forms: leading
    /// assignments as `NAME=` then the quoted value, every other word by [`quote_word`],
    /// separated by single spaces.
    #[must_use]
    pub fn quoted(&self) -> String {
        let mut out = String::new();
        for (at, word) in self.words.iter().enumerate() {
            if at > 0 {
                out.push(' ');
            }
            match word.split_once('=') {
                Some((name, value)) if at < self.assignments => {
                    out.push_str(name);
                    out.push('=');
                    if !value.is_empty() {
                        out.push_str(&quote_word(value));
                    }
                }
                _ => out.push_str(&quote_word(word)),
            }
        }
        out
    }
}

/// Every segment of an analysable command, in order (payload segments in place of their shell
/// invocation). Never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segments {
    segments: Vec<Segment>,
}

impl Segments {
    /// The segments as a slice.
    #[must_use]
    pub fn as_slice(&self) -> &[Segment] {
        &self.segments
    }

    /// The segments in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Segment> {
        self.segments.iter()
    }

    /// How many segments (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.segments.len()
    }

    /// Always `false`: an analysable command has a segment.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The segments, owned.
    #[must_use]
    pub fn into_vec(self) -> Vec<Segment> {
        self.segments
    }

    pub(super) fn from_vec(segments: Vec<Segment>) -> Segments {
        Segments { segments }
    }
}

impl<'a> IntoIterator for &'a Segments {
    type Item = &'a Segment;
    type IntoIter = std::slice::Iter<'a, Segment>;

    fn into_iter(self) -> Self::IntoIter {
        self.segments.iter()
    }
}

/// Work done by one call of [`segment_with_stats`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShellStats {
    steps: usize,
}

impl ShellStats {
    /// Bytes and characters read (payloads counted again at each level), plus words and option
    /// letters examined while normalizing. At most about `max_payload_depth + 2` times the
    /// command length.
    #[must_use]
    pub fn steps(&self) -> usize {
        self.steps
    }
}

/// Splits `command` into segments, or says why it is unanalysable.
///
/// Strict: whatever the grammar of spec/shell-segments.md does not cover (expansions,
/// redirections, grouping, hidden characters, unknown wrapper options, limits...) is an
/// [`Unanalysable`] with its [`UnanalysableReason`](super::UnanalysableReason). Linear in the length of `command` per payload level;
/// no panic on any input. The owned form of [`segment_into`], which makes the same segments
/// without copying them.
///
/// ```
/// use seal_parse::shell::{segment, Operator, ShellLimits};
///
/// let segments = segment("git log && sudo /bin/rm -rf t", &ShellLimits::default())?;
/// let [log, rm] = segments.as_slice() else { panic!("two segments") };
/// assert_eq!(log.words(), ["git", "log"]);
/// assert_eq!(log.operator(), Some(Operator::And));
/// assert_eq!(rm.forms().normalized().to_string(), "rm -rf t");
///
/// let error = segment("git log $(rm -rf t)", &ShellLimits::default()).unwrap_err();
/// assert_eq!(error.reason.code(), "command_substitution");
/// # Ok::<(), seal_parse::shell::Unanalysable>(())
/// ```
///
/// # Errors
///
/// [`Unanalysable`] with the first construct met that is outside the grammar.
pub fn segment(command: &str, limits: &ShellLimits) -> Result<Segments, Unanalysable> {
    segment_with_stats(command, limits).0
}

/// [`segment`], also reporting the work done.
pub fn segment_with_stats(
    command: &str,
    limits: &ShellLimits,
) -> (Result<Segments, Unanalysable>, ShellStats) {
    let mut buffer = SegmentBuffer::new();
    let (result, stats) = run(command, limits, &mut buffer);
    let segments = result.map(|()| SegmentsRef::new(command, &buffer).to_segments());
    (segments, stats)
}

/// [`segment`] into a reusable buffer: the same segments, words, forms and launchers (or the
/// same error), read in place from `command` and `buffer`.
///
/// The buffer is cleared first. No heap allocation is made when the buffer already has the
/// room the command needs (see [`SegmentBuffer`]), for instance after segmenting any command
/// at least as large in every dimension; an error allocates its reason's text.
///
/// ```
/// use seal_parse::shell::{segment_into, SegmentBuffer, ShellLimits};
///
/// let mut buffer = SegmentBuffer::new();
/// let limits = ShellLimits::default();
/// let segments = segment_into("FOO=1 sudo 'git' status && bash -c 'ls -l'", &limits, &mut buffer)?;
/// let forms: Vec<String> = segments.iter().map(|s| s.forms().normalized().to_string()).collect();
/// assert_eq!(forms, ["git status", "ls -l"]);
/// let launcher = segments.get(1).and_then(|s| s.launchers().next()).map(|l| l.words().collect::<Vec<_>>());
/// assert_eq!(launcher, Some(vec!["bash", "-c", "ls -l"]));
/// # Ok::<(), seal_parse::shell::Unanalysable>(())
/// ```
///
/// # Errors
///
/// [`Unanalysable`], exactly as [`segment`].
pub fn segment_into<'a>(
    command: &'a str,
    limits: &ShellLimits,
    buffer: &'a mut SegmentBuffer,
) -> Result<SegmentsRef<'a>, Unanalysable> {
    let (result, _) = run(command, limits, buffer);
    result.map(|()| SegmentsRef::new(command, buffer))
}
