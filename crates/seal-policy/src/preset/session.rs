//! Sessions: permission facts pinned at creation, an explicit session override, and the
//! ceiling a delegated child inherits.

use crate::approval::ApprovalPolicy;

use super::key::PresetKey;
use super::knobs::{Knobs, PermissionState, Write};
use super::mode::SandboxMode;
use super::table::{PresetTable, SelectError};

/// The permission facts of one session.
///
/// A fresh session pins all three facts (selection, sandbox mode, approval policy) from the
/// settings it is created with; later changes to those settings reach only sessions created
/// afterwards. The standing sandbox mode is the session's explicit override if one was set,
/// else the pinned mode, and never wider than the ceiling of a delegated child. There is no
/// field for a one-shot grant: a grant is a value for one call and is never stored here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pinned: PermissionState,
    sandbox_override: Option<SandboxMode>,
    ceiling: Option<SandboxMode>,
    approval_pinned_never: bool,
}

/// The facts a seeded or resumed session already holds. Present facts are kept as they are;
/// missing ones are filled from the settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeededFacts {
    /// The recorded preset selection, if the seed holds one.
    pub selection: Option<PresetKey>,
    /// The pinned sandbox mode, if the seed holds one.
    pub sandbox: Option<SandboxMode>,
    /// The explicit session sandbox override, if the seed holds one.
    pub sandbox_override: Option<SandboxMode>,
    /// The pinned approval policy, if the seed holds one.
    pub approval: Option<ApprovalPolicy>,
}

impl Session {
    /// A fresh session: pins the selection and both knobs of `settings` as they are now.
    pub fn fresh(settings: &PermissionState) -> Session {
        Session {
            pinned: settings.clone(),
            sandbox_override: None,
            ceiling: None,
            approval_pinned_never: false,
        }
    }

    /// A seeded or resumed session: keeps every fact `seed` holds (so its effective permission
    /// is unchanged) and takes only the missing ones from `settings`.
    pub fn resume(seed: &SeededFacts, settings: &PermissionState) -> Session {
        Session {
            pinned: PermissionState {
                selection: seed
                    .selection
                    .clone()
                    .or_else(|| settings.selection.clone()),
                knobs: Knobs {
                    sandbox: seed.sandbox.unwrap_or(settings.knobs.sandbox),
                    approval: seed.approval.unwrap_or(settings.knobs.approval),
                },
            },
            sandbox_override: seed.sandbox_override,
            ceiling: None,
            approval_pinned_never: false,
        }
    }

    /// The standing sandbox mode of the session's calls: the explicit override, else the pinned
    /// mode, met with the ceiling of a delegated child.
    pub fn standing_mode(&self) -> SandboxMode {
        let mode = self.sandbox_override.unwrap_or(self.pinned.knobs.sandbox);
        match self.ceiling {
            Some(ceiling) => mode.meet(ceiling),
            None => mode,
        }
    }

    /// The standing approval policy: `never` for a child pinned by delegation, else the pinned
    /// policy.
    pub fn approval_policy(&self) -> ApprovalPolicy {
        if self.approval_pinned_never {
            ApprovalPolicy::Never
        } else {
            self.pinned.knobs.approval
        }
    }

    /// The explicit session sandbox override, if one was set for this session (by
    /// [`Session::set_sandbox`], [`Session::select`] or a seed). The deployment default is not
    /// an override.
    pub fn sandbox_override(&self) -> Option<SandboxMode> {
        self.sandbox_override
    }

    /// The ceiling inherited from a parent, for a delegated child.
    pub fn ceiling(&self) -> Option<SandboxMode> {
        self.ceiling
    }

    /// The facts pinned at creation (or taken from a seed).
    pub fn pinned(&self) -> &PermissionState {
        &self.pinned
    }

    /// The effective permission state: the recorded selection and the standing knobs. The
    /// current preset of the session is [`PresetTable::current`] of this state.
    pub fn state(&self) -> PermissionState {
        PermissionState {
            selection: self.pinned.selection.clone(),
            knobs: Knobs {
                sandbox: self.standing_mode(),
                approval: self.approval_policy(),
            },
        }
    }

    /// Sets the explicit session sandbox override (a current-session mutation; settings and
    /// other sessions are untouched). A delegated child stays within its ceiling.
    pub fn set_sandbox(&mut self, mode: SandboxMode) {
        self.sandbox_override = Some(mode);
    }

    /// Selects preset `key` for this session only: returns the writes (intent first, then only
    /// the knobs whose effective values change) after applying them. A sandbox write becomes
    /// the session override; on a delegated child the approval policy stays `never` and the
    /// sandbox mode stays within the ceiling.
    pub fn select(&mut self, table: &PresetTable, key: &str) -> Result<Vec<Write>, SelectError> {
        let writes = table.select(key, &self.state())?;
        for write in &writes {
            match write {
                Write::Intent(key) => self.pinned.selection = Some(key.clone()),
                Write::Sandbox(mode) => self.sandbox_override = Some(*mode),
                Write::Approval(policy) => self.pinned.knobs.approval = *policy,
            }
        }
        Ok(writes)
    }

    /// A delegated child session (built by the delegation module).
    pub(crate) fn delegated(
        pinned: PermissionState,
        sandbox_override: Option<SandboxMode>,
        ceiling: SandboxMode,
        approval_pinned_never: bool,
    ) -> Session {
        Session {
            pinned,
            sandbox_override,
            ceiling: Some(ceiling),
            approval_pinned_never,
        }
    }
}

/// The user's settings for future sessions: a permission state changed only through its own
/// writes. Changing it never touches an existing [`Session`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    state: PermissionState,
}

impl Settings {
    /// Settings starting from the table's resolved default.
    pub fn new(table: &PresetTable) -> Settings {
        Settings {
            state: table.default_state().clone(),
        }
    }

    /// The current settings.
    pub fn state(&self) -> &PermissionState {
        &self.state
    }

    /// Selects preset `key` as the default for future sessions; returns the writes applied
    /// (intent first, then only changed knobs).
    pub fn select(&mut self, table: &PresetTable, key: &str) -> Result<Vec<Write>, SelectError> {
        let writes = table.select(key, &self.state)?;
        self.state.apply(&writes);
        Ok(writes)
    }

    /// Sets one knob directly (no intent is recorded; the current preset is re-derived).
    pub fn set_sandbox(&mut self, mode: SandboxMode) {
        self.state.knobs.sandbox = mode;
    }

    /// Sets the approval policy directly.
    pub fn set_approval(&mut self, policy: ApprovalPolicy) {
        self.state.knobs.approval = policy;
    }

    /// A fresh session pinned to the settings as they are now.
    pub fn open_session(&self) -> Session {
        Session::fresh(&self.state)
    }
}
