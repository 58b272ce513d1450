//! Scope routing: which calls a listener or a scoped guard sees.

use super::call::ToolCall;

/// The calls a listener or guard is registered for. Each part left unset matches every call;
/// each part set must equal the call's value exactly (a scope with an agent never matches a call
/// without one).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Scope {
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
}

impl Scope {
    /// Every call.
    pub fn everywhere() -> Scope {
        Scope::default()
    }

    /// Only calls in this session.
    pub fn session(mut self, session: impl Into<String>) -> Scope {
        self.session = Some(session.into());
        self
    }

    /// Only calls made by this agent.
    pub fn agent(mut self, agent: impl Into<String>) -> Scope {
        self.agent = Some(agent.into());
        self
    }

    /// Only calls of this tool.
    pub fn tool(mut self, tool: impl Into<String>) -> Scope {
        self.tool = Some(tool.into());
        self
    }

    /// The session this scope is limited to, if any.
    pub fn session_part(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The agent this scope is limited to, if any.
    pub fn agent_part(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The tool this scope is limited to, if any.
    pub fn tool_part(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// `true` when no part is set.
    pub fn is_everywhere(&self) -> bool {
        self.session.is_none() && self.agent.is_none() && self.tool.is_none()
    }

    /// `true` when every part that is set equals the call's value.
    pub fn matches(&self, call: &ToolCall) -> bool {
        let session = self
            .session
            .as_deref()
            .map_or(true, |session| session == call.session());
        let agent = self
            .agent
            .as_deref()
            .map_or(true, |agent| Some(agent) == call.agent());
        let tool = self
            .tool
            .as_deref()
            .map_or(true, |tool| tool == call.tool());
        session && agent && tool
    }
}
