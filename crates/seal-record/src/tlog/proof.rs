//! Verification of RFC 6962 inclusion and consistency proofs (the procedures of RFC 9162
//! sections 2.1.3.2 and 2.1.4.2, whose hashing is RFC 6962's).
//!
//! Both procedures walk the proof once and shift two `u64` counters right at most 64 times in
//! all, so they return promptly for every size and index a `u64` can hold; a proof longer than
//! [`MAX_PROOF_HASHES`] is refused before any hashing.

use std::fmt;

use super::hash::{empty_root, node_hash, MerkleHash};

/// The most hashes a proof may hold. A tree of at most `u64::MAX` leaves is at most 64 levels
/// deep, so no inclusion proof needs more than 64 hashes and no consistency proof more than 65.
pub const MAX_PROOF_HASHES: usize = 65;

/// Why a proof does not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProofError {
    /// The leaf index is not below the tree size.
    IndexOutOfRange {
        /// The index given.
        index: u64,
        /// The tree size given.
        size: u64,
    },
    /// The old size of a consistency proof is larger than the new size.
    SizesOutOfOrder {
        /// The old size.
        old: u64,
        /// The new size.
        new: u64,
    },
    /// The proof holds more hashes than any proof may ([`MAX_PROOF_HASHES`]).
    TooLong {
        /// The number of hashes given.
        hashes: usize,
    },
    /// The proof holds more or fewer hashes than the sizes call for.
    WrongLength {
        /// The number of hashes given.
        hashes: usize,
    },
    /// The proof leads to another root than the (new) root given.
    RootMismatch,
    /// The consistency proof leads to another old root than the one given.
    OldRootMismatch,
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofError::IndexOutOfRange { index, size } => {
                write!(f, "index {index} is not inside a tree of size {size}")
            }
            ProofError::SizesOutOfOrder { old, new } => {
                write!(f, "old size {old} is larger than new size {new}")
            }
            ProofError::TooLong { hashes } => write!(
                f,
                "proof of {hashes} hashes is longer than any proof ({MAX_PROOF_HASHES})"
            ),
            ProofError::WrongLength { hashes } => {
                write!(f, "proof of {hashes} hashes does not fit the sizes")
            }
            ProofError::RootMismatch => f.write_str("proof does not lead to the root"),
            ProofError::OldRootMismatch => f.write_str("proof does not lead to the old root"),
        }
    }
}

impl std::error::Error for ProofError {}

/// The root an inclusion proof leads to from `leaf` at `index` in a tree of `size` leaves, or
/// why there is none (RFC 9162 section 2.1.3.2, steps 1 to 5).
pub fn root_from_inclusion(
    leaf: &MerkleHash,
    index: u64,
    size: u64,
    proof: &[MerkleHash],
) -> Result<MerkleHash, ProofError> {
    if index >= size {
        return Err(ProofError::IndexOutOfRange { index, size });
    }
    if proof.len() > MAX_PROOF_HASHES {
        return Err(ProofError::TooLong {
            hashes: proof.len(),
        });
    }
    let wrong_length = ProofError::WrongLength {
        hashes: proof.len(),
    };
    // `index < size`, so `size - 1` cannot wrap.
    let (mut fnode, mut snode) = (index, size - 1);
    let mut root = *leaf;
    for sibling in proof {
        if snode == 0 {
            return Err(wrong_length);
        }
        if fnode & 1 == 1 || fnode == snode {
            root = node_hash(sibling, &root);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            root = node_hash(&root, sibling);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 {
        return Err(wrong_length);
    }
    Ok(root)
}

/// Checks that `leaf` is at `index` in the tree of `size` leaves whose root is `root`.
pub fn verify_inclusion(
    leaf: &MerkleHash,
    index: u64,
    size: u64,
    proof: &[MerkleHash],
    root: &MerkleHash,
) -> Result<(), ProofError> {
    if root_from_inclusion(leaf, index, size, proof)? == *root {
        Ok(())
    } else {
        Err(ProofError::RootMismatch)
    }
}

/// Checks that the tree of `old_size` leaves with root `old_root` is a prefix of the tree of
/// `new_size` leaves with root `new_root` (RFC 9162 section 2.1.4.2).
///
/// Equal sizes need an empty proof and equal roots. The empty tree (whose root must be
/// [`empty_root`]) is a prefix of every tree, with an empty proof.
pub fn verify_consistency(
    old_size: u64,
    new_size: u64,
    old_root: &MerkleHash,
    new_root: &MerkleHash,
    proof: &[MerkleHash],
) -> Result<(), ProofError> {
    if old_size > new_size {
        return Err(ProofError::SizesOutOfOrder {
            old: old_size,
            new: new_size,
        });
    }
    if proof.len() > MAX_PROOF_HASHES {
        return Err(ProofError::TooLong {
            hashes: proof.len(),
        });
    }
    let wrong_length = ProofError::WrongLength {
        hashes: proof.len(),
    };
    if old_size == 0 || old_size == new_size {
        if !proof.is_empty() {
            return Err(wrong_length);
        }
        if old_size == 0 && *old_root != empty_root() {
            return Err(ProofError::OldRootMismatch);
        }
        return if old_root == new_root || old_size == 0 {
            Ok(())
        } else {
            Err(ProofError::RootMismatch)
        };
    }
    // A power-of-two old tree is a node of the new one: the proof starts above it.
    let (first, rest) = if old_size.is_power_of_two() {
        (*old_root, proof)
    } else {
        match proof.split_first() {
            Some((first, rest)) => (*first, rest),
            None => return Err(wrong_length),
        }
    };
    // `0 < old_size <= new_size`, so neither subtraction wraps.
    let (mut fnode, mut snode) = (old_size - 1, new_size - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut old, mut new) = (first, first);
    for sibling in rest {
        if snode == 0 {
            return Err(wrong_length);
        }
        if fnode & 1 == 1 || fnode == snode {
            old = node_hash(sibling, &old);
            new = node_hash(sibling, &new);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            new = node_hash(&new, sibling);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 {
        return Err(wrong_length);
    }
    if old != *old_root {
        return Err(ProofError::OldRootMismatch);
    }
    if new != *new_root {
        return Err(ProofError::RootMismatch);
    }
    Ok(())
}
