//! Command specifiers: word patterns matched against one normalized form of one segment.

use seal_parse::shell::Form;

use super::wildcard::chars_match;

/// A command pattern, the specifier of a `Bash(...)` rule.
///
/// The specifier is split into words at runs of spaces. Each word matches one word of a form:
/// literally, except that `*` inside a word matches any run of characters of that one word
/// (never a space between words). The pattern is a prefix pattern when it ends with `:*`
/// (`git log:*`) or with a word that is exactly `*` (`git log *`): then the form must begin with
/// the pattern's words and may have any further words, none included. Otherwise the form must
/// have exactly the pattern's words. `*` and `:*` alone match every command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    words: Vec<String>,
    /// For each word, whether it holds a `*` (the others compare as plain strings).
    wildcards: Vec<bool>,
    prefix: bool,
}

impl CommandPattern {
    /// Reads a specifier. Never fails: every text is some pattern; the lint reports patterns
    /// that cannot match a segment.
    #[must_use]
    pub fn parse(specifier: &str) -> CommandPattern {
        let (body, mut prefix) = match specifier.strip_suffix(":*") {
            Some(body) => (body, true),
            None => (specifier, false),
        };
        let mut words: Vec<String> = body
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        if !prefix && words.last().is_some_and(|w| w == "*") {
            words.pop();
            prefix = true;
        }
        let wildcards = words.iter().map(|w| w.contains('*')).collect();
        CommandPattern {
            words,
            wildcards,
            prefix,
        }
    }

    /// The pattern's words (without the trailing `:*` or `*`).
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Whether further words are allowed after the pattern's words.
    #[must_use]
    pub fn is_prefix(&self) -> bool {
        self.prefix
    }

    /// Whether the pattern matches every command.
    #[must_use]
    pub fn is_any(&self) -> bool {
        self.prefix && self.words.is_empty()
    }

    /// Whether `words` (a form's words, program first) match the pattern.
    pub fn matches_words<'a>(&self, words: impl IntoIterator<Item = &'a str>) -> bool {
        let mut words = words.into_iter();
        for (want, &wildcard) in self.words.iter().zip(&self.wildcards) {
            match words.next() {
                Some(word) if word_matches(want, wildcard, word) => {}
                _ => return false,
            }
        }
        self.prefix || words.next().is_none()
    }

    /// Whether the form matches the pattern: [`CommandPattern::matches_words`] on its words,
    /// which compares the program first and reads an argument only while the words before it
    /// matched.
    #[must_use]
    pub fn matches(&self, form: &Form<'_>) -> bool {
        self.matches_words(form.words())
    }

    /// Whether every command this pattern matches is also matched by `wider` (a sufficient,
    /// not necessary, check: word by word, a wildcard-free word of `self` matched by `wider`'s
    /// word, or identical words).
    #[must_use]
    pub fn covered_by(&self, wider: &CommandPattern) -> bool {
        if wider.words.len() > self.words.len() || (self.prefix && !wider.prefix) {
            return false;
        }
        if !wider.prefix && wider.words.len() != self.words.len() {
            return false;
        }
        self.words.iter().zip(&wider.words).all(|(mine, theirs)| {
            mine == theirs || (!mine.contains('*') && chars_match(theirs, mine, false))
        })
    }

    /// A command this pattern matches, made by replacing each `*` with `x` (for example
    /// commands in lint findings).
    #[must_use]
    pub fn example(&self) -> String {
        let mut out: Vec<String> = self.words.iter().map(|w| w.replace('*', "x")).collect();
        if out.is_empty() {
            out.push("true".to_owned());
        }
        out.join(" ")
    }
}

/// Whether one pattern word matches one word: with `*` as a wildcard when `wildcard`, else
/// exactly (lengths and first bytes compared before the bytes).
fn word_matches(want: &str, wildcard: bool, word: &str) -> bool {
    if wildcard {
        chars_match(want, word, false)
    } else {
        want.len() == word.len()
            && want.as_bytes().first() == word.as_bytes().first()
            && want == word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, command: &str) -> bool {
        CommandPattern::parse(pattern).matches_words(command.split(' '))
    }

    #[test]
    fn prefix_and_exact() {
        assert!(m("git log:*", "git log"));
        assert!(m("git log:*", "git log --oneline"));
        assert!(!m("git log:*", "git logx"));
        assert!(m("git status", "git status"));
        assert!(!m("git status", "git status --short"));
        assert!(m("git log *", "git log -p"));
        assert!(m("npm run test*:*", "npm run test:unit x"));
        assert!(!m("npm run test*:*", "npm run build"));
        assert!(m("*", "anything at all"));
        assert!(m(":*", "rm"));
    }

    #[test]
    fn coverage() {
        let p = CommandPattern::parse;
        assert!(p("git log:*").covered_by(&p("git:*")));
        assert!(p("git log").covered_by(&p("git:*")));
        assert!(!p("git:*").covered_by(&p("git log:*")));
        assert!(p("rm -rf t").covered_by(&p("rm *")));
        assert!(!p("git *:*").covered_by(&p("git log:*")));
        // Same number of words: a prefix pattern covers the exact one, and a pattern covers
        // itself, wildcards included.
        assert!(p("git log").covered_by(&p("git log:*")));
        assert!(p("git log").covered_by(&p("git log")));
        assert!(p("git l*").covered_by(&p("git l*")));
        assert!(p("git l* x").covered_by(&p("git l* *")));
        // An exact pattern covers only patterns of its own length, and never a prefix one.
        assert!(!p("git log x").covered_by(&p("git log")));
        assert!(!p("git").covered_by(&p("git log")));
        assert!(!p("git log:*").covered_by(&p("git log")));
        // A plain word is covered by a wildcard word that matches it; a wildcard word only by
        // the same word.
        assert!(p("git log").covered_by(&p("git l*")));
        assert!(!p("git log").covered_by(&p("git x*")));
        assert!(!p("git l*").covered_by(&p("git lo*")));
        assert!(!p("git lx*").covered_by(&p("git l*")));
    }

    #[test]
    fn prefix_patterns_are_the_ones_ending_in_a_star_word_or_colon_star() {
        let cases = [
            ("git log:*", true),
            ("git log *", true),
            ("*", true),
            (":*", true),
            ("git log", false),
            ("git l*", false),
            ("git *x", false),
            ("", false),
        ];
        for (pattern, prefix) in cases {
            let parsed = CommandPattern::parse(pattern);
            assert_eq!(parsed.is_prefix(), prefix, "{pattern}");
            assert_eq!(
                parsed.is_any(),
                prefix && parsed.words().is_empty(),
                "{pattern}"
            );
        }
    }

    /// A form matches exactly when its words do, whatever word differs.
    #[test]
    fn forms_match_as_their_words_do() {
        let mut buffer = seal_parse::shell::SegmentBuffer::default();
        for command in ["git log -p", "gti log -p", "git log", "git", "rm -rf /"] {
            let limits = seal_parse::shell::ShellLimits::default();
            let segments = seal_parse::shell::segment_into(command, &limits, &mut buffer).unwrap();
            let segment = segments.iter().next().unwrap();
            let form = segment.forms().canonical();
            for pattern in [
                "git log:*",
                "git log *",
                "git log -p",
                "g*t log:*",
                "rm *",
                "*",
            ] {
                let parsed = CommandPattern::parse(pattern);
                assert_eq!(
                    parsed.matches(&form),
                    parsed.matches_words(command.split(' ')),
                    "{pattern} / {command}"
                );
            }
        }
    }
}
