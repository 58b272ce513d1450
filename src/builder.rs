//! Assembling a [`Seal`]: everything is checked at build time, and every refusal names what is
//! wrong. The policy half is the core's [`PolicyBuilder`], the verification half a
//! [`VerifierBuilder`]; this builder adds the signing key and the answerers.

use std::fmt;
use std::sync::{Arc, Mutex};

use seal_policy::approval::{is_id, CounterIds};
use seal_policy::assembly::PolicyBuilder;
use seal_policy::chain::{Guard, Listener, Scope};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::guards::secrets::SecretGuard;
use seal_policy::guards::self_protection::SelfProtection;
use seal_verify::store::is_key_id;

use crate::approval::{Answerer, SharedAnswerer};
use crate::seal::Seal;
use crate::trust::TrustStore;
use crate::verifier::VerifierBuilder;
use crate::{ApprovalPolicy, SandboxMode, UnixTime};
use seal_verify::FrameKey;

pub use seal_policy::assembly::{
    Fallback, PolicyError, StageRefusal, DESTRUCTIVE_GUARD_NAME, DESTRUCTIVE_LISTENER_NAME,
    MAX_STAGES, NO_RULES, PRESETS, RULES_LISTENER_NAME, SECRET_GUARD_NAME, SECRET_LISTENER_NAME,
    SELF_PROTECTION_GUARD_NAME, SELF_PROTECTION_LISTENER_NAME,
};

/// Most answerers a seal holds; one more is refused at build time.
pub const MAX_ANSWERERS: usize = 32;

/// The scan limits of inbound frames ([`SealBuilder::frame_limits`]).
pub use seal_parse::frame::ScanLimits;

/// The frame verifier's output limits ([`SealBuilder::frame_limits`]).
pub use seal_verify::VerifyLimits;

/// Why a rule file was refused (the rule engine's own error kinds).
pub use seal_policy::rules::RulesErrorKind;

/// Why a preset table could not be loaded.
pub use seal_policy::preset::PresetLoadError;

/// Assembles a [`Seal`]. The frame settings are those of a [`VerifierBuilder`], under the same
/// names, and build the seal's [`Verifier`](crate::Verifier). Defaults:
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
/// use seal::{BuildError, PolicyError, Seal};
///
/// let error = Seal::builder().rules_json(r#"{"permissions": {"allow": [7]}}"#).build();
/// assert!(matches!(error, Err(BuildError::Policy(PolicyError::Rules { line: 1, .. }))));
/// let error = Seal::builder().preset("yolo").build();
/// assert_eq!(error.unwrap_err().to_string(), "unknown preset `yolo`: known presets are read-only, auto, full-access");
/// ```
#[must_use]
pub struct SealBuilder {
    frames: VerifierBuilder,
    signing: Option<(String, FrameKey)>,
    policy: PolicyBuilder,
    answerers: Vec<SharedAnswerer>,
    approval_prefix: String,
    log: Option<(std::sync::Arc<dyn crate::log::LogSink>, bool)>,
}

/// Why a seal could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The policy was refused: its rules, workspace root, stages, presets or digest.
    Policy(PolicyError),
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
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Policy(error) => error.fmt(f),
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
            Self::SigningKeyNotTrusted { key_id } => {
                let key_id = key_id.escape_debug();
                write!(f, "signing key `{key_id}` is not in the trust store")
            }
            Self::TooManyAnswerers { max } => write!(f, "more than {max} answerers"),
            Self::ApprovalIdPrefix { prefix } => {
                let prefix = prefix.escape_debug();
                write!(
                    f,
                    "approval id prefix `{prefix}` is not printable ascii without space"
                )
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Policy(error) => Some(error),
            _ => None,
        }
    }
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
            frames: VerifierBuilder::new(),
            signing: None,
            policy: PolicyBuilder::new(),
            answerers: Vec::new(),
            approval_prefix: "approval-".to_owned(),
            log: None,
        }
    }

    /// The keys frames are verified with.
    pub fn trust_store(self, store: TrustStore) -> SealBuilder {
        self.frames(|frames| frames.trust_store(store))
    }

    /// The key outbound frames are signed with, listed in the trust store as `key_id`.
    pub fn signing_key(mut self, key_id: &str, key: FrameKey) -> SealBuilder {
        self.signing = Some((key_id.to_owned(), key));
        self
    }

    /// The element of the frames this seal signs and verifies (default `channel`).
    pub fn frame_element(self, element: &str) -> SealBuilder {
        self.frames(|frames| frames.frame_element(element))
    }

    /// Bodies are not rewritten by the harness (by default the rewrite of `</element>` into
    /// `<\/element>` is recognized by the scanner and applied before signing).
    pub fn without_harness_rewrite(self) -> SealBuilder {
        self.frames(VerifierBuilder::without_harness_rewrite)
    }

    /// Turns frame verification off, visibly: every message gets one `verification_off`
    /// notice, and [`Seal::verification_on`] reports it.
    pub fn verification_off(self) -> SealBuilder {
        self.frames(VerifierBuilder::verification_off)
    }

    /// The freshness window of inbound frames: a frame whose signed issue time (`iat`) is more
    /// than `max_age_seconds` in the past or more than `max_skew_seconds` in the future alarms
    /// `stale_frame` (defaults 900 and 60; spec/frame-v1.md section 9.2). The window also
    /// bounds how long a replay store keeps each id.
    pub fn frame_freshness(self, max_age_seconds: u64, max_skew_seconds: u64) -> SealBuilder {
        self.frames(|frames| frames.frame_freshness(max_age_seconds, max_skew_seconds))
    }

    /// Accepts inbound frames without an `iat` (signed before issue times existed) until
    /// `until`, inclusive: the migration window of spec/frame-v1.md section 9.2. Without it, or
    /// after it, an undated frame alarms `stale_frame`.
    pub fn accept_undated_frames_until(self, until: UnixTime) -> SealBuilder {
        self.frames(|frames| frames.accept_undated_frames_until(until))
    }

    /// Permission rules as JSON (`{"permissions": {"allow": [..], "ask": [..], "deny": [..]}}`,
    /// spec/policy-rules.md), checked at build time with line-precise errors.
    pub fn rules_json(self, json: &str) -> SealBuilder {
        self.policy(|policy| policy.rules_json(json))
    }

    /// The absolute path of the workspace: absolute paths under it are matched by path rules
    /// relative to it (without a root, path rules never allow an absolute path).
    pub fn workspace_root(self, root: &str) -> SealBuilder {
        self.policy(|policy| policy.workspace_root(root))
    }

    /// The home directory (absolute) that `~` means in rules and commands.
    pub fn home_dir(self, home: &str) -> SealBuilder {
        self.policy(|policy| policy.home_dir(home))
    }

    /// A directory (absolute) counted as inside the workspace besides the root, as Claude
    /// Code's `additionalDirectories` (the rule file's own are read too).
    pub fn added_dir(self, dir: &str) -> SealBuilder {
        self.policy(|policy| policy.added_dir(dir))
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
    pub fn destructive_guard(self, guard: DestructiveGuard) -> SealBuilder {
        self.policy(|policy| policy.destructive_guard(guard))
    }

    /// Turns on the self-protection guard
    /// ([`seal_policy::guards::self_protection::SelfProtection`]): no tool call may read
    /// seal's secret key files, or write, move, link, delete or change the mode of the paths it
    /// protects (seal's keys, trust store, rules and replay state, the clients' hook settings),
    /// denied before any rule is read (so no approval lets such a call through) and again as a
    /// global guard. A guard without a workspace root or a home directory takes the builder's.
    ///
    /// ```
    /// use seal::self_protection::{Protection, ProtectedPath, SelfProtection};
    ///
    /// let rules = ProtectedPath::file("seal-rules", "/home/dev/.seal/rules.json", Protection::Write, "seal's rules file")?;
    /// let seal = seal::Seal::builder()
    ///     .rules_json(r#"{"permissions": {"allow": ["Bash"]}}"#)
    ///     .workspace_root("/home/dev/project")
    ///     .home_dir("/home/dev")
    ///     .self_protection(SelfProtection::new().with_protected(rules))
    ///     .build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn self_protection(self, guard: SelfProtection) -> SealBuilder {
        self.policy(|policy| policy.self_protection(guard))
    }

    /// Turns on the secret-read guard ([`seal_policy::guards::secrets::SecretGuard`]): no
    /// tool call may read a well-known credential file (SSH and GnuPG keys, cloud
    /// credentials, registry tokens, `.env` files...) or search a directory holding one,
    /// denied before any rule is read and again as a global guard. A guard without a
    /// workspace root or a home directory takes the builder's.
    pub fn secret_guard(self, guard: SecretGuard) -> SealBuilder {
        self.policy(|policy| policy.secret_guard(guard))
    }

    /// Appends a listener after the rules and the listeners appended so far.
    pub fn listener<L>(self, name: &str, scope: Scope, listener: L) -> SealBuilder
    where
        L: Listener + Send + Sync + 'static,
    {
        self.policy(|policy| policy.listener(name, scope, listener))
    }

    /// Puts a listener before the rules and every listener registered so far.
    pub fn prepend_listener<L>(self, name: &str, scope: Scope, listener: L) -> SealBuilder
    where
        L: Listener + Send + Sync + 'static,
    {
        self.policy(|policy| policy.prepend_listener(name, scope, listener))
    }

    /// Adds a guard that checks every allowed call.
    pub fn guard<G: Guard + Send + Sync + 'static>(self, name: &str, guard: G) -> SealBuilder {
        self.policy(|policy| policy.guard(name, guard))
    }

    /// Adds a guard that checks the allowed calls in `scope` (after every global guard).
    pub fn scoped_guard<G>(self, name: &str, scope: Scope, guard: G) -> SealBuilder
    where
        G: Guard + Send + Sync + 'static,
    {
        self.policy(|policy| policy.scoped_guard(name, scope, guard))
    }

    /// Records every decision of [`Seal::prepare`](crate::Seal::prepare) (and its variants)
    /// in `sink` as a `hook/decision` event ([`decision_event`](crate::log::decision_event));
    /// a decision the sink cannot record is a deny.
    pub fn log_sink(mut self, sink: std::sync::Arc<dyn crate::log::LogSink>) -> SealBuilder {
        self.log = Some((sink, false));
        self
    }

    /// As [`SealBuilder::log_sink`], with every event marked `shadow`: the embedder decides and
    /// records but does not enforce (a rollout before enforcement).
    pub fn shadow_log_sink(mut self, sink: std::sync::Arc<dyn crate::log::LogSink>) -> SealBuilder {
        self.log = Some((sink, true));
        self
    }

    /// What the waterfall decides when nothing else does (default [`Fallback::Ask`]).
    pub fn fallback(self, fallback: Fallback) -> SealBuilder {
        self.policy(|policy| policy.fallback(fallback))
    }

    /// Replaces the preset table (default [`PRESETS`]): each row a key (1 to 64 bytes of
    /// `a-z0-9-`), its sandbox mode and approval policy, in table order. Select one with
    /// [`SealBuilder::preset`] (the default selection `auto` must then be a row, or be replaced).
    /// The table is covered by the policy digest.
    pub fn preset_table(self, rows: &[(&str, SandboxMode, ApprovalPolicy)]) -> SealBuilder {
        self.policy(|policy| policy.preset_table(rows))
    }

    /// Selects a preset of the table ([`PRESETS`] unless [`SealBuilder::preset_table`]
    /// replaced it) for new sessions (default `auto`).
    pub fn preset(self, name: &str) -> SealBuilder {
        self.policy(|policy| policy.preset(name))
    }

    /// Sets the sandbox knob for new sessions, over the preset's.
    pub fn sandbox_mode(self, mode: SandboxMode) -> SealBuilder {
        self.policy(|policy| policy.sandbox_mode(mode))
    }

    /// Sets the approval knob for new sessions, over the preset's.
    pub fn approval_policy(self, approval: ApprovalPolicy) -> SealBuilder {
        self.policy(|policy| policy.approval_policy(approval))
    }

    /// Declares an executor that cannot sandbox: presets then cannot load, and the build fails
    /// (seal refuses to pretend calls are confined).
    pub fn executor_cannot_sandbox(self) -> SealBuilder {
        self.policy(PolicyBuilder::executor_cannot_sandbox)
    }

    fn policy(mut self, set: impl FnOnce(PolicyBuilder) -> PolicyBuilder) -> SealBuilder {
        self.policy = set(self.policy);
        self
    }

    /// The scan limits of inbound frames (most findings, attributes per tag, tag bytes, depth;
    /// defaults of [`ScanLimits`]) and the verifier's output limits ([`VerifyLimits`]). Past a
    /// limit nothing is dropped silently: the scan stops with an alarm, or the alarm text counts
    /// what it left out.
    pub fn frame_limits(self, scan: ScanLimits, verify: VerifyLimits) -> SealBuilder {
        self.frames(|frames| frames.frame_limits(scan, verify))
    }

    fn frames(mut self, set: impl FnOnce(VerifierBuilder) -> VerifierBuilder) -> SealBuilder {
        self.frames = set(self.frames);
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
        let verifier = self.frames.build()?;
        let store = &verifier.store;
        let signing = match self.signing {
            Some((key_id, _)) if !is_key_id(&key_id) => {
                return Err(BuildError::SigningKeyId { key_id })
            }
            Some((key_id, _)) if !store.key_ids().any(|id| id == key_id) => {
                return Err(BuildError::SigningKeyNotTrusted { key_id })
            }
            Some((key_id, key)) => Some((key_id, key.hmac_key())),
            None => None,
        };
        let policy = self.policy.answerers(self.answerers.len()).build();
        let policy = policy.map_err(BuildError::Policy)?;
        if self.answerers.len() > MAX_ANSWERERS {
            return Err(BuildError::TooManyAnswerers { max: MAX_ANSWERERS });
        }
        if !is_id(&format!("{}1", self.approval_prefix)) || self.approval_prefix.len() > 200 {
            return Err(BuildError::ApprovalIdPrefix {
                prefix: self.approval_prefix,
            });
        }
        Ok(Seal {
            verifier,
            signing,
            pipeline: policy.pipeline,
            settings: policy.settings,
            answerers: self.answerers,
            approval_ids: CounterIds::new(&self.approval_prefix),
            policy_digest: policy.digest,
            rules: policy.rules,
            log: self.log,
        })
    }
}

impl fmt::Debug for SealBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealBuilder")
            .field("frames", &self.frames)
            .field("policy", &self.policy)
            .field("answerers", &self.answerers.len())
            .finish_non_exhaustive()
    }
}
