//! Freshness (spec/frame-v1.md section 9.2): a signed issued-at time in every frame, a window
//! the verifier accepts it in, and the life of the frame id's claim.

use std::fmt;

use crate::time::UnixTime;

/// The signed attribute carrying a frame's issue time: `iat`.
pub const ISSUED_AT_ATTRIBUTE: &str = "iat";

/// Most digits of an `iat` value: 20 (`u64::MAX` has 20).
pub const MAX_ISSUED_AT_DIGITS: usize = 20;

/// Default maximum age of a frame: 900 seconds (15 minutes, the window of AWS SigV4).
pub const DEFAULT_MAX_AGE_SECONDS: u64 = 900;

/// Default allowance for a signer's clock ahead of the verifier's: 60 seconds.
pub const DEFAULT_MAX_SKEW_SECONDS: u64 = 60;

/// The window in which a frame's issue time is accepted: from `max_skew` seconds in the future
/// to `max_age` seconds in the past, both edges included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    max_age: u64,
    max_skew: u64,
}

impl Default for Freshness {
    fn default() -> Self {
        Freshness {
            max_age: DEFAULT_MAX_AGE_SECONDS,
            max_skew: DEFAULT_MAX_SKEW_SECONDS,
        }
    }
}

/// Why a dated frame is outside the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Staleness {
    /// Issued more than the maximum age ago.
    TooOld {
        /// The issue time.
        issued_at: UnixTime,
        /// The last second at which the frame was fresh.
        fresh_until: UnixTime,
    },
    /// Issued further in the future than the skew allowance.
    FromTheFuture {
        /// The issue time.
        issued_at: UnixTime,
        /// The time of the check.
        now: UnixTime,
    },
}

impl fmt::Display for Staleness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooOld {
                issued_at,
                fresh_until,
            } => write!(
                f,
                "issued at {issued_at}, fresh until {fresh_until}: older than the window"
            ),
            Self::FromTheFuture { issued_at, now } => write!(
                f,
                "issued at {issued_at}, ahead of the time of the check {now} by more than the \
                 clock-skew allowance"
            ),
        }
    }
}

impl Freshness {
    /// A window of `max_age` seconds into the past and `max_skew` seconds into the future.
    pub const fn new(max_age: u64, max_skew: u64) -> Freshness {
        Freshness { max_age, max_skew }
    }

    /// The maximum age, in seconds.
    pub const fn max_age(&self) -> u64 {
        self.max_age
    }

    /// The clock-skew allowance, in seconds.
    pub const fn max_skew(&self) -> u64 {
        self.max_skew
    }

    /// Checks `issued_at` at `now`: fresh when `issued_at - max_skew <= now <= issued_at +
    /// max_age`. Returns the last second at which the frame is fresh (`issued_at + max_age`,
    /// saturating), which is how long its id's claim must live.
    ///
    /// ```
    /// use seal_verify::{Freshness, UnixTime};
    ///
    /// let window = Freshness::new(900, 60);
    /// assert_eq!(window.check(UnixTime(1_000), UnixTime(1_900)), Ok(UnixTime(1_900)));
    /// assert!(window.check(UnixTime(1_000), UnixTime(1_901)).is_err());
    /// assert!(window.check(UnixTime(1_000), UnixTime(940)).is_ok());
    /// assert!(window.check(UnixTime(1_000), UnixTime(939)).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Staleness::TooOld`] or [`Staleness::FromTheFuture`].
    #[inline]
    pub fn check(&self, issued_at: UnixTime, now: UnixTime) -> Result<UnixTime, Staleness> {
        let fresh_until = UnixTime(issued_at.0.saturating_add(self.max_age));
        if now > fresh_until {
            return Err(Staleness::TooOld {
                issued_at,
                fresh_until,
            });
        }
        if now.0.saturating_add(self.max_skew) < issued_at.0 {
            return Err(Staleness::FromTheFuture { issued_at, now });
        }
        Ok(fresh_until)
    }
}

/// What the verifier does with a frame that carries no `iat` (signed before issue times
/// existed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Undated {
    /// The default: an undated frame alarms `stale_frame`.
    #[default]
    Refused,
    /// Undated frames verify until this time (inclusive), their ids claimed until then; after
    /// it they alarm `stale_frame`. A migration window, never an open end.
    AcceptedUntil(UnixTime),
}

/// Why an `iat` value is not an issue time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IssuedAtProblem {
    /// Empty, or a byte that is not an ASCII digit, or more than [`MAX_ISSUED_AT_DIGITS`].
    NotDecimal,
    /// A leading zero (only `0` itself may start with one): one spelling per time.
    LeadingZero,
    /// Beyond `u64::MAX` seconds.
    TooLarge,
}

impl fmt::Display for IssuedAtProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotDecimal => "the `iat` attribute is not 1 to 20 decimal digits",
            Self::LeadingZero => "the `iat` attribute has a leading zero",
            Self::TooLarge => "the `iat` attribute is beyond 2^64 - 1 seconds",
        })
    }
}

impl std::error::Error for IssuedAtProblem {}

/// Reads an `iat` value: seconds since the Unix epoch in decimal, `0` or a nonzero digit then
/// digits, at most `u64::MAX`.
///
/// # Errors
/// An [`IssuedAtProblem`].
#[inline]
pub fn parse_issued_at(text: &str) -> Result<UnixTime, IssuedAtProblem> {
    if text.is_empty()
        || text.len() > MAX_ISSUED_AT_DIGITS
        || !text.bytes().all(|byte| byte.is_ascii_digit())
    {
        return Err(IssuedAtProblem::NotDecimal);
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err(IssuedAtProblem::LeadingZero);
    }
    // Every byte is a digit here: fold them in, refusing an overflow of 2^64 - 1.
    text.bytes()
        .try_fold(0u64, |seconds, digit| {
            seconds
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))
        })
        .map(UnixTime)
        .ok_or(IssuedAtProblem::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_times_have_one_spelling() {
        assert_eq!(parse_issued_at("0"), Ok(UnixTime(0)));
        assert_eq!(parse_issued_at("1800000000"), Ok(UnixTime(1_800_000_000)));
        assert_eq!(
            parse_issued_at("18446744073709551615"),
            Ok(UnixTime(u64::MAX))
        );
        assert_eq!(
            parse_issued_at("18446744073709551616"),
            Err(IssuedAtProblem::TooLarge)
        );
        for bad in ["", "+1", "-1", "1.0", " 1", "1e9", "123456789012345678901"] {
            assert_eq!(
                parse_issued_at(bad),
                Err(IssuedAtProblem::NotDecimal),
                "{bad}"
            );
        }
        assert_eq!(parse_issued_at("01"), Err(IssuedAtProblem::LeadingZero));
    }

    #[test]
    fn the_window_saturates_at_both_ends() {
        let window = Freshness::new(u64::MAX, u64::MAX);
        assert_eq!(
            window.check(UnixTime(u64::MAX), UnixTime(0)),
            Ok(UnixTime(u64::MAX))
        );
        assert_eq!(
            window.check(UnixTime(0), UnixTime(u64::MAX)),
            Ok(UnixTime(u64::MAX))
        );
    }
}
