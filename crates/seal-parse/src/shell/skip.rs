//! Finding where a construct ends without reading it: the extent of a substitution, an
//! expansion or a here-document body, in one forward pass with an explicit stack (no recursion,
//! so no nesting depth can exhaust the call stack).

/// A context opened and not yet closed while skipping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Open {
    /// `$(`, `<(`, `>(` or a `(` inside one: closed by `)`.
    Paren,
    /// `${`: closed by `}`.
    Brace,
    /// `"`: closed by `"`.
    Double,
    /// `` ` ``: closed by `` ` ``.
    Backtick,
}

/// Where a skipped construct ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Skipped {
    /// The position after the closing byte, or the limit when the construct is not closed.
    pub end: usize,
    /// Whether the construct was closed before the limit.
    pub closed: bool,
    /// Where the stack last went down to one open context (the `)` closing the inner `(` of
    /// `$((`), if it ever did.
    pub one_left: Option<usize>,
}

/// Skips from `from` to the end of the contexts `open` (outermost first), reading no further
/// than `limit`. Quotes, escapes and nested `$(`, `${`, backticks are honoured, and inside
/// parentheses a `#` starting a word comments out the rest of its line. `steps` grows by the
/// bytes visited (single-quoted runs count their length).
pub(super) fn skip(
    text: &[u8],
    from: usize,
    limit: usize,
    open: &[Open],
    steps: &mut usize,
) -> Skipped {
    let limit = limit.min(text.len());
    let mut stack: Vec<Open> = open.to_vec();
    let mut one_left = None;
    let mut at = from;
    // Whether the byte before `at` ends a word (for comments).
    let mut word_start = true;
    while at < limit {
        let Some(&top) = stack.last() else {
            break;
        };
        let Some(&byte) = text.get(at) else {
            break;
        };
        *steps += 1;
        let next = text.get(at + 1).copied();
        let mut step = 1;
        let mut closed = false;
        match (top, byte) {
            (_, b'\\') => step = 2,
            (Open::Backtick, b'`') | (Open::Double, b'"') => closed = true,
            (Open::Backtick, _) => {}
            (Open::Double | Open::Paren | Open::Brace, b'`') => stack.push(Open::Backtick),
            (Open::Double | Open::Paren | Open::Brace, b'$') if next == Some(b'(') => {
                stack.push(Open::Paren);
                step = 2;
            }
            (Open::Double | Open::Paren | Open::Brace, b'$') if next == Some(b'{') => {
                stack.push(Open::Brace);
                step = 2;
            }
            (Open::Double, _) => {}
            (Open::Paren | Open::Brace, b'\'') => {
                let rest = text.get(at + 1..limit).unwrap_or_default();
                let len = memchr::memchr(b'\'', rest).map_or(rest.len(), |len| len + 1);
                *steps += len;
                step = 1 + len;
            }
            (Open::Paren | Open::Brace, b'"') => stack.push(Open::Double),
            (Open::Paren, b'(') => stack.push(Open::Paren),
            (Open::Paren, b')') | (Open::Brace, b'}') => closed = true,
            (Open::Paren, b'#') if word_start => {
                let rest = text.get(at..limit).unwrap_or_default();
                let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                *steps += len;
                step = len.max(1);
            }
            _ => {}
        }
        if closed {
            stack.pop();
            if stack.len() == 1 {
                one_left = Some(at);
            }
            if stack.is_empty() {
                return Skipped {
                    end: at + 1,
                    closed: true,
                    one_left,
                };
            }
        }
        word_start = matches!(
            byte,
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')'
        );
        at += step;
    }
    Skipped {
        end: limit.max(from.min(limit)),
        closed: false,
        one_left,
    }
}

/// Where the body of a here-document starting at `from` ends: the lines up to the one equal
/// to `delimiter` (after its leading tabs when `strip_tabs`), or `limit`. Returns the end of
/// the body and the position after the delimiter line.
pub(super) fn heredoc_body(
    text: &str,
    from: usize,
    limit: usize,
    delimiter: &str,
    strip_tabs: bool,
    steps: &mut usize,
) -> (usize, usize) {
    let limit = limit.min(text.len());
    let mut line = from;
    while line < limit {
        let rest = text.as_bytes().get(line..limit).unwrap_or_default();
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        *steps += len + 1;
        let content = text.get(line..line + len).unwrap_or_default();
        let content = if strip_tabs {
            content.trim_start_matches('\t')
        } else {
            content
        };
        let after = (line + len + 1).min(limit);
        if content == delimiter {
            return (line, after);
        }
        line = after;
    }
    (limit, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(text: &str, from: usize, open: &[Open]) -> (usize, bool) {
        let mut steps = 0;
        let skipped = skip(text.as_bytes(), from, text.len(), open, &mut steps);
        assert!(steps <= text.len() + 1, "{text:?}: {steps} steps");
        (skipped.end, skipped.closed)
    }

    #[test]
    fn finds_the_closing_byte() {
        assert_eq!(ends("$(a)b", 2, &[Open::Paren]), (4, true));
        assert_eq!(ends("$(a (b) c)d", 2, &[Open::Paren]), (10, true));
        assert_eq!(ends("$(a ')' \")\" \\) c)d", 2, &[Open::Paren]), (17, true));
        assert_eq!(ends("$(a $(b) `)` c)d", 2, &[Open::Paren]), (15, true));
        assert_eq!(ends("$(a # )\n)d", 2, &[Open::Paren]), (9, true));
        assert_eq!(ends("$(a#)d", 2, &[Open::Paren]), (5, true));
        assert_eq!(ends("${a:-}}", 2, &[Open::Brace]), (6, true));
        assert_eq!(ends("${a:-'}'}x", 2, &[Open::Brace]), (9, true));
        assert_eq!(ends("`a \\` b`c", 1, &[Open::Backtick]), (8, true));
        assert_eq!(ends("$(a", 2, &[Open::Paren]), (3, false));
        assert_eq!(ends("$(a '", 2, &[Open::Paren]), (5, false));
        assert_eq!(ends("$(", 2, &[Open::Paren]), (2, false));
    }

    #[test]
    fn reports_where_arithmetic_closes() {
        let mut steps = 0;
        let text = "$((1+(2)))";
        let skipped = skip(
            text.as_bytes(),
            3,
            text.len(),
            &[Open::Paren; 2],
            &mut steps,
        );
        assert_eq!((skipped.end, skipped.one_left), (10, Some(8)));
        let text = "$((a) )";
        let skipped = skip(
            text.as_bytes(),
            3,
            text.len(),
            &[Open::Paren; 2],
            &mut steps,
        );
        assert_eq!((skipped.end, skipped.one_left), (7, Some(4)));
    }

    #[test]
    fn heredoc_bodies_end_at_their_delimiter() {
        let mut steps = 0;
        let text = "a\nEOFx\n\tEOF\nEOF\nrest";
        assert_eq!(
            heredoc_body(text, 0, text.len(), "EOF", false, &mut steps),
            (12, 16)
        );
        assert_eq!(
            heredoc_body(text, 0, text.len(), "EOF", true, &mut steps),
            (7, 12)
        );
        assert_eq!(
            heredoc_body(text, 0, text.len(), "none", false, &mut steps),
            (20, 20)
        );
        assert_eq!(heredoc_body("EOF", 0, 3, "EOF", false, &mut steps), (0, 3));
    }
}
