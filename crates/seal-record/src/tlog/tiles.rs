//! Hash tiles of a tiles log (spec/audit-tiles.md, "Hash tiles"): the tile bytes of a tree,
//! and the tree rebuilt from its tiles with every upper tile checked against the leaves.

use std::fmt;

use super::hash::MerkleHash;
use super::tile_path::{hash_tile_paths, TileKind, TilePath, TilePaths, TILE_HEIGHT};
use super::tree::Tree;

/// The bytes of one hash in a tile.
pub const TILE_HASH_BYTES: usize = 32;

/// Why a tile cannot be made or is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TileError {
    /// The tile is an entry bundle, not a hash tile.
    NotHashes {
        /// The tile.
        tile: TilePath,
    },
    /// The tree does not hold every subtree the tile names.
    BeyondTree {
        /// The tile.
        tile: TilePath,
    },
    /// The tile's bytes are not `width` hashes of 32 bytes.
    Length {
        /// The tile.
        tile: TilePath,
        /// The bytes expected.
        expected: usize,
        /// The bytes given.
        found: usize,
    },
    /// A hash of an upper tile differs from the hash of the leaves it covers.
    Mismatch {
        /// The tile.
        tile: TilePath,
        /// The first hash within the tile that differs.
        hash: u16,
    },
    /// A tile given when the rebuild expected another, or none.
    Unexpected {
        /// The tile given.
        tile: TilePath,
    },
    /// The rebuild finished before every tile was given.
    Missing {
        /// The first tile not given.
        tile: TilePath,
    },
}

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileError::NotHashes { tile } => {
                write!(f, "{tile} is an entry bundle, not a hash tile")
            }
            TileError::BeyondTree { tile } => {
                write!(f, "{tile} names subtrees the tree does not hold")
            }
            TileError::Length {
                tile,
                expected,
                found,
            } => write!(f, "{tile} is {found} bytes, not {expected}"),
            TileError::Mismatch { tile, hash } => write!(
                f,
                "hash {hash} of {tile} differs from the hash of the leaves below it"
            ),
            TileError::Unexpected { tile } => {
                write!(f, "{tile} is not the next tile of the tree")
            }
            TileError::Missing { tile } => write!(f, "{tile} is missing"),
        }
    }
}

impl std::error::Error for TileError {}

/// The bytes of the hash tile `tile` of `tree`: the hashes of tree level `8L` at positions
/// `256N` to `256N + W - 1`, 32 bytes each, in order.
pub fn hash_tile(tree: &Tree, tile: &TilePath) -> Result<Vec<u8>, TileError> {
    let TileKind::Hashes { level } = tile.kind() else {
        return Err(TileError::NotHashes { tile: *tile });
    };
    let beyond = || TileError::BeyondTree { tile: *tile };
    let first = tile.first().ok_or_else(beyond)?;
    let tree_level = TILE_HEIGHT * u32::from(level);
    let mut bytes = Vec::with_capacity(usize::from(tile.width()) * TILE_HASH_BYTES);
    for at in 0..u64::from(tile.width()) {
        let position = first.checked_add(at).ok_or_else(beyond)?;
        let hash = tree.subtree(tree_level, position).ok_or_else(beyond)?;
        bytes.extend_from_slice(hash.as_bytes());
    }
    Ok(bytes)
}

/// Rebuilds the tree of `size` leaves from its hash tiles, given one by one in the order of
/// [`hash_tile_paths`]: the level-0 tiles give the leaf hashes, and every hash of an upper
/// tile must equal the hash of the leaves it covers. A tile is refused for its length or a
/// differing hash; [`TileRebuild::finish`] refuses a rebuild missing a tile.
///
/// ```
/// use seal_record::tlog::{hash_tile, leaf_hash, TileRebuild, Tree};
///
/// let mut tree = Tree::new();
/// for n in 0..300u32 {
///     tree.push(leaf_hash(&n.to_be_bytes()));
/// }
/// let mut rebuild = TileRebuild::new(300);
/// while let Some(tile) = rebuild.next_tile() {
///     let bytes = hash_tile(&tree, &tile).unwrap();
///     rebuild.add(&tile, &bytes).unwrap();
/// }
/// assert_eq!(rebuild.finish().unwrap().root(300), tree.root(300));
/// ```
#[derive(Debug, Clone)]
pub struct TileRebuild {
    tiles: TilePaths,
    next: Option<TilePath>,
    tree: Tree,
}

impl TileRebuild {
    /// A rebuild of the tree of `size` leaves.
    pub fn new(size: u64) -> TileRebuild {
        let mut tiles = hash_tile_paths(size);
        TileRebuild {
            next: tiles.next(),
            tiles,
            tree: Tree::new(),
        }
    }

    /// The tile to give next, or `None` when every tile was given.
    pub fn next_tile(&self) -> Option<TilePath> {
        self.next
    }

    /// Takes the bytes of `tile`, which must be [`TileRebuild::next_tile`].
    pub fn add(&mut self, tile: &TilePath, bytes: &[u8]) -> Result<(), TileError> {
        if self.next_tile().as_ref() != Some(tile) {
            return Err(TileError::Unexpected { tile: *tile });
        }
        let expected = usize::from(tile.width()) * TILE_HASH_BYTES;
        if bytes.len() != expected {
            return Err(TileError::Length {
                tile: *tile,
                expected,
                found: bytes.len(),
            });
        }
        let TileKind::Hashes { level } = tile.kind() else {
            return Err(TileError::NotHashes { tile: *tile });
        };
        let hashes = bytes
            .chunks_exact(TILE_HASH_BYTES)
            .map(|chunk| <[u8; 32]>::try_from(chunk).map(MerkleHash::from_bytes));
        if level == 0 {
            for hash in hashes {
                // chunks_exact of a length checked above: every chunk has 32 bytes.
                let hash = hash.map_err(|_| TileError::Length {
                    tile: *tile,
                    expected,
                    found: bytes.len(),
                })?;
                self.tree.push(hash);
            }
        } else {
            let first = tile.first().ok_or(TileError::BeyondTree { tile: *tile })?;
            let tree_level = TILE_HEIGHT * u32::from(level);
            for (at, hash) in (0u16..).zip(hashes) {
                let position = first
                    .checked_add(u64::from(at))
                    .ok_or(TileError::BeyondTree { tile: *tile })?;
                let below = self.tree.subtree(tree_level, position);
                if hash.ok().as_ref() != below {
                    return Err(TileError::Mismatch {
                        tile: *tile,
                        hash: at,
                    });
                }
            }
        }
        self.next = self.tiles.next();
        Ok(())
    }

    /// The tree rebuilt, once every tile was given.
    pub fn finish(self) -> Result<Tree, TileError> {
        match self.next_tile() {
            Some(tile) => Err(TileError::Missing { tile }),
            None => Ok(self.tree),
        }
    }
}
