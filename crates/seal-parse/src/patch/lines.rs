//! The lines of a patch: one cursor over them, the envelope between the two markers, and the
//! whitespace the reader trims.

use super::{PatchError, BEGIN_PATCH, END_PATCH};

/// One line of the patch: its bytes without the LF and without one CR before it (CRLF is read
/// as a line end, as Codex reads it), and its 1-based number.
#[derive(Clone, Copy)]
pub(super) struct Line<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) number: usize,
}

/// The one cursor over the lines of a patch: no line is read twice for more than a peek, and
/// nothing is kept but the paths (linear time, memory in the number of paths).
#[derive(Clone, Copy)]
pub(super) struct Lines<'a> {
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
            Some(at) => {
                let (line, next) = (self.rest.get(..at), self.rest.get(at + 1..));
                // `at` is the position of a byte of `rest`: both ranges lie in it, and the
                // empty fallbacks are never taken.
                debug_assert!(
                    line.is_some() && next.is_some(),
                    "a newline found in the rest"
                );
                (line.unwrap_or_default(), next.unwrap_or_default())
            }
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

    pub(super) fn current(&self) -> Option<Line<'a>> {
        self.peek().map(|(line, _)| line)
    }

    pub(super) fn advance(&mut self) {
        if let Some((_, next)) = self.peek() {
            self.rest = next;
            self.number += 1;
        }
    }
}

/// Whitespace the reader trims around the two markers and treats as blank: ASCII only (a
/// subset of what Codex trims, so a line blank here is blank to Codex).
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

pub(super) fn trim(bytes: &[u8]) -> &[u8] {
    let Some(start) = bytes.iter().position(|b| !is_space(*b)) else {
        return &[];
    };
    // A non-space byte exists (at `start`), so the last one is found at or after it.
    let end = bytes.iter().rposition(|b| !is_space(*b)).unwrap_or(start);
    let trimmed = bytes.get(start..=end);
    debug_assert!(trimmed.is_some(), "the non-space bytes lie in the line");
    trimmed.unwrap_or_default()
}

pub(super) fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| is_space(*b))
}

/// Splits `text` into the `*** Begin Patch` line, the body and the `*** End Patch` line
/// (blank lines before the first and after the last are skipped, as Codex trims them).
pub(super) fn envelope(text: &[u8]) -> Result<Lines<'_>, PatchError> {
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
    // Every position below is found in `body`, so every range lies in it; an impossible one is
    // refused as a missing end, never read as an empty body (which would touch no path).
    let impossible = || PatchError::MissingEnd { line: begin.number };
    let before_last = body.get(..last_byte).ok_or_else(impossible)?;
    let last_start = memchr::memrchr(b'\n', before_last).map_or(0, |at| at + 1);
    let (rest, last_line) = body.split_at_checked(last_start).ok_or_else(impossible)?;
    let last_line = match memchr::memchr(b'\n', last_line) {
        Some(at) => last_line.get(..at).ok_or_else(impossible)?,
        None => last_line,
    };
    let last_number = begin.number + 1 + memchr::memchr_iter(b'\n', rest).count();
    if trim(last_line) != END_PATCH.as_bytes() {
        return Err(PatchError::MissingEnd { line: last_number });
    }
    Ok(Lines {
        rest,
        number: begin.number + 1,
    })
}
