//! The JSON form of entries: writing members, and reading them back strictly.

use std::borrow::Cow;

use seal_parse::json::{Number, Object, Value};
use seal_render::{decode, Context, Escaped};

use super::{
    is_stored_text, LogRecordError, LogValue, Member, SentFile, Shape, MAX_LOG_FILES,
    MAX_LOG_INTEGER,
};
use crate::digest::Sha256Digest;

pub(super) fn integer(value: u64) -> Value<'static> {
    let number = i64::try_from(value)
        .ok()
        .and_then(|value| Number::from_i64(value).ok());
    debug_assert!(number.is_some(), "entry integers are bounded by 2^53");
    Value::Number(number.unwrap_or(Number::ZERO))
}

pub(super) fn member_value(value: &LogValue) -> Value<'static> {
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
                        let inserted = object.insert(Cow::Borrowed(key), value);
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
