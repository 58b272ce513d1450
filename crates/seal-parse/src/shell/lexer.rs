//! One forward pass over a command: words, their unquoted values and flags, and the operators
//! between them. Anything outside the accepted grammar stops the pass with its reason.

use super::chars::{forbidden, is_glob, is_name_byte, is_name_start};
use super::{Operator, Reason, ShellLimits, Span};

/// A word as read: its value with quotes and escapes removed, where it was, and what of it was
/// unquoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LexWord {
    pub value: String,
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

impl AsRef<str> for LexWord {
    fn as_ref(&self) -> &str {
        &self.value
    }
}

/// The words of one segment and the operator after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LexSegment {
    pub words: Vec<LexWord>,
    pub span: Span,
    pub operator: Option<Operator>,
}

/// Why and where (byte offset into the lexed text) the pass stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stop {
    pub reason: Reason,
    pub offset: usize,
}

/// Splits `text` into segments. `steps` grows by the work done (bytes and characters read).
pub(super) fn lex(
    text: &str,
    limits: &ShellLimits,
    steps: &mut usize,
) -> Result<Vec<LexSegment>, Stop> {
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        limits,
        steps: 0,
        segments: Vec::new(),
        words: Vec::new(),
        word: None,
        last_operator: None,
    };
    let result = lexer.run();
    *steps = steps.saturating_add(lexer.steps);
    result.map(|()| lexer.segments)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameState {
    Start,
    Name,
    Plus,
    Done(bool),
}

struct Builder {
    value: String,
    start: usize,
    name: NameState,
    glob: bool,
    leading_tilde: bool,
    tilde: bool,
    leading_equals: bool,
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    limits: &'a ShellLimits,
    steps: usize,
    segments: Vec<LexSegment>,
    words: Vec<LexWord>,
    word: Option<Builder>,
    last_operator: Option<(Operator, usize)>,
}

impl Lexer<'_> {
    fn run(&mut self) -> Result<(), Stop> {
        while let Some(&byte) = self.bytes.get(self.pos) {
            self.steps += 1;
            match byte {
                b' ' | b'\t' => {
                    self.end_word()?;
                    self.pos += 1;
                }
                b'\n' => {
                    self.end_word()?;
                    if self.words.is_empty() {
                        self.pos += 1;
                    } else {
                        self.end_segment(Operator::Newline, 1)?;
                    }
                }
                b';' => self.operator(Operator::Semicolon, 1)?,
                b'&' => match self.peek(1) {
                    Some(b'&') => self.operator(Operator::And, 2)?,
                    Some(b'>') => return Err(self.stop(Reason::Redirection)),
                    _ => self.operator(Operator::Background, 1)?,
                },
                b'|' => match self.peek(1) {
                    Some(b'|') => self.operator(Operator::Or, 2)?,
                    Some(b'&') => self.operator(Operator::PipeAll, 2)?,
                    _ => self.operator(Operator::Pipe, 1)?,
                },
                b'<' => {
                    let reason = match (self.peek(1), self.peek(2)) {
                        (Some(b'('), _) => Reason::ProcessSubstitution,
                        (Some(b'<'), Some(b'<')) => Reason::HereString,
                        (Some(b'<'), _) => Reason::Heredoc,
                        _ => Reason::Redirection,
                    };
                    return Err(self.stop(reason));
                }
                b'>' => {
                    let reason = match self.peek(1) {
                        Some(b'(') => Reason::ProcessSubstitution,
                        _ => Reason::Redirection,
                    };
                    return Err(self.stop(reason));
                }
                b'(' | b')' => return Err(self.stop(Reason::Subshell)),
                b'{' | b'}' => {
                    let alone = self.word.is_none()
                        && matches!(
                            self.peek(1),
                            None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|')
                        );
                    let reason = if alone {
                        Reason::BraceGroup
                    } else {
                        Reason::BraceExpansion
                    };
                    return Err(self.stop(reason));
                }
                b'`' => return Err(self.stop(Reason::Backtick)),
                b'$' => return Err(self.stop(self.dollar(false))),
                b'\'' => self.single_quote()?,
                b'"' => self.double_quote()?,
                b'\\' => self.backslash()?,
                b'#' if self.word.is_none() => return Err(self.stop(Reason::Comment)),
                b'!' => return Err(self.stop(Reason::Bang)),
                0x20..=0x7e => {
                    self.push_unquoted(byte);
                    self.pos += 1;
                }
                _ => {
                    let c = self.char_at(self.pos)?;
                    self.builder().value.push(c);
                    self.unquoted_other();
                    self.pos += c.len_utf8();
                }
            }
        }
        self.end_word()?;
        if !self.words.is_empty() {
            return self.push_segment(None);
        }
        match self.last_operator {
            Some((Operator::And | Operator::Or | Operator::Pipe | Operator::PipeAll, offset)) => {
                Err(Stop {
                    reason: Reason::DanglingOperator,
                    offset,
                })
            }
            Some(_) => Ok(()),
            None => Err(Stop {
                reason: Reason::EmptyCommand,
                offset: 0,
            }),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn stop(&self, reason: Reason) -> Stop {
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
                reason: Reason::EmptyCommand,
                offset: at,
            })?;
        match forbidden(c) {
            Some(reason) => Err(Stop { reason, offset: at }),
            None => Ok(c),
        }
    }

    fn builder(&mut self) -> &mut Builder {
        let start = self.pos;
        let bytes = self.bytes;
        self.word.get_or_insert_with(|| Builder {
            value: String::with_capacity(word_capacity(bytes, start)),
            start,
            name: NameState::Start,
            glob: false,
            leading_tilde: false,
            tilde: false,
            leading_equals: false,
        })
    }

    /// An unquoted printable ASCII byte that is not a metacharacter.
    fn push_unquoted(&mut self, byte: u8) {
        let word = self.builder();
        let first = word.value.is_empty() && word.name == NameState::Start;
        word.glob |= is_glob(byte);
        if byte == b'~' {
            word.tilde = true;
            word.leading_tilde |= first;
        }
        word.leading_equals |= first && byte == b'=';
        word.name = match (word.name, byte) {
            (NameState::Start, b) if is_name_start(b) => NameState::Name,
            (NameState::Name, b) if is_name_byte(b) => NameState::Name,
            (NameState::Name, b'+') => NameState::Plus,
            (NameState::Name | NameState::Plus, b'=') => NameState::Done(true),
            (NameState::Done(done), _) => NameState::Done(done),
            _ => NameState::Done(false),
        };
        word.value.push(char::from(byte));
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
        if self.words.len() >= self.limits.max_words {
            return Err(Stop {
                reason: Reason::TooManyWords {
                    max: self.limits.max_words,
                },
                offset: word.start,
            });
        }
        self.words.push(LexWord {
            value: word.value,
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
        if self.words.is_empty() {
            return Err(self.stop(Reason::EmptySegment));
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
        let words = std::mem::take(&mut self.words);
        let start = words.first().map_or(self.pos, |w| w.span.start);
        let end = words.last().map_or(self.pos, |w| w.span.end);
        if self.segments.len() >= self.limits.max_segments {
            return Err(Stop {
                reason: Reason::TooManySegments {
                    max: self.limits.max_segments,
                },
                offset: start,
            });
        }
        self.segments.push(LexSegment {
            words,
            span: Span { start, end },
            operator,
        });
        Ok(())
    }

    fn single_quote(&mut self) -> Result<(), Stop> {
        let open = self.pos;
        let rest = self.bytes.get(open + 1..).unwrap_or_default();
        let Some(len) = memchr::memchr(b'\'', rest) else {
            return Err(Stop {
                reason: Reason::UnterminatedQuote { quote: '\'' },
                offset: open,
            });
        };
        let content = self.text.get(open + 1..open + 1 + len).unwrap_or_default();
        for (at, c) in content.char_indices() {
            self.steps += 1;
            if let Some(reason) = forbidden(c) {
                return Err(Stop {
                    reason,
                    offset: open + 1 + at,
                });
            }
        }
        self.builder().value.push_str(content);
        self.quoted();
        self.pos = open + len + 2;
        Ok(())
    }

    fn double_quote(&mut self) -> Result<(), Stop> {
        let open = self.pos;
        let unterminated = Stop {
            reason: Reason::UnterminatedQuote { quote: '"' },
            offset: open,
        };
        self.builder();
        self.quoted();
        self.pos += 1;
        loop {
            let Some(byte) = self.peek(0) else {
                return Err(unterminated);
            };
            self.steps += 1;
            match byte {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.peek(1) {
                    Some(escaped @ (b'$' | b'`' | b'"' | b'\\')) => {
                        self.builder().value.push(char::from(escaped));
                        self.pos += 2;
                    }
                    Some(b'\n') => return Err(self.stop(Reason::ContinuationInWord)),
                    None => return Err(unterminated),
                    Some(_) => {
                        self.builder().value.push('\\');
                        self.pos += 1;
                    }
                },
                b'$' => return Err(self.stop(self.dollar(true))),
                b'`' => return Err(self.stop(Reason::Backtick)),
                _ => {
                    let c = self.char_at(self.pos)?;
                    self.builder().value.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn backslash(&mut self) -> Result<(), Stop> {
        match self.peek(1) {
            None => Err(self.stop(Reason::TrailingBackslash)),
            Some(b'\n') if self.word.is_some() => Err(self.stop(Reason::ContinuationInWord)),
            Some(b'\n') => {
                self.pos += 2;
                Ok(())
            }
            Some(_) => {
                let c = self.char_at(self.pos + 1)?;
                self.builder().value.push(c);
                self.quoted();
                self.pos += 1 + c.len_utf8();
                Ok(())
            }
        }
    }

    /// The reason for a `$` at the current position (`quoted`: inside double quotes).
    fn dollar(&self, quoted: bool) -> Reason {
        match (self.peek(1), self.peek(2)) {
            (Some(b'('), Some(b'(')) => Reason::Arithmetic,
            (Some(b'('), _) => Reason::CommandSubstitution,
            (Some(b'{'), _) => Reason::ParameterExpansion,
            (Some(b'\''), _) if !quoted => Reason::AnsiCQuote,
            (Some(b'"'), _) if !quoted => Reason::LocaleQuote,
            (Some(b), _)
                if is_name_byte(b)
                    || matches!(b, b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') =>
            {
                Reason::ParameterExpansion
            }
            _ => Reason::Dollar,
        }
    }
}

/// A capacity for the value of a word starting at `start`: the bytes up to the next blank or
/// operator byte, at most [`WORD_CAPACITY_HINT`] (so that a word is usually one allocation, and
/// the hints of many short words never add up to more than that per word).
fn word_capacity(bytes: &[u8], start: usize) -> usize {
    let rest = bytes.get(start..).unwrap_or_default();
    let window = rest.get(..WORD_CAPACITY_HINT).unwrap_or(rest);
    window
        .iter()
        .position(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|'))
        .unwrap_or(window.len())
}

/// Most bytes reserved up front for one word's value.
const WORD_CAPACITY_HINT: usize = 64;
