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

use std::fmt;

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

/// One line of the patch: its bytes without the LF and without one CR before it (CRLF is read
/// as a line end, as Codex reads it), and its 1-based number.
#[derive(Clone, Copy)]
struct Line<'a> {
    bytes: &'a [u8],
    number: usize,
}

/// The one cursor over the lines of a patch: no line is read twice for more than a peek, and
/// nothing is kept but the paths (linear time, memory in the number of paths).
#[derive(Clone, Copy)]
struct Lines<'a> {
    rest: &'a [u8],
    /// The number of the line [`Lines::peek`] gives.
    number: usize,
}

impl<'a> Lines<'a> {
    fn peek(&self) -> Option<(Line<'a>, &'a [u8])> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, next) = match memchr::memchr(b'\n', self.rest) {
            Some(at) => (
                self.rest.get(..at).unwrap_or_default(),
                self.rest.get(at + 1..).unwrap_or_default(),
            ),
            None => (self.rest, &[][..]),
        };
        let bytes = line.strip_suffix(b"\r").unwrap_or(line);
        Some((
            Line {
                bytes,
                number: self.number,
            },
            next,
        ))
    }

    fn current(&self) -> Option<Line<'a>> {
        self.peek().map(|(line, _)| line)
    }

    fn advance(&mut self) {
        if let Some((_, next)) = self.peek() {
            self.rest = next;
            self.number += 1;
        }
    }
}

/// Reads the body (the lines between the two markers) and collects the paths.
struct Reader<'a> {
    lines: Lines<'a>,
    limits: PatchLimits,
    paths: Vec<TouchedPath<'a>>,
}

/// Whitespace the reader trims around the two markers and treats as blank: ASCII only (a
/// subset of what Codex trims, so a line blank here is blank to Codex).
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

fn trim(bytes: &[u8]) -> &[u8] {
    let Some(start) = bytes.iter().position(|b| !is_space(*b)) else {
        return &[];
    };
    let end = bytes.iter().rposition(|b| !is_space(*b)).unwrap_or(start);
    bytes.get(start..=end).unwrap_or_default()
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| is_space(*b))
}

/// Splits `text` into the `*** Begin Patch` line, the body and the `*** End Patch` line
/// (blank lines before the first and after the last are skipped, as Codex trims them).
fn envelope(text: &[u8]) -> Result<Lines<'_>, PatchError> {
    let mut lines = Lines {
        rest: text,
        number: 1,
    };
    while lines.current().is_some_and(|line| is_blank(line.bytes)) {
        lines.advance();
    }
    let Some(begin) = lines.current() else {
        return Err(PatchError::MissingBegin {
            line: lines.number.saturating_sub(1).max(1),
        });
    };
    if trim(begin.bytes) != BEGIN_PATCH.as_bytes() {
        return Err(PatchError::MissingBegin { line: begin.number });
    }
    lines.advance();
    // The last line that is not blank: everything after its last non-space byte is space.
    let body = lines.rest;
    let last_byte = body.iter().rposition(|b| !is_space(*b));
    let Some(last_byte) = last_byte else {
        return Err(PatchError::MissingEnd { line: begin.number });
    };
    let last_start =
        memchr::memrchr(b'\n', body.get(..last_byte).unwrap_or_default()).map_or(0, |at| at + 1);
    let last_line = body.get(last_start..).unwrap_or_default();
    let last_line = last_line
        .get(..memchr::memchr(b'\n', last_line).unwrap_or(last_line.len()))
        .unwrap_or_default();
    let last_number = begin.number
        + 1
        + memchr::memchr_iter(b'\n', body.get(..last_start).unwrap_or_default()).count();
    if trim(last_line) != END_PATCH.as_bytes() {
        return Err(PatchError::MissingEnd { line: last_number });
    }
    Ok(Lines {
        rest: body.get(..last_start).unwrap_or_default(),
        number: begin.number + 1,
    })
}

impl<'a> Reader<'a> {
    fn read(text: &'a [u8], limits: &PatchLimits) -> Result<Patch<'a>, PatchError> {
        let mut reader = Reader {
            lines: envelope(text)?,
            limits: *limits,
            paths: Vec::new(),
        };
        while let Some(header) = reader.lines.current() {
            reader.file_section(header)?;
        }
        Ok(Patch {
            paths: reader.paths,
        })
    }

    /// Reads the file section whose header is the current line; stops at the next header.
    fn file_section(&mut self, header: Line<'a>) -> Result<(), PatchError> {
        self.lines.advance();
        if let Some(path) = header.bytes.strip_prefix(ADD_FILE.as_bytes()) {
            self.touch(Operation::Add, path, header.number)?;
            while self
                .lines
                .current()
                .is_some_and(|line| line.bytes.first() == Some(&b'+'))
            {
                self.lines.advance();
            }
            return Ok(());
        }
        if let Some(path) = header.bytes.strip_prefix(DELETE_FILE.as_bytes()) {
            return self.touch(Operation::Delete, path, header.number);
        }
        if let Some(path) = header.bytes.strip_prefix(UPDATE_FILE.as_bytes()) {
            return self.update(header, path);
        }
        Err(misplaced(header))
    }

    fn update(&mut self, header: Line<'a>, path: &'a [u8]) -> Result<(), PatchError> {
        let moved = self.lines.current().and_then(|line| {
            line.bytes
                .strip_prefix(MOVE_TO.as_bytes())
                .map(|to| (to, line.number))
        });
        match moved {
            Some((to, line)) => {
                self.touch(Operation::MoveSource, path, header.number)?;
                self.touch(Operation::MoveDestination, to, line)?;
                self.lines.advance();
            }
            None => self.touch(Operation::Update, path, header.number)?,
        }
        let mut hunks = 0usize;
        while let Some(line) = self.lines.current() {
            if is_blank(line.bytes) {
                self.lines.advance();
                continue;
            }
            if line.bytes.first() == Some(&b'*') {
                break;
            }
            self.hunk(line, hunks == 0)?;
            hunks += 1;
        }
        if hunks == 0 {
            return Err(PatchError::EmptyUpdate {
                line: header.number,
            });
        }
        Ok(())
    }

    /// Reads one hunk starting at `opening`: `@@` or `@@ <context>` (which the first hunk of a
    /// file may leave out), then hunk lines up to the first other line, or through `*** End of
    /// File`.
    fn hunk(&mut self, opening: Line<'a>, first: bool) -> Result<(), PatchError> {
        let mut last = opening.number;
        if opening.bytes == b"@@" || opening.bytes.starts_with(b"@@ ") {
            self.lines.advance();
        } else if !first {
            return Err(PatchError::BadHunkLine {
                line: opening.number,
            });
        }
        let mut count = 0usize;
        while let Some(line) = self.lines.current() {
            last = line.number;
            if line.bytes == END_OF_FILE.as_bytes() {
                if count == 0 {
                    return Err(PatchError::EmptyHunk { line: line.number });
                }
                self.lines.advance();
                return Ok(());
            }
            match line.bytes.first() {
                None | Some(b' ' | b'+' | b'-') => {}
                Some(_) if count == 0 => return Err(PatchError::BadHunkLine { line: line.number }),
                Some(_) => return Ok(()),
            }
            count += 1;
            self.lines.advance();
        }
        if count == 0 {
            return Err(PatchError::EmptyHunk { line: last });
        }
        Ok(())
    }

    fn touch(
        &mut self,
        operation: Operation,
        path: &'a [u8],
        line: usize,
    ) -> Result<(), PatchError> {
        if self.paths.len() >= self.limits.max_files {
            return Err(PatchError::TooManyFiles {
                line,
                max: self.limits.max_files,
            });
        }
        let path = check_path(path, line, &self.limits)?;
        self.paths.push(TouchedPath {
            operation,
            path,
            line,
        });
        Ok(())
    }
}

/// The error for a line where a file header was expected.
fn misplaced(line: Line<'_>) -> PatchError {
    let number = line.number;
    let trimmed = trim(line.bytes);
    if trimmed == BEGIN_PATCH.as_bytes() {
        PatchError::SecondBegin { line: number }
    } else if trimmed == END_PATCH.as_bytes() {
        PatchError::TextAfterEnd { line: number }
    } else if trimmed.starts_with(MOVE_TO.trim_end().as_bytes()) {
        PatchError::MoveWithoutUpdate { line: number }
    } else if trimmed == END_OF_FILE.as_bytes() {
        PatchError::EndOfFileOutsideHunk { line: number }
    } else if trimmed.starts_with(b"***") && line.bytes.starts_with(b"***") {
        PatchError::UnknownMarker { line: number }
    } else {
        PatchError::LineOutsideHunk { line: number }
    }
}

fn check_path<'a>(
    path: &'a [u8],
    line: usize,
    limits: &PatchLimits,
) -> Result<&'a str, PatchError> {
    if path.is_empty() {
        return Err(PatchError::EmptyPath { line });
    }
    if path.len() > limits.max_path_bytes {
        return Err(PatchError::PathTooLong {
            line,
            bytes: path.len(),
            max: limits.max_path_bytes,
        });
    }
    let text = std::str::from_utf8(path).map_err(|_| PatchError::PathNotUtf8 { line })?;
    if text.chars().any(char::is_control) {
        return Err(PatchError::PathControl { line });
    }
    if text.trim() != text {
        return Err(PatchError::PathPadded { line });
    }
    Ok(text)
}
