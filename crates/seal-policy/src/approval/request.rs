//! What an approval request carries: who asks (the caller) and about what (the request).
//!
//! There is no field for the tool arguments: the call id links the request to the call that is
//! already recorded and shown, so there are never two copies that could drift.

/// Who is asking: the routing identity and the turn the request belongs to.
///
/// A request needs a session (the log the audit pair is written to), an agent (the routing
/// identity answerers claim by) and an open turn (the session log's commit boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Caller<'a> {
    /// The session id, if the call belongs to a session.
    pub session: Option<&'a str>,
    /// The agent id, if the call comes from an agent.
    pub agent: Option<&'a str>,
    /// True when the session has an open turn.
    pub turn_open: bool,
}

/// The question put to the approver: a tool, the id of the already-recorded call, and a
/// reason. Validated when the request is asked (identifiers and reason text follow the record
/// rules of `seal_record::ApprovalAsked`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovalRequest<'a> {
    /// The tool name.
    pub tool: &'a str,
    /// The id of the recorded tool call, if there is one.
    pub call_id: Option<&'a str>,
    /// Why approval is needed, shown to the approver.
    pub reason: Option<&'a str>,
}

/// What an answerer sees: the fresh approval id, the routing identity and the request. Never
/// the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Question<'a> {
    /// The approval id (fresh for every request).
    pub approval_id: &'a str,
    /// The session id.
    pub session: &'a str,
    /// The agent id.
    pub agent: &'a str,
    /// The tool name.
    pub tool: &'a str,
    /// The id of the recorded tool call, if there is one.
    pub call_id: Option<&'a str>,
    /// Why approval is needed.
    pub reason: Option<&'a str>,
}

impl<'a> Caller<'a> {
    /// A caller in session `session`, agent `agent`, with an open turn.
    pub fn in_turn(session: &'a str, agent: &'a str) -> Caller<'a> {
        Caller {
            session: Some(session),
            agent: Some(agent),
            turn_open: true,
        }
    }
}

impl<'a> ApprovalRequest<'a> {
    /// A request about `tool` with no call id and no reason.
    pub fn new(tool: &'a str) -> ApprovalRequest<'a> {
        ApprovalRequest {
            tool,
            call_id: None,
            reason: None,
        }
    }

    /// The request for a sealed call: its tool and call id, never its arguments.
    pub fn for_call(call: &'a seal_record::SealedCall) -> ApprovalRequest<'a> {
        ApprovalRequest {
            tool: call.tool(),
            call_id: Some(call.call_id()),
            reason: None,
        }
    }

    /// The same request linked to the recorded call `call_id`.
    pub fn with_call_id(self, call_id: &'a str) -> ApprovalRequest<'a> {
        ApprovalRequest {
            call_id: Some(call_id),
            ..self
        }
    }

    /// The same request with a reason.
    pub fn with_reason(self, reason: &'a str) -> ApprovalRequest<'a> {
        ApprovalRequest {
            reason: Some(reason),
            ..self
        }
    }
}
