//! Segments: the simple commands of a command line, each with its normalized forms.

use std::sync::Arc;

use super::buffer::{
    BufferWords, InvocationEntry, LexedEntry, SegmentBuffer, SegmentEntry, SegmentsRef, WordEntry,
};
use super::chars::listed;
use super::forms::{basename, FormMarks, FormRef, FormSet, NormalizedForms, WordList};
use super::lexer::{lex, Out, Stop};
use super::program::{check_program, shell_invocation, Invocation, OPAQUE_SHELLS, POSIX_SHELLS};
use super::quote::quote_word;
use super::wrappers::{wrapper, Strip};
use super::{ShellLimits, Span, Unanalysable, UnanalysableReason};

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
/// [`Unanalysable`] with its [`UnanalysableReason`]. Linear in the length of `command` per payload level;
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

fn run(
    command: &str,
    limits: &ShellLimits,
    buffer: &mut SegmentBuffer,
) -> (Result<(), Unanalysable>, ShellStats) {
    buffer.clear();
    let mut run = Run {
        limits,
        steps: 0,
        command,
        buffer,
    };
    let result = if command.len() > limits.max_bytes {
        Err(Unanalysable {
            reason: UnanalysableReason::TooLong {
                len: command.len(),
                max: limits.max_bytes,
            },
            offset: 0,
            payload_depth: 0,
            payload_offset: 0,
        })
    } else {
        run.text(Source::Command, Origin::TOP)
    };
    (result, ShellStats { steps: run.steps })
}

/// Where a text being segmented sits: the command itself, or a payload.
#[derive(Clone, Copy)]
struct Origin {
    depth: usize,
    /// The outermost payload word, for payload texts.
    outer: Option<Span>,
    /// The innermost invocation, for payload texts.
    launcher: Option<usize>,
}

impl Origin {
    const TOP: Origin = Origin {
        depth: 0,
        outer: None,
        launcher: None,
    };

    fn fail(&self, reason: UnanalysableReason, offset: usize) -> Unanalysable {
        Unanalysable {
            reason,
            offset: self.outer.map_or(offset, |outer| outer.start),
            payload_depth: self.depth,
            payload_offset: offset,
        }
    }
}

/// Which text to segment: the command, or the payload copied into the buffer.
#[derive(Clone, Copy)]
enum Source {
    Command,
    Payload,
}

struct Run<'c, 'l> {
    limits: &'l ShellLimits,
    steps: usize,
    command: &'c str,
    buffer: &'l mut SegmentBuffer,
}

impl Run<'_, '_> {
    fn text(&mut self, source: Source, origin: Origin) -> Result<(), Unanalysable> {
        let base = self.buffer.lexed.len();
        let buffer = &mut *self.buffer;
        let out = Out {
            decoded: &mut buffer.decoded,
            words: &mut buffer.words,
            lexed: &mut buffer.lexed,
        };
        let lexed = match source {
            Source::Command => lex(self.command, true, self.limits, &mut self.steps, out),
            Source::Payload => lex(&buffer.payload, false, self.limits, &mut self.steps, out),
        };
        lexed.map_err(|Stop { reason, offset }| origin.fail(reason, offset))?;
        let end = self.buffer.lexed.len();
        for at in base..end {
            let Some(&lexed) = self.buffer.lexed.get(at) else {
                break;
            };
            self.one(lexed, origin)?;
        }
        self.buffer.lexed.truncate(base);
        Ok(())
    }

    fn one(&mut self, lexed: LexedEntry, origin: Origin) -> Result<(), Unanalysable> {
        let buffer = &mut *self.buffer;
        let words = BufferWords {
            command: self.command,
            decoded: &buffer.decoded,
            entries: &buffer.words,
        }
        .range(lexed.words);
        let forms_start = buffer.forms.len();
        let analysis = analyse(words, &mut buffer.forms, &mut self.steps)
            .map_err(|(reason, offset)| origin.fail(reason, offset))?;
        if let Some(payload) = analysis.payload {
            buffer.forms.truncate(forms_start);
            return self.payload(lexed, payload, origin);
        }
        if buffer.segments.len() >= self.limits.max_segments {
            return Err(origin.fail(
                UnanalysableReason::TooManySegments {
                    max: self.limits.max_segments,
                },
                lexed.span.start,
            ));
        }
        let span = origin.outer.unwrap_or(lexed.span);
        buffer.segments.push(SegmentEntry {
            words: lexed.words,
            assignments: analysis.assignments,
            span,
            operator: lexed.operator,
            launcher: origin.launcher,
            depth: origin.depth,
            marks: analysis.marks,
            forms: (forms_start, buffer.forms.len()),
        });
        Ok(())
    }

    fn payload(
        &mut self,
        lexed: LexedEntry,
        payload: usize,
        origin: Origin,
    ) -> Result<(), Unanalysable> {
        let buffer = &mut *self.buffer;
        let words = BufferWords {
            command: self.command,
            decoded: &buffer.decoded,
            entries: &buffer.words,
        }
        .range(lexed.words);
        let Some(word) = words.entry(payload) else {
            return Err(origin.fail(UnanalysableReason::EmptyCommand, lexed.span.start));
        };
        if origin.depth >= self.limits.max_payload_depth {
            return Err(origin.fail(
                UnanalysableReason::PayloadTooDeep {
                    max: self.limits.max_payload_depth,
                },
                word.span.start,
            ));
        }
        buffer.payload.clear();
        buffer.payload.push_str(words.value_of(word));
        let invocation = buffer.invocations.len();
        buffer.invocations.push(InvocationEntry {
            words: lexed.words,
            parent: origin.launcher,
            first_segment: buffer.segments.len(),
        });
        let inner = Origin {
            depth: origin.depth + 1,
            outer: Some(origin.outer.unwrap_or(word.span)),
            launcher: Some(invocation),
        };
        self.text(Source::Payload, inner)?;
        if let Some(last) = self.buffer.segments.last_mut() {
            if last.operator.is_none() {
                last.operator = lexed.operator;
            }
        }
        Ok(())
    }
}

struct Analysis {
    assignments: usize,
    marks: FormMarks,
    /// Index of the payload word of a shell invocation to unwrap.
    payload: Option<usize>,
}

/// Checks every program position of `words` and computes the forms: the named ones, and the
/// distinct ones after the canonical form appended to `all`. Errors carry the offset of the
/// offending word.
fn analyse(
    words: BufferWords<'_>,
    all: &mut Vec<FormRef>,
    steps: &mut usize,
) -> Result<Analysis, (UnanalysableReason, usize)> {
    let at = |word: &WordEntry| word.span.start;
    let value = |index: usize| words.value(index).unwrap_or_default();
    let base = all.len();
    let mut start = 0;
    while let Some(word) = words.entry(start).filter(|w| w.assignment) {
        *steps += 1;
        if word.tilde {
            return Err((
                UnanalysableReason::AssignmentExpansion {
                    word: words.value_of(word).to_owned(),
                },
                at(word),
            ));
        }
        start += 1;
    }
    let assignments = start;
    let Some(first) = words.entry(start) else {
        return Err((
            UnanalysableReason::AssignmentOnly,
            words.entry(0).map_or(0, |w| w.span.start),
        ));
    };
    let env_stripped = FormRef {
        start,
        basename: false,
    };
    record(env_stripped, all, base);
    let basename_form = FormRef {
        start,
        basename: has_basename(words.value_of(first)),
    };
    let mut program = first;
    let mut program_at = start;
    loop {
        *steps += 1;
        let name = words.value_of(program);
        check_program(name, program).map_err(|reason| (reason, at(program)))?;
        let base_form = FormRef {
            start,
            basename: true,
        };
        if has_basename(name) {
            record(base_form, all, base);
        }
        let Some(wrapper) = wrapper(basename(name)) else {
            break;
        };
        let args = words.tail(start + 1);
        match wrapper.strip(&args, steps) {
            Ok(Strip::Command(skip)) => {
                start += 1 + skip;
                let Some(next) = words.entry(start) else {
                    break;
                };
                program = next;
                program_at = start;
                record(
                    FormRef {
                        start,
                        basename: false,
                    },
                    all,
                    base,
                );
            }
            Ok(Strip::NoCommand) => break,
            Err(reason) => return Err((reason, at(program))),
        }
    }
    let program_value = value(program_at);
    let wrapper_stripped = FormRef {
        start,
        basename: false,
    };
    let normalized = FormRef {
        start,
        basename: has_basename(program_value),
    };
    let name = basename(program_value);
    let args = words.tail(start + 1);
    let payload = if listed(POSIX_SHELLS, name) {
        match shell_invocation(name, &args, steps) {
            Ok(Invocation::Plain) => None,
            Ok(Invocation::Payload(index)) => Some(start + 1 + index),
            Err(reason) => return Err((reason, at(program))),
        }
    } else if listed(OPAQUE_SHELLS, name) && !args.is_empty() {
        return Err((
            UnanalysableReason::UnsupportedShell {
                shell: name.to_owned(),
            },
            at(program),
        ));
    } else {
        None
    };
    Ok(Analysis {
        assignments,
        marks: FormMarks {
            env_stripped,
            basename: basename_form,
            wrapper_stripped,
            normalized,
        },
        payload,
    })
}

/// Appends `form` to the forms after the canonical one (those of `all` from `base`) unless it
/// is the last form already.
fn record(form: FormRef, all: &mut Vec<FormRef>, base: usize) {
    let last = if all.len() > base {
        all.last().copied()
    } else {
        None
    };
    if last.unwrap_or(FormRef::CANONICAL) != form {
        all.push(form);
    }
}

/// Whether the basename of `word` differs from it.
fn has_basename(word: &str) -> bool {
    basename(word) != word
}
