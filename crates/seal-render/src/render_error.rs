//! Why a frame, alarm or tag could not be rendered.

use std::fmt;

use crate::context::Context;
use crate::escape::escape;

/// A rejection by the tag, frame and alarm renderers.
///
/// Text escaping never fails; only the structure around it (names, attribute order, lines) can.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RenderError {
    /// The element name is not `[a-z][a-z0-9-]{0,63}`.
    InvalidElementName {
        /// The name given.
        name: String,
    },
    /// The attribute name is not `[a-z][a-z0-9_-]{0,63}`.
    InvalidAttributeName {
        /// The name given.
        name: String,
    },
    /// The same attribute name appears twice.
    DuplicateAttribute {
        /// The repeated name.
        name: String,
    },
    /// An attribute named `sig` is present but not last.
    SignatureNotLast,
    /// An alarm line contains LF; lines are separated by the renderer, so a line may not.
    LineFeedInLine {
        /// Index of the line in the list given.
        index: usize,
    },
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // User input is shown escaped, so an error message is itself ASCII and cannot lie.
        match self {
            RenderError::InvalidElementName { name } => write!(
                f,
                "element name `{}` does not match [a-z][a-z0-9-]{{0,63}}",
                escape(name, Context::Inline)
            ),
            RenderError::InvalidAttributeName { name } => write!(
                f,
                "attribute name `{}` does not match [a-z][a-z0-9_-]{{0,63}}",
                escape(name, Context::Inline)
            ),
            RenderError::DuplicateAttribute { name } => {
                write!(f, "duplicate attribute `{}`", escape(name, Context::Inline))
            }
            RenderError::SignatureNotLast => f.write_str("attribute `sig` must be last"),
            RenderError::LineFeedInLine { index } => {
                write!(f, "line {index} contains a line feed")
            }
        }
    }
}

impl std::error::Error for RenderError {}
