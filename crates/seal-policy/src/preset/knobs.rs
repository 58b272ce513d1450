//! The two knobs, the permission state they live in, and the writes that change it.

use crate::approval::ApprovalPolicy;

use super::key::PresetKey;
use super::mode::SandboxMode;

/// The two independent knobs a preset bundles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Knobs {
    /// The sandbox mode.
    pub sandbox: SandboxMode,
    /// The approval policy.
    pub approval: ApprovalPolicy,
}

/// The three permission facts: the recorded preset selection (intent) and the two knobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionState {
    /// The preset last selected, if any. It is intent, not a knob: the current preset is
    /// always derived from the knobs, and the selection only breaks ties while it still matches.
    pub selection: Option<PresetKey>,
    /// The knob values.
    pub knobs: Knobs,
}

/// One write of a preset selection, in the order it must be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// Record the selected preset (always first).
    Intent(PresetKey),
    /// Set the sandbox mode (only when it changes).
    Sandbox(SandboxMode),
    /// Set the approval policy (only when it changes).
    Approval(ApprovalPolicy),
}

impl Knobs {
    /// Knobs with the given values.
    pub fn new(sandbox: SandboxMode, approval: ApprovalPolicy) -> Knobs {
        Knobs { sandbox, approval }
    }
}

impl PermissionState {
    /// A state with no recorded selection.
    pub fn from_knobs(knobs: Knobs) -> PermissionState {
        PermissionState {
            selection: None,
            knobs,
        }
    }

    /// Applies `writes` in order.
    pub fn apply(&mut self, writes: &[Write]) {
        for write in writes {
            match write {
                Write::Intent(key) => self.selection = Some(key.clone()),
                Write::Sandbox(mode) => self.knobs.sandbox = *mode,
                Write::Approval(policy) => self.knobs.approval = *policy,
            }
        }
    }
}
