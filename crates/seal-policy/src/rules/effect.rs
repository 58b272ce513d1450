//! What a matching rule asks for.

use std::fmt;

/// The effect of a rule. When several rules match, `Deny` beats `Ask` beats `Allow`, whatever
/// their order in the rule set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// The call may run without asking.
    Allow,
    /// A human must be asked first.
    Ask,
    /// The call must not run.
    Deny,
}

impl Effect {
    /// The list name used in rule files: `allow`, `ask` or `deny`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }

    /// The three effects, strongest last.
    pub const ALL: [Effect; 3] = [Effect::Allow, Effect::Ask, Effect::Deny];
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
