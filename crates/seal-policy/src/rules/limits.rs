//! Caller-visible limits of rule loading and evaluation.

use seal_parse::json::JsonLimits;
use seal_parse::shell::ShellLimits;

/// Bounds on a rule set. Exceeding one is a named [`RulesErrorKind`](super::RulesErrorKind) at
/// load time; commands beyond the shell limits are unanalysable (never allowed).
///
/// `#[non_exhaustive]`: start from [`RuleLimits::default`] and change the fields you need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleLimits {
    /// Most rules in one set, all lists together. Default 4,096.
    pub max_rules: usize,
    /// Longest rule text in bytes. Default 4,096.
    pub max_rule_bytes: usize,
    /// Most `match` plus `not_match` examples on one rule. Default 64.
    pub max_examples: usize,
    /// Limits of the JSON reader (default [`JsonLimits::DEFAULT`]: 16 MiB, depth 128).
    pub json: JsonLimits,
    /// Limits of the shell segmenter used on commands and examples (default
    /// [`ShellLimits::DEFAULT`]).
    pub shell: ShellLimits,
}

impl RuleLimits {
    /// The default limits.
    pub const DEFAULT: RuleLimits = RuleLimits {
        max_rules: 4096,
        max_rule_bytes: 4096,
        max_examples: 64,
        json: JsonLimits::DEFAULT,
        shell: ShellLimits::DEFAULT,
    };
}

impl Default for RuleLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
