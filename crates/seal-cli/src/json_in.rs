//! JSON input: every document the binary reads goes through one of seal's two JSON profiles
//! (spec/canonical-json.md), then through these typed accessors. What seal signs, hashes or
//! loads as configuration is read strictly ([`object`]: no duplicate keys, no lone surrogates,
//! exact numbers); foreign payloads seal only reads (hook input, the `policy check` call) are
//! read losslessly ([`foreign_object`]: numbers as written, lone surrogates kept, duplicate keys
//! still refused), so a field seal does not use is never a reason to refuse them.

use seal::json::{
    parse, parse_lossless, FieldError, FieldErrorKind, Fields, JsonLimits, Object, Value,
};

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
pub fn string<'a>(
    object: &'a Object<'_>,
    name: &'static str,
    what: &str,
) -> Result<&'a str, Failure> {
    text_only(object, name, what)?;
    Fields::new(object, "")
        .string(name)
        .map_err(|error| failure(what, error))
}

/// An optional string member (`null` counts as absent).
pub fn optional_string<'a>(
    object: &'a Object<'_>,
    name: &'static str,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if let Some(Value::Null) = object.get(name) {
        return Ok(None);
    }
    text_only(object, name, what)?;
    Fields::new(object, "")
        .optional_string(name)
        .map_err(|error| failure(what, error))
}

/// A required integer member, from 0 to 2^53.
pub fn integer(object: &Object<'_>, name: &'static str, what: &str) -> Result<u64, Failure> {
    Fields::new(object, "")
        .integer(name)
        .map_err(|error| failure(what, error))
}

/// A required array member.
pub fn array<'a, 'b>(
    object: &'a Object<'b>,
    name: &'static str,
    what: &str,
) -> Result<&'a [Value<'b>], Failure> {
    Fields::new(object, "")
        .array(name, usize::MAX)
        .map_err(|error| failure(what, error))
}

/// Refuses members other than `allowed`.
pub fn only(object: &Object<'_>, allowed: &[&str], what: &str) -> Result<(), Failure> {
    Fields::new(object, "")
        .only(allowed)
        .map_err(|error| failure(what, error))
}

/// The refusal of a member of the document `what`, in the binary's words.
fn failure(what: &str, error: FieldError) -> Failure {
    Failure::input(match error.kind {
        FieldErrorKind::Missing { name } => format!("{what}: `{name}` is missing"),
        FieldErrorKind::Unknown { name } => format!("{what}: unknown member {}", quoted(&name)),
        FieldErrorKind::WrongType { name, expected } => {
            format!("{what}: `{name}` is not {expected}")
        }
        FieldErrorKind::NotAnInteger { name } => {
            format!("{what}: `{name}` is not an integer from 0 to 2^53")
        }
        _ => format!("{what}: {error}"),
    })
}

/// Refuses a string member holding a lone surrogate (lossless profile): seal never reads it as
/// text.
fn text_only(object: &Object<'_>, name: &str, what: &str) -> Result<(), Failure> {
    match object.get(name) {
        Some(Value::IllFormedString(_)) => Err(Failure::input(format!(
            "{what}: `{name}` holds a lone surrogate, so it is not text"
        ))),
        _ => Ok(()),
    }
}
