//! Assembling a [`Seal`]: everything is checked at build time, and every refusal names what is
//! wrong.

use std::fmt;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use seal_parse::frame::{HarnessRewrite, ScanConfig};
use seal_parse::json::{canonicalize, JsonLimits};
use seal_policy::approval::is_id;
use seal_policy::chain::{CatchPanics, Chain, ChainError, Decision, Guard, Listener, Scope};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::escalation::EscalationLimits;
use seal_policy::pipeline::Pipeline;
use seal_policy::preset::{Executor, Knobs, PermissionState, PresetConfig, PresetTable, Settings};
use seal_policy::rules::{ClientDefault, RuleLimits, RuleSet, RulesListener};
use seal_verify::store::is_key_id;
use seal_verify::{Freshness, VerifyConfig};

use crate::approval::{Answerer, SharedAnswerer};
use crate::keys::FrameKey;
use crate::seal::Seal;
use crate::trust::TrustStore;
use crate::{ApprovalPolicy, SandboxMode, UnixTime};

// The digest's layout is its own concept; the builder is its only user.
use seal_policy::digest::{policy_digest, PolicyInputs, StageOrder};

/// Most listeners plus guards a seal holds; one more is refused at build time.
pub const MAX_STAGES: usize = 64;

/// Most answerers a seal holds; one more is refused at build time.
pub const MAX_ANSWERERS: usize = 32;

/// The rule text of a seal built without rules: no rule, so the fallback decides.
pub const NO_RULES: &str = r#"{"permissions": {}}"#;

/// The name of the rules listener in traces.
pub const RULES_LISTENER_NAME: &str = "rules";

/// The name of the destructive-command guard's global guard
/// ([`SealBuilder::destructive_guard`]).
pub const DESTRUCTIVE_GUARD_NAME: &str = "destructive-guard";

/// The name of the destructive-command guard's first listener
/// ([`SealBuilder::destructive_guard`]).
pub const DESTRUCTIVE_LISTENER_NAME: &str = "destructive-commands";

/// The presets a seal knows, as (name, sandbox mode, approval policy).
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
}

impl Fallback {
    /// The name the policy digest encodes: `ask`, `deny`, `allow` or `claude-code`.
    pub fn name(self) -> &'static str {
        match self {
            Fallback::Ask => "ask",
            Fallback::Deny => "deny",
            Fallback::Allow => "allow",
            Fallback::ClaudeCode => "claude-code",
        }
    }
}

/// Assembles a [`Seal`]. Defaults:
///
/// - an empty trust store that has already expired (every signed frame alarms) and no signing
///   key;
/// - frames of element `channel`, the harness rewrite of `</channel>` recognized, frame ids
///   required, verification on; frames dated by a signed `iat` fresh for 900 seconds with 60
///   seconds of clock skew allowed, undated frames alarmed `stale_frame`;
/// - no rules (`{"permissions": {}}`), no listener, no guard, fallback [`Fallback::Ask`];
/// - preset `auto` (workspace-write, on-request) on an executor that sandboxes;
/// - no answerer (an approval asked of the answerers settles `unavailable`: deny), approval
///   ids `approval-1`, `approval-2`, ...
///
/// ```
/// use seal::{BuildError, Seal};
///
/// let error = Seal::builder().rules_json(r#"{"permissions": {"allow": [7]}}"#).build();
/// assert!(matches!(error, Err(BuildError::Rules { line: 1, .. })));
/// let error = Seal::builder().preset("yolo").build();
/// assert_eq!(error.unwrap_err().to_string(), "unknown preset `yolo`: known presets are read-only, auto, full-access");
/// ```
#[must_use]
pub struct SealBuilder {
    store: Option<TrustStore>,
    signing: Option<(String, FrameKey)>,
    element: String,
    rewrite: bool,
    verification: bool,
    freshness: Freshness,
    undated_until: Option<UnixTime>,
    rules_json: Option<String>,
    workspace_root: Option<String>,
    destructive: Option<DestructiveGuard>,
    stages: Vec<Stage>,
    fallback: Fallback,
    preset: String,
    presets: Vec<(String, SandboxMode, ApprovalPolicy)>,
    sandbox: Option<SandboxMode>,
    approval: Option<ApprovalPolicy>,
    can_sandbox: bool,
    answerers: Vec<SharedAnswerer>,
    approval_prefix: String,
    scan_limits: ScanLimits,
    verify_limits: VerifyLimits,
}

/// The scan limits of inbound frames ([`SealBuilder::frame_limits`]).
pub use seal_parse::frame::ScanLimits;

/// The frame verifier's output limits ([`SealBuilder::frame_limits`]).
pub use seal_verify::VerifyLimits;

/// Why a rule file was refused (the rule engine's own error kinds).
pub use seal_policy::rules::LoadErrorKind as RulesErrorKind;

/// Why a preset table could not be loaded.
pub use seal_policy::preset::LoadError as PresetLoadError;

/// Why a listener or guard could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StageRefusal {
    /// The chain refused it (a name outside the grammar, a name taken, a chain limit).
    Chain(ChainError),
    /// More listeners and guards than [`MAX_STAGES`].
    TooMany {
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for StageRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Chain(error) => error.fmt(f),
            Self::TooMany { max } => write!(f, "more than {max} listeners and guards"),
        }
    }
}

/// Why a seal could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
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
    /// The frame element is outside the frame grammar (`[a-z][a-z0-9-]{0,63}`).
    Element {
        /// The element given.
        element: String,
    },
    /// The signing key id is outside the key id grammar (`[A-Za-z0-9._-]{1,64}`).
    SigningKeyId {
        /// The id given.
        key_id: String,
    },
    /// The trust store holds no usable key under the signing key's id, so frames signed with
    /// it would alarm.
    SigningKeyNotTrusted {
        /// The id given.
        key_id: String,
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
    /// More than [`MAX_ANSWERERS`] answerers.
    TooManyAnswerers {
        /// The limit.
        max: usize,
    },
    /// The approval id prefix would not give identifiers.
    ApprovalIdPrefix {
        /// The prefix given.
        prefix: String,
    },
    /// The policy digest could not describe the chain exactly: the chain's order disagrees
    /// with the registrations. The seal is refused rather than built with a digest that does
    /// not cover its policy.
    PolicyDigest {
        /// The stage named in the refusal (`rules` when the order disagrees).
        name: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rules { line, column, kind } => {
                write!(f, "rules refused at line {line}, column {column}: {kind}")
            }
            Self::WorkspaceRoot { root } => write!(
                f,
                "workspace root `{}` is not an absolute path",
                root.escape_debug()
            ),
            Self::Element { element } => {
                write!(
                    f,
                    "`{}` is not a frame element name",
                    element.escape_debug()
                )
            }
            Self::SigningKeyId { key_id } => {
                write!(f, "`{}` is not a key id", key_id.escape_debug())
            }
            Self::SigningKeyNotTrusted { key_id } => write!(
                f,
                "signing key `{}` is not in the trust store",
                key_id.escape_debug()
            ),
            Self::Stage { name, error } => {
                write!(f, "stage `{}` refused: {error}", name.escape_debug())
            }
            Self::UnknownPreset { name, known } => {
                write!(
                    f,
                    "unknown preset `{}`: known presets are ",
                    name.escape_debug()
                )?;
                for (index, preset) in known.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(preset)?;
                }
                Ok(())
            }
            Self::Preset(error) => write!(f, "permission settings refused: {error}"),
            Self::TooManyAnswerers { max } => write!(f, "more than {max} answerers"),
            Self::ApprovalIdPrefix { prefix } => write!(
                f,
                "approval id prefix `{}` is not printable ascii without space",
                prefix.escape_debug()
            ),
            Self::PolicyDigest { name } => write!(
                f,
                "the policy digest cannot describe stage `{}`",
                name.escape_debug()
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// A listener or guard waiting to be registered: its name, where it goes, its scope (for the
/// policy digest) and how to register it.
struct Stage {
    name: String,
    place: Place,
    scope: Scope,
    register: Register,
}

/// Registers a stage, under the name given, in the chain being built.
type Register = Box<dyn FnOnce(&mut Chain, &str) -> Result<(), ChainError> + Send>;

/// Where a stage is registered in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    AppendedListener,
    PrependedListener,
    GlobalGuard,
    ScopedGuard,
}

impl Default for SealBuilder {
    fn default() -> Self {
        SealBuilder::new()
    }
}

impl SealBuilder {
    /// A builder with the defaults above.
    pub fn new() -> SealBuilder {
        SealBuilder {
            store: None,
            signing: None,
            element: "channel".to_owned(),
            rewrite: true,
            verification: true,
            freshness: Freshness::default(),
            undated_until: None,
            rules_json: None,
            workspace_root: None,
            destructive: None,
            stages: Vec::new(),
            fallback: Fallback::Ask,
            preset: "auto".to_owned(),
            presets: PRESETS
                .iter()
                .map(|(name, sandbox, approval)| ((*name).to_owned(), *sandbox, *approval))
                .collect(),
            sandbox: None,
            approval: None,
            can_sandbox: true,
            answerers: Vec::new(),
            approval_prefix: "approval-".to_owned(),
            scan_limits: ScanLimits::default(),
            verify_limits: VerifyLimits::default(),
        }
    }

    /// The keys frames are verified with.
    pub fn trust_store(mut self, store: TrustStore) -> SealBuilder {
        self.store = Some(store);
        self
    }

    /// The key outbound frames are signed with, listed in the trust store as `key_id`.
    pub fn signing_key(mut self, key_id: &str, key: FrameKey) -> SealBuilder {
        self.signing = Some((key_id.to_owned(), key));
        self
    }

    /// The element of the frames this seal signs and verifies (default `channel`).
    pub fn frame_element(mut self, element: &str) -> SealBuilder {
        element.clone_into(&mut self.element);
        self
    }

    /// Bodies are not rewritten by the harness (by default the rewrite of `</element>` into
    /// `<\/element>` is recognized by the scanner and applied before signing).
    pub fn without_harness_rewrite(mut self) -> SealBuilder {
        self.rewrite = false;
        self
    }

    /// Turns frame verification off, visibly: every message gets one `verification_off`
    /// notice, and [`Seal::verification_on`] reports it.
    pub fn verification_off(mut self) -> SealBuilder {
        self.verification = false;
        self
    }

    /// The freshness window of inbound frames: a frame whose signed issue time (`iat`) is more
    /// than `max_age_seconds` in the past or more than `max_skew_seconds` in the future alarms
    /// `stale_frame` (defaults 900 and 60; spec/frame-v1.md section 9.2). The window also
    /// bounds how long a replay store keeps each id.
    pub fn frame_freshness(mut self, max_age_seconds: u64, max_skew_seconds: u64) -> SealBuilder {
        self.freshness = Freshness::new(max_age_seconds, max_skew_seconds);
        self
    }

    /// Accepts inbound frames without an `iat` (signed before issue times existed) until
    /// `until`, inclusive: the migration window of spec/frame-v1.md section 9.2. Without it, or
    /// after it, an undated frame alarms `stale_frame`.
    pub fn accept_undated_frames_until(mut self, until: UnixTime) -> SealBuilder {
        self.undated_until = Some(until);
        self
    }

    /// Permission rules as JSON (`{"permissions": {"allow": [..], "ask": [..], "deny": [..]}}`,
    /// spec/policy-rules.md), checked at build time with line-precise errors.
    pub fn rules_json(mut self, json: &str) -> SealBuilder {
        self.rules_json = Some(json.to_owned());
        self
    }

    /// The absolute path of the workspace: absolute paths under it are matched by path rules
    /// relative to it (without a root, path rules never allow an absolute path).
    pub fn workspace_root(mut self, root: &str) -> SealBuilder {
        self.workspace_root = Some(root.to_owned());
        self
    }

    /// Turns on the destructive-command guard
    /// ([`seal_policy::destructive::DestructiveGuard`]): shell commands that delete outside
    /// the workspace, destroy git history or uncommitted work, write to devices or file
    /// systems, change permissions of system paths en masse, or fork without end are denied,
    /// with the pattern and path named, before any rule is read (so no approval lets them
    /// through) and again as a global guard. A guard without a workspace root takes the
    /// builder's [`workspace_root`](SealBuilder::workspace_root).
    ///
    /// ```
    /// use seal::destructive::DestructiveGuard;
    ///
    /// let seal = seal::Seal::builder()
    ///     .rules_json(r#"{"permissions": {"allow": ["Bash(rm:*)", "Bash(git:*)"]}}"#)
    ///     .workspace_root("/home/dev/project")
    ///     .destructive_guard(DestructiveGuard::new().with_home_dir("/home/dev"))
    ///     .build()?;
    /// # Ok::<(), seal::BuildError>(())
    /// ```
    pub fn destructive_guard(mut self, guard: DestructiveGuard) -> SealBuilder {
        self.destructive = Some(guard);
        self
    }

    /// Appends a listener after the rules and the listeners appended so far.
    pub fn listener(
        mut self,
        name: &str,
        scope: Scope,
        listener: impl Listener + Send + Sync + 'static,
    ) -> SealBuilder {
        self.stages.push(Stage {
            name: name.to_owned(),
            place: Place::AppendedListener,
            scope: scope.clone(),
            register: Box::new(move |chain: &mut Chain, name: &str| {
                chain.append(name, scope, CatchPanics(listener))
            }),
        });
        self
    }

    /// Puts a listener before the rules and every listener registered so far.
    pub fn prepend_listener(
        mut self,
        name: &str,
        scope: Scope,
        listener: impl Listener + Send + Sync + 'static,
    ) -> SealBuilder {
        self.stages.push(Stage {
            name: name.to_owned(),
            place: Place::PrependedListener,
            scope: scope.clone(),
            register: Box::new(move |chain: &mut Chain, name: &str| {
                chain.prepend(name, scope, CatchPanics(listener))
            }),
        });
        self
    }

    /// Adds a guard that checks every allowed call.
    pub fn guard(mut self, name: &str, guard: impl Guard + Send + Sync + 'static) -> SealBuilder {
        self.stages.push(Stage {
            name: name.to_owned(),
            place: Place::GlobalGuard,
            scope: Scope::everywhere(),
            register: Box::new(move |chain: &mut Chain, name: &str| {
                chain.add_global_guard(name, CatchPanics(guard))
            }),
        });
        self
    }

    /// Adds a guard that checks the allowed calls in `scope` (after every global guard).
    pub fn scoped_guard(
        mut self,
        name: &str,
        scope: Scope,
        guard: impl Guard + Send + Sync + 'static,
    ) -> SealBuilder {
        self.stages.push(Stage {
            name: name.to_owned(),
            place: Place::ScopedGuard,
            scope: scope.clone(),
            register: Box::new(move |chain: &mut Chain, name: &str| {
                chain.add_scoped_guard(name, scope, CatchPanics(guard))
            }),
        });
        self
    }

    /// What the waterfall decides when nothing else does (default [`Fallback::Ask`]).
    pub fn fallback(mut self, fallback: Fallback) -> SealBuilder {
        self.fallback = fallback;
        self
    }

    /// Replaces the preset table (default [`PRESETS`]): each row a key (1 to 64 bytes of
    /// `a-z0-9-`), its sandbox mode and approval policy, in table order. Select one with
    /// [`SealBuilder::preset`] (the default selection `auto` must then be a row, or be replaced).
    /// The table is covered by the policy digest.
    pub fn preset_table(mut self, rows: &[(&str, SandboxMode, ApprovalPolicy)]) -> SealBuilder {
        self.presets = rows
            .iter()
            .map(|(name, sandbox, approval)| ((*name).to_owned(), *sandbox, *approval))
            .collect();
        self
    }

    /// The scan limits of inbound frames (most findings, attributes per tag, tag bytes, depth;
    /// defaults of [`ScanLimits`]) and the verifier's output limits ([`VerifyLimits`]). Past a
    /// limit nothing is dropped silently: the scan stops with an alarm, or the alarm text counts
    /// what it left out.
    pub fn frame_limits(mut self, scan: ScanLimits, verify: VerifyLimits) -> SealBuilder {
        self.scan_limits = scan;
        self.verify_limits = verify;
        self
    }

    /// Selects a preset of the table ([`PRESETS`] unless [`SealBuilder::preset_table`]
    /// replaced it) for new sessions (default `auto`).
    pub fn preset(mut self, name: &str) -> SealBuilder {
        name.clone_into(&mut self.preset);
        self
    }

    /// Sets the sandbox knob for new sessions, over the preset's.
    pub fn sandbox_mode(mut self, mode: SandboxMode) -> SealBuilder {
        self.sandbox = Some(mode);
        self
    }

    /// Sets the approval knob for new sessions, over the preset's.
    pub fn approval_policy(mut self, policy: ApprovalPolicy) -> SealBuilder {
        self.approval = Some(policy);
        self
    }

    /// Declares an executor that cannot sandbox: presets then cannot load, and the build fails
    /// (seal refuses to pretend calls are confined).
    pub fn executor_cannot_sandbox(mut self) -> SealBuilder {
        self.can_sandbox = false;
        self
    }

    /// Adds an answerer after those added so far.
    pub fn answerer(mut self, answerer: impl Answerer) -> SealBuilder {
        self.answerers
            .push(Arc::new(Mutex::new(Box::new(answerer))));
        self
    }

    /// Approval ids are `<prefix>1`, `<prefix>2`, ... (default `approval-`). Use a prefix unique
    /// to the process run so ids never repeat across runs.
    pub fn approval_id_prefix(mut self, prefix: &str) -> SealBuilder {
        prefix.clone_into(&mut self.approval_prefix);
        self
    }

    /// Checks everything and builds the seal.
    ///
    /// # Errors
    /// The first [`BuildError`] found.
    pub fn build(self) -> Result<Seal, BuildError> {
        let element_error = || BuildError::Element {
            element: self.element.clone(),
        };
        let mut scan = ScanConfig::new(&self.element)
            .map_err(|_| element_error())?
            .with_limits(self.scan_limits);
        let rewrite = if self.rewrite {
            scan = scan.with_rewrite();
            Some(HarnessRewrite::closing_tag(&self.element).map_err(|_| element_error())?)
        } else {
            None
        };
        let mut verify_config = VerifyConfig::new(scan)
            .with_freshness(self.freshness)
            .with_limits(self.verify_limits);
        if let Some(until) = self.undated_until {
            verify_config = verify_config.accept_undated_until(until);
        }
        if !self.verification {
            verify_config = verify_config.verification_off();
        }
        let store = self.store.unwrap_or_else(|| TrustStore::new(UnixTime(0)));
        let signing = match self.signing {
            Some((key_id, key)) => {
                if !is_key_id(&key_id) {
                    return Err(BuildError::SigningKeyId { key_id });
                }
                if !store.key_ids().any(|id| id == key_id) {
                    return Err(BuildError::SigningKeyNotTrusted { key_id });
                }
                Some((key_id, key.hmac_key()))
            }
            None => None,
        };
        let rules_text = self.rules_json.as_deref().unwrap_or(NO_RULES);
        let mut rules =
            RuleSet::from_json(rules_text.as_bytes(), &RuleLimits::default()).map_err(|error| {
                BuildError::Rules {
                    line: error.line,
                    column: error.column,
                    kind: error.kind,
                }
            })?;
        if let Some(root) = &self.workspace_root {
            if !root.starts_with('/') {
                return Err(BuildError::WorkspaceRoot { root: root.clone() });
            }
            rules = rules.with_workspace_root(root);
        }
        let canonical_rules =
            canonicalize(rules_text.as_bytes(), &JsonLimits::default()).map_err(|error| {
                BuildError::Rules {
                    line: 1,
                    column: 1,
                    kind: RulesErrorKind::Json(error.kind),
                }
            })?;
        if self.fallback == Fallback::ClaudeCode {
            rules = rules.with_client_default(ClientDefault::ClaudeCode);
        }
        let default = match self.fallback {
            Fallback::Ask | Fallback::ClaudeCode => Decision::ask("no rule decides this call"),
            Fallback::Deny => Decision::deny("no rule allows this call"),
            Fallback::Allow => Decision::Allow,
        };
        let mut chain = Chain::new(default);
        chain
            .append(
                RULES_LISTENER_NAME,
                Scope::everywhere(),
                RulesListener::new(rules),
            )
            .map_err(|error| stage_error(RULES_LISTENER_NAME, &error))?;
        let mut order = StageOrder::new(RULES_LISTENER_NAME);
        for (index, stage) in self.stages.into_iter().enumerate() {
            let Stage {
                name,
                place,
                scope,
                register,
            } = stage;
            if index >= MAX_STAGES {
                return Err(BuildError::Stage {
                    name,
                    error: StageRefusal::TooMany { max: MAX_STAGES },
                });
            }
            register(&mut chain, &name).map_err(|error| stage_error(&name, &error))?;
            match place {
                Place::AppendedListener => order.append_listener(&name, &scope),
                Place::PrependedListener => order.prepend_listener(&name, &scope),
                Place::GlobalGuard => order.add_global_guard(&name),
                Place::ScopedGuard => order.add_scoped_guard(&name, &scope),
            }
        }
        if let Some(guard) = self.destructive {
            let guard = match (&self.workspace_root, guard.workspace_root()) {
                (Some(root), None) => guard.with_workspace_root(root),
                _ => guard,
            };
            let everywhere = Scope::everywhere();
            chain
                .prepend(DESTRUCTIVE_LISTENER_NAME, everywhere.clone(), guard.clone())
                .map_err(|error| stage_error(DESTRUCTIVE_LISTENER_NAME, &error))?;
            chain
                .add_global_guard(DESTRUCTIVE_GUARD_NAME, guard)
                .map_err(|error| stage_error(DESTRUCTIVE_GUARD_NAME, &error))?;
            order.prepend_listener(DESTRUCTIVE_LISTENER_NAME, &everywhere);
            order.add_global_guard(DESTRUCTIVE_GUARD_NAME);
        }
        if !order.agrees_with(&chain) {
            return Err(BuildError::PolicyDigest {
                name: RULES_LISTENER_NAME.to_owned(),
            });
        }
        let Some(&(_, sandbox, approval)) = self
            .presets
            .iter()
            .find(|(preset, _, _)| *preset == self.preset)
        else {
            return Err(BuildError::UnknownPreset {
                name: self.preset,
                known: self.presets.into_iter().map(|(name, _, _)| name).collect(),
            });
        };
        let executor = Executor {
            can_sandbox: self.can_sandbox,
        };
        let config = PresetConfig {
            rows: self
                .presets
                .iter()
                .map(|(name, sandbox, approval)| {
                    (name.as_str(), Knobs::new(*sandbox, *approval), None)
                })
                .collect(),
            default: Some(self.preset.as_str()),
            composed_defaults: Knobs::new(sandbox, approval),
            executor,
        };
        let table = PresetTable::load(&config).map_err(BuildError::Preset)?;
        let mut settings = Settings::new(&table);
        if let Some(mode) = self.sandbox {
            settings.set_sandbox(mode);
        }
        if let Some(policy) = self.approval {
            settings.set_approval(policy);
        }
        let settings: PermissionState = settings.state().clone();
        if self.answerers.len() > MAX_ANSWERERS {
            return Err(BuildError::TooManyAnswerers { max: MAX_ANSWERERS });
        }
        if !is_id(&format!("{}1", self.approval_prefix)) || self.approval_prefix.len() > 200 {
            return Err(BuildError::ApprovalIdPrefix {
                prefix: self.approval_prefix,
            });
        }
        let policy_digest = policy_digest(&PolicyInputs {
            rules: canonical_rules.as_bytes(),
            workspace_root: self.workspace_root.as_deref(),
            fallback: self.fallback.name(),
            presets: &config.rows,
            preset: &self.preset,
            sandbox: self.sandbox,
            approval: self.approval,
            executor,
            escalation: EscalationLimits::DEFAULT,
            stages: &order,
            answerers: self.answerers.len(),
        });
        Ok(Seal {
            store,
            verify_config,
            signing,
            rewrite,
            pipeline: Pipeline::new(chain, executor),
            settings,
            answerers: self.answerers,
            approval_prefix: self.approval_prefix,
            next_approval: AtomicU64::new(0),
            policy_digest,
        })
    }
}

impl fmt::Debug for SealBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealBuilder")
            .field("element", &self.element)
            .field("preset", &self.preset)
            .field("stages", &self.stages.len())
            .field("answerers", &self.answerers.len())
            .finish_non_exhaustive()
    }
}

fn stage_error(name: &str, error: &ChainError) -> BuildError {
    BuildError::Stage {
        name: name.to_owned(),
        error: StageRefusal::Chain(error.clone()),
    }
}
