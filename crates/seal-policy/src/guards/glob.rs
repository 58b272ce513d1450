//! Glob matching of one path component, ASCII case ignored: `*` (any run of characters), `?`
//! (one character), `[...]` (one character of a set, `!` or `^` first to negate, `a-z`
//! ranges), `\x` (the character `x`). A `[` without its `]` is a literal `[`.
//!
//! Two readings: a guard's own pattern matches any name (`*.pub` matches `.x.pub`), while a
//! word the shell expands follows the shell's default (no `dotglob`): a name starting with `.`
//! is matched only by a pattern starting with a literal `.`.

/// One element of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Star,
    One,
    Set {
        negated: bool,
        items: Vec<(char, char)>,
    },
    Char(char),
}

/// Whether `text` is a glob (holds one of the shell's glob characters).
pub(crate) fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// Whether the glob `pattern` matches `name` (ASCII case ignored). With `shell`, a name
/// starting with `.` needs a pattern starting with a literal `.` (the shell's reading of a
/// word's glob).
pub(crate) fn matches(pattern: &str, name: &str, shell: bool) -> bool {
    // The literal ends first: most names fail there, before any glob is read.
    let (head, tail) = literal_ends(pattern);
    if !starts_with_ci(name, head) || !ends_with_ci(name, tail) {
        return false;
    }
    let tokens = tokens(pattern);
    if shell && name.starts_with('.') && tokens.first() != Some(&Token::Char('.')) {
        return false;
    }
    let text: Vec<char> = name.chars().collect();
    let mut p = 0usize;
    let mut t = 0usize;
    // Where to resume after the last `*`: the token after it and the next text position.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let step = match (tokens.get(p), text.get(t)) {
            (Some(Token::Star), _) => {
                star = Some((p + 1, t));
                p += 1;
                continue;
            }
            (Some(Token::One), Some(_)) => true,
            (Some(Token::Set { negated, items }), Some(&c)) => in_set(items, c) != *negated,
            (Some(Token::Char(want)), Some(&c)) => same(*want, c),
            _ => false,
        };
        if step {
            p += 1;
            t += 1;
        } else if let Some((after, from)) = star {
            p = after;
            t = from + 1;
            star = Some((after, from + 1));
        } else {
            return false;
        }
    }
    // `p` passes only tokens it read (a matched one, or the `*` `star` holds), so it never
    // passes the end.
    debug_assert!(p <= tokens.len(), "glob position past the pattern");
    tokens
        .get(p..)
        .unwrap_or_default()
        .iter()
        .all(|token| *token == Token::Star)
}

/// Whether some name may be matched by both globs (a necessary condition, so `true` when
/// unsure): their literal prefixes and suffixes must agree, and a word's glob starting with a
/// wildcard matches no name starting with `.` (the shell's reading).
pub(crate) fn may_meet(word: &str, pattern: &str) -> bool {
    let word_dot = word.starts_with('.');
    let pattern_dot = pattern.starts_with('.');
    let word_wild = word.starts_with(['*', '?', '[']);
    let pattern_wild = pattern.starts_with(['*', '?', '[']);
    if (pattern_dot && word_wild) || (word_dot && !pattern_dot && !pattern_wild) {
        return false;
    }
    let (word_head, word_tail) = literal_ends(word);
    let (pattern_head, pattern_tail) = literal_ends(pattern);
    let agree_head =
        starts_with_ci(word_head, pattern_head) || starts_with_ci(pattern_head, word_head);
    let agree_tail = ends_with_ci(word_tail, pattern_tail) || ends_with_ci(pattern_tail, word_tail);
    agree_head && agree_tail
}

/// Whether every name the word's glob `word` matches is matched by the exception glob
/// `exception` (a sufficient condition, so `false` when unsure): the same glob, or an exception
/// `*TEXT` and a word ending in the literal `TEXT`, or an exception `TEXT*` and a word starting
/// with the literal `TEXT`.
pub(crate) fn covered_by(word: &str, exception: &str) -> bool {
    if word.eq_ignore_ascii_case(exception) {
        return true;
    }
    let (head, tail) = literal_ends(word);
    if let Some(suffix) = exception.strip_prefix('*').filter(|rest| !is_special(rest)) {
        return ends_with_ci(tail, suffix);
    }
    if let Some(prefix) = exception.strip_suffix('*').filter(|rest| !is_special(rest)) {
        return starts_with_ci(head, prefix);
    }
    false
}

/// The literal text before the first special character and after the last one.
fn literal_ends(glob: &str) -> (&str, &str) {
    let special = |c: char| matches!(c, '*' | '?' | '[' | ']' | '\\');
    match (glob.split_once(special), glob.rsplit_once(special)) {
        (Some((head, _)), Some((_, tail))) => (head, tail),
        _ => (glob, glob),
    }
}

fn is_special(text: &str) -> bool {
    text.contains(['*', '?', '[', ']', '\\'])
}

fn same(a: char, b: char) -> bool {
    a.eq_ignore_ascii_case(&b)
}

fn starts_with_ci(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

fn ends_with_ci(text: &str, suffix: &str) -> bool {
    text.len()
        .checked_sub(suffix.len())
        .and_then(|at| text.get(at..))
        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
}

fn in_set(items: &[(char, char)], c: char) -> bool {
    let lower = c.to_ascii_lowercase();
    let upper = c.to_ascii_uppercase();
    items.iter().any(|&(from, to)| {
        [c, lower, upper]
            .iter()
            .any(|probe| (from..=to).contains(probe))
    })
}

fn tokens(pattern: &str) -> Vec<Token> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut at = 0usize;
    while let Some(&c) = chars.get(at) {
        match c {
            '*' => {
                // A run of stars is one star.
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
                at += 1;
            }
            '?' => {
                out.push(Token::One);
                at += 1;
            }
            '\\' => {
                // A `\` that ends the pattern stands for itself.
                out.push(Token::Char(chars.get(at + 1).copied().unwrap_or('\\')));
                at += 2;
            }
            '[' => match set(&chars, at + 1) {
                Some((token, next)) => {
                    out.push(token);
                    at = next;
                }
                None => {
                    out.push(Token::Char('['));
                    at += 1;
                }
            },
            other => {
                out.push(Token::Char(other));
                at += 1;
            }
        }
    }
    out
}

/// The set starting at `at` (after its `[`), and where the pattern goes on; `None` without a
/// closing `]`.
fn set(chars: &[char], mut at: usize) -> Option<(Token, usize)> {
    let negated = matches!(chars.get(at), Some('!' | '^'));
    if negated {
        at += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(at)?;
        if c == ']' && !first {
            return Some((Token::Set { negated, items }, at + 1));
        }
        first = false;
        match (chars.get(at + 1), chars.get(at + 2)) {
            (Some('-'), Some(&to)) if to != ']' => {
                items.push((c, to));
                at += 3;
            }
            _ => {
                items.push((c, c));
                at += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(matches("*.pub", "id_rsa.pub", false));
        assert!(matches("*.PUB", "id_rsa.pub", false));
        assert!(!matches("*.pub", "id_rsa", false));
        assert!(matches("known_hosts*", "known_hosts.old", false));
        assert!(matches(".env.*", ".env.local", false));
        assert!(!matches(".env.*", ".env", false));
        assert!(matches("id_[a-z]sa", "id_rsa", false));
        assert!(!matches("id_[!r]sa", "id_rsa", false));
        assert!(matches("a?c", "abc", false));
        assert!(matches("*", ".ssh", false));
        assert!(!matches("*", ".ssh", true));
        assert!(matches(".s*", ".ssh", true));
        assert!(matches("[.]x", ".x", false));
        assert!(matches("a[b", "a[b", false));
        assert!(matches("a\\*", "a*", false));
        assert!(!matches("a\\*", "ab", false));
        assert!(matches("*a*b*c*", "xxaxxbxxcxx", false));
        assert!(!matches("*a*b*c*d", "xxaxxbxxcxx", false));
    }

    #[test]
    fn meeting_and_covering() {
        assert!(!may_meet("*.md", ".env.*"));
        assert!(may_meet(".e*", ".env.*"));
        assert!(!may_meet("*.md", "*.pem"));
        assert!(may_meet("*", "*.pem"));
        assert!(covered_by("*.pub", "*.pub"));
        assert!(covered_by("id_*.pub", "*.pub"));
        assert!(!covered_by("id_*", "*.pub"));
        assert!(!covered_by("*", "*.pub"));
        assert!(covered_by("known_hosts*", "known_hosts*"));
        assert!(covered_by("known_hosts.*", "known_hosts*"));
        assert!(!covered_by("known*", "known_hosts*"));
    }
}
