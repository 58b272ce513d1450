//! The sandbox mode knob: a total order from most to least confined.

use std::fmt;

/// How far a call is confined. The order is total and is the order of the variants:
/// `read-only < workspace-write < danger-full-access`. "Wider" means later in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SandboxMode {
    /// `read-only`: the call may read but not write.
    ReadOnly,
    /// `workspace-write`: the call may write inside the workspace.
    WorkspaceWrite,
    /// `danger-full-access`: no sandbox; the call runs unconfined.
    DangerFullAccess,
}

impl SandboxMode {
    /// Every mode, narrowest first.
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::ReadOnly,
        SandboxMode::WorkspaceWrite,
        SandboxMode::DangerFullAccess,
    ];

    /// The wire name: `read-only`, `workspace-write` or `danger-full-access`.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::DangerFullAccess => "danger-full-access",
        }
    }

    /// Parses a wire name exactly (no case folding, no trimming).
    pub fn from_name(text: &str) -> Option<SandboxMode> {
        SandboxMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
    }

    /// The meet: the narrower of the two modes.
    pub fn meet(self, other: SandboxMode) -> SandboxMode {
        self.min(other)
    }

    /// True when `self` is strictly wider than `other`.
    pub fn is_wider_than(self, other: SandboxMode) -> bool {
        self > other
    }

    /// True when a call in this mode runs inside a sandbox (every mode but
    /// `danger-full-access`), given an executor that can confine.
    pub fn is_confined(self) -> bool {
        self != SandboxMode::DangerFullAccess
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_total() {
        for mode in SandboxMode::ALL {
            assert_eq!(SandboxMode::from_name(mode.as_str()), Some(mode));
        }
        assert!(SandboxMode::ReadOnly < SandboxMode::WorkspaceWrite);
        assert!(SandboxMode::WorkspaceWrite < SandboxMode::DangerFullAccess);
        assert_eq!(SandboxMode::from_name("Read-Only"), None);
        assert_eq!(SandboxMode::from_name(" read-only"), None);
    }
}
