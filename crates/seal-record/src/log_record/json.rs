//! The JSON form of entries: writing the canonical bytes member by member, and reading them
//! back strictly.

use seal_parse::json::{Number, Object, Value};
use seal_render::{decode, Context, Escaped};

use super::{
    is_stored_text, LogRecordError, LogValue, Member, SentFile, Shape, MAX_LOG_FILES,
    MAX_LOG_INTEGER,
};
use crate::digest::Sha256Digest;

/// One member of an entry's object as written: the type name, `seq` or `time`, or an event
/// member.
pub(super) enum Piece<'a> {
    Name(&'static str),
    Integer(u64),
    Member(&'a LogValue),
}

/// Appends `text` as a canonical JSON string.
pub(super) fn write_text(text: &str, out: &mut Vec<u8>) {
    Value::from(text).write_canonical(out);
}

/// Appends a digest as a canonical JSON string: 64 lowercase hex digits need no escape.
fn write_digest(digest: &Sha256Digest, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for byte in digest.as_bytes() {
        for nibble in [byte >> 4, byte & 0x0f] {
            // A nibble is below 16, the table's length: the fallback is never taken.
            out.push(HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'));
        }
    }
    out.push(b'"');
}

/// Appends the canonical JSON of a member's value (as [`member_value`] builds it).
pub(super) fn write_member(value: &LogValue, out: &mut Vec<u8>) {
    match value {
        LogValue::Text(text) => write_text(text.as_str(), out),
        LogValue::Digest(digest) => write_digest(digest, out),
        LogValue::Choice(choice) => write_text(choice, out),
        LogValue::Flag => out.extend_from_slice(b"true"),
        LogValue::Files(files) => {
            out.push(b'[');
            for (index, file) in files.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                // Keys in canonical order: `lines`, `path`, `sha256`.
                out.extend_from_slice(b"{\"lines\":");
                write_text(file.lines.as_str(), out);
                out.extend_from_slice(b",\"path\":");
                write_text(file.path.as_str(), out);
                out.extend_from_slice(b",\"sha256\":");
                write_digest(&file.sha256, out);
                out.push(b'}');
            }
            out.push(b']');
        }
    }
}

pub(super) fn integer(value: u64) -> Value<'static> {
    let number = i64::try_from(value)
        .ok()
        .and_then(|value| Number::from_i64(value).ok());
    debug_assert!(number.is_some(), "entry integers are bounded by 2^53");
    Value::Number(number.unwrap_or(Number::ZERO))
}

#[cfg(test)]
fn member_value(value: &LogValue) -> Value<'static> {
    match value {
        LogValue::Text(text) => Value::from(text.as_str().to_owned()),
        LogValue::Digest(digest) => Value::from(digest.to_hex()),
        LogValue::Choice(choice) => Value::from(*choice),
        LogValue::Flag => Value::from(true),
        LogValue::Files(files) => Value::Array(
            files
                .iter()
                .map(|file| {
                    let mut object = Object::new();
                    let members = [
                        ("lines", Value::from(file.lines.as_str().to_owned())),
                        ("path", Value::from(file.path.as_str().to_owned())),
                        ("sha256", Value::from(file.sha256.to_hex())),
                    ];
                    for (key, value) in members {
                        let inserted = object.insert(std::borrow::Cow::Borrowed(key), value);
                        debug_assert!(inserted.is_ok(), "file member keys are distinct");
                    }
                    Value::Object(object)
                })
                .collect(),
        ),
    }
}

pub(super) fn read_integer(object: &Object<'_>, name: &'static str) -> Result<u64, LogRecordError> {
    let number = object
        .get(name)
        .and_then(Value::as_number)
        .ok_or(LogRecordError::BadNumber(name))?;
    number
        .as_i64()
        .and_then(|value| u64::try_from(value).ok())
        .filter(|value| *value <= MAX_LOG_INTEGER)
        .ok_or(LogRecordError::BadNumber(name))
}

fn read_text(value: &Value<'_>, name: &'static str) -> Result<Escaped, LogRecordError> {
    let text = value.as_str().ok_or(LogRecordError::BadMember(name))?;
    if !is_stored_text(text) {
        return Err(LogRecordError::BadMember(name));
    }
    // Printable ASCII without a backslash is its own escape (escape-v1's inline literals).
    if !text.contains('\\') {
        return Ok(Escaped::new(text));
    }
    // Stored text is the escape of what it decodes to, byte for byte.
    let raw = decode(text, Context::Inline).map_err(|_| LogRecordError::BadMember(name))?;
    let stored = Escaped::new(&raw);
    if stored.as_str() != text {
        return Err(LogRecordError::BadMember(name));
    }
    Ok(stored)
}

fn read_digest(value: &Value<'_>, name: &'static str) -> Result<Sha256Digest, LogRecordError> {
    let text = value.as_str().ok_or(LogRecordError::BadMember(name))?;
    Sha256Digest::from_hex(text).map_err(|_| LogRecordError::BadMember(name))
}

pub(super) fn read_member(member: &Member, value: &Value<'_>) -> Result<LogValue, LogRecordError> {
    let name = member.name;
    match member.shape {
        Shape::Text => Ok(LogValue::Text(read_text(value, name)?)),
        Shape::Digest => Ok(LogValue::Digest(read_digest(value, name)?)),
        Shape::Choice(set) => {
            let text = value.as_str().ok_or(LogRecordError::BadMember(name))?;
            let found = set.iter().find(|choice| **choice == text);
            Ok(LogValue::Choice(
                found.ok_or(LogRecordError::BadMember(name))?,
            ))
        }
        Shape::Flag => match value.as_bool() {
            Some(true) => Ok(LogValue::Flag),
            _ => Err(LogRecordError::BadMember(name)),
        },
        Shape::Files => {
            let items = value.as_array().ok_or(LogRecordError::BadMember(name))?;
            if items.len() > MAX_LOG_FILES {
                return Err(LogRecordError::BadMember(name));
            }
            let mut files = Vec::with_capacity(items.len());
            for item in items {
                let object = item.as_object().ok_or(LogRecordError::BadMember(name))?;
                if object.len() != 3 {
                    return Err(LogRecordError::BadMember(name));
                }
                let field = |key: &str| object.get(key).ok_or(LogRecordError::BadMember(name));
                files.push(SentFile {
                    path: read_text(field("path")?, name)?,
                    lines: read_text(field("lines")?, name)?,
                    sha256: read_digest(field("sha256")?, name)?,
                });
            }
            Ok(LogValue::Files(files))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;
    use crate::record::TYPE_FIELD;
    use proptest::prelude::*;

    /// The entry's object built as a JSON tree and written by `seal_parse`: the oracle of
    /// [`LogRecord::to_bytes`].
    fn tree_bytes(entry: &LogRecord) -> Vec<u8> {
        let mut object = Object::new();
        let mut put = |key: &'static str, value: Value<'_>| {
            assert!(object.insert(key, value.into_owned()).is_ok());
        };
        put(TYPE_FIELD, Value::from(entry.event.kind.name()));
        put("seq", integer(entry.seq));
        put("time", integer(entry.time));
        for (name, value) in &entry.event.members {
            put(name, member_value(value));
        }
        Value::Object(object).canonical_bytes()
    }

    /// Raw text of every kind the log escapes: quotes, backslashes, controls, bidi, non-ASCII,
    /// long runs (elided).
    fn raw_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ -~]{0,40}",
            "[\"\\\\a{}\\[\\]:,]{0,12}",
            any::<String>(),
            "[\\x00-\\x1f\\u{202e}\\u{200b}é😀]{0,10}",
            "[a-z\"]{500,700}",
        ]
    }

    fn digest() -> impl Strategy<Value = Sha256Digest> {
        any::<[u8; 32]>().prop_map(Sha256Digest::from_bytes)
    }

    fn file() -> impl Strategy<Value = SentFile> {
        (raw_text(), raw_text(), digest()).prop_map(|(path, lines, sha256)| SentFile {
            path: log_text(&path),
            lines: log_text(&lines),
            sha256,
        })
    }

    /// A complete event of any type: every required member, each optional one or not.
    fn event() -> impl Strategy<Value = LogEvent> {
        let kind = proptest::sample::select(LogEventType::ALL.to_vec());
        (
            kind,
            proptest::collection::vec((any::<bool>(), raw_text(), digest(), any::<u8>()), 9),
            proptest::collection::vec(file(), 0..4),
        )
            .prop_map(|(kind, values, files)| {
                let mut event = LogEvent::new(kind);
                for (member, (present, text, digest, pick)) in kind.members().iter().zip(values) {
                    if !member.required && !present {
                        continue;
                    }
                    let value = match member.shape {
                        Shape::Text => LogValue::Text(log_text(&text)),
                        Shape::Digest => LogValue::Digest(digest),
                        Shape::Choice(set) => LogValue::Choice(set[usize::from(pick) % set.len()]),
                        Shape::Flag => LogValue::Flag,
                        Shape::Files => LogValue::Files(files.clone()),
                    };
                    event = event.with(member.name, value).unwrap();
                }
                event
            })
    }

    proptest! {
        #[test]
        fn to_bytes_is_the_canonical_form_of_the_entry_object(
            event in event(),
            seq in 0..=MAX_LOG_INTEGER,
            time in prop_oneof![0..=MAX_LOG_INTEGER, 0..2_000_000_000u64],
        ) {
            let entry = LogRecord::new(seq, time, event).unwrap();
            let bytes = entry.to_bytes();
            prop_assert_eq!(&bytes, &tree_bytes(&entry));
            prop_assert_eq!(LogRecord::from_bytes(&bytes), Ok(entry));
        }
    }
}
