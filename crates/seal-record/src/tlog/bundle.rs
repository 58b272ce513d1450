//! Entry bundles of a tiles log (spec/audit-tiles.md, "Entry bundles"): the entries of one
//! bundle back to back, each a big-endian `u16` length followed by that many bytes.

use std::fmt;

use super::tile_path::TILE_WIDTH;

/// The largest entry a bundle can carry: its length must fit the `u16` prefix.
pub const MAX_BUNDLE_ENTRY_BYTES: usize = u16::MAX as usize;

/// The largest entry bundle: a full bundle of entries of [`MAX_BUNDLE_ENTRY_BYTES`].
pub const MAX_BUNDLE_BYTES: usize = (TILE_WIDTH as usize) * (2 + MAX_BUNDLE_ENTRY_BYTES);

/// Why a bundle cannot be written or is refused. Entries count from 0 within the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BundleError {
    /// More entries than a bundle holds, or none.
    Width {
        /// The entries given or asked for.
        entries: usize,
    },
    /// An entry longer than [`MAX_BUNDLE_ENTRY_BYTES`].
    EntryTooLarge {
        /// The entry within the bundle.
        entry: usize,
        /// Its length.
        bytes: usize,
    },
    /// The bundle ends inside the length or the bytes of an entry: it holds fewer entries
    /// than its width.
    Truncated {
        /// The entry within the bundle.
        entry: usize,
    },
    /// Bytes follow the last entry of the bundle's width.
    TrailingBytes {
        /// How many.
        bytes: usize,
    },
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Width { entries } => {
                write!(f, "an entry bundle holds 1 to 256 entries, not {entries}")
            }
            BundleError::EntryTooLarge { entry, bytes } => write!(
                f,
                "entry {entry} of the bundle is {bytes} bytes, more than {MAX_BUNDLE_ENTRY_BYTES}"
            ),
            BundleError::Truncated { entry } => write!(
                f,
                "the bundle ends inside entry {entry} (its length prefix or its bytes)"
            ),
            BundleError::TrailingBytes { bytes } => {
                write!(f, "{bytes} bytes follow the bundle's last entry")
            }
        }
    }
}

impl std::error::Error for BundleError {}

/// The bundle of `entries` (1 to [`TILE_WIDTH`] of them).
///
/// ```
/// use seal_record::tlog::{decode_entry_bundle, encode_entry_bundle};
///
/// let bundle = encode_entry_bundle(&[b"ab".as_slice(), b"".as_slice()]).unwrap();
/// assert_eq!(bundle, [0, 2, b'a', b'b', 0, 0]);
/// assert_eq!(decode_entry_bundle(&bundle, 2).unwrap(), [b"ab".as_slice(), b"".as_slice()]);
/// ```
pub fn encode_entry_bundle<E: AsRef<[u8]>>(entries: &[E]) -> Result<Vec<u8>, BundleError> {
    if entries.is_empty() || entries.len() > usize::from(TILE_WIDTH) {
        return Err(BundleError::Width {
            entries: entries.len(),
        });
    }
    let total: usize = entries.iter().map(|entry| entry.as_ref().len() + 2).sum();
    let mut bundle = Vec::with_capacity(total);
    for (at, entry) in entries.iter().enumerate() {
        let entry = entry.as_ref();
        let length = u16::try_from(entry.len()).map_err(|_| BundleError::EntryTooLarge {
            entry: at,
            bytes: entry.len(),
        })?;
        bundle.extend_from_slice(&length.to_be_bytes());
        bundle.extend_from_slice(entry);
    }
    Ok(bundle)
}

/// The `width` entries of `bundle` (1 to [`TILE_WIDTH`]): exactly that many, with no byte
/// after the last. What this accepts is exactly what [`encode_entry_bundle`] writes.
pub fn decode_entry_bundle(bundle: &[u8], width: u16) -> Result<Vec<&[u8]>, BundleError> {
    if width == 0 || width > TILE_WIDTH {
        return Err(BundleError::Width {
            entries: usize::from(width),
        });
    }
    let mut rest = bundle;
    let mut entries = Vec::with_capacity(usize::from(width));
    for entry in 0..usize::from(width) {
        let (length, after) = rest
            .split_first_chunk::<2>()
            .ok_or(BundleError::Truncated { entry })?;
        let length = usize::from(u16::from_be_bytes(*length));
        let (bytes, after) = after
            .split_at_checked(length)
            .ok_or(BundleError::Truncated { entry })?;
        entries.push(bytes);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(BundleError::TrailingBytes { bytes: rest.len() });
    }
    Ok(entries)
}
