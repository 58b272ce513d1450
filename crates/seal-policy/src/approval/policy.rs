//! The standing approval policy and what an unanswered request settles as.

use std::fmt;

use seal_record::Outcome;

/// The standing approval policy of a session.
///
/// `never` means "never prompt; reject every action that needs approval". It is not a grant: a
/// session that works without prompts does so because its sandbox is open, never because of
/// this policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ApprovalPolicy {
    /// `on-request`: a request goes to the answerer waterfall.
    #[default]
    OnRequest,
    /// `never`: a request settles `rejected` before any answerer is consulted, whatever answerers
    /// are registered and in whatever order.
    Never,
}

/// What a request settles as when every answerer delegates (or none is registered).
///
/// Neither choice can be `allowed-once`: an unanswered request never proceeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Unanswered {
    /// Settle `unavailable` (the default).
    #[default]
    Unavailable,
    /// Settle `rejected`.
    Rejected,
}

impl ApprovalPolicy {
    /// The wire name: `on-request` or `never`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Never => "never",
        }
    }

    /// Parses a wire name exactly (no case folding, no trimming).
    pub fn from_name(text: &str) -> Option<ApprovalPolicy> {
        [ApprovalPolicy::OnRequest, ApprovalPolicy::Never]
            .into_iter()
            .find(|policy| policy.as_str() == text)
    }
}

impl Unanswered {
    /// The outcome an unanswered request settles as: `unavailable` or `rejected`, never
    /// `allowed-once`.
    pub fn outcome(self) -> Outcome {
        match self {
            Unanswered::Unavailable => Outcome::Unavailable,
            Unanswered::Rejected => Outcome::Rejected,
        }
    }
}

impl fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
