//! An append-only RFC 6962 tree in memory: roots at every size, and inclusion and consistency
//! proofs (RFC 6962 section 2.1.1 `PATH` and section 2.1.2 `PROOF`).

use std::fmt;

use super::hash::{empty_root, node_hash, MerkleHash};

/// An RFC 6962 tree over leaf hashes, keeping every complete subtree's hash: about two hashes
/// per leaf, so a root at any size and a proof cost a few dozen hashes at most.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// `levels[k][i]` is the hash of leaves `i * 2^k .. (i + 1) * 2^k`.
    levels: Vec<Vec<MerkleHash>>,
}

/// A size or index the tree cannot answer for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TreeError {
    /// A size beyond the leaves the tree holds.
    SizeBeyondTree {
        /// The size asked for.
        size: u64,
        /// The leaves the tree holds.
        leaves: u64,
    },
    /// A leaf index not below the size asked for.
    IndexOutOfRange {
        /// The index asked for.
        index: u64,
        /// The size asked for.
        size: u64,
    },
    /// The old size of a consistency proof is larger than the new size.
    SizesOutOfOrder {
        /// The old size.
        old: u64,
        /// The new size.
        new: u64,
    },
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::SizeBeyondTree { size, leaves } => {
                write!(f, "size {size} is beyond the {leaves} leaves of the tree")
            }
            TreeError::IndexOutOfRange { index, size } => {
                write!(f, "index {index} is not inside a tree of size {size}")
            }
            TreeError::SizesOutOfOrder { old, new } => {
                write!(f, "old size {old} is larger than new size {new}")
            }
        }
    }
}

impl std::error::Error for TreeError {}

/// The largest power of two below `n`, for `n >= 2`.
fn split_point(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1u64 << (63 - (n - 1).leading_zeros())
}

impl Tree {
    /// An empty tree.
    pub fn new() -> Tree {
        Tree::default()
    }

    /// The number of leaves.
    pub fn len(&self) -> u64 {
        self.levels.first().map_or(0, |leaves| leaves.len() as u64)
    }

    /// Whether the tree has no leaf.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The hash of leaf `index`, if the tree holds it.
    pub fn leaf(&self, index: u64) -> Option<&MerkleHash> {
        self.node(0, index)
    }

    /// The hash of the complete subtree of `2^level` leaves that starts at leaf
    /// `index * 2^level`, if the tree holds all of its leaves (a tiles log's hash tiles hold
    /// these for the levels that are multiples of 8).
    pub fn subtree(&self, level: u32, index: u64) -> Option<&MerkleHash> {
        self.node(level, index)
    }

    /// Appends a leaf hash and completes every subtree it closes.
    pub fn push(&mut self, leaf: MerkleHash) {
        let mut carry = leaf;
        let mut level = 0;
        loop {
            if self.levels.len() <= level {
                self.levels.push(Vec::new());
            }
            let Some(row) = self.levels.get_mut(level) else {
                return;
            };
            row.push(carry);
            if row.len() % 2 == 1 {
                return;
            }
            match row.get(row.len() - 2..) {
                Some([left, right]) => carry = node_hash(left, right),
                _ => return,
            }
            level += 1;
        }
    }

    /// The root of the first `size` leaves.
    pub fn root(&self, size: u64) -> Result<MerkleHash, TreeError> {
        self.check_size(size)?;
        if size == 0 {
            return Ok(empty_root());
        }
        Ok(self.range_hash(0, size))
    }

    /// The inclusion proof of leaf `index` in the tree of the first `size` leaves.
    pub fn inclusion_proof(&self, index: u64, size: u64) -> Result<Vec<MerkleHash>, TreeError> {
        self.check_size(size)?;
        if index >= size {
            return Err(TreeError::IndexOutOfRange { index, size });
        }
        let mut proof = Vec::new();
        self.path(index, 0, size, &mut proof);
        Ok(proof)
    }

    /// The consistency proof from the tree of the first `old` leaves to that of the first
    /// `new`: empty when `old` is 0 or equals `new`.
    pub fn consistency_proof(&self, old: u64, new: u64) -> Result<Vec<MerkleHash>, TreeError> {
        self.check_size(new)?;
        if old > new {
            return Err(TreeError::SizesOutOfOrder { old, new });
        }
        let mut proof = Vec::new();
        if old > 0 && old < new {
            self.subproof(old, 0, new, true, &mut proof);
        }
        Ok(proof)
    }

    fn check_size(&self, size: u64) -> Result<(), TreeError> {
        let leaves = self.len();
        if size > leaves {
            return Err(TreeError::SizeBeyondTree { size, leaves });
        }
        Ok(())
    }

    fn node(&self, level: u32, index: u64) -> Option<&MerkleHash> {
        let row = self.levels.get(usize::try_from(level).ok()?)?;
        row.get(usize::try_from(index).ok()?)
    }

    /// `MTH(D[start..end])` for `start < end <= len`, with `start` a multiple of the largest
    /// power of two not above `end - start` (every range RFC 6962's recursion visits is).
    fn range_hash(&self, start: u64, end: u64) -> MerkleHash {
        let n = end - start;
        if n.is_power_of_two() && start % n == 0 {
            let level = n.trailing_zeros();
            if let Some(hash) = self.node(level, start >> level) {
                return *hash;
            }
        }
        if n < 2 {
            // Only reached for a range outside the tree, which the callers exclude.
            debug_assert!(false, "range {start}..{end} outside the tree");
            return empty_root();
        }
        let k = split_point(n);
        node_hash(
            &self.range_hash(start, start + k),
            &self.range_hash(start + k, end),
        )
    }

    /// RFC 6962 `PATH(m, D[start..end])`, appended to `out`.
    fn path(&self, m: u64, start: u64, end: u64, out: &mut Vec<MerkleHash>) {
        let n = end - start;
        if n <= 1 {
            return;
        }
        let k = split_point(n);
        if m < k {
            self.path(m, start, start + k, out);
            out.push(self.range_hash(start + k, end));
        } else {
            self.path(m - k, start + k, end, out);
            out.push(self.range_hash(start, start + k));
        }
    }

    /// RFC 6962 `SUBPROOF(m, D[start..end], complete)`, appended to `out`.
    fn subproof(&self, m: u64, start: u64, end: u64, complete: bool, out: &mut Vec<MerkleHash>) {
        let n = end - start;
        if m == n {
            if !complete {
                out.push(self.range_hash(start, end));
            }
            return;
        }
        let k = split_point(n);
        if m <= k {
            self.subproof(m, start, start + k, complete, out);
            out.push(self.range_hash(start + k, end));
        } else {
            self.subproof(m - k, start + k, end, false, out);
            out.push(self.range_hash(start, start + k));
        }
    }
}
