//! The database's refusals, read back from the SQLSTATE and the detail of its error.

use std::fmt;

use seal_record::tlog::MerkleHash;
use seal_record::Sha256Digest;

/// Why the database refused a push. Each case displays as the database's own message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FleetRefusal {
    /// The pushed checkpoint is smaller than the one held (SQLSTATE `SL001`).
    Rollback {
        /// The log.
        origin: String,
        /// The size held.
        held: u64,
        /// The size pushed.
        pushed: u64,
    },
    /// The pushed checkpoint has the held size and another root (SQLSTATE `SL002`).
    Fork {
        /// The log.
        origin: String,
        /// The size of both checkpoints.
        size: u64,
        /// The root held.
        held_root: MerkleHash,
        /// The root pushed.
        pushed_root: MerkleHash,
    },
    /// The pushed checkpoint is larger, and its consistency proof from the held one does not
    /// verify: a fork, or a wrong proof (SQLSTATE `SL003`).
    BadProof {
        /// The log.
        origin: String,
        /// The size held.
        held: u64,
        /// The size pushed.
        pushed: u64,
        /// Why the proof does not verify, as the database says it.
        reason: String,
    },
    /// The consistency proof starts at another size than the one held, which a concurrent push
    /// has moved: read [`crate::FleetLog::latest`] and prove again (SQLSTATE `SL004`).
    StaleProof {
        /// The log.
        origin: String,
        /// The size held.
        held: u64,
        /// The size the proof starts at.
        proof_from: u64,
    },
    /// A record was pushed at an index no accepted checkpoint covers (SQLSTATE `SL005`).
    RecordBeyondCheckpoint {
        /// The log.
        origin: String,
        /// The record's index.
        index: u64,
        /// The size held.
        held: u64,
    },
    /// Other bytes are already stored at a record's index (SQLSTATE `SL006`).
    RecordConflict {
        /// The log.
        origin: String,
        /// The record's index.
        index: u64,
    },
    /// The push does not fit the grammar: a bad origin, a root not of 32 bytes, a note that
    /// does not begin with the pushed checkpoint (SQLSTATE `SL009`).
    Malformed {
        /// The database's message.
        message: String,
    },
}

impl fmt::Display for FleetRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetRefusal::Rollback {
                origin,
                held,
                pushed,
            } => write!(
                f,
                "seal: rollback of log `{origin}`: held size {held}, pushed size {pushed}"
            ),
            FleetRefusal::Fork {
                origin,
                size,
                held_root,
                pushed_root,
            } => write!(
                f,
                "seal: fork of log `{origin}` at size {size}: pushed root {} differs from held root {}",
                base64(pushed_root),
                base64(held_root)
            ),
            FleetRefusal::BadProof {
                origin,
                held,
                pushed,
                reason,
            } => write!(
                f,
                "seal: unproven extension of log `{origin}`: held size {held}, pushed size {pushed}: {reason}"
            ),
            FleetRefusal::StaleProof {
                origin,
                held,
                proof_from,
            } => write!(
                f,
                "seal: stale proof for log `{origin}`: held size {held}, proof from size {proof_from}"
            ),
            FleetRefusal::RecordBeyondCheckpoint {
                origin,
                index,
                held,
            } => write!(
                f,
                "seal: record beyond checkpoint of log `{origin}`: index {index}, held size {held}"
            ),
            FleetRefusal::RecordConflict { origin, index } => write!(
                f,
                "seal: conflicting record of log `{origin}` at index {index}"
            ),
            FleetRefusal::Malformed { message } => f.write_str(message),
        }
    }
}

/// Why a call to the fleet store failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum FleetError {
    /// The database refused the push.
    Refused(FleetRefusal),
    /// The database or the connection failed.
    Database(postgres::Error),
    /// The connection has no current schema to install into or push to (its `search_path`
    /// names no existing schema).
    NoSchema,
    /// A size or index is beyond what PostgreSQL's `bigint` holds.
    OutOfRange {
        /// The value.
        value: u64,
    },
    /// The database answered with a value outside the schema (a negative size, a root not of
    /// 32 bytes, a refusal without its detail).
    Unexpected {
        /// What was unexpected.
        what: &'static str,
    },
}

impl fmt::Display for FleetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetError::Refused(refusal) => refusal.fmt(f),
            FleetError::Database(error) => match error.as_db_error() {
                Some(db) => write!(
                    f,
                    "fleet database error: {} (SQLSTATE {})",
                    db.message(),
                    db.code().code()
                ),
                None => write!(f, "fleet database error: {error}"),
            },
            FleetError::NoSchema => f.write_str(
                "the connection has no current schema: set a search_path naming an existing schema",
            ),
            FleetError::OutOfRange { value } => {
                write!(f, "{value} is beyond the largest bigint")
            }
            FleetError::Unexpected { what } => {
                write!(f, "unexpected answer from the database: {what}")
            }
        }
    }
}

impl std::error::Error for FleetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FleetError::Database(error) => Some(error),
            _ => None,
        }
    }
}

impl From<postgres::Error> for FleetError {
    fn from(error: postgres::Error) -> FleetError {
        FleetError::Database(error)
    }
}

/// What the pushing side knows of a checkpoint push, to read a refusal of it.
pub(crate) struct PushContext<'a> {
    pub(crate) origin: &'a str,
    pub(crate) size: u64,
    pub(crate) root: &'a MerkleHash,
    pub(crate) proof_from: u64,
}

/// The refusal `error` carries, read with what the pusher knows; any other error as it is.
pub(crate) fn checkpoint_refusal(error: postgres::Error, push: &PushContext<'_>) -> FleetError {
    let Some(db) = error.as_db_error() else {
        return FleetError::Database(error);
    };
    let origin = push.origin.to_owned();
    let code = db.code().code();
    if code == "SL009" {
        return FleetError::Refused(FleetRefusal::Malformed {
            message: db.message().to_owned(),
        });
    }
    if !matches!(code, "SL001" | "SL002" | "SL003" | "SL004") {
        return FleetError::Database(error);
    }
    let Some((held, held_root)) = db.detail().and_then(held_detail) else {
        return FleetError::Unexpected {
            what: "a refusal without the held size and root",
        };
    };
    let refusal = match code {
        "SL001" => FleetRefusal::Rollback {
            origin,
            held,
            pushed: push.size,
        },
        "SL002" => FleetRefusal::Fork {
            origin,
            size: held,
            held_root,
            pushed_root: *push.root,
        },
        "SL003" => {
            let prefix = format!(
                "seal: unproven extension of log `{}`: held size {held}, pushed size {}: ",
                push.origin, push.size
            );
            let reason = db
                .message()
                .strip_prefix(&prefix)
                .unwrap_or(db.message())
                .to_owned();
            FleetRefusal::BadProof {
                origin,
                held,
                pushed: push.size,
                reason,
            }
        }
        _ => FleetRefusal::StaleProof {
            origin,
            held,
            proof_from: push.proof_from,
        },
    };
    FleetError::Refused(refusal)
}

/// The refusal a record push's `error` carries, or the error as it is.
pub(crate) fn records_refusal(error: postgres::Error, origin: &str) -> FleetError {
    let Some(db) = error.as_db_error() else {
        return FleetError::Database(error);
    };
    let numbers: Vec<u64> = db
        .detail()
        .unwrap_or("")
        .split(' ')
        .filter_map(|number| number.parse().ok())
        .collect();
    let refusal = match (db.code().code(), numbers.as_slice()) {
        ("SL009", _) => FleetRefusal::Malformed {
            message: db.message().to_owned(),
        },
        ("SL005", &[index, held]) => FleetRefusal::RecordBeyondCheckpoint {
            origin: origin.to_owned(),
            index,
            held,
        },
        ("SL006", &[index]) => FleetRefusal::RecordConflict {
            origin: origin.to_owned(),
            index,
        },
        ("SL005" | "SL006", _) => {
            return FleetError::Unexpected {
                what: "a record refusal without its detail",
            }
        }
        _ => return FleetError::Database(error),
    };
    FleetError::Refused(refusal)
}

/// `H HEX`: the held size and root a checkpoint refusal carries as its detail.
fn held_detail(detail: &str) -> Option<(u64, MerkleHash)> {
    let (size, root) = detail.split_once(' ')?;
    Some((size.parse().ok()?, Sha256Digest::from_hex(root).ok()?))
}

/// Standard base64 with padding, as PostgreSQL's `encode(.., 'base64')` writes 32 bytes.
fn base64(hash: &MerkleHash) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(hash.as_bytes())
}
