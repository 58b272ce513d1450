//! RFC 6962 section 2.1 hashing: leaves and interior nodes in separate domains.

use sha2::{Digest, Sha256};

use crate::digest::Sha256Digest;

/// A node of the tree: a SHA-256 value.
pub type MerkleHash = Sha256Digest;

/// The hash of a leaf: `SHA-256(0x00 || data)`.
pub fn leaf_hash(data: &[u8]) -> MerkleHash {
    let mut hasher = Sha256::new();
    hasher.update([0x00]);
    hasher.update(data);
    MerkleHash::from_bytes(hasher.finalize().into())
}

/// The hash of an interior node: `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &MerkleHash, right: &MerkleHash) -> MerkleHash {
    let mut hasher = Sha256::new();
    hasher.update([0x01]);
    hasher.update(left.as_bytes());
    hasher.update(right.as_bytes());
    MerkleHash::from_bytes(hasher.finalize().into())
}

/// The root of the empty tree: `SHA-256("")`.
pub fn empty_root() -> MerkleHash {
    MerkleHash::of(&[])
}
