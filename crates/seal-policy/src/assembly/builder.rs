//! The policy builder: it collects a policy's parts and checks them together into one
//! [`Policy`].

use std::fmt;

use seal_parse::json::{canonicalize, JsonLimits};

use super::error::{rules_error, stage_error};
use super::rules::rule_set;
use super::{
    Fallback, Policy, PolicyError, StageRefusal, DESTRUCTIVE_GUARD_NAME, DESTRUCTIVE_LISTENER_NAME,
    MAX_STAGES, NO_RULES, PRESETS, RULES_LISTENER_NAME, SECRET_GUARD_NAME, SECRET_LISTENER_NAME,
    SELF_PROTECTION_GUARD_NAME, SELF_PROTECTION_LISTENER_NAME,
};
use crate::approval::ApprovalPolicy;
use crate::chain::{CatchPanics, Chain, ChainError, Decision, Guard, Listener, Scope};
use crate::destructive::DestructiveGuard;
use crate::digest::{policy_digest, PolicyInputs};
use crate::escalation::EscalationLimits;
use crate::guards::secrets::SecretGuard;
use crate::guards::self_protection::SelfProtection;
use crate::guards::Shared;
use crate::pipeline::Pipeline;
use crate::preset::{Executor, Knobs, PresetConfig, PresetTable, SandboxMode, Settings};
use crate::rules::{RulesErrorKind, RulesListener};

/// A listener or guard waiting to be registered: its name and how to register it (where it
/// goes and with which scope; the policy digest reads both from the chain built).
struct Stage {
    name: String,
    register: Register,
}

/// Registers a stage, under the name given, in the chain being built.
type Register = Box<dyn FnOnce(&mut Chain, &str) -> Result<(), ChainError> + Send>;

/// Collects a policy's parts; [`PolicyBuilder::build`] checks them together. Defaults: no
/// rules ([`NO_RULES`]), no workspace root, no listener or guard, fallback [`Fallback::Ask`],
/// the [`PRESETS`] table with preset `auto` selected, an executor that sandboxes, no answerer.
#[must_use]
pub struct PolicyBuilder {
    rules_json: Option<String>,
    workspace_root: Option<String>,
    home_dir: Option<String>,
    added_dirs: Vec<String>,
    destructive: Option<DestructiveGuard>,
    self_protection: Option<SelfProtection>,
    secrets: Option<SecretGuard>,
    stages: Vec<Stage>,
    fallback: Fallback,
    preset: String,
    presets: Vec<(String, SandboxMode, ApprovalPolicy)>,
    sandbox: Option<SandboxMode>,
    approval: Option<ApprovalPolicy>,
    can_sandbox: bool,
    answerers: usize,
}

impl Default for PolicyBuilder {
    fn default() -> Self {
        PolicyBuilder::new()
    }
}

impl PolicyBuilder {
    /// A builder with the defaults above.
    pub fn new() -> PolicyBuilder {
        PolicyBuilder {
            rules_json: None,
            workspace_root: None,
            home_dir: None,
            added_dirs: Vec::new(),
            destructive: None,
            self_protection: None,
            secrets: None,
            stages: Vec::new(),
            fallback: Fallback::Ask,
            preset: "auto".to_owned(),
            presets: owned_rows(PRESETS),
            sandbox: None,
            approval: None,
            can_sandbox: true,
            answerers: 0,
        }
    }

    /// Permission rules as JSON (spec/policy-rules.md).
    pub fn rules_json(mut self, json: &str) -> PolicyBuilder {
        self.rules_json = Some(json.to_owned());
        self
    }

    /// The home directory (absolute) that `~` means in rules and commands.
    pub fn home_dir(mut self, home: &str) -> PolicyBuilder {
        self.home_dir = Some(home.to_owned());
        self
    }

    /// A directory (absolute) counted as inside the workspace, besides the root: paths in it
    /// may be allowed by rules and the client's default mode (as Claude Code's
    /// `additionalDirectories`; the rule file's own `additionalDirectories` are read too).
    pub fn added_dir(mut self, dir: &str) -> PolicyBuilder {
        self.added_dirs.push(dir.to_owned());
        self
    }

    /// The absolute path of the workspace that path rules are matched under.
    pub fn workspace_root(mut self, root: &str) -> PolicyBuilder {
        self.workspace_root = Some(root.to_owned());
        self
    }

    /// The destructive-command guard: a first listener and a global guard, both named. A guard
    /// without a workspace root takes the policy's.
    pub fn destructive_guard(mut self, guard: DestructiveGuard) -> PolicyBuilder {
        self.destructive = Some(guard);
        self
    }

    /// The self-protection guard (spec/self-protection.md): a first listener (after the
    /// destructive-command guard's) and a global guard, both named. A guard without a workspace
    /// root or a home directory takes the policy's.
    pub fn self_protection(mut self, guard: SelfProtection) -> PolicyBuilder {
        self.self_protection = Some(guard);
        self
    }

    /// The secret-read guard (spec/secret-guard.md): a first listener (after the
    /// self-protection guard's) and a global guard, both named. A guard without a workspace
    /// root or a home directory takes the policy's.
    pub fn secret_guard(mut self, guard: SecretGuard) -> PolicyBuilder {
        self.secrets = Some(guard);
        self
    }

    /// Appends a listener after the rules and the listeners appended so far; a panic in it is
    /// caught and denies.
    pub fn listener<L>(self, name: &str, scope: Scope, listener: L) -> PolicyBuilder
    where
        L: Listener + Send + Sync + 'static,
    {
        self.stage(name, scope, move |chain, name, scope| {
            chain.append(name, scope, CatchPanics(listener))
        })
    }

    /// Puts a listener before the rules and every listener registered so far.
    pub fn prepend_listener<L>(self, name: &str, scope: Scope, listener: L) -> PolicyBuilder
    where
        L: Listener + Send + Sync + 'static,
    {
        self.stage(name, scope, move |chain, name, scope| {
            chain.prepend(name, scope, CatchPanics(listener))
        })
    }

    /// Adds a guard that checks every allowed call.
    pub fn guard<G>(self, name: &str, guard: G) -> PolicyBuilder
    where
        G: Guard + Send + Sync + 'static,
    {
        let everywhere = Scope::everywhere();
        self.stage(name, everywhere, move |chain, name, _| {
            chain.add_global_guard(name, CatchPanics(guard))
        })
    }

    /// Adds a guard that checks the allowed calls in `scope` (after every global guard).
    pub fn scoped_guard<G>(self, name: &str, scope: Scope, guard: G) -> PolicyBuilder
    where
        G: Guard + Send + Sync + 'static,
    {
        self.stage(name, scope, move |chain, name, scope| {
            chain.add_scoped_guard(name, scope, CatchPanics(guard))
        })
    }

    fn stage<F>(mut self, name: &str, scope: Scope, register: F) -> PolicyBuilder
    where
        F: FnOnce(&mut Chain, &str, Scope) -> Result<(), ChainError> + Send + 'static,
    {
        self.stages.push(Stage {
            name: name.to_owned(),
            register: Box::new(move |chain, name| register(chain, name, scope)),
        });
        self
    }

    /// What the waterfall decides when nothing else does.
    pub fn fallback(mut self, fallback: Fallback) -> PolicyBuilder {
        self.fallback = fallback;
        self
    }

    /// Replaces the preset table: each row a key (1 to 64 bytes of `a-z0-9-`), its sandbox
    /// mode and approval policy, in table order.
    pub fn preset_table(mut self, rows: &[(&str, SandboxMode, ApprovalPolicy)]) -> PolicyBuilder {
        self.presets = owned_rows(rows);
        self
    }

    /// Selects a preset of the table for new sessions.
    pub fn preset(mut self, name: &str) -> PolicyBuilder {
        name.clone_into(&mut self.preset);
        self
    }

    /// Sets the sandbox knob for new sessions, over the preset's.
    pub fn sandbox_mode(mut self, mode: SandboxMode) -> PolicyBuilder {
        self.sandbox = Some(mode);
        self
    }

    /// Sets the approval knob for new sessions, over the preset's.
    pub fn approval_policy(mut self, policy: ApprovalPolicy) -> PolicyBuilder {
        self.approval = Some(policy);
        self
    }

    /// Declares an executor that cannot sandbox: presets then cannot load.
    pub fn executor_cannot_sandbox(mut self) -> PolicyBuilder {
        self.can_sandbox = false;
        self
    }

    /// How many answerers settle approvals (covered by the digest).
    pub fn answerers(mut self, count: usize) -> PolicyBuilder {
        self.answerers = count;
        self
    }

    /// Checks everything and assembles the policy.
    ///
    /// # Errors
    /// The first [`PolicyError`] found.
    pub fn build(self) -> Result<Policy, PolicyError> {
        // No rule text given is the documented default, a policy without rules.
        let rules_text = self.rules_json.as_deref().unwrap_or(NO_RULES);
        let mut rules = rule_set(rules_text, self.fallback, self.workspace_root.as_deref())?;
        if let Some(home) = &self.home_dir {
            rules = rules.with_home_dir(home);
        }
        for dir in &self.added_dirs {
            rules = rules.with_added_dir(dir);
        }
        let canonical_rules = canonicalize(rules_text.as_bytes(), &JsonLimits::default())
            .map_err(|error| rules_error(1, 1, RulesErrorKind::Json(error.kind)))?;
        let default = match self.fallback {
            Fallback::Ask | Fallback::ClaudeCode | Fallback::ClaudeCodeAcceptEdits => {
                Decision::ask("no rule decides this call")
            }
            Fallback::Deny => Decision::deny("no rule allows this call"),
            Fallback::Allow => Decision::Allow,
        };
        let mut chain = Chain::new(default);
        let everywhere = Scope::everywhere();
        let listener = RulesListener::new(rules);
        chain
            .append(RULES_LISTENER_NAME, everywhere.clone(), listener.clone())
            .map_err(|error| stage_error(RULES_LISTENER_NAME, &error))?;
        for (index, stage) in self.stages.into_iter().enumerate() {
            let Stage { name, register } = stage;
            if index >= MAX_STAGES {
                let error = StageRefusal::TooMany { max: MAX_STAGES };
                return Err(PolicyError::Stage { name, error });
            }
            register(&mut chain, &name).map_err(|error| stage_error(&name, &error))?;
        }
        // The path guards stand first after the destructive-command guard, in this order:
        // prepended before it, so that it stays the first listener.
        let root = self.workspace_root.as_deref();
        let home = self.home_dir.as_deref();
        // Each is registered twice, as a listener and as a global guard, sharing the guard.
        let secrets = self.secrets.map(|guard| {
            let guard = match (root, guard.workspace_root()) {
                (Some(root), None) => guard.with_workspace_root(root),
                _ => guard,
            };
            Shared::new(match (home, guard.home_dir()) {
                (Some(home), None) => guard.with_home_dir(home),
                _ => guard,
            })
        });
        let self_protection = self.self_protection.map(|guard| {
            let guard = match (root, guard.workspace_root()) {
                (Some(root), None) => guard.with_workspace_root(root),
                _ => guard,
            };
            Shared::new(match (home, guard.home_dir()) {
                (Some(home), None) => guard.with_home_dir(home),
                _ => guard,
            })
        });
        if let Some(guard) = &secrets {
            chain
                .prepend(SECRET_LISTENER_NAME, everywhere.clone(), guard.clone())
                .map_err(|error| stage_error(SECRET_LISTENER_NAME, &error))?;
        }
        if let Some(guard) = &self_protection {
            chain
                .prepend(
                    SELF_PROTECTION_LISTENER_NAME,
                    everywhere.clone(),
                    guard.clone(),
                )
                .map_err(|error| stage_error(SELF_PROTECTION_LISTENER_NAME, &error))?;
        }
        if let Some(guard) = self.destructive {
            let guard = match (&self.workspace_root, guard.workspace_root()) {
                (Some(root), None) => guard.with_workspace_root(root),
                _ => guard,
            };
            chain
                .prepend(DESTRUCTIVE_LISTENER_NAME, everywhere.clone(), guard.clone())
                .map_err(|error| stage_error(DESTRUCTIVE_LISTENER_NAME, &error))?;
            chain
                .add_global_guard(DESTRUCTIVE_GUARD_NAME, guard)
                .map_err(|error| stage_error(DESTRUCTIVE_GUARD_NAME, &error))?;
        }
        if let Some(guard) = self_protection {
            chain
                .add_global_guard(SELF_PROTECTION_GUARD_NAME, guard)
                .map_err(|error| stage_error(SELF_PROTECTION_GUARD_NAME, &error))?;
        }
        if let Some(guard) = secrets {
            chain
                .add_global_guard(SECRET_GUARD_NAME, guard)
                .map_err(|error| stage_error(SECRET_GUARD_NAME, &error))?;
        }
        let Some(&(_, sandbox, approval)) = self.presets.iter().find(|row| row.0 == self.preset)
        else {
            return Err(PolicyError::UnknownPreset {
                name: self.preset,
                known: self.presets.into_iter().map(|(name, _, _)| name).collect(),
            });
        };
        let executor = Executor {
            can_sandbox: self.can_sandbox,
        };
        let config = PresetConfig {
            rows: (self.presets.iter())
                .map(|(name, sandbox, approval)| {
                    (name.as_str(), Knobs::new(*sandbox, *approval), None)
                })
                .collect(),
            default: Some(self.preset.as_str()),
            composed_defaults: Knobs::new(sandbox, approval),
            executor,
        };
        let table = PresetTable::load(&config).map_err(PolicyError::Preset)?;
        let mut settings = Settings::new(&table);
        if let Some(mode) = self.sandbox {
            settings.set_sandbox(mode);
        }
        if let Some(policy) = self.approval {
            settings.set_approval(policy);
        }
        let digest = policy_digest(&PolicyInputs {
            rules: canonical_rules.as_bytes(),
            workspace_root: self.workspace_root.as_deref(),
            home_dir: self.home_dir.as_deref(),
            added_dirs: &self.added_dirs,
            fallback: self.fallback.name(),
            presets: &config.rows,
            preset: &self.preset,
            sandbox: self.sandbox,
            approval: self.approval,
            executor,
            escalation: EscalationLimits::DEFAULT,
            chain: &chain,
            answerers: self.answerers,
        });
        Ok(Policy {
            pipeline: Pipeline::new(chain, executor),
            settings: settings.state().clone(),
            digest,
            rules: listener,
        })
    }
}

impl fmt::Debug for PolicyBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyBuilder")
            .field("preset", &self.preset)
            .field("fallback", &self.fallback)
            .field("stages", &self.stages.len())
            .finish_non_exhaustive()
    }
}

fn owned_rows(
    rows: &[(&str, SandboxMode, ApprovalPolicy)],
) -> Vec<(String, SandboxMode, ApprovalPolicy)> {
    rows.iter()
        .map(|(name, sandbox, approval)| ((*name).to_owned(), *sandbox, *approval))
        .collect()
}
