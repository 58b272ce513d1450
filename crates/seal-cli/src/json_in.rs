//! JSON input: every document the binary reads goes through seal's strict parser (no duplicate
//! keys, no lone surrogates, exact numbers), then through these typed accessors.

use seal_parse::json::{parse, JsonLimits, Object, Value};

use crate::failure::{quoted, Failure};

/// Parses `bytes` strictly as a JSON object; `what` names the document in errors.
pub fn object<'a>(bytes: &'a [u8], what: &str) -> Result<Object<'a>, Failure> {
    match parse(bytes, &JsonLimits::default()) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Failure::input(format!("{what} is not a JSON object"))),
        Err(error) => Err(Failure::input(format!("{what} is not valid JSON: {error}"))),
    }
}

/// A required string member.
pub fn string<'a>(object: &'a Object<'_>, name: &str, what: &str) -> Result<&'a str, Failure> {
    match object.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(Failure::input(format!("{what}: `{name}` is not a string"))),
        None => Err(Failure::input(format!("{what}: `{name}` is missing"))),
    }
}

/// An optional string member (`null` counts as absent).
pub fn optional_string<'a>(
    object: &'a Object<'_>,
    name: &str,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    match object.get(name) {
        Some(Value::String(text)) => Ok(Some(text)),
        None | Some(Value::Null) => Ok(None),
        Some(_) => Err(Failure::input(format!("{what}: `{name}` is not a string"))),
    }
}

/// A required non-negative integer member.
pub fn integer(object: &Object<'_>, name: &str, what: &str) -> Result<u64, Failure> {
    let value = object
        .get(name)
        .ok_or_else(|| Failure::input(format!("{what}: `{name}` is missing")))?;
    value
        .as_number()
        .and_then(|number| number.as_i64())
        .and_then(|number| u64::try_from(number).ok())
        .ok_or_else(|| Failure::input(format!("{what}: `{name}` is not a non-negative integer")))
}

/// A required array member.
pub fn array<'a, 'b>(
    object: &'a Object<'b>,
    name: &str,
    what: &str,
) -> Result<&'a [Value<'b>], Failure> {
    match object.get(name) {
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(Failure::input(format!("{what}: `{name}` is not an array"))),
        None => Err(Failure::input(format!("{what}: `{name}` is missing"))),
    }
}

/// Refuses members other than `allowed`.
pub fn only(object: &Object<'_>, allowed: &[&str], what: &str) -> Result<(), Failure> {
    match object.iter().find(|(key, _)| !allowed.contains(key)) {
        Some((key, _)) => Err(Failure::input(format!(
            "{what}: unknown member {}",
            quoted(key)
        ))),
        None => Ok(()),
    }
}
