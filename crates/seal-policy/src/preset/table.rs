//! The preset table: loading with its failures, deriving the current preset, and selecting.

use std::fmt;

use super::executor::Executor;
use super::key::{PresetKey, PresetKeyError};
use super::knobs::{Knobs, PermissionState, Write};

/// One row of the preset table: a key, the two knob values it bundles, and presentation text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    /// The machine key.
    pub key: PresetKey,
    /// The sandbox mode and approval policy the preset stands for.
    pub knobs: Knobs,
    /// Optional presentation text.
    pub label: Option<String>,
}

/// Limits of a preset table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresetLimits {
    /// Most rows. Default 64; more is [`PresetLoadError::TooManyRows`].
    pub max_rows: usize,
    /// Longest label, in Unicode scalar values. Default 256; longer is
    /// [`PresetLoadError::LabelTooLong`].
    pub max_label_chars: usize,
}

/// What a preset table is loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetConfig<'a> {
    /// The rows, in table order (the order that breaks ties without a recorded selection).
    pub rows: Vec<(&'a str, Knobs, Option<&'a str>)>,
    /// The explicit default preset key, if configured.
    pub default: Option<&'a str>,
    /// The knobs the deployment composes when no explicit default is configured.
    pub composed_defaults: Knobs,
    /// What the executor can do. Presets need one that confines.
    pub executor: Executor,
}

/// A loaded preset table and the default it resolved for future sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetTable {
    rows: Vec<Preset>,
    default: PermissionState,
}

/// The current value of the preset control, derived from the knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Current<'a> {
    /// The knobs match this row.
    Preset(&'a PresetKey),
    /// The knobs match no row.
    Custom,
}

/// Why a preset table failed to load.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PresetLoadError {
    /// The executor cannot confine calls, so a preset would promise a sandbox it cannot keep.
    NonConfiningExecutor,
    /// The table has no row.
    Empty,
    /// The table has more rows than [`PresetLimits::max_rows`].
    TooManyRows {
        /// The number of rows.
        rows: usize,
        /// The limit.
        max: usize,
    },
    /// A row's key is malformed or `custom`.
    InvalidKey(PresetKeyError),
    /// Two rows share a key.
    DuplicateKey {
        /// The repeated key.
        key: String,
    },
    /// A label is blank or holds a control, bidi or invisible character.
    InvalidLabel {
        /// The row's key.
        key: String,
    },
    /// A label is longer than [`PresetLimits::max_label_chars`].
    LabelTooLong {
        /// The row's key.
        key: String,
        /// The limit.
        max: usize,
    },
    /// The explicit default names no row.
    UnresolvedDefault {
        /// The default given.
        key: String,
    },
    /// No explicit default is configured and the composed default knobs match no row.
    DefaultsMatchNoRow {
        /// The composed default knobs.
        knobs: Knobs,
    },
}

/// Why a preset could not be selected.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectError {
    /// `custom` is derived, never selected.
    Custom,
    /// The key names no row.
    Unknown {
        /// The key given.
        key: String,
    },
}

impl PresetLimits {
    /// The default limits: 64 rows, labels of at most 256 characters.
    pub const DEFAULT: PresetLimits = PresetLimits {
        max_rows: 64,
        max_label_chars: 256,
    };

    /// The same limits with at most `max_rows` rows.
    pub const fn with_max_rows(self, max_rows: usize) -> PresetLimits {
        PresetLimits { max_rows, ..self }
    }

    /// The same limits with labels of at most `max_label_chars` characters.
    pub const fn with_max_label_chars(self, max_label_chars: usize) -> PresetLimits {
        PresetLimits {
            max_label_chars,
            ..self
        }
    }
}

impl Default for PresetLimits {
    fn default() -> Self {
        PresetLimits::DEFAULT
    }
}

impl PresetTable {
    /// Loads a table with the default limits. See [`PresetTable::load_with`].
    pub fn load(config: &PresetConfig<'_>) -> Result<PresetTable, PresetLoadError> {
        PresetTable::load_with(config, PresetLimits::DEFAULT)
    }

    /// Loads a table. Fails, in this order of checks, when the executor cannot confine, the
    /// table is empty or too long, a key is malformed, `custom` or repeated, a label is
    /// unreadable or too long, the explicit default names no row, or (with no explicit default)
    /// the composed default knobs match no row.
    pub fn load_with(
        config: &PresetConfig<'_>,
        limits: PresetLimits,
    ) -> Result<PresetTable, PresetLoadError> {
        if !config.executor.can_sandbox {
            return Err(PresetLoadError::NonConfiningExecutor);
        }
        if config.rows.is_empty() {
            return Err(PresetLoadError::Empty);
        }
        if config.rows.len() > limits.max_rows {
            return Err(PresetLoadError::TooManyRows {
                rows: config.rows.len(),
                max: limits.max_rows,
            });
        }
        let mut rows: Vec<Preset> = Vec::with_capacity(config.rows.len());
        for &(key, knobs, label) in &config.rows {
            let key = PresetKey::new(key).map_err(PresetLoadError::InvalidKey)?;
            if rows.iter().any(|row| row.key == key) {
                return Err(PresetLoadError::DuplicateKey {
                    key: key.as_str().to_owned(),
                });
            }
            if let Some(label) = label {
                check_label(&key, label, limits)?;
            }
            rows.push(Preset {
                key,
                knobs,
                label: label.map(str::to_owned),
            });
        }
        let default = match config.default {
            Some(name) => {
                let row = rows
                    .iter()
                    .find(|row| row.key.as_str() == name)
                    .ok_or_else(|| PresetLoadError::UnresolvedDefault {
                        key: name.to_owned(),
                    })?;
                PermissionState {
                    selection: Some(row.key.clone()),
                    knobs: row.knobs,
                }
            }
            None => {
                if !rows.iter().any(|row| row.knobs == config.composed_defaults) {
                    return Err(PresetLoadError::DefaultsMatchNoRow {
                        knobs: config.composed_defaults,
                    });
                }
                PermissionState::from_knobs(config.composed_defaults)
            }
        };
        Ok(PresetTable { rows, default })
    }

    /// The rows in table order.
    pub fn rows(&self) -> &[Preset] {
        &self.rows
    }

    /// The resolved default: the state a fresh settings store starts from.
    pub fn default_state(&self) -> &PermissionState {
        &self.default
    }

    /// The current preset, derived from the knobs of `state`: the recorded selection if its row
    /// still matches the knobs; otherwise the first row in table order that matches; otherwise
    /// [`Current::Custom`].
    pub fn current<'a>(&'a self, state: &PermissionState) -> Current<'a> {
        let matching = |row: &&Preset| row.knobs == state.knobs;
        if let Some(selected) = &state.selection {
            if let Some(row) = self
                .rows
                .iter()
                .filter(matching)
                .find(|row| &row.key == selected)
            {
                return Current::Preset(&row.key);
            }
        }
        match self.rows.iter().find(matching) {
            Some(row) => Current::Preset(&row.key),
            None => Current::Custom,
        }
    }

    /// The writes that select `key` from `state`: the intent first, then each knob whose value
    /// changes, sandbox before approval. Selecting `custom` or an unknown key fails and writes
    /// nothing.
    pub fn select(&self, key: &str, state: &PermissionState) -> Result<Vec<Write>, SelectError> {
        let row = self.row(key)?;
        let mut writes = vec![Write::Intent(row.key.clone())];
        if row.knobs.sandbox != state.knobs.sandbox {
            writes.push(Write::Sandbox(row.knobs.sandbox));
        }
        if row.knobs.approval != state.knobs.approval {
            writes.push(Write::Approval(row.knobs.approval));
        }
        Ok(writes)
    }

    /// The row named `key`, or why there is none.
    pub fn row(&self, key: &str) -> Result<&Preset, SelectError> {
        if key == super::key::CUSTOM {
            return Err(SelectError::Custom);
        }
        self.rows
            .iter()
            .find(|row| row.key.as_str() == key)
            .ok_or_else(|| SelectError::Unknown {
                key: key.to_owned(),
            })
    }
}

impl Current<'_> {
    /// The key shown for this value: the row's key or `custom`.
    pub fn as_str(&self) -> &str {
        match self {
            Current::Preset(key) => key.as_str(),
            Current::Custom => super::key::CUSTOM,
        }
    }
}

impl fmt::Display for PresetLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PresetLoadError::NonConfiningExecutor => {
                f.write_str("presets need an executor that can sandbox calls")
            }
            PresetLoadError::Empty => f.write_str("the preset table has no row"),
            PresetLoadError::TooManyRows { rows, max } => {
                write!(f, "the preset table has {rows} rows, more than {max}")
            }
            PresetLoadError::InvalidKey(error) => write!(f, "invalid preset row: {error}"),
            PresetLoadError::DuplicateKey { key } => write!(f, "preset key `{key}` appears twice"),
            PresetLoadError::InvalidLabel { key } => write!(
                f,
                "the label of preset `{key}` is blank or holds a control, bidi or invisible character"
            ),
            PresetLoadError::LabelTooLong { key, max } => write!(
                f,
                "the label of preset `{key}` is longer than {max} characters"
            ),
            PresetLoadError::UnresolvedDefault { key } => write!(
                f,
                "default preset `{}` names no row",
                key.escape_debug()
            ),
            PresetLoadError::DefaultsMatchNoRow { knobs } => write!(
                f,
                "no explicit default and the default knobs (`{}`, `{}`) match no preset",
                knobs.sandbox, knobs.approval
            ),
        }
    }
}

impl std::error::Error for PresetLoadError {}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::Custom => {
                f.write_str("`custom` is derived from the knobs and cannot be selected")
            }
            SelectError::Unknown { key } => {
                write!(f, "no preset is named `{}`", key.escape_debug())
            }
        }
    }
}

impl std::error::Error for SelectError {}

fn check_label(key: &PresetKey, label: &str, limits: PresetLimits) -> Result<(), PresetLoadError> {
    if label.trim().is_empty() || label.chars().any(seal_record::is_forbidden_text_char) {
        return Err(PresetLoadError::InvalidLabel {
            key: key.as_str().to_owned(),
        });
    }
    if label.chars().count() > limits.max_label_chars {
        return Err(PresetLoadError::LabelTooLong {
            key: key.as_str().to_owned(),
            max: limits.max_label_chars,
        });
    }
    Ok(())
}
