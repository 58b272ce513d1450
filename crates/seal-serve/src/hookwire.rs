//! The hook socket's line protocol (spec/approval-server.md, "The hook socket protocol"): one
//! JSON object per line, read strictly (unknown members, duplicate keys and members of the
//! wrong type refuse the line), written with its members in the order the spec lists them.

use std::fmt;

use seal_parse::json::{parse, FieldError, Fields, JsonLimits, Value};
use seal_record::{Outcome, Sha256Digest};

/// The longest line either side writes or reads, newline excluded.
pub const MAX_HOOK_LINE_BYTES: usize = 262_144;

/// The deepest nesting a line may have (the assertion object is the deepest member).
const MAX_LINE_DEPTH: usize = 4;

/// What a waiting hook registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    /// The client's session id.
    pub session_id: String,
    /// The agent id (`claude-code`, `codex`).
    pub agent: String,
    /// The approval id the hook chose for this call.
    pub approval_id: String,
    /// The tool's name.
    pub tool: String,
    /// The client's call id, when it gave one.
    pub call_id: Option<String>,
    /// Why seal asks (the policy's reason, raw).
    pub reason: String,
    /// The call's arguments as JSON text (the server derives the card's command from them).
    pub arguments: String,
    /// SHA-256 of the call's canonical arguments, computed by the hook.
    pub arguments_digest: Sha256Digest,
    /// The ASCII card the hook rendered.
    pub card: String,
    /// When the hook gives up, Unix milliseconds.
    pub deadline_ms: u64,
    /// 32 random bytes the hook chose: part of the WebAuthn challenge it checks.
    pub nonce: [u8; 32],
}

/// A line a hook writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookLine {
    /// Register a pending call and wait for it to settle.
    Ask(Box<Ask>),
    /// Spend an `allowed-once` for the call with this digest.
    Consume {
        /// The entry.
        rpc_id: u64,
        /// The digest of the call about to run.
        arguments_digest: Sha256Digest,
    },
    /// The person answered at the client's own prompt: cancel the oldest pending entry of the
    /// session with this tool and digest.
    Elsewhere {
        /// The session.
        session_id: String,
        /// The tool.
        tool: String,
        /// The call's digest.
        arguments_digest: Sha256Digest,
    },
    /// Ask the running server for a fresh pairing secret (`seal serve pair`).
    Pair,
}

/// A WebAuthn assertion as it travels: each part base64url without padding, decoded by the
/// verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireAssertion {
    /// The credential id.
    pub credential_id: String,
    /// The client data JSON.
    pub client_data_json: String,
    /// The authenticator data.
    pub authenticator_data: String,
    /// The signature.
    pub signature: String,
}

/// A line the server writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerLine {
    /// The ask is in the book under this rpc id.
    Registered {
        /// The stable rpc id.
        rpc_id: u64,
        /// The same approval was registered before (a hook that reconnected).
        again: bool,
        /// How many approvers are enrolled.
        approvers: u64,
    },
    /// The line was refused; the server closes the connection.
    Refused {
        /// The refusal's wire name.
        reason: String,
        /// A sentence for the operator.
        message: String,
    },
    /// The entry settled.
    Settled {
        /// The outcome.
        outcome: Outcome,
        /// The settle cause's wire name.
        cause: String,
        /// The assertion that came with an allow.
        assertion: Option<WireAssertion>,
    },
    /// The allow was spent for this call.
    Consumed,
    /// The entries cancelled as answered elsewhere.
    Cancelled(Vec<u64>),
    /// A fresh pairing address.
    Pairing {
        /// `ORIGIN/#pair=SECRET` (`http://localhost:PORT`, or `https://HOST[:PORT]` over TLS).
        url: String,
    },
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Longer than [`MAX_HOOK_LINE_BYTES`].
    TooLong,
    /// Not strict JSON.
    Json(String),
    /// A member missing, unknown, or of the wrong type.
    Member(String),
    /// The `op` (or the answer's only member) is not one of the protocol's.
    UnknownKind(String),
    /// A member's value is out of its range (a digest, a nonce, an outcome, an rpc id).
    Value {
        /// The member.
        member: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong => write!(f, "line longer than {MAX_HOOK_LINE_BYTES} bytes"),
            LineError::Json(error) => write!(f, "invalid json: {error}"),
            LineError::Member(error) => f.write_str(error),
            LineError::UnknownKind(kind) => write!(f, "unknown line kind `{kind}`"),
            LineError::Value { member, expected } => write!(f, "`{member}` must be {expected}"),
        }
    }
}

impl std::error::Error for LineError {}

impl From<FieldError> for LineError {
    fn from(error: FieldError) -> LineError {
        LineError::Member(error.to_string())
    }
}

fn limits() -> JsonLimits {
    let mut limits = JsonLimits::DEFAULT;
    limits.max_bytes = MAX_HOOK_LINE_BYTES;
    limits.max_depth = MAX_LINE_DEPTH;
    limits
}

fn value_of(line: &[u8]) -> Result<Value<'_>, LineError> {
    if line.len() > MAX_HOOK_LINE_BYTES {
        return Err(LineError::TooLong);
    }
    parse(line, &limits()).map_err(|error| LineError::Json(error.to_string()))
}

fn digest(fields: &mut Fields<'_, '_>, member: &'static str) -> Result<Sha256Digest, LineError> {
    Sha256Digest::from_hex(fields.string(member)?).map_err(|_| LineError::Value {
        member,
        expected: "64 lowercase hex digits",
    })
}

fn rpc_id(fields: &mut Fields<'_, '_>) -> Result<u64, LineError> {
    match fields.integer("rpc_id")? {
        0 => Err(LineError::Value {
            member: "rpc_id",
            expected: "a positive integer",
        }),
        id => Ok(id),
    }
}

const ASK: [&str; 12] = [
    "op",
    "session_id",
    "agent",
    "approval_id",
    "tool",
    "call_id",
    "reason",
    "arguments",
    "arguments_digest",
    "card",
    "deadline_ms",
    "nonce",
];

impl HookLine {
    /// Reads one line (without its newline).
    pub fn parse(line: &[u8]) -> Result<HookLine, LineError> {
        let value = value_of(line)?;
        let mut fields = Fields::of(&value, "")?;
        let op = fields.string("op")?;
        match op {
            "ask" => {
                fields.only(&ASK)?;
                let session_id = fields.string("session_id")?.to_owned();
                let agent = fields.string("agent")?.to_owned();
                let approval_id = fields.string("approval_id")?.to_owned();
                let tool = fields.string("tool")?.to_owned();
                let call_id = match fields.value("call_id")? {
                    Value::Null => None,
                    _ => Some(fields.string("call_id")?.to_owned()),
                };
                let reason = fields.string("reason")?.to_owned();
                let arguments = fields.string("arguments")?.to_owned();
                let arguments_digest = digest(&mut fields, "arguments_digest")?;
                let card = fields.string("card")?.to_owned();
                let deadline_ms = fields.integer("deadline_ms")?;
                let nonce = nonce(fields.string("nonce")?)?;
                fields.finish()?;
                Ok(HookLine::Ask(Box::new(Ask {
                    session_id,
                    agent,
                    approval_id,
                    tool,
                    call_id,
                    reason,
                    arguments,
                    arguments_digest,
                    card,
                    deadline_ms,
                    nonce,
                })))
            }
            "consume" => {
                fields.only(&["op", "rpc_id", "arguments_digest"])?;
                let rpc_id = rpc_id(&mut fields)?;
                let arguments_digest = digest(&mut fields, "arguments_digest")?;
                fields.finish()?;
                Ok(HookLine::Consume {
                    rpc_id,
                    arguments_digest,
                })
            }
            "elsewhere" => {
                fields.only(&["op", "session_id", "tool", "arguments_digest"])?;
                let session_id = fields.string("session_id")?.to_owned();
                let tool = fields.string("tool")?.to_owned();
                let arguments_digest = digest(&mut fields, "arguments_digest")?;
                fields.finish()?;
                Ok(HookLine::Elsewhere {
                    session_id,
                    tool,
                    arguments_digest,
                })
            }
            "pair" => {
                fields.only(&["op"])?;
                fields.finish()?;
                Ok(HookLine::Pair)
            }
            other => Err(LineError::UnknownKind(other.to_owned())),
        }
    }

    /// The line's text, without its newline.
    pub fn to_line(&self) -> String {
        let mut out = Line::new();
        match self {
            HookLine::Ask(ask) => {
                out.str("op", "ask");
                out.str("session_id", &ask.session_id);
                out.str("agent", &ask.agent);
                out.str("approval_id", &ask.approval_id);
                out.str("tool", &ask.tool);
                match &ask.call_id {
                    Some(call_id) => out.str("call_id", call_id),
                    None => out.raw("call_id", "null"),
                }
                out.str("reason", &ask.reason);
                out.str("arguments", &ask.arguments);
                out.str("arguments_digest", &ask.arguments_digest.to_hex());
                out.str("card", &ask.card);
                out.raw("deadline_ms", &ask.deadline_ms.to_string());
                out.str("nonce", &hex::encode(ask.nonce));
            }
            HookLine::Consume {
                rpc_id,
                arguments_digest,
            } => {
                out.str("op", "consume");
                out.raw("rpc_id", &rpc_id.to_string());
                out.str("arguments_digest", &arguments_digest.to_hex());
            }
            HookLine::Elsewhere {
                session_id,
                tool,
                arguments_digest,
            } => {
                out.str("op", "elsewhere");
                out.str("session_id", session_id);
                out.str("tool", tool);
                out.str("arguments_digest", &arguments_digest.to_hex());
            }
            HookLine::Pair => out.str("op", "pair"),
        }
        out.finish()
    }
}

fn nonce(text: &str) -> Result<[u8; 32], LineError> {
    let wrong = LineError::Value {
        member: "nonce",
        expected: "64 lowercase hex digits",
    };
    if text.len() != 64 || text.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(wrong);
    }
    let mut nonce = [0u8; 32];
    hex::decode_to_slice(text, &mut nonce).map_err(|_| wrong)?;
    Ok(nonce)
}

const ASSERTION: [&str; 4] = [
    "credential_id",
    "client_data_json",
    "authenticator_data",
    "signature",
];

impl WireAssertion {
    /// Reads an assertion object (each part a base64url string; decoding is the verifier's).
    pub fn from_fields(mut fields: Fields<'_, '_>) -> Result<WireAssertion, LineError> {
        fields.only(&ASSERTION)?;
        let assertion = WireAssertion {
            credential_id: fields.string("credential_id")?.to_owned(),
            client_data_json: fields.string("client_data_json")?.to_owned(),
            authenticator_data: fields.string("authenticator_data")?.to_owned(),
            signature: fields.string("signature")?.to_owned(),
        };
        fields.finish()?;
        Ok(assertion)
    }

    /// The assertion as a JSON object.
    pub fn to_json(&self) -> String {
        let mut out = Line::new();
        out.str("credential_id", &self.credential_id);
        out.str("client_data_json", &self.client_data_json);
        out.str("authenticator_data", &self.authenticator_data);
        out.str("signature", &self.signature);
        out.finish()
    }
}

impl ServerLine {
    /// Reads one line (without its newline).
    pub fn parse(line: &[u8]) -> Result<ServerLine, LineError> {
        let value = value_of(line)?;
        let Value::Object(object) = &value else {
            return Err(LineError::Member("a line is a json object".to_owned()));
        };
        let mut members = object.iter();
        let (Some((kind, _)), None) = (members.next(), members.next()) else {
            return Err(LineError::Member(
                "an answer line has exactly one member".to_owned(),
            ));
        };
        let kind = kind.to_string();
        let mut outer = Fields::of(&value, "")?;
        match kind.as_str() {
            "registered" => {
                let mut fields = outer.nested("registered")?;
                fields.only(&["rpc_id", "again", "approvers"])?;
                let rpc_id = rpc_id(&mut fields)?;
                let again = fields.bool("again")?;
                let approvers = fields.integer("approvers")?;
                fields.finish()?;
                Ok(ServerLine::Registered {
                    rpc_id,
                    again,
                    approvers,
                })
            }
            "refused" => {
                let mut fields = outer.nested("refused")?;
                fields.only(&["reason", "message"])?;
                let reason = fields.string("reason")?.to_owned();
                let message = fields.string("message")?.to_owned();
                fields.finish()?;
                Ok(ServerLine::Refused { reason, message })
            }
            "settled" => {
                let mut fields = outer.nested("settled")?;
                fields.only(&["outcome", "cause", "assertion"])?;
                let outcome = Outcome::from_name(fields.string("outcome")?).map_err(|_| {
                    LineError::Value {
                        member: "outcome",
                        expected: "an approval outcome",
                    }
                })?;
                let cause = fields.string("cause")?.to_owned();
                let assertion = match fields.value("assertion")? {
                    Value::Null => None,
                    _ => Some(WireAssertion::from_fields(fields.nested("assertion")?)?),
                };
                fields.finish()?;
                Ok(ServerLine::Settled {
                    outcome,
                    cause,
                    assertion,
                })
            }
            "consumed" => match outer.value("consumed")? {
                Value::Bool(true) => Ok(ServerLine::Consumed),
                _ => Err(LineError::Value {
                    member: "consumed",
                    expected: "true",
                }),
            },
            "cancelled" => {
                let items = outer.array("cancelled", MAX_CANCELLED)?;
                let mut ids = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::Number(number) => match number.as_i64() {
                            Some(id) if id > 0 => ids.push(id.unsigned_abs()),
                            _ => {
                                return Err(LineError::Value {
                                    member: "cancelled",
                                    expected: "positive rpc ids",
                                })
                            }
                        },
                        _ => {
                            return Err(LineError::Value {
                                member: "cancelled",
                                expected: "positive rpc ids",
                            })
                        }
                    }
                }
                Ok(ServerLine::Cancelled(ids))
            }
            "pairing" => {
                let mut fields = outer.nested("pairing")?;
                fields.only(&["url"])?;
                let url = fields.string("url")?.to_owned();
                fields.finish()?;
                Ok(ServerLine::Pairing { url })
            }
            other => Err(LineError::UnknownKind(other.to_owned())),
        }
    }

    /// The line's text, without its newline.
    pub fn to_line(&self) -> String {
        let mut inner = Line::new();
        let kind = match self {
            ServerLine::Registered {
                rpc_id,
                again,
                approvers,
            } => {
                inner.raw("rpc_id", &rpc_id.to_string());
                inner.raw("again", if *again { "true" } else { "false" });
                inner.raw("approvers", &approvers.to_string());
                "registered"
            }
            ServerLine::Refused { reason, message } => {
                inner.str("reason", reason);
                inner.str("message", message);
                "refused"
            }
            ServerLine::Settled {
                outcome,
                cause,
                assertion,
            } => {
                inner.str("outcome", outcome.as_str());
                inner.str("cause", cause);
                match assertion {
                    Some(assertion) => inner.raw("assertion", &assertion.to_json()),
                    None => inner.raw("assertion", "null"),
                }
                "settled"
            }
            ServerLine::Consumed => return "{\"consumed\":true}".to_owned(),
            ServerLine::Cancelled(ids) => {
                let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
                return format!("{{\"cancelled\":[{}]}}", ids.join(","));
            }
            ServerLine::Pairing { url } => {
                inner.str("url", url);
                "pairing"
            }
        };
        let mut out = Line::new();
        out.raw(kind, &inner.finish());
        out.finish()
    }
}

/// Most rpc ids one `cancelled` answer lists.
const MAX_CANCELLED: usize = 1024;

/// A JSON object written member by member.
struct Line {
    text: String,
}

impl Line {
    fn new() -> Line {
        Line {
            text: String::from("{"),
        }
    }

    fn raw(&mut self, name: &str, json: &str) {
        if self.text.len() > 1 {
            self.text.push(',');
        }
        self.text.push_str(&quoted(name));
        self.text.push(':');
        self.text.push_str(json);
    }

    fn str(&mut self, name: &str, value: &str) {
        self.raw(name, &quoted(value));
    }

    fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// A JSON string literal (serde_json's escaping: control characters as `\u00XX`, the rest of
/// Unicode as itself).
fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
