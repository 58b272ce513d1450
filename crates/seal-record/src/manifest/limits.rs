//! Caller-visible limits of the disclosure manifest.

use seal_parse::json::JsonLimits;

/// Most Unicode scalar values in `purpose`. Part of the format, not a tunable limit.
pub const PURPOSE_MAX_CHARS: usize = 240;

/// Limits applied when a manifest is built or parsed; exceeding one gives
/// [`ManifestError::TooMany`](super::ManifestError::TooMany) or
/// [`ManifestError::TooLong`](super::ManifestError::TooLong).
///
/// Start from [`ManifestLimits::default`] and change what you need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManifestLimits {
    /// Most files. Default 10,000.
    pub max_files: usize,
    /// Most sent line ranges per file. Default 1,000.
    pub max_ranges_per_file: usize,
    /// Most redaction types. Default 256.
    pub max_redactions: usize,
    /// Most external tools. Default 256.
    pub max_external_tools: usize,
    /// Longest identifier (run id, redaction type, external tool), in bytes. Default 256.
    pub max_identifier_bytes: usize,
    /// Longest provider or model name, in Unicode scalar values. Default 256.
    pub max_name_chars: usize,
    /// Limits of the JSON parser when a manifest is read from JSON. Default
    /// [`JsonLimits::DEFAULT`] (16 MiB, depth 128).
    pub json: JsonLimits,
}

impl ManifestLimits {
    /// The default limits.
    pub const DEFAULT: ManifestLimits = ManifestLimits {
        max_files: 10_000,
        max_ranges_per_file: 1_000,
        max_redactions: 256,
        max_external_tools: 256,
        max_identifier_bytes: 256,
        max_name_chars: 256,
        json: JsonLimits::DEFAULT,
    };
}

impl Default for ManifestLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
