//! C2SP tlog-checkpoint: the body of the signed note a log signs after each append.
//!
//! ```text
//! <origin>\n
//! <size, decimal, no leading zero>\n
//! <root, standard base64 of 32 bytes>\n
//! [<extension line>\n ...]
//! ```

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::hash::MerkleHash;

/// The longest origin line accepted, in bytes.
pub const MAX_ORIGIN_BYTES: usize = 256;

/// The most extension lines a checkpoint body may carry.
const MAX_EXTENSIONS: usize = 16;

/// A checkpoint: a log's name, its size and the root of its tree at that size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    origin: String,
    size: u64,
    root: MerkleHash,
    extensions: Vec<String>,
}

/// Why a checkpoint body is refused (lines count from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The body does not end with a newline, or has fewer than three lines.
    Truncated,
    /// The origin is empty, too long, or holds a character outside printable ASCII, a space or
    /// a `+`.
    Origin,
    /// The size line is not a decimal `u64` without a leading zero.
    Size,
    /// The root line is not the standard base64 of 32 bytes.
    Root,
    /// An extension line is empty or holds a control character, or there are too many.
    Extension {
        /// The line.
        line: usize,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Truncated => {
                f.write_str("checkpoint needs three lines, each ending in a newline")
            }
            CheckpointError::Origin => f.write_str(
                "checkpoint origin (line 1) must be 1 to 256 printable ASCII characters without space or '+'",
            ),
            CheckpointError::Size => f.write_str(
                "checkpoint size (line 2) must be a decimal number without a leading zero",
            ),
            CheckpointError::Root => {
                f.write_str("checkpoint root (line 3) must be the base64 of 32 bytes")
            }
            CheckpointError::Extension { line } => write!(
                f,
                "checkpoint extension line {line} is empty, holds a control character, or is one too many"
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// Whether `name` is a valid origin or note key name: 1 to [`MAX_ORIGIN_BYTES`] bytes of
/// printable ASCII other than space and `+`. A log's key is named by its origin, so one rule
/// serves both.
///
/// ```
/// use seal_record::tlog::is_log_name;
/// assert!(is_log_name("seal.example/decisions"));
/// assert!(!is_log_name("a b") && !is_log_name("a+b") && !is_log_name(""));
/// ```
pub fn is_log_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_ORIGIN_BYTES
        && name.bytes().all(|b| b.is_ascii_graphic() && b != b'+')
}

impl Checkpoint {
    /// A checkpoint without extension lines.
    pub fn new(origin: &str, size: u64, root: MerkleHash) -> Result<Checkpoint, CheckpointError> {
        if !is_log_name(origin) {
            return Err(CheckpointError::Origin);
        }
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
            extensions: Vec::new(),
        })
    }

    /// Parses a checkpoint body (the text of its note).
    pub fn parse(text: &str) -> Result<Checkpoint, CheckpointError> {
        let body = text.strip_suffix('\n').ok_or(CheckpointError::Truncated)?;
        let mut lines = body.split('\n');
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next())
        else {
            return Err(CheckpointError::Truncated);
        };
        let mut checkpoint = Checkpoint::new(origin, parse_size(size)?, parse_root(root)?)?;
        for (offset, line) in lines.enumerate() {
            let number = offset + 4;
            if line.is_empty()
                || line.chars().any(char::is_control)
                || checkpoint.extensions.len() >= MAX_EXTENSIONS
            {
                return Err(CheckpointError::Extension { line: number });
            }
            checkpoint.extensions.push(line.to_owned());
        }
        Ok(checkpoint)
    }

    /// The log's name.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The number of entries the checkpoint commits to.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root of the tree of the first [`size`](Checkpoint::size) entries.
    pub fn root(&self) -> &MerkleHash {
        &self.root
    }

    /// The extension lines, in order (seal's logs write none).
    pub fn extensions(&self) -> &[String] {
        &self.extensions
    }

    /// The body text: the lines above, each ending in a newline.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            STANDARD.encode(self.root.as_bytes())
        );
        for line in &self.extensions {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

fn parse_size(line: &str) -> Result<u64, CheckpointError> {
    let digits = !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit());
    if !digits || (line.len() > 1 && line.starts_with('0')) {
        return Err(CheckpointError::Size);
    }
    line.parse().map_err(|_| CheckpointError::Size)
}

fn parse_root(line: &str) -> Result<MerkleHash, CheckpointError> {
    let bytes = STANDARD.decode(line).map_err(|_| CheckpointError::Root)?;
    let bytes: [u8; 32] = bytes.try_into().map_err(|_| CheckpointError::Root)?;
    Ok(MerkleHash::from_bytes(bytes))
}
