//! Sessions and calls: who asks, with which standing permissions, for which tool call.

use seal_parse::json::Value;
use seal_policy::chain::{Arguments, CallError, Subject, ToolCall};
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
    /// The approval card of this call under `approval_id`, with `reason` (raw: the card
    /// escapes it once), in the session's standing sandbox mode: the card a person reads when
    /// the call is put to them by someone other than the pipeline (for instance the client's
    /// own permission prompt relayed to a panel).
    pub fn card(&self, approval_id: &str, reason: &str) -> String {
        seal_policy::approval::approval_card(
            approval_id,
            &self.call,
            reason,
            self.session.standing_mode(),
            None,
        )
    }

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

impl Call {
    /// The frozen call as the core's chain sees it (for a listener or guard written against
    /// the core types).
    pub fn tool_call(&self) -> &ToolCall {
        &self.call
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.call.session()
    }

    /// The agent id, if the call was made by an agent.
    pub fn agent(&self) -> Option<&str> {
        self.call.agent()
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        self.call.tool()
    }

    /// The call id.
    pub fn call_id(&self) -> &str {
        self.call.call_id()
    }

    /// The frozen arguments as RFC 8785 canonical JSON: for a foreign call the lossless
    /// canonical form, numbers as written, lone surrogates as `\udxxx`.
    pub fn arguments_json(&self) -> &str {
        self.call.arguments_json()
    }

    /// SHA-256 of the frozen arguments' canonical bytes, computed once when the call was
    /// frozen.
    pub fn arguments_sha256(&self) -> crate::Sha256Digest {
        self.call.sealed().arguments_sha256()
    }

    /// The typed subject the rules read (the command, path, URL or name), a view of the frozen
    /// arguments.
    pub fn subject(&self) -> Subject<'_> {
        self.call.subject()
    }

    /// The shell command, for a shell tool whose `command` argument is a string.
    pub fn command(&self) -> Option<&str> {
        self.call.command()
    }

    /// The file path, for a file tool whose path argument is a string.
    pub fn path(&self) -> Option<&str> {
        self.call.path()
    }

    /// The URL, for a fetch tool whose `url` argument is a string.
    pub fn url(&self) -> Option<&str> {
        self.call.url()
    }
}
