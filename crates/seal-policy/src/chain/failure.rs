//! Stage failures: an error a listener or guard returns, or a panic the embedder caught. Every
//! failure denies.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::call::ToolCall;
use super::decision::Ruling;
use super::guard::{Check, Guard};
use super::listener::{Listener, Next};

/// Why a listener or guard could not decide. Whatever the variant, the chain's verdict for the
/// call is deny (I12): a failure can never be kept, replaced or overridden into an allow.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StageError {
    /// The stage reported that it could not decide.
    Failed {
        /// What went wrong, for the operator.
        detail: Cow<'static, str>,
    },
    /// The stage panicked and the panic was caught (by [`CatchPanics`] or by the embedder
    /// through [`StageError::from_panic`]).
    Panicked {
        /// The panic message when it was a string, else a fixed text.
        detail: Cow<'static, str>,
    },
}

/// A listener or guard whose panics are caught and turned into [`StageError::Panicked`], so that
/// a panicking stage denies instead of unwinding through the embedder.
///
/// This relies on unwinding: in a build with `panic = "abort"` nothing can be caught, and the
/// process ends instead (which also never allows the call). A panic in a stage downstream of a
/// wrapped listener is caught by the nearest wrapper around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatchPanics<T>(pub T);

impl StageError {
    /// A stage failure with the given detail.
    pub fn failed(detail: impl Into<Cow<'static, str>>) -> StageError {
        StageError::Failed {
            detail: detail.into(),
        }
    }

    /// Maps the payload of a caught panic (from `std::panic::catch_unwind`) to a stage error.
    pub fn from_panic(payload: &(dyn Any + Send)) -> StageError {
        let detail = if let Some(text) = payload.downcast_ref::<&'static str>() {
            Cow::Borrowed(*text)
        } else if let Some(text) = payload.downcast_ref::<String>() {
            Cow::Owned(text.clone())
        } else {
            Cow::Borrowed("panic with a non-text payload")
        };
        StageError::Panicked { detail }
    }

    /// The detail text.
    pub fn detail(&self) -> &str {
        match self {
            StageError::Failed { detail } | StageError::Panicked { detail } => detail,
        }
    }

    /// `failed` or `panicked`.
    pub fn kind(&self) -> &'static str {
        match self {
            StageError::Failed { .. } => "failed",
            StageError::Panicked { .. } => "panicked",
        }
    }
}

impl fmt::Display for StageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stage {}: `{}`",
            self.kind(),
            self.detail().escape_debug()
        )
    }
}

impl std::error::Error for StageError {}

impl<L: Listener> Listener for CatchPanics<L> {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        catch_unwind(AssertUnwindSafe(|| self.0.decide(call, next)))
            .unwrap_or_else(|payload| Err(StageError::from_panic(payload.as_ref())))
    }
}

impl<G: Guard> Guard for CatchPanics<G> {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        catch_unwind(AssertUnwindSafe(|| self.0.check(call)))
            .unwrap_or_else(|payload| Err(StageError::from_panic(payload.as_ref())))
    }
}
