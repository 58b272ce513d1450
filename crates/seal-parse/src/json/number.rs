//! Numbers: finite doubles whose canonical ECMAScript form is never an inexact integer.

use std::fmt;

use super::limits::NumberRule;
use super::JsonErrorKind;

/// A JSON number as RFC 8785 sees it: a finite IEEE-754 double.
///
/// Guarantees, enforced by every constructor:
/// - the value is finite;
/// - negative zero is stored as zero (RFC 8785 serializes `-0` as `0`);
/// - the magnitude is not in (2^53, 10^21): such a double is an integer beyond the exact range
///   of ±2^53 and its canonical form would be an integer literal that other parsers round, so it
///   is rejected. Larger magnitudes print in exponent form (`1e+21`) and are kept.
///
/// Two numbers are equal exactly when their canonical forms are equal.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Number(f64);

/// Why a double cannot be a [`Number`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NumberError {
    /// NaN or an infinity.
    NonFinite,
    /// An integer beyond ±2^53 whose canonical form would be an integer literal.
    IntegerOutOfRange,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NonFinite => f.write_str("number is not finite"),
            Self::IntegerOutOfRange => f.write_str("integer is beyond the exact range of ±2^53"),
        }
    }
}

impl std::error::Error for NumberError {}

/// 2^53, the largest magnitude up to which every integer is a double.
pub const MAX_EXACT_INTEGER: u64 = 1 << 53;

const MAX_EXACT_INTEGER_F64: f64 = 9_007_199_254_740_992.0;
const EXPONENT_FORM_THRESHOLD: f64 = 1e21;

impl Number {
    /// Zero.
    pub const ZERO: Number = Number(0.0);

    /// Accepts a finite double outside (2^53, 10^21) in magnitude; `-0.0` becomes `0`.
    pub fn from_f64(value: f64) -> Result<Number, NumberError> {
        if !value.is_finite() {
            return Err(NumberError::NonFinite);
        }
        let magnitude = value.abs();
        if magnitude > MAX_EXACT_INTEGER_F64 && magnitude < EXPONENT_FORM_THRESHOLD {
            return Err(NumberError::IntegerOutOfRange);
        }
        Ok(Number(if value == 0.0 { 0.0 } else { value }))
    }

    /// Accepts an integer within ±2^53.
    pub fn from_i64(value: i64) -> Result<Number, NumberError> {
        if value.unsigned_abs() > MAX_EXACT_INTEGER {
            return Err(NumberError::IntegerOutOfRange);
        }
        // Exact: |value| <= 2^53.
        #[allow(clippy::cast_precision_loss)]
        Ok(Number(value as f64))
    }

    /// The double.
    pub fn as_f64(self) -> f64 {
        self.0
    }

    /// The value as an integer, if it is one within ±2^53.
    pub fn as_i64(self) -> Option<i64> {
        if self.0.fract() == 0.0 && self.0.abs() <= MAX_EXACT_INTEGER_F64 {
            // Exact: integral and within ±2^53.
            #[allow(clippy::cast_possible_truncation)]
            Some(self.0 as i64)
        } else {
            None
        }
    }

    /// Appends the ECMAScript `Number::toString` form (RFC 8785 §3.2.2.3) to `out`.
    pub fn write_canonical(self, out: &mut Vec<u8>) {
        match self.as_i64() {
            Some(integer) => write_integer(integer, out),
            None => {
                let mut buffer = ryu_js::Buffer::new();
                out.extend_from_slice(buffer.format_finite(self.0).as_bytes());
            }
        }
    }
}

impl Eq for Number {}

impl fmt::Display for Number {
    /// Writes the canonical form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::with_capacity(24);
        self.write_canonical(&mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

impl TryFrom<f64> for Number {
    type Error = NumberError;
    fn try_from(value: f64) -> Result<Self, Self::Error> {
        Number::from_f64(value)
    }
}

impl From<i32> for Number {
    fn from(value: i32) -> Self {
        Number(f64::from(value))
    }
}

impl From<u32> for Number {
    fn from(value: u32) -> Self {
        Number(f64::from(value))
    }
}

/// Parses a literal already checked against the RFC 8259 number grammar.
///
/// `integer_syntax` is true when the literal has neither fraction nor exponent.
pub(crate) fn parse_literal(
    literal: &str,
    integer_syntax: bool,
    rule: NumberRule,
) -> Result<Number, JsonErrorKind> {
    if integer_syntax {
        return parse_integer(literal);
    }
    let value: f64 = literal.parse().map_err(|_| JsonErrorKind::InvalidNumber {
        reason: "not a decimal number",
    })?;
    if !value.is_finite() {
        return Err(JsonErrorKind::NumberOutOfRange {
            literal: literal.to_owned(),
        });
    }
    if rule == NumberRule::Exact && !is_exact(literal, value) {
        let mut buffer = ryu_js::Buffer::new();
        return Err(JsonErrorKind::NumberNotExact {
            literal: literal.to_owned(),
            nearest: buffer.format_finite(value).to_owned(),
        });
    }
    Number::from_f64(value).map_err(|_| JsonErrorKind::IntegerOutOfRange {
        literal: literal.to_owned(),
    })
}

/// True when the decimal value of `literal` equals the decimal value of the shortest ECMAScript
/// form of `value` (the double `literal` parses to).
pub(crate) fn is_exact(literal: &str, value: f64) -> bool {
    let written = Decimal::of(literal);
    if written.significant == 0 {
        return value == 0.0;
    }
    if value == 0.0 {
        return false;
    }
    // A decimal of at most 15 significant digits in the normal range is the shortest form of the
    // double nearest to it (DBL_DIG = 15: such decimals map to distinct doubles and back).
    if written.significant <= 15 && value.abs() >= f64::MIN_POSITIVE {
        return true;
    }
    let mut buffer = ryu_js::Buffer::new();
    let shortest = buffer.format_finite(value);
    written.same_value(literal, &Decimal::of(shortest), shortest)
}

/// The integer a grammatical literal denotes exactly, when it is one within `i64`
/// (`9007199254740993`, `1.0e3`, `-0`); `None` for a fraction or a magnitude beyond `i64`.
pub(crate) fn exact_integer(literal: &str) -> Option<i64> {
    let decimal = Decimal::of(literal);
    if decimal.significant == 0 {
        return Some(0);
    }
    // The last significant digit sits at 10^scale: below 10^0 the value has a fraction.
    let scale = u32::try_from(decimal.scale).ok()?;
    // i64 holds at most 19 digits.
    if u32::try_from(decimal.significant)
        .ok()?
        .checked_add(scale)?
        > 19
    {
        return None;
    }
    let digits = significant_digits(literal, &decimal).try_fold(0_i128, |acc, digit| {
        acc.checked_mul(10)?
            .checked_add(i128::from(digit.wrapping_sub(b'0')))
    })?;
    let magnitude = digits.checked_mul(10_i128.checked_pow(scale)?)?;
    let value = if literal.starts_with('-') {
        -magnitude
    } else {
        magnitude
    };
    i64::try_from(value).ok()
}

fn parse_integer(literal: &str) -> Result<Number, JsonErrorKind> {
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    let out_of_range = || JsonErrorKind::IntegerOutOfRange {
        literal: literal.to_owned(),
    };
    if digits.len() > 16 {
        return Err(out_of_range());
    }
    let magnitude = digits.bytes().fold(0_u64, |acc, digit| {
        acc * 10 + u64::from(digit.wrapping_sub(b'0'))
    });
    if magnitude > MAX_EXACT_INTEGER {
        return Err(out_of_range());
    }
    // Exact: magnitude <= 2^53.
    #[allow(clippy::cast_precision_loss)]
    let value = magnitude as f64;
    Ok(Number(if digits.len() == literal.len() || magnitude == 0 {
        value
    } else {
        -value
    }))
}

/// A decimal literal reduced to significant digits and a power of ten:
/// value = ±(digits first..=last of the mantissa) × 10^scale.
struct Decimal {
    /// Index (among mantissa digits) of the first nonzero digit.
    first: usize,
    /// Number of significant digits (0 for zero).
    significant: usize,
    /// Power of ten of the last significant digit.
    scale: i64,
}

impl Decimal {
    fn of(literal: &str) -> Decimal {
        let unsigned = literal.strip_prefix('-').unwrap_or(literal);
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (
                unsigned.get(..at).unwrap_or(""),
                unsigned.get(at + 1..).unwrap_or(""),
            ),
            None => (unsigned, ""),
        };
        let exponent = parse_exponent(exponent);
        let fraction_len = mantissa.find('.').map_or(0, |dot| mantissa.len() - dot - 1);
        let digits = mantissa.bytes().filter(u8::is_ascii_digit);
        let mut count = 0_usize;
        let mut first = None;
        let mut last = 0_usize;
        for (index, digit) in digits.enumerate() {
            count = index + 1;
            if digit != b'0' {
                first.get_or_insert(index);
                last = index;
            }
        }
        match first {
            None => Decimal {
                first: 0,
                significant: 0,
                scale: 0,
            },
            Some(first) => {
                let trailing = count - 1 - last;
                let scale = exponent
                    .saturating_sub(i64::try_from(fraction_len).unwrap_or(i64::MAX))
                    .saturating_add(i64::try_from(trailing).unwrap_or(i64::MAX));
                Decimal {
                    first,
                    significant: last - first + 1,
                    scale,
                }
            }
        }
    }

    fn same_value(&self, literal: &str, other: &Decimal, other_literal: &str) -> bool {
        self.significant == other.significant
            && self.scale == other.scale
            && significant_digits(literal, self).eq(significant_digits(other_literal, other))
    }
}

fn significant_digits<'s>(literal: &'s str, decimal: &Decimal) -> impl Iterator<Item = u8> + 's {
    let mantissa_end = literal.find(['e', 'E']).unwrap_or(literal.len());
    literal
        .bytes()
        .take(mantissa_end)
        .filter(u8::is_ascii_digit)
        .skip(decimal.first)
        .take(decimal.significant)
}

fn parse_exponent(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..).unwrap_or("")),
        Some(b'+') => (false, text.get(1..).unwrap_or("")),
        _ => (false, text),
    };
    let magnitude = digits.bytes().fold(0_i64, |acc, digit| {
        acc.saturating_mul(10)
            .saturating_add(i64::from(digit.wrapping_sub(b'0')))
    });
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

fn write_integer(value: i64, out: &mut Vec<u8>) {
    if value < 0 {
        out.push(b'-');
    }
    let mut magnitude = value.unsigned_abs();
    let mut buffer = [0_u8; 20];
    let mut start = buffer.len();
    loop {
        start -= 1;
        if let Some(slot) = buffer.get_mut(start) {
            // The remainder is below 10.
            #[allow(clippy::cast_possible_truncation)]
            let digit = (magnitude % 10) as u8;
            *slot = b'0' + digit;
        }
        magnitude /= 10;
        if magnitude == 0 || start == 0 {
            break;
        }
    }
    out.extend_from_slice(buffer.get(start..).unwrap_or(&[]));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow_exact(literal: &str) -> bool {
        let value: f64 = literal.parse().unwrap();
        let mut buffer = ryu_js::Buffer::new();
        let shortest = buffer.format_finite(value);
        let written = Decimal::of(literal);
        let other = Decimal::of(shortest);
        if written.significant == 0 || other.significant == 0 {
            return written.significant == other.significant;
        }
        written.same_value(literal, &other, shortest)
    }

    #[test]
    fn fast_path_agrees_with_shortest_form() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = 1 + (state % 17) as usize;
            let mantissa = (state >> 8) % 10_u64.pow(digits as u32);
            let exponent = ((state >> 40) % 660) as i64 - 340;
            let literal = format!("{mantissa}e{exponent}");
            let value: f64 = literal.parse().unwrap();
            if value.is_finite() {
                assert_eq!(is_exact(&literal, value), slow_exact(&literal), "{literal}");
            }
        }
    }

    #[test]
    fn decides_the_examples() {
        for ok in [
            "0.1", "1.0", "1e2", "123e45", "-0.0", "0e999999", "4.50", "1E30", "2e-3",
        ] {
            assert!(is_exact(ok, ok.parse().unwrap()), "{ok}");
        }
        for bad in [
            "0.10000000000000001",
            "1e-400",
            "333333333.33333329",
            "5e-324000",
        ] {
            assert!(!is_exact(bad, bad.parse().unwrap()), "{bad}");
        }
    }

    #[test]
    fn integers_are_written_like_ecmascript() {
        for value in [
            0_i64,
            1,
            -1,
            10,
            9_007_199_254_740_992,
            -9_007_199_254_740_992,
            100,
        ] {
            let mut out = Vec::new();
            Number::from_i64(value).unwrap().write_canonical(&mut out);
            let mut buffer = ryu_js::Buffer::new();
            assert_eq!(out, buffer.format_finite(value as f64).as_bytes());
        }
    }

    #[test]
    fn negative_zero_is_zero() {
        let mut out = Vec::new();
        Number::from_f64(-0.0).unwrap().write_canonical(&mut out);
        assert_eq!(out, b"0");
        assert_eq!(Number::from_f64(1e20), Err(NumberError::IntegerOutOfRange));
        assert!(Number::from_f64(1e21).is_ok());
        assert_eq!(Number::from_f64(f64::NAN), Err(NumberError::NonFinite));
    }
}
