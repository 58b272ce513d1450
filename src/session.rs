//! Sessions and calls: who asks, with which standing permissions, for which tool call.

use std::fmt;

use seal_parse::json::JsonLimits;
use seal_policy::chain::ToolCall;
use seal_policy::preset::Session as CoreSession;
use seal_record::SealedCall;

use crate::{ApprovalPolicy, SandboxMode};

/// A session: an id and the permission facts it pinned when it was opened (standing sandbox
/// mode, approval policy). Later changes to the [`Seal`](crate::Seal)'s settings never reach an
/// open session; a one-shot escalation is never stored in one.
///
/// ```
/// let seal = seal::Seal::builder().preset("auto").build()?;
/// let session = seal.open_session("s1")?;
/// assert_eq!(session.standing_mode(), seal::SandboxMode::WorkspaceWrite);
/// let child = seal.spawn_child(&session, "s1-child", Some(seal::SandboxMode::DangerFullAccess))?;
/// assert_eq!(child.standing_mode(), seal::SandboxMode::WorkspaceWrite);
/// assert_eq!(child.approval_policy(), seal::ApprovalPolicy::Never);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub(crate) id: String,
    pub(crate) session: CoreSession,
}

/// A tool call ready to be prepared: session, agent, tool, call id and arguments frozen as
/// RFC 8785 canonical JSON, with the session's permission facts at the time the call was made.
///
/// Made by [`Seal::call`](crate::Seal::call) (strict profile: duplicate keys, lone surrogates and
/// inexact numbers refused) or [`Seal::call_foreign`](crate::Seal::call_foreign) (lossless
/// profile for a foreign client's arguments: numbers and lone surrogates kept exactly, duplicate
/// keys refused).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub(crate) call: ToolCall,
    pub(crate) session: CoreSession,
}

/// Why a session or call could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// A session id that is not 1 to 256 bytes of printable ASCII without space.
    SessionId {
        /// The id given.
        id: String,
    },
    /// An agent id that is not 1 to 256 bytes of printable ASCII without space.
    AgentId {
        /// The id given.
        id: String,
    },
    /// The call id or tool name is not an identifier (the sealed-call record refused it).
    Identifier(seal_record::RecordError),
    /// The arguments are not JSON of the call's profile (strict for [`Seal::call`](crate::Seal::call),
    /// lossless for [`Seal::call_foreign`](crate::Seal::call_foreign)).
    Arguments(seal_parse::json::JsonError),
    /// The tool call was refused by the decision engine (its session or agent id).
    ToolCall(ToolCallError),
}

/// Why the decision engine refused a tool call's ids.
pub use seal_policy::chain::CallError as ToolCallError;

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SessionId { id } => write!(f, "`{}` is not a session id", id.escape_debug()),
            Self::AgentId { id } => write!(f, "`{}` is not an agent id", id.escape_debug()),
            Self::Identifier(error) => write!(f, "call refused: {error}"),
            Self::Arguments(error) => write!(f, "arguments refused: {error}"),
            Self::ToolCall(error) => write!(f, "call refused: {error}"),
        }
    }
}

impl std::error::Error for CallError {}

impl Session {
    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The standing sandbox mode of calls in this session.
    pub fn standing_mode(&self) -> SandboxMode {
        self.session.standing_mode()
    }

    /// The approval policy of this session (`never` for a delegated child).
    pub fn approval_policy(&self) -> ApprovalPolicy {
        self.session.approval_policy()
    }
}

/// Largest argument text [`Seal::call_foreign`](crate::Seal::call_foreign) reads: 64 MiB
/// (67,108,864 bytes), the `seal` hooks' input limit, so that a client's `Write` of tens of MiB
/// is decided by the rules rather than refused for its size. Larger arguments are refused
/// ([`CallError::Arguments`], `input_too_large`). [`Seal::call`](crate::Seal::call) keeps the
/// JSON default of 16 MiB.
pub const MAX_FOREIGN_ARGUMENTS_BYTES: usize = 64 * 1024 * 1024;

/// Which JSON profile a call's arguments are read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arguments {
    /// Arguments seal's own code builds: strict canonical profile.
    Strict,
    /// A foreign client's arguments: lossless profile.
    Foreign,
}

impl Call {
    pub(crate) fn new(
        session: &Session,
        agent: &str,
        call_id: &str,
        tool: &str,
        arguments_json: &str,
        profile: Arguments,
    ) -> Result<Call, CallError> {
        if !is_id(agent) {
            return Err(CallError::AgentId {
                id: agent.to_owned(),
            });
        }
        let mut limits = JsonLimits::default();
        let seal_arguments = match profile {
            Arguments::Strict => SealedCall::from_json_arguments,
            Arguments::Foreign => {
                limits.max_bytes = MAX_FOREIGN_ARGUMENTS_BYTES;
                SealedCall::from_foreign_json_arguments
            }
        };
        let sealed =
            seal_arguments(call_id, tool, arguments_json.as_bytes(), &limits).map_err(|error| {
                match error {
                    seal_record::RecordError::Arguments(json) => CallError::Arguments(json),
                    other => CallError::Identifier(other),
                }
            })?;
        let call = ToolCall::new(&session.id, Some(agent), sealed).map_err(CallError::ToolCall)?;
        Ok(Call {
            call,
            session: session.session.clone(),
        })
    }

    /// The string argument `name` of the frozen arguments, if present and text (`None` for a
    /// string holding a lone surrogate).
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.call
            .sealed()
            .arguments()
            .as_object()
            .and_then(|object| object.get(name))
            .and_then(|value| value.as_str())
    }
}

impl std::ops::Deref for Call {
    type Target = ToolCall;

    /// The frozen call: session, agent, tool, call id, canonical arguments
    /// ([`ToolCall::arguments_json`]: for a foreign call the lossless canonical form, numbers as
    /// written, lone surrogates as `\udxxx`) and the typed subject the rules read.
    fn deref(&self) -> &ToolCall {
        &self.call
    }
}

/// 1 to 256 bytes of printable ASCII without space (the record identifier rule).
pub(crate) fn is_id(text: &str) -> bool {
    seal_record::is_identifier(text, seal_record::MAX_IDENTIFIER_BYTES)
}
