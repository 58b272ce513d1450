//! Preset keys: machine names of table rows; `custom` is reserved for the derived state.

use std::fmt;

/// Longest preset key, in bytes.
pub const MAX_KEY_BYTES: usize = 64;

/// The reserved name of the derived state in which the knobs match no row.
pub const CUSTOM: &str = "custom";

/// A preset key: `[a-z][a-z0-9-]*`, 1 to [`MAX_KEY_BYTES`] bytes, never `custom`.
///
/// Holding a `PresetKey` is proof the name is well formed and is not `custom`, so `custom` can
/// never be configured as a row nor selected.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PresetKey(String);

/// A preset key that is malformed or reserved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PresetKeyError {
    /// The key is `custom`, which names the derived state and cannot be configured or selected.
    Reserved,
    /// The key is empty, too long, or not `[a-z][a-z0-9-]*`.
    Malformed {
        /// The key given.
        key: String,
    },
}

impl PresetKey {
    /// Parses a preset key exactly.
    pub fn new(key: &str) -> Result<PresetKey, PresetKeyError> {
        if key == CUSTOM {
            return Err(PresetKeyError::Reserved);
        }
        let mut bytes = key.bytes();
        let well_formed = key.len() <= MAX_KEY_BYTES
            && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
            && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !well_formed {
            return Err(PresetKeyError::Malformed {
                key: key.to_owned(),
            });
        }
        Ok(PresetKey(key.to_owned()))
    }

    /// The key text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PresetKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for PresetKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PresetKeyError::Reserved => write!(
                f,
                "preset key `{CUSTOM}` is reserved for knobs that match no preset"
            ),
            PresetKeyError::Malformed { key } => write!(
                f,
                "preset key `{}` is not 1 to {MAX_KEY_BYTES} bytes of `[a-z][a-z0-9-]*`",
                key.escape_debug()
            ),
        }
    }
}

impl std::error::Error for PresetKeyError {}
