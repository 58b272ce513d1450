//! Substitutions and expansions met while writing a skeleton: what a `$` stands for, and the
//! bodies of `$(...)`, backticks, `<(...)`, `>(...)`, `$((...))` and `${...}`, read one level
//! deeper. Where a construct ends is found first by `skip`, without recursion.

use super::readable::{Reader, Source};
use super::skip::{skip, Open};

/// What a `$` stood for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expanded {
    /// `$HOME` or `${HOME}`.
    Home,
    /// Any other expansion or substitution.
    Substituted,
    /// A `$` that expands nothing.
    Literal,
    /// Nothing: the `$` of `$"..."`, whose quotes are read next.
    Nothing,
}

impl Reader<'_> {
    /// A `$` at `pos`: reads what it starts (bodies one level deeper) and says what it stood
    /// for; returns the position after it. `quoted`: inside double quotes or a here-document.
    pub(super) fn dollar(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
        quoted: bool,
    ) -> (usize, Expanded) {
        let at = |n: usize| src.byte(pos + n).filter(|_| pos + n < end);
        match at(1) {
            Some(b'(') if at(2) == Some(b'(') => {
                (self.arithmetic(src, pos, end, depth), Expanded::Substituted)
            }
            Some(b'(') => (self.body(src, pos, end, depth), Expanded::Substituted),
            Some(b'{') => self.parameter(src, pos, end, depth),
            Some(b'\'') if !quoted => {
                // ANSI-C quoting: escapes can spell anything; the value is unknown here.
                let mut at = pos + 2;
                while at < end {
                    self.steps += 1;
                    match src.byte(at) {
                        Some(b'\\') => at += 2,
                        Some(b'\'') => return (at + 1, Expanded::Substituted),
                        _ => at += 1,
                    }
                }
                (end, Expanded::Substituted)
            }
            Some(b'"') if !quoted => (pos + 1, Expanded::Nothing),
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                let rest = src.text.as_bytes().get(pos + 1..end).unwrap_or_default();
                let len = rest
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                    .unwrap_or(rest.len());
                self.steps += len;
                let expanded = if rest.get(..len) == Some(&b"HOME"[..]) {
                    Expanded::Home
                } else {
                    Expanded::Substituted
                };
                (pos + 1 + len, expanded)
            }
            Some(b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') => {
                (pos + 2, Expanded::Substituted)
            }
            _ => (pos + 1, Expanded::Literal),
        }
    }
    /// A command or process substitution at `pos` (`$(`, `<(` or `>(`): its body is read as
    /// commands one level deeper. Returns the position after it.
    pub(super) fn body(&mut self, src: Source<'_>, pos: usize, end: usize, depth: usize) -> usize {
        let from = pos + 2;
        let skipped = skip(
            src.text.as_bytes(),
            from,
            end,
            &[Open::Paren],
            &mut self.steps,
        );
        let body_end = if skipped.closed {
            skipped.end - 1
        } else {
            skipped.end
        };
        if self.deeper(src, pos, depth) {
            self.commands(src, from, body_end, depth + 1);
        }
        skipped.end
    }
    /// `$((` at `pos`: arithmetic when it closes with `))` (its expansions are read), otherwise
    /// a command substitution whose body starts with a subshell.
    fn arithmetic(&mut self, src: Source<'_>, pos: usize, end: usize, depth: usize) -> usize {
        let skipped = skip(
            src.text.as_bytes(),
            pos + 3,
            end,
            &[Open::Paren; 2],
            &mut self.steps,
        );
        if skipped.closed && skipped.one_left == Some(skipped.end - 2) {
            if self.deeper(src, pos, depth) {
                self.expansions(src, pos + 3, skipped.end - 2, depth + 1);
            }
            return skipped.end;
        }
        self.body(src, pos, end, depth)
    }
    /// `((` starting a statement: an arithmetic command (its expansions are read; returns the
    /// position after it), or `None` for a subshell in a subshell.
    pub(super) fn arithmetic_command(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
    ) -> Option<usize> {
        let skipped = skip(
            src.text.as_bytes(),
            pos + 2,
            end,
            &[Open::Paren; 2],
            &mut self.steps,
        );
        if !(skipped.closed && skipped.one_left == Some(skipped.end - 2)) {
            return None;
        }
        if self.deeper(src, pos, depth) {
            self.expansions(src, pos + 2, skipped.end - 2, depth + 1);
        }
        Some(skipped.end)
    }
    /// `${` at `pos`: `${HOME}`, or an expansion whose nested substitutions are read.
    fn parameter(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
    ) -> (usize, Expanded) {
        let skipped = skip(
            src.text.as_bytes(),
            pos + 2,
            end,
            &[Open::Brace],
            &mut self.steps,
        );
        let body_end = if skipped.closed {
            skipped.end - 1
        } else {
            skipped.end
        };
        if skipped.closed && src.text.get(pos + 2..body_end) == Some("HOME") {
            return (skipped.end, Expanded::Home);
        }
        if self.deeper(src, pos, depth) {
            self.expansions(src, pos + 2, body_end, depth + 1);
        }
        (skipped.end, Expanded::Substituted)
    }
    /// A backtick substitution at `pos`: its body, with the backslashes that escape `$`, `` ` ``
    /// and `\` (and `"` when `quoted`) removed, is read as commands one level deeper. Returns
    /// the position after the closing backtick.
    pub(super) fn backtick(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
        quoted: bool,
    ) -> usize {
        let mut body = String::new();
        let mut at = pos + 1;
        let mut after = end;
        while at < end {
            self.steps += 1;
            let Some(c) = src.char_at(at) else {
                at += 1;
                continue;
            };
            match c {
                '`' => {
                    after = at + 1;
                    break;
                }
                '\\' => match src.char_at(at + 1).filter(|_| at + 1 < end) {
                    Some(escaped @ ('$' | '`' | '\\')) => {
                        body.push(escaped);
                        at += 2;
                    }
                    Some('"') if quoted => {
                        body.push('"');
                        at += 2;
                    }
                    Some(other) => {
                        body.push('\\');
                        body.push(other);
                        at += 1 + other.len_utf8();
                    }
                    None => at += 1,
                },
                c => {
                    body.push(c);
                    at += c.len_utf8();
                }
            }
        }
        if self.deeper(src, pos, depth) {
            let copy = src.copy(&body, pos + 1);
            self.commands(copy, 0, body.len(), depth + 1);
        }
        after
    }
    /// Reads `src.text[start..end]` for the substitutions it holds (a here-document body, an
    /// arithmetic expression, a parameter expansion's word): each body is read as commands one
    /// level deeper; the text itself is no command. Single quotes are not honoured (a
    /// here-document keeps them), so a quoted `$(` is read too.
    pub(super) fn expansions(&mut self, src: Source<'_>, start: usize, end: usize, depth: usize) {
        let end = end.min(src.text.len());
        let mut pos = start;
        while pos < end {
            self.steps += 1;
            pos = match src.byte(pos) {
                Some(b'\\') => pos + 2,
                Some(b'$') => self.dollar(src, pos, end, depth, true).0,
                Some(b'`') => self.backtick(src, pos, end, depth, false),
                _ => pos + 1,
            };
        }
    }
}
