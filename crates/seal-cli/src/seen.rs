//! The seen-id file of earlier versions: ids already used, one per line. It is only read, to be
//! imported once into the replay state (`state.rs`).

use std::collections::BTreeSet;

use crate::failure::{quoted, Failure};
use crate::io::{read_file, utf8};

/// Most ids a seen-id file may hold (1,000,000).
pub const MAX_SEEN_IDS: usize = 1_000_000;

/// Most bytes of a seen-id file (64 MiB).
pub const MAX_SEEN_FILE_BYTES: usize = 64 * 1024 * 1024;

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
