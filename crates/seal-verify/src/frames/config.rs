//! What the frame verifier checks and how much alarm text it writes.

use std::fmt;

use seal_parse::frame::ScanConfig;

use crate::freshness::{Freshness, Undated};
use crate::sign::BodyHashing;
use crate::time::UnixTime;

/// The element of every alarm the verifier writes: `seal-alarm`.
pub const ALARM_ELEMENT: &str = "seal-alarm";

/// Caller-visible bounds on the verifier's output. Exceeding one is never silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifyLimits {
    /// Most per-frame alarms written into the alarm text; past it, the message-level alarm
    /// counts the alarms left out in its `omitted` attribute (the report keeps every outcome).
    /// Default 16.
    pub max_frame_alarms: usize,
}

impl Default for VerifyLimits {
    fn default() -> Self {
        VerifyLimits {
            max_frame_alarms: 16,
        }
    }
}

/// The frame verifier's configuration: the scan (element, harness rewrite, scan limits), which
/// body bytes tags cover, whether verification is on, whether frames must carry an id, the
/// freshness window and what undated frames get, and the output limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyConfig {
    scan: ScanConfig,
    hashing: BodyHashing,
    enabled: bool,
    require_frame_id: bool,
    freshness: Freshness,
    undated: Undated,
    limits: VerifyLimits,
}

/// Why a verifier configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyConfigError {
    /// Compatibility mode undoes the harness rewrite, but the scan config has none.
    CompatibilityWithoutRewrite,
}

impl fmt::Display for VerifyConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::CompatibilityWithoutRewrite => {
                f.write_str("compatibility mode needs a scan config with the harness rewrite")
            }
        }
    }
}

impl std::error::Error for VerifyConfigError {}

impl VerifyConfig {
    /// Verification on, bodies hashed as submitted ([`BodyHashing::AsSubmitted`]), frame ids
    /// required, the default [`Freshness`] window (900 seconds of age, 60 seconds of clock
    /// skew), undated frames refused ([`Undated::Refused`]), default [`VerifyLimits`].
    pub fn new(scan: ScanConfig) -> VerifyConfig {
        VerifyConfig {
            scan,
            hashing: BodyHashing::AsSubmitted,
            enabled: true,
            require_frame_id: true,
            freshness: Freshness::default(),
            undated: Undated::Refused,
            limits: VerifyLimits::default(),
        }
    }

    /// Compatibility mode ([`BodyHashing::BeforeRewrite`]): the verifier undoes the scan
    /// config's harness rewrite before hashing a body.
    ///
    /// # Errors
    /// [`VerifyConfigError::CompatibilityWithoutRewrite`] when the scan config has no rewrite.
    pub fn compatibility(mut self) -> Result<VerifyConfig, VerifyConfigError> {
        if self.scan.rewrite().is_none() {
            return Err(VerifyConfigError::CompatibilityWithoutRewrite);
        }
        self.hashing = BodyHashing::BeforeRewrite;
        Ok(self)
    }

    /// Verification off: no frame is verified, every finding is reported as
    /// `verification_off`, and the alarm text is one `verification_off` notice, whatever the
    /// message holds.
    #[must_use]
    pub fn verification_off(mut self) -> VerifyConfig {
        self.enabled = false;
        self
    }

    /// Frames without an `id` attribute may verify (their replay is then not detectable).
    #[must_use]
    pub fn allow_missing_frame_id(mut self) -> VerifyConfig {
        self.require_frame_id = false;
        self
    }

    /// The same config with another freshness window.
    #[must_use]
    pub fn with_freshness(mut self, freshness: Freshness) -> VerifyConfig {
        self.freshness = freshness;
        self
    }

    /// The same config, accepting frames without an `iat` attribute until `until` (inclusive),
    /// their ids claimed until then: the migration window for frames signed before issue times
    /// existed. After `until` they alarm `stale_frame`, as they do by default.
    #[must_use]
    pub fn accept_undated_until(mut self, until: UnixTime) -> VerifyConfig {
        self.undated = Undated::AcceptedUntil(until);
        self
    }

    /// The same config with other output limits.
    #[must_use]
    pub fn with_limits(mut self, limits: VerifyLimits) -> VerifyConfig {
        self.limits = limits;
        self
    }

    /// The scan config.
    pub fn scan(&self) -> &ScanConfig {
        &self.scan
    }

    /// Which body bytes tags cover.
    pub fn hashing(&self) -> BodyHashing {
        self.hashing
    }

    /// Whether verification is on.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether a frame without an `id` attribute alarms.
    pub fn requires_frame_id(&self) -> bool {
        self.require_frame_id
    }

    /// The freshness window.
    pub fn freshness(&self) -> Freshness {
        self.freshness
    }

    /// What frames without an `iat` attribute get.
    pub fn undated(&self) -> Undated {
        self.undated
    }

    /// The output limits.
    pub fn limits(&self) -> VerifyLimits {
        self.limits
    }
}
