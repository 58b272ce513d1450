//! Normalized forms of a segment: views of its words with prefixes stripped and the program
//! path reduced to its basename.

use std::fmt;

use super::buffer::BufferWords;

/// One normalized form: a program and its arguments, borrowed from a segment (an owned
/// [`Segment`](super::Segment) or a [`SegmentRef`](super::SegmentRef) into a
/// [`SegmentBuffer`](super::SegmentBuffer)).
///
/// Every form is a suffix of the segment's words, the first of which may be replaced by its
/// basename; so forms cost no copy. `Display` joins the words with single spaces (fine for
/// prefix matching of rules; use [`Form::words`] or [`Segment::quoted`](super::Segment::quoted)
/// where word boundaries matter).
#[derive(Clone, Copy)]
pub struct Form<'a> {
    program: &'a str,
    args: WordList<'a>,
}

impl<'a> Form<'a> {
    /// The program word of this form.
    #[must_use]
    pub fn program(&self) -> &'a str {
        self.program
    }

    /// The words after the program.
    #[must_use]
    pub fn args(&self) -> Words<'a> {
        Words::new(self.args)
    }

    /// Program then arguments.
    pub fn words(&self) -> impl Iterator<Item = &'a str> + Clone + 'a {
        std::iter::once(self.program).chain(self.args())
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

impl PartialEq for Form<'_> {
    fn eq(&self, other: &Form<'_>) -> bool {
        self.program == other.program && self.args().eq(other.args())
    }
}

impl Eq for Form<'_> {}

impl fmt::Debug for Form<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Form")
            .field("program", &self.program)
            .field("args", &self.args())
            .finish()
    }
}

impl fmt::Display for Form<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.program)?;
        for arg in self.args() {
            f.write_str(" ")?;
            f.write_str(arg)?;
        }
        Ok(())
    }
}

/// Words of a segment, a form or a launcher, in order, borrowed (no word is copied).
#[derive(Clone)]
pub struct Words<'a> {
    list: WordList<'a>,
    front: usize,
    back: usize,
}

impl<'a> Words<'a> {
    pub(super) fn new(list: WordList<'a>) -> Words<'a> {
        Words {
            list,
            front: 0,
            back: list.len(),
        }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.front >= self.back {
            return None;
        }
        let word = self.list.get(self.front);
        self.front += 1;
        word
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back.saturating_sub(self.front);
        (left, Some(left))
    }
}

impl DoubleEndedIterator for Words<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.list.get(self.back)
    }
}

impl ExactSizeIterator for Words<'_> {}

impl fmt::Debug for Words<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
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
    words: WordList<'a>,
    marks: FormMarks,
    after_canonical: &'a [FormRef],
}

impl<'a> NormalizedForms<'a> {
    pub(super) fn new(
        words: WordList<'a>,
        marks: FormMarks,
        after_canonical: &'a [FormRef],
    ) -> Self {
        NormalizedForms {
            words,
            marks,
            after_canonical,
        }
    }

    /// The words as parsed.
    #[must_use]
    pub fn canonical(&self) -> Form<'a> {
        self.form(FormRef::CANONICAL)
    }

    /// The words without the leading shell assignments.
    #[must_use]
    pub fn env_stripped(&self) -> Form<'a> {
        self.form(self.marks.env_stripped)
    }

    /// The env-stripped form with the program's basename.
    #[must_use]
    pub fn basename(&self) -> Form<'a> {
        self.form(self.marks.basename)
    }

    /// The words after every assignment and wrapper, program as written.
    #[must_use]
    pub fn wrapper_stripped(&self) -> Form<'a> {
        self.form(self.marks.wrapper_stripped)
    }

    /// The fully normalized form: wrapper-stripped, program basename.
    #[must_use]
    pub fn normalized(&self) -> Form<'a> {
        self.form(self.marks.normalized)
    }

    /// Every distinct form, canonical first, normalized last.
    pub fn all(&self) -> impl Iterator<Item = Form<'a>> + Clone + 'a {
        let words = self.words;
        std::iter::once(FormRef::CANONICAL)
            .chain(self.after_canonical.iter().copied())
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

/// The named forms of one segment, as positions into its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FormMarks {
    pub env_stripped: FormRef,
    pub basename: FormRef,
    pub wrapper_stripped: FormRef,
    pub normalized: FormRef,
}

/// The forms of one owned segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FormSet {
    pub marks: FormMarks,
    /// The distinct forms after the canonical one, in the order met (empty, so without an
    /// allocation, for a segment with no assignment, path or wrapper to strip).
    pub after_canonical: Vec<FormRef>,
}

/// Words held either as owned strings or in a segment buffer.
#[derive(Debug, Clone, Copy)]
pub(super) enum WordList<'a> {
    Owned(&'a [String]),
    Buffer(BufferWords<'a>),
}

impl<'a> WordList<'a> {
    pub fn len(&self) -> usize {
        match self {
            WordList::Owned(words) => words.len(),
            WordList::Buffer(words) => words.len(),
        }
    }

    pub fn get(&self, at: usize) -> Option<&'a str> {
        match self {
            WordList::Owned(words) => words.get(at).map(String::as_str),
            WordList::Buffer(words) => words.value(at),
        }
    }

    /// The words from `start` on.
    pub fn tail(&self, start: usize) -> WordList<'a> {
        match self {
            WordList::Owned(words) => WordList::Owned(words.get(start..).unwrap_or_default()),
            WordList::Buffer(words) => WordList::Buffer(words.tail(start)),
        }
    }
}

/// The part of `word` after its last `/`, or `word` itself when that part is empty.
pub(super) fn basename(word: &str) -> &str {
    match word.bytes().rposition(|byte| byte == b'/') {
        Some(slash) => match word.get(slash + 1..) {
            Some(base) if !base.is_empty() => base,
            _ => word,
        },
        None => word,
    }
}

fn form_of(words: WordList<'_>, form: FormRef) -> Form<'_> {
    match words.get(form.start) {
        Some(program) => Form {
            program: if form.basename {
                basename(program)
            } else {
                program
            },
            args: words.tail(form.start + 1),
        },
        None => Form {
            program: "",
            args: WordList::Owned(&[]),
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
        let words = WordList::Owned(&words);
        let form = form_of(
            words,
            FormRef {
                start: 1,
                basename: true,
            },
        );
        assert_eq!(form.program(), "rm");
        assert_eq!(form.len(), 3);
        assert_eq!(form.args().len(), 2);
        assert_eq!(form.args().rev().collect::<Vec<_>>(), ["t", "-rf"]);
        assert_eq!(form.to_string(), "rm -rf t");
        assert_eq!(
            format!("{form:?}"),
            r#"Form { program: "rm", args: ["-rf", "t"] }"#
        );
        assert!(form.starts_with(&["rm", "-rf"]));
        assert!(form.starts_with(&[]));
        assert!(!form.starts_with(&["rm", "-rf", "t", "u"]));
        assert!(!form.starts_with(&["/bin/rm"]));
        assert_eq!(
            form_of(words, FormRef::CANONICAL).to_string(),
            "X=1 /bin/rm -rf t"
        );
    }
}
