//! The keys and signatures of the decision log's checkpoints (spec/audit-log.md, "Keys, notes
//! and checkpoints"): a log signing key that signs C2SP checkpoints as C2SP signed notes, the
//! verifier key text (`<name>+<key id>+<base64 key>`) that names it, and the opener that takes a
//! signed checkpoint back only when a known key signed it.
//!
//! The grammar of notes and checkpoints is seal-record's (`seal_record::tlog`); this module adds
//! the Ed25519 keys and the rules of which signatures count.

mod open;
mod signer;
mod vkey;

pub use open::{open_checkpoint, SignedCheckpointError, VerifiedCheckpoint};
pub use signer::{LogSigningKey, LOG_SEED_BYTES};
pub use vkey::{LogKeyError, LogVerifierKey, LOG_PUBLIC_KEY_BYTES};
