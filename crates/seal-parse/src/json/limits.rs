//! Caller-visible limits and the number rule of the parser.

/// Limits applied while parsing; exceeding one gives a named [`JsonErrorKind`](super::JsonErrorKind).
///
/// Build one from [`JsonLimits::default`] (or [`JsonLimits::DEFAULT`]) and change the fields you
/// need; the struct is `#[non_exhaustive]` so that new limits can be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonLimits {
    /// Largest accepted input, in bytes. Default 16 MiB (16,777,216). Larger input is rejected
    /// with [`JsonErrorKind::InputTooLarge`](super::JsonErrorKind::InputTooLarge) before any
    /// byte is read.
    pub max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects. Default 128. The top-level array or object
    /// is depth 1; opening a container deeper than this is rejected with
    /// [`JsonErrorKind::DepthExceeded`](super::JsonErrorKind::DepthExceeded). Parsing,
    /// [`canonicalize`](super::canonicalize) and the canonical writer are iterative, so any value
    /// is safe for them; dropping, cloning or comparing a [`Value`](super::Value) tree recurses
    /// once per level, so keep the limit within the thread's stack when building trees (the
    /// default is far below).
    pub max_depth: usize,
}

impl JsonLimits {
    /// The default limits: 16 MiB of input, nesting depth 128.
    pub const DEFAULT: JsonLimits = JsonLimits {
        max_bytes: 16 * 1024 * 1024,
        max_depth: 128,
    };
}

impl Default for JsonLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Which number literals are accepted (spec/canonical-json.md, "Numbers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum NumberRule {
    /// The default. A literal is accepted only if its decimal value equals exactly the decimal
    /// value of the shortest ECMAScript form of the double it parses to, so canonicalization never
    /// changes what a number means.
    #[default]
    Exact,
    /// A literal with a fraction or exponent may carry more digits than a double holds; it is
    /// rounded to the nearest double (RFC 8785 behaviour, needed for its `values.json` example).
    /// Non-finite results, integer-syntax literals beyond ±2^53 and numbers whose canonical form
    /// would be such an integer are still rejected.
    Nearest,
}
