//! The decision log seam: the server records `approval/asked` when an approval is registered and
//! `approval/decided` when it settles. The log itself (its file, its key, its clock) belongs to
//! the embedder; `seal serve --log` plugs in the SQLite decision log.

use seal_policy::approval::{BookEntry, Resolution};
use seal_record::{LogEvent, LogEventType};

use crate::names::cause_name;

/// Appends events to a decision log. A failure is written to the server's stderr; it never
/// changes an approval (the approval's own state is in the store).
pub trait DecisionLog: Send + Sync {
    /// Appends `event`, claiming the time of the append.
    ///
    /// # Errors
    /// The log could not record it (a sentence for the operator).
    fn record(&self, event: LogEvent) -> Result<(), String>;
}

/// `approval/asked`: the approval id, session, tool and call id (never arguments).
pub(crate) fn asked(entry: &BookEntry) -> Result<LogEvent, String> {
    let asked = &entry.registration.asked;
    let event = LogEvent::new(LogEventType::ApprovalAsked)
        .text("approval", asked.id())
        .and_then(|event| event.text("session", &entry.registration.session_id))
        .and_then(|event| event.text("tool", asked.tool()));
    match asked.call_id() {
        Some(call_id) => event.and_then(|event| event.text("call_id", call_id)),
        None => event,
    }
    .map_err(|error| error.to_string())
}

/// `approval/decided`: the approval id, its outcome, and by what it settled (the cause's wire
/// name).
pub(crate) fn decided(resolution: &Resolution) -> Result<LogEvent, String> {
    LogEvent::new(LogEventType::ApprovalDecided)
        .text("approval", &resolution.approval_id)
        .and_then(|event| event.choice("outcome", resolution.outcome.as_str()))
        .and_then(|event| event.text("by", cause_name(resolution.cause)))
        .map_err(|error| error.to_string())
}
