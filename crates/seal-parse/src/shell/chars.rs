//! Character classes: what may never appear in a command, quoted or not.

use super::UnanalysableReason;

/// The reason `c` may not appear anywhere in a command, or `None` when it may.
///
/// Forbidden: C0 controls except TAB and LF, DEL, C1 controls; every non-ASCII whitespace
/// character; and the invisible characters of [`is_invisible`].
pub(super) fn forbidden(c: char) -> Option<UnanalysableReason> {
    let code = u32::from(c);
    if (code < 0x20 && c != '\t' && c != '\n') || (0x7f..=0x9f).contains(&code) {
        Some(UnanalysableReason::ControlCharacter { code })
    } else if code >= 0x80 && c.is_whitespace() {
        Some(UnanalysableReason::UnicodeSpace { code })
    } else if is_invisible(code) {
        Some(UnanalysableReason::InvisibleCharacter { code })
    } else {
        None
    }
}

/// Characters that render as nothing (or move other text) in a terminal or a review UI.
const INVISIBLE: &[(u32, u32)] = &[
    (0x00ad, 0x00ad),   // soft hyphen
    (0x034f, 0x034f),   // combining grapheme joiner
    (0x061c, 0x061c),   // arabic letter mark
    (0x115f, 0x1160),   // hangul fillers
    (0x17b4, 0x17b5),   // khmer inherent vowels
    (0x180b, 0x180f),   // mongolian variation selectors and vowel separator
    (0x200b, 0x200f),   // zero-width space, joiners, LRM, RLM
    (0x202a, 0x202e),   // bidi embeddings and overrides
    (0x2060, 0x206f),   // word joiner, invisible operators, bidi isolates, deprecated formats
    (0x3164, 0x3164),   // hangul filler
    (0xfe00, 0xfe0f),   // variation selectors
    (0xfeff, 0xfeff),   // zero-width no-break space
    (0xffa0, 0xffa0),   // halfwidth hangul filler
    (0xfff0, 0xffff),   // specials and noncharacters
    (0x1bca0, 0x1bca3), // shorthand format controls
    (0x1d173, 0x1d17a), // musical format controls
    (0xe0000, 0xe0fff), // tags and variation selectors supplement
];

fn is_invisible(code: u32) -> bool {
    code >= 0xad
        && INVISIBLE
            .iter()
            .any(|&(low, high)| (low..=high).contains(&code))
}

/// Whether `word` is one of `list`: lengths and first bytes are compared before the bytes, so
/// that most entries cost no full comparison.
pub(super) fn listed(list: &[&str], word: &str) -> bool {
    let first = word.as_bytes().first();
    list.iter().any(|entry| {
        entry.len() == word.len() && entry.as_bytes().first() == first && *entry == word
    })
}

/// A byte that, unquoted, makes a word a pattern (`^` counts for zsh's extended glob).
pub(super) fn is_glob(byte: u8) -> bool {
    matches!(byte, b'*' | b'?' | b'[' | b'^')
}

/// A byte that may start a shell variable name.
pub(super) fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

/// A byte that may continue a shell variable name.
pub(super) fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(forbidden('a'), None);
        assert_eq!(forbidden('\t'), None);
        assert_eq!(forbidden('\n'), None);
        assert_eq!(forbidden('\u{e9}'), None);
        assert_eq!(
            forbidden('\r'),
            Some(UnanalysableReason::ControlCharacter { code: 13 })
        );
        assert_eq!(
            forbidden('\u{7f}'),
            Some(UnanalysableReason::ControlCharacter { code: 0x7f })
        );
        assert_eq!(
            forbidden('\u{85}'),
            Some(UnanalysableReason::ControlCharacter { code: 0x85 })
        );
        assert_eq!(
            forbidden('\u{a0}'),
            Some(UnanalysableReason::UnicodeSpace { code: 0xa0 })
        );
        assert_eq!(
            forbidden('\u{3000}'),
            Some(UnanalysableReason::UnicodeSpace { code: 0x3000 })
        );
        assert_eq!(
            forbidden('\u{202e}'),
            Some(UnanalysableReason::InvisibleCharacter { code: 0x202e })
        );
        assert_eq!(
            forbidden('\u{e0041}'),
            Some(UnanalysableReason::InvisibleCharacter { code: 0xe0041 })
        );
    }
}
