//! Asking for an escalation through the approval service, and the one-call grant.

use std::fmt;

use seal_record::Outcome;

use crate::approval::{
    request_approval, ApprovalPolicy, ApprovalRequest, ApprovalService, Asking, Caller, Refusal,
};
use crate::preset::{Executor, SandboxMode, Session};

use super::fields::Escalation;
use super::stamp::Stamp;

/// An escalation put to the approval service: the request's machine and effects, and what was
/// asked. Feed a claimed answer to `asking` ([`Asking::step`]), then call [`EscalationAsk::grant`] again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscalationAsk {
    /// The approval request as asked.
    pub asking: Asking,
    escalation: Escalation,
    call_id: String,
}

/// A granted escalation: the wider mode, for the one call it was asked for.
///
/// It is a value, not a setting: nothing in a [`Session`](crate::preset::Session) or in the
/// settings changes when it is granted, it is not `Clone`, and turning it into a [`Stamp`]
/// consumes it.
#[derive(Debug, PartialEq, Eq)]
pub struct Grant {
    mode: SandboxMode,
    call_id: String,
}

/// Why an escalation was not granted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotGranted {
    /// An answerer claimed the request and has not answered yet.
    Pending,
    /// The request settled with an outcome other than `allowed-once`.
    Settled(Outcome),
}

/// Asks `service` to approve `escalation` for the call `call_id` of `tool`. The request's
/// reason records the standing mode, the target and the justification. A missing service (or
/// session, agent, open turn) is a [`Refusal`], which denies.
pub fn ask_escalation(
    service: Option<&mut ApprovalService>,
    caller: &Caller<'_>,
    tool: &str,
    call_id: &str,
    escalation: &Escalation,
    already_cancelled: bool,
) -> Result<EscalationAsk, Refusal> {
    let reason = escalation.reason();
    let request = ApprovalRequest::new(tool)
        .with_call_id(call_id)
        .with_reason(&reason);
    let asking = request_approval(service, caller, &request, already_cancelled)?;
    Ok(EscalationAsk {
        asking,
        escalation: escalation.clone(),
        call_id: call_id.to_owned(),
    })
}

/// Why an escalation of a session could not be asked. Every case denies.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionAskError {
    /// The approval service refused the request (no service, session, agent or open turn...).
    Refused(Refusal),
    /// The session's approval policy is `never` (for instance a delegated child's) but the
    /// service would consult answerers: the request is not put to a service that could prompt.
    PolicyMismatch {
        /// The session's policy.
        session: ApprovalPolicy,
        /// The service's policy.
        service: ApprovalPolicy,
    },
}

/// [`ask_escalation`] for a call of `session`: when the session's approval policy is `never`,
/// the service must be one with policy `never` too (which rejects without consulting any
/// answerer, and records the audit pair); a service that could prompt is not asked.
pub fn ask_session_escalation(
    service: Option<&mut ApprovalService>,
    session: &Session,
    caller: &Caller<'_>,
    tool: &str,
    call_id: &str,
    escalation: &Escalation,
    already_cancelled: bool,
) -> Result<EscalationAsk, SessionAskError> {
    if let Some(service) = service.as_deref() {
        if session.approval_policy() == ApprovalPolicy::Never
            && service.policy() != ApprovalPolicy::Never
        {
            return Err(SessionAskError::PolicyMismatch {
                session: session.approval_policy(),
                service: service.policy(),
            });
        }
    }
    ask_escalation(
        service,
        caller,
        tool,
        call_id,
        escalation,
        already_cancelled,
    )
    .map_err(SessionAskError::Refused)
}

impl EscalationAsk {
    /// The escalation asked for.
    pub fn escalation(&self) -> &Escalation {
        &self.escalation
    }

    /// The grant, only when the request settled `allowed-once`.
    pub fn grant(&self) -> Result<Grant, NotGranted> {
        match self.asking.outcome() {
            Some(Outcome::AllowedOnce) => Ok(Grant {
                mode: self.escalation.target(),
                call_id: self.call_id.clone(),
            }),
            Some(outcome) => Err(NotGranted::Settled(outcome)),
            None => Err(NotGranted::Pending),
        }
    }
}

impl Grant {
    /// The granted mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// The call the grant is for.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Consumes the grant into the stamp of its one call.
    pub fn into_stamp(self, executor: Executor) -> Stamp {
        Stamp::new(self.mode, executor)
    }
}

impl fmt::Display for NotGranted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotGranted::Pending => f.write_str("the escalation is still awaiting an answer"),
            NotGranted::Settled(outcome) => {
                write!(f, "the escalation settled `{}`", outcome.as_str())
            }
        }
    }
}

impl std::error::Error for NotGranted {}

impl fmt::Display for SessionAskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionAskError::Refused(refusal) => write!(f, "{refusal}"),
            SessionAskError::PolicyMismatch { session, service } => write!(
                f,
                "the session's approval policy is `{session}` but the approval service's is `{service}`"
            ),
        }
    }
}

impl std::error::Error for SessionAskError {}
