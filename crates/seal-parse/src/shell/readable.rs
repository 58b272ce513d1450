//! What can be read of a command the segmenter refuses: the texts in it that segment, the
//! files its redirections name, and what was left unread. For deny rules and deny-only guards
//! only: a command that needs this is unanalysable and is never allowed.

use std::fmt;

use super::skeleton::Skeleton;
use super::{segment_with_stats, Segments, ShellLimits, Unanalysable, UnanalysableReason};

/// The word that stands for every substitution and expansion in a [`Piece`]: `$(...)`,
/// backticks, `<(...)`, `>(...)`, `$((...))`, `${...}`, `$NAME`, `$1`, `$@`, `$'...'`. A plain
/// word no program or wrapper is named, so a rule on a program never matches it by accident;
/// rules about a program's arguments see it where the value would be.
pub const SUBSTITUTED: &str = "SUBSTITUTED";

/// Deepest nesting read: the command is depth 0, the body of a substitution (or a shell
/// payload, or the text `eval` runs) read in a text at depth `d` is at depth `d + 1`. A body
/// deeper than this is skipped and recorded as [`UnreadReason::TooDeep`]. Each level is read
/// by recursion, so this also bounds the stack.
pub const MAX_READABLE_DEPTH: usize = 8;

/// Reads what can be read of `command`: [`Readable::pieces`], texts that each segment strictly;
/// [`Readable::redirects`], the files its redirections name; [`Readable::unread`], what is left.
///
/// The pieces are (a) the command's skeleton: the command with every substitution and
/// expansion replaced by [`SUBSTITUTED`] (`$HOME` and `${HOME}` starting a word by `~`),
/// redirections and here-document bodies removed, comments removed (a `#` starting a word, to
/// the end of its line: a non-interactive shell does not run it), and the parentheses and braces
/// of subshells and brace groups turned into separators; (b) the body of every substitution,
/// read the same way, nested up to [`MAX_READABLE_DEPTH`]; (c) for a shell payload
/// (`bash -c '...'`) or an `eval` that does not segment, the payload read the same way, and
/// the invocation with its payload replaced by [`SUBSTITUTED`] (so that deny rules still see the
/// launcher). A skeleton that does not segment is split at its separators (`;`, `&&`, `||`,
/// `|`, `&`, newlines, grouping) and each part that segments is a piece. Reserved words that run
/// nothing (`if`, `then`, `do`, `done`, `!`...) are dropped where a statement starts.
///
/// For deny rules and deny-only guards: apply them to every segment of every piece and to every
/// redirection target. Never allow on this: what is unread, and what the placeholder hides,
/// can do anything. Conservative where unsure: text that may be a substitution is read as one
/// (more pieces only ever means more deny checks).
///
/// Linear in the length of `command` (see [`Readable::steps`]); no panic on any input. A
/// command longer than [`ShellLimits::max_bytes`] is not read at all (one
/// [`UnreadReason::Unanalysable`] with `too_long`).
///
/// ```
/// use seal_parse::shell::{readable, ShellLimits};
///
/// let read = readable("cat $(echo ~/.ssh/id_rsa) > out", &ShellLimits::default());
/// let texts: Vec<&str> = read.pieces().iter().map(|p| p.text()).collect();
/// assert_eq!(texts, ["cat SUBSTITUTED", "echo ~/.ssh/id_rsa"]);
/// let [out] = read.redirects() else { panic!("one redirection") };
/// assert_eq!((out.target(), out.writes(), out.reads()), ("out", true, false));
/// ```
#[must_use]
pub fn readable(command: &str, limits: &ShellLimits) -> Readable {
    let mut reader = Reader {
        limits,
        pieces: Vec::new(),
        redirects: Vec::new(),
        unread: Vec::new(),
        steps: 0,
    };
    if command.len() > limits.max_bytes {
        reader.unread.push(Unread {
            offset: 0,
            reason: UnreadReason::Unanalysable(UnanalysableReason::TooLong {
                len: command.len(),
                max: limits.max_bytes,
            }),
        });
    } else {
        let source = Source {
            text: command,
            base: 0,
            exact: true,
        };
        reader.commands(source, 0, command.len(), 0);
    }
    reader
        .pieces
        .sort_by_key(|piece| (piece.offset, piece.depth));
    reader.redirects.sort_by_key(|redirect| redirect.offset);
    reader.unread.sort_by_key(|unread| unread.offset);
    Readable {
        pieces: reader.pieces,
        redirects: reader.redirects,
        unread: reader.unread,
        steps: reader.steps,
    }
}

/// What [`readable`] could read of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readable {
    pieces: Vec<Piece>,
    redirects: Vec<Redirect>,
    unread: Vec<Unread>,
    steps: usize,
}

impl Readable {
    /// The texts that segment, by offset (the outer before the inner at one offset).
    #[must_use]
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// Every redirection that names a file, by offset. Here-documents, here-strings and
    /// descriptor duplications (`2>&1`, `>&-`) name none and are not listed; redirections inside
    /// a shell payload that segments are only the harmless ones of spec/shell-segments.md
    /// section 4.2 and are not listed either.
    #[must_use]
    pub fn redirects(&self) -> &[Redirect] {
        &self.redirects
    }

    /// What was not read, by offset: statements that do not segment, bodies nested too deep,
    /// redirections without a target.
    #[must_use]
    pub fn unread(&self) -> &[Unread] {
        &self.unread
    }

    /// Work done: bytes visited by each pass, plus the segmenter's steps on every text tried.
    /// Linear in the command's length: at most `READABLE_STEPS_PER_BYTE_PER_LEVEL` (of
    /// `shell::fuzz_check`, with the `fuzz` feature) times `max_payload_depth + 2` per byte (plus
    /// one).
    #[must_use]
    pub fn steps(&self) -> usize {
        self.steps
    }
}

/// A text that segments strictly, and where in the command it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    text: String,
    offset: usize,
    depth: usize,
    segments: Segments,
}

impl Piece {
    /// The text: part of the command, rewritten as [`readable`] says.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Byte offset in the command where the text's first word came from. Inside a backtick
    /// body, a payload or an `eval`'s text (which are read from a copy), the offset of that
    /// body, payload or statement.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 0 for the command's skeleton, `n` for a body `n` levels deep.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The segments of [`Piece::text`]: what `segment(text, limits)` gives.
    #[must_use]
    pub fn segments(&self) -> &Segments {
        &self.segments
    }
}

/// The file a redirection names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    target: String,
    plain: bool,
    reads: bool,
    writes: bool,
    offset: usize,
}

impl Redirect {
    /// The target word with quotes and escapes removed; a leading `$HOME` or `${HOME}` reads
    /// as `~`, any other expansion as [`SUBSTITUTED`].
    #[must_use]
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Whether the target is the path written: no expansion besides a leading `~` (or
    /// `$HOME`), no glob or brace character. When `false`, the file is unknown.
    #[must_use]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// Whether the file is read (`<`, `N<`, `<>`, `<&file`).
    #[must_use]
    pub fn reads(&self) -> bool {
        self.reads
    }

    /// Whether the file is written (`>`, `>>`, `>|`, `&>`, `&>>`, `N>`, `>&file`, `<>`).
    #[must_use]
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// Byte offset of the operator in the command (of the body or payload it is in, when that
    /// was read from a copy).
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }
}

/// Something [`readable`] left unread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    offset: usize,
    reason: UnreadReason,
}

impl Unread {
    /// Byte offset in the command where the unread text starts (a statement's first word, a
    /// body, an operator), as [`Piece::offset`] counts.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Why it was not read.
    #[must_use]
    pub fn reason(&self) -> &UnreadReason {
        &self.reason
    }
}

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unread at byte {}: {}", self.offset, self.reason)
    }
}

/// Why part of a command was left unread.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnreadReason {
    /// A statement that does not segment even alone (`for x in a`, `x=1`, `eval ...`), or a
    /// command too long to read: the segmenter's reason.
    Unanalysable(UnanalysableReason),
    /// A body nested deeper than [`MAX_READABLE_DEPTH`].
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// A redirection or here-document operator with no word after it.
    MissingTarget,
}

impl UnreadReason {
    /// A stable snake_case identifier: the segmenter's code, `too_deep` or `missing_target`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            UnreadReason::Unanalysable(reason) => reason.code(),
            UnreadReason::TooDeep { .. } => "too_deep",
            UnreadReason::MissingTarget => "missing_target",
        }
    }
}

impl fmt::Display for UnreadReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnreadReason::Unanalysable(reason) => reason.fmt(f),
            UnreadReason::TooDeep { max } => write!(f, "nested deeper than {max}"),
            UnreadReason::MissingTarget => f.write_str("redirection without a target"),
        }
    }
}

/// A text being read: the command, or a copy made from part of it (a backtick body with its
/// escapes removed, a payload, the text of an `eval`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Source<'t> {
    pub text: &'t str,
    /// Offset in the command of `text`'s first byte (exact) or of where the copy came from.
    base: usize,
    exact: bool,
}

impl<'t> Source<'t> {
    /// The offset in the command of byte `at` of the text.
    pub fn offset(&self, at: usize) -> usize {
        if self.exact {
            self.base + at
        } else {
            self.base
        }
    }

    pub fn byte(&self, at: usize) -> Option<u8> {
        self.text.as_bytes().get(at).copied()
    }

    pub fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|rest| rest.chars().next())
    }

    /// A copy made from the text at `at`.
    pub fn copy<'c>(&self, text: &'c str, at: usize) -> Source<'c> {
        Source {
            text,
            base: self.offset(at),
            exact: false,
        }
    }
}

/// The state of one [`readable`] call.
pub(super) struct Reader<'l> {
    limits: &'l ShellLimits,
    pieces: Vec<Piece>,
    redirects: Vec<Redirect>,
    unread: Vec<Unread>,
    pub steps: usize,
}

impl Reader<'_> {
    /// Emits the pieces of a finished skeleton: the whole if it segments, else each statement.
    pub(super) fn emit(&mut self, skeleton: &Skeleton, depth: usize) {
        let (Some(first), Some(last)) = (skeleton.statements.first(), skeleton.statements.last())
        else {
            return;
        };
        let whole = skeleton.text.get(first.start..last.end).unwrap_or_default();
        let error = match self.segment(whole) {
            Ok(segments) => return self.piece(whole, first.offset, depth, segments),
            Err(error) => error,
        };
        if skeleton.statements.len() == 1 {
            return self.failed(whole, first.offset, error, depth);
        }
        for statement in &skeleton.statements {
            let text = skeleton
                .text
                .get(statement.start..statement.end)
                .unwrap_or_default();
            match self.segment(text) {
                Ok(segments) => self.piece(text, statement.offset, depth, segments),
                Err(error) => self.failed(text, statement.offset, error, depth),
            }
        }
    }

    fn segment(&mut self, text: &str) -> Result<Segments, Unanalysable> {
        let (result, stats) = segment_with_stats(text, self.limits);
        self.steps += stats.steps();
        result
    }

    fn piece(&mut self, text: &str, offset: usize, depth: usize, segments: Segments) {
        self.steps += text.len();
        self.pieces.push(Piece {
            text: text.to_owned(),
            offset,
            depth,
            segments,
        });
    }

    /// A statement (from `offset`) that does not segment: the payload of its shell invocation,
    /// or the text its `eval` runs, is read one level deeper; anything else is recorded unread.
    fn failed(&mut self, text: &str, offset: usize, error: Unanalysable, depth: usize) {
        let payload = if error.payload_depth > 0 {
            // The outermost payload word starts at the error's offset.
            let (payload, after) = decode_word(text, error.offset, &mut self.steps);
            // The invocation with a placeholder payload keeps its launchers in sight.
            let mut launcher = String::new();
            launcher.push_str(text.get(..error.offset).unwrap_or_default());
            launcher.push_str(SUBSTITUTED);
            launcher.push_str(text.get(after..).unwrap_or_default());
            match self.segment(&launcher) {
                Ok(segments) => self.piece(&launcher, offset, depth, segments),
                Err(error) => self.unread_at(offset, UnreadReason::Unanalysable(error.reason)),
            }
            payload
        } else if matches!(&error.reason, UnanalysableReason::EvalBuiltin { word } if word == "eval")
        {
            // `eval` (the program word, at the error's offset) runs its arguments joined by
            // spaces.
            let (_, after) = decode_word(text, error.offset, &mut self.steps);
            self.unread_at(offset, UnreadReason::Unanalysable(error.reason));
            joined_words(text, after, &mut self.steps)
        } else {
            return self.unread_at(offset, UnreadReason::Unanalysable(error.reason));
        };
        if depth < MAX_READABLE_DEPTH {
            let source = Source {
                text: &payload,
                base: offset,
                exact: false,
            };
            self.commands(source, 0, payload.len(), depth + 1);
        } else {
            self.too_deep(offset);
        }
    }

    pub(super) fn redirect(
        &mut self,
        target: super::redirection::TargetWord,
        reads: bool,
        writes: bool,
        offset: usize,
    ) {
        self.redirects.push(Redirect {
            target: target.value,
            plain: target.plain,
            reads,
            writes,
            offset,
        });
    }

    pub(super) fn missing_target(&mut self, offset: usize) {
        self.unread_at(offset, UnreadReason::MissingTarget);
    }

    pub(super) fn too_deep(&mut self, offset: usize) {
        self.unread_at(
            offset,
            UnreadReason::TooDeep {
                max: MAX_READABLE_DEPTH,
            },
        );
    }

    fn unread_at(&mut self, offset: usize, reason: UnreadReason) {
        self.unread.push(Unread { offset, reason });
    }
}

/// The values of the words of a skeleton text from `at`, joined by single spaces.
fn joined_words(text: &str, at: usize, steps: &mut usize) -> String {
    let mut joined = String::new();
    let mut at = at;
    loop {
        let rest = text.get(at..).unwrap_or_default();
        at += rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if at >= text.len() {
            return joined;
        }
        let (word, end) = decode_word(text, at, steps);
        if end <= at {
            return joined;
        }
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(&word);
        at = end;
    }
}

/// The value of the word at `at` in a skeleton text (which holds no unquoted expansion), and
/// the position after it: quotes and escapes removed as the segmenter removes them.
fn decode_word(text: &str, at: usize, steps: &mut usize) -> (String, usize) {
    let mut value = String::new();
    let mut chars = text.get(at..).unwrap_or_default().char_indices().peekable();
    let mut end = text.len();
    while let Some((i, c)) = chars.next() {
        *steps += 1;
        match c {
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => {
                end = at + i;
                break;
            }
            '\'' => {
                for (_, c) in chars.by_ref() {
                    *steps += 1;
                    if c == '\'' {
                        break;
                    }
                    value.push(c);
                }
            }
            '"' => {
                while let Some((_, c)) = chars.next() {
                    *steps += 1;
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&(_, escaped @ ('$' | '`' | '"' | '\\'))) => {
                                value.push(escaped);
                                chars.next();
                            }
                            _ => value.push('\\'),
                        },
                        c => value.push(c),
                    }
                }
            }
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            c => value.push(c),
        }
    }
    (value, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_decode_as_the_segmenter_reads_them() {
        let mut steps = 0;
        let text = "bash -c 'a b'\"c\\$\\d\"\\ e f";
        assert_eq!(
            decode_word(text, 8, &mut steps),
            ("a bc$\\d e".to_owned(), 23)
        );
        assert_eq!(decode_word(text, 0, &mut steps), ("bash".to_owned(), 4));
        assert_eq!(decode_word(text, 24, &mut steps), ("f".to_owned(), 25));
        assert_eq!(decode_word(text, 99, &mut steps), (String::new(), 25));
    }
}
