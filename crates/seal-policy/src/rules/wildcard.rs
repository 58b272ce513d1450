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
pub(super) fn chars_match(pattern: &str, text: &str, question: bool) -> bool {
    if !(pattern.contains('*') || (question && pattern.contains('?'))) {
        return pattern == text;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    glob(
        &pattern,
        &text,
        |&c| c == '*',
        |&p, &t| p == t || (question && p == '?'),
    )
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
    }
}
