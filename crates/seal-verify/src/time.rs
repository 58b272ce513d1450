//! Time as a value: seconds since the Unix epoch, supplied by the caller.

use std::fmt;

/// A point in time, in whole seconds since 1970-01-01T00:00:00Z (leap seconds ignored).
///
/// The crate never reads a clock: every decision that depends on time takes a `UnixTime`
/// argument, so the same inputs always give the same decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixTime(pub u64);

impl UnixTime {
    /// The seconds since the epoch.
    pub const fn seconds(self) -> u64 {
        self.0
    }
}

impl fmt::Display for UnixTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
