//! The parser of both profiles: one cursor over UTF-8-validated bytes, an explicit stack, no
//! recursion. The profiles differ only in what becomes of number literals and of lone surrogate
//! escapes in string values.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::error::Located;
use super::limits::{JsonLimits, NumberRule};
use super::literal::{is_canonical_spelling, NumberLiteral};
use super::number;
use super::string::{plain_prefix_len, write_string};
use super::unescape::{self, Unescaped};
use super::value::Value;
use super::{JsonError, JsonErrorKind};

/// Which profile a document is read under (spec/canonical-json.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    /// What seal signs and hashes: numbers must be exact doubles within the canonical range,
    /// lone surrogates are rejected.
    Strict(NumberRule),
    /// Foreign documents seal only reads: every number literal and every lone surrogate in a
    /// string value is kept exactly.
    Lossless,
}

/// Receives the parse of a document, event by event, in document order.
///
/// The parser checks the grammar, limits, strings and numbers; a sink decides what to build.
pub(crate) trait Sink<'a> {
    /// What a successful parse produces.
    type Output;
    /// Where an escaped string value is decoded to.
    type Unescaped: Unescaped;
    /// A complete `null`, boolean, number, or string without escapes (borrowed from the input,
    /// so it holds no `"`, `\` or control character).
    fn scalar(&mut self, value: Value<'a>);
    /// `[` or `{`.
    fn open(&mut self, object: bool);
    /// A member key (`offset` is its opening quote); its value follows.
    fn key(&mut self, key: Cow<'a, str>, offset: usize);
    /// `]`.
    fn close_array(&mut self);
    /// `}`; fails with the repeated key and the offset of its second occurrence.
    fn close_object(&mut self) -> Result<(), (String, usize)>;
    /// A string value with escapes: `decode` writes it into the sink's target and returns the
    /// offset after the closing quote (or the error).
    fn escaped_string<F>(&mut self, decode: F) -> Result<usize, Located>
    where
        F: FnOnce(&mut Self::Unescaped) -> Result<usize, Located>;
    /// The document is complete.
    fn finish(self) -> Self::Output;
}

/// Parses one complete document (RFC 8259 `JSON-text`) under `profile` into `sink`.
pub(crate) fn parse_into<'a, S: Sink<'a>>(
    input: &'a [u8],
    limits: &JsonLimits,
    profile: Profile,
    sink: S,
) -> Result<S::Output, JsonError> {
    let root_error = |offset, kind| JsonError {
        offset,
        path: String::from("$"),
        kind,
    };
    if input.len() > limits.max_bytes {
        return Err(root_error(
            0,
            JsonErrorKind::InputTooLarge {
                len: input.len(),
                max: limits.max_bytes,
            },
        ));
    }
    let text = std::str::from_utf8(input)
        .map_err(|error| root_error(error.valid_up_to(), JsonErrorKind::InvalidUtf8))?;
    if text.starts_with('\u{feff}') {
        return Err(root_error(0, JsonErrorKind::ByteOrderMark));
    }
    Parser {
        text,
        bytes: input,
        pos: 0,
        max_depth: limits.max_depth,
        profile,
        frames: Vec::new(),
        sink,
    }
    .run()
}

struct Parser<'a, S> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    max_depth: usize,
    profile: Profile,
    /// Open arrays and objects, outermost first.
    frames: Vec<Frame>,
    sink: S,
}

#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    /// Completed elements or members.
    count: usize,
    /// Keys read (objects only); one more than `count` while a member's value is being read.
    keys: usize,
    /// Offset of the last key read (objects only).
    key_offset: usize,
}

impl<'a, S: Sink<'a>> Parser<'a, S> {
    fn run(mut self) -> Result<S::Output, JsonError> {
        'value: loop {
            self.skip_whitespace();
            match self.peek() {
                None => return Err(self.error(self.pos, JsonErrorKind::UnexpectedEnd, false)),
                Some(b'[') => {
                    self.open(false)?;
                    self.skip_whitespace();
                    if self.peek() != Some(b']') {
                        continue 'value;
                    }
                    self.pos += 1;
                    self.frames.pop();
                    self.sink.close_array();
                }
                Some(b'{') => {
                    self.open(true)?;
                    self.skip_whitespace();
                    if self.peek() != Some(b'}') {
                        self.member_key()?;
                        continue 'value;
                    }
                    self.pos += 1;
                    self.frames.pop();
                    self.close_object()?;
                }
                Some(b'"') => self.string_value()?,
                Some(b'-' | b'0'..=b'9') => {
                    let number = self.number()?;
                    self.sink.scalar(number);
                }
                Some(b't') => self.word("true", Value::Bool(true))?,
                Some(b'f') => self.word("false", Value::Bool(false))?,
                Some(b'n') => self.word("null", Value::Null)?,
                Some(_) => return Err(self.unexpected("a value", false)),
            }
            loop {
                let Some(frame) = self.frames.last_mut() else {
                    self.skip_whitespace();
                    if self.pos < self.bytes.len() {
                        return Err(self.error(self.pos, JsonErrorKind::TrailingCharacters, false));
                    }
                    return Ok(self.sink.finish());
                };
                frame.count += 1;
                let object = frame.object;
                self.skip_whitespace();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if object {
                            self.skip_whitespace();
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                    Some(b']') if !object => {
                        self.pos += 1;
                        self.frames.pop();
                        self.sink.close_array();
                    }
                    Some(b'}') if object => {
                        self.pos += 1;
                        self.frames.pop();
                        self.close_object()?;
                    }
                    None => return Err(self.error(self.pos, JsonErrorKind::UnexpectedEnd, true)),
                    Some(_) if object => return Err(self.unexpected("`,` or `}`", true)),
                    Some(_) => return Err(self.unexpected("`,` or `]`", true)),
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn open(&mut self, object: bool) -> Result<(), JsonError> {
        if self.frames.len() >= self.max_depth {
            let kind = JsonErrorKind::DepthExceeded {
                max: self.max_depth,
            };
            return Err(self.error(self.pos, kind, false));
        }
        self.frames.push(Frame {
            object,
            count: 0,
            keys: 0,
            key_offset: 0,
        });
        self.sink.open(object);
        self.pos += 1;
        Ok(())
    }

    /// Closes the object whose frame was just popped.
    fn close_object(&mut self) -> Result<(), JsonError> {
        self.sink.close_object().map_err(|(key, offset)| {
            let mut path = self.path(false);
            push_key(&mut path, &key);
            JsonError {
                offset,
                path,
                kind: JsonErrorKind::DuplicateKey { key },
            }
        })
    }

    /// Reads `"key"` and `:`, and records the key for the value that follows.
    fn member_key(&mut self) -> Result<(), JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a string key", false));
        }
        let offset = self.pos;
        let (key, end) = self
            .scan_string(offset)
            .map_err(|at| self.located(at, false))?;
        self.pos = end;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("`:`", false));
        }
        self.pos += 1;
        if let Some(frame) = self.frames.last_mut() {
            frame.keys += 1;
            frame.key_offset = offset;
        }
        self.sink.key(key, offset);
        Ok(())
    }

    /// Scans the string whose opening quote is at `quote`; returns it and the offset after it.
    /// Strings without escapes are borrowed from the input.
    fn scan_string(&self, quote: usize) -> Result<(Cow<'a, str>, usize), Located> {
        unescape::scan(self.text, quote)
    }

    /// A string value: borrowed when it has no escape, else decoded straight into the sink.
    fn string_value(&mut self) -> Result<(), JsonError> {
        let start = self.pos + 1;
        let plain = start + plain_prefix_len(self.bytes.get(start..).unwrap_or(&[]));
        if self.bytes.get(plain) == Some(&b'"') {
            let text = self
                .slice(start, plain)
                .map_err(|at| self.located(at, false))?;
            self.pos = plain + 1;
            self.sink.scalar(Value::String(Cow::Borrowed(text)));
            return Ok(());
        }
        let text = self.text;
        let keep_lone = self.profile == Profile::Lossless;
        let end = self
            .sink
            .escaped_string(|out| unescape::decode(text, start, out, keep_lone))
            .map_err(|at| self.located(at, false))?;
        self.pos = end;
        Ok(())
    }

    /// A number literal: under the strict profile a [`Value::Number`] or an error; under the
    /// lossless profile a [`Value::Number`] when the literal is its canonical spelling, else a
    /// [`Value::NumberLiteral`] of the literal as written.
    fn number(&mut self) -> Result<Value<'a>, JsonError> {
        let start = self.pos;
        let mut pos = start;
        if self.bytes.get(pos) == Some(&b'-') {
            pos += 1;
        }
        match self.bytes.get(pos) {
            Some(b'0') => {
                pos += 1;
                if let Some(b'0'..=b'9') = self.bytes.get(pos) {
                    let kind = JsonErrorKind::InvalidNumber {
                        reason: "leading zero",
                    };
                    return Err(self.error(pos - 1, kind, false));
                }
            }
            Some(b'1'..=b'9') => pos = self.digits_end(pos + 1),
            _ => {
                let kind = JsonErrorKind::InvalidNumber {
                    reason: "missing integer digits",
                };
                return Err(self.error(pos, kind, false));
            }
        }
        let mut integer_syntax = true;
        if self.bytes.get(pos) == Some(&b'.') {
            integer_syntax = false;
            pos = self.required_digits(pos + 1, "missing fraction digits")?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(pos) {
            integer_syntax = false;
            pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(pos) {
                pos += 1;
            }
            pos = self.required_digits(pos, "missing exponent digits")?;
        }
        let literal = self
            .slice(start, pos)
            .map_err(|at| self.located(at, false))?;
        let value = match self.profile {
            Profile::Strict(rule) => number::parse_literal(literal, integer_syntax, rule)
                .map(Value::Number)
                .map_err(|kind| self.error(start, kind, false))?,
            Profile::Lossless => lossless_number(literal, integer_syntax),
        };
        self.pos = pos;
        Ok(value)
    }

    fn digits_end(&self, mut pos: usize) -> usize {
        while let Some(b'0'..=b'9') = self.bytes.get(pos) {
            pos += 1;
        }
        pos
    }

    fn required_digits(&self, pos: usize, reason: &'static str) -> Result<usize, JsonError> {
        match self.bytes.get(pos) {
            Some(b'0'..=b'9') => Ok(self.digits_end(pos + 1)),
            _ => Err(self.error(pos, JsonErrorKind::InvalidNumber { reason }, false)),
        }
    }

    fn word(&mut self, word: &'static str, value: Value<'a>) -> Result<(), JsonError> {
        for (index, expected) in word.bytes().enumerate() {
            let at = self.pos + index;
            match self.bytes.get(at) {
                None => return Err(self.error(at, JsonErrorKind::UnexpectedEnd, false)),
                Some(&found) if found != expected => {
                    self.pos = at;
                    return Err(self.unexpected(
                        match word {
                            "true" => "`true`",
                            "false" => "`false`",
                            _ => "`null`",
                        },
                        false,
                    ));
                }
                Some(_) => {}
            }
        }
        self.pos += word.len();
        self.sink.scalar(value);
        Ok(())
    }

    fn slice(&self, start: usize, end: usize) -> Result<&'a str, Located> {
        self.text
            .get(start..end)
            .ok_or((start, JsonErrorKind::InvalidUtf8))
    }

    fn char_at(&self, at: usize) -> char {
        self.text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .unwrap_or('\u{fffd}')
    }

    fn unexpected(&self, expected: &'static str, after_value: bool) -> JsonError {
        let found = self.char_at(self.pos);
        self.error(
            self.pos,
            JsonErrorKind::UnexpectedCharacter { found, expected },
            after_value,
        )
    }

    fn located(&self, (offset, kind): Located, after_value: bool) -> JsonError {
        self.error(offset, kind, after_value)
    }

    fn error(&self, offset: usize, kind: JsonErrorKind, after_value: bool) -> JsonError {
        JsonError {
            offset,
            path: self.path(after_value),
            kind,
        }
    }

    /// JSON path of the innermost position: the element or member being read, or, with
    /// `after_value`, the one just completed.
    fn path(&self, after_value: bool) -> String {
        let mut path = String::from("$");
        let innermost = self.frames.len().saturating_sub(1);
        for (index, frame) in self.frames.iter().enumerate() {
            let just_completed = after_value && index == innermost;
            if frame.object {
                if frame.keys > frame.count || (just_completed && frame.keys > 0) {
                    if let Ok((key, _)) = self.scan_string(frame.key_offset) {
                        push_key(&mut path, &key);
                    }
                }
            } else {
                let position = if just_completed {
                    frame.count.saturating_sub(1)
                } else {
                    frame.count
                };
                let _ = write!(path, "[{position}]");
            }
        }
        path
    }
}

/// The lossless profile's value of a grammatical literal.
fn lossless_number(literal: &str, integer_syntax: bool) -> Value<'_> {
    match number::parse_literal(literal, integer_syntax, NumberRule::Exact) {
        Ok(number) if is_canonical_spelling(literal, integer_syntax, number) => {
            Value::Number(number)
        }
        _ => Value::NumberLiteral(NumberLiteral::from_checked(Cow::Borrowed(literal))),
    }
}

/// Appends `.key` for identifier-like keys, `["key"]` (canonical string form) otherwise.
fn push_key(path: &mut String, key: &str) {
    let mut chars = key.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|rest| rest.is_ascii_alphanumeric() || rest == '_');
    if identifier {
        path.push('.');
        path.push_str(key);
    } else {
        let mut quoted = Vec::with_capacity(key.len() + 2);
        write_string(key, &mut quoted);
        path.push('[');
        path.push_str(&String::from_utf8_lossy(&quoted));
        path.push(']');
    }
}
