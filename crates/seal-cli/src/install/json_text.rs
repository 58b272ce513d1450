//! JSON text with the place of every value, for editing a settings file without touching a byte
//! of what the edit is not about.
//!
//! The reader is strict RFC 8259 JSON (a leading UTF-8 byte-order mark is kept), refuses a key
//! written twice in one object (an edit of such a file could not say which one it changed), and
//! nests at most [`MAX_DEPTH`] deep. Its errors name the line and column. The edits are textual:
//! appending a member or an element copies the separator and indentation of its siblings, and
//! removing the last one takes exactly that back out, so an append followed by its removal gives
//! the original bytes.

mod edit;
mod layout;
mod node;
mod reader;

pub use edit::{append, apply, remove, replace, Edit};
pub use layout::{render, Layout, Out};
pub use node::{Kind, Member, Node};
pub use reader::{line_column, parse};

/// The deepest nesting of arrays and objects read.
pub const MAX_DEPTH: usize = 128;

/// Where the text stops being JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong there.
    pub problem: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.problem
        )
    }
}

#[cfg(test)]
mod tests;
