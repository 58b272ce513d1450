//! Ed25519 keys through ring.

use std::fmt;

use ring::signature::{self, Ed25519KeyPair, KeyPair, UnparsedPublicKey};

use crate::error::{KeyError, SignatureError};
use crate::fingerprint::Fingerprint;
use crate::hmac_key::decode_sig;
use crate::tag::{Tag, ED25519_SIGNATURE_BITS};

/// Bytes of an Ed25519 signature.
pub const ED25519_SIGNATURE_BYTES: usize = 64;

/// An Ed25519 public key (32 bytes, RFC 8032 encoding), bound to the Ed25519 algorithm.
#[derive(Clone)]
pub struct Ed25519PublicKey {
    bytes: [u8; 32],
}

/// An Ed25519 signing key. `Debug` shows only the public key's fingerprint.
pub struct Ed25519SigningKey {
    pair: Ed25519KeyPair,
}

impl Ed25519PublicKey {
    /// Accepts exactly 32 bytes. Whether they encode a curve point is decided when verifying:
    /// a key that is not a point verifies nothing.
    pub fn from_bytes(bytes: &[u8]) -> Result<Ed25519PublicKey, KeyError> {
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|_| KeyError::Ed25519Length { len: bytes.len() })?;
        Ok(Ed25519PublicKey { bytes })
    }

    /// The 32 public key bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// SHA-256 of the 32 public key bytes.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::of(&self.bytes)
    }

    /// Checks a 64-byte signature (any other length fails with [`SignatureError::Length`]
    /// before ring is called) with ring's `ED25519` verifier, which rejects non-canonical `S`
    /// and bad point encodings.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), SignatureError> {
        if signature.len() != ED25519_SIGNATURE_BYTES {
            return Err(SignatureError::Length {
                expected: ED25519_SIGNATURE_BYTES,
                found: signature.len(),
            });
        }
        UnparsedPublicKey::new(&signature::ED25519, &self.bytes)
            .verify(message, signature)
            .map_err(|_| SignatureError::Mismatch)
    }

    /// Checks the text form: exactly 86 canonical base64url characters, then as
    /// [`Ed25519PublicKey::verify`].
    pub fn verify_text(&self, message: &[u8], sig: &str) -> Result<(), SignatureError> {
        let packed = decode_sig(sig, usize::from(ED25519_SIGNATURE_BITS))?;
        self.verify(message, packed.as_slice())
    }
}

impl fmt::Debug for Ed25519PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Ed25519PublicKey({})",
            crate::base64url::encode(&self.bytes)
        )
    }
}

impl Ed25519SigningKey {
    /// The key pair of a 32-byte RFC 8032 private key (seed).
    pub fn from_seed(seed: &[u8]) -> Result<Ed25519SigningKey, KeyError> {
        Self::check_seed(seed)?;
        let pair = Ed25519KeyPair::from_seed_unchecked(seed).map_err(|_| KeyError::Ed25519Seed)?;
        Ok(Ed25519SigningKey { pair })
    }

    /// Whether `seed` would make a key ([`Ed25519SigningKey::from_seed`] refuses exactly what
    /// this refuses), without deriving the key: a key file is checked whole when it is read, and
    /// a key is derived only when it signs.
    pub fn check_seed(seed: &[u8]) -> Result<(), KeyError> {
        if seed.len() != 32 {
            return Err(KeyError::Ed25519Length { len: seed.len() });
        }
        Ok(())
    }

    /// The public half.
    pub fn public_key(&self) -> Ed25519PublicKey {
        let mut bytes = [0u8; 32];
        for (out, byte) in bytes.iter_mut().zip(self.pair.public_key().as_ref()) {
            *out = *byte;
        }
        Ed25519PublicKey { bytes }
    }

    /// The signature of `message` (deterministic, RFC 8032).
    pub fn sign(&self, message: &[u8]) -> Tag {
        let signature = self.pair.sign(message);
        Tag::from_packed(signature.as_ref().to_vec(), ED25519_SIGNATURE_BITS)
    }
}

impl fmt::Debug for Ed25519SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ed25519SigningKey")
            .field("seed", &"<redacted>")
            .field("fingerprint", &self.public_key().fingerprint())
            .finish()
    }
}
