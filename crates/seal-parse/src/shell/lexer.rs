//! One forward pass over a command: words, their unquoted values and flags, and the operators
//! between them, written into a segment buffer. Anything outside the accepted grammar stops
//! the pass with its reason.

mod quotes;
mod redirects;

use super::buffer::{LexedEntry, Value, WordEntry};
use super::chars::{forbidden, is_glob, is_name_byte, is_name_start};
use super::{Operator, ShellLimits, Span, UnanalysableReason};

/// Why and where (byte offset into the lexed text) the pass stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stop {
    pub reason: UnanalysableReason,
    pub offset: usize,
}

/// Where the lexer writes: word values that must be decoded, the words, and the segments (each
/// a range of the words).
pub(super) struct Out<'b> {
    pub decoded: &'b mut String,
    pub words: &'b mut Vec<WordEntry>,
    pub lexed: &'b mut Vec<LexedEntry>,
}

/// Splits `text` into segments, appended to `out.lexed`. With `borrow`, a word whose value is
/// its text (no quote or escape) is recorded as a range of `text`; otherwise every value is
/// copied to `out.decoded`. `steps` grows by the work done (bytes and characters read).
pub(super) fn lex(
    text: &str,
    borrow: bool,
    limits: &ShellLimits,
    steps: &mut usize,
    out: Out<'_>,
) -> Result<(), Stop> {
    let segment_base = out.lexed.len();
    let first_word = out.words.len();
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        limits,
        steps: 0,
        borrow,
        out,
        segment_base,
        first_word,
        word: None,
        last_operator: None,
        redirection: None,
    };
    let result = lexer.run();
    *steps = steps.saturating_add(lexer.steps);
    result
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameState {
    Start,
    Name,
    Plus,
    Done(bool),
}

/// Where the value of the word being read is: still its text from `start`, or decoded from
/// this offset of the decoded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Text,
    Decoded(usize),
}

struct Builder {
    held: Held,
    start: usize,
    name: NameState,
    glob: bool,
    leading_tilde: bool,
    tilde: bool,
    leading_equals: bool,
}

struct Lexer<'a, 'b> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    limits: &'a ShellLimits,
    steps: usize,
    borrow: bool,
    out: Out<'b>,
    /// First entry of `out.lexed` written by this pass.
    segment_base: usize,
    /// First word of the segment being read.
    first_word: usize,
    word: Option<Builder>,
    last_operator: Option<(Operator, usize)>,
    /// Offset of the first redirection accepted (and dropped) in the segment being read.
    redirection: Option<usize>,
}

impl Lexer<'_, '_> {
    fn run(&mut self) -> Result<(), Stop> {
        while let Some(&byte) = self.bytes.get(self.pos) {
            self.steps += 1;
            match byte {
                byte if is_plain(byte) => self.plain_run(),
                b' ' | b'\t' => {
                    self.end_word()?;
                    self.pos += 1;
                }
                b'\n' => {
                    self.end_word()?;
                    if self.segment_is_empty() {
                        self.no_lone_redirection()?;
                        self.pos += 1;
                    } else {
                        self.end_segment(Operator::Newline, 1)?;
                    }
                }
                b';' => self.operator(Operator::Semicolon, 1)?,
                b'&' => match self.peek(1) {
                    Some(b'&') => self.operator(Operator::And, 2)?,
                    Some(b'>') => self.redirection()?,
                    _ => self.operator(Operator::Background, 1)?,
                },
                b'|' => match self.peek(1) {
                    Some(b'|') => self.operator(Operator::Or, 2)?,
                    Some(b'&') => self.operator(Operator::PipeAll, 2)?,
                    _ => self.operator(Operator::Pipe, 1)?,
                },
                b'<' => match (self.peek(1), self.peek(2)) {
                    (Some(b'('), _) => {
                        return Err(self.stop(UnanalysableReason::ProcessSubstitution))
                    }
                    (Some(b'<'), Some(b'<')) => {
                        return Err(self.stop(UnanalysableReason::HereString))
                    }
                    (Some(b'<'), _) => return Err(self.stop(UnanalysableReason::Heredoc)),
                    _ => self.redirection()?,
                },
                b'>' => {
                    if self.peek(1) == Some(b'(') {
                        return Err(self.stop(UnanalysableReason::ProcessSubstitution));
                    }
                    self.redirection()?;
                }
                b'(' | b')' => return Err(self.stop(UnanalysableReason::Subshell)),
                // `{}` standing alone is a literal word in every shell of the family (no
                // brace expansion without a comma or `..` inside): `find . -exec rm {} +`.
                b'{' if self.word.is_none()
                    && self.peek(1) == Some(b'}')
                    && matches!(
                        self.peek(2),
                        None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|')
                    ) =>
                {
                    self.push_unquoted(b'{');
                    self.push_unquoted(b'}');
                    self.pos += 2;
                }
                b'{' | b'}' => {
                    let alone = self.word.is_none()
                        && matches!(
                            self.peek(1),
                            None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|')
                        );
                    let reason = if alone {
                        UnanalysableReason::BraceGroup
                    } else {
                        UnanalysableReason::BraceExpansion
                    };
                    return Err(self.stop(reason));
                }
                b'`' => return Err(self.stop(UnanalysableReason::Backtick)),
                b'$' => return Err(self.stop(self.dollar(false))),
                b'\'' => self.single_quote()?,
                b'"' => self.double_quote()?,
                b'\\' => self.backslash()?,
                b'#' if self.word.is_none() => return Err(self.stop(UnanalysableReason::Comment)),
                b'!' => return Err(self.stop(UnanalysableReason::Bang)),
                0x20..=0x7e => {
                    self.push_unquoted(byte);
                    self.pos += 1;
                }
                _ => {
                    let c = self.char_at(self.pos)?;
                    self.builder();
                    if self.decoding() {
                        self.out.decoded.push(c);
                    }
                    self.unquoted_other();
                    self.pos += c.len_utf8();
                }
            }
        }
        self.end_word()?;
        if !self.segment_is_empty() {
            return self.push_segment(None);
        }
        self.no_lone_redirection()?;
        match self.last_operator {
            Some((Operator::And | Operator::Or | Operator::Pipe | Operator::PipeAll, offset)) => {
                Err(Stop {
                    reason: UnanalysableReason::DanglingOperator,
                    offset,
                })
            }
            Some(_) => Ok(()),
            None => Err(Stop {
                reason: UnanalysableReason::EmptyCommand,
                offset: 0,
            }),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn stop(&self, reason: UnanalysableReason) -> Stop {
        Stop {
            reason,
            offset: self.pos,
        }
    }

    /// The character at `at`, if it may appear in a command.
    fn char_at(&self, at: usize) -> Result<char, Stop> {
        let c = self
            .text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .ok_or(Stop {
                reason: UnanalysableReason::EmptyCommand,
                offset: at,
            })?;
        match forbidden(c) {
            Some(reason) => Err(Stop { reason, offset: at }),
            None => Ok(c),
        }
    }

    fn builder(&mut self) -> &mut Builder {
        let start = self.pos;
        let held = if self.borrow {
            Held::Text
        } else {
            Held::Decoded(self.out.decoded.len())
        };
        self.word.get_or_insert(Builder {
            held,
            start,
            name: NameState::Start,
            glob: false,
            leading_tilde: false,
            tilde: false,
            leading_equals: false,
        })
    }

    /// Whether the word being read has its value in the decoded text (so that further
    /// characters must be pushed there).
    fn decoding(&self) -> bool {
        matches!(
            self.word,
            Some(Builder {
                held: Held::Decoded(_),
                ..
            })
        )
    }

    /// Starts (or continues) the word with a value that differs from its text: the value read
    /// so far, which is its text, moves to the decoded text.
    fn decode(&mut self) {
        self.builder();
        let pos = self.pos;
        if let Some(word) = self.word.as_mut() {
            if word.held == Held::Text {
                let from = self.out.decoded.len();
                let read = read_text(self.text, word.start..pos);
                self.out.decoded.push_str(read);
                word.held = Held::Decoded(from);
            }
        }
    }

    /// Whether the word being read has an empty value so far.
    fn value_is_empty(&self, word: &Builder) -> bool {
        match word.held {
            Held::Text => word.start == self.pos,
            Held::Decoded(from) => self.out.decoded.len() == from,
        }
    }

    fn segment_is_empty(&self) -> bool {
        self.out.words.len() == self.first_word
    }

    /// An unquoted printable ASCII byte that is not a metacharacter.
    fn push_unquoted(&mut self, byte: u8) {
        self.builder();
        let decoding = self.decoding();
        let Some(word) = self.word.as_ref() else {
            return;
        };
        let first = self.value_is_empty(word) && word.name == NameState::Start;
        if decoding {
            self.out.decoded.push(char::from(byte));
        }
        let Some(word) = self.word.as_mut() else {
            return;
        };
        word.glob |= is_glob(byte);
        if byte == b'~' {
            word.tilde = true;
            word.leading_tilde |= first;
        }
        word.leading_equals |= first && byte == b'=';
        word.name = next_name(word.name, byte);
    }

    /// A run of unquoted plain bytes (see [`is_plain`]) from the current position, read at once:
    /// the same steps, value and flags as reading them one by one with `push_unquoted`.
    fn plain_run(&mut self) {
        let start = self.pos;
        let rest = self.bytes.get(start..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&byte| !is_plain(byte))
            .unwrap_or(rest.len());
        let run = rest.get(..len).unwrap_or_default();
        // The loop counted the first byte.
        self.steps += len.saturating_sub(1);
        self.builder();
        if self.decoding() {
            self.out
                .decoded
                .push_str(read_text(self.text, start..start + len));
        }
        if let Some(word) = self.word.as_mut() {
            // Plain bytes are never glob characters, `~` or `=`: only the name can change.
            for &byte in run {
                if let NameState::Done(_) = word.name {
                    break;
                }
                word.name = next_name(word.name, byte);
            }
        }
        self.pos = start + len;
    }

    /// After an unquoted non-ASCII character: the word can no longer be an assignment.
    fn unquoted_other(&mut self) {
        let word = self.builder();
        if !matches!(word.name, NameState::Done(_)) {
            word.name = NameState::Done(false);
        }
    }

    /// After quoted or escaped text: the word can no longer be an assignment.
    fn quoted(&mut self) {
        self.unquoted_other();
    }

    fn end_word(&mut self) -> Result<(), Stop> {
        let Some(word) = self.word.take() else {
            return Ok(());
        };
        if self.out.words.len() - self.first_word >= self.limits.max_words {
            return Err(Stop {
                reason: UnanalysableReason::TooManyWords {
                    max: self.limits.max_words,
                },
                offset: word.start,
            });
        }
        let value = match word.held {
            Held::Text => Value {
                start: word.start,
                end: self.pos,
                decoded: false,
            },
            Held::Decoded(from) => Value {
                start: from,
                end: self.out.decoded.len(),
                decoded: true,
            },
        };
        self.out.words.push(WordEntry {
            value,
            span: Span {
                start: word.start,
                end: self.pos,
            },
            assignment: word.name == NameState::Done(true),
            glob: word.glob,
            leading_tilde: word.leading_tilde,
            tilde: word.tilde,
            leading_equals: word.leading_equals,
        });
        Ok(())
    }

    fn operator(&mut self, operator: Operator, len: usize) -> Result<(), Stop> {
        self.end_word()?;
        if self.segment_is_empty() {
            self.no_lone_redirection()?;
            return Err(self.stop(UnanalysableReason::EmptySegment));
        }
        self.end_segment(operator, len)
    }

    fn end_segment(&mut self, operator: Operator, len: usize) -> Result<(), Stop> {
        self.last_operator = Some((operator, self.pos));
        self.push_segment(Some(operator))?;
        self.pos += len;
        Ok(())
    }

    fn push_segment(&mut self, operator: Option<Operator>) -> Result<(), Stop> {
        let words = (self.first_word, self.out.words.len());
        let segment = self.out.words.get(words.0..words.1);
        // `first_word` is the length of the words when the segment began; words are only
        // pushed since, so the range lies in them and the empty fallback is never taken.
        debug_assert!(segment.is_some(), "a segment's words lie in the words");
        let segment = segment.unwrap_or_default();
        let start = segment.first().map_or(self.pos, |w| w.span.start);
        let end = segment.last().map_or(self.pos, |w| w.span.end);
        if self.out.lexed.len() - self.segment_base >= self.limits.max_segments {
            return Err(Stop {
                reason: UnanalysableReason::TooManySegments {
                    max: self.limits.max_segments,
                },
                offset: start,
            });
        }
        self.out.lexed.push(LexedEntry {
            words,
            span: Span { start, end },
            operator,
        });
        self.first_word = self.out.words.len();
        self.redirection = None;
        Ok(())
    }
}

/// The text of `range`, which the pass has read. The lexer's positions only stop on character
/// boundaries inside the text (after an ASCII byte or a whole character), so the empty fallback
/// is never taken: taking it would silently empty part of a word's value.
fn read_text(text: &str, range: std::ops::Range<usize>) -> &str {
    let read = text.get(range);
    debug_assert!(
        read.is_some(),
        "lexer positions lie on character boundaries"
    );
    read.unwrap_or_default()
}

/// Whether a word ends before `byte` (the end of the text, a blank, a newline or a
/// metacharacter).
fn ends_word(byte: Option<&u8>) -> bool {
    matches!(
        byte,
        None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')')
    )
}

/// The assignment-prefix state after one more unquoted byte.
fn next_name(name: NameState, byte: u8) -> NameState {
    match (name, byte) {
        (NameState::Start, b) if is_name_start(b) => NameState::Name,
        (NameState::Name, b) if is_name_byte(b) => NameState::Name,
        (NameState::Name, b'+') => NameState::Plus,
        (NameState::Name | NameState::Plus, b'=') => NameState::Done(true),
        (NameState::Done(done), _) => NameState::Done(done),
        _ => NameState::Done(false),
    }
}

/// A byte read in runs: a letter, a digit or one of `_ - . / : , + @ %`. None is an operator, a
/// quote, an escape, an expansion, a glob character, `~`, `=` or `#`, so a run only extends the
/// word.
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'_' | b'-' | b'.' | b'/' | b':' | b',' | b'+' | b'@' | b'%'
        )
}
