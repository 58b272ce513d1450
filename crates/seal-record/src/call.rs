//! The sealed tool call: a tool name and its arguments frozen as canonical JSON bytes.

use seal_parse::json::{parse, parse_lossless, Canonical, JsonLimits, MemberError, Value};

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
/// Arguments seal's own code builds or that follow the strict canonical profile are frozen as
/// strict canonical JSON ([`SealedCall::from_json_arguments`]). Arguments a foreign client sent
/// (a Claude Code or Codex tool call) are read with the lossless profile
/// ([`SealedCall::from_foreign_json_arguments`]) and frozen exactly as sent: a number keeps its
/// literal text (`12345678901234567000` is not rounded) and a lone surrogate stays `\udxxx`, so
/// the bytes, the digest and what the approval card shows are the client's values, and two
/// calls that differ in one digit of a big integer have different digests.
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
    /// (1 to 256 bytes of printable ASCII without space). The frozen bytes are the value's
    /// canonical bytes: the lossless form when it holds a number literal or an ill-formed string
    /// (spec/canonical-json.md section 12.6), the strict form otherwise.
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

    /// Seals a call from the raw argument JSON of a foreign client, parsed under the lossless
    /// profile (spec/canonical-json.md section 12): numbers keep their literal text and lone
    /// surrogate escapes are kept, so nothing the client sent is rounded or repaired; duplicate
    /// keys (and lone surrogates in keys) are still rejected. A string argument holding a lone
    /// surrogate is not text: the policy never reads it as a command, path or URL.
    ///
    /// ```
    /// use seal_parse::json::JsonLimits;
    /// use seal_record::SealedCall;
    ///
    /// let limits = JsonLimits::default();
    /// let a = SealedCall::from_foreign_json_arguments("c1", "mcp__x__y", br#"{"n":12345678901234567000}"#, &limits)?;
    /// let b = SealedCall::from_foreign_json_arguments("c1", "mcp__x__y", br#"{"n":12345678901234567001}"#, &limits)?;
    /// assert_eq!(a.arguments_bytes(), br#"{"n":12345678901234567000}"#);
    /// assert_ne!(a.arguments_sha256(), b.arguments_sha256());
    /// # Ok::<(), seal_record::RecordError>(())
    /// ```
    pub fn from_foreign_json_arguments(
        call_id: &str,
        tool: &str,
        arguments: &[u8],
        limits: &JsonLimits,
    ) -> Result<SealedCall, RecordError> {
        let value = parse_lossless(arguments, limits).map_err(RecordError::Arguments)?;
        SealedCall::new(call_id, tool, &value)
    }

    /// Reads a stored sealed-call record strictly: no unknown member, `_type` equal to
    /// `seal/call/v1`, identifiers re-checked, and `arguments_sha256` equal to the SHA-256 of the
    /// arguments' canonical bytes.
    pub fn from_json(input: &[u8], limits: &JsonLimits) -> Result<SealedCall, RecordError> {
        let value = read::open(input, limits, CALL_TYPE, &FIELDS)?;
        SealedCall::from_record(&value)
    }

    /// Reads a stored sealed-call record of a foreign call (one sealed with
    /// [`SealedCall::from_foreign_json_arguments`]) under the lossless profile, with the checks
    /// of [`SealedCall::from_json`]. Records of strict calls read the same way, since their
    /// canonical bytes mean the same under both profiles.
    pub fn from_foreign_json(input: &[u8], limits: &JsonLimits) -> Result<SealedCall, RecordError> {
        let value = read::open_lossless(input, limits, CALL_TYPE, &FIELDS)?;
        SealedCall::from_record(&value)
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

    fn from_record(value: &Value<'_>) -> Result<SealedCall, RecordError> {
        let object = value.as_object().ok_or(RecordError::NotAnObject)?;
        let arguments =
            object
                .get("arguments")
                .ok_or(RecordError::Member(MemberError::MissingField {
                    field: "arguments",
                }))?;
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
}

impl Record for SealedCall {
    fn record_type(&self) -> &'static str {
        CALL_TYPE
    }

    fn canonical(&self) -> Canonical {
        Canonical::of(&self.to_value())
    }
}
