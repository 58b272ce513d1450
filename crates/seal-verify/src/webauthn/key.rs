//! An approver's credential public key, bound to its algorithm.

use std::fmt;

use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1, ED25519};

use super::MAX_SIGNATURE_BYTES;
use crate::base64url;

/// Bytes of an ES256 public key: an uncompressed P-256 point, `0x04 || x || y`.
pub const ES256_PUBLIC_KEY_BYTES: usize = 65;

/// Bytes of an Ed25519 public key (RFC 8032 encoding).
pub const ED25519_PUBLIC_KEY_BYTES: usize = 32;

/// The signature algorithm of an approver's credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ApproverAlgorithm {
    /// ECDSA over P-256 with SHA-256, signatures in ASN.1 DER (COSE -7).
    Es256,
    /// EdDSA over Ed25519 (COSE -8).
    Ed25519,
}

impl ApproverAlgorithm {
    /// The name in the approver registry file: `es256` or `ed25519`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Es256 => "es256",
            Self::Ed25519 => "ed25519",
        }
    }

    /// The algorithm of a registry file name, exactly as [`ApproverAlgorithm::name`] writes it.
    pub fn from_name(name: &str) -> Option<ApproverAlgorithm> {
        match name {
            "es256" => Some(Self::Es256),
            "ed25519" => Some(Self::Ed25519),
            _ => None,
        }
    }

    /// The COSE algorithm identifier (IANA): -7 for ES256, -8 for EdDSA.
    pub fn cose_algorithm(self) -> i64 {
        match self {
            Self::Es256 => -7,
            Self::Ed25519 => -8,
        }
    }

    /// Bytes of a public key of this algorithm.
    pub fn public_key_bytes(self) -> usize {
        match self {
            Self::Es256 => ES256_PUBLIC_KEY_BYTES,
            Self::Ed25519 => ED25519_PUBLIC_KEY_BYTES,
        }
    }
}

/// A credential public key bound to its algorithm: the message never picks the algorithm.
///
/// Whether the bytes are a point of the curve is decided when verifying: a key that is not a
/// point verifies nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum ApproverPublicKey {
    /// An uncompressed P-256 point, `0x04 || x || y`.
    Es256([u8; ES256_PUBLIC_KEY_BYTES]),
    /// An Ed25519 public key.
    Ed25519([u8; ED25519_PUBLIC_KEY_BYTES]),
}

impl ApproverPublicKey {
    /// The key of `algorithm` from its bytes: 65 bytes starting with `0x04` for ES256, 32 bytes
    /// for Ed25519; `None` for any other length or prefix.
    pub fn from_bytes(algorithm: ApproverAlgorithm, bytes: &[u8]) -> Option<ApproverPublicKey> {
        match algorithm {
            ApproverAlgorithm::Es256 => {
                let point: [u8; ES256_PUBLIC_KEY_BYTES] = bytes.try_into().ok()?;
                (point.first() == Some(&0x04)).then_some(Self::Es256(point))
            }
            ApproverAlgorithm::Ed25519 => bytes.try_into().ok().map(Self::Ed25519),
        }
    }

    /// The key's algorithm.
    pub fn algorithm(&self) -> ApproverAlgorithm {
        match self {
            Self::Es256(_) => ApproverAlgorithm::Es256,
            Self::Ed25519(_) => ApproverAlgorithm::Ed25519,
        }
    }

    /// The key's bytes (65 for ES256, 32 for Ed25519).
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Es256(point) => point,
            Self::Ed25519(bytes) => bytes,
        }
    }

    /// Whether `signature` is this key's signature of `message`: ring's
    /// `ECDSA_P256_SHA256_ASN1` or `ED25519` verifier. A signature longer than
    /// [`MAX_SIGNATURE_BYTES`] is refused before ring is called.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        if signature.len() > MAX_SIGNATURE_BYTES {
            return false;
        }
        match self {
            Self::Es256(point) => UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point)
                .verify(message, signature)
                .is_ok(),
            Self::Ed25519(bytes) => UnparsedPublicKey::new(&ED25519, bytes)
                .verify(message, signature)
                .is_ok(),
        }
    }
}

impl fmt::Debug for ApproverPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ApproverPublicKey({}, {})",
            self.algorithm().name(),
            base64url::encode(self.as_bytes())
        )
    }
}
