//! The path guards: deny-only guards over every path a tool call reaches, in the form of the
//! destructive-command guard (a first listener and a global guard, so that no rule, no listener
//! and no approval lets a call past them).
//!
//! - [`self_protection::SelfProtection`] keeps seal's own keys, trust store, rules and replay
//!   state, the running binary and the clients' hook settings out of every tool call's reach
//!   (spec/self-protection.md).
//! - [`secrets::SecretGuard`] keeps well-known credential files from being read
//!   (spec/secret-guard.md).
//!
//! Both read a call the same way: the file tools by their path argument and what they do to
//! the file ([`TOOL_FIELDS`](crate::chain::TOOL_FIELDS), the table the rules read),
//! Codex's `apply_patch` as a write of every path its patch touches, and a shell command
//! through [`crate::paths::command_paths`], the walk the rules share, every path placed by
//! the one resolver [`crate::paths::Places`] (lexically: symbolic links are not followed). A
//! program that reads a whole directory ([`TREE_READERS`], [`RECURSIVE_READERS`] with a
//! recursive option, and every program seal has no path model for) reads what the directory
//! holds; a program of [`TREE_CHANGERS`] changes what it holds.

mod glob;
mod reach;
pub mod secrets;
pub mod self_protection;
mod shape;
mod shared;

pub(crate) use shared::Shared;

use std::fmt;

pub use reach::{NAME_READERS, PATCH_TOOL, RECURSIVE_READERS, TREE_CHANGERS, TREE_READERS};
pub use shape::PatternError;

use crate::paths::{Places, Unplaced};

/// What a call does to a path, as a path guard's finding names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// Reads the file.
    Read,
    /// Reads every file below the directory (a search, a recursive copy, an archive, a move or
    /// a link of it).
    ReadBelow,
    /// Writes, creates, deletes, moves, links or changes the mode of the file.
    Write,
    /// Removes, moves, links or changes the mode of the directory with everything below it.
    ChangeBelow,
    /// Names a path seal cannot place (read or written).
    Unplaced(Unplaced),
}

impl Act {
    /// What the call does, as a finding says it (`reading`, `writing`...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Read => "reading",
            Act::ReadBelow => "reading everything below",
            Act::Write => "writing",
            Act::ChangeBelow => "removing, moving, linking or changing the mode of",
            Act::Unplaced(_) => "naming a path seal cannot place",
        }
    }
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Most bytes of an id of a protected path or a secret pattern.
pub const MAX_ID_BYTES: usize = 4096;

/// Checks an id: 1 to [`MAX_ID_BYTES`] bytes, no control character.
fn check_id(id: &str) -> Result<(), PatternError> {
    if id.is_empty() || id.len() > MAX_ID_BYTES || id.chars().any(char::is_control) {
        return Err(PatternError::Id { id: id.to_owned() });
    }
    Ok(())
}

/// `text` as a finding shows it: control characters as Rust escapes (so a finding never forges
/// a line of a report), everything else as it is.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                f.write_fmt(format_args!("{c}"))?;
            }
        }
        Ok(())
    }
}

/// The directory a guard without a workspace root reads relative paths in: a directory that
/// holds nothing a guard knows of, so that `.` is no directory above a secret, while a name
/// matched anywhere (`.env`) and a relative protected path are still found in it.
pub const UNKNOWN_ROOT: &str = "/(working directory)";

/// The places a guard reads with: without a workspace root, relative paths (and relative
/// protected paths) are read in [`UNKNOWN_ROOT`].
fn reading_places(places: &Places) -> Places {
    if places.root().is_some() {
        places.clone()
    } else {
        places.clone().with_root(UNKNOWN_ROOT)
    }
}
