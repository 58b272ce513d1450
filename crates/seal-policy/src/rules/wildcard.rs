//! Wildcard matching shared by command words, path components and host names.

/// Whether `text` matches `pattern`, where a unit for which `is_star` holds matches any run of
/// text units (possibly none) and every other unit must satisfy `eq` with exactly one text unit.
///
/// The classic greedy algorithm with one backtracking point: correct because every non-star
/// unit consumes exactly one text unit. At most `pattern.len() * text.len()` steps, no recursion.
pub(super) fn glob<P, T>(
    pattern: &[P],
    text: &[T],
    is_star: impl Fn(&P) -> bool,
    eq: impl Fn(&P, &T) -> bool,
) -> bool {
    let (mut p, mut t) = (0, 0);
    // Pattern index just after the last star met, and the text index it currently stands for.
    let mut star: Option<(usize, usize)> = None;
    loop {
        match pattern.get(p) {
            Some(unit) if is_star(unit) => {
                star = Some((p + 1, t));
                p += 1;
                continue;
            }
            Some(unit) => {
                if let Some(got) = text.get(t) {
                    if eq(unit, got) {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
            }
            None if t == text.len() => return true,
            None => {}
        }
        match star {
            Some((after, from)) if from < text.len() => {
                p = after;
                t = from + 1;
                star = Some((after, from + 1));
            }
            _ => return false,
        }
    }
}

/// Whether `text` matches `pattern` character by character, `*` matching any run of characters
/// and, when `question` is set, `?` matching exactly one character.
///
/// The algorithm of [`glob`] read directly over the two strings (positions are byte offsets on
/// character boundaries), so that matching allocates nothing.
pub(super) fn chars_match(pattern: &str, text: &str, question: bool) -> bool {
    if !(pattern.contains('*') || (question && pattern.contains('?'))) {
        return pattern == text;
    }
    let next = |s: &str, at: usize| s.get(at..).and_then(|rest| rest.chars().next());
    let (mut p, mut t) = (0, 0);
    // Pattern offset just after the last star met, and the text offset it currently stands for.
    let mut star: Option<(usize, usize)> = None;
    loop {
        match next(pattern, p) {
            Some('*') => {
                star = Some((p + 1, t));
                p += 1;
                continue;
            }
            Some(unit) => {
                if let Some(got) = next(text, t) {
                    if unit == got || (question && unit == '?') {
                        p += unit.len_utf8();
                        t += got.len_utf8();
                        continue;
                    }
                }
            }
            None if t == text.len() => return true,
            None => {}
        }
        match star {
            Some((after, from)) => match next(text, from) {
                Some(skipped) => {
                    let from = from + skipped.len_utf8();
                    p = after;
                    t = from;
                    star = Some((after, from));
                }
                None => return false,
            },
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_questions() {
        assert!(chars_match("*", "", false));
        assert!(chars_match("a*c", "abbbc", false));
        assert!(chars_match("a*c*", "acxc", false));
        assert!(!chars_match("a*c", "abcd", false));
        assert!(chars_match("a?c", "abc", true));
        assert!(!chars_match("a?c", "abc", false));
        assert!(chars_match("*.rs", "main.rs", true));
        assert!(!chars_match("*.rs", "main.rsx", true));
        assert!(chars_match("**x", "abx", false));
        assert!(chars_match("caf*", "caf\u{e9}s", false));
        assert!(chars_match("?\u{e9}*", "x\u{e9}", true));
        assert!(!chars_match("?", "\u{e9}\u{e9}", true));
    }

    #[test]
    fn agrees_with_the_unit_glob() {
        let units = [
            "",
            "a",
            "*",
            "?",
            "\u{e9}",
            "ab",
            "a*",
            "*a",
            "?*",
            "\u{e9}*\u{e9}",
            "**",
        ];
        for pattern in units
            .iter()
            .flat_map(|x| units.iter().map(move |y| format!("{x}{y}")))
        {
            for text in units
                .iter()
                .flat_map(|x| units.iter().map(move |y| format!("{x}{y}")))
            {
                for question in [false, true] {
                    let p: Vec<char> = pattern.chars().collect();
                    let t: Vec<char> = text.chars().collect();
                    let naive = glob(
                        &p,
                        &t,
                        |&c| c == '*',
                        |&a, &b| a == b || (question && a == '?'),
                    );
                    assert_eq!(
                        chars_match(&pattern, &text, question),
                        naive,
                        "{pattern:?} {text:?} {question}"
                    );
                }
            }
        }
    }
}
