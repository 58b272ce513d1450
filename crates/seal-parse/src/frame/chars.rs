//! Character classes the lenient detector treats as tag syntax.
//!
//! Each class holds the ASCII character and the lookalikes a model may read in its place. The
//! candidate search in `search.rs` relies on every non-ASCII opening bracket starting with one of
//! [`OPEN_LEAD_BYTES`]; a unit test below checks that.

/// Closing brackets: `>` and its lookalikes.
pub(crate) const CLOSE_BRACKETS: &[char] = &[
    '>', '\u{ff1e}', '\u{fe65}', '\u{203a}', '\u{232a}', '\u{3009}', '\u{27e9}', '\u{1433}',
    '\u{276f}', '\u{29fd}', '\u{2c3}',
];

/// Slashes: `/` and its lookalikes.
pub(crate) const SLASHES: &[char] = &[
    '/', '\u{ff0f}', '\u{2215}', '\u{2044}', '\u{29f8}', '\u{2571}',
];

/// UTF-8 lead bytes of every non-ASCII character accepted by [`is_open_bracket`].
pub(crate) const OPEN_LEAD_BYTES: [u8; 5] = [0xe2, 0xef, 0xe1, 0xe3, 0xcb];

/// Whether `c` reads as an opening bracket: `<` and the lookalikes a reader may take for it.
pub(crate) fn is_open_bracket(c: char) -> bool {
    matches!(
        c,
        '<' | '\u{ff1c}'
            | '\u{fe64}'
            | '\u{2039}'
            | '\u{2329}'
            | '\u{3008}'
            | '\u{27e8}'
            | '\u{1438}'
            | '\u{2c2}'
    )
}

/// Whether `c` reads as a closing bracket.
pub(crate) fn is_close_bracket(c: char) -> bool {
    if c.is_ascii() {
        return c == '>';
    }
    CLOSE_BRACKETS.contains(&c)
}

/// Whether `c` reads as a slash.
pub(crate) fn is_slash(c: char) -> bool {
    if c.is_ascii() {
        return c == '/';
    }
    SLASHES.contains(&c)
}

/// Whether `c` is invisible and ignored by a reader: zero-width characters, soft hyphen, bidi
/// controls, variation selectors, the tags block, the combining grapheme joiner, Hangul fillers,
/// invisible operators and Mongolian free variation selectors.
pub(crate) fn is_ignorable(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{61c}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{e0000}'..='\u{e007f}'
            | '\u{e0100}'..='\u{e01ef}'
    )
}

/// Whether `c` separates parts of a tag for a reader: Unicode whitespace or an ignorable.
pub(crate) fn is_tag_space(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_whitespace() || c == '\u{b}';
    }
    c.is_whitespace() || is_ignorable(c)
}

/// How a character matched one ASCII byte of the element name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameMatch {
    /// The identical ASCII byte.
    Exact,
    /// The ASCII byte in another case.
    Case,
    /// A fullwidth form of the byte (in either case).
    Fullwidth,
}

/// Compares `c` with the name byte `expected` (lowercase ASCII letter, digit or `-`).
pub(crate) fn match_name_char(c: char, expected: u8) -> Option<NameMatch> {
    let (ascii, fullwidth) = match u32::from(c) {
        0xff01..=0xff5e => (u32::from(c) - 0xff01 + 0x21, true),
        _ => (u32::from(c), false),
    };
    let byte = u8::try_from(ascii).ok()?;
    if byte == expected && !fullwidth {
        Some(NameMatch::Exact)
    } else if byte.to_ascii_lowercase() == expected {
        Some(if fullwidth {
            NameMatch::Fullwidth
        } else {
            NameMatch::Case
        })
    } else {
        None
    }
}

/// Whether `c` would continue a name for a reader (so `<channels>` is not `<channel>`).
pub(crate) fn continues_name(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':');
    }
    let bracket = is_open_bracket(c) || is_close_bracket(c) || is_slash(c);
    !bracket
        && (c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '\u{ff0d}' | '\u{ff3f}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opening brackets: `<` and the lookalikes a reader may take for it.
    const OPEN_BRACKETS: &[char] = &[
        '<', '\u{ff1c}', '\u{fe64}', '\u{2039}', '\u{2329}', '\u{3008}', '\u{27e8}', '\u{1438}',
        '\u{2c2}',
    ];

    #[test]
    fn every_non_ascii_open_bracket_starts_with_a_searched_lead_byte() {
        for c in OPEN_BRACKETS.iter().filter(|c| !c.is_ascii()) {
            let mut buf = [0u8; 4];
            let lead = c.encode_utf8(&mut buf).as_bytes()[0];
            assert!(OPEN_LEAD_BYTES.contains(&lead), "{c:?}");
        }
    }

    #[test]
    fn open_bracket_predicate_matches_the_list() {
        for c in ('\0'..='\u{ffff}').chain(['\u{10ffff}']) {
            assert_eq!(is_open_bracket(c), OPEN_BRACKETS.contains(&c), "{c:?}");
        }
    }

    #[test]
    fn classes_are_disjoint_from_tag_space() {
        for c in OPEN_BRACKETS.iter().chain(CLOSE_BRACKETS).chain(SLASHES) {
            assert!(!is_tag_space(*c), "{c:?}");
            assert!(!continues_name(*c), "{c:?}");
        }
    }

    #[test]
    fn tag_space_ascii_fast_path_matches_the_definition() {
        for c in ('\0'..='\u{d7ff}').chain('\u{e000}'..='\u{10ffff}') {
            assert_eq!(
                is_tag_space(c),
                c.is_whitespace() || is_ignorable(c),
                "{c:?}"
            );
        }
    }

    #[test]
    fn ascii_fast_paths_match_the_definitions() {
        for c in '\0'..='\u{7f}' {
            assert_eq!(is_close_bracket(c), CLOSE_BRACKETS.contains(&c), "{c:?}");
            assert_eq!(is_slash(c), SLASHES.contains(&c), "{c:?}");
            assert!(!is_ignorable(c), "{c:?}");
            let bracket = is_open_bracket(c) || is_close_bracket(c) || is_slash(c);
            assert_eq!(
                continues_name(c),
                !bracket
                    && (c.is_alphanumeric()
                        || matches!(c, '_' | '-' | '.' | ':' | '\u{ff0d}' | '\u{ff3f}')),
                "{c:?}"
            );
        }
    }

    #[test]
    fn name_matching() {
        assert_eq!(match_name_char('c', b'c'), Some(NameMatch::Exact));
        assert_eq!(match_name_char('C', b'c'), Some(NameMatch::Case));
        assert_eq!(
            match_name_char('\u{ff43}', b'c'),
            Some(NameMatch::Fullwidth)
        );
        assert_eq!(
            match_name_char('\u{ff23}', b'c'),
            Some(NameMatch::Fullwidth)
        );
        assert_eq!(match_name_char('-', b'-'), Some(NameMatch::Exact));
        assert_eq!(
            match_name_char('\u{ff0d}', b'-'),
            Some(NameMatch::Fullwidth)
        );
        assert_eq!(match_name_char('d', b'c'), None);
        assert_eq!(match_name_char('\u{e9}', b'e'), None);
    }
}
