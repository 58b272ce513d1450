//! The decision log's verifier gives the same answer whatever the number of workers that check
//! the entries: a clean log verifies; the first of two broken entries is the one named, in
//! every batch layout (breaks inside one worker's part, across parts, across batches).

use std::collections::BTreeMap;

use seal_record::tlog::{leaf_hash, Checkpoint, Tree};
use seal_record::{LogEvent, LogEventType, LogRecord, Sha256Digest};
use seal_verify::{
    open_checkpoint, verify_audit_log, verify_audit_log_with, AuditBreakKind, AuditLogSource,
    AuditRow, CheckpointOpener, LogSigningKey, LogVerifierKey,
};

const ORIGIN: &str = "seal.audit/workers";

struct Memory {
    rows: Vec<(u64, Vec<u8>, Vec<u8>)>,
    notes: BTreeMap<u64, String>,
}

impl AuditLogSource for Memory {
    fn origin(&self) -> &str {
        ORIGIN
    }

    fn entries(&self, visit: &mut dyn FnMut(AuditRow<'_>) -> bool) -> Result<(), String> {
        for (position, record, leaf) in &self.rows {
            let row = AuditRow {
                position: *position,
                record,
                leaf,
            };
            if !visit(row) {
                break;
            }
        }
        Ok(())
    }

    fn checkpoint_sizes(&self) -> Result<Vec<u64>, String> {
        Ok(self.notes.keys().copied().collect())
    }

    fn checkpoint(&self, size: u64) -> Result<Option<String>, String> {
        Ok(self.notes.get(&size).cloned())
    }
}

struct Opener(LogVerifierKey);

impl CheckpointOpener for Opener {
    fn open(&self, note: &str) -> Result<Checkpoint, String> {
        open_checkpoint(note, std::slice::from_ref(&self.0))
            .map(|verified| verified.into_checkpoint())
            .map_err(|error| error.to_string())
    }
}

fn event(position: u64) -> LogEvent {
    if position == 0 {
        return LogEvent::new(LogEventType::Genesis)
            .text("origin", ORIGIN)
            .and_then(|e| e.text("key", "k"))
            .unwrap();
    }
    LogEvent::new(LogEventType::Decision)
        .text("agent", "claude-code")
        .and_then(|e| e.text("session", "s"))
        .and_then(|e| e.text("tool", "Bash"))
        .and_then(|e| e.choice("decision", "allow"))
        .and_then(|e| e.text("by", "rules: Bash(ls:*)"))
        .and_then(|e| e.digest("policy", Sha256Digest::of(b"p")))
        .and_then(|e| e.digest("arguments", Sha256Digest::of(&position.to_le_bytes())))
        .unwrap()
}

/// A log of `size` entries with checkpoints at the powers of two and the last size.
fn log(size: u64, key: &LogSigningKey) -> Memory {
    let mut tree = Tree::new();
    let mut rows = Vec::new();
    let mut notes = BTreeMap::new();
    for position in 0..size {
        let record = LogRecord::new(position, 1_000, event(position))
            .unwrap()
            .to_bytes();
        let leaf = leaf_hash(&record);
        tree.push(leaf);
        rows.push((position, record, leaf.as_bytes().to_vec()));
        let stored = position + 1;
        if stored.is_power_of_two() || stored == size {
            let checkpoint = Checkpoint::new(ORIGIN, stored, tree.root(stored).unwrap()).unwrap();
            notes.insert(stored, key.sign_checkpoint(&checkpoint).unwrap());
        }
    }
    Memory { rows, notes }
}

fn edit(memory: &mut Memory, position: usize) {
    let record = &mut memory.rows[position].1;
    let at = record.len() - 3;
    record[at] ^= 1;
}

#[test]
fn every_number_of_workers_names_the_same_first_broken_entry() {
    let key = LogSigningKey::from_seed(ORIGIN, &[9; 32]).unwrap();
    let opener = Opener(key.verifier_key());
    let clean = log(9_000, &key);
    let verdict = verify_audit_log(&clean, &opener, &[]).unwrap();
    assert_eq!(verdict.broken, None);
    for workers in [2, 3, 8] {
        assert_eq!(
            verify_audit_log_with(&clean, &opener, &[], workers).unwrap(),
            verdict
        );
    }
    // Two edits: in one worker's part, across parts, across batches of 4,096.
    for (first, second) in [
        (10, 20),
        (1_000, 3_000),
        (4_095, 4_096),
        (8_999, 8_998),
        (5_000, 100),
    ] {
        let mut broken = log(9_000, &key);
        edit(&mut broken, first);
        edit(&mut broken, second);
        let named = first.min(second) as u64;
        for workers in [1, 2, 3, 8] {
            let verdict = verify_audit_log_with(&broken, &opener, &[], workers).unwrap();
            let found = verdict.broken.unwrap();
            assert_eq!(
                found.entry, named,
                "{workers} workers, edits at {first} and {second}"
            );
            assert_eq!(found.kind, AuditBreakKind::Edited);
        }
    }
}
