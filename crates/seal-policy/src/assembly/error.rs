//! Why a policy could not be assembled, and why one of its stages could not be registered.

use std::fmt;

use crate::chain::ChainError;
use crate::preset::PresetLoadError;
use crate::rules::RulesErrorKind;

/// Why a listener or guard could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StageRefusal {
    /// The chain refused it (a name outside the grammar, a name taken, a chain limit).
    Chain(ChainError),
    /// More listeners and guards than [`MAX_STAGES`](super::MAX_STAGES).
    TooMany {
        /// The limit.
        max: usize,
    },
}

/// Why a policy could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// The rule text was refused, at this line and column.
    Rules {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong.
        kind: RulesErrorKind,
    },
    /// The workspace root is not an absolute path.
    WorkspaceRoot {
        /// The root given.
        root: String,
    },
    /// A listener or guard name is invalid (1 to 64 bytes of printable ASCII without space),
    /// taken, or one stage too many.
    Stage {
        /// The name given.
        name: String,
        /// What is wrong.
        error: StageRefusal,
    },
    /// No preset has this name.
    UnknownPreset {
        /// The name given.
        name: String,
        /// The presets of the table, in order.
        known: Vec<String>,
    },
    /// The permission settings cannot be loaded (for instance an executor that cannot sandbox).
    Preset(PresetLoadError),
}

impl fmt::Display for StageRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Chain(error) => error.fmt(f),
            Self::TooMany { max } => write!(f, "more than {max} listeners and guards"),
        }
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rules { line, column, kind } => {
                write!(f, "rules refused at line {line}, column {column}: {kind}")
            }
            Self::WorkspaceRoot { root } => {
                let root = root.escape_debug();
                write!(f, "workspace root `{root}` is not an absolute path")
            }
            Self::Stage { name, error } => {
                write!(f, "stage `{}` refused: {error}", name.escape_debug())
            }
            Self::UnknownPreset { name, known } => {
                let name = name.escape_debug();
                write!(
                    f,
                    "unknown preset `{name}`: known presets are {}",
                    known.join(", ")
                )
            }
            Self::Preset(error) => write!(f, "permission settings refused: {error}"),
        }
    }
}

impl std::error::Error for PolicyError {}

pub(super) fn rules_error(line: usize, column: usize, kind: RulesErrorKind) -> PolicyError {
    PolicyError::Rules { line, column, kind }
}

pub(super) fn stage_error(name: &str, error: &ChainError) -> PolicyError {
    PolicyError::Stage {
        name: name.to_owned(),
        error: StageRefusal::Chain(error.clone()),
    }
}
