//! The skeleton of a command text: the text rewritten so that the strict segmenter reads it,
//! built in one forward pass. Substitutions and expansions become a placeholder word (their
//! bodies read as texts of their own, see `expansion.rs`), redirections and here-document bodies
//! are removed (and recorded, see `redirection.rs`), comments are dropped, and grouping becomes
//! separators.

use super::expansion::Expanded;
use super::readable::{Reader, Source, MAX_READABLE_DEPTH, SUBSTITUTED};
use super::redirection::Pending;

/// The skeleton being written for one text: the rewritten text and its statements (the
/// stretches between separators, each with where it started in the command).
#[derive(Debug, Default)]
pub(super) struct Skeleton {
    pub text: String,
    pub statements: Vec<Statement>,
    /// The statement being written, once it has a word: its start in `text` and its offset.
    open: Option<(usize, usize)>,
    in_word: bool,
    /// A blank is owed before the next word.
    space: bool,
    /// Where the word being written starts in `text`, blank before it included.
    word_start: usize,
    /// Whether the word being written is the first of its statement.
    word_first: bool,
    /// Whether the word being written is so far only unquoted ASCII digits.
    digits: bool,
    /// Where the last statement ends in `text`.
    last_end: usize,
}

/// One statement of a skeleton: `text[start..end]`, whose first word came from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Statement {
    pub start: usize,
    pub end: usize,
    pub offset: usize,
}

impl Skeleton {
    /// Whether the word being written is so far only unquoted ASCII digits (a descriptor, if
    /// a redirection operator follows).
    pub(super) fn in_digits(&self) -> bool {
        self.in_word && self.digits
    }

    /// Whether no word has been written since the last separator.
    fn at_statement_start(&self) -> bool {
        self.open.is_none() && !self.in_word
    }

    /// Starts a word (if none is being written) whose first character came from `offset`.
    fn word(&mut self, offset: usize) {
        if self.in_word {
            return;
        }
        self.word_start = self.text.len();
        if self.space {
            self.text.push(' ');
            self.space = false;
        }
        self.word_first = self.open.is_none();
        if self.word_first {
            self.open = Some((self.text.len(), offset));
        }
        self.in_word = true;
        self.digits = true;
    }

    /// Appends unquoted text that needs no escape.
    fn plain(&mut self, text: &str, offset: usize) {
        self.word(offset);
        self.digits &= text.bytes().all(|b| b.is_ascii_digit());
        self.text.push_str(text);
    }

    /// Appends text that is quoted or escaped (so never a descriptor).
    fn quoted(&mut self, text: &str, offset: usize) {
        self.word(offset);
        self.digits = false;
        self.text.push_str(text);
    }

    pub(super) fn end_word(&mut self) {
        if self.in_word {
            self.in_word = false;
            self.space = true;
        }
    }

    /// Forgets the word being written (a descriptor before a redirection operator).
    pub(super) fn drop_word(&mut self) {
        if !self.in_word {
            return;
        }
        self.text.truncate(self.word_start);
        self.in_word = false;
        self.space = !self.word_first;
        if self.word_first {
            self.open = None;
        }
    }

    /// Ends the statement being written with `operator`; nothing when it has no word (the
    /// operator then joins nothing and is dropped).
    fn separator(&mut self, operator: &str) {
        self.end_word();
        if let Some((start, offset)) = self.open.take() {
            self.statements.push(Statement {
                start,
                end: self.text.len(),
                offset,
            });
            self.last_end = self.text.len();
            self.text.push_str(operator);
            self.space = false;
        }
    }

    /// Ends the last statement and drops any operator after it.
    pub fn finish(&mut self) {
        self.separator("");
        self.text.truncate(self.last_end);
    }
}

/// Reserved words dropped at the start of a statement: they introduce or close a compound
/// command and run nothing themselves (`if rm x; then ...` runs `rm x`).
const DROPPED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "coproc",
];

/// Whether a word ends before `byte` (end of text, blank, newline or metacharacter).
pub(super) fn ends_word(byte: Option<u8>) -> bool {
    matches!(
        byte,
        None | Some(b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')')
    )
}

impl Reader<'_> {
    /// Reads `src.text[start..end]` as commands: writes its skeleton, reads every body in it
    /// (one level deeper), records its redirections, then emits the skeleton's pieces.
    pub(super) fn commands(&mut self, src: Source<'_>, start: usize, end: usize, depth: usize) {
        let end = end.min(src.text.len());
        let mut skeleton = Skeleton::default();
        let mut pending: Vec<Pending> = Vec::new();
        // Cleared by the first `((` that is not an arithmetic command: a later one is then read
        // as two parentheses without looking for its end, so that no two such searches cover
        // the same bytes.
        let mut arithmetic = true;
        let mut pos = start;
        while pos < end {
            self.steps += 1;
            let Some(byte) = src.byte(pos) else {
                break;
            };
            let next = src.byte(pos + 1).filter(|_| pos + 1 < end);
            let word_start = !skeleton.in_word;
            pos = match byte {
                b' ' | b'\t' => {
                    skeleton.end_word();
                    pos + 1
                }
                b'\n' => {
                    skeleton.separator(";");
                    self.heredocs(src, pos + 1, end, &mut pending, depth)
                }
                b';' => {
                    skeleton.separator(";");
                    // `;;`, `;&` and `;;&` end a case item.
                    match (next, src.byte(pos + 2)) {
                        (Some(b';'), Some(b'&')) => pos + 3,
                        (Some(b';' | b'&'), _) => pos + 2,
                        _ => pos + 1,
                    }
                    .min(end)
                }
                b'&' if next == Some(b'&') => {
                    skeleton.separator("&&");
                    pos + 2
                }
                b'&' if next == Some(b'>') => {
                    self.redirection(src, pos, end, depth, &mut skeleton, &mut pending)
                }
                b'&' => {
                    skeleton.separator("&");
                    pos + 1
                }
                b'|' => {
                    let (operator, len) = match next {
                        Some(b'|') => ("||", 2),
                        Some(b'&') => ("|&", 2),
                        _ => ("|", 1),
                    };
                    skeleton.separator(operator);
                    pos + len
                }
                b'(' if arithmetic && skeleton.at_statement_start() && next == Some(b'(') => {
                    match self.arithmetic_command(src, pos, end, depth) {
                        Some(after) => after,
                        None => {
                            arithmetic = false;
                            pos + 1
                        }
                    }
                }
                b'(' | b')' => {
                    skeleton.separator(";");
                    pos + 1
                }
                b'{' | b'}' if word_start => self.brace(src, pos, end, &mut skeleton),
                b'{' | b'}' => {
                    skeleton.quoted(if byte == b'{' { "\\{" } else { "\\}" }, src.offset(pos));
                    pos + 1
                }
                b'#' if word_start => {
                    let rest = src.text.as_bytes().get(pos..end).unwrap_or_default();
                    let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                    self.steps += len;
                    pos + len.max(1)
                }
                b'!' if skeleton.at_statement_start() && ends_word(next) => pos + 1,
                b'!' => {
                    skeleton.quoted("\\!", src.offset(pos));
                    pos + 1
                }
                b'\'' => self.single_quote(src, pos, end, &mut skeleton),
                b'"' => self.double_quote(src, pos, end, depth, &mut skeleton),
                b'\\' => match src.char_at(pos + 1).filter(|_| pos + 1 < end) {
                    None => pos + 1,
                    Some('\n') => pos + 2,
                    Some(c) => {
                        let mut escaped = String::from('\\');
                        escaped.push(c);
                        skeleton.quoted(&escaped, src.offset(pos));
                        pos + 1 + c.len_utf8()
                    }
                },
                b'$' => {
                    let (after, expanded) = self.dollar(src, pos, end, depth, false);
                    match expanded {
                        Expanded::Home if word_start => skeleton.quoted("'~'", src.offset(pos)),
                        Expanded::Home | Expanded::Substituted => {
                            skeleton.quoted(SUBSTITUTED, src.offset(pos));
                        }
                        Expanded::Literal => skeleton.quoted("\\$", src.offset(pos)),
                        Expanded::Nothing => {}
                    }
                    after
                }
                b'`' => {
                    skeleton.quoted(SUBSTITUTED, src.offset(pos));
                    self.backtick(src, pos, end, depth, false)
                }
                b'<' | b'>' if next == Some(b'(') => {
                    skeleton.quoted(SUBSTITUTED, src.offset(pos));
                    self.body(src, pos, end, depth)
                }
                b'<' | b'>' => self.redirection(src, pos, end, depth, &mut skeleton, &mut pending),
                b'a'..=b'z' if skeleton.at_statement_start() => {
                    let dropped = DROPPED.iter().find(|word| {
                        let after = pos + word.len();
                        after <= end
                            && src
                                .text
                                .get(pos..)
                                .is_some_and(|rest| rest.starts_with(**word))
                            && ends_word(src.byte(after).filter(|_| after < end))
                    });
                    match dropped {
                        Some(word) => pos + word.len(),
                        None => self.character(src, pos, &mut skeleton),
                    }
                }
                _ => self.character(src, pos, &mut skeleton),
            };
        }
        skeleton.finish();
        self.emit(&skeleton, depth);
    }
    /// Appends the character at `pos` as plain text; returns the position after it.
    fn character(&mut self, src: Source<'_>, pos: usize, skeleton: &mut Skeleton) -> usize {
        match src.char_at(pos) {
            Some(c) => {
                let mut buffer = [0; 4];
                skeleton.plain(c.encode_utf8(&mut buffer), src.offset(pos));
                pos + c.len_utf8()
            }
            None => pos + 1,
        }
    }
    /// `{` or `}` starting a word: the literal word `{}`, a brace group's brace (a separator),
    /// or the start of a brace expansion (kept as escaped text).
    fn brace(&mut self, src: Source<'_>, pos: usize, end: usize, skeleton: &mut Skeleton) -> usize {
        let at = |n: usize| src.byte(pos + n).filter(|_| pos + n < end);
        if src.byte(pos) == Some(b'{') && at(1) == Some(b'}') && ends_word(at(2)) {
            skeleton.plain("{}", src.offset(pos));
            return pos + 2;
        }
        if ends_word(at(1)) {
            skeleton.separator(";");
        } else if src.byte(pos) == Some(b'{') {
            skeleton.quoted("\\{", src.offset(pos));
        } else {
            skeleton.quoted("\\}", src.offset(pos));
        }
        pos + 1
    }
    fn single_quote(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        skeleton: &mut Skeleton,
    ) -> usize {
        let rest = src.text.as_bytes().get(pos + 1..end).unwrap_or_default();
        let len = memchr::memchr(b'\'', rest).unwrap_or(rest.len());
        self.steps += len;
        let content = src.text.get(pos + 1..pos + 1 + len).unwrap_or_default();
        skeleton.quoted("'", src.offset(pos));
        skeleton.text.push_str(content);
        skeleton.text.push('\'');
        (pos + len + 2).min(end)
    }
    fn double_quote(
        &mut self,
        src: Source<'_>,
        pos: usize,
        end: usize,
        depth: usize,
        skeleton: &mut Skeleton,
    ) -> usize {
        // `$HOME` is read as `~` only as the first thing in its word.
        let mut first = !skeleton.in_word;
        skeleton.quoted("\"", src.offset(pos));
        let mut pos = pos + 1;
        while pos < end {
            self.steps += 1;
            let next = src.byte(pos + 1).filter(|_| pos + 1 < end);
            match src.byte(pos) {
                Some(b'"') => {
                    skeleton.text.push('"');
                    return pos + 1;
                }
                Some(b'\\') => match next {
                    Some(escaped @ (b'$' | b'`' | b'"' | b'\\')) => {
                        skeleton.text.push('\\');
                        skeleton.text.push(char::from(escaped));
                        pos += 2;
                    }
                    Some(b'\n') => pos += 2,
                    None => pos += 1,
                    Some(_) => {
                        skeleton.text.push('\\');
                        pos += 1;
                    }
                },
                Some(b'$') => {
                    let (after, expanded) = self.dollar(src, pos, end, depth, true);
                    match expanded {
                        Expanded::Home if first => skeleton.text.push('~'),
                        Expanded::Home | Expanded::Substituted => {
                            skeleton.text.push_str(SUBSTITUTED);
                        }
                        Expanded::Literal => skeleton.text.push_str("\\$"),
                        Expanded::Nothing => {}
                    }
                    pos = after;
                }
                Some(b'`') => {
                    skeleton.text.push_str(SUBSTITUTED);
                    pos = self.backtick(src, pos, end, depth, true);
                }
                _ => match src.char_at(pos) {
                    Some(c) => {
                        skeleton.text.push(c);
                        pos += c.len_utf8();
                    }
                    None => pos += 1,
                },
            }
            first = false;
        }
        skeleton.text.push('"');
        end
    }
    /// Whether a body at `pos` one level below `depth` may be read; records it unread when not.
    pub(super) fn deeper(&mut self, src: Source<'_>, pos: usize, depth: usize) -> bool {
        if depth < MAX_READABLE_DEPTH {
            return true;
        }
        self.too_deep(src.offset(pos));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_statements() {
        let mut skeleton = Skeleton::default();
        skeleton.plain("ls", 0);
        skeleton.end_word();
        skeleton.plain("-l", 3);
        skeleton.separator("&&");
        skeleton.separator(";");
        skeleton.plain("2", 10);
        skeleton.drop_word();
        skeleton.plain("pwd", 12);
        skeleton.end_word();
        skeleton.plain("1", 16);
        skeleton.drop_word();
        skeleton.plain("x", 18);
        skeleton.separator("|");
        skeleton.finish();
        assert_eq!(skeleton.text, "ls -l&&pwd x");
        assert_eq!(
            skeleton.statements,
            [
                Statement {
                    start: 0,
                    end: 5,
                    offset: 0
                },
                Statement {
                    start: 7,
                    end: 12,
                    offset: 12
                }
            ]
        );
    }
}
