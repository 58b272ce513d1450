//! The frame id grammar (spec/frame-v1.md section 7.1): what an `id` attribute may hold, so
//! that every id a replay store records is the id the next copy of the frame carries.

use std::fmt;

/// Longest frame id, in bytes: 128.
pub const MAX_FRAME_ID_BYTES: usize = 128;

/// Bytes a frame id may hold besides ASCII letters and digits: `-`, `.`, `_`, `:`, `~`.
pub const FRAME_ID_PUNCTUATION: &str = "-._:~";

/// Why a text is not a frame id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameIdProblem {
    /// The id is empty.
    Empty,
    /// The id is longer than [`MAX_FRAME_ID_BYTES`].
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The id holds a byte outside the grammar.
    Byte {
        /// The byte.
        byte: u8,
        /// Its offset in the id.
        at: usize,
    },
}

impl fmt::Display for FrameIdProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the frame id is empty"),
            Self::TooLong { len } => write!(
                f,
                "the frame id is {len} bytes long, more than {MAX_FRAME_ID_BYTES}"
            ),
            Self::Byte { byte, at } => {
                let name = match byte {
                    b'\n' => "a line feed (LF)".to_owned(),
                    b'\r' => "a carriage return (CR)".to_owned(),
                    b' ' => "a space".to_owned(),
                    0x21..=0x7e => format!("`{}`", char::from(*byte)),
                    _ => format!("the byte 0x{byte:02x}"),
                };
                write!(
                    f,
                    "the frame id holds {name} at byte {at}; a frame id is 1 to \
                     {MAX_FRAME_ID_BYTES} bytes of A-Z a-z 0-9 and {FRAME_ID_PUNCTUATION}"
                )
            }
        }
    }
}

impl std::error::Error for FrameIdProblem {}

/// Checks `id` against the frame id grammar: 1 to [`MAX_FRAME_ID_BYTES`] bytes, each an ASCII
/// letter or digit or one of [`FRAME_ID_PUNCTUATION`].
///
/// ```
/// use seal_verify::{check_frame_id, FrameIdProblem};
///
/// assert_eq!(check_frame_id("m42"), Ok(()));
/// assert_eq!(check_frame_id(""), Err(FrameIdProblem::Empty));
/// assert_eq!(check_frame_id("a\nb"), Err(FrameIdProblem::Byte { byte: b'\n', at: 1 }));
/// ```
///
/// # Errors
/// The first problem found: [`FrameIdProblem::Empty`], [`FrameIdProblem::TooLong`], or the
/// first byte outside the grammar.
#[inline]
pub fn check_frame_id(id: &str) -> Result<(), FrameIdProblem> {
    if id.is_empty() {
        return Err(FrameIdProblem::Empty);
    }
    if id.len() > MAX_FRAME_ID_BYTES {
        return Err(FrameIdProblem::TooLong { len: id.len() });
    }
    match id
        .bytes()
        .enumerate()
        .find(|&(_, byte)| !is_frame_id_byte(byte))
    {
        None => Ok(()),
        Some((at, byte)) => Err(FrameIdProblem::Byte { byte, at }),
    }
}

/// Whether `id` is a frame id ([`check_frame_id`] accepts it).
pub fn is_frame_id(id: &str) -> bool {
    check_frame_id(id).is_ok()
}

fn is_frame_id_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || FRAME_ID_PUNCTUATION.as_bytes().contains(&byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_classified_as_the_spec_says() {
        for byte in 0u8..=255 {
            let expected = byte.is_ascii_alphanumeric() || b"-._:~".contains(&byte);
            assert_eq!(is_frame_id_byte(byte), expected, "byte {byte:#04x}");
        }
    }
}
