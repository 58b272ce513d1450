//! Permission rules in the syntax agents already use, matched per shell segment.
//!
//! A rule is `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool` or `*`, with an
//! [`Effect`]: deny beats ask beats allow. Specifiers bind to one typed field of the call
//! ([`Subject`]): a command for `Bash` ([`CommandPattern`], matched per segment of the command
//! as `seal_parse::shell` reads it), a path for the file tools ([`PathPattern`], gitignore-style
//! over canonical relative paths), a host for `WebFetch` ([`DomainPattern`]).
//!
//! For a command (invariant I11): **allow** needs every segment's canonical form, and every
//! launcher of a shell payload, to match an allow rule, and the command to be analysable;
//! **deny** fires if any form of any segment (canonical, env-stripped, basename,
//! wrapper-stripped, normalized) or any launcher matches; **ask** likewise; an unanalysable
//! command is never allowed by rules: it asks, with the segmenter's reason.
//!
//! [`RuleSet::explain`] lists what the rules read in a command, form by form (each form's
//! program-model reading, payload and matching rules), with the evaluation's decision, found
//! by the same predicates the evaluation uses.
//!
//! Rule sets load from JSON ([`RuleSet::from_json`]) with line-precise errors and `match` /
//! `not_match` examples checked at load; [`lint`] reports rules that can never fire or do not
//! mean what they seem to, each with a counterexample. The normative text is the "Rules"
//! section of spec/policy.md.
//!
//! ```
//! use seal_policy::rules::{Effect, RuleLimits, RuleSet, Subject};
//!
//! let rules = RuleSet::from_json(br#"{"permissions": {
//!     "allow": ["Bash(git log:*)", "Bash(git status)"],
//!     "deny": ["Bash(rm:*)"]
//! }}"#, &RuleLimits::default())?;
//! let effect = |c| rules.evaluate("Bash", Subject::Command(c)).effect();
//! assert_eq!(effect("git status"), Some(Effect::Allow));
//! assert_eq!(effect("git log; rm -rf t"), Some(Effect::Deny));
//! assert_eq!(effect("bash -c 'git status; sudo rm -rf t'"), Some(Effect::Deny));
//! assert_eq!(effect("git status > ~/.bashrc"), Some(Effect::Ask));
//! # Ok::<(), seal_policy::rules::RulesError>(())
//! ```

mod command;
mod cover;
mod domain;
mod effect;
mod evaluation;
mod explain;
mod field;
#[cfg(feature = "fuzz")]
pub mod fuzz_check;
mod index;
mod limits;
mod lint;
mod listener;
mod load;
mod locate;
mod matching;
mod model;
mod path;
mod path_glob;
mod path_rules;
mod placed;
mod read_only;
mod rule;
mod ruling;
mod scan;
mod set;
mod site;
mod wildcard;

pub use crate::chain::Subject;
pub use command::CommandPattern;
pub use domain::{DomainPattern, DomainPatternError};
pub use effect::Effect;
pub use evaluation::{AskCause, Evaluation, FormKind, Input, Match, Site, Unanalysed};
pub use explain::{
    CarriedReading, Explanation, FormExplanation, LauncherExplanation, MatchedBy, ModelReading,
    PathExplanation, RuleMatch, SegmentExplanation,
};
pub use limits::RuleLimits;
pub use lint::{closest_list, lint, FindingKind, LintFinding};
pub use listener::{Explain, Reading, RulesListener};
pub use load::{RulesError, RulesErrorKind};
pub use path::{PathPattern, PathPatternError};
pub use read_only::ClientDefault;
pub use rule::{FieldKind, Rule, RuleSyntaxError, Specifier, ToolPattern, COMMAND_TOOL, WEB_TOOL};
pub use set::{Location, RuleEntry, RuleSet};

/// The recommended rule file (`seal policy recommended`): broad allows of everyday commands,
/// asks before publishing, pushing, fetching from the network and running containers, and
/// denies of cloud, cluster and container deletions, meant to run with the
/// [destructive-command guard](crate::destructive) on (spec/recommended-rules.md).
pub const RECOMMENDED_RULES: &str = include_str!("recommended.json");
