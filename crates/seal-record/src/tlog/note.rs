//! C2SP signed-note: a text, a blank line, then one signature line per signer.
//!
//! ```text
//! <text, one or more lines, each ending in a newline>
//! \n
//! — <key name> <standard base64 of key ID (4 bytes) || signature>\n
//! ...
//! ```
//!
//! This module is the grammar only: which signatures are good is the caller's (seal-verify
//! checks Ed25519 signatures of seal's logs).

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::checkpoint::is_log_name;

/// The largest note accepted, in bytes.
pub const MAX_NOTE_BYTES: usize = 65_536;

/// The most signature lines a note may carry (the signed-note spec asks verifiers to accept at
/// least 16).
pub const MAX_NOTE_SIGNATURES: usize = 64;

/// The signature type byte of an Ed25519 key (signed-note's type `0x01`).
pub const ED25519_KEY_TYPE: u8 = 0x01;

/// The separator opening each signature line: an em dash (U+2014) and a space.
const SIGNATURE_PREFIX: &str = "\u{2014} ";

/// A parsed signed note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedNote {
    text: String,
    signatures: Vec<NoteSignature>,
}

/// One signature line of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    name: String,
    key_id: [u8; 4],
    signature: Vec<u8>,
}

/// Why a note is refused. Signature lines count from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignedNoteError {
    /// The note is larger than [`MAX_NOTE_BYTES`].
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The text is empty, does not end in a newline, or holds a control character other than
    /// a newline.
    Text,
    /// No blank line separates the text from the signatures.
    NoSeparator,
    /// A signature line is not `— <name> <base64>` with a valid name and at least five bytes.
    SignatureLine {
        /// The signature line.
        line: usize,
    },
    /// The note carries no signature line.
    Unsigned,
    /// The note carries more than [`MAX_NOTE_SIGNATURES`] signature lines.
    TooManySignatures,
}

impl fmt::Display for SignedNoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignedNoteError::TooLarge { bytes } => {
                write!(f, "note of {bytes} bytes is larger than {MAX_NOTE_BYTES}")
            }
            SignedNoteError::Text => f.write_str(
                "note text must be non-empty, end in a newline, and hold no control character but newlines",
            ),
            SignedNoteError::NoSeparator => {
                f.write_str("note has no blank line between its text and its signatures")
            }
            SignedNoteError::SignatureLine { line } => write!(
                f,
                "note signature line {line} is not an em dash, a key name and the base64 of a key ID and signature"
            ),
            SignedNoteError::Unsigned => f.write_str("note carries no signature"),
            SignedNoteError::TooManySignatures => {
                write!(f, "note carries more than {MAX_NOTE_SIGNATURES} signatures")
            }
        }
    }
}

impl std::error::Error for SignedNoteError {}

/// The key ID of a signer: the first four bytes of `SHA-256(name || 0x0A || key)`, where `key`
/// is the type byte followed by the public key.
pub fn key_id(name: &str, key: &[u8]) -> [u8; 4] {
    let digest = Sha256::new()
        .chain_update(name.as_bytes())
        .chain_update([b'\n'])
        .chain_update(key)
        .finalize();
    let mut id = [0; 4];
    for (slot, byte) in id.iter_mut().zip(digest) {
        *slot = byte;
    }
    id
}

fn is_note_text(text: &str) -> bool {
    text.ends_with('\n') && !text.chars().any(|c| c.is_control() && c != '\n')
}

impl SignedNote {
    /// An unsigned note over `text`.
    pub fn new(text: &str) -> Result<SignedNote, SignedNoteError> {
        if !is_note_text(text) {
            return Err(SignedNoteError::Text);
        }
        Ok(SignedNote {
            text: text.to_owned(),
            signatures: Vec::new(),
        })
    }

    /// Parses a signed note: the text ends at the last blank line.
    pub fn parse(note: &str) -> Result<SignedNote, SignedNoteError> {
        if note.len() > MAX_NOTE_BYTES {
            return Err(SignedNoteError::TooLarge { bytes: note.len() });
        }
        let split = note.rfind("\n\n").ok_or(SignedNoteError::NoSeparator)?;
        let (text, block) = note.split_at(split + 1);
        let mut parsed = SignedNote::new(text)?;
        let block = block
            .strip_prefix('\n')
            .and_then(|lines| lines.strip_suffix('\n'))
            .ok_or(SignedNoteError::Unsigned)?;
        if block.is_empty() {
            return Err(SignedNoteError::Unsigned);
        }
        for (offset, line) in block.split('\n').enumerate() {
            let signature = parse_signature_line(line)
                .ok_or(SignedNoteError::SignatureLine { line: offset + 1 })?;
            parsed.push(signature)?;
        }
        Ok(parsed)
    }

    /// The signed text, ending in a newline.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The signature lines, in order.
    pub fn signatures(&self) -> &[NoteSignature] {
        &self.signatures
    }

    /// Adds a signature line at the end.
    pub fn push(&mut self, signature: NoteSignature) -> Result<(), SignedNoteError> {
        if self.signatures.len() >= MAX_NOTE_SIGNATURES {
            return Err(SignedNoteError::TooManySignatures);
        }
        self.signatures.push(signature);
        Ok(())
    }

    /// The note: its text, a blank line and its signature lines.
    pub fn to_text(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for signature in &self.signatures {
            out.push_str(SIGNATURE_PREFIX);
            out.push_str(&signature.name);
            out.push(' ');
            let mut bytes = signature.key_id.to_vec();
            bytes.extend_from_slice(&signature.signature);
            out.push_str(&STANDARD.encode(bytes));
            out.push('\n');
        }
        out
    }
}

fn parse_signature_line(line: &str) -> Option<NoteSignature> {
    let rest = line.strip_prefix(SIGNATURE_PREFIX)?;
    let (name, encoded) = rest.split_once(' ')?;
    let bytes = STANDARD.decode(encoded).ok()?;
    let (id, signature) = bytes.split_first_chunk::<4>()?;
    NoteSignature::new(name, *id, signature).ok()
}

impl NoteSignature {
    /// A signature line by key `name` with `key_id`; the name must be 1 to 256 bytes of
    /// printable ASCII without space or `+`, and the signature non-empty.
    pub fn new(
        name: &str,
        key_id: [u8; 4],
        signature: &[u8],
    ) -> Result<NoteSignature, SignedNoteError> {
        if !is_log_name(name) || signature.is_empty() {
            return Err(SignedNoteError::SignatureLine { line: 0 });
        }
        Ok(NoteSignature {
            name: name.to_owned(),
            key_id,
            signature: signature.to_vec(),
        })
    }

    /// The key's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn key_id(&self) -> [u8; 4] {
        self.key_id
    }

    /// The signature bytes (after the key ID).
    pub fn signature(&self) -> &[u8] {
        &self.signature
    }
}
