//! Caller-visible limits of the shell segmenter.

/// Bounds on the segmenter's work. Exceeding one makes the command unanalysable with a named
/// [`UnanalysableReason`](super::UnanalysableReason), never a silent truncation.
///
/// The struct is `#[non_exhaustive]`: start from [`ShellLimits::default`] (or
/// [`ShellLimits::DEFAULT`]) and change the fields you need, or chain the `with_` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShellLimits {
    /// Longest accepted command, in bytes. Default 131,072 (128 KiB). A longer command is
    /// [`UnanalysableReason::TooLong`](super::UnanalysableReason::TooLong) before any byte is read.
    pub max_bytes: usize,
    /// Most segments in the result, payload segments included. Default 256. One more is
    /// [`UnanalysableReason::TooManySegments`](super::UnanalysableReason::TooManySegments).
    pub max_segments: usize,
    /// Most words in one segment. Default 1,024. One more is
    /// [`UnanalysableReason::TooManyWords`](super::UnanalysableReason::TooManyWords).
    pub max_words: usize,
    /// Deepest nesting of shell payloads (`bash -c '...'` is depth 1, a `sh -c` inside it depth
    /// 2). Default 3. Unwrapping one level more is
    /// [`UnanalysableReason::PayloadTooDeep`](super::UnanalysableReason::PayloadTooDeep). Each level re-reads its payload
    /// once, so the work is at most `max_payload_depth + 1` times linear in the command length;
    /// unwrapping recurses once per level, so keep this small (the default is far below any
    /// stack limit).
    pub max_payload_depth: usize,
}

impl ShellLimits {
    /// The default limits: 128 KiB, 256 segments, 1,024 words per segment, payload depth 3.
    pub const DEFAULT: ShellLimits = ShellLimits {
        max_bytes: 128 * 1024,
        max_segments: 256,
        max_words: 1024,
        max_payload_depth: 3,
    };

    /// The same limits with another [`max_bytes`](Self::max_bytes).
    #[must_use]
    pub const fn with_max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// The same limits with another [`max_segments`](Self::max_segments).
    #[must_use]
    pub const fn with_max_segments(mut self, max: usize) -> Self {
        self.max_segments = max;
        self
    }

    /// The same limits with another [`max_words`](Self::max_words).
    #[must_use]
    pub const fn with_max_words(mut self, max: usize) -> Self {
        self.max_words = max;
        self
    }

    /// The same limits with another [`max_payload_depth`](Self::max_payload_depth).
    #[must_use]
    pub const fn with_max_payload_depth(mut self, max: usize) -> Self {
        self.max_payload_depth = max;
        self
    }
}

impl Default for ShellLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
