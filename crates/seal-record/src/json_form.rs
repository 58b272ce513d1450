//! Helpers that build the JSON forms of records.

use seal_parse::json::{Number, Object, Value};

/// An object from members with distinct, fixed keys.
pub(crate) fn object<'a>(members: Vec<(&'static str, Value<'a>)>) -> Value<'a> {
    let mut object = Object::new();
    for (key, value) in members {
        // Callers pass distinct constant keys, so insertion never fails; the golden vectors and
        // round-trip tests would see a dropped member.
        let _ = object.insert(key, value);
    }
    Value::Object(object)
}

/// A JSON number from an integer already bounded by 2^53 by its builder.
pub(crate) fn number(value: u64) -> Value<'static> {
    let number = i64::try_from(value)
        .ok()
        .and_then(|value| Number::from_i64(value).ok())
        .unwrap_or(Number::ZERO);
    Value::Number(number)
}
