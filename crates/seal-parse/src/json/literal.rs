//! Numbers of the lossless profile that the strict profile would change or refuse: kept as
//! their literal text.

use std::borrow::Cow;
use std::fmt;

use super::limits::NumberRule;
use super::number::{self, Number};

/// A number literal kept exactly as written, by the lossless profile
/// ([`parse_lossless`](super::parse_lossless)).
///
/// The lossless profile gives [`Value::Number`](super::Value::Number) for a literal that is
/// already the strict profile's canonical spelling of its number (`0`, `-1`, `0.5`, `1e+21`),
/// and this type for every other literal of the RFC 8259 grammar: one the strict profile would
/// respell (`1.0`, `1E2`, `-0`), and one it rejects (`12345678901234567000`,
/// `0.10000000000000001`, `1e400`). Its canonical form is the literal text itself, byte for
/// byte, so nothing is rounded and two different literals never share canonical bytes.
///
/// The accessors read the literal's value without loss or say `None`:
/// - [`NumberLiteral::as_i64`]: the integer, when the literal's decimal value is an integer
///   within `i64` (`9007199254740993`, `1.0e3`);
/// - [`NumberLiteral::as_f64`]: the double `d`, when the literal's decimal value equals that of
///   the shortest ECMAScript form of `d` (the strict profile's exact rule), so printing `d`
///   gives back this value (`1.0`, `12345678901234567000`; not `9007199254740993`, not `1e400`);
/// - [`NumberLiteral::as_number`]: the strict profile's [`Number`], when the strict profile
///   accepts the literal (`1.0`, `-0`; not `12345678901234567000`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NumberLiteral<'a> {
    /// Matches the RFC 8259 number grammar and is not the canonical spelling of a [`Number`].
    text: Cow<'a, str>,
}

impl<'a> NumberLiteral<'a> {
    /// The literal as written (RFC 8259 `number` grammar).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The integer, when the literal's decimal value is an integer within `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        number::exact_integer(&self.text)
    }

    /// The double whose shortest ECMAScript form has exactly the literal's decimal value.
    pub fn as_f64(&self) -> Option<f64> {
        let value: f64 = self.text.parse().ok()?;
        (value.is_finite() && number::is_exact(&self.text, value)).then_some(value)
    }

    /// The strict profile's number for this literal, when the strict profile accepts it.
    pub fn as_number(&self) -> Option<Number> {
        number::parse_literal(&self.text, is_integer_syntax(&self.text), NumberRule::Exact).ok()
    }

    /// A copy that owns its text.
    pub fn into_owned(self) -> NumberLiteral<'static> {
        NumberLiteral {
            text: Cow::Owned(self.text.into_owned()),
        }
    }

    /// Wraps a literal the parser checked against the grammar and found not canonical.
    pub(crate) fn from_checked(text: Cow<'a, str>) -> NumberLiteral<'a> {
        NumberLiteral { text }
    }
}

impl fmt::Display for NumberLiteral<'_> {
    /// Writes the literal as written (its canonical form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// True when a grammatical literal has neither fraction nor exponent.
pub(crate) fn is_integer_syntax(literal: &str) -> bool {
    !literal.contains(['.', 'e', 'E'])
}

/// True when `literal` is exactly the canonical spelling of `number`.
pub(crate) fn is_canonical_spelling(literal: &str, integer_syntax: bool, number: Number) -> bool {
    if integer_syntax {
        // An integer within ±2^53 without leading zeros prints as its own digits; only `-0`
        // prints differently (`0`).
        return literal != "-0";
    }
    let mut canonical = Vec::with_capacity(24);
    number.write_canonical(&mut canonical);
    canonical == literal.as_bytes()
}
