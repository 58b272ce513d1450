//! The transparency-log formats of the decision log (spec/audit-log.md): RFC 6962 Merkle
//! hashing with inclusion and consistency proofs, the C2SP signed-note grammar, C2SP checkpoints,
//! the C2SP tlog-proof file, and the C2SP tlog-tiles layout (hash tiles and entry bundles,
//! spec/audit-tiles.md).
//!
//! Everything here is text and hashing: no key is held and no signature is checked (the keys
//! and signatures are seal-verify's). Every parser bounds what it reads with a named limit and
//! refuses anything outside the grammar; every verifier returns on any input, including tree
//! sizes and indexes anywhere in `u64`, after at most [`MAX_PROOF_HASHES`] steps of work per
//! proof hash.

mod bundle;
mod checkpoint;
mod frontier;
mod hash;
mod note;
mod proof;
mod proof_file;
mod tile_path;
mod tiles;
mod tree;

pub use bundle::{
    decode_entry_bundle, encode_entry_bundle, BundleError, MAX_BUNDLE_BYTES, MAX_BUNDLE_ENTRY_BYTES,
};
pub use checkpoint::{is_log_name, Checkpoint, CheckpointError, MAX_ORIGIN_BYTES};
pub use frontier::{Frontier, FrontierError};
pub use hash::{empty_root, leaf_hash, node_hash, MerkleHash};
pub use note::{
    key_id, NoteSignature, SignedNote, SignedNoteError, ED25519_KEY_TYPE, MAX_NOTE_BYTES,
    MAX_NOTE_SIGNATURES,
};
pub use proof::{
    root_from_inclusion, verify_consistency, verify_inclusion, ProofError, MAX_PROOF_HASHES,
};
pub use proof_file::{ProofFile, ProofFileError, PROOF_FILE_HEADER};
pub use tile_path::{
    entry_bundle_paths, hash_tile_paths, TileKind, TilePath, TilePathError, TilePaths,
    MAX_TILE_LEVEL, MAX_TILE_PATH_BYTES, TILE_HEIGHT, TILE_WIDTH,
};
pub use tiles::{hash_tile, TileError, TileRebuild, TILE_HASH_BYTES};
pub use tree::{Tree, TreeError};
