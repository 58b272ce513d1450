//! The names of the resources of a C2SP tlog-tiles log (spec/audit-tiles.md, "Layout"): hash
//! tiles `tile/<L>/<N>[.p/<W>]` and entry bundles `tile/entries/<N>[.p/<W>]`, with the tile
//! index `N` written in 3-digit groups, every group but the last prefixed with `x`.

use std::fmt;

/// The tree levels one tile spans: a hash tile of level `L` holds hashes of tree level
/// `TILE_HEIGHT * L`.
pub const TILE_HEIGHT: u32 = 8;

/// The hashes of a full hash tile, and the entries of a full entry bundle (`2^TILE_HEIGHT`).
pub const TILE_WIDTH: u16 = 256;

/// The largest tile level a path may name.
pub const MAX_TILE_LEVEL: u8 = 63;

/// The longest tile path accepted, in bytes: `tile/entries/`, seven index groups and a
/// partial-width suffix fit well inside it.
pub const MAX_TILE_PATH_BYTES: usize = 64;

/// What a tile holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TileKind {
    /// Hashes of tree level `TILE_HEIGHT * level`, 32 bytes each.
    Hashes {
        /// The tile level, at most [`MAX_TILE_LEVEL`].
        level: u8,
    },
    /// Log entries, each a big-endian `u16` length and its bytes.
    Entries,
}

/// One tile of a tiles log: its kind, its index within its level, and its width (how many
/// hashes or entries it holds: [`TILE_WIDTH`] for a full tile, fewer for a partial one).
///
/// Only the constructors and [`TilePath::parse`] make one, so the level and width are always
/// in range, and [`TilePath::to_text`] is the one spelling of it that `parse` accepts.
///
/// ```
/// use seal_record::tlog::TilePath;
///
/// let tile = TilePath::hashes(0, 1234, 5).unwrap();
/// assert_eq!(tile.to_text(), "tile/0/x001/234.p/5");
/// assert_eq!(TilePath::parse("tile/0/x001/234.p/5"), Ok(tile));
/// assert!(TilePath::parse("tile/0/x000/001").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TilePath {
    kind: TileKind,
    index: u64,
    width: u16,
}

/// Why a tile path or tile is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TilePathError {
    /// The path does not begin with `tile/`, or is longer than [`MAX_TILE_PATH_BYTES`].
    NotATile,
    /// The level is not a decimal from 0 to 63 without a leading zero.
    Level,
    /// The index is not 3-digit groups, all but the last prefixed with `x`, without a leading
    /// all-zero group, and at most `u64::MAX`.
    Index,
    /// The partial width is not a decimal from 1 to 255 without a leading zero.
    Width,
}

impl fmt::Display for TilePathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TilePathError::NotATile => "tile path must begin with `tile/` and be at most 64 bytes",
            TilePathError::Level => {
                "tile level must be a decimal from 0 to 63 without a leading zero"
            }
            TilePathError::Index => {
                "tile index must be 3-digit groups, all but the last prefixed with `x`, without a leading zero group"
            }
            TilePathError::Width => {
                "partial tile width must be a decimal from 1 to 255 without a leading zero"
            }
        })
    }
}

impl std::error::Error for TilePathError {}

impl TilePath {
    /// The hash tile of `level` at `index` holding `width` hashes (1 to [`TILE_WIDTH`]).
    pub fn hashes(level: u8, index: u64, width: u16) -> Result<TilePath, TilePathError> {
        if level > MAX_TILE_LEVEL {
            return Err(TilePathError::Level);
        }
        TilePath::new(TileKind::Hashes { level }, index, width)
    }

    /// The entry bundle at `index` holding `width` entries (1 to [`TILE_WIDTH`]).
    pub fn entries(index: u64, width: u16) -> Result<TilePath, TilePathError> {
        TilePath::new(TileKind::Entries, index, width)
    }

    fn new(kind: TileKind, index: u64, width: u16) -> Result<TilePath, TilePathError> {
        if width == 0 || width > TILE_WIDTH {
            return Err(TilePathError::Width);
        }
        Ok(TilePath { kind, index, width })
    }

    /// What the tile holds.
    pub fn kind(&self) -> TileKind {
        self.kind
    }

    /// The tile's index within its level.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The hashes or entries the tile holds, 1 to [`TILE_WIDTH`].
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Whether the tile holds fewer than [`TILE_WIDTH`] hashes or entries.
    pub fn is_partial(&self) -> bool {
        self.width < TILE_WIDTH
    }

    /// The position of the first hash or entry the tile holds within its tree level: `index *
    /// 256` (for a hash tile of level `L`, a position among the hashes of tree level `8L`).
    pub fn first(&self) -> Option<u64> {
        self.index.checked_mul(u64::from(TILE_WIDTH))
    }

    /// The path, relative to the log's prefix.
    pub fn to_text(&self) -> String {
        let mut text = String::from("tile/");
        match self.kind {
            TileKind::Hashes { level } => text.push_str(&level.to_string()),
            TileKind::Entries => text.push_str("entries"),
        }
        text.push('/');
        push_index(&mut text, self.index);
        if self.is_partial() {
            text.push_str(".p/");
            text.push_str(&self.width.to_string());
        }
        text
    }

    /// Parses a path as [`TilePath::to_text`] writes it, and nothing else: every other
    /// spelling of the same tile (a leading zero, a missing `x`, a leading `x000` group, a
    /// `.p/256`) is refused.
    pub fn parse(text: &str) -> Result<TilePath, TilePathError> {
        if text.len() > MAX_TILE_PATH_BYTES {
            return Err(TilePathError::NotATile);
        }
        let rest = text.strip_prefix("tile/").ok_or(TilePathError::NotATile)?;
        let (head, rest) = rest.split_once('/').ok_or(TilePathError::Index)?;
        let kind = if head == "entries" {
            TileKind::Entries
        } else {
            TileKind::Hashes {
                level: parse_level(head)?,
            }
        };
        let (index_text, width) = match rest.split_once(".p/") {
            Some((index_text, width_text)) => (index_text, parse_width(width_text)?),
            None => (rest, TILE_WIDTH),
        };
        let index = parse_index(index_text)?;
        let tile = TilePath::new(kind, index, width)?;
        // The parse above accepts only the formatter's spelling; the round trip states it.
        if tile.to_text() != text {
            return Err(TilePathError::Index);
        }
        Ok(tile)
    }
}

impl fmt::Display for TilePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// The hash tiles of a tree of `size` leaves, as a tiles log serves them at that size: for
/// each level `L` with `size >> 8L` hashes, the full tiles and then the partial tile of the
/// remainder, if any; levels ascending, indexes ascending within a level. Lazy: a size
/// anywhere in `u64` costs nothing until walked.
pub fn hash_tile_paths(size: u64) -> TilePaths {
    TilePaths {
        size,
        entries: false,
        level: 0,
        index: 0,
    }
}

/// The entry bundles of a log of `size` entries: the full bundles, then the partial bundle of
/// the remainder, if any. Lazy, as [`hash_tile_paths`].
pub fn entry_bundle_paths(size: u64) -> TilePaths {
    TilePaths {
        size,
        entries: true,
        level: 0,
        index: 0,
    }
}

/// The tiles of one size, in order: [`hash_tile_paths`] or [`entry_bundle_paths`].
#[derive(Debug, Clone)]
pub struct TilePaths {
    size: u64,
    entries: bool,
    level: u8,
    index: u64,
}

impl Iterator for TilePaths {
    type Item = TilePath;

    fn next(&mut self) -> Option<TilePath> {
        while self.level <= MAX_TILE_LEVEL && !(self.entries && self.level > 0) {
            let count = self
                .size
                .checked_shr(TILE_HEIGHT * u32::from(self.level))
                .unwrap_or(0);
            let wide = u64::from(TILE_WIDTH);
            let (full, remainder) = (count / wide, count % wide);
            let width = if self.index < full {
                Some(TILE_WIDTH)
            } else if self.index == full && remainder > 0 {
                // Below TILE_WIDTH, so it fits a u16.
                u16::try_from(remainder).ok()
            } else {
                None
            };
            match width {
                Some(width) => {
                    let tile = if self.entries {
                        TilePath::entries(self.index, width)
                    } else {
                        TilePath::hashes(self.level, self.index, width)
                    };
                    self.index += 1;
                    return tile.ok();
                }
                None if count == 0 => break,
                None => {
                    self.level += 1;
                    self.index = 0;
                }
            }
        }
        self.level = MAX_TILE_LEVEL.saturating_add(1);
        None
    }
}

fn push_index(text: &mut String, index: u64) {
    let mut groups = Vec::new();
    let mut rest = index;
    loop {
        groups.push(rest % 1000);
        rest /= 1000;
        if rest == 0 {
            break;
        }
    }
    let last = groups.len().saturating_sub(1);
    for (at, group) in groups.iter().rev().enumerate() {
        if at < last {
            text.push_str(&format!("x{group:03}/"));
        } else {
            text.push_str(&format!("{group:03}"));
        }
    }
}

fn is_decimal(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

fn parse_level(text: &str) -> Result<u8, TilePathError> {
    if !is_decimal(text) || text.len() > 2 {
        return Err(TilePathError::Level);
    }
    match text.parse::<u8>() {
        Ok(level) if level <= MAX_TILE_LEVEL => Ok(level),
        _ => Err(TilePathError::Level),
    }
}

fn parse_width(text: &str) -> Result<u16, TilePathError> {
    if !is_decimal(text) || text.len() > 3 {
        return Err(TilePathError::Width);
    }
    match text.parse::<u16>() {
        Ok(width) if (1..TILE_WIDTH).contains(&width) => Ok(width),
        _ => Err(TilePathError::Width),
    }
}

fn parse_index(text: &str) -> Result<u64, TilePathError> {
    let groups: Vec<&str> = text.split('/').collect();
    let last = groups.len().saturating_sub(1);
    let mut index = 0u64;
    for (at, group) in groups.iter().enumerate() {
        let digits = if at < last {
            group.strip_prefix('x').ok_or(TilePathError::Index)?
        } else {
            group
        };
        if digits.len() != 3 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(TilePathError::Index);
        }
        if at == 0 && at < last && digits == "000" {
            return Err(TilePathError::Index);
        }
        let value = digits.parse::<u64>().map_err(|_| TilePathError::Index)?;
        index = index
            .checked_mul(1000)
            .and_then(|index| index.checked_add(value))
            .ok_or(TilePathError::Index)?;
    }
    Ok(index)
}
