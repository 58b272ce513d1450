//! The mapping for machine answerers (ACP-like clients): two one-shot options, and anything
//! unknown rejects.
//!
//! A machine answerer claims a request only when it owns the exact agent and the request has a
//! call id. It offers `allow-once` and `reject-once`; its client's reply maps to an answer for
//! this one request: `allow-once` allows once, an explicit cancellation cancels, and every other
//! reply (an unknown option, `allow-always`, malformed JSON) rejects. No reply becomes a durable
//! grant: there is no type for one.

use seal_parse::json::{parse, JsonLimits, Value};

use super::answerer::Reply;
use super::machine::Event;
use super::request::Question;

/// The option id that allows this one call.
pub const ALLOW_ONCE_OPTION: &str = "allow-once";

/// The option id that rejects this one call.
pub const REJECT_ONCE_OPTION: &str = "reject-once";

/// The options offered to a machine client, in order: allow once, reject once.
pub const MACHINE_OPTIONS: [MachineOption; 2] = [
    MachineOption {
        id: ALLOW_ONCE_OPTION,
        name: "Allow once",
        reply: Reply::AllowOnce,
    },
    MachineOption {
        id: REJECT_ONCE_OPTION,
        name: "Reject once",
        reply: Reply::Reject,
    },
];

/// One option offered to a machine client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MachineOption {
    /// The option id sent to the client.
    pub id: &'static str,
    /// The label shown.
    pub name: &'static str,
    /// What selecting it means: one-shot, always.
    pub reply: Reply,
}

/// What a machine client said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineResponse<'a> {
    /// It selected the option with this id.
    Selected(&'a str),
    /// It cancelled the prompt.
    Cancelled,
}

/// What a machine client's response does to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MachineAnswer {
    /// Settle with this reply (one-shot).
    Reply(Reply),
    /// Cancel the request.
    Cancel,
}

/// True when a machine answerer that owns `owned_agent` claims `question`: the exact agent
/// (byte equality) and a call id present.
pub fn machine_claims(owned_agent: &str, question: &Question<'_>) -> bool {
    question.agent == owned_agent && question.call_id.is_some()
}

/// Maps a machine client's response: `allow-once` allows once, a cancellation cancels, and any
/// other selection rejects.
pub fn map_machine_response(response: MachineResponse<'_>) -> MachineAnswer {
    match response {
        MachineResponse::Selected(ALLOW_ONCE_OPTION) => MachineAnswer::Reply(Reply::AllowOnce),
        MachineResponse::Selected(_) => MachineAnswer::Reply(Reply::Reject),
        MachineResponse::Cancelled => MachineAnswer::Cancel,
    }
}

/// Reads a machine client's response,
/// `{"outcome":{"outcome":"selected","optionId":<id>}}` or
/// `{"outcome":{"outcome":"cancelled"}}`, strictly through `seal_parse::json`, and maps it
/// with [`map_machine_response`]. Anything that is not exactly one of these shapes rejects.
pub fn parse_machine_response(input: &[u8], limits: &JsonLimits) -> MachineAnswer {
    match read_response(input, limits) {
        Some(ReadResponse::Selected(option)) => {
            map_machine_response(MachineResponse::Selected(&option))
        }
        Some(ReadResponse::Cancelled) => map_machine_response(MachineResponse::Cancelled),
        None => MachineAnswer::Reply(Reply::Reject),
    }
}

impl MachineAnswer {
    /// The event that feeds this answer to the request's
    /// [`ApprovalMachine`](super::ApprovalMachine).
    pub fn event(self) -> Event {
        match self {
            MachineAnswer::Reply(reply) => Event::Answer(reply),
            MachineAnswer::Cancel => Event::Cancel,
        }
    }
}

enum ReadResponse {
    Selected(String),
    Cancelled,
}

fn read_response(input: &[u8], limits: &JsonLimits) -> Option<ReadResponse> {
    let value = parse(input, limits).ok()?;
    let outer = value.as_object()?;
    if outer.len() != 1 {
        return None;
    }
    let inner = outer.get("outcome").and_then(Value::as_object)?;
    match inner.get("outcome").and_then(Value::as_str)? {
        "cancelled" if inner.len() == 1 => Some(ReadResponse::Cancelled),
        "selected" if inner.len() == 2 => inner
            .get("optionId")
            .and_then(Value::as_str)
            .map(|option| ReadResponse::Selected(option.to_owned())),
        _ => None,
    }
}
