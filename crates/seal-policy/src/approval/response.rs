//! Strict reading of a client's approval response:
//! `{"approval_id":..,"outcome":"allowed-once"|"rejected","rpc_id":..,"session_id":..}`.

use std::fmt;

use seal_parse::json::{
    parse, FieldError, FieldErrorKind, Fields, JsonError, JsonLimits, MemberError,
};
use seal_record::Outcome;

use super::answerer::Reply;
use super::registry::RpcId;

const FIELDS: [&str; 4] = ["approval_id", "outcome", "rpc_id", "session_id"];

/// A response as read from the wire, before it is matched against a pending request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireResponse {
    /// The rpc id echoed by the client.
    pub rpc_id: RpcId,
    /// The session id echoed by the client.
    pub session_id: String,
    /// The approval id echoed by the client.
    pub approval_id: String,
    /// The client's reply: only `allowed-once` or `rejected`.
    pub reply: Reply,
}

/// Why a response is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MalformedResponse {
    /// Not canonical-profile JSON (strict `seal_parse::json`).
    Json(JsonError),
    /// Not a JSON object.
    NotAnObject,
    /// A member other than `rpc_id`, `session_id`, `approval_id` and `outcome`, a required
    /// member absent, or a member of the wrong JSON type or range.
    Member(MemberError),
    /// `outcome` is not an outcome name.
    UnknownOutcome {
        /// The text given.
        text: String,
    },
    /// `outcome` is `cancelled` or `unavailable`, which only the host may settle.
    HostOwnedOutcome {
        /// The outcome given.
        outcome: Outcome,
    },
}

impl WireResponse {
    /// Reads a response strictly: one JSON object with exactly the four members, `rpc_id` a
    /// positive integer up to 2^53, the ids strings, `outcome` exactly `allowed-once` or
    /// `rejected`.
    pub fn from_json(input: &[u8], limits: &JsonLimits) -> Result<WireResponse, MalformedResponse> {
        let value = parse(input, limits).map_err(MalformedResponse::Json)?;
        let mut fields = Fields::of(&value, "")?;
        fields.only(&FIELDS)?;
        let rpc_id = rpc_id(&mut fields)?;
        let session_id = fields.string("session_id")?.to_owned();
        let approval_id = fields.string("approval_id")?.to_owned();
        let outcome = fields.string("outcome")?;
        let reply = match Outcome::from_name(outcome) {
            Ok(Outcome::AllowedOnce) => Reply::AllowOnce,
            Ok(Outcome::Rejected) => Reply::Reject,
            Ok(outcome @ (Outcome::Cancelled | Outcome::Unavailable)) => {
                return Err(MalformedResponse::HostOwnedOutcome { outcome })
            }
            Err(unknown) => return Err(MalformedResponse::UnknownOutcome { text: unknown.text }),
        };
        Ok(WireResponse {
            rpc_id,
            session_id,
            approval_id,
            reply,
        })
    }
}

impl fmt::Display for MalformedResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedResponse::Json(error) => write!(f, "invalid json: {error}"),
            MalformedResponse::NotAnObject => f.write_str("response is not a json object"),
            MalformedResponse::Member(error) => error.fmt(f),
            MalformedResponse::UnknownOutcome { text } => {
                write!(f, "unknown approval outcome `{}`", text.escape_debug())
            }
            MalformedResponse::HostOwnedOutcome { outcome } => {
                write!(
                    f,
                    "outcome `{outcome}` is settled by the host, not by a client"
                )
            }
        }
    }
}

impl std::error::Error for MalformedResponse {}

impl From<FieldError> for MalformedResponse {
    fn from(error: FieldError) -> MalformedResponse {
        MemberError::of(error).map_or(MalformedResponse::NotAnObject, MalformedResponse::Member)
    }
}

/// `rpc_id`: an integer from 1 to 2^53.
fn rpc_id(fields: &mut Fields<'_, '_>) -> Result<RpcId, MalformedResponse> {
    let wrong = MalformedResponse::Member(MemberError::WrongType {
        field: "rpc_id",
        expected: "a positive integer",
    });
    match fields.integer("rpc_id") {
        Ok(0)
        | Err(FieldError {
            kind: FieldErrorKind::WrongType { .. } | FieldErrorKind::NotAnInteger { .. },
            ..
        }) => Err(wrong),
        Ok(value) => Ok(RpcId(value)),
        Err(error) => Err(error.into()),
    }
}
