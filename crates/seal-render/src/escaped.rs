//! [`Escaped`]: text that has been escaped for display, as a type that says so.
//!
//! A reason, a rule or a command shown to a person or a model is escaped exactly once, where it
//! leaves the code that holds it as text. After that it travels as an [`Escaped`], and nothing
//! escapes it again: the only way to make one is to escape raw text (or to join values that are
//! already escaped), so a value of this type is always the escape-v1 inline form of some text,
//! and [`crate::decode`] gives that text back.

use std::fmt;

use crate::context::Context;
use crate::escape::{escape, escape_into, push_codeword};

/// Text in its escape-v1 form for the inline context: printable ASCII, every other character
/// written as a self-delimiting escape (`spec/escape-v1.md`).
///
/// Escaping is one codeword per character, so the concatenation of two escaped texts is the
/// escape of the concatenated texts: [`Escaped::push_raw`] and [`Escaped::push`] keep the type's
/// guarantee. There is no constructor from text that is claimed to be escaped already.
///
/// ```
/// use seal_render::{decode, Context, Escaped};
///
/// let mut reason = Escaped::new("rule `Bash(echo caf\u{e9}:*)` denies");
/// reason.push_raw(" \u{7}");
/// assert_eq!(reason.as_str(), "rule `Bash(echo caf\\u{e9}:*)` denies \\u{7}");
/// assert_eq!(decode(reason.as_str(), Context::Inline)?, "rule `Bash(echo caf\u{e9}:*)` denies \u{7}");
/// # Ok::<(), seal_render::DecodeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Escaped(String);

impl Escaped {
    /// The escape of `raw` (escape-v1, inline context).
    #[must_use]
    pub fn new(raw: &str) -> Escaped {
        Escaped(escape(raw, Context::Inline).into_owned())
    }

    /// The escape of `raw`, shortened when it is longer than `max` bytes: the longest run of
    /// whole codewords that fits in `max`, then ` [... N characters elided]`, where `N` is the
    /// number of escaped characters left out. A codeword is never cut, so the result still
    /// decodes (to a prefix of `raw` followed by the marker).
    #[must_use]
    pub fn within(raw: &str, max: usize) -> Escaped {
        let escaped = Escaped::new(raw);
        if escaped.0.len() <= max {
            return escaped;
        }
        let mut head = String::with_capacity(max);
        let mut codeword = String::new();
        for c in raw.chars() {
            codeword.clear();
            push_codeword(&mut codeword, c, Context::Inline);
            if head.len().saturating_add(codeword.len()) > max {
                break;
            }
            head.push_str(&codeword);
        }
        let elided = escaped.0.len().saturating_sub(head.len());
        head.push_str(&format!(" [... {elided} characters elided]"));
        Escaped(head)
    }

    /// Appends the escape of `raw`.
    pub fn push_raw(&mut self, raw: &str) {
        escape_into(&mut self.0, raw, Context::Inline);
    }

    /// Appends text that is already escaped.
    pub fn push(&mut self, escaped: &Escaped) {
        self.0.push_str(&escaped.0);
    }

    /// The escaped text: printable ASCII.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The escaped text, owned.
    #[must_use]
    pub fn into_string(self) -> String {
        self.0
    }

    /// True when the escaped text is empty (so was the raw text).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The length of the escaped text in bytes (one byte a character: it is ASCII).
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl fmt::Display for Escaped {
    /// The escaped text as it is: printing it escapes nothing again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Escaped {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Escaped {
    /// The escape of the text.
    fn from(raw: &str) -> Escaped {
        Escaped::new(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    #[test]
    fn escaping_twice_is_not_possible_through_the_type() {
        let once = Escaped::new("caf\u{e9} \\ \u{7}");
        assert_eq!(once.as_str(), "caf\\u{e9} \\\\ \\u{7}");
        let mut joined = Escaped::new("a ");
        joined.push(&once);
        assert_eq!(joined.as_str(), "a caf\\u{e9} \\\\ \\u{7}");
        assert_eq!(once.to_string(), once.as_str());
    }

    #[test]
    fn within_never_cuts_a_codeword() {
        let raw = "ab\u{e9}\u{e9}";
        // `ab\u{e9}` is 8 bytes; a budget of 9 keeps it and leaves the second `\u{e9}` out.
        let short = Escaped::within(raw, 9);
        assert_eq!(short.as_str(), "ab\\u{e9} [... 6 characters elided]");
        let head = short.as_str().split(" [...").next().unwrap_or_default();
        assert_eq!(
            decode(head, Context::Inline).ok().as_deref(),
            Some("ab\u{e9}")
        );
        assert_eq!(Escaped::within(raw, 14).as_str(), "ab\\u{e9}\\u{e9}");
        assert_eq!(
            Escaped::within(raw, 13).as_str(),
            "ab\\u{e9} [... 6 characters elided]"
        );
    }
}
