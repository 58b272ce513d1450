//! The seen-id file: frame ids already claimed, one per line, so a frame replayed in a later
//! message of the conversation alarms. Read whole, claimed in memory, written back whole.

use std::collections::BTreeSet;
use std::sync::Mutex;

use seal::{Claim, ClaimError, ClaimOutcome, ReplayStore};

use crate::failure::{quoted, Failure};
use crate::io::{read_file, utf8, write_atomic};

/// Most ids a seen-id file may hold (1,000,000).
pub const MAX_SEEN_IDS: usize = 1_000_000;

/// Most bytes of a seen-id file (64 MiB).
pub const MAX_SEEN_FILE_BYTES: usize = 64 * 1024 * 1024;

/// The ids of a seen-id file (or of no file), as a replay store for one run of the binary:
/// claims are answered from the ids read, and [`SeenFile::save`] writes the file back when a
/// claim added one.
pub struct SeenFile {
    path: Option<String>,
    state: Mutex<Ids>,
}

#[derive(Default)]
struct Ids {
    ids: BTreeSet<String>,
    added: bool,
}

impl SeenFile {
    /// The ids of the file at `path` (a missing file holds none), or an empty set without a
    /// file.
    pub fn open(path: Option<&str>) -> Result<SeenFile, Failure> {
        let ids = match path {
            Some(path) => load(path)?,
            None => BTreeSet::new(),
        };
        Ok(SeenFile {
            path: path.map(str::to_owned),
            state: Mutex::new(Ids { ids, added: false }),
        })
    }

    /// Writes the file back (whole, through a temporary file) if a claim added an id.
    pub fn save(&self) -> Result<(), Failure> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let state = self
            .state
            .lock()
            .map_err(|_| Failure::input("the seen-id set's lock is poisoned"))?;
        if !state.added {
            return Ok(());
        }
        let mut text = String::new();
        for id in &state.ids {
            text.push_str(id);
            text.push('\n');
        }
        write_atomic(path, text.as_bytes(), Some(0o600))
    }
}

impl ReplayStore for SeenFile {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        let mut state = self.state.lock().map_err(|_| ClaimError::Unavailable {
            detail: "the seen-id set's lock is poisoned".to_owned(),
        })?;
        if state.ids.contains(claim.id) {
            return Ok(ClaimOutcome::Replayed);
        }
        if state.ids.len() >= MAX_SEEN_IDS {
            return Err(ClaimError::Full {
                capacity: MAX_SEEN_IDS,
            });
        }
        state.ids.insert(claim.id.to_owned());
        state.added = true;
        Ok(ClaimOutcome::Fresh)
    }
}

/// The ids of the file at `path`; a missing file is an empty set.
pub fn load(path: &str) -> Result<BTreeSet<String>, Failure> {
    if !std::path::Path::new(path).exists() {
        return Ok(BTreeSet::new());
    }
    let text = utf8(
        read_file(path, MAX_SEEN_FILE_BYTES, "seen-id file")?,
        "seen-id file",
    )?;
    let ids: BTreeSet<String> = text
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect();
    if ids.len() > MAX_SEEN_IDS {
        return Err(Failure::input(format!(
            "seen-id file {} holds more than {MAX_SEEN_IDS} ids",
            quoted(path)
        )));
    }
    Ok(ids)
}
