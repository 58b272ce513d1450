//! seal: trust by construction for AI-agent runtimes.
//!
//! This crate is the API an agent runtime embeds. One [`Seal`], assembled by
//! [`Seal::builder`] and checked at build time, does four things, none of which does IO or
//! reads a clock:
//!
//! - **Inbound** ([`Seal::inbound`], [`Seal::verify_inbound`], [`Seal::sign_frame`]): sign
//!   frames on the way in; verify every frame in a submitted message and get the alarms to
//!   append after it (the message itself is never changed) plus an operator report. Frame ids
//!   are claimed in a [`ReplayStore`] as they verify, so a replayed frame alarms. Where text is
//!   only verified (a prompt hook, a scanner), a [`Verifier`] does the same checks and holds
//!   no policy.
//! - **Tool dispatch** ([`Seal::call`], [`Seal::prepare`]): freeze a call's arguments, then get
//!   exactly one of [`Prepared::Run`] (with the sandbox [`Stamp`] for this call and the
//!   [`Trace`]), [`Prepared::Deny`] (reason and trace) or [`Prepared::NeedsApproval`] (a
//!   [`PendingApproval`] with the audit event and the ASCII approval card, settled once).
//!   Every failure denies.
//! - **Disclosure** ([`Manifest`]): build and seal what a run is about to send, show its summary,
//!   and verify it again right before spawning (stale policy, model, file and payload are
//!   distinct [`SpawnError`]s).
//! - **Rendering**: everything seal shows is ASCII-only and injective ([`render`]); with feature
//!   `testing`, the module `testing` checks your own renderer the same way.
//! - **Signing with one key** ([`FrameSigner`]): frames written by a harness or a tool that
//!   holds a [`FrameKey`] or an [`ApproverKey`], for a seal elsewhere to verify.
//!
//! ```
//! use seal::{Dispatch, Outcome, Prepared, Seal};
//!
//! let seal = Seal::builder()
//!     .rules_json(r#"{"permissions": {
//!         "allow": ["Bash(git status)", "Read"],
//!         "ask": ["Bash(git push:*)"],
//!         "deny": ["Bash(rm:*)"]
//!     }}"#)
//!     .build()?;
//! let session = seal.open_session("session-1")?;
//!
//! let call = seal.call(&session, "agent-1", "call-1", "Bash", r#"{"command":"git status"}"#)?;
//! assert!(matches!(seal.prepare(&call, None), Prepared::Run(_)));
//!
//! let call = seal.call(&session, "agent-1", "call-2", "Bash", r#"{"command":"git log; rm -rf ~"}"#)?;
//! assert!(matches!(seal.prepare(&call, None), Prepared::Deny(_)));
//!
//! let call = seal.call(&session, "agent-1", "call-3", "Bash", r#"{"command":"git push origin main"}"#)?;
//! let Prepared::NeedsApproval(pending) = seal.prepare(&call, None) else { unreachable!() };
//! println!("{}", pending.card());
//! assert!(!pending.cancel().is_run());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Facade and cores
//!
//! The facade has its own types only where they hide something: the seal, the verifier and
//! their builders,
//! calls frozen with their session, pending approvals and their answerers, the trust store and
//! manifests (which take the facade's keys and fix the default limits), and the decision
//! results (which carry call ids and audit events). Everything else is the core item itself,
//! re-exported under its own name: keys and their errors, replay stores, frame reports, frame
//! signers, live state, signed approvals and spawn errors (seal-verify, seal-record); the
//! listener and guard API, the trace and the rules' reading, policy errors, the rule lint and
//! escalation fields (seal-policy); and the text formats, in the modules [`json`], [`patch`],
//! [`render`], [`base64url`] and [`store_document`], each an explicit list of core items. The
//! order of one call's decision (escalation, waterfall, approval, guards, stamp) is the core's
//! `seal_policy::pipeline::Pipeline`; [`Seal::prepare`] and [`PendingApproval`] call it and add
//! only approval ids and the answerers.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod approval;
pub mod base64url;
mod builder;
mod disclosure;
mod dispatch;
pub mod explain;
mod inbound;
pub mod json;
pub mod log;
pub mod patch;
pub mod render;
mod seal;
mod session;
pub mod store_document;
#[cfg(feature = "testing")]
pub mod testing;
mod trust;
mod verifier;

/// The destructive-command guard ([`SealBuilder::destructive_guard`]): its type, findings and
/// pattern table.
pub mod destructive {
    pub use seal_policy::destructive::{
        DestructiveGuard, GuardExplanation, GuardFinding, GuardForm, Operands, Pattern, Reach,
        DEVICE_REDIRECT, FORK_BOMB, MAX_FORK_BODY_BYTES, MAX_PAYLOAD_DEPTH,
        MAX_REDIRECT_TARGET_BYTES, PATTERNS, SAFE_DEVICES, SOURCE_DEVICES, SYSTEM_DIRS, TEMP_DIRS,
    };
}

/// The self-protection guard ([`SealBuilder::self_protection`]): its type, protected paths,
/// findings and default table, and the lexical path normalizer
/// ([`Lexical`](self_protection::Lexical)) for writing a protected path without `.`, `..` or
/// empty components.
pub mod self_protection {
    pub use seal_policy::guards::self_protection::{
        PathKind, ProtectedPath, ProtectedRow, Protection, ProtectionFinding, SelfProtection,
        DEFAULT_PROTECTED,
    };
    pub use seal_policy::guards::{Act, PatternError, MAX_ID_BYTES, UNKNOWN_ROOT};
    pub use seal_policy::paths::{AboveRoot, ClimbsAboveRoot, Lexical};
}

/// WebAuthn for the approval panel (spec/webauthn-approval.md): the challenge an allow is bound
/// to, enrolment, assertion verification and the approvers file. A waiting hook verifies the
/// panel's allow with [`verify_assertion`](webauthn::verify_assertion) itself, so no process
/// without an approver's authenticator can mint one.
pub mod webauthn {
    pub use seal_verify::webauthn::*;
}

/// The secret-read guard ([`SealBuilder::secret_guard`]): its type, patterns, findings and
/// default table.
pub mod secrets {
    pub use seal_policy::guards::secrets::{
        SecretFinding, SecretGuard, SecretPattern, SecretRow, DEFAULT_SECRETS, LISTED_SECRET,
    };
    pub use seal_policy::guards::{
        Act, PatternError, MAX_ID_BYTES, NAME_READERS, PATCH_TOOL, RECURSIVE_READERS,
        TREE_CHANGERS, TREE_READERS, UNKNOWN_ROOT,
    };
}
pub use seal_policy::rules::RECOMMENDED_RULES;

/// The embedder's own policy stages are the core chain's: a [`Listener`] in the pre-execute
/// waterfall (it may short-circuit, delegate through [`Next::run`] or replace the ruling) and a
/// deny-only [`Guard`] run on every allowed call, both over the frozen [`ToolCall`] and routed by
/// a [`Scope`]. A [`StageError`], or a panic (caught), denies the call.
///
/// ```
/// use seal::{Check, Next, Ruling, Scope, StageError, ToolCall};
///
/// let only_git = |call: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
///     match call.command() {
///         Some(command) if command.starts_with("git ") => Ok(next.run()),
///         Some(_) => Ok(Ruling::ask("not a git command")),
///         None => Err(StageError::failed("a Bash call without a command")),
///     }
/// };
/// let no_env_files = |call: &ToolCall| -> Result<Check, StageError> {
///     Ok(match call.path() {
///         Some(path) if path.ends_with(".env") => Check::deny("secrets stay local"),
///         _ => Check::Pass,
///     })
/// };
/// let seal = seal::Seal::builder()
///     .listener("only-git", Scope::everywhere().tool("Bash"), only_git)
///     .guard("no-env", no_env_files)
///     .build()?;
/// # Ok::<(), seal::BuildError>(())
/// ```
pub use seal_policy::chain::{
    Because, Check, Guard, Listener, Next, Reason, Ruling, Scope, StageError, Subject, SubjectKind,
    ToolCall, ToolField, TOOL_FIELDS,
};

pub use seal_policy::approval::ApprovalPolicy;
pub use seal_policy::preset::SandboxMode;
pub use seal_record::{canonical_path, CanonicalPath, PathError};
pub use seal_record::{Outcome, RecordError, Sha256Digest};
pub use seal_verify::{AlarmReason, UnixTime};
pub use seal_verify::{
    Claim, ClaimError, ClaimOutcome, ClaimScope, MemoryReplayStore, ReplayStore,
    DEFAULT_MEMORY_REPLAY_CAPACITY,
};
pub use seal_verify::{ALARM_ELEMENT, FRAME_ID_ATTRIBUTE};
pub use seal_verify::{DEFAULT_MAX_AGE_SECONDS, DEFAULT_MAX_SKEW_SECONDS, ISSUED_AT_ATTRIBUTE};

pub use approval::{Answer, Answerer, PendingApproval, Question};
pub use builder::{
    BuildError, Fallback, PolicyError, PresetLoadError, RulesErrorKind, ScanLimits, SealBuilder,
    StageRefusal, VerifyLimits, DESTRUCTIVE_GUARD_NAME, DESTRUCTIVE_LISTENER_NAME, MAX_ANSWERERS,
    MAX_STAGES, NO_RULES, PRESETS, RULES_LISTENER_NAME, SECRET_GUARD_NAME, SECRET_LISTENER_NAME,
    SELF_PROTECTION_GUARD_NAME, SELF_PROTECTION_LISTENER_NAME,
};
pub use disclosure::{
    ApprovalContext, ApprovalError, FileDigests, LivePayload, LiveState, Manifest, ManifestBuilder,
    ManifestError, SignedApproval, SpawnClearance, SpawnError, StaleItem,
};
pub use dispatch::{
    AuditEvent, Deny, DenyCause, Dispatch, Prepared, Returned, Run, Stage, StageKind, Stamp, Step,
    Trace, Via,
};
pub use inbound::{
    FrameCause, FrameOutcome, FrameReport, Inbound, InboundReport, UnansweredClaim, VerifiedFrame,
};
pub use seal::{ElementError, FrameRefusal, HarnessRewrite, Seal, SignError};
pub use seal_policy::approval::CARD_MAX_FIELD_CHARS;
pub use seal_policy::assembly::{lint_rules, RuleFinding};
pub use seal_policy::chain::{CallError, MAX_LOSSLESS_ARGUMENTS_BYTES};
pub use seal_policy::escalation::EscalationFields;
/// Key material an embedder loads: HMAC frame keys and Ed25519 approver keys, wiped when
/// dropped, redacted in `Debug`.
pub use seal_verify::{ApproverKey, FrameKey, KeyError, COMPACT_TAG_CHARS};
/// Signing frames with one key, outside a [`Seal`]: what a harness or the `seal` binary does
/// when it holds a key ([`FrameKey::as_signing_key`], [`ApproverKey::as_signing_key`]) and
/// writes frames for another process to verify; with a [`HarnessRewrite`] for bodies the
/// harness rewrites.
pub use seal_verify::{FrameSigner, SigningKey};
pub use session::{Call, Session};
pub use trust::{
    check_rotation, sign_store_document, sign_store_rotation, CompactTags, KeyRefusal, Rotation,
    TrustError, TrustStore,
};
pub use verifier::{InboundVerifier, Verifier, VerifierBuilder};
