//! The tool call the chain decides on: who asks (session, agent), which tool, the frozen
//! arguments, and the typed [`Subject`] rules bind to.

use std::fmt;

use seal_record::{is_identifier, SealedCall};

use super::subject::{subject_of, Subject};

/// Longest session or agent id, in bytes.
pub const MAX_ID_BYTES: usize = 256;

/// A tool call as the pre-execute chain sees it.
///
/// The arguments are frozen: they are the canonical JSON of a [`SealedCall`], and the typed
/// [`Subject`] (the shell command, the file path, the URL and its domain) is extracted from them
/// once, when the call is built, by the documented per-tool mapping of [`Subject`]. Every stage
/// of the chain, the approval card and the dispatcher therefore see the same values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    session: String,
    agent: Option<String>,
    call: SealedCall,
    subject: Subject,
}

/// A session or agent id that is not an identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
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
    /// A call in `session`, made by `agent` when there is one. Session and agent ids are 1 to
    /// [`MAX_ID_BYTES`] bytes of printable ASCII without space.
    pub fn new(
        session: &str,
        agent: Option<&str>,
        call: SealedCall,
    ) -> Result<ToolCall, CallError> {
        if !is_identifier(session, MAX_ID_BYTES) {
            return Err(CallError::InvalidSessionId {
                value: session.to_owned(),
            });
        }
        if let Some(agent) = agent {
            if !is_identifier(agent, MAX_ID_BYTES) {
                return Err(CallError::InvalidAgentId {
                    value: agent.to_owned(),
                });
            }
        }
        let subject = subject_of(call.tool(), call.arguments());
        Ok(ToolCall {
            session: session.to_owned(),
            agent: agent.map(str::to_owned),
            call,
            subject,
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
    pub fn subject(&self) -> &Subject {
        &self.subject
    }

    /// The shell command, for a shell tool whose `command` argument is a string.
    pub fn command(&self) -> Option<&str> {
        match &self.subject {
            Subject::Command(command) => Some(command),
            _ => None,
        }
    }

    /// The file path, for a file tool whose path argument is a string.
    pub fn path(&self) -> Option<&str> {
        match &self.subject {
            Subject::Path(path) => Some(path),
            _ => None,
        }
    }

    /// The URL, for a fetch tool whose `url` argument is a string.
    pub fn url(&self) -> Option<&str> {
        match &self.subject {
            Subject::Url { url, .. } => Some(url),
            _ => None,
        }
    }

    /// The normalized domain of the URL, when it could be read (see [`Subject::Url`]).
    pub fn domain(&self) -> Option<&str> {
        match &self.subject {
            Subject::Url { domain, .. } => domain.as_deref(),
            _ => None,
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
