//! The right edge of an RFC 6962 tree: the roots of its complete subtrees, left to right. It is
//! all an appender needs to compute the next root, at most 64 hashes whatever the size.

use std::fmt;

use super::hash::{empty_root, node_hash, MerkleHash};

/// The complete-subtree roots of a tree of [`size`](Frontier::size) leaves, one per set bit of
/// the size, largest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    hashes: Vec<MerkleHash>,
}

/// Stored frontier bytes that do not describe a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontierError {
    /// The size read.
    pub size: u64,
    /// The number of hashes found.
    pub hashes: usize,
}

impl fmt::Display for FrontierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tree of {} leaves has {} complete subtrees, not {}",
            self.size,
            self.size.count_ones(),
            self.hashes
        )
    }
}

impl std::error::Error for FrontierError {}

impl Frontier {
    /// The frontier of the empty tree.
    pub fn new() -> Frontier {
        Frontier::default()
    }

    /// A frontier from a size and its complete-subtree roots, largest first; their number must
    /// be the number of set bits of `size`.
    pub fn from_parts(size: u64, hashes: Vec<MerkleHash>) -> Result<Frontier, FrontierError> {
        if hashes.len() != size.count_ones() as usize {
            return Err(FrontierError {
                size,
                hashes: hashes.len(),
            });
        }
        Ok(Frontier { size, hashes })
    }

    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The complete-subtree roots, largest first.
    pub fn hashes(&self) -> &[MerkleHash] {
        &self.hashes
    }

    /// Appends a leaf hash. `None` (and no change) when the tree already holds `u64::MAX`
    /// leaves.
    pub fn push(&mut self, leaf: MerkleHash) -> Option<()> {
        let next = self.size.checked_add(1)?;
        let mut carry = leaf;
        let mut level = 0;
        while self.size >> level & 1 == 1 {
            let left = self.hashes.pop()?;
            carry = node_hash(&left, &carry);
            level += 1;
        }
        self.hashes.push(carry);
        self.size = next;
        Some(())
    }

    /// The root of the tree.
    pub fn root(&self) -> MerkleHash {
        let mut hashes = self.hashes.iter().rev();
        let Some(last) = hashes.next() else {
            return empty_root();
        };
        hashes.fold(*last, |right, left| node_hash(left, &right))
    }
}
