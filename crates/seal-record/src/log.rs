//! A hash-chained, append-only log of records (spec/records.md, "Log chain").

use std::fmt;

use seal_parse::json::{parse, JsonLimits};

use crate::digest::Sha256Digest;
use crate::pae::pae;
use crate::record::{Record, TYPE_FIELD};
use crate::signing_input::{count_piece_u64, LOG_DOMAIN};

/// The previous hash of a log's first entry: 32 zero bytes.
pub const GENESIS_HASH: Sha256Digest = Sha256Digest::ZERO;

/// One entry of a log. Fields are public so stored entries can be handed to [`verify_log`]; only
/// [`Log::append`] and [`Log::append_canonical`] make entries that are known to be right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// Position in the log, starting at 0.
    pub sequence: u64,
    /// Hash of the previous entry ([`GENESIS_HASH`] for entry 0).
    pub prev_hash: Sha256Digest,
    /// The record's canonical JSON bytes (an object with a string `_type`).
    pub record: Vec<u8>,
    /// [`entry_hash`] of the three fields above.
    pub hash: Sha256Digest,
}

/// An append-only log that keeps its chain consistent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Log {
    entries: Vec<LogEntry>,
}

/// The first broken link of a log: which entry and what broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogBreak {
    /// Index of the first entry that does not verify.
    pub index: usize,
    /// What is wrong with it.
    pub kind: BreakKind,
}

/// What broke at a log entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BreakKind {
    /// The sequence number is not the one after the previous entry's (or the start).
    SequenceGap {
        /// The sequence number expected.
        expected: u64,
        /// The sequence number found.
        found: u64,
    },
    /// `prev_hash` is not the previous entry's hash (or the anchor's).
    PrevHashMismatch {
        /// The hash expected.
        expected: Sha256Digest,
        /// The hash found.
        found: Sha256Digest,
    },
    /// The record bytes are not canonical-profile JSON.
    RecordNotJson {
        /// Why, by the parser's error name.
        reason: &'static str,
    },
    /// The record bytes are JSON but not in canonical form.
    RecordNotCanonical,
    /// The record is not an object with a string `_type` member.
    RecordWithoutType,
    /// The stored hash is not the hash of the entry's fields.
    HashMismatch {
        /// The hash computed from the fields.
        computed: Sha256Digest,
        /// The hash stored.
        stored: Sha256Digest,
    },
}

/// Why bytes cannot be appended as a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppendError {
    /// What is wrong with the record (one of the record cases of [`BreakKind`]).
    pub kind: BreakKind,
}

/// The hash of an entry: `SHA-256(PAE("seal/log/v1", prev_hash, LE64(sequence), record))`,
/// with `prev_hash` as its 32 raw bytes.
pub fn entry_hash(prev_hash: &Sha256Digest, sequence: u64, record: &[u8]) -> Sha256Digest {
    let sequence = count_piece_u64(sequence);
    Sha256Digest::of(&pae(&[
        LOG_DOMAIN.as_bytes(),
        prev_hash.as_bytes(),
        &sequence,
        record,
    ]))
}

/// Verifies a whole log from the genesis: returns the hash of the last entry
/// ([`GENESIS_HASH`] for an empty log), or the first broken link.
///
/// A log cut short at its end is still a valid log: compare the returned head with a head
/// recorded elsewhere (a signed checkpoint, the embedder's state) to detect truncation.
pub fn verify_log(entries: &[LogEntry]) -> Result<Sha256Digest, LogBreak> {
    verify_log_from(entries, 0, GENESIS_HASH)
}

/// Verifies a run of entries that continues a log known up to an anchor: the first entry must
/// have sequence `start_sequence` and previous hash `start_prev_hash`.
///
/// Each entry is checked in this order: sequence number, previous hash, record bytes (canonical
/// JSON object with a string `_type`), stored hash. The first failure is returned.
pub fn verify_log_from(
    entries: &[LogEntry],
    start_sequence: u64,
    start_prev_hash: Sha256Digest,
) -> Result<Sha256Digest, LogBreak> {
    let mut expected_sequence = start_sequence;
    let mut expected_prev = start_prev_hash;
    for (index, entry) in entries.iter().enumerate() {
        let broken = |kind| LogBreak { index, kind };
        if entry.sequence != expected_sequence {
            return Err(broken(BreakKind::SequenceGap {
                expected: expected_sequence,
                found: entry.sequence,
            }));
        }
        if entry.prev_hash != expected_prev {
            return Err(broken(BreakKind::PrevHashMismatch {
                expected: expected_prev,
                found: entry.prev_hash,
            }));
        }
        check_record(&entry.record).map_err(broken)?;
        let computed = entry_hash(&entry.prev_hash, entry.sequence, &entry.record);
        if computed != entry.hash {
            return Err(broken(BreakKind::HashMismatch {
                computed,
                stored: entry.hash,
            }));
        }
        expected_prev = entry.hash;
        expected_sequence = expected_sequence.wrapping_add(1);
    }
    Ok(expected_prev)
}

impl Log {
    /// An empty log.
    pub fn new() -> Log {
        Log::default()
    }

    /// Appends a record's canonical bytes and returns the new entry's hash (the new head).
    pub fn append(&mut self, record: &impl Record) -> Sha256Digest {
        self.push(record.canonical().into_bytes())
    }

    /// Appends record bytes after checking them as [`verify_log`] would (canonical JSON object
    /// with a string `_type`). Returns the new entry's hash (the new head).
    pub fn append_canonical(&mut self, record: &[u8]) -> Result<Sha256Digest, AppendError> {
        check_record(record).map_err(|kind| AppendError { kind })?;
        Ok(self.push(record.to_vec()))
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The hash of the last entry, or [`GENESIS_HASH`] when empty.
    pub fn head(&self) -> Sha256Digest {
        self.entries.last().map_or(GENESIS_HASH, |entry| entry.hash)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the log has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn push(&mut self, record: Vec<u8>) -> Sha256Digest {
        let sequence = crate::pae::usize_to_u64(self.entries.len());
        let prev_hash = self.head();
        let hash = entry_hash(&prev_hash, sequence, &record);
        self.entries.push(LogEntry {
            sequence,
            prev_hash,
            record,
            hash,
        });
        hash
    }
}

fn check_record(record: &[u8]) -> Result<(), BreakKind> {
    let value = parse(record, &JsonLimits::DEFAULT).map_err(|error| BreakKind::RecordNotJson {
        reason: error.kind.name(),
    })?;
    if value.canonical_bytes() != record {
        return Err(BreakKind::RecordNotCanonical);
    }
    let typed = value
        .as_object()
        .and_then(|object| object.get(TYPE_FIELD))
        .and_then(|kind| kind.as_str())
        .is_some();
    if typed {
        Ok(())
    } else {
        Err(BreakKind::RecordWithoutType)
    }
}

impl fmt::Display for LogBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "log entry {}: {}", self.index, self.kind)
    }
}

impl fmt::Display for BreakKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakKind::SequenceGap { expected, found } => {
                write!(
                    f,
                    "sequence number `{found}` where `{expected}` was expected"
                )
            }
            BreakKind::PrevHashMismatch { expected, found } => write!(
                f,
                "previous hash `{found}` does not match the previous entry's `{expected}`"
            ),
            BreakKind::RecordNotJson { reason } => {
                write!(f, "record is not canonical-profile json ({reason})")
            }
            BreakKind::RecordNotCanonical => f.write_str("record bytes are not canonical"),
            BreakKind::RecordWithoutType => {
                f.write_str("record is not an object with a string `_type`")
            }
            BreakKind::HashMismatch { computed, stored } => write!(
                f,
                "stored hash `{stored}` is not the entry's hash `{computed}`"
            ),
        }
    }
}

impl fmt::Display for AppendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot append record: {}", self.kind)
    }
}

impl std::error::Error for LogBreak {}
impl std::error::Error for AppendError {}
