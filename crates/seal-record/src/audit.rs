//! The approval audit pair: `approval/asked` then `approval/decided`. Neither carries the tool
//! arguments.

use std::fmt;

use seal_parse::json::{Canonical, JsonLimits, Value};

use crate::call::SealedCall;
use crate::json_form::object;
use crate::read;
use crate::record::{identifier, reason_text, Record, RecordError, TYPE_FIELD};

const ASKED_FIELDS: [&str; 5] = [TYPE_FIELD, "call_id", "id", "reason", "tool"];
const DECIDED_FIELDS: [&str; 3] = [TYPE_FIELD, "id", "outcome"];

/// `_type` of an approval request event.
pub const APPROVAL_ASKED_TYPE: &str = "approval/asked";

/// `_type` of an approval decision event.
pub const APPROVAL_DECIDED_TYPE: &str = "approval/decided";

/// An approval was asked for: `{"_type":"approval/asked","id":..,"tool":..,"call_id"?:..,
/// "reason"?:..}`. Absent optional members are omitted, never `null`. There is no member for
/// arguments: the type cannot carry them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalAsked {
    id: String,
    tool: String,
    call_id: Option<String>,
    reason: Option<String>,
}

/// An approval was settled: `{"_type":"approval/decided","id":..,"outcome":..}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalDecided {
    id: String,
    outcome: Outcome,
}

/// The closed set of approval outcomes. Only [`Outcome::AllowedOnce`] lets the call proceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `allowed-once`: this one call may proceed.
    AllowedOnce,
    /// `rejected`: the approver said no.
    Rejected,
    /// `cancelled`: the request was cancelled before an answer.
    Cancelled,
    /// `unavailable`: no approval service, session or open turn could answer.
    Unavailable,
}

/// A text that is not one of the four outcome names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownOutcome {
    /// The text given.
    pub text: String,
}

impl ApprovalAsked {
    /// An approval request. `id`, `tool` and `call_id` are identifiers; `reason` is text of at
    /// most [`MAX_REASON_CHARS`](crate::MAX_REASON_CHARS) scalar values without control, bidi or
    /// invisible characters.
    pub fn new(
        id: &str,
        tool: &str,
        call_id: Option<&str>,
        reason: Option<&str>,
    ) -> Result<ApprovalAsked, RecordError> {
        Ok(ApprovalAsked {
            id: identifier("id", id)?,
            tool: identifier("tool", tool)?,
            call_id: call_id.map(|c| identifier("call_id", c)).transpose()?,
            reason: reason.map(|r| reason_text("reason", r)).transpose()?,
        })
    }

    /// Reads a stored `approval/asked` record strictly: no member besides `_type`, `id`, `tool`,
    /// `call_id` and `reason` (so a stored request carrying arguments is refused), and every
    /// rule of [`ApprovalAsked::new`] re-checked.
    pub fn from_json(input: &[u8], limits: &JsonLimits) -> Result<ApprovalAsked, RecordError> {
        let value = read::open(input, limits, APPROVAL_ASKED_TYPE, &ASKED_FIELDS)?;
        let object = value.as_object().ok_or(RecordError::NotAnObject)?;
        ApprovalAsked::new(
            read::string(object, "id")?,
            read::string(object, "tool")?,
            read::optional_string(object, "call_id")?,
            read::optional_string(object, "reason")?,
        )
    }

    /// The request for a sealed call: its tool and call id, never its arguments.
    pub fn for_call(
        id: &str,
        call: &SealedCall,
        reason: Option<&str>,
    ) -> Result<ApprovalAsked, RecordError> {
        ApprovalAsked::new(id, call.tool(), Some(call.call_id()), reason)
    }

    /// The approval id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The call id, if known.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The reason shown to the approver, if any.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The JSON form.
    pub fn to_value(&self) -> Value<'_> {
        let mut members = vec![
            (TYPE_FIELD, Value::from(APPROVAL_ASKED_TYPE)),
            ("id", Value::from(self.id.as_str())),
            ("tool", Value::from(self.tool.as_str())),
        ];
        if let Some(call_id) = &self.call_id {
            members.push(("call_id", Value::from(call_id.as_str())));
        }
        if let Some(reason) = &self.reason {
            members.push(("reason", Value::from(reason.as_str())));
        }
        object(members)
    }
}

impl ApprovalDecided {
    /// The decision for approval `id` (an identifier).
    pub fn new(id: &str, outcome: Outcome) -> Result<ApprovalDecided, RecordError> {
        Ok(ApprovalDecided {
            id: identifier("id", id)?,
            outcome,
        })
    }

    /// Reads a stored `approval/decided` record strictly: no member besides `_type`, `id` and
    /// `outcome`, and an outcome from the closed set, spelled exactly.
    pub fn from_json(input: &[u8], limits: &JsonLimits) -> Result<ApprovalDecided, RecordError> {
        let value = read::open(input, limits, APPROVAL_DECIDED_TYPE, &DECIDED_FIELDS)?;
        let object = value.as_object().ok_or(RecordError::NotAnObject)?;
        let outcome = read::string(object, "outcome")?;
        let outcome = Outcome::from_name(outcome)
            .map_err(|unknown| RecordError::UnknownOutcome { text: unknown.text })?;
        ApprovalDecided::new(read::string(object, "id")?, outcome)
    }

    /// The approval id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The outcome.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The JSON form.
    pub fn to_value(&self) -> Value<'_> {
        object(vec![
            (TYPE_FIELD, Value::from(APPROVAL_DECIDED_TYPE)),
            ("id", Value::from(self.id.as_str())),
            ("outcome", Value::from(self.outcome.as_str())),
        ])
    }
}

impl Outcome {
    /// All outcomes.
    pub const ALL: [Outcome; 4] = [
        Outcome::AllowedOnce,
        Outcome::Rejected,
        Outcome::Cancelled,
        Outcome::Unavailable,
    ];

    /// The wire name: `allowed-once`, `rejected`, `cancelled` or `unavailable`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::AllowedOnce => "allowed-once",
            Outcome::Rejected => "rejected",
            Outcome::Cancelled => "cancelled",
            Outcome::Unavailable => "unavailable",
        }
    }

    /// Parses a wire name exactly (no case folding, no trimming).
    pub fn from_name(text: &str) -> Result<Outcome, UnknownOutcome> {
        Outcome::ALL
            .into_iter()
            .find(|outcome| outcome.as_str() == text)
            .ok_or_else(|| UnknownOutcome {
                text: text.to_owned(),
            })
    }

    /// True only for [`Outcome::AllowedOnce`].
    pub fn proceeds(self) -> bool {
        self == Outcome::AllowedOnce
    }
}

impl Record for ApprovalAsked {
    fn record_type(&self) -> &'static str {
        APPROVAL_ASKED_TYPE
    }

    fn canonical(&self) -> Canonical {
        Canonical::of(&self.to_value())
    }
}

impl Record for ApprovalDecided {
    fn record_type(&self) -> &'static str {
        APPROVAL_DECIDED_TYPE
    }

    fn canonical(&self) -> Canonical {
        Canonical::of(&self.to_value())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for UnknownOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown approval outcome `{}`", self.text.escape_debug())
    }
}

impl std::error::Error for UnknownOutcome {}
