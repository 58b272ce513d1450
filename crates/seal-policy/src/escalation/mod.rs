//! Per-call sandbox escalation: strictly wider, explicit, asked through the approval service,
//! and good for one call.
//!
//! A call may carry `sandbox_permissions` (a mode) and `justification`. [`check_escalation`]
//! refuses, before any prompt: either field on an executor that cannot sandbox, one field
//! without the other, an unknown mode, a blank justification (whitespace and invisible
//! characters count as blank), and a mode that is not strictly wider than the call's standing
//! mode. [`ask_escalation`] asks the approval service with a reason naming the target and the
//! justification; only `allowed-once` yields a [`Grant`], a value for that one call that no
//! session or setting ever stores.
//!
//! ```
//! use seal_policy::approval::{answer_with, Answer, ApprovalPolicy, ApprovalService, Caller};
//! use seal_policy::escalation::{ask_escalation, plan_call, EscalationFields, EscalationLimits};
//! use seal_policy::preset::{Executor, SandboxMode};
//!
//! let fields = EscalationFields {
//!     sandbox_permissions: Some("danger-full-access"),
//!     justification: Some("needs network to fetch crates"),
//! };
//! let standing = SandboxMode::WorkspaceWrite;
//! let plan = plan_call(&fields, standing, ApprovalPolicy::OnRequest, Executor::CONFINING,
//!     EscalationLimits::DEFAULT).expect("strictly wider");
//! assert!(plan.standing.sandboxed && plan.needs_prompt());
//!
//! let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
//! service.register(answer_with(|_| Answer::AllowOnce)).expect("room");
//! let escalation = plan.escalation.as_ref().expect("asked");
//! let asked = ask_escalation(Some(&mut service), &Caller::in_turn("s1", "a1"), "Bash", "call-1",
//!     escalation, false).expect("routable");
//! let stamp = asked.grant().expect("allowed once").into_stamp(Executor::CONFINING);
//! assert_eq!(stamp.mode, SandboxMode::DangerFullAccess);
//! assert!(!stamp.sandboxed);
//! ```

mod fields;
mod grant;
mod stamp;

pub use fields::{
    check_escalation, is_blank_justification, Escalation, EscalationError, EscalationFields,
    EscalationLimits, JUSTIFICATION_KEY, SANDBOX_PERMISSIONS_KEY,
};
pub use grant::{
    ask_escalation, ask_session_escalation, EscalationAsk, Grant, NotGranted, SessionAskError,
};
pub use stamp::{plan_call, plan_session_call, CallPlan, Stamp};
