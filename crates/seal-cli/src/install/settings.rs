//! seal's hook entries in a client's hook settings: finding them, and planning the textual edit
//! that writes or removes them (spec/install.md).
//!
//! Both clients read the same shape: `{"hooks": {"<Event>": [{"matcher": "...", "hooks":
//! [{"type": "command", "command": "...", "timeout": N}]}]}}`. A handler is seal's when its
//! command runs a program named `seal...` with `hook claude-code` or `hook codex` as its next
//! words (after any `NAME=value` assignments).

mod command;
mod found;
mod kept;
mod plan;

pub use command::{seal_command, SealCommand};
pub use found::{collect, find, Found};
pub use plan::{install, uninstall};

/// The program the commands run unless `--binary` says otherwise: `seal`, as the client's
/// `PATH` finds it, so an upgrade changes no hook definition.
pub const DEFAULT_BINARY: &str = "seal";

/// The bound on the edits one install or uninstall makes (each adds, replaces or removes one
/// seal hook; a file with more seal hooks than this is refused).
pub const MAX_EDITS: usize = 256;

/// A client whose hooks seal answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code (`settings.json`).
    ClaudeCode,
    /// Codex (`hooks.json`).
    Codex,
}

impl Client {
    /// The word of `seal hook <client>`.
    pub fn word(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
        }
    }

    /// The client's name.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Codex => "Codex",
        }
    }
}

/// The files written into the commands (absolute paths, or a Redis URL for the state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Files {
    /// `--rules`, for the tool hooks.
    pub rules: Option<String>,
    /// `--store`.
    pub store: Option<String>,
    /// `--keys`.
    pub keys: Option<String>,
    /// `--state`.
    pub state: Option<String>,
}

/// What an install writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The client.
    pub client: Client,
    /// The program the commands run.
    pub binary: String,
    /// The files the commands name.
    pub files: Files,
    /// The hook timeout, in seconds.
    pub timeout: u64,
    /// How tool calls the rules ask about reach the approval panel.
    pub approvals: Approvals,
    /// `--approval-wait` for the waiting hooks (their default when `None`).
    pub approval_wait: Option<u64>,
}

/// How an install puts asks on the approval panel of `seal serve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Approvals {
    /// Not at all: the client's own prompt alone.
    #[default]
    Off,
    /// The `PermissionRequest` hook relays the client's prompt to the panel (Claude Code: its
    /// own prompt stays usable beside it and the first answer wins; Codex: its own approval
    /// follows only when the relay gives no answer).
    Relay,
    /// The `PreToolUse` hook holds an ask until the panel answers (for `claude -p`, background
    /// runs and Codex).
    Hold,
}

impl Wanted {
    /// The seconds a waiting hook of `event` waits, when it is one.
    pub fn wait_of(&self, event: &crate::install::HookEntry) -> Option<u64> {
        match (self.approvals, event.hook) {
            (Approvals::Relay, "permission-request") => {
                Some(self.approval_wait.unwrap_or(match self.client {
                    // Codex asks the person only after the hook ends: a short wait.
                    Client::Codex => crate::relay::DEFAULT_CODEX_RELAY_WAIT,
                    Client::ClaudeCode => crate::relay::DEFAULT_RELAY_WAIT,
                }))
            }
            (Approvals::Hold, "pre-tool-use") => Some(
                self.approval_wait
                    .unwrap_or(crate::relay::DEFAULT_HOLD_WAIT),
            ),
            _ => None,
        }
    }

    /// The timeout written for `event`: `--timeout`, raised for a waiting hook above its wait,
    /// its answer margin and [`WAIT_TIMEOUT_MARGIN`].
    pub fn timeout_of(&self, event: &crate::install::HookEntry) -> u64 {
        match self.wait_of(event) {
            Some(wait) => self
                .timeout
                .max(wait + crate::relay::ANSWER_MARGIN + WAIT_TIMEOUT_MARGIN),
            None => self.timeout,
        }
    }
}

/// Seconds a waiting hook's timeout leaves beyond the hook's own deadline, so the client never
/// kills a hook that is about to answer.
pub const WAIT_TIMEOUT_MARGIN: u64 = 10;

/// An install or uninstall planned for one settings file: the whole new text and a line per event
/// saying what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    /// The settings file's text after the change (the same text when nothing changes).
    pub text: String,
    /// What happened to each event.
    pub report: Vec<String>,
}

#[cfg(test)]
mod tests;
