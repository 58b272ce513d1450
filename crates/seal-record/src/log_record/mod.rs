//! Entries of the decision and disclosure log (spec/audit-log.md, "Entries"): one closed set of
//! event types, each a canonical-profile JSON object with its position `seq` and the local time
//! it claims, `time`.
//!
//! An entry holds names and digests only: no secret, no tool argument, no message body. Every
//! text member is stored as its escape-v1 inline form (printable ASCII), bounded to
//! [`MAX_LOG_TEXT_BYTES`] with an explicit elision marker, so no reader can be steered by a
//! control, bidi or invisible character in a recorded name.

mod json;

use std::fmt;

use seal_parse::json::{compare_keys, parse, JsonLimits, Value};
use seal_render::Escaped;

use json::{integer, read_integer, read_member, write_member, write_text, Piece};

use crate::digest::Sha256Digest;
use crate::record::TYPE_FIELD;

/// The largest entry, in canonical bytes: what a C2SP tiles entry bundle can carry.
pub const MAX_LOG_RECORD_BYTES: usize = 65_535;

/// The longest text member, in escaped bytes (before the elision marker).
pub const MAX_LOG_TEXT_BYTES: usize = 512;

/// The most files a disclosure entry lists.
pub const MAX_LOG_FILES: usize = 64;

/// The largest `seq` and `time`: integers JSON carries exactly.
pub const MAX_LOG_INTEGER: u64 = (1 << 53) - 1;

/// The closed set of event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogEventType {
    /// `log/genesis`: the log's first entry, naming its origin and key.
    Genesis,
    /// `hook/decision`: a tool call decided by a hook.
    Decision,
    /// `approval/asked`: an approval was asked for.
    ApprovalAsked,
    /// `approval/decided`: an approval was settled.
    ApprovalDecided,
    /// `frame/alarm`: a frame in a message did not verify.
    FrameAlarm,
    /// `manifest/sealed`: a disclosure manifest was sealed.
    ManifestSealed,
    /// `manifest/approved`: a person approved a manifest.
    ManifestApproved,
    /// `manifest/verified`: a manifest was verified before spawn (what left the machine).
    ManifestVerified,
    /// `manifest/refused`: a manifest was refused before spawn.
    ManifestRefused,
}

/// The shape of a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Text,
    Digest,
    Choice(&'static [&'static str]),
    Flag,
    Files,
}

/// One member of an event type: its name, shape and whether it must be present.
struct Member {
    name: &'static str,
    shape: Shape,
    required: bool,
}

const fn req(name: &'static str, shape: Shape) -> Member {
    Member {
        name,
        shape,
        required: true,
    }
}

const fn opt(name: &'static str, shape: Shape) -> Member {
    Member {
        name,
        shape,
        required: false,
    }
}

/// The decisions a hook records.
pub const LOG_DECISIONS: &[&str] = &["allow", "ask", "defer", "deny"];

/// The approval outcomes.
const OUTCOMES: &[&str] = &["allowed-once", "cancelled", "rejected", "unavailable"];

use Shape::{Digest, Files, Flag, Text};

const GENESIS: &[Member] = &[req("origin", Text), req("key", Text)];
const DECISION: &[Member] = &[
    req("agent", Text),
    req("session", Text),
    req("tool", Text),
    opt("call_id", Text),
    req("decision", Shape::Choice(LOG_DECISIONS)),
    req("by", Text),
    req("policy", Digest),
    req("arguments", Digest),
    opt("shadow", Flag),
];
const APPROVAL_ASKED: &[Member] = &[
    req("approval", Text),
    opt("session", Text),
    req("tool", Text),
    opt("call_id", Text),
];
const APPROVAL_DECIDED: &[Member] = &[
    req("approval", Text),
    req("outcome", Shape::Choice(OUTCOMES)),
    opt("by", Text),
];
const FRAME_ALARM: &[Member] = &[
    req("conversation", Text),
    req("reason", Text),
    req("source", Text),
    opt("frame", Text),
    opt("key", Text),
];
const MANIFEST_SEALED: &[Member] = &[req("manifest", Digest)];
const MANIFEST_APPROVED: &[Member] = &[
    req("manifest", Digest),
    req("approval", Text),
    opt("approver", Text),
];
const MANIFEST_VERIFIED: &[Member] = &[
    req("manifest", Digest),
    req("payload", Digest),
    req("provider", Text),
    req("model", Text),
    opt("policy", Digest),
    opt("approval", Text),
    opt("files", Files),
];
const MANIFEST_REFUSED: &[Member] = &[
    opt("manifest", Digest),
    req("reason", Text),
    opt("approval", Text),
];

impl LogEventType {
    /// Every event type.
    pub const ALL: [LogEventType; 9] = [
        LogEventType::Genesis,
        LogEventType::Decision,
        LogEventType::ApprovalAsked,
        LogEventType::ApprovalDecided,
        LogEventType::FrameAlarm,
        LogEventType::ManifestSealed,
        LogEventType::ManifestApproved,
        LogEventType::ManifestVerified,
        LogEventType::ManifestRefused,
    ];

    /// The `_type` value.
    pub fn name(self) -> &'static str {
        match self {
            LogEventType::Genesis => "log/genesis",
            LogEventType::Decision => "hook/decision",
            LogEventType::ApprovalAsked => "approval/asked",
            LogEventType::ApprovalDecided => "approval/decided",
            LogEventType::FrameAlarm => "frame/alarm",
            LogEventType::ManifestSealed => "manifest/sealed",
            LogEventType::ManifestApproved => "manifest/approved",
            LogEventType::ManifestVerified => "manifest/verified",
            LogEventType::ManifestRefused => "manifest/refused",
        }
    }

    /// The type named `name`, exactly.
    pub fn from_name(name: &str) -> Option<LogEventType> {
        LogEventType::ALL.into_iter().find(|t| t.name() == name)
    }

    fn members(self) -> &'static [Member] {
        match self {
            LogEventType::Genesis => GENESIS,
            LogEventType::Decision => DECISION,
            LogEventType::ApprovalAsked => APPROVAL_ASKED,
            LogEventType::ApprovalDecided => APPROVAL_DECIDED,
            LogEventType::FrameAlarm => FRAME_ALARM,
            LogEventType::ManifestSealed => MANIFEST_SEALED,
            LogEventType::ManifestApproved => MANIFEST_APPROVED,
            LogEventType::ManifestVerified => MANIFEST_VERIFIED,
            LogEventType::ManifestRefused => MANIFEST_REFUSED,
        }
    }

    /// Whether the log should make this entry durable before answering (approvals and
    /// disclosures), rather than durable across a crash of the writing process only.
    pub fn synced(self) -> bool {
        !matches!(self, LogEventType::Decision | LogEventType::FrameAlarm)
    }
}

/// A file a disclosure sent: its path, line ranges and content digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentFile {
    /// The path, escaped.
    pub path: Escaped,
    /// The line ranges (`1-24,40-52`), escaped.
    pub lines: Escaped,
    /// The digest of the bytes sent.
    pub sha256: Sha256Digest,
}

/// A member's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogValue {
    /// Text, escaped (escape-v1 inline) and bounded.
    Text(Escaped),
    /// A SHA-256 digest (64 lowercase hex digits).
    Digest(Sha256Digest),
    /// One name of a closed set.
    Choice(&'static str),
    /// A flag, stored only when true.
    Flag,
    /// Files of a disclosure.
    Files(Vec<SentFile>),
}

/// An event: its type and members, each checked against the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEvent {
    kind: LogEventType,
    members: Vec<(&'static str, LogValue)>,
}

/// One log entry: its position, the local time it claims (Unix seconds; a claim, never used for
/// order) and its event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    seq: u64,
    time: u64,
    event: LogEvent,
}

/// Why an event or entry cannot be built or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogRecordError {
    /// The entry is not canonical-profile JSON, or not an object.
    Json(String),
    /// `_type` is missing or not one of the closed set.
    UnknownType(String),
    /// A member the type does not define.
    UnknownMember(String),
    /// A required member is missing.
    MissingMember(&'static str),
    /// A member has the wrong shape (text that is not printable ASCII or too long, a digest that
    /// is not 64 lowercase hex digits, a name outside its closed set, too many files...).
    BadMember(&'static str),
    /// `seq` or `time` is missing or not an integer up to [`MAX_LOG_INTEGER`].
    BadNumber(&'static str),
    /// The entry is larger than [`MAX_LOG_RECORD_BYTES`].
    TooLarge(usize),
}

impl fmt::Display for LogRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogRecordError::Json(error) => write!(f, "entry is not canonical JSON: {error}"),
            LogRecordError::UnknownType(name) => {
                write!(
                    f,
                    "entry type {} is not one of the log's types",
                    Escaped::within(name, 64)
                )
            }
            LogRecordError::UnknownMember(name) => {
                write!(
                    f,
                    "entry member {} is not defined for its type",
                    Escaped::within(name, 64)
                )
            }
            LogRecordError::MissingMember(name) => write!(f, "entry member {name} is missing"),
            LogRecordError::BadMember(name) => write!(f, "entry member {name} is malformed"),
            LogRecordError::BadNumber(name) => write!(
                f,
                "entry member {name} must be an integer from 0 to {MAX_LOG_INTEGER}"
            ),
            LogRecordError::TooLarge(bytes) => write!(
                f,
                "entry of {bytes} bytes is larger than {MAX_LOG_RECORD_BYTES}"
            ),
        }
    }
}

impl std::error::Error for LogRecordError {}

/// The stored form of a raw text member.
pub fn log_text(raw: &str) -> Escaped {
    Escaped::within(raw, MAX_LOG_TEXT_BYTES)
}

/// Whether `text` can be a stored text member: printable ASCII, no longer than a bounded escape
/// with its marker.
fn is_stored_text(text: &str) -> bool {
    text.len() <= MAX_LOG_TEXT_BYTES + 48 && text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

impl LogEvent {
    /// An event of `kind` with no member yet.
    pub fn new(kind: LogEventType) -> LogEvent {
        LogEvent {
            kind,
            members: Vec::new(),
        }
    }

    /// Sets member `name` to the stored form of the raw text `raw`.
    pub fn text(self, name: &'static str, raw: &str) -> Result<LogEvent, LogRecordError> {
        self.with(name, LogValue::Text(log_text(raw)))
    }

    /// Sets member `name` to a digest.
    pub fn digest(
        self,
        name: &'static str,
        digest: Sha256Digest,
    ) -> Result<LogEvent, LogRecordError> {
        self.with(name, LogValue::Digest(digest))
    }

    /// Sets member `name` to `choice`, which must be in the member's closed set.
    pub fn choice(self, name: &'static str, choice: &str) -> Result<LogEvent, LogRecordError> {
        let Some(Shape::Choice(set)) = self.shape(name) else {
            return Err(LogRecordError::UnknownMember(name.to_owned()));
        };
        let found = set.iter().find(|c| **c == choice);
        let found = found.ok_or(LogRecordError::BadMember(name))?;
        self.with(name, LogValue::Choice(found))
    }

    /// Sets the flag `name` (a flag is stored only when set).
    pub fn flag(self, name: &'static str) -> Result<LogEvent, LogRecordError> {
        self.with(name, LogValue::Flag)
    }

    /// Sets member `name` to a list of files.
    pub fn files(
        self,
        name: &'static str,
        files: Vec<SentFile>,
    ) -> Result<LogEvent, LogRecordError> {
        if files.len() > MAX_LOG_FILES {
            return Err(LogRecordError::BadMember(name));
        }
        self.with(name, LogValue::Files(files))
    }

    fn shape(&self, name: &str) -> Option<Shape> {
        self.kind
            .members()
            .iter()
            .find(|member| member.name == name)
            .map(|member| member.shape)
    }

    fn with(mut self, name: &'static str, value: LogValue) -> Result<LogEvent, LogRecordError> {
        let shape = self
            .shape(name)
            .ok_or_else(|| LogRecordError::UnknownMember(name.to_owned()))?;
        let fits = matches!(
            (shape, &value),
            (Shape::Text, LogValue::Text(_))
                | (Shape::Digest, LogValue::Digest(_))
                | (Shape::Choice(_), LogValue::Choice(_))
                | (Shape::Flag, LogValue::Flag)
                | (Shape::Files, LogValue::Files(_))
        );
        if !fits {
            return Err(LogRecordError::BadMember(name));
        }
        self.members.retain(|(key, _)| *key != name);
        self.members.push((name, value));
        self.members.sort_by_key(|(key, _)| *key);
        Ok(self)
    }

    /// The event type.
    pub fn kind(&self) -> LogEventType {
        self.kind
    }

    /// The value of member `name`, if set.
    pub fn get(&self, name: &str) -> Option<&LogValue> {
        self.members
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// The stored text of member `name`, if it is a set text member.
    pub fn text_of(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            LogValue::Text(text) => Some(text.as_str()),
            LogValue::Choice(choice) => Some(choice),
            _ => None,
        }
    }

    /// The members, by name.
    pub fn members(&self) -> &[(&'static str, LogValue)] {
        &self.members
    }

    fn check_complete(&self) -> Result<(), LogRecordError> {
        for member in self.kind.members() {
            if member.required && self.get(member.name).is_none() {
                return Err(LogRecordError::MissingMember(member.name));
            }
        }
        Ok(())
    }
}

impl LogRecord {
    /// The entry at position `seq`, claiming `time`, for a complete `event`.
    pub fn new(seq: u64, time: u64, event: LogEvent) -> Result<LogRecord, LogRecordError> {
        LogRecord::encoded(seq, time, event).map(|(entry, _)| entry)
    }

    /// [`LogRecord::new`], with the entry's canonical bytes ([`LogRecord::to_bytes`]), made
    /// once: for the size bound and for the caller that stores or hashes them.
    pub fn encoded(
        seq: u64,
        time: u64,
        event: LogEvent,
    ) -> Result<(LogRecord, Vec<u8>), LogRecordError> {
        let entry = LogRecord::checked(seq, time, event)?;
        let bytes = entry.to_bytes();
        if bytes.len() > MAX_LOG_RECORD_BYTES {
            return Err(LogRecordError::TooLarge(bytes.len()));
        }
        Ok((entry, bytes))
    }

    /// The entry of `seq`, `time` and `event` when the integers are in range and the event is
    /// complete; the size bound is the caller's to check.
    fn checked(seq: u64, time: u64, event: LogEvent) -> Result<LogRecord, LogRecordError> {
        if seq > MAX_LOG_INTEGER {
            return Err(LogRecordError::BadNumber("seq"));
        }
        if time > MAX_LOG_INTEGER {
            return Err(LogRecordError::BadNumber("time"));
        }
        event.check_complete()?;
        Ok(LogRecord { seq, time, event })
    }

    /// The position.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The local time claimed, in Unix seconds.
    pub fn time(&self) -> u64 {
        self.time
    }

    /// The event.
    pub fn event(&self) -> &LogEvent {
        &self.event
    }

    /// The canonical bytes: the leaf data of the log.
    ///
    /// Written directly, member by member in canonical key order, with no intermediate JSON
    /// tree: the same bytes as the RFC 8785 form of the entry's object (the tests hold it
    /// against that form, built through `seal_parse`'s `Value`, for every event type).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut pieces: Vec<(&str, Piece<'_>)> = Vec::with_capacity(self.event.members.len() + 3);
        pieces.push((TYPE_FIELD, Piece::Name(self.event.kind.name())));
        pieces.push(("seq", Piece::Integer(self.seq)));
        pieces.push(("time", Piece::Integer(self.time)));
        pieces.extend(
            self.event
                .members
                .iter()
                .map(|(name, value)| (*name, Piece::Member(value))),
        );
        pieces.sort_by(|(a, _), (b, _)| compare_keys(a, b));
        let mut out = Vec::with_capacity(512);
        out.push(b'{');
        for (index, (key, piece)) in pieces.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_text(key, &mut out);
            out.push(b':');
            match piece {
                Piece::Name(name) => write_text(name, &mut out),
                Piece::Integer(value) => integer(*value).write_canonical(&mut out),
                Piece::Member(value) => write_member(value, &mut out),
            }
        }
        out.push(b'}');
        out
    }

    /// Reads stored entry bytes strictly: canonical-profile JSON, exactly canonical, a known
    /// type, only its members, each of its shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<LogRecord, LogRecordError> {
        if bytes.len() > MAX_LOG_RECORD_BYTES {
            return Err(LogRecordError::TooLarge(bytes.len()));
        }
        let mut limits = JsonLimits::DEFAULT;
        limits.max_bytes = MAX_LOG_RECORD_BYTES;
        limits.max_depth = 4;
        let value =
            parse(bytes, &limits).map_err(|error| LogRecordError::Json(error.to_string()))?;
        let object = value
            .as_object()
            .ok_or_else(|| LogRecordError::Json("not an object".to_owned()))?;
        let type_name = object
            .get(TYPE_FIELD)
            .and_then(Value::as_str)
            .ok_or_else(|| LogRecordError::UnknownType(String::new()))?;
        let kind = LogEventType::from_name(type_name)
            .ok_or_else(|| LogRecordError::UnknownType(type_name.to_owned()))?;
        let seq = read_integer(object, "seq")?;
        let time = read_integer(object, "time")?;
        let mut event = LogEvent::new(kind);
        for (key, value) in object.iter() {
            if matches!(key, TYPE_FIELD | "seq" | "time") {
                continue;
            }
            let member = kind
                .members()
                .iter()
                .find(|member| member.name == key)
                .ok_or_else(|| LogRecordError::UnknownMember(key.to_owned()))?;
            let read = read_member(member, value)?;
            event.members.push((member.name, read));
        }
        // `LogRecord::new`'s checks, with the canonical bytes made once: for the size bound
        // and for the comparison with what was read.
        let (entry, canonical) = LogRecord::encoded(seq, time, event)?;
        if canonical != bytes {
            return Err(LogRecordError::Json("not in canonical form".to_owned()));
        }
        Ok(entry)
    }
}
