//! Sessions and calls: who asks, with which standing permissions, for which tool call.

use seal_parse::json::Value;
use seal_policy::chain::{Arguments, CallError, ToolCall};
use seal_policy::preset::Session as CoreSession;

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

impl Call {
    pub(crate) fn new(
        session: &Session,
        agent: &str,
        call_id: &str,
        tool: &str,
        arguments_json: &str,
        profile: Arguments,
    ) -> Result<Call, CallError> {
        let arguments = arguments_json.as_bytes();
        let call = ToolCall::freeze(&session.id, Some(agent), call_id, tool, arguments, profile)?;
        let session = session.session.clone();
        Ok(Call { call, session })
    }

    pub(crate) fn parsed(
        session: &Session,
        agent: &str,
        call_id: &str,
        tool: &str,
        arguments: &Value<'_>,
    ) -> Result<Call, CallError> {
        let call = ToolCall::freeze_parsed(&session.id, Some(agent), call_id, tool, arguments)?;
        let session = session.session.clone();
        Ok(Call { call, session })
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
