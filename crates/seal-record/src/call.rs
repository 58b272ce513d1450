//! The sealed tool call: a tool name and its arguments frozen as canonical JSON bytes.

use seal_parse::json::{parse, Canonical, JsonLimits, Value};

use crate::digest::Sha256Digest;
use crate::json_form::object;
use crate::read;
use crate::record::{identifier, Record, RecordError, TYPE_FIELD};

const FIELDS: [&str; 5] = [
    TYPE_FIELD,
    "arguments",
    "arguments_sha256",
    "call_id",
    "tool",
];

/// `_type` of a sealed call.
pub const CALL_TYPE: &str = "seal/call/v1";

/// A tool call whose arguments are frozen: their canonical bytes and digest are fixed when the
/// call is sealed, and every later stage (policy, approval card, dispatch, audit) sees the same
/// bytes.
///
/// JSON form: `{"_type":"seal/call/v1","arguments":<arguments>,"arguments_sha256":<hex>,
/// "call_id":<id>,"tool":<name>}` (canonical member order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedCall {
    call_id: String,
    tool: String,
    arguments: Value<'static>,
    frozen: Canonical,
}

impl SealedCall {
    /// Seals a call from an already parsed arguments value. `call_id` and `tool` are identifiers
    /// (1 to 256 bytes of printable ASCII without space).
    pub fn new(
        call_id: &str,
        tool: &str,
        arguments: &Value<'_>,
    ) -> Result<SealedCall, RecordError> {
        let call_id = identifier("call_id", call_id)?;
        let tool = identifier("tool", tool)?;
        let arguments = arguments.clone().into_owned();
        let frozen = Canonical::of(&arguments);
        Ok(SealedCall {
            call_id,
            tool,
            arguments,
            frozen,
        })
    }

    /// Seals a call from raw argument JSON, parsed under the canonical profile (duplicate keys,
    /// lone surrogates and inexact numbers are rejected, never silently changed).
    pub fn from_json_arguments(
        call_id: &str,
        tool: &str,
        arguments: &[u8],
        limits: &JsonLimits,
    ) -> Result<SealedCall, RecordError> {
        let value = parse(arguments, limits).map_err(RecordError::Arguments)?;
        SealedCall::new(call_id, tool, &value)
    }

    /// Reads a stored sealed-call record strictly: no unknown member, `_type` equal to
    /// `seal/call/v1`, identifiers re-checked, and `arguments_sha256` equal to the SHA-256 of the
    /// arguments' canonical bytes.
    pub fn from_json(input: &[u8], limits: &JsonLimits) -> Result<SealedCall, RecordError> {
        let value = read::open(input, limits, CALL_TYPE, &FIELDS)?;
        let object = value.as_object().ok_or(RecordError::NotAnObject)?;
        let arguments = object
            .get("arguments")
            .ok_or(RecordError::MissingField { field: "arguments" })?;
        let stored = read::digest(object, "arguments_sha256")?;
        let call = SealedCall::new(
            read::string(object, "call_id")?,
            read::string(object, "tool")?,
            arguments,
        )?;
        if call.arguments_sha256() != stored {
            return Err(RecordError::ArgumentsDigestMismatch);
        }
        Ok(call)
    }

    /// The call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments as a value.
    pub fn arguments(&self) -> &Value<'static> {
        &self.arguments
    }

    /// The frozen canonical bytes of the arguments.
    pub fn arguments_bytes(&self) -> &[u8] {
        self.frozen.as_bytes()
    }

    /// SHA-256 of [`SealedCall::arguments_bytes`].
    pub fn arguments_sha256(&self) -> Sha256Digest {
        Sha256Digest::from_bytes(self.frozen.sha256())
    }

    /// The JSON form.
    pub fn to_value(&self) -> Value<'_> {
        object(vec![
            (TYPE_FIELD, Value::from(CALL_TYPE)),
            ("call_id", Value::from(self.call_id.as_str())),
            ("tool", Value::from(self.tool.as_str())),
            ("arguments", self.arguments.clone()),
            (
                "arguments_sha256",
                Value::from(self.arguments_sha256().to_hex()),
            ),
        ])
    }
}

impl Record for SealedCall {
    fn record_type(&self) -> &'static str {
        CALL_TYPE
    }

    fn canonical(&self) -> Canonical {
        Canonical::of(&self.to_value())
    }
}
