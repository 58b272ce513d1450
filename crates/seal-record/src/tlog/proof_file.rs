//! C2SP tlog-proof: an offline inclusion proof of one entry, with the checkpoint it leads to.
//!
//! ```text
//! c2sp.org/tlog-proof@v1\n
//! [extra <standard base64>\n]
//! index <decimal, no leading zero>\n
//! <standard base64 of a 32-byte hash>\n   (the inclusion path, zero or more lines)
//! \n
//! <the signed checkpoint note, verbatim>
//! ```

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::hash::MerkleHash;
use super::note::MAX_NOTE_BYTES;
use super::proof::MAX_PROOF_HASHES;

/// The first line of a proof file.
pub const PROOF_FILE_HEADER: &str = "c2sp.org/tlog-proof@v1";

/// A parsed proof file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofFile {
    extra: Option<Vec<u8>>,
    index: u64,
    path: Vec<MerkleHash>,
    checkpoint: String,
}

/// Why a proof file is refused (lines count from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProofFileError {
    /// The file is larger than a proof and a note can be.
    TooLarge,
    /// The first line is not [`PROOF_FILE_HEADER`].
    Header,
    /// A line is not what its place calls for (extra, index, or a hash).
    Line {
        /// The line.
        line: usize,
    },
    /// More hash lines than any proof holds.
    TooManyHashes,
    /// No blank line and checkpoint follow the proof.
    NoCheckpoint,
}

impl fmt::Display for ProofFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofFileError::TooLarge => f.write_str("proof file is too large"),
            ProofFileError::Header => write!(f, "proof file must start with {PROOF_FILE_HEADER}"),
            ProofFileError::Line { line } => write!(
                f,
                "proof file line {line} is not the extra, index or hash line expected there"
            ),
            ProofFileError::TooManyHashes => {
                write!(f, "proof file holds more than {MAX_PROOF_HASHES} hashes")
            }
            ProofFileError::NoCheckpoint => {
                f.write_str("proof file has no blank line and checkpoint after its hashes")
            }
        }
    }
}

impl std::error::Error for ProofFileError {}

const MAX_PROOF_FILE_BYTES: usize = MAX_NOTE_BYTES + 8_192;

impl ProofFile {
    /// A proof of the entry at `index` along `path`, to the signed `checkpoint` note.
    pub fn new(index: u64, path: Vec<MerkleHash>, checkpoint: &str) -> ProofFile {
        ProofFile {
            extra: None,
            index,
            path,
            checkpoint: checkpoint.to_owned(),
        }
    }

    /// Parses a proof file. The checkpoint note is kept verbatim, not parsed.
    pub fn parse(text: &str) -> Result<ProofFile, ProofFileError> {
        if text.len() > MAX_PROOF_FILE_BYTES {
            return Err(ProofFileError::TooLarge);
        }
        let (head, checkpoint) = text
            .split_once("\n\n")
            .ok_or(ProofFileError::NoCheckpoint)?;
        if checkpoint.is_empty() {
            return Err(ProofFileError::NoCheckpoint);
        }
        let mut lines = head
            .split('\n')
            .enumerate()
            .map(|(at, line)| (at + 1, line));
        if lines.next().map(|(_, line)| line) != Some(PROOF_FILE_HEADER) {
            return Err(ProofFileError::Header);
        }
        let (mut number, mut line) = lines.next().ok_or(ProofFileError::Line { line: 2 })?;
        let mut extra = None;
        if let Some(encoded) = line.strip_prefix("extra ") {
            extra = Some(
                STANDARD
                    .decode(encoded)
                    .map_err(|_| ProofFileError::Line { line: number })?,
            );
            (number, line) = lines.next().ok_or(ProofFileError::Line { line: 3 })?;
        }
        let index = line
            .strip_prefix("index ")
            .and_then(parse_decimal)
            .ok_or(ProofFileError::Line { line: number })?;
        let mut path = Vec::new();
        for (number, line) in lines {
            if path.len() >= MAX_PROOF_HASHES {
                return Err(ProofFileError::TooManyHashes);
            }
            let bytes = STANDARD
                .decode(line)
                .ok()
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .ok_or(ProofFileError::Line { line: number })?;
            path.push(MerkleHash::from_bytes(bytes));
        }
        Ok(ProofFile {
            extra,
            index,
            path,
            checkpoint: checkpoint.to_owned(),
        })
    }

    /// The unauthenticated extra data, if any.
    pub fn extra(&self) -> Option<&[u8]> {
        self.extra.as_deref()
    }

    /// The entry's index.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The inclusion path, from the leaf's sibling up.
    pub fn path(&self) -> &[MerkleHash] {
        &self.path
    }

    /// The signed checkpoint note, verbatim.
    pub fn checkpoint(&self) -> &str {
        &self.checkpoint
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut out = format!("{PROOF_FILE_HEADER}\n");
        if let Some(extra) = &self.extra {
            out.push_str("extra ");
            out.push_str(&STANDARD.encode(extra));
            out.push('\n');
        }
        out.push_str(&format!("index {}\n", self.index));
        for hash in &self.path {
            out.push_str(&STANDARD.encode(hash.as_bytes()));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.checkpoint);
        out
    }
}

fn parse_decimal(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if !digits || (text.len() > 1 && text.starts_with('0')) {
        return None;
    }
    text.parse().ok()
}
