//! Verification of a decision log (spec/audit-log.md, "Verification"): every entry against its
//! committed leaf, every position, the signed checkpoints against the tree rebuilt from the
//! entries, and the log against checkpoints kept elsewhere. The answer names the first broken
//! entry and says how strong it is.
//!
//! The log comes in through [`AuditLogSource`] and notes are opened (signatures checked)
//! through [`CheckpointOpener`]: this module reads no file and holds no key.

use std::fmt;

use seal_record::tlog::{leaf_hash, Checkpoint, MerkleHash, Tree};
use seal_record::{LogEventType, LogRecord};

/// Between two checkpoints the verifier always checks, at most this many entries: besides the
/// latest checkpoint, every stored checkpoint whose size is a multiple of this or a power of two
/// is opened and compared with the rebuilt tree. A mismatch is then narrowed to one entry by
/// bisecting the checkpoints stored between the last good one and the first bad one.
pub const AUDIT_SPINE_STEP: u64 = 4_096;

/// One stored entry as read: its stored position, record bytes and stored leaf hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditRow<'a> {
    /// The position it is stored at.
    pub position: u64,
    /// The record bytes.
    pub record: &'a [u8],
    /// The leaf hash stored with it.
    pub leaf: &'a [u8],
}

/// A log as stored, read in position order.
pub trait AuditLogSource {
    /// The log's origin as the store records it.
    fn origin(&self) -> &str;
    /// Calls `visit` with each stored entry in ascending position; stops early when `visit`
    /// returns `false`.
    fn entries(&self, visit: &mut dyn FnMut(AuditRow<'_>) -> bool) -> Result<(), String>;
    /// The sizes of the stored checkpoints, ascending.
    fn checkpoint_sizes(&self) -> Result<Vec<u64>, String>;
    /// The stored checkpoint note of `size`.
    fn checkpoint(&self, size: u64) -> Result<Option<String>, String>;
}

/// Opens signed checkpoint notes: checks the signature of a key it trusts and parses the body.
pub trait CheckpointOpener {
    /// The checkpoint a note signs, or why the note is refused.
    fn open(&self, note: &str) -> Result<Checkpoint, String>;
}

/// What broke, at [`AuditBreak::entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditBreakKind {
    /// The record does not hash to the leaf committed with it.
    Edited,
    /// No entry is stored at this position; the next one is at `next`.
    Missing {
        /// The next stored position.
        next: u64,
    },
    /// The record is not a log entry.
    NotAnEntry(String),
    /// The record claims another position (reordered, or inserted).
    OutOfPosition {
        /// The position it claims.
        claims: u64,
    },
    /// Entry 0 is not the genesis of this log.
    NoGenesis,
    /// The entries from [`AuditBreak::entry`] up to `size` do not match the signed checkpoint
    /// of `size`, while the stored checkpoint at `entry` (if any) matches: one of them was
    /// edited and its leaf recomputed, or replaced. With a checkpoint at every size (as the
    /// log stores them) that is the one entry at `size - 1`.
    CheckpointMismatch {
        /// The checkpoint's size.
        size: u64,
    },
    /// A checkpoint's note is refused (bad signature, unknown key, malformed, other origin, or
    /// stored under another size).
    BadCheckpoint {
        /// The size it is stored under.
        size: u64,
        /// Why.
        reason: String,
    },
    /// The latest checkpoint commits more entries than the log holds: the log was cut short.
    Truncated {
        /// The size the checkpoint commits.
        committed: u64,
    },
    /// Entries beyond the latest checkpoint: appended without the log key.
    Unsealed {
        /// The latest checkpoint's size.
        sealed: u64,
    },
    /// The log holds fewer entries than a checkpoint kept elsewhere commits: rolled back.
    RolledBack {
        /// The size the kept checkpoint commits.
        kept: u64,
    },
    /// At a kept checkpoint's size the log's root differs: the log forked from the one the
    /// checkpoint was taken of (or was rewritten and re-signed).
    Forked {
        /// The kept checkpoint's size.
        kept: u64,
        /// The log's root at that size.
        ours: MerkleHash,
        /// The kept checkpoint's root.
        theirs: MerkleHash,
    },
    /// The log holds no checkpoint at all.
    NoCheckpoint,
}

/// The first broken place of a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditBreak {
    /// The first entry that does not verify (for a cut or rolled-back log, the first missing
    /// position).
    pub entry: u64,
    /// What broke.
    pub kind: AuditBreakKind,
}

impl fmt::Display for AuditBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry = self.entry;
        match &self.kind {
            AuditBreakKind::Edited => write!(
                f,
                "entry {entry}: record edited (it does not hash to its committed leaf)"
            ),
            AuditBreakKind::Missing { next } => write!(
                f,
                "entry {entry}: missing (the next stored entry is at position {next})"
            ),
            AuditBreakKind::NotAnEntry(reason) => {
                write!(f, "entry {entry}: not a log entry: {reason}")
            }
            AuditBreakKind::OutOfPosition { claims } => write!(
                f,
                "entry {entry}: out of position (it records position {claims}: reordered or inserted)"
            ),
            AuditBreakKind::NoGenesis => {
                write!(f, "entry {entry}: not the genesis of this log")
            }
            AuditBreakKind::CheckpointMismatch { size } if size.saturating_sub(entry) > 1 => write!(
                f,
                "entries {entry} to {}: one of them does not match the signed checkpoint at size {size} (edited and its leaf recomputed, or replaced; no checkpoint between narrows it further)",
                size - 1
            ),
            AuditBreakKind::CheckpointMismatch { size } => write!(
                f,
                "entry {entry}: does not match the signed checkpoint at size {size} (edited and its leaf recomputed, or replaced)"
            ),
            AuditBreakKind::BadCheckpoint { size, reason } => {
                write!(f, "checkpoint at size {size}: {reason}")
            }
            AuditBreakKind::Truncated { committed } => write!(
                f,
                "entry {entry}: missing: the log was cut short (a signed checkpoint commits {committed} entries, the log holds {entry})"
            ),
            AuditBreakKind::Unsealed { sealed } => write!(
                f,
                "entry {entry}: not covered by any checkpoint (the latest signed checkpoint commits {sealed} entries): appended without the log key"
            ),
            AuditBreakKind::RolledBack { kept } => write!(
                f,
                "entry {entry}: missing: the log was rolled back or cut (the kept checkpoint commits {kept} entries, the log holds {entry})"
            ),
            AuditBreakKind::Forked { kept, ours, theirs } => write!(
                f,
                "fork at size {kept}: the log's root is {ours}, the kept checkpoint's is {theirs} (the log was rewritten and re-signed, or is another copy)"
            ),
            AuditBreakKind::NoCheckpoint => f.write_str("the log holds no signed checkpoint"),
        }
    }
}

/// How far a verification's answer reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditStrength {
    /// Checked against the log's own checkpoints only: whoever holds the log key (any process
    /// running as the log's user) could have replaced the whole log.
    LocalOnly,
    /// Also checked against checkpoints kept elsewhere: no rollback or fork up to the largest.
    Kept {
        /// The largest kept checkpoint's size.
        size: u64,
    },
}

impl fmt::Display for AuditStrength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditStrength::LocalOnly => f.write_str(
                "local-only integrity: the log matches its own signed checkpoints, but a holder of the log key (any process running as this user) could have replaced the whole log; keep `seal audit checkpoint` output elsewhere and verify with --since-checkpoint",
            ),
            AuditStrength::Kept { size } => write!(
                f,
                "checked against a checkpoint kept elsewhere (size {size}): no entry up to it was removed, rolled back or rewritten since it was taken"
            ),
        }
    }
}

/// The answer of a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditVerdict {
    /// The entries read.
    pub entries: u64,
    /// The latest checkpoint's size, when it opened.
    pub checkpoint_size: Option<u64>,
    /// The root of the rebuilt tree over all entries read.
    pub root: MerkleHash,
    /// The checkpoints opened and compared.
    pub checkpoints_checked: u64,
    /// How far the answer reaches.
    pub strength: AuditStrength,
    /// The first broken place, if any.
    pub broken: Option<AuditBreak>,
}

/// What a verification could not do at all (a store that could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditReadError(pub String);

impl fmt::Display for AuditReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read the log: {}", self.0)
    }
}

impl std::error::Error for AuditReadError {}

/// Verifies `source`: entries, positions, checkpoints (opened by `opener`), then each
/// checkpoint in `kept` (already opened by the caller, with the same key).
pub fn verify_audit_log(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    kept: &[Checkpoint],
) -> Result<AuditVerdict, AuditReadError> {
    verify_audit_log_with(source, opener, kept, 1)
}

/// The entries checked in each batch handed to the workers.
const ENTRY_BATCH: usize = 4_096;

/// Stored entries copied out of the source for the workers: their bytes in one buffer (one
/// allocation a batch, not two an entry), and where each entry's record and leaf lie in it.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    rows: Vec<(u64, std::ops::Range<usize>, std::ops::Range<usize>)>,
}

impl Batch {
    fn push(&mut self, row: AuditRow<'_>) {
        let record = self.bytes.len()..self.bytes.len() + row.record.len();
        self.bytes.extend_from_slice(row.record);
        let leaf = self.bytes.len()..self.bytes.len() + row.leaf.len();
        self.bytes.extend_from_slice(row.leaf);
        self.rows.push((row.position, record, leaf));
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.rows.clear();
    }

    /// Row `index` as the source gave it.
    fn row(&self, index: usize) -> Option<AuditRow<'_>> {
        let (position, record, leaf) = self.rows.get(index)?;
        Some(AuditRow {
            position: *position,
            record: self.bytes.get(record.clone())?,
            leaf: self.bytes.get(leaf.clone())?,
        })
    }
}

/// [`verify_audit_log`], with the entries' own checks (leaf, reading, position) spread over
/// `workers` threads, batch by batch (the caller says how many: this crate reads nothing of
/// the machine). The answer is the same whatever the number: batches are checked in order and
/// the first broken entry of the first broken batch is named.
pub fn verify_audit_log_with(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    kept: &[Checkpoint],
    workers: usize,
) -> Result<AuditVerdict, AuditReadError> {
    let mut tree = Tree::new();
    let mut broken: Option<AuditBreak> = None;
    if workers <= 1 {
        // One worker: each row checked as it is read, borrowed, nothing copied.
        source
            .entries(&mut |row| {
                let position = tree.len();
                let leaf = leaf_hash(row.record);
                broken = check_entry(position, row, &leaf, source.origin());
                if broken.is_some() {
                    return false;
                }
                tree.push(leaf);
                true
            })
            .map_err(AuditReadError)?;
        return finish(source, opener, kept, tree, broken);
    }
    let mut batch = Batch::default();
    let origin = source.origin();
    let flush = |batch: &mut Batch, tree: &mut Tree| -> Option<AuditBreak> {
        let first = tree.len();
        let checked = check_batch(first, batch, origin, workers);
        batch.clear();
        for result in checked {
            match result {
                Ok(leaf) => tree.push(leaf),
                Err(found) => return Some(found),
            }
        }
        None
    };
    source
        .entries(&mut |row| {
            batch.push(row);
            if batch.len() < ENTRY_BATCH {
                return true;
            }
            broken = flush(&mut batch, &mut tree);
            broken.is_none()
        })
        .map_err(AuditReadError)?;
    if broken.is_none() && batch.len() > 0 {
        broken = flush(&mut batch, &mut tree);
    }
    finish(source, opener, kept, tree, broken)
}

/// The checkpoints and kept checkpoints, once the entries are read into `tree` (or `broken`).
fn finish(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    kept: &[Checkpoint],
    tree: Tree,
    broken: Option<AuditBreak>,
) -> Result<AuditVerdict, AuditReadError> {
    let mut verdict = AuditVerdict {
        entries: tree.len(),
        checkpoint_size: None,
        root: tree
            .root(tree.len())
            .unwrap_or_else(|_| seal_record::tlog::empty_root()),
        checkpoints_checked: 0,
        strength: if kept.is_empty() {
            AuditStrength::LocalOnly
        } else {
            AuditStrength::Kept {
                size: kept.iter().map(Checkpoint::size).max().unwrap_or(0),
            }
        },
        broken: None,
    };
    if broken.is_some() {
        verdict.broken = broken;
        return Ok(verdict);
    }
    verdict.broken = check_checkpoints(source, opener, &tree, &mut verdict)?;
    if verdict.broken.is_none() {
        verdict.broken = check_kept(&tree, kept);
    }
    Ok(verdict)
}

/// Checks `batch`, whose first entry belongs at position `first`, on up to `workers` threads:
/// each entry's leaf, or what broke there, in order, up to the first broken one.
fn check_batch(
    first: u64,
    batch: &Batch,
    origin: &str,
    workers: usize,
) -> Vec<Result<MerkleHash, AuditBreak>> {
    let check = |indexes: std::ops::Range<usize>| -> Vec<Result<MerkleHash, AuditBreak>> {
        let mut out = Vec::with_capacity(indexes.len());
        for index in indexes {
            let position = first.saturating_add(index as u64);
            let Some(row) = batch.row(index) else {
                out.push(Err(AuditBreak {
                    entry: position,
                    kind: AuditBreakKind::NotAnEntry("it could not be checked".to_owned()),
                }));
                break;
            };
            let leaf = leaf_hash(row.record);
            match check_entry(position, row, &leaf, origin) {
                None => out.push(Ok(leaf)),
                Some(found) => {
                    out.push(Err(found));
                    break;
                }
            }
        }
        out
    };
    let workers = workers.clamp(1, 16);
    if workers == 1 || batch.len() < 2 * workers {
        return check(0..batch.len());
    }
    let size = batch.len().div_ceil(workers);
    let parts: Vec<Vec<Result<MerkleHash, AuditBreak>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..batch.len())
            .step_by(size)
            .map(|start| {
                let end = (start + size).min(batch.len());
                scope.spawn(move || check(start..end))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap_or_default())
            .collect()
    });
    let mut out = Vec::with_capacity(batch.len());
    for (index, part) in parts.into_iter().enumerate() {
        let expected = batch.len().saturating_sub(index * size).min(size);
        let complete = part.len() == expected && part.iter().all(Result::is_ok);
        out.extend(part);
        if !complete {
            // A broken entry (or a worker that could not finish, whose part is then short):
            // nothing after it counts.
            if out.last().map_or(true, Result::is_ok) {
                let position = first.saturating_add(out.len() as u64);
                out.push(Err(AuditBreak {
                    entry: position,
                    kind: AuditBreakKind::NotAnEntry("it could not be checked".to_owned()),
                }));
            }
            break;
        }
    }
    out
}

/// Checks the entry stored at `position` whose record hashes to `leaf`.
fn check_entry(
    position: u64,
    row: AuditRow<'_>,
    leaf: &MerkleHash,
    origin: &str,
) -> Option<AuditBreak> {
    let at = |kind| {
        Some(AuditBreak {
            entry: position,
            kind,
        })
    };
    let AuditRow {
        record,
        leaf: stored,
        ..
    } = row;
    if row.position != position {
        return at(AuditBreakKind::Missing { next: row.position });
    }
    if stored != leaf.as_bytes().as_slice() {
        return at(AuditBreakKind::Edited);
    }
    let entry = match LogRecord::from_bytes(record) {
        Ok(entry) => entry,
        Err(error) => return at(AuditBreakKind::NotAnEntry(error.to_string())),
    };
    if entry.seq() != position {
        return at(AuditBreakKind::OutOfPosition {
            claims: entry.seq(),
        });
    }
    let genesis = entry.event().kind() == LogEventType::Genesis;
    let names_origin = entry
        .event()
        .text_of("origin")
        .is_some_and(|stored| stored == seal_record::log_text(origin).as_str());
    if (position == 0) != genesis || (genesis && !names_origin) {
        return at(AuditBreakKind::NoGenesis);
    }
    None
}

/// Whether the checkpoint stored under `size` opens, is of that size, and matches the tree.
enum Probe {
    Good,
    Mismatch,
    Bad(String),
}

fn probe(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    tree: &Tree,
    size: u64,
) -> Result<Probe, AuditReadError> {
    let Some(note) = source.checkpoint(size).map_err(AuditReadError)? else {
        return Ok(Probe::Bad("missing".to_owned()));
    };
    let checkpoint = match opener.open(&note) {
        Ok(checkpoint) => checkpoint,
        Err(reason) => return Ok(Probe::Bad(reason)),
    };
    if checkpoint.size() != size {
        return Ok(Probe::Bad(format!(
            "it commits size {}, not the size it is stored under",
            checkpoint.size()
        )));
    }
    if checkpoint.origin() != source.origin() {
        return Ok(Probe::Bad("it signs another log's origin".to_owned()));
    }
    match tree.root(size) {
        Ok(root) if root == *checkpoint.root() => Ok(Probe::Good),
        _ => Ok(Probe::Mismatch),
    }
}

fn check_checkpoints(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    tree: &Tree,
    verdict: &mut AuditVerdict,
) -> Result<Option<AuditBreak>, AuditReadError> {
    let sizes = source.checkpoint_sizes().map_err(AuditReadError)?;
    let entries = tree.len();
    let Some(&latest) = sizes.last() else {
        return Ok(Some(AuditBreak {
            entry: 0,
            kind: AuditBreakKind::NoCheckpoint,
        }));
    };
    // The latest checkpoint first: it alone commits to every entry.
    let note = source.checkpoint(latest).map_err(AuditReadError)?;
    let opened = note
        .as_deref()
        .ok_or_else(|| "missing".to_owned())
        .and_then(|note| opener.open(note));
    verdict.checkpoints_checked += 1;
    match opened {
        Err(reason) => {
            return Ok(Some(AuditBreak {
                entry: latest.min(entries),
                kind: AuditBreakKind::BadCheckpoint {
                    size: latest,
                    reason,
                },
            }))
        }
        Ok(checkpoint) if checkpoint.size() != latest => {
            return Ok(Some(AuditBreak {
                entry: latest.min(entries),
                kind: AuditBreakKind::BadCheckpoint {
                    size: latest,
                    reason: format!(
                        "it commits size {}, not the size it is stored under",
                        checkpoint.size()
                    ),
                },
            }))
        }
        Ok(_) => {}
    }
    verdict.checkpoint_size = Some(latest);
    if latest > entries {
        return Ok(Some(AuditBreak {
            entry: entries,
            kind: AuditBreakKind::Truncated { committed: latest },
        }));
    }
    // Every stored checkpoint on the spine, then the latest, in ascending size.
    let spine: Vec<u64> = sizes
        .iter()
        .copied()
        .filter(|size| size.is_power_of_two() || size % AUDIT_SPINE_STEP == 0 || *size == latest)
        .collect();
    let mut good = 0u64;
    for &size in &spine {
        verdict.checkpoints_checked += 1;
        match probe(source, opener, tree, size)? {
            Probe::Good => good = size,
            Probe::Mismatch | Probe::Bad(_) => {
                return narrow(source, opener, tree, &sizes, good, size, verdict).map(Some)
            }
        }
    }
    if latest < entries {
        return Ok(Some(AuditBreak {
            entry: latest,
            kind: AuditBreakKind::Unsealed { sealed: latest },
        }));
    }
    Ok(None)
}

/// Bisects the stored checkpoints in `(good, bad]` for the first that fails, and names the
/// entry it breaks at.
fn narrow(
    source: &dyn AuditLogSource,
    opener: &dyn CheckpointOpener,
    tree: &Tree,
    sizes: &[u64],
    good: u64,
    bad: u64,
    verdict: &mut AuditVerdict,
) -> Result<AuditBreak, AuditReadError> {
    let candidates: Vec<u64> = sizes
        .iter()
        .copied()
        .filter(|size| *size > good && *size <= bad)
        .collect();
    // Invariant: every candidate below `low` passes, the one at `high` fails.
    let (mut low, mut high) = (0usize, candidates.len().saturating_sub(1));
    while low < high {
        let middle = low + (high - low) / 2;
        let Some(&size) = candidates.get(middle) else {
            break;
        };
        verdict.checkpoints_checked += 1;
        match probe(source, opener, tree, size)? {
            Probe::Good => low = middle + 1,
            _ => high = middle,
        }
    }
    let first = candidates.get(high).copied().unwrap_or(bad);
    // The largest size known to match below `first`: the candidate before it, else `good`.
    let matched = high
        .checked_sub(1)
        .and_then(|before| candidates.get(before).copied())
        .unwrap_or(good);
    verdict.checkpoints_checked += 1;
    Ok(match probe(source, opener, tree, first)? {
        Probe::Bad(reason) => AuditBreak {
            entry: first.saturating_sub(1),
            kind: AuditBreakKind::BadCheckpoint {
                size: first,
                reason,
            },
        },
        // The checkpoint at `matched` matched, so the first broken entry is one of those
        // `first` adds to it: that one, when it adds one; else the first of them (no stored
        // checkpoint between narrows it further).
        _ => AuditBreak {
            entry: matched.min(first.saturating_sub(1)),
            kind: AuditBreakKind::CheckpointMismatch { size: first },
        },
    })
}

fn check_kept(tree: &Tree, kept: &[Checkpoint]) -> Option<AuditBreak> {
    let entries = tree.len();
    let mut ordered: Vec<&Checkpoint> = kept.iter().collect();
    ordered.sort_by_key(|checkpoint| checkpoint.size());
    for checkpoint in ordered {
        let size = checkpoint.size();
        if size > entries {
            return Some(AuditBreak {
                entry: entries,
                kind: AuditBreakKind::RolledBack { kept: size },
            });
        }
        let ours = tree.root(size).ok()?;
        if ours != *checkpoint.root() {
            return Some(AuditBreak {
                entry: size.saturating_sub(1),
                kind: AuditBreakKind::Forked {
                    kept: size,
                    ours,
                    theirs: *checkpoint.root(),
                },
            });
        }
    }
    None
}
