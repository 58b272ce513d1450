//! Assembling a policy: rule text, the embedder's listeners and guards, the destructive-command
//! guard, the path guards (self-protection, secrets), the fallback, the preset table and the
//! knobs, checked together and turned into one [`Pipeline`], the standing [`PermissionState`]
//! of new sessions and the policy digest that covers all of it (spec/policy-digest.md).

mod builder;
mod error;
mod rules;

pub use builder::PolicyBuilder;
pub use error::{PolicyError, StageRefusal};
pub use rules::{lint_rules, rule_set, RuleFinding};

use seal_record::Sha256Digest;

use crate::approval::ApprovalPolicy;
use crate::pipeline::Pipeline;
use crate::preset::{PermissionState, SandboxMode};
use crate::rules::RulesListener;

/// Most listeners plus guards a policy holds; one more is refused.
pub const MAX_STAGES: usize = 64;

/// The rule text of a policy without rules: no rule, so the fallback decides.
pub const NO_RULES: &str = r#"{"permissions": {}}"#;

/// The name of the rules listener in traces.
pub const RULES_LISTENER_NAME: &str = "rules";

/// The name of the destructive-command guard's global guard.
pub const DESTRUCTIVE_GUARD_NAME: &str = "destructive-guard";

/// The name of the destructive-command guard's first listener.
pub const DESTRUCTIVE_LISTENER_NAME: &str = "destructive-commands";

/// The name of the self-protection guard's global guard.
pub const SELF_PROTECTION_GUARD_NAME: &str = "self-protection-guard";

/// The name of the self-protection guard's first listener.
pub const SELF_PROTECTION_LISTENER_NAME: &str = "self-protection";

/// The name of the secret-read guard's global guard.
pub const SECRET_GUARD_NAME: &str = "secret-guard";

/// The name of the secret-read guard's first listener.
pub const SECRET_LISTENER_NAME: &str = "secrets";

/// The default preset table, as (name, sandbox mode, approval policy).
pub const PRESETS: &[(&str, SandboxMode, ApprovalPolicy)] = &[
    (
        "read-only",
        SandboxMode::ReadOnly,
        ApprovalPolicy::OnRequest,
    ),
    (
        "auto",
        SandboxMode::WorkspaceWrite,
        ApprovalPolicy::OnRequest,
    ),
    (
        "full-access",
        SandboxMode::DangerFullAccess,
        ApprovalPolicy::Never,
    ),
];

/// What the waterfall decides when no rule and no listener decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fallback {
    /// Ask for approval (the default).
    #[default]
    Ask,
    /// Deny.
    Deny,
    /// Allow (the guards still run).
    Allow,
    /// As Claude Code's default permission mode: allow what it allows with no rule (a command
    /// whose every segment is read-only or allowed by a rule, a `Read` inside the workspace,
    /// `Agent`, `Task` and `Skill` calls; spec/policy-rules.md, "The client's default mode"),
    /// ask for the rest. Deny and ask rules still come first, and the guards still run.
    ClaudeCode,
    /// As Claude Code's accept-edits permission mode: what [`Fallback::ClaudeCode`] allows,
    /// and edits of files inside the workspace (the file tools, and `mkdir`, `touch`, `rm`,
    /// `rmdir`, `cp`, `mv` and `sed -i` on paths inside it), as Claude Code 2.1.332 allows
    /// them with no rule; ask for the rest.
    ClaudeCodeAcceptEdits,
}

impl Fallback {
    /// The name the policy digest encodes: `ask`, `deny`, `allow` or `claude-code`.
    pub fn name(self) -> &'static str {
        match self {
            Fallback::Ask => "ask",
            Fallback::Deny => "deny",
            Fallback::Allow => "allow",
            Fallback::ClaudeCode => "claude-code",
            Fallback::ClaudeCodeAcceptEdits => "claude-code-accept-edits",
        }
    }
}

/// An assembled policy.
#[derive(Debug)]
pub struct Policy {
    /// The decision pipeline over the assembled chain.
    pub pipeline: Pipeline,
    /// The standing permission state of new sessions.
    pub settings: PermissionState,
    /// The policy digest (spec/policy-digest.md).
    pub digest: Sha256Digest,
    /// A copy of the chain's rules listener, to read a call the waterfall decided before
    /// reaching the rules ([`RulesListener::read`]).
    pub rules: RulesListener,
}
