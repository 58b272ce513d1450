//! Canonical JSON as seal reads it (spec/canonical-json.md): the strict profile for what seal
//! signs and hashes ([`parse`]), and the lossless profile for foreign documents it only reads,
//! such as hook payloads and a client's tool-call arguments ([`parse_lossless`]).
//!
//! These are the core parser's own items, re-exported as they are: a parsed [`Value`] is the
//! value every seal decision reads, and its canonical bytes are the ones seal hashes; [`Fields`]
//! is the typed reader every seal format reads its objects with.
//!
//! ```
//! use seal::json::{parse_lossless, JsonLimits, Value};
//!
//! let value = parse_lossless(br#"{"command": "git status", "n": 1.0}"#, &JsonLimits::default())?;
//! let object = value.as_object().ok_or("not an object")?;
//! assert!(matches!(object.get("command"), Some(Value::String(_))));
//! assert_eq!(value.canonical_bytes(), br#"{"command":"git status","n":1.0}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use seal_parse::json::{
    member_path, parse, parse_lossless, DuplicateKeyError, FieldError, FieldErrorKind, Fields,
    IllFormedString, JsonError, JsonErrorKind, JsonLimits, Number, NumberError, NumberLiteral,
    NumberRule, Object, Value,
};
