//! JSON input: every document the binary reads goes through one of seal's two JSON profiles
//! (spec/canonical-json.md), then through these typed accessors. What seal signs, hashes or
//! loads as configuration is read strictly ([`object`]: no duplicate keys, no lone surrogates,
//! exact numbers); foreign payloads seal only reads (hook input, the `policy check` call) are
//! read losslessly ([`foreign_object`]: numbers as written, lone surrogates kept, duplicate keys
//! still refused), so a field seal does not use is never a reason to refuse them.

use seal::json::{parse, parse_lossless, JsonLimits, Object, Value};

use crate::failure::{quoted, Failure};

/// Parses `bytes` strictly as a JSON object; `what` names the document in errors.
pub fn object<'a>(bytes: &'a [u8], what: &str) -> Result<Object<'a>, Failure> {
    match parse(bytes, &JsonLimits::default()) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Failure::input(format!("{what} is not a JSON object"))),
        Err(error) => Err(Failure::input(format!("{what} is not valid JSON: {error}"))),
    }
}

/// Largest foreign JSON document read ([`foreign_object`]): the hook input limit, so that a hook
/// payload the binary reads is never refused for its size by the parser.
pub const MAX_FOREIGN_JSON_BYTES: usize = crate::io::MAX_HOOK_INPUT_BYTES;

/// Parses `bytes` as a JSON object under the lossless profile (hook input, the `policy check`
/// call): every number is kept as written and lone surrogates in string values are kept, so no
/// field seal does not use can make the document unreadable; duplicate keys and lone surrogates
/// in keys are refused as by [`object`]. At most [`MAX_FOREIGN_JSON_BYTES`], nesting as
/// [`JsonLimits::DEFAULT`].
pub fn foreign_object<'a>(bytes: &'a [u8], what: &str) -> Result<Object<'a>, Failure> {
    let mut limits = JsonLimits::DEFAULT;
    limits.max_bytes = MAX_FOREIGN_JSON_BYTES;
    match parse_lossless(bytes, &limits) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Failure::input(format!("{what} is not a JSON object"))),
        Err(error) => Err(Failure::input(format!("{what} is not valid JSON: {error}"))),
    }
}

/// A required string member.
pub fn string<'a>(object: &'a Object<'_>, name: &str, what: &str) -> Result<&'a str, Failure> {
    match object.get(name) {
        Some(Value::String(text)) => Ok(text),
        Some(Value::IllFormedString(_)) => Err(not_text(name, what)),
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
        Some(Value::IllFormedString(_)) => Err(not_text(name, what)),
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

/// A string member holding a lone surrogate (lossless profile): seal never reads it as text.
fn not_text(name: &str, what: &str) -> Failure {
    Failure::input(format!(
        "{what}: `{name}` holds a lone surrogate, so it is not text"
    ))
}
