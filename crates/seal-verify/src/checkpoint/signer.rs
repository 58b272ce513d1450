//! The log signing key: an Ed25519 seed under a key name, signing checkpoints as signed notes.

use std::fmt;

use seal_record::tlog::{is_log_name, Checkpoint, NoteSignature, SignedNote};
use zeroize::Zeroizing;

use super::open::SignedCheckpointError;
use super::vkey::{LogKeyError, LogVerifierKey};
use crate::ed25519::{Ed25519PublicKey, Ed25519SigningKey};

/// Bytes of a log signing key's seed (an RFC 8032 Ed25519 private key).
pub const LOG_SEED_BYTES: usize = 32;

/// A log's signing key: a 32-byte Ed25519 seed and the key name, which is the origin of every
/// checkpoint it signs.
///
/// The seed is held in a buffer wiped when the key is dropped; the key is not `Clone`, and
/// `Debug` shows the verifier key only. The Ed25519 key pair is derived from the seed for each
/// signature and dropped after it (ring does not wipe a key pair, so none is kept).
///
/// ```
/// use seal_record::tlog::{leaf_hash, Checkpoint};
/// use seal_verify::{open_checkpoint, LogSigningKey, LogVerifierKey};
///
/// let key = LogSigningKey::from_seed("seal.example/decisions", &[7; 32])?;
/// let checkpoint = Checkpoint::new("seal.example/decisions", 1, leaf_hash(b"first"))?;
/// let note = key.sign_checkpoint(&checkpoint)?;
///
/// let known = [LogVerifierKey::parse(&key.verifier_key().to_text())?];
/// let opened = open_checkpoint(&note, &known)?;
/// assert_eq!(opened.checkpoint(), &checkpoint);
/// assert!(open_checkpoint(&note.replacen('1', "2", 1), &known).is_err());
/// assert!(format!("{key:?}").contains("redacted"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// ```compile_fail
/// let key = seal_verify::LogSigningKey::from_seed("log", &[7; 32]).unwrap();
/// let copy = key.clone();
/// ```
pub struct LogSigningKey {
    name: String,
    seed: Zeroizing<[u8; LOG_SEED_BYTES]>,
    verifier: LogVerifierKey,
}

impl LogSigningKey {
    /// The signing key of `name` over a 32-byte `seed`. The seed is the caller's: 32 bytes
    /// from a cryptographically secure random number generator for a new key, or the bytes of
    /// a stored key. They are copied into a buffer this key wipes when dropped.
    ///
    /// # Errors
    /// [`LogKeyError::Name`] for a name outside the note key-name rule (1 to 256 printable
    /// ASCII characters without space or `+`), [`LogKeyError::Seed`] for a seed of another
    /// length.
    pub fn from_seed(name: &str, seed: &[u8]) -> Result<LogSigningKey, LogKeyError> {
        if !is_log_name(name) {
            return Err(LogKeyError::Name);
        }
        let mut held = Zeroizing::new([0u8; LOG_SEED_BYTES]);
        if seed.len() != LOG_SEED_BYTES {
            return Err(LogKeyError::Seed { len: seed.len() });
        }
        for (slot, byte) in held.iter_mut().zip(seed) {
            *slot = *byte;
        }
        let public_key = derive(&held)?.public_key();
        let verifier = LogVerifierKey::new(name, &public_key)?;
        Ok(LogSigningKey {
            name: name.to_owned(),
            seed: held,
            verifier,
        })
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id of the name and the public key.
    pub fn key_id(&self) -> [u8; 4] {
        self.verifier.key_id()
    }

    /// The Ed25519 public key.
    pub fn public_key(&self) -> &Ed25519PublicKey {
        self.verifier.public_key()
    }

    /// The verifier key that opens what this key signs (its text form is
    /// [`LogVerifierKey::to_text`]).
    pub fn verifier_key(&self) -> LogVerifierKey {
        self.verifier.clone()
    }

    /// Signs `checkpoint`: the signed note over [`Checkpoint::to_text`] with one signature line,
    /// `— <name> <base64 of key id || Ed25519 signature>`.
    ///
    /// # Errors
    /// [`SignedCheckpointError::OriginMismatch`] when the checkpoint's origin is not this key's
    /// name, [`SignedCheckpointError::ExtensionLines`] when it carries extension lines (the
    /// opener refuses both); [`SignedCheckpointError::KeyDerivation`] if ring refused the seed
    /// and [`SignedCheckpointError::SignedNote`] if the note grammar refused the text or the line
    /// (neither happens for a 32-byte seed and a checkpoint's text).
    pub fn sign_checkpoint(
        &self,
        checkpoint: &Checkpoint,
    ) -> Result<String, SignedCheckpointError> {
        if checkpoint.origin() != self.name {
            return Err(SignedCheckpointError::OriginMismatch {
                origin: checkpoint.origin().to_owned(),
                key_name: self.name.clone(),
            });
        }
        if !checkpoint.extensions().is_empty() {
            return Err(SignedCheckpointError::ExtensionLines {
                count: checkpoint.extensions().len(),
            });
        }
        let mut note =
            SignedNote::new(&checkpoint.to_text()).map_err(SignedCheckpointError::SignedNote)?;
        let signature = derive(&self.seed)
            .map_err(|_| SignedCheckpointError::KeyDerivation)?
            .sign(note.text().as_bytes());
        let line = NoteSignature::new(&self.name, self.key_id(), signature.as_bytes())
            .map_err(SignedCheckpointError::SignedNote)?;
        note.push(line).map_err(SignedCheckpointError::SignedNote)?;
        Ok(note.to_text())
    }
}

impl fmt::Debug for LogSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LogSigningKey")
            .field("seed", &"<redacted>")
            .field("verifier_key", &self.verifier.to_text())
            .finish()
    }
}

fn derive(seed: &[u8; LOG_SEED_BYTES]) -> Result<Ed25519SigningKey, LogKeyError> {
    Ed25519SigningKey::from_seed(seed).map_err(|_| LogKeyError::Seed { len: seed.len() })
}
