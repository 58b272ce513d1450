//! What the mounted executor can do.

/// The capabilities of the executor that runs shell and file calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Executor {
    /// True when the executor can confine a call to a sandbox mode. When false, presets cannot
    /// be loaded and any escalation field on a call is rejected.
    pub can_sandbox: bool,
}

impl Executor {
    /// An executor that confines calls.
    pub const CONFINING: Executor = Executor { can_sandbox: true };
    /// An executor that runs every call unconfined.
    pub const UNCONFINED: Executor = Executor { can_sandbox: false };
}
