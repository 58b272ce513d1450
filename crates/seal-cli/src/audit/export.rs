//! `seal audit export --tiles DIR`: the log up to its latest checkpoint as a static C2SP
//! tlog-tiles directory (spec/audit-tiles.md). The entry bundles go first, then the hash tiles,
//! and the checkpoint last, so an interrupted export holds no checkpoint and verifies as
//! nothing rather than as a smaller log.

use std::fs;
use std::path::Path;

use seal::log::tlog::{
    encode_entry_bundle, hash_tile, hash_tile_paths, leaf_hash, Checkpoint, SignedNote, TileKind,
    TilePath, Tree, TILE_WIDTH,
};

use crate::cli::AuditExportArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::write_atomic;

/// Runs `seal audit export`.
pub fn run(args: &AuditExportArgs) -> Result<u8, Failure> {
    let log = super::open(&super::log_path(&args.log)?)?;
    let (size, note) = log
        .latest_checkpoint()
        .map_err(|error| Failure::input(error.to_string()))?
        .ok_or_else(|| Failure::input("the log holds no checkpoint: nothing to export"))?;
    let checkpoint = SignedNote::parse(&note)
        .map_err(|error| error.to_string())
        .and_then(|signed| Checkpoint::parse(signed.text()).map_err(|error| error.to_string()))
        .map_err(|error| {
            Failure::new(
                Exit::LogBroken,
                format!("the latest checkpoint does not parse ({error}): run `seal audit verify`"),
            )
        })?;
    let dir = args.tiles.as_str();
    prepare(dir, args.force)?;

    let mut writer = Writer {
        dir,
        bytes: 0,
        files: 0,
    };
    let mut tree = Tree::new();
    let mut bundle: Vec<Vec<u8>> = Vec::with_capacity(usize::from(TILE_WIDTH));
    let mut bundles = 0u64;
    let mut beyond = 0u64;
    let mut failure: Option<Failure> = None;
    let walked = log.for_each_entry(|entry| {
        let position = tree.len();
        if position >= size {
            beyond += 1;
            return Ok(());
        }
        if entry.seq != position || entry.leaf != leaf_hash(&entry.record).as_bytes() {
            return Err(Failure::new(
                Exit::LogBroken,
                format!(
                    "entry {position} is missing or does not hash to its stored leaf: run `seal audit verify`"
                ),
            ));
        }
        tree.push(leaf_hash(&entry.record));
        bundle.push(entry.record);
        if bundle.len() == usize::from(TILE_WIDTH) {
            writer.bundle(bundles, &mut bundle)?;
            bundles += 1;
        }
        Ok(())
    });
    match walked {
        Ok(Ok(())) => {}
        Ok(Err(error)) => failure = Some(error),
        Err(error) => failure = Some(Failure::input(error.to_string())),
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    if !bundle.is_empty() {
        writer.bundle(bundles, &mut bundle)?;
        bundles += 1;
    }
    if tree.len() < size {
        return Err(Failure::new(
            Exit::LogBroken,
            format!(
                "the latest checkpoint commits {size} entries, the log holds {}: run `seal audit verify`",
                tree.len()
            ),
        ));
    }
    if tree.root(size).ok().as_ref() != Some(checkpoint.root()) {
        return Err(Failure::new(
            Exit::LogBroken,
            "the entries do not match the latest checkpoint's root: run `seal audit verify`",
        ));
    }

    let mut levels: Vec<(u8, u64, u64)> = Vec::new();
    for tile in hash_tile_paths(size) {
        let bytes = hash_tile(&tree, &tile)
            .map_err(|error| Failure::new(Exit::Internal, error.to_string()))?;
        writer.file(&tile.to_text(), &bytes)?;
        let TileKind::Hashes { level } = tile.kind() else {
            continue;
        };
        match levels.last_mut() {
            Some((last, full, partial)) if *last == level => {
                *full += u64::from(!tile.is_partial());
                *partial += u64::from(tile.is_partial());
            }
            _ => levels.push((
                level,
                u64::from(!tile.is_partial()),
                u64::from(tile.is_partial()),
            )),
        }
    }
    writer.file("checkpoint", note.as_bytes())?;

    outln!(
        "exported {size} entries of {} to {}",
        checkpoint.origin(),
        quoted(dir)
    );
    outln!("checkpoint: size {size}, root {}", checkpoint.root());
    outln!("entry bundles: {bundles} (tile/entries/)");
    for (level, full, partial) in levels {
        outln!("hash tiles level {level}: {full} full, {partial} partial (tile/{level}/)");
    }
    outln!("{} files, {} bytes", writer.files, writer.bytes);
    if beyond > 0 {
        outln!(
            "{beyond} entries after the latest checkpoint are not exported (no checkpoint covers them)"
        );
    }
    Ok(Exit::Ok.code())
}

/// Creates `dir`, or checks that it is empty unless `force`.
fn prepare(dir: &str, force: bool) -> Result<(), Failure> {
    let path = Path::new(dir);
    if path.exists() {
        let mut entries = fs::read_dir(path).map_err(|error| {
            Failure::new(
                Exit::Output,
                format!("cannot read the directory {}: {error}", quoted(dir)),
            )
        })?;
        if !force && entries.next().is_some() {
            return Err(Failure::new(
                Exit::Output,
                format!(
                    "{} is not empty (give `--force` to write into it)",
                    quoted(dir)
                ),
            ));
        }
        return Ok(());
    }
    fs::create_dir_all(path).map_err(|error| {
        Failure::new(
            Exit::Output,
            format!("cannot create the directory {}: {error}", quoted(dir)),
        )
    })
}

/// Writes the files of an export under its directory, each atomically.
struct Writer<'a> {
    dir: &'a str,
    bytes: u64,
    files: u64,
}

impl Writer<'_> {
    fn file(&mut self, relative: &str, bytes: &[u8]) -> Result<(), Failure> {
        let path = Path::new(self.dir).join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|error| {
                Failure::new(
                    Exit::Output,
                    format!(
                        "cannot create {}: {error}",
                        quoted(&parent.display().to_string())
                    ),
                )
            })?;
        }
        write_atomic(&path.display().to_string(), bytes, None)?;
        self.files += 1;
        self.bytes += u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        Ok(())
    }

    /// Writes the bundle `index` of the entries in `pending`, and empties it.
    fn bundle(&mut self, index: u64, pending: &mut Vec<Vec<u8>>) -> Result<(), Failure> {
        let width = u16::try_from(pending.len()).unwrap_or(0);
        let tile = TilePath::entries(index, width)
            .map_err(|error| Failure::new(Exit::Internal, error.to_string()))?;
        let bytes = encode_entry_bundle(pending)
            .map_err(|error| Failure::new(Exit::LogBroken, format!("{tile}: {error}")))?;
        self.file(&tile.to_text(), &bytes)?;
        pending.clear();
        Ok(())
    }
}
