//! The fleet store of seal's decision logs in PostgreSQL (spec/audit-fleet.md).
//!
//! Each machine keeps its own log (seal-log-sqlite) and pushes the checkpoints it signs to one
//! PostgreSQL database. The database holds, for each log (named by its origin), the last
//! checkpoint it accepted, and accepts a new one only if it extends that one: a smaller size
//! is a rollback, an equal size with another root is a fork, and a larger size needs an
//! RFC 6962 consistency proof from the held checkpoint, which the database verifies itself.
//! The rule lives in a PL/pgSQL function that runs with its owner's rights, and a pushing role
//! has no right to write the tables, so a client that does not go through this crate cannot
//! move a log backwards either.
//!
//! What the database proves: every checkpoint it accepted for a log extends every earlier one
//! it accepted for that log, so a machine that rolls back or forks its log after a push is
//! refused, and the refusal names the log and both sizes. What it does not prove: it checks no
//! signature (notes are stored as pushed; verifiers check the Ed25519 signatures offline), it
//! binds no origin to a role, and a machine that forks before its first push is not caught.
//!
//! This is an edge crate: it does network IO, which the core crates never do.
//!
//! ```no_run
//! use seal_log_postgres::{ConsistencyProof, FleetLog};
//! use seal_record::tlog::{leaf_hash, Checkpoint, Tree};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Once, as the owner of the schema:
//! let mut owner = FleetLog::connect("postgres://owner@127.0.0.1/fleet")?;
//! owner.install_schema()?;
//! owner.grant_pusher("machines")?;
//!
//! // On each machine, after each append to its own log:
//! let mut tree = Tree::new();
//! tree.push(leaf_hash(b"first record"));
//! let root = tree.root(1)?;
//! let body = Checkpoint::new("example.com/log", 1, root)?.to_text();
//! let note = format!("{body}\n\u{2014} example.com/log AAAA\n"); // signed by the machine
//! let mut fleet = FleetLog::connect("postgres://machines@127.0.0.1/fleet")?;
//! let held = fleet.latest("example.com/log")?.map_or(0, |held| held.size);
//! let proof = tree.consistency_proof(held, 1)?;
//! let accepted = fleet.push("example.com/log", &note, 1, &root, ConsistencyProof::new(held, &proof))?;
//! assert_eq!(accepted.size(), 1);
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod refusal;
mod store;

pub use refusal::{FleetError, FleetRefusal};
pub use store::{Accepted, ConsistencyProof, FleetLog, HeldCheckpoint, StoredRecord};
