//! Errors of the approval wire registry: registering a request, and rejecting a response.

use std::fmt;

use super::registry::RpcId;
use super::response::MalformedResponse;

/// Why a request could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegisterError {
    /// [`RegistryLimits::max_pending`](super::RegistryLimits::max_pending) requests are pending already.
    TooManyPending {
        /// The limit.
        max: usize,
    },
    /// The session id is not an identifier.
    InvalidSessionId {
        /// The id given.
        id: String,
    },
    /// The same approval of the same session is pending already.
    AlreadyPending {
        /// Its rpc id.
        rpc_id: RpcId,
    },
    /// Every rpc id up to 2^53 has been issued.
    RpcIdsExhausted,
    /// A request restored under this rpc id, but the id is in use already or is not an rpc id.
    RpcIdInUse {
        /// The rpc id.
        rpc_id: RpcId,
    },
}

/// Why a response was rejected. Each case leaves the registry unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseError {
    /// The response does not parse as a response.
    Malformed(MalformedResponse),
    /// The rpc id is pending but belongs to another session.
    Foreign {
        /// The rpc id.
        rpc_id: RpcId,
        /// The session id the response gave.
        session_id: String,
    },
    /// The rpc id is pending in this session but for another approval.
    MismatchedApproval {
        /// The rpc id.
        rpc_id: RpcId,
        /// The approval id the response gave.
        approval_id: String,
    },
    /// The rpc id was never issued, was already answered by a client, or is forgotten.
    Stale {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The request was settled `cancelled` (abort or teardown) before this response arrived.
    Late {
        /// The rpc id.
        rpc_id: RpcId,
    },
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::TooManyPending { max } => {
                write!(f, "{max} approval requests are pending already")
            }
            RegisterError::InvalidSessionId { id } => {
                write!(f, "session id `{}` is not an identifier", id.escape_debug())
            }
            RegisterError::AlreadyPending { rpc_id } => {
                write!(f, "this approval is pending already as rpc id `{rpc_id}`")
            }
            RegisterError::RpcIdsExhausted => f.write_str("every rpc id has been issued"),
            RegisterError::RpcIdInUse { rpc_id } => {
                write!(f, "rpc id `{rpc_id}` is in use already or is not an rpc id")
            }
        }
    }
}

impl std::error::Error for RegisterError {}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseError::Malformed(error) => write!(f, "malformed approval response: {error}"),
            ResponseError::Foreign { rpc_id, session_id } => write!(
                f,
                "rpc id `{rpc_id}` belongs to another session than `{}`",
                session_id.escape_debug()
            ),
            ResponseError::MismatchedApproval {
                rpc_id,
                approval_id,
            } => write!(
                f,
                "rpc id `{rpc_id}` is not for approval `{}`",
                approval_id.escape_debug()
            ),
            ResponseError::Stale { rpc_id } => {
                write!(
                    f,
                    "rpc id `{rpc_id}` is not pending (unknown or already answered)"
                )
            }
            ResponseError::Late { rpc_id } => {
                write!(f, "rpc id `{rpc_id}` was cancelled before this response")
            }
        }
    }
}

impl std::error::Error for ResponseError {}
