//! Scanner configuration: the element to look for, the harness rewrite, and the limits.

use std::borrow::Cow;
use std::fmt;

/// What the scanner looks for and how much work it accepts.
///
/// Built by [`ScanConfig::new`], which checks the element name against the frame-v1 grammar
/// (`[a-z][a-z0-9-]{0,63}`), so a config always names a valid element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanConfig {
    element: String,
    rewrite: Option<HarnessRewrite>,
    limits: ScanLimits,
}

impl ScanConfig {
    /// A config for `element` without harness rewrite and with default [`ScanLimits`].
    ///
    /// # Errors
    ///
    /// [`ElementError::InvalidElement`] when `element` is not `[a-z][a-z0-9-]{0,63}`.
    pub fn new(element: &str) -> Result<Self, ElementError> {
        if !is_element_name(element) {
            return Err(ElementError::InvalidElement {
                element: element.to_owned(),
            });
        }
        Ok(ScanConfig {
            element: element.to_owned(),
            rewrite: None,
            limits: ScanLimits::default(),
        })
    }

    /// The same config, scanning text that went through the harness closing-tag rewrite of this
    /// element (see [`HarnessRewrite`] and the pairing rules in spec/frame-v1.md).
    #[must_use]
    pub fn with_rewrite(mut self) -> Self {
        self.rewrite = Some(HarnessRewrite {
            element: self.element.clone(),
        });
        self
    }

    /// The same config with other limits.
    #[must_use]
    pub fn with_limits(mut self, limits: ScanLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The element name, as validated.
    #[must_use]
    pub fn element(&self) -> &str {
        &self.element
    }

    /// The harness rewrite the scanned text went through, if any.
    #[must_use]
    pub fn rewrite(&self) -> Option<&HarnessRewrite> {
        self.rewrite.as_ref()
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> &ScanLimits {
        &self.limits
    }
}

/// Caller-visible bounds on the scanner's work. Exceeding one is never silent: it is either a
/// [`ScanError`](super::ScanError) or a reported [`SuspectReason`](super::SuspectReason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Most findings (frames, suspect tags, stray closes) one scan reports; one more is
    /// [`ScanError::TooManyFindings`](super::ScanError::TooManyFindings). Default 1024.
    pub max_frames: usize,
    /// Most attributes kept for one opening tag; more are reported as
    /// [`SuspectReason::TooManyAttributes`](super::SuspectReason::TooManyAttributes). Default 32.
    pub max_attributes: usize,
    /// Most bytes of one tag, from its bracket to its closing bracket; a longer tag is reported
    /// as [`SuspectReason::HeaderTooLong`](super::SuspectReason::HeaderTooLong). Default 16384.
    pub max_header_bytes: usize,
    /// Most frames open at once; opening one more is
    /// [`ScanError::TooDeep`](super::ScanError::TooDeep). Default 32.
    pub max_depth: usize,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_frames: 1024,
            max_attributes: 32,
            max_header_bytes: 16 * 1024,
            max_depth: 32,
        }
    }
}

/// The closing-tag rewrite some harnesses apply to message bodies: `</name>` becomes `<\/name>`.
///
/// [`apply`](HarnessRewrite::apply) and [`undo`](HarnessRewrite::undo) are exact ASCII
/// substitutions of the element's closing tag. `undo(apply(x)) == x` holds only for texts `x`
/// that do not already contain `<\/name>`: the rewrite is **not injective**, since a body that
/// truly contained `<\/name>` and one that contained `</name>` give the same rewritten text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessRewrite {
    element: String,
}

impl HarnessRewrite {
    /// The rewrite of `element`'s closing tag.
    ///
    /// # Errors
    ///
    /// [`ElementError::InvalidElement`] when `element` is not a frame-v1 element name.
    pub fn closing_tag(element: &str) -> Result<Self, ElementError> {
        ScanConfig::new(element).map(|config| HarnessRewrite {
            element: config.element,
        })
    }

    /// The element whose closing tag is rewritten.
    #[must_use]
    pub fn element(&self) -> &str {
        &self.element
    }

    /// Replaces every `</name>` with `<\/name>`; borrows when there is none.
    #[must_use]
    pub fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        replace(text, &self.close(), &self.rewritten_close())
    }

    /// Replaces every `<\/name>` with `</name>`; borrows when there is none.
    #[must_use]
    pub fn undo<'a>(&self, text: &'a str) -> Cow<'a, str> {
        replace(text, &self.rewritten_close(), &self.close())
    }

    fn close(&self) -> String {
        format!("</{}>", self.element)
    }

    fn rewritten_close(&self) -> String {
        format!("<\\/{}>", self.element)
    }
}

/// Why an element name was refused: it is outside the frame element grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElementError {
    /// The element name is not `[a-z][a-z0-9-]{0,63}`.
    InvalidElement {
        /// The name given.
        element: String,
    },
}

impl fmt::Display for ElementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementError::InvalidElement { element } => write!(
                f,
                "element name `{}` is not `[a-z][a-z0-9-]{{0,63}}`",
                element.escape_debug()
            ),
        }
    }
}

impl std::error::Error for ElementError {}

/// Whether `name` is `[a-z][a-z0-9-]{0,63}`.
pub(crate) fn is_element_name(name: &str) -> bool {
    is_name(name, |b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
    })
}

/// Whether `name` is `[a-z][a-z0-9_-]{0,63}`.
pub(crate) fn is_attribute_name(name: &str) -> bool {
    is_name(name, continues_attribute_name)
}

/// Whether `byte` may follow the first letter of an attribute name: `[a-z0-9_-]`.
pub(crate) fn continues_attribute_name(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-' || byte == b'_'
}

fn is_name(name: &str, rest: impl Fn(u8) -> bool) -> bool {
    let bytes = name.as_bytes();
    match bytes.split_first() {
        Some((first, tail)) => {
            first.is_ascii_lowercase() && tail.len() <= 63 && tail.iter().all(|&b| rest(b))
        }
        None => false,
    }
}

fn replace<'a>(text: &'a str, from: &str, to: &str) -> Cow<'a, str> {
    if text.contains(from) {
        Cow::Owned(text.replace(from, to))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names() {
        assert!(ScanConfig::new("channel").is_ok());
        assert!(ScanConfig::new("a").is_ok());
        assert!(ScanConfig::new(&format!("a{}", "b".repeat(63))).is_ok());
        for bad in [
            "",
            "Channel",
            "1a",
            "a_b",
            "a b",
            "-a",
            &format!("a{}", "b".repeat(64)),
        ] {
            assert!(ScanConfig::new(bad).is_err(), "{bad:?}");
        }
        assert!(is_attribute_name("a_b-1"));
        assert!(!is_attribute_name("_a"));
    }

    #[test]
    fn rewrite_apply_and_undo() {
        let rewrite = HarnessRewrite::closing_tag("channel").unwrap();
        assert_eq!(rewrite.apply("a</channel>b"), "a<\\/channel>b");
        assert_eq!(rewrite.undo("a<\\/channel>b"), "a</channel>b");
        assert!(matches!(rewrite.apply("no tag"), Cow::Borrowed(_)));
        // Not injective: two different bodies, one rewritten text.
        assert_eq!(rewrite.apply("</channel>"), rewrite.apply("<\\/channel>"));
    }
}
