//! Deny-only guards: the monotonic vetoes that run after an allow.

use super::call::ToolCall;
use super::decision::{Because, Reason};
use super::failure::StageError;

/// A deny-only check run on every call the waterfall allowed (directly, or after an approval
/// answered `allowed-once`). Guards run after the listeners, outside their reach: no listener
/// can skip, reorder or overrule them (I7).
///
/// A guard can only pass or deny: [`Check`] has no allow, so adding a guard can never turn a
/// deny or an ask into an allow. An error denies.
pub trait Guard {
    /// Checks the call.
    fn check(&self, call: &ToolCall) -> Result<Check, StageError>;
}

/// What a guard returns: pass, or deny with a reason and an optional explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The guard has no objection. This is not an allow: the call still needs every other
    /// guard to pass.
    Pass,
    /// The call is refused.
    Deny {
        /// Why.
        reason: Reason,
        /// The rule and normalized form that matched, if the guard reports them.
        because: Option<Because>,
    },
}

impl Check {
    /// `Deny` with a reason and no explanation.
    pub fn deny(reason: impl Into<Reason>) -> Check {
        Check::Deny {
            reason: reason.into(),
            because: None,
        }
    }
}

impl<F> Guard for F
where
    F: Fn(&ToolCall) -> Result<Check, StageError>,
{
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        self(call)
    }
}
