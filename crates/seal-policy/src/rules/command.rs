//! Command specifiers: word patterns matched against one normalized form of one segment.

use seal_parse::shell::Form;

use super::wildcard::chars_match;

/// A command pattern, the specifier of a `Bash(...)` rule, read as Claude Code reads it.
///
/// The specifier is split into words at runs of spaces. The pattern is a prefix pattern when it
/// ends with `:*` (`git log:*`) or with a word that is exactly `*` (`git log *`): then the form
/// must be the pattern's words, or begin with them followed by further words (`git log:*`
/// matches `git log` and `git log -p`, not `git logx`). Otherwise the form must be exactly the
/// pattern. Any other `*` matches any run of characters, spaces between words included
/// (`npm run test*` matches `npm run test --watch`, `git * main` matches
/// `git push origin main`). A space of the pattern matches only the boundary between two words,
/// never a space inside a quoted word. `*` and `:*` alone match every command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    words: Vec<String>,
    prefix: bool,
    /// The words joined by word boundaries, as glob units; empty when no word holds a `*`
    /// (the words then compare one by one, as plain strings).
    glob: Vec<Unit>,
    /// The words without quote characters, joined by word boundaries, as glob units: what
    /// the command as written is compared with, its own quotes removed too.
    unquoted: Vec<Unit>,
    /// Whether the specifier holds a quote character.
    quoted: bool,
    /// For a specifier holding a shell operator character (`&|;<>()`): its characters without
    /// spaces and quotes (then a star for a prefix pattern), compared with the command's
    /// characters without spaces and quotes, so `cd /tmp && ls` also denies `cd /tmp&&ls`.
    compact: Vec<Unit>,
    /// Whether every character of the words is plain (see [`CommandPattern::is_plain`]).
    plain: bool,
}

/// One unit of a pattern or of a command read as a glob: a character, the boundary between
/// two words, or (pattern only) a star.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Char(char),
    Boundary,
    Star,
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
        let joined = |keep: &dyn Fn(char) -> bool| {
            let mut units = Vec::new();
            for (at, word) in words.iter().enumerate() {
                if at > 0 {
                    units.push(Unit::Boundary);
                }
                units.extend(word.chars().filter(|c| keep(*c)).map(unit));
            }
            units
        };
        let glob = if words.iter().any(|w| w.contains('*')) {
            joined(&|_| true)
        } else {
            Vec::new()
        };
        let unquoted = joined(&|c| !is_quote(c));
        let quoted = words.iter().any(|w| w.contains(is_quote));
        let mut compact = Vec::new();
        if words
            .iter()
            .any(|w| w.contains(['&', '|', ';', '<', '>', '(', ')']))
        {
            compact = words
                .iter()
                .flat_map(|w| w.chars())
                .filter(|c| !is_quote(*c))
                .map(unit)
                .collect();
            if prefix {
                compact.push(Unit::Star);
            }
        }
        let plain = words.iter().all(|w| w.bytes().all(is_plain));
        CommandPattern {
            words,
            prefix,
            glob,
            unquoted,
            quoted,
            compact,
            plain,
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

    /// Whether a `*` of the pattern (other than the prefix marker) spans characters, word
    /// boundaries included.
    #[must_use]
    pub fn has_wildcard(&self) -> bool {
        !self.glob.is_empty()
    }

    /// Whether every character of the pattern's words is plain (ASCII letters, digits and
    /// `-_./:=@%+,`): no wildcard, quote, operator, `$` or escape. Such a pattern matches the
    /// text of an analysable command (see [`CommandPattern::matches_text`]) only if it matches
    /// its first segment's canonical form: the text's first words are then plain too, so they
    /// are that segment's words, and an exact pattern's whole text is that one segment.
    #[must_use]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// Whether the pattern's words hold a quote character (`git commit -m "msg"`).
    #[must_use]
    pub fn is_quoted(&self) -> bool {
        self.quoted
    }

    /// Whether the words of a command as written (`raw`, split at spaces, quotes kept) are the
    /// pattern's words exactly (for a prefix pattern: begin with them), for an allow rule
    /// written with the quotes the command has (`Bash(git commit -m "msg")` allows
    /// `git commit -m "msg"`, not `git commit -m 'msg'`), as Claude Code 2.1.332 allows it.
    /// Patterns with a wildcard never match this way.
    #[must_use]
    pub fn matches_raw(&self, raw: &str) -> bool {
        if !self.glob.is_empty() {
            return false;
        }
        let mut words = raw.split(' ').filter(|w| !w.is_empty());
        for want in &self.words {
            if words.next() != Some(want.as_str()) {
                return false;
            }
        }
        self.prefix || words.next().is_none()
    }

    /// Whether the pattern matches every command.
    #[must_use]
    pub fn is_any(&self) -> bool {
        self.prefix && self.words.is_empty()
    }

    /// Whether `words` (a form's words, program first) match the pattern.
    pub fn matches_words<'a, I>(&self, words: I) -> bool
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        let words = words.into_iter();
        if !self.glob.is_empty() {
            let text = Joined {
                words,
                current: "".chars(),
                started: false,
                skip_quotes: false,
            };
            return glob_units(&self.glob, text.clone(), false)
                || (self.prefix && glob_units(&self.glob, text, true));
        }
        let mut words = words;
        for want in &self.words {
            match words.next() {
                Some(word) if exact(want, word) => {}
                _ => return false,
            }
        }
        self.prefix || words.next().is_none()
    }

    /// Whether the form matches the pattern: [`CommandPattern::matches_words`] on its words.
    #[must_use]
    pub fn matches(&self, form: &Form<'_>) -> bool {
        self.matches_words(form.words())
    }

    /// Whether the command as written matches the pattern, read as Claude Code reads a literal
    /// specifier (`git commit -m "msg"`, `echo $HOME`, `cd /tmp && ls`), which deny and ask
    /// rules also match: the text split at runs of spaces, operators kept as characters, and
    /// quote characters dropped on both sides (so `Bash(echo $HOME)` also matches
    /// `echo "$HOME"`, as Claude Code denied it); for a specifier with an operator character,
    /// also the text without any spaces (`cd /tmp&&ls`).
    #[must_use]
    pub fn matches_text(&self, command: &str) -> bool {
        let words = command.split(' ').filter(|w| !w.is_empty());
        if self.glob.is_empty() && !self.quoted && !command.contains(is_quote) {
            if self.matches_words(words) {
                return true;
            }
        } else {
            let text = Joined {
                words,
                current: "".chars(),
                started: false,
                skip_quotes: true,
            };
            if glob_units(&self.unquoted, text.clone(), false)
                || (self.prefix && glob_units(&self.unquoted, text, true))
            {
                return true;
            }
        }
        !self.compact.is_empty()
            && glob_units(
                &self.compact,
                command
                    .chars()
                    .filter(|c| !c.is_whitespace() && !is_quote(*c))
                    .map(Unit::Char),
                false,
            )
    }

    /// Whether every command this pattern matches is also matched by `wider` (a sufficient,
    /// not necessary, check: word by word, a wildcard-free word of `self` matched by `wider`'s
    /// word read within that one word, or identical words).
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

fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b)
}

fn is_quote(c: char) -> bool {
    c == '"' || c == '\''
}

fn unit(c: char) -> Unit {
    match c {
        '*' => Unit::Star,
        c => Unit::Char(c),
    }
}

/// Words read as glob units: each word's characters (without quote characters when
/// `skip_quotes`), a [`Unit::Boundary`] between two words.
#[derive(Clone)]
struct Joined<'a, I> {
    words: I,
    current: std::str::Chars<'a>,
    started: bool,
    skip_quotes: bool,
}

impl<'a, I: Iterator<Item = &'a str>> Iterator for Joined<'a, I> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        loop {
            if let Some(c) = self.current.next() {
                if self.skip_quotes && is_quote(c) {
                    continue;
                }
                return Some(Unit::Char(c));
            }
            let word = self.words.next()?;
            self.current = word.chars();
            if self.started {
                return Some(Unit::Boundary);
            }
            self.started = true;
        }
    }
}

/// Whether `text` matches `pattern` (stars span any units); with `then_more`, whether it
/// matches `pattern`, a boundary, then anything. The greedy algorithm of
/// [`glob`](super::wildcard::glob) over a cloneable iterator, so nothing is allocated.
fn glob_units<I: Iterator<Item = Unit> + Clone>(
    pattern: &[Unit],
    text: I,
    then_more: bool,
) -> bool {
    let mut p = 0;
    let mut t = text;
    let mut star: Option<(usize, I)> = None;
    loop {
        match pattern.get(p) {
            Some(Unit::Star) => {
                star = Some((p + 1, t.clone()));
                p += 1;
                continue;
            }
            Some(unit) => {
                let mut ahead = t.clone();
                if ahead.next() == Some(*unit) {
                    p += 1;
                    t = ahead;
                    continue;
                }
            }
            None => {
                let mut ahead = t.clone();
                match ahead.next() {
                    None if !then_more => return true,
                    // `pattern` then a boundary then anything: the rest is free.
                    Some(Unit::Boundary) if then_more => return true,
                    _ => {}
                }
            }
        }
        match star.as_mut() {
            Some((after, from)) => {
                if from.next().is_none() {
                    return false;
                }
                p = *after;
                t = from.clone();
            }
            None => return false,
        }
    }
}

/// Whether one pattern word equals one word (lengths and first bytes compared before the
/// bytes).
fn exact(want: &str, word: &str) -> bool {
    want.len() == word.len() && want.as_bytes().first() == word.as_bytes().first() && want == word
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
    fn stars_span_words_as_in_claude_code() {
        assert!(m("npm run test*", "npm run test --watch"));
        assert!(m("git * main", "git push origin main"));
        assert!(!m("git * main", "git main"));
        assert!(!m("git * main", "git push origin mainx"));
        assert!(m("git push * --force", "git push origin main --force"));
        assert!(m("ls*", "ls -la"));
        assert!(m("ls*", "lsof"));
        assert!(!m("ls *", "lsof"));
        assert!(m("ls *", "ls"));
        assert!(m("git push --force*", "git push --force origin main"));
        assert!(m("git push --force*", "git push --force-with-lease"));
        assert!(m("cargo * --release", "cargo build x --release"));
        assert!(m("g*t log:*", "git log -p"));
        assert!(!m("g*t log:*", "git logx"));
        // A pattern space is a word boundary, never a space inside a word.
        let p = CommandPattern::parse("echo a*b");
        assert!(p.matches_words(["echo", "a", "b"]));
        assert!(p.matches_words(["echo", "a b"]));
        assert!(!CommandPattern::parse("echo a b").matches_words(["echo", "a b"]));
        assert!(!CommandPattern::parse("echo a *b").matches_words(["echo", "a b"]));
    }

    /// The shortcut `is_plain` allows: on analysable commands, a plain pattern matches the
    /// text only where it matches the first segment's canonical form.
    #[test]
    fn plain_patterns_match_the_text_only_where_the_first_segment_matches() {
        let limits = seal_parse::shell::ShellLimits::default();
        let mut buffer = seal_parse::shell::SegmentBuffer::default();
        let commands = [
            "git log",
            "git log -p",
            "git  log",
            "git 'log'",
            "X=1 git log",
            "git log; rm x",
            "git log && ls",
            "git lo\\g",
            "git log|x",
            "git log #c",
            "git logx",
            "git",
            "rm -rf t",
            "a=b",
            "git log\tx",
            "git log\nrm",
        ];
        let patterns = [
            "git log",
            "git log:*",
            "git",
            "git:*",
            "X=1 git:*",
            "rm -rf t",
            "a=b",
        ];
        let mut checked = 0;
        for command in commands {
            let Ok(segments) = seal_parse::shell::segment_into(command, &limits, &mut buffer)
            else {
                continue;
            };
            let first = segments.iter().next().unwrap().forms().canonical();
            for pattern in patterns {
                let p = CommandPattern::parse(pattern);
                assert!(p.is_plain());
                if p.matches_text(command) {
                    assert!(p.matches(&first), "{pattern} / {command}");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 5);
        assert!(!CommandPattern::parse("echo $HOME").is_plain());
        assert!(!CommandPattern::parse("ls*").is_plain());
    }

    #[test]
    fn text_matching_keeps_quotes_and_operators() {
        let p = |s: &str| CommandPattern::parse(s);
        assert!(p("git commit -m \"msg\"").matches_text("git commit -m \"msg\""));
        assert!(p("echo $HOME").matches_text("  echo  $HOME "));
        assert!(p("cd /tmp && ls").matches_text("cd /tmp && ls"));
        assert!(!p("cd /tmp && ls").matches_text("cd /tmp && ls -la"));
        assert!(p("cd /tmp && ls:*").matches_text("cd /tmp && ls -la"));
        assert!(p("echo $HOME").matches_text("echo \"$HOME\""));
        assert!(p("git commit -m \"msg\"").matches_text("git commit -m msg"));
        assert!(p("cd /tmp && ls").matches_text("cd /tmp&&ls"));
        assert!(!p("cd /tmp && ls").matches_text("cd /tmp&&lsx"));
        assert!(!p("git log:*").matches_text("git logx"));
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
