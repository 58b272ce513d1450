//! Opening a signed checkpoint: which signature lines count, and what the checkpoint must say.

use std::collections::BTreeSet;
use std::fmt;

use seal_record::tlog::{Checkpoint, CheckpointError, SignedNote, SignedNoteError};

use super::vkey::{hex4, LogVerifierKey};

/// A checkpoint taken from a signed note that a known key signed: only [`open_checkpoint`]
/// makes one, so code that needs a trusted checkpoint can ask for this type.
#[derive(Debug, Clone)]
pub struct VerifiedCheckpoint {
    checkpoint: Checkpoint,
    key_name: String,
    key_id: [u8; 4],
}

/// Why a signed checkpoint was refused (or, for the first variants a signer shares, not made).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignedCheckpointError {
    /// No verifier key was given.
    NoVerifierKey,
    /// Two of the verifier keys given have the same name and key id, so a signature line
    /// could not tell them apart.
    AmbiguousVerifierKeys {
        /// The name they share.
        name: String,
        /// The key id they share.
        key_id: [u8; 4],
    },
    /// The text is not a signed note.
    SignedNote(SignedNoteError),
    /// A signature line of a known key does not verify.
    BadSignature {
        /// The key's name.
        name: String,
        /// The key id.
        key_id: [u8; 4],
    },
    /// A known key has more than one signature line.
    DuplicateSignature {
        /// The key's name.
        name: String,
        /// The key id.
        key_id: [u8; 4],
    },
    /// No signature line is by a known key.
    NoKnownSignature,
    /// The signed text is not a checkpoint.
    Body(CheckpointError),
    /// The checkpoint carries extension lines (seal's logs write none).
    ExtensionLines {
        /// How many.
        count: usize,
    },
    /// The checkpoint's origin is not the name of the key that signed it.
    OriginMismatch {
        /// The checkpoint's origin.
        origin: String,
        /// The signing key's name.
        key_name: String,
    },
    /// ring refused to derive the Ed25519 key pair from the signing key's seed.
    KeyDerivation,
}

impl SignedCheckpointError {
    /// A stable snake_case name of the error, as used in the golden vectors.
    pub fn name(&self) -> &'static str {
        match self {
            Self::NoVerifierKey => "no_verifier_key",
            Self::AmbiguousVerifierKeys { .. } => "ambiguous_verifier_keys",
            Self::SignedNote(_) => "note",
            Self::BadSignature { .. } => "bad_signature",
            Self::DuplicateSignature { .. } => "duplicate_signature",
            Self::NoKnownSignature => "no_known_signature",
            Self::Body(_) => "body",
            Self::ExtensionLines { .. } => "extension_lines",
            Self::OriginMismatch { .. } => "origin_mismatch",
            Self::KeyDerivation => "key_derivation",
        }
    }
}

impl fmt::Display for SignedCheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoVerifierKey => f.write_str("no verifier key was given to open the checkpoint"),
            Self::AmbiguousVerifierKeys { name, key_id } => write!(
                f,
                "two verifier keys share the name `{name}` and key id {}",
                hex4(key_id)
            ),
            Self::SignedNote(error) => write!(f, "signed note is refused: {error}"),
            Self::BadSignature { name, key_id } => write!(
                f,
                "checkpoint signature by `{name}` (key id {}) does not verify",
                hex4(key_id)
            ),
            Self::DuplicateSignature { name, key_id } => write!(
                f,
                "checkpoint carries more than one signature by `{name}` (key id {})",
                hex4(key_id)
            ),
            Self::NoKnownSignature => f.write_str("checkpoint carries no signature by a known key"),
            Self::Body(error) => write!(f, "signed note is not a checkpoint: {error}"),
            Self::ExtensionLines { count } => write!(
                f,
                "checkpoint carries {count} extension line(s), which seal's logs never write"
            ),
            Self::OriginMismatch { origin, key_name } => write!(
                f,
                "checkpoint origin `{origin}` is not the key name `{key_name}`"
            ),
            Self::KeyDerivation => {
                f.write_str("log signing key could not be derived from its seed")
            }
        }
    }
}

impl std::error::Error for SignedCheckpointError {}

/// Opens a signed checkpoint note with the verifier keys `keys` (at least one; no two with the
/// same name and key id).
///
/// The note is parsed by the C2SP signed-note grammar. A signature line whose name and key id
/// match no key in `keys` is ignored. A line that matches a key must verify (Ed25519 over the
/// note's text), and a key may sign only once. At least one line must be by a known key. The
/// text must then be a C2SP checkpoint without extension lines whose origin is the name of
/// every known key that signed it.
///
/// # Errors
/// One [`SignedCheckpointError`] variant per rule above, checked in that order.
pub fn open_checkpoint(
    note: &str,
    keys: &[LogVerifierKey],
) -> Result<VerifiedCheckpoint, SignedCheckpointError> {
    check_keys(keys)?;
    let note = SignedNote::parse(note).map_err(SignedCheckpointError::SignedNote)?;
    let mut signers: Vec<&LogVerifierKey> = Vec::new();
    for line in note.signatures() {
        let Some(key) = keys
            .iter()
            .find(|key| key.name() == line.name() && key.key_id() == line.key_id())
        else {
            continue;
        };
        if signers
            .iter()
            .any(|seen| seen.name() == key.name() && seen.key_id() == key.key_id())
        {
            return Err(SignedCheckpointError::DuplicateSignature {
                name: key.name().to_owned(),
                key_id: key.key_id(),
            });
        }
        if key
            .public_key()
            .verify(note.text().as_bytes(), line.signature())
            .is_err()
        {
            return Err(SignedCheckpointError::BadSignature {
                name: key.name().to_owned(),
                key_id: key.key_id(),
            });
        }
        signers.push(key);
    }
    let Some(first) = signers.first() else {
        return Err(SignedCheckpointError::NoKnownSignature);
    };
    let checkpoint = Checkpoint::parse(note.text()).map_err(SignedCheckpointError::Body)?;
    if !checkpoint.extensions().is_empty() {
        return Err(SignedCheckpointError::ExtensionLines {
            count: checkpoint.extensions().len(),
        });
    }
    if let Some(other) = signers.iter().find(|key| key.name() != checkpoint.origin()) {
        return Err(SignedCheckpointError::OriginMismatch {
            origin: checkpoint.origin().to_owned(),
            key_name: other.name().to_owned(),
        });
    }
    Ok(VerifiedCheckpoint {
        key_name: first.name().to_owned(),
        key_id: first.key_id(),
        checkpoint,
    })
}

impl VerifiedCheckpoint {
    /// The checkpoint.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    /// The checkpoint, without the record of its signer.
    pub fn into_checkpoint(self) -> Checkpoint {
        self.checkpoint
    }

    /// The name of the first known key whose signature verified (the checkpoint's origin).
    pub fn key_name(&self) -> &str {
        &self.key_name
    }

    /// The key id of that key.
    pub fn key_id(&self) -> [u8; 4] {
        self.key_id
    }
}

fn check_keys(keys: &[LogVerifierKey]) -> Result<(), SignedCheckpointError> {
    if keys.is_empty() {
        return Err(SignedCheckpointError::NoVerifierKey);
    }
    let mut seen = BTreeSet::new();
    for key in keys {
        if !seen.insert((key.name(), key.key_id())) {
            return Err(SignedCheckpointError::AmbiguousVerifierKeys {
                name: key.name().to_owned(),
                key_id: key.key_id(),
            });
        }
    }
    Ok(())
}
