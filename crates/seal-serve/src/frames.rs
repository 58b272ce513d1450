//! The JSON the panel receives and the receipts it gets (spec/approval-server.md, "The HTTP
//! API"). Each frame is one JSON object with a `type` member.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use seal_policy::approval::{BookEntry, Resolution};
use serde_json::{json, Value};

use crate::names::cause_name;
use crate::store::Side;

/// The `warning` of the `hello` frame while no approver is enrolled.
pub const NO_APPROVER_WARNING: &str = "No approver is enrolled: any process running as \
     your user that holds a panel token (or pairs one) could answer these approvals. Enrol an \
     approver to require your authenticator for every allow.";

/// `{"type":"hello","now_ms","approvers","credentials","warning"}`.
pub(crate) fn hello(now_ms: u64, approvers: u64, credentials: &[String]) -> String {
    let warning = (approvers == 0).then_some(NO_APPROVER_WARNING);
    json!({"type": "hello", "now_ms": now_ms, "approvers": approvers,
           "credentials": credentials, "warning": warning})
    .to_string()
}

/// `approval/requested` for a pending entry.
pub(crate) fn requested(entry: &BookEntry, side: Option<&Side>) -> String {
    let registration = &entry.registration;
    let asked = &registration.asked;
    let challenge = side.map(|side| URL_SAFE_NO_PAD.encode(side.challenge));
    let command = side.and_then(|side| side.command.as_deref());
    json!({
        "type": "approval/requested",
        "rpc_id": entry.rpc_id.0,
        "session_id": registration.session_id,
        "approval_id": asked.id(),
        "agent": registration.agent,
        "tool": asked.tool(),
        "call_id": asked.call_id(),
        "reason": asked.reason(),
        "command": command,
        "card": registration.card,
        "deadline_ms": registration.deadline_ms,
        "challenge": challenge,
    })
    .to_string()
}

/// `approval/resolved`.
pub(crate) fn resolved(resolution: &Resolution) -> String {
    json!({
        "type": "approval/resolved",
        "rpc_id": resolution.rpc_id.0,
        "session_id": resolution.session_id,
        "approval_id": resolution.approval_id,
        "outcome": resolution.outcome.as_str(),
        "cause": cause_name(resolution.cause),
    })
    .to_string()
}

/// A receipt: `{"accepted":true}` or `{"accepted":false,"reason":W}`.
pub(crate) fn receipt(refusal: Option<&str>) -> String {
    match refusal {
        None => json!({"accepted": true}).to_string(),
        Some(reason) => json!({"accepted": false, "reason": reason}).to_string(),
    }
}

/// Any JSON value as text.
pub(crate) fn text(value: &Value) -> String {
    value.to_string()
}
