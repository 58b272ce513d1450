//! The file headers of a Codex `apply_patch` patch: every path the patch touches, with what it
//! does to it, in order (spec/apply-patch.md).
//!
//! The reader is strict where Codex is lenient: whatever it does not understand is an error
//! naming the line, never a guess. A patch that Codex reads one way and this module another is
//! a bypass of the rules that decide the paths, so this module accepts only a subset of what
//! Codex accepts, and on that subset finds exactly the headers Codex finds. Hunk contents are
//! checked for shape only (which lines belong to a hunk), never read further.
//!
//! ```
//! use seal_parse::patch::{Operation, Patch, PatchLimits};
//!
//! let text = "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** End Patch\n";
//! let patch = Patch::parse(text.as_bytes(), &PatchLimits::default()).unwrap();
//! let touched: Vec<_> = patch.paths().iter().map(|p| (p.operation, p.path)).collect();
//! assert_eq!(
//!     touched,
//!     [(Operation::MoveSource, "src/a.rs"), (Operation::MoveDestination, "src/b.rs")]
//! );
//! ```

mod error;
mod lines;
mod reader;

use std::fmt;

use reader::Reader;

pub use error::PatchError;

/// The first line of every patch.
pub const BEGIN_PATCH: &str = "*** Begin Patch";
/// The last line of every patch.
pub const END_PATCH: &str = "*** End Patch";
/// A file created with the `+` lines that follow.
pub const ADD_FILE: &str = "*** Add File: ";
/// A file changed by the hunks that follow.
pub const UPDATE_FILE: &str = "*** Update File: ";
/// A file removed.
pub const DELETE_FILE: &str = "*** Delete File: ";
/// The new name of the file of the `*** Update File:` line just above.
pub const MOVE_TO: &str = "*** Move to: ";
/// Ends a hunk that must match at the end of the file.
pub const END_OF_FILE: &str = "*** End of File";

/// Largest patch read by default (16 MiB).
pub const MAX_PATCH_BYTES: usize = 16 * 1024 * 1024;
/// Most paths one patch may touch by default (a move counts twice).
pub const MAX_PATCH_FILES: usize = 512;
/// Longest path by default, in bytes (Linux `PATH_MAX`).
pub const MAX_PATCH_PATH_BYTES: usize = 4096;

/// The limits a patch is read under; each one exceeded is a named error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLimits {
    /// Largest patch, in bytes ([`PatchError::TooLarge`]).
    pub max_bytes: usize,
    /// Most paths touched, a move counting twice ([`PatchError::TooManyFiles`]).
    pub max_files: usize,
    /// Longest path, in bytes ([`PatchError::PathTooLong`]).
    pub max_path_bytes: usize,
}

impl PatchLimits {
    /// [`MAX_PATCH_BYTES`], [`MAX_PATCH_FILES`], [`MAX_PATCH_PATH_BYTES`].
    pub const DEFAULT: PatchLimits = PatchLimits {
        max_bytes: MAX_PATCH_BYTES,
        max_files: MAX_PATCH_FILES,
        max_path_bytes: MAX_PATCH_PATH_BYTES,
    };
}

impl Default for PatchLimits {
    fn default() -> Self {
        PatchLimits::DEFAULT
    }
}

/// What a patch does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// `*** Add File:` creates (or overwrites) the file.
    Add,
    /// `*** Update File:` without a move changes the file in place.
    Update,
    /// `*** Delete File:` removes the file.
    Delete,
    /// `*** Update File:` followed by `*** Move to:`: the file read, changed and removed.
    MoveSource,
    /// The `*** Move to:` path: the file written.
    MoveDestination,
}

impl Operation {
    /// `add`, `update`, `delete`, `move source` or `move destination`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Add => "add",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::MoveSource => "move source",
            Operation::MoveDestination => "move destination",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One path a patch touches, exactly as written after its header (never trimmed or normalized).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TouchedPath<'a> {
    /// What the patch does to it.
    pub operation: Operation,
    /// The path: non-empty UTF-8, no control character, no leading or trailing whitespace, at
    /// most [`PatchLimits::max_path_bytes`] bytes.
    pub path: &'a str,
    /// The 1-based line of its header in the patch text.
    pub line: usize,
}

/// A patch whose file headers were all read: only [`Patch::parse`] makes one, so holding one
/// means every path it touches is in [`Patch::paths`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch<'a> {
    paths: Vec<TouchedPath<'a>>,
}

impl<'a> Patch<'a> {
    /// Reads the headers of the patch `text` under `limits`. Never panics; the work is linear
    /// in the length of `text`.
    pub fn parse(text: &'a [u8], limits: &PatchLimits) -> Result<Patch<'a>, PatchError> {
        if text.len() > limits.max_bytes {
            return Err(PatchError::TooLarge {
                bytes: text.len(),
                max: limits.max_bytes,
            });
        }
        Reader::read(text, limits)
    }

    /// Every path the patch touches, in the order of the patch (a move gives its source, then
    /// its destination). Empty for a patch with no file section.
    pub fn paths(&self) -> &[TouchedPath<'a>] {
        &self.paths
    }
}
