//! One fixed shell quoting of a word.

use std::borrow::Cow;

/// `word` quoted for a POSIX shell so that it reads back as exactly `word`, one word, with no
/// expansion: unchanged when it is non-empty and made only of `A-Z a-z 0-9 _ . / : @ % + , -`,
/// otherwise in single quotes with each `'` written `'\''`.
///
/// ```
/// use seal_parse::shell::quote_word;
///
/// assert_eq!(quote_word("--oneline"), "--oneline");
/// assert_eq!(quote_word("it's $HOME"), "'it'\\''s $HOME'");
/// assert_eq!(quote_word(""), "''");
/// ```
#[must_use]
pub fn quote_word(word: &str) -> Cow<'_, str> {
    if !word.is_empty() && word.bytes().all(is_safe) {
        return Cow::Borrowed(word);
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    Cow::Owned(out)
}

fn is_safe(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'_' | b'.' | b'/' | b':' | b'@' | b'%' | b'+' | b',' | b'-'
        )
}
