//! Helpers that build the JSON forms of records.

use seal_parse::json::{Number, Object, Value};

/// An object from members with distinct, fixed keys.
pub(crate) fn object<'a>(members: Vec<(&'static str, Value<'a>)>) -> Value<'a> {
    let mut object = Object::new();
    for (key, value) in members {
        // Callers pass distinct constant keys, so insertion never fails; the golden vectors and
        // round-trip tests would see a dropped member.
        let inserted = object.insert(key, value);
        debug_assert!(inserted.is_ok(), "record member keys are distinct");
    }
    Value::Object(object)
}

/// A JSON number from an integer already bounded by 2^53 by its builder.
pub(crate) fn number(value: u64) -> Value<'static> {
    let number = i64::try_from(value)
        .ok()
        .and_then(|value| Number::from_i64(value).ok());
    // Every caller's builder bounds the value by 2^53: the zero fallback is never taken.
    debug_assert!(number.is_some(), "record integer above 2^53");
    Value::Number(number.unwrap_or(Number::ZERO))
}
