//! Canonical JSON (RFC 8785 profile): strict parsing, canonical bytes and their SHA-256, and a
//! lossless profile for foreign documents.
//!
//! The strict profile (spec/canonical-json.md; [`parse`], [`canonicalize`]) is for everything
//! seal signs and hashes. It accepts a document only if canonicalization loses nothing: no
//! duplicate keys, no lone surrogates, no number whose decimal value differs from the double it
//! becomes, no integer beyond ±2^53, nothing outside RFC 8259. What is accepted has exactly one
//! canonical form: members sorted by UTF-16 code units, numbers in ECMAScript form, minimal string
//! escaping, no whitespace. `-0` is accepted and canonicalizes to `0`.
//!
//! ```
//! use seal_parse::json::{canonicalize, JsonLimits};
//!
//! let canonical = canonicalize(br#"{ "b": [1.0, "x"], "a": -0 }"#, &JsonLimits::default())?;
//! assert_eq!(canonical.as_bytes(), br#"{"a":0,"b":[1,"x"]}"#);
//! assert_eq!(canonical.sha256_hex().len(), 64);
//! # Ok::<(), seal_parse::json::JsonError>(())
//! ```
//!
//! The lossless profile ([`parse_lossless`], [`canonicalize_lossless`]) is for foreign documents
//! seal only reads (hook payloads, a client's tool-call arguments). It accepts every number of
//! the RFC 8259 grammar and keeps it as written, and keeps lone surrogate escapes in string
//! values; duplicate keys, lone surrogates in keys and everything outside RFC 8259 are still
//! rejected. Its canonical form is the strict one except that each number is its literal text
//! and each lone surrogate is `\udxxx`:
//!
//! ```
//! use seal_parse::json::{canonicalize_lossless, parse_lossless, JsonLimits};
//!
//! let input = br#"{ "s": "\uD800x", "n": 12345678901234567000, "f": 1.0 }"#;
//! let canonical = canonicalize_lossless(input, &JsonLimits::default())?;
//! assert_eq!(canonical.as_bytes(), br#"{"f":1.0,"n":12345678901234567000,"s":"\ud800x"}"#);
//! let value = parse_lossless(input, &JsonLimits::default())?;
//! let object = value.as_object().unwrap();
//! assert_eq!(object.get("s").unwrap().as_str(), None); // not text
//! assert_eq!(object.get("f").unwrap().as_number().map(|n| n.as_f64()), Some(1.0));
//! # Ok::<(), seal_parse::json::JsonError>(())
//! ```

mod error;
mod fields;
mod ill_formed;
mod limits;
mod literal;
mod member_error;
mod number;
mod order;
mod parser;
mod stream;
mod string;
mod tree;
mod unescape;
mod value;
mod write;

use sha2::{Digest, Sha256};

use parser::Profile;

pub use error::{JsonError, JsonErrorKind};
pub use fields::{member_path, FieldError, FieldErrorKind, Fields};
pub use ill_formed::IllFormedString;
pub use limits::{JsonLimits, NumberRule};
pub use literal::NumberLiteral;
pub use member_error::MemberError;
pub use number::{Number, NumberError, MAX_EXACT_INTEGER};
pub use order::compare_keys;
pub use value::{DuplicateKeyError, Object, Value};

/// Parses `input` under the profile with [`NumberRule::Exact`].
///
/// Strings without escapes borrow from `input`. On success the value's canonical bytes are the
/// profile's canonical form of `input`.
pub fn parse<'a>(input: &'a [u8], limits: &JsonLimits) -> Result<Value<'a>, JsonError> {
    parse_with(input, limits, NumberRule::Exact)
}

/// Parses `input` under the profile with the given number rule.
pub fn parse_with<'a>(
    input: &'a [u8],
    limits: &JsonLimits,
    rule: NumberRule,
) -> Result<Value<'a>, JsonError> {
    parser::parse_into(
        input,
        limits,
        Profile::Strict(rule),
        tree::TreeSink::<String>::default(),
    )
}

/// Parses `input` ([`NumberRule::Exact`]) and returns its canonical bytes and their SHA-256.
pub fn canonicalize(input: &[u8], limits: &JsonLimits) -> Result<Canonical, JsonError> {
    canonicalize_with(input, limits, NumberRule::Exact)
}

/// Parses `input` with the given number rule and returns its canonical bytes and their SHA-256.
pub fn canonicalize_with(
    input: &[u8],
    limits: &JsonLimits,
    rule: NumberRule,
) -> Result<Canonical, JsonError> {
    let profile = Profile::Strict(rule);
    let streamed =
        parser::parse_into(input, limits, profile, stream::StreamSink::new(input.len()))?;
    let bytes = match streamed {
        Some(bytes) => bytes,
        // Reordering moved too many bytes (deeply nested unsorted objects): the tree is linear.
        None => parse_with(input, limits, rule)?.canonical_bytes(),
    };
    Ok(Canonical::from_bytes(bytes))
}

/// Parses a foreign document under the lossless profile (spec/canonical-json.md, "Lossless
/// profile").
///
/// Grammar, UTF-8, byte order mark, limits and duplicate keys are as in [`parse`]. Differences:
/// every number literal of the RFC 8259 grammar is accepted; it is a [`Value::Number`] when it is
/// already the strict canonical spelling of its number and a [`Value::NumberLiteral`] (kept as
/// written) otherwise. A lone surrogate escape in a string value is kept: the string is a
/// [`Value::IllFormedString`], which is not text. A lone surrogate in a key is still rejected
/// (`lone_surrogate`): a reader that repairs it could see two members with one name.
///
/// A document in strict canonical form parses to the same value as with [`parse`].
pub fn parse_lossless<'a>(input: &'a [u8], limits: &JsonLimits) -> Result<Value<'a>, JsonError> {
    parser::parse_into(
        input,
        limits,
        Profile::Lossless,
        tree::TreeSink::<ill_formed::Decoded>::default(),
    )
}

/// Parses a foreign document under the lossless profile ([`parse_lossless`]) and returns its
/// canonical bytes and their SHA-256.
///
/// The bytes are the strict canonical form (member order, string escaping, no whitespace) except
/// that each number is written as its literal text and each lone surrogate as `\udxxx`
/// (lowercase hex). They parse back (lossless) to the same value, so two different documents
/// never share canonical bytes; they equal [`canonicalize`]'s bytes exactly when every number
/// literal of the document is already in strict canonical spelling.
pub fn canonicalize_lossless(input: &[u8], limits: &JsonLimits) -> Result<Canonical, JsonError> {
    let streamed = parser::parse_into(
        input,
        limits,
        Profile::Lossless,
        stream::StreamSink::new(input.len()),
    )?;
    let bytes = match streamed {
        Some(bytes) => bytes,
        None => parse_lossless(input, limits)?.canonical_bytes(),
    };
    Ok(Canonical::from_bytes(bytes))
}

/// Canonical bytes of a document together with their SHA-256 digest.
///
/// Only this module constructs it, from a parsed or built [`Value`], so the bytes are always the
/// canonical form of some value and the digest is always theirs. For a value holding a
/// [`Value::NumberLiteral`] or a [`Value::IllFormedString`] the bytes are the lossless canonical
/// form; for every other value they are the strict one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    bytes: Vec<u8>,
    sha256: [u8; 32],
}

impl Canonical {
    /// The canonical bytes and digest of `value`.
    pub fn of(value: &Value<'_>) -> Canonical {
        Canonical::from_bytes(value.canonical_bytes())
    }

    /// The canonical bytes (UTF-8, no whitespace).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The canonical bytes, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// SHA-256 of the canonical bytes.
    pub fn sha256(&self) -> [u8; 32] {
        self.sha256
    }

    /// SHA-256 of the canonical bytes as 64 lowercase hexadecimal digits.
    pub fn sha256_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = String::with_capacity(64);
        for byte in self.sha256 {
            for nibble in [byte >> 4, byte & 0x0f] {
                hex.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        }
        hex
    }

    fn from_bytes(bytes: Vec<u8>) -> Canonical {
        let sha256 = Sha256::digest(&bytes).into();
        Canonical { bytes, sha256 }
    }
}
