//! The tool call the chain decides on: who asks (session, agent), which tool, the frozen
//! arguments, and the typed [`Subject`] rules bind to.

use std::fmt;

use seal_parse::json::{JsonError, JsonLimits, Value};
use seal_record::{is_identifier, RecordError, SealedCall};

use super::subject::{subject_of, Subject};

/// Longest session or agent id, in bytes.
pub const MAX_ID_BYTES: usize = 256;

/// A tool call as the pre-execute chain sees it.
///
/// The arguments are frozen: they are the canonical JSON of a [`SealedCall`], and the typed
/// [`Subject`] (the shell command, the file path, the URL, the name) is a view of them by the
/// one table of [`TOOL_FIELDS`](crate::chain::TOOL_FIELDS). Every stage of the chain, the
/// approval card and the dispatcher therefore see the same values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    session: String,
    agent: Option<String>,
    call: SealedCall,
}

/// Longest arguments of a call read with [`Arguments::Lossless`]: 64 MiB (a foreign client's
/// file write may be large; the strict profile keeps the JSON limits' default).
pub const MAX_LOSSLESS_ARGUMENTS_BYTES: usize = 64 * 1024 * 1024;

/// How [`ToolCall::freeze`] reads a call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arguments {
    /// The canonical JSON profile: duplicate keys, lone surrogates and inexact numbers refused
    /// (arguments seal's own code builds).
    Strict,
    /// The lossless profile (spec/canonical-json.md section 12), for a foreign client's
    /// arguments: numbers and lone surrogates kept exactly, duplicate keys refused, up to
    /// [`MAX_LOSSLESS_ARGUMENTS_BYTES`].
    Lossless,
}

/// Why a tool call could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// The call id or tool name is not an identifier ([`ToolCall::freeze`]).
    Identifier(RecordError),
    /// The arguments are not JSON of the profile asked for ([`ToolCall::freeze`]).
    Arguments(JsonError),
    /// The session id is empty, longer than [`MAX_ID_BYTES`], or holds a byte outside printable
    /// ASCII without space.
    InvalidSessionId {
        /// The id given.
        value: String,
    },
    /// The agent id is empty, longer than [`MAX_ID_BYTES`], or holds a byte outside printable
    /// ASCII without space.
    InvalidAgentId {
        /// The id given.
        value: String,
    },
}

impl ToolCall {
    /// Freezes a call of `tool` with id `call_id`, made in `session` by `agent` when there is
    /// one: `arguments` are read under `profile` and kept as canonical bytes.
    ///
    /// # Errors
    /// A session, agent or call id, or tool name, that is not an identifier, or arguments
    /// outside the profile.
    pub fn freeze(
        session: &str,
        agent: Option<&str>,
        call_id: &str,
        tool: &str,
        arguments: &[u8],
        profile: Arguments,
    ) -> Result<ToolCall, CallError> {
        check_ids(session, agent)?;
        let mut limits = JsonLimits::default();
        let seal = match profile {
            Arguments::Strict => SealedCall::from_json_arguments,
            Arguments::Lossless => {
                limits.max_bytes = MAX_LOSSLESS_ARGUMENTS_BYTES;
                SealedCall::from_foreign_json_arguments
            }
        };
        let sealed = seal(call_id, tool, arguments, &limits).map_err(|error| match error {
            RecordError::Arguments(json) => CallError::Arguments(json),
            other => CallError::Identifier(other),
        })?;
        ToolCall::new(session, agent, sealed)
    }

    /// Freezes a call of `tool` with id `call_id` whose arguments were already parsed (the
    /// value a hook read from its input): they are serialized to canonical bytes and hashed
    /// once, here, and never parsed again. The bytes are the value's canonical form: lossless
    /// when it holds a number literal or an ill-formed string, strict otherwise (the same bytes
    /// [`ToolCall::freeze`] gives for the value's text). The limits are the ones the value was
    /// parsed under.
    ///
    /// # Errors
    /// A session, agent or call id, or tool name, that is not an identifier.
    pub fn freeze_parsed(
        session: &str,
        agent: Option<&str>,
        call_id: &str,
        tool: &str,
        arguments: &Value<'_>,
    ) -> Result<ToolCall, CallError> {
        check_ids(session, agent)?;
        let sealed = SealedCall::new(call_id, tool, arguments).map_err(CallError::Identifier)?;
        ToolCall::new(session, agent, sealed)
    }

    /// A call in `session`, made by `agent` when there is one. Session and agent ids are 1 to
    /// [`MAX_ID_BYTES`] bytes of printable ASCII without space.
    pub fn new(
        session: &str,
        agent: Option<&str>,
        call: SealedCall,
    ) -> Result<ToolCall, CallError> {
        check_ids(session, agent)?;
        Ok(ToolCall {
            session: session.to_owned(),
            agent: agent.map(str::to_owned),
            call,
        })
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The agent id, if the call was made by an agent.
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        self.call.tool()
    }

    /// The call id.
    pub fn call_id(&self) -> &str {
        self.call.call_id()
    }

    /// The sealed call: frozen canonical arguments and their digest.
    pub fn sealed(&self) -> &SealedCall {
        &self.call
    }

    /// The frozen arguments as RFC 8785 canonical JSON (always UTF-8: the canonical form of
    /// parsed JSON text).
    pub fn arguments_json(&self) -> &str {
        std::str::from_utf8(self.call.arguments_bytes()).unwrap_or("")
    }

    /// The typed view of the arguments that rules bind to.
    pub fn subject(&self) -> Subject<'_> {
        subject_of(self.call.tool(), self.call.arguments())
    }

    /// The shell command, for a shell tool whose `command` argument is a string.
    pub fn command(&self) -> Option<&str> {
        match self.subject() {
            Subject::Command(command) => Some(command),
            _ => None,
        }
    }

    /// The file path, for a file tool whose path argument is a string.
    pub fn path(&self) -> Option<&str> {
        match self.subject() {
            Subject::Path(path) => Some(path),
            _ => None,
        }
    }

    /// The URL, for a fetch tool whose `url` argument is a string.
    pub fn url(&self) -> Option<&str> {
        match self.subject() {
            Subject::Url(url) => Some(url),
            _ => None,
        }
    }

    /// The host of the URL, when it can be read with certainty
    /// ([`url_host`](crate::chain::url_host)).
    pub fn domain(&self) -> Option<String> {
        self.url().and_then(super::subject::url_domain)
    }
}

/// Session and agent ids are identifiers of at most [`MAX_ID_BYTES`].
fn check_ids(session: &str, agent: Option<&str>) -> Result<(), CallError> {
    if !is_identifier(session, MAX_ID_BYTES) {
        let value = session.to_owned();
        return Err(CallError::InvalidSessionId { value });
    }
    match agent {
        Some(agent) if !is_identifier(agent, MAX_ID_BYTES) => {
            let value = agent.to_owned();
            Err(CallError::InvalidAgentId { value })
        }
        _ => Ok(()),
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Identifier(error) => write!(f, "call refused: {error}"),
            CallError::Arguments(error) => write!(f, "arguments refused: {error}"),
            CallError::InvalidSessionId { value } => write!(
                f,
                "session id `{}` is not 1 to {MAX_ID_BYTES} bytes of printable ascii without space",
                value.escape_debug()
            ),
            CallError::InvalidAgentId { value } => write!(
                f,
                "agent id `{}` is not 1 to {MAX_ID_BYTES} bytes of printable ascii without space",
                value.escape_debug()
            ),
        }
    }
}

impl std::error::Error for CallError {}
