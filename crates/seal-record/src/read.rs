//! Strict reading of stored records: one object, a known `_type`, no unknown member.

use seal_parse::json::{
    parse, parse_lossless, FieldError, Fields, JsonError, JsonLimits, MemberError, Object, Value,
};

use crate::digest::Sha256Digest;
use crate::record::{RecordError, TYPE_FIELD};

/// Parses `input` under the canonical profile and checks that it is an object whose `_type` is
/// `expected` (checked first, so a record of another type is named as such) and whose members
/// are all in `known` (which includes `_type`).
pub(crate) fn open<'a>(
    input: &'a [u8],
    limits: &JsonLimits,
    expected: &'static str,
    known: &[&str],
) -> Result<Value<'a>, RecordError> {
    checked(parse(input, limits), expected, known)
}

/// As [`open`], under the lossless profile (records holding a foreign call's arguments).
pub(crate) fn open_lossless<'a>(
    input: &'a [u8],
    limits: &JsonLimits,
    expected: &'static str,
    known: &[&str],
) -> Result<Value<'a>, RecordError> {
    checked(parse_lossless(input, limits), expected, known)
}

fn checked<'a>(
    parsed: Result<Value<'a>, JsonError>,
    expected: &'static str,
    known: &[&str],
) -> Result<Value<'a>, RecordError> {
    let value = parsed.map_err(RecordError::Json)?;
    let mut fields = Fields::of(&value, "")?;
    let found = fields.string(TYPE_FIELD)?;
    if found != expected {
        return Err(RecordError::WrongRecordType {
            expected,
            found: found.to_owned(),
        });
    }
    fields.only(known)?;
    Ok(value)
}

pub(crate) fn string<'v>(
    object: &'v Object<'_>,
    field: &'static str,
) -> Result<&'v str, RecordError> {
    Ok(Fields::new(object, "").string(field)?)
}

pub(crate) fn optional_string<'v>(
    object: &'v Object<'_>,
    field: &'static str,
) -> Result<Option<&'v str>, RecordError> {
    Ok(Fields::new(object, "").optional_string(field)?)
}

pub(crate) fn digest(
    object: &Object<'_>,
    field: &'static str,
) -> Result<Sha256Digest, RecordError> {
    let text = string(object, field)?;
    Sha256Digest::from_hex(text).map_err(|_| RecordError::InvalidDigest {
        field,
        text: text.to_owned(),
    })
}

impl From<FieldError> for RecordError {
    fn from(error: FieldError) -> RecordError {
        MemberError::of(error).map_or(RecordError::NotAnObject, RecordError::Member)
    }
}
