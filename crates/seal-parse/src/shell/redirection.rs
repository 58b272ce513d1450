//! Redirections met while writing a skeleton: the operator, its descriptor and its target
//! word, removed from the skeleton and recorded; here-documents, whose bodies are removed after
//! the line holding their operator (an expanded body is read for its substitutions).

use super::expansion::Expanded;
use super::readable::{Reader, Source, SUBSTITUTED};
use super::skeleton::{ends_word, Skeleton};
use super::skip::heredoc_body;

/// A here-document whose body follows the next newline.
pub(super) struct Pending {
    delimiter: String,
    strip_tabs: bool,
    /// Whether the body is expanded (an unquoted delimiter): its substitutions run.
    expand: bool,
}

/// The value of a redirection target or here-document delimiter word.
#[derive(Debug, Default)]
pub(super) struct TargetWord {
    pub value: String,
    /// No expansion besides a leading `~` or `$HOME`, and no glob character.
    pub plain: bool,
    /// Some part of it was quoted or escaped.
    pub quoted: bool,
}

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    /// `>`, `>>`, `>|`, `&>`, `&>>`.
    Write,
    /// `<`.
    Read,
    /// `<>`.
    ReadWrite,
    /// `>&`: a descriptor, `-`, or (bash) a file written.
    DuplicateOut,
    /// `<&`: a descriptor or `-`.
    DuplicateIn,
    /// `<<` (`strip_tabs` for `<<-`).
    Heredoc { strip_tabs: bool },
    /// `<<<`.
    HereString,
}

/// The operator at the start of `rest` (which starts with `<`, `>` or `&>`) and its length.
fn operator(rest: &[u8]) -> (Operator, usize) {
    match rest {
        [b'&', b'>', b'>', ..] => (Operator::Write, 3),
        [b'&', ..] => (Operator::Write, 2),
        [b'>', b'>' | b'|', ..] => (Operator::Write, 2),
        [b'>', b'&', ..] => (Operator::DuplicateOut, 2),
        [b'<', b'<', b'<', ..] => (Operator::HereString, 3),
        [b'<', b'<', b'-', ..] => (Operator::Heredoc { strip_tabs: true }, 3),
        [b'<', b'<', ..] => (Operator::Heredoc { strip_tabs: false }, 2),
        [b'<', b'&', ..] => (Operator::DuplicateIn, 2),
        [b'<', b'>', ..] => (Operator::ReadWrite, 2),
        [b'<', ..] => (Operator::Read, 1),
        _ => (Operator::Write, 1),
    }
}

impl Reader<'_> {
    /// A redirection operator at `pos` (`<`, `>` or `&>`, no process substitution): a word of
    /// digits just before it is its descriptor and is dropped; the operator and its target are
    /// dropped from the skeleton and the target recorded. Returns the position after it.
    pub(super) fn redirection(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
        skeleton: &mut Skeleton,
        pending: &mut Vec<Pending>,
    ) -> usize {
        let rest = src.text.as_bytes().get(pos..end).unwrap_or_default();
        let (operator, len) = operator(rest);
        if skeleton.in_digits() && rest.first() != Some(&b'&') {
            skeleton.drop_word();
        } else {
            skeleton.end_word();
        }
        let (after, target) = self.target_word(src, pos + len, end, depth);
        let offset = src.offset(pos);
        let Some(target) = target else {
            if operator != Operator::HereString {
                self.missing_target(offset);
            }
            return after;
        };
        let (reads, writes) = match operator {
            Operator::Write => (false, true),
            Operator::Read => (true, false),
            Operator::ReadWrite => (true, true),
            Operator::DuplicateOut | Operator::DuplicateIn if is_descriptor(&target) => {
                return after;
            }
            Operator::DuplicateOut => (false, true),
            Operator::DuplicateIn => (true, false),
            Operator::Heredoc { strip_tabs } => {
                pending.push(Pending {
                    delimiter: target.value,
                    strip_tabs,
                    expand: !target.quoted,
                });
                return after;
            }
            Operator::HereString => return after,
        };
        self.redirect(target, reads, writes, offset);
        after
    }
    /// The bodies of the pending here-documents, in order, from `pos` (after a newline): an
    /// expanded body is read for its substitutions, then dropped. Returns the position after
    /// the last delimiter line.
    pub(super) fn heredocs(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        pending: &mut Vec<Pending>,
        depth: usize,
    ) -> usize {
        let mut pos = pos;
        for heredoc in pending.drain(..) {
            let (body_end, after) = heredoc_body(
                src.text,
                pos,
                end,
                &heredoc.delimiter,
                heredoc.strip_tabs,
                &mut self.steps,
            );
            if heredoc.expand {
                self.expansions(src, pos, body_end, depth);
            }
            pos = after;
        }
        pos
    }
    /// The word after a redirection operator (blanks skipped), as its value: quotes removed,
    /// `$HOME` first read as `~`, any other expansion as the placeholder (its body read).
    /// `None` when there is no word (the position is then where one would start).
    fn target_word(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
    ) -> (usize, Option<TargetWord>) {
        let mut pos = pos;
        while pos < end && matches!(src.byte(pos), Some(b' ' | b'\t')) {
            self.steps += 1;
            pos += 1;
        }
        let begin = pos;
        let mut word = TargetWord {
            plain: true,
            ..TargetWord::default()
        };
        while pos < end {
            self.steps += 1;
            let byte = src.byte(pos);
            let next = src.byte(pos + 1).filter(|_| pos + 1 < end);
            if ends_word(byte) {
                if pos == begin && matches!(byte, Some(b'<' | b'>')) && next == Some(b'(') {
                    word.value.push_str(SUBSTITUTED);
                    word.plain = false;
                    pos = self.body(src, pos, end, depth);
                    continue;
                }
                break;
            }
            match byte {
                Some(b'#') if pos == begin => break,
                Some(b'\'') => {
                    word.quoted = true;
                    let rest = src.text.as_bytes().get(pos + 1..end).unwrap_or_default();
                    let len = memchr::memchr(b'\'', rest).unwrap_or(rest.len());
                    self.steps += len;
                    word.value
                        .push_str(src.text.get(pos + 1..pos + 1 + len).unwrap_or_default());
                    pos = (pos + len + 2).min(end);
                }
                Some(b'"') => {
                    word.quoted = true;
                    pos = self.target_double_quote(src, pos + 1, end, depth, &mut word);
                }
                Some(b'\\') => {
                    word.quoted = true;
                    match src.char_at(pos + 1).filter(|_| pos + 1 < end) {
                        Some('\n') => pos += 2,
                        Some(c) => {
                            word.value.push(c);
                            pos += 1 + c.len_utf8();
                        }
                        None => pos += 1,
                    }
                }
                Some(b'$') => {
                    let (after, expanded) = self.dollar(src, pos, end, depth, false);
                    word.expanded(expanded);
                    pos = after;
                }
                Some(b'`') => {
                    word.expanded(Expanded::Substituted);
                    pos = self.backtick(src, pos, end, depth, false);
                }
                _ => match src.char_at(pos) {
                    Some(c) => {
                        word.plain &= !matches!(c, '*' | '?' | '[' | '{');
                        word.value.push(c);
                        pos += c.len_utf8();
                    }
                    None => pos += 1,
                },
            }
        }
        if pos == begin {
            return (pos, None);
        }
        (pos, Some(word))
    }
    /// The rest of a double-quoted part of a target word, from `pos` (after the quote).
    fn target_double_quote(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
        word: &mut TargetWord,
    ) -> usize {
        let mut pos = pos;
        while pos < end {
            self.steps += 1;
            let next = src.char_at(pos + 1).filter(|_| pos + 1 < end);
            match src.byte(pos) {
                Some(b'"') => return pos + 1,
                Some(b'\\') => match next {
                    Some(escaped @ ('$' | '`' | '"' | '\\')) => {
                        word.value.push(escaped);
                        pos += 2;
                    }
                    Some('\n') => pos += 2,
                    _ => {
                        word.value.push('\\');
                        pos += 1;
                    }
                },
                Some(b'$') => {
                    let (after, expanded) = self.dollar(src, pos, end, depth, true);
                    word.expanded(expanded);
                    pos = after;
                }
                Some(b'`') => {
                    word.expanded(Expanded::Substituted);
                    pos = self.backtick(src, pos, end, depth, true);
                }
                _ => match src.char_at(pos) {
                    Some(c) => {
                        word.value.push(c);
                        pos += c.len_utf8();
                    }
                    None => pos += 1,
                },
            }
        }
        end
    }
}

impl TargetWord {
    fn expanded(&mut self, expanded: Expanded) {
        match expanded {
            Expanded::Home if self.value.is_empty() => self.value.push('~'),
            Expanded::Home | Expanded::Substituted => {
                self.value.push_str(SUBSTITUTED);
                self.plain = false;
            }
            Expanded::Literal => self.value.push('$'),
            Expanded::Nothing => {}
        }
    }
}

/// Whether the target of `>&` or `<&` is a descriptor (`2`, `10`), a move (`2-`) or a close
/// (`-`), which names no file.
fn is_descriptor(target: &TargetWord) -> bool {
    let digits = target.value.strip_suffix('-').unwrap_or(&target.value);
    target.plain && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators() {
        assert_eq!(operator(b"&>>x"), (Operator::Write, 3));
        assert_eq!(operator(b"&>x"), (Operator::Write, 2));
        assert_eq!(operator(b">|x"), (Operator::Write, 2));
        assert_eq!(operator(b">>x"), (Operator::Write, 2));
        assert_eq!(operator(b">&2"), (Operator::DuplicateOut, 2));
        assert_eq!(operator(b">x"), (Operator::Write, 1));
        assert_eq!(operator(b"<<<x"), (Operator::HereString, 3));
        assert_eq!(
            operator(b"<<-x"),
            (Operator::Heredoc { strip_tabs: true }, 3)
        );
        assert_eq!(
            operator(b"<<x"),
            (Operator::Heredoc { strip_tabs: false }, 2)
        );
        assert_eq!(operator(b"<&0"), (Operator::DuplicateIn, 2));
        assert_eq!(operator(b"<>x"), (Operator::ReadWrite, 2));
        assert_eq!(operator(b"<x"), (Operator::Read, 1));
    }
}
