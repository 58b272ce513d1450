//! The reader of a patch body: file sections, their headers and hunks, and the paths they
//! touch.

use super::lines::{envelope, is_blank, trim, Line, Lines};
use super::{
    Operation, Patch, PatchError, PatchLimits, TouchedPath, ADD_FILE, BEGIN_PATCH, DELETE_FILE,
    END_OF_FILE, END_PATCH, MOVE_TO, UPDATE_FILE,
};

/// Reads the body (the lines between the two markers) and collects the paths.
pub(super) struct Reader<'a> {
    lines: Lines<'a>,
    limits: PatchLimits,
    paths: Vec<TouchedPath<'a>>,
}

impl<'a> Reader<'a> {
    pub(super) fn read(text: &'a [u8], limits: &PatchLimits) -> Result<Patch<'a>, PatchError> {
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
