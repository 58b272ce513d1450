//! Element and attribute names of the frame-v1 grammar.

use crate::render_error::RenderError;

/// Longest element or attribute name, in bytes (one first letter and up to 63 more characters).
pub const MAX_NAME_LEN: usize = 64;

/// An element name that matches `[a-z][a-z0-9-]{0,63}`.
///
/// Holding one means the name can be written into a tag as is: it is lowercase ASCII, at most
/// [`MAX_NAME_LEN`] bytes, and contains nothing a tag scanner could misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ElementName<'a>(&'a str);

/// An attribute name that matches `[a-z][a-z0-9_-]{0,63}`.
///
/// Holding one means the name can be written into a tag as is (see [`ElementName`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttributeName<'a>(&'a str);

impl<'a> ElementName<'a> {
    /// Checks `name` against `[a-z][a-z0-9-]{0,63}`.
    ///
    /// # Errors
    /// [`RenderError::InvalidElementName`] for any other text.
    pub fn new(name: &'a str) -> Result<Self, RenderError> {
        if is_name(name, false) {
            Ok(ElementName(name))
        } else {
            Err(RenderError::InvalidElementName {
                name: name.to_owned(),
            })
        }
    }

    /// The name itself.
    #[must_use]
    pub fn as_str(&self) -> &'a str {
        self.0
    }
}

impl<'a> AttributeName<'a> {
    /// Checks `name` against `[a-z][a-z0-9_-]{0,63}`.
    ///
    /// # Errors
    /// [`RenderError::InvalidAttributeName`] for any other text.
    pub fn new(name: &'a str) -> Result<Self, RenderError> {
        if is_name(name, true) {
            Ok(AttributeName(name))
        } else {
            Err(RenderError::InvalidAttributeName {
                name: name.to_owned(),
            })
        }
    }

    /// The name itself.
    #[must_use]
    pub fn as_str(&self) -> &'a str {
        self.0
    }
}

fn is_name(name: &str, underscore: bool) -> bool {
    let bytes = name.as_bytes();
    let Some((first, rest)) = bytes.split_first() else {
        return false;
    };
    bytes.len() <= MAX_NAME_LEN
        && first.is_ascii_lowercase()
        && rest.iter().all(|&b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || (underscore && b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names() {
        for ok in ["a", "channel", "seal-alarm", "h1", &"a".repeat(64)] {
            assert!(ElementName::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "A",
            "1a",
            "-a",
            "a_b",
            "a b",
            "a>",
            "cha\u{200b}nnel",
            "Channel",
            &"a".repeat(65),
        ] {
            assert!(ElementName::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn attribute_names() {
        for ok in ["a", "sig", "key_id", "x-y", "a1"] {
            assert!(AttributeName::new(ok).is_ok(), "{ok}");
        }
        for bad in ["", "_a", "A", "a=b", "a\"", "\u{ff41}", &"a".repeat(65)] {
            assert!(AttributeName::new(bad).is_err(), "{bad}");
        }
    }
}
