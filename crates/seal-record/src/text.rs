//! The rule for human-readable text fields of records (purpose, reasons, names).

/// True for the characters no text field of a record may contain: C0 controls, DEL and C1
/// controls (`char::is_control`), the bidirectional controls (U+061C, U+200E, U+200F,
/// U+202A..=U+202E, U+2066..=U+2069), the invisible characters U+200B..=U+200D, U+2028, U+2029,
/// U+2060..=U+2064, U+FEFF, and the tag characters U+E0000..=U+E007F.
///
/// These are the characters that can hide or reorder what a reader sees, so a reviewer reads
/// what the record holds.
pub fn is_forbidden_text_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// What is wrong with a text field, if anything: `None` when `text` is non-blank, free of
/// [forbidden characters](is_forbidden_text_char) and at most `max_chars` Unicode scalar values.
pub(crate) fn text_problem(text: &str, max_chars: usize) -> Option<TextProblem> {
    if text.trim().is_empty() {
        return Some(TextProblem::Blank);
    }
    if let Some(c) = text.chars().find(|&c| is_forbidden_text_char(c)) {
        return Some(TextProblem::ForbiddenChar(c));
    }
    let chars = text.chars().count();
    (chars > max_chars).then_some(TextProblem::TooLong(chars))
}

pub(crate) enum TextProblem {
    Blank,
    ForbiddenChar(char),
    TooLong(usize),
}

/// True for an identifier (session, agent, call and approval ids, run ids, tool names,
/// redaction types): 1 to `max` bytes of printable ASCII without space (0x21..=0x7E). Records
/// allow [`MAX_IDENTIFIER_BYTES`](crate::MAX_IDENTIFIER_BYTES); a format may allow fewer.
pub fn is_identifier(text: &str, max: usize) -> bool {
    !text.is_empty() && text.len() <= max && text.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden() {
        for c in [
            '\0',
            '\n',
            '\u{7f}',
            '\u{85}',
            '\u{202e}',
            '\u{2067}',
            '\u{200b}',
            '\u{feff}',
            '\u{e0041}',
        ] {
            assert!(is_forbidden_text_char(c), "{c:?}");
        }
        for c in ['a', ' ', 'é', '\u{4e2d}', '\u{1f600}', '\u{2070}'] {
            assert!(!is_forbidden_text_char(c), "{c:?}");
        }
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("toolu_01", 8));
        assert!(!is_identifier("toolu_012", 8));
        assert!(!is_identifier("", 8));
        assert!(!is_identifier("a b", 8));
    }
}
