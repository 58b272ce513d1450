//! A tiles export (spec/audit-tiles.md) as the verifier's source: the checkpoint from
//! `DIR/checkpoint`, the tree rebuilt from the hash tiles (every upper tile checked against the
//! leaves), and the entries from the bundles, each paired with the leaf hash the level-0 tiles
//! hold for its position, so an entry edited in its bundle is named as edited.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use seal::log::tlog::{
    decode_entry_bundle, entry_bundle_paths, Checkpoint, SignedNote, TilePath, TileRebuild, Tree,
    MAX_BUNDLE_BYTES, MAX_NOTE_BYTES, TILE_HASH_BYTES, TILE_WIDTH,
};
use seal::log::{AuditLogSource, AuditRow};

use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, utf8};

/// A tiles directory, its checkpoint read and its hash tiles checked.
pub struct TilesDir {
    dir: PathBuf,
    origin: String,
    size: u64,
    note: String,
    tree: Tree,
    /// Set when an entry bundle is malformed: the export was altered, not merely unreadable.
    malformed: Cell<bool>,
}

impl TilesDir {
    /// Reads `DIR/checkpoint` (parsed, not yet opened: the verifier checks its signature) and
    /// every hash tile of its size. A missing file is an input failure; a tile of the wrong
    /// length or whose hashes differ from the leaves below it breaks the export.
    pub fn open(dir: &str) -> Result<TilesDir, Failure> {
        let root = Path::new(dir);
        if !root.is_dir() {
            return Err(Failure::input(format!(
                "no tiles directory at {}",
                quoted(dir)
            )));
        }
        let checkpoint_path = root.join("checkpoint").display().to_string();
        let note = utf8(
            read_file(&checkpoint_path, MAX_NOTE_BYTES, "checkpoint")?,
            "checkpoint",
        )?;
        let checkpoint = SignedNote::parse(&note)
            .map_err(|error| error.to_string())
            .and_then(|signed| Checkpoint::parse(signed.text()).map_err(|error| error.to_string()))
            .map_err(|error| {
                Failure::new(
                    Exit::LogBroken,
                    format!("checkpoint {}: {error}", quoted(&checkpoint_path)),
                )
            })?;
        let size = checkpoint.size();
        let mut rebuild = TileRebuild::new(size);
        while let Some(tile) = rebuild.next_tile() {
            let bytes = read_tile(root, &tile, usize::from(TILE_WIDTH) * TILE_HASH_BYTES, size)?;
            rebuild.add(&tile, &bytes).map_err(|error| {
                Failure::new(
                    Exit::LogBroken,
                    format!("the hash tiles do not verify: {error}"),
                )
            })?;
        }
        let tree = rebuild
            .finish()
            .map_err(|error| Failure::new(Exit::Internal, error.to_string()))?;
        Ok(TilesDir {
            dir: root.to_path_buf(),
            origin: checkpoint.origin().to_owned(),
            size,
            note,
            tree,
            malformed: Cell::new(false),
        })
    }

    /// Whether reading the entries met a malformed bundle.
    pub fn malformed(&self) -> bool {
        self.malformed.get()
    }
}

/// Reads the tile `tile` under `root`, refusing more than `limit` bytes; a missing tile names
/// the size it is needed for.
fn read_tile(root: &Path, tile: &TilePath, limit: usize, size: u64) -> Result<Vec<u8>, Failure> {
    let path = root.join(tile.to_text());
    if !path.is_file() {
        return Err(Failure::input(format!(
            "the export is missing {tile} ({} is not a file), which the checkpoint's size {size} needs",
            quoted(&path.display().to_string())
        )));
    }
    read_file(&path.display().to_string(), limit, "tile")
}

impl AuditLogSource for TilesDir {
    fn origin(&self) -> &str {
        &self.origin
    }

    fn entries(&self, visit: &mut dyn FnMut(AuditRow<'_>) -> bool) -> Result<(), String> {
        for tile in entry_bundle_paths(self.size) {
            let bytes = read_tile(&self.dir, &tile, MAX_BUNDLE_BYTES, self.size)
                .map_err(|failure| failure.message)?;
            let first = tile.first().unwrap_or(u64::MAX);
            let entries = decode_entry_bundle(&bytes, tile.width()).map_err(|error| {
                self.malformed.set(true);
                format!("entry bundle {tile} (entries from {first}) is malformed: {error}")
            })?;
            for (position, record) in (first..).zip(entries) {
                let leaf = self
                    .tree
                    .leaf(position)
                    .map_or(&[][..], |leaf| leaf.as_bytes().as_slice());
                let row = AuditRow {
                    position,
                    record,
                    leaf,
                };
                if !visit(row) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    fn checkpoint_sizes(&self) -> Result<Vec<u64>, String> {
        Ok(vec![self.size])
    }

    fn checkpoint(&self, size: u64) -> Result<Option<String>, String> {
        Ok((size == self.size).then(|| self.note.clone()))
    }
}
