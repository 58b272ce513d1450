//! Why a request was refused before it could be asked: every such case denies.

use std::fmt;

use seal_record::{Outcome, RecordError};

/// A request that could not be asked. Each case denies the call (its outcome is
/// `unavailable`) with its own message; no audit event is written, since there is no session,
/// turn or valid record to write it to.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// No approval service is configured.
    NoService,
    /// The call belongs to no session, so there is no log to audit the request in.
    NoSession,
    /// The call comes from no agent, so there is no identity to route the request by.
    NoAgent,
    /// The session has no open turn (the log's commit boundary).
    NoOpenTurn,
    /// The session id is not an identifier.
    InvalidSessionId {
        /// The id given.
        id: String,
    },
    /// The agent id is not an identifier.
    InvalidAgentId {
        /// The id given.
        id: String,
    },
    /// The id source produced something that is not an identifier.
    InvalidApprovalId {
        /// The id produced.
        id: String,
    },
    /// The id source produced an id this service already issued.
    ReusedApprovalId {
        /// The id produced.
        id: String,
    },
    /// The service issued [`ServiceLimits::max_approvals`](super::ServiceLimits::max_approvals)
    /// ids already.
    TooManyApprovals {
        /// The limit.
        max: usize,
    },
    /// The tool, call id or reason breaks the record rules.
    InvalidRequest(RecordError),
}

/// Registering one more answerer would exceed
/// [`ServiceLimits::max_answerers`](super::ServiceLimits::max_answerers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyAnswerers {
    /// The limit.
    pub max: usize,
}

impl Refusal {
    /// The outcome of a refused request: always `unavailable`, which never proceeds.
    pub fn outcome(&self) -> Outcome {
        Outcome::Unavailable
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoService => f.write_str("no approval service is configured"),
            Refusal::NoSession => {
                f.write_str("the call has no session to record the approval request in")
            }
            Refusal::NoAgent => {
                f.write_str("the call has no agent to route the approval request by")
            }
            Refusal::NoOpenTurn => f.write_str("the session has no open turn"),
            Refusal::InvalidSessionId { id } => {
                write!(f, "session id `{}` is not an identifier", id.escape_debug())
            }
            Refusal::InvalidAgentId { id } => {
                write!(f, "agent id `{}` is not an identifier", id.escape_debug())
            }
            Refusal::InvalidApprovalId { id } => write!(
                f,
                "the id source produced `{}`, which is not an identifier",
                id.escape_debug()
            ),
            Refusal::ReusedApprovalId { id } => {
                write!(f, "approval id `{}` was already issued", id.escape_debug())
            }
            Refusal::TooManyApprovals { max } => {
                write!(
                    f,
                    "this service already issued its limit of {max} approval ids"
                )
            }
            Refusal::InvalidRequest(error) => write!(f, "invalid approval request: {error}"),
        }
    }
}

impl std::error::Error for Refusal {}

impl fmt::Display for TooManyAnswerers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "more than {} answerers registered", self.max)
    }
}

impl std::error::Error for TooManyAnswerers {}
