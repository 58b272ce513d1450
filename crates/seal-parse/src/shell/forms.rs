//! Normalized forms of a segment: views of its words with prefixes stripped and the program
//! path reduced to its basename.

use std::fmt;

/// One normalized form: a program and its arguments, borrowed from a
/// [`Segment`](super::Segment).
///
/// Every form is a suffix of the segment's words, the first of which may be replaced by its
/// basename; so forms cost no copy. `Display` joins the words with single spaces (fine for
/// prefix matching of rules; use [`Form::words`] or [`Segment::quoted`](super::Segment::quoted)
/// where word boundaries matter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Form<'a> {
    program: &'a str,
    args: &'a [String],
}

impl<'a> Form<'a> {
    /// The program word of this form.
    #[must_use]
    pub fn program(&self) -> &'a str {
        self.program
    }

    /// The words after the program.
    #[must_use]
    pub fn args(&self) -> &'a [String] {
        self.args
    }

    /// Program then arguments.
    pub fn words(&self) -> impl Iterator<Item = &'a str> + 'a {
        std::iter::once(self.program).chain(self.args.iter().map(String::as_str))
    }

    /// The number of words, program included (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.args.len() + 1
    }

    /// Always `false`: a form has a program.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether the form's words begin with exactly the words of `prefix`.
    #[must_use]
    pub fn starts_with(&self, prefix: &[&str]) -> bool {
        prefix.len() <= self.len() && self.words().zip(prefix).all(|(word, want)| word == *want)
    }

    /// The words as owned strings.
    #[must_use]
    pub fn to_words(&self) -> Vec<String> {
        self.words().map(str::to_owned).collect()
    }
}

impl fmt::Display for Form<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.program)?;
        for arg in self.args {
            f.write_str(" ")?;
            f.write_str(arg)?;
        }
        Ok(())
    }
}

/// All normalized forms of one segment (spec/shell-segments.md, "Normalized forms").
///
/// - [`canonical`](Self::canonical): the words as parsed;
/// - [`env_stripped`](Self::env_stripped): leading `NAME=value` assignments removed;
/// - [`basename`](Self::basename): the env-stripped form with its program reduced to the part
///   after the last `/` (`/usr/bin/rm` and `./rm` give `rm`);
/// - [`wrapper_stripped`](Self::wrapper_stripped): assignments and wrappers (`sudo`, `env`,
///   `timeout`, ... with their options) removed until none is left, program spelled as written;
/// - [`normalized`](Self::normalized): the wrapper-stripped form with its program basename.
///
/// [`all`](Self::all) yields each distinct form met on the way, canonical first and normalized
/// last: a deny rule must be matched against every one of them, an allow rule against the
/// canonical form only.
#[derive(Debug, Clone, Copy)]
pub struct NormalizedForms<'a> {
    words: &'a [String],
    set: &'a FormSet,
}

impl<'a> NormalizedForms<'a> {
    pub(super) fn new(words: &'a [String], set: &'a FormSet) -> Self {
        NormalizedForms { words, set }
    }

    /// The words as parsed.
    #[must_use]
    pub fn canonical(&self) -> Form<'a> {
        self.form(FormRef::CANONICAL)
    }

    /// The words without the leading shell assignments.
    #[must_use]
    pub fn env_stripped(&self) -> Form<'a> {
        self.form(self.set.env_stripped)
    }

    /// The env-stripped form with the program's basename.
    #[must_use]
    pub fn basename(&self) -> Form<'a> {
        self.form(self.set.basename)
    }

    /// The words after every assignment and wrapper, program as written.
    #[must_use]
    pub fn wrapper_stripped(&self) -> Form<'a> {
        self.form(self.set.wrapper_stripped)
    }

    /// The fully normalized form: wrapper-stripped, program basename.
    #[must_use]
    pub fn normalized(&self) -> Form<'a> {
        self.form(self.set.normalized)
    }

    /// Every distinct form, canonical first, normalized last.
    pub fn all(&self) -> impl Iterator<Item = Form<'a>> + 'a {
        let words = self.words;
        std::iter::once(FormRef::CANONICAL)
            .chain(self.set.after_canonical.iter().copied())
            .map(move |form| form_of(words, form))
    }

    fn form(&self, form: FormRef) -> Form<'a> {
        form_of(self.words, form)
    }
}

/// A form as a position: the words from `start`, the first one basename if `basename`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FormRef {
    pub start: usize,
    pub basename: bool,
}

impl FormRef {
    pub const CANONICAL: FormRef = FormRef {
        start: 0,
        basename: false,
    };
}

/// The forms of one segment, as positions into its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FormSet {
    pub env_stripped: FormRef,
    pub basename: FormRef,
    pub wrapper_stripped: FormRef,
    pub normalized: FormRef,
    /// The distinct forms after the canonical one, in the order met (empty, so without an
    /// allocation, for a segment with no assignment, path or wrapper to strip).
    pub after_canonical: Vec<FormRef>,
}

/// The part of `word` after its last `/`, or `word` itself when that part is empty.
pub(super) fn basename(word: &str) -> &str {
    match word.rsplit('/').next() {
        Some(base) if !base.is_empty() => base,
        _ => word,
    }
}

fn form_of(words: &[String], form: FormRef) -> Form<'_> {
    let tail = words.get(form.start..).unwrap_or_default();
    match tail.split_first() {
        Some((program, args)) => Form {
            program: if form.basename {
                basename(program)
            } else {
                program
            },
            args,
        },
        None => Form {
            program: "",
            args: &[],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basename_of_paths() {
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("./rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("/usr/bin/"), "/usr/bin/");
        assert_eq!(basename("/"), "/");
    }

    #[test]
    fn form_views() {
        let words: Vec<String> = ["X=1", "/bin/rm", "-rf", "t"].map(String::from).to_vec();
        let form = form_of(
            &words,
            FormRef {
                start: 1,
                basename: true,
            },
        );
        assert_eq!(form.program(), "rm");
        assert_eq!(form.len(), 3);
        assert_eq!(form.to_string(), "rm -rf t");
        assert!(form.starts_with(&["rm", "-rf"]));
        assert!(form.starts_with(&[]));
        assert!(!form.starts_with(&["rm", "-rf", "t", "u"]));
        assert!(!form.starts_with(&["/bin/rm"]));
        assert_eq!(
            form_of(&words, FormRef::CANONICAL).to_string(),
            "X=1 /bin/rm -rf t"
        );
    }
}
