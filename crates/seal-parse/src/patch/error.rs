//! Why a patch could not be read.

use std::fmt;

#[cfg(doc)]
use super::PatchLimits;
use super::{BEGIN_PATCH, END_OF_FILE, END_PATCH};

/// Why a patch could not be read. Every case names the 1-based line of the patch text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatchError {
    /// The patch is longer than [`PatchLimits::max_bytes`].
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// More paths than [`PatchLimits::max_files`].
    TooManyFiles {
        /// The header past the limit.
        line: usize,
        /// The limit.
        max: usize,
    },
    /// A path longer than [`PatchLimits::max_path_bytes`].
    PathTooLong {
        /// The header.
        line: usize,
        /// The path's length.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// The first line that is not blank is not `*** Begin Patch` (or there is none).
    MissingBegin {
        /// The line.
        line: usize,
    },
    /// The last line that is not blank is not `*** End Patch`.
    MissingEnd {
        /// The line.
        line: usize,
    },
    /// A second `*** Begin Patch`.
    SecondBegin {
        /// The line.
        line: usize,
    },
    /// `*** End Patch` before the last line: text follows it.
    TextAfterEnd {
        /// The line of the early `*** End Patch`.
        line: usize,
    },
    /// `*** Move to:` that does not directly follow `*** Update File:`.
    MoveWithoutUpdate {
        /// The line.
        line: usize,
    },
    /// `*** End of File` that does not end a hunk line run.
    EndOfFileOutsideHunk {
        /// The line.
        line: usize,
    },
    /// A line starting with `***` that is none of the known markers where it stands.
    UnknownMarker {
        /// The line.
        line: usize,
    },
    /// A line where a file header was expected (after `*** Begin Patch`, after the `+` lines of
    /// an added file, after a deleted file): blank, indented, or anything else.
    LineOutsideHunk {
        /// The line.
        line: usize,
    },
    /// `*** Update File:` with no hunk.
    EmptyUpdate {
        /// The header.
        line: usize,
    },
    /// A hunk (`@@`) with no line, or `*** End of File` right after `@@`.
    EmptyHunk {
        /// The line.
        line: usize,
    },
    /// A hunk that does not start with `@@`, or a first hunk line that does not start with
    /// ` `, `+` or `-`.
    BadHunkLine {
        /// The line.
        line: usize,
    },
    /// A header with nothing after the marker.
    EmptyPath {
        /// The header.
        line: usize,
    },
    /// A path that is not UTF-8.
    PathNotUtf8 {
        /// The header.
        line: usize,
    },
    /// A path holding a control character (NUL, C0, DEL, C1 or a lone CR).
    PathControl {
        /// The header.
        line: usize,
    },
    /// A path beginning or ending with whitespace (Codex trims some of it and not the rest, so
    /// seal cannot know which file is meant).
    PathPadded {
        /// The header.
        line: usize,
    },
}

impl PatchError {
    /// The 1-based line the error is about (`None` for [`PatchError::TooLarge`]).
    pub fn line(&self) -> Option<usize> {
        match *self {
            PatchError::TooLarge { .. } => None,
            PatchError::TooManyFiles { line, .. }
            | PatchError::PathTooLong { line, .. }
            | PatchError::MissingBegin { line }
            | PatchError::MissingEnd { line }
            | PatchError::SecondBegin { line }
            | PatchError::TextAfterEnd { line }
            | PatchError::MoveWithoutUpdate { line }
            | PatchError::EndOfFileOutsideHunk { line }
            | PatchError::UnknownMarker { line }
            | PatchError::LineOutsideHunk { line }
            | PatchError::EmptyUpdate { line }
            | PatchError::EmptyHunk { line }
            | PatchError::BadHunkLine { line }
            | PatchError::EmptyPath { line }
            | PatchError::PathNotUtf8 { line }
            | PatchError::PathControl { line }
            | PatchError::PathPadded { line } => Some(line),
        }
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PatchError::TooLarge { bytes, max } => {
                write!(f, "patch of {bytes} bytes is over the limit of {max} bytes")
            }
            PatchError::TooManyFiles { line, max } => {
                write!(f, "line {line}: patch touches more than {max} paths")
            }
            PatchError::PathTooLong { line, bytes, max } => write!(
                f,
                "line {line}: path of {bytes} bytes is over the limit of {max} bytes"
            ),
            PatchError::MissingBegin { line } => {
                write!(f, "line {line}: the patch does not start with `{BEGIN_PATCH}`")
            }
            PatchError::MissingEnd { line } => {
                write!(f, "line {line}: the patch does not end with `{END_PATCH}`")
            }
            PatchError::SecondBegin { line } => write!(f, "line {line}: a second `{BEGIN_PATCH}`"),
            PatchError::TextAfterEnd { line } => {
                write!(f, "line {line}: text follows `{END_PATCH}`")
            }
            PatchError::MoveWithoutUpdate { line } => write!(
                f,
                "line {line}: `*** Move to:` does not directly follow `*** Update File:`"
            ),
            PatchError::EndOfFileOutsideHunk { line } => {
                write!(f, "line {line}: `{END_OF_FILE}` outside a hunk")
            }
            PatchError::UnknownMarker { line } => {
                write!(f, "line {line}: unknown `***` line")
            }
            PatchError::LineOutsideHunk { line } => write!(
                f,
                "line {line}: expected a file header (`*** Add File:`, `*** Update File:`, `*** Delete File:`)"
            ),
            PatchError::EmptyUpdate { line } => {
                write!(f, "line {line}: `*** Update File:` without a hunk")
            }
            PatchError::EmptyHunk { line } => write!(f, "line {line}: empty hunk"),
            PatchError::BadHunkLine { line } => write!(
                f,
                "line {line}: expected `@@` or a hunk line starting with ` `, `+` or `-`"
            ),
            PatchError::EmptyPath { line } => write!(f, "line {line}: empty path"),
            PatchError::PathNotUtf8 { line } => write!(f, "line {line}: path is not UTF-8"),
            PatchError::PathControl { line } => {
                write!(f, "line {line}: path holds a control character")
            }
            PatchError::PathPadded { line } => {
                write!(f, "line {line}: path begins or ends with whitespace")
            }
        }
    }
}

impl std::error::Error for PatchError {}
