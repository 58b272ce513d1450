//! Stand-in machines: a log as an in-memory tree, or a seal-log-sqlite log, each giving its
//! checkpoints as signed notes (the "signature" is a digest of the body: the fleet store never
//! checks signatures).

use seal_log_postgres::{Accepted, ConsistencyProof, FleetError, FleetLog};
use seal_log_sqlite::CheckpointSigner;
use seal_record::tlog::{leaf_hash, Checkpoint, MerkleHash, Tree};
use seal_record::Sha256Digest;

/// The signed note of `checkpoint`, signed by a stand-in.
pub fn note_of(checkpoint: &Checkpoint) -> String {
    let body = checkpoint.to_text();
    format!(
        "{body}\n\u{2014} {} {}\n",
        checkpoint.origin(),
        Sha256Digest::of(body.as_bytes())
    )
}

/// The stand-in signer of a seal-log-sqlite log.
pub struct TestSigner(pub String);

impl CheckpointSigner for TestSigner {
    fn origin(&self) -> &str {
        &self.0
    }

    fn sign(&self, checkpoint: &Checkpoint) -> Result<String, String> {
        Ok(note_of(checkpoint))
    }
}

/// A machine's log as a tree of leaves `<label> <i>`.
#[derive(Clone)]
pub struct Machine {
    pub origin: String,
    pub label: String,
    pub tree: Tree,
}

impl Machine {
    pub fn new(origin: &str, label: &str) -> Machine {
        Machine {
            origin: origin.to_owned(),
            label: label.to_owned(),
            tree: Tree::new(),
        }
    }

    /// The record at `index`.
    pub fn record(&self, index: u64) -> Vec<u8> {
        format!("{} {index}", self.label).into_bytes()
    }

    /// Appends records until the log holds `size`.
    pub fn grow_to(&mut self, size: u64) {
        while self.tree.len() < size {
            let record = self.record(self.tree.len());
            self.tree.push(leaf_hash(&record));
        }
    }

    /// A copy holding the first `k` records, which appends records of `label` from there.
    pub fn fork_at(&self, k: u64, label: &str) -> Machine {
        let mut tree = Tree::new();
        for index in 0..k {
            tree.push(*self.tree.leaf(index).unwrap());
        }
        Machine {
            origin: self.origin.clone(),
            label: label.to_owned(),
            tree,
        }
    }

    pub fn root(&self, size: u64) -> MerkleHash {
        self.tree.root(size).unwrap()
    }

    /// The signed note of the checkpoint at `size`.
    pub fn note(&self, size: u64) -> String {
        note_of(&Checkpoint::new(&self.origin, size, self.root(size)).unwrap())
    }

    /// Pushes the checkpoint at `size` with the proof from `from`.
    pub fn push_from(
        &self,
        fleet: &mut FleetLog,
        from: u64,
        size: u64,
    ) -> Result<Accepted, FleetError> {
        let proof = self.tree.consistency_proof(from, size).unwrap();
        fleet.push(
            &self.origin,
            &self.note(size),
            size,
            &self.root(size),
            ConsistencyProof::new(from, &proof),
        )
    }

    /// Pushes the checkpoint at `size`, proving from the size the database holds.
    pub fn push(&self, fleet: &mut FleetLog, size: u64) -> Result<Accepted, FleetError> {
        let held = fleet
            .latest(&self.origin)
            .unwrap()
            .map_or(0, |held| held.size);
        self.push_from(fleet, held.min(size), size)
    }
}
