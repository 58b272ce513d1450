//! The decision and disclosure log of seal in one SQLite file (spec/audit-log.md, "Storage").
//!
//! This is an edge crate: it does file IO, which the core crates never do. Each append is one
//! `BEGIN IMMEDIATE` transaction that reads the tree's frontier, writes the entry with its
//! RFC 6962 leaf hash, the checkpoint signed over the new root, the new frontier and the entry's
//! row in the query index, then commits: an append is whole or absent, and concurrent writers
//! get consecutive positions.
//!
//! The query index (`ev`) is derived from the entries and only serves `show` and `query`;
//! verification never reads it. Signing is the caller's: an append takes the signer as a value.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod read;
mod store;

pub use read::{EntryFilter, StoredEntry};
pub use store::{
    Appended, CheckpointSigner, LogError, LogOptions, SqliteLog, DEFAULT_BUSY_TIMEOUT,
    DEFAULT_WAL_LIMIT_BYTES, SCHEMA_VERSION,
};
