//! What the rules and the destructive-command guard read in a shell command, form by form
//! (`seal policy check --explain`): every normalized form of every segment, the program
//! model's reading of each, the payloads the rules read, the rules that match each form and
//! the guard pattern that fires on it, with the decision of the rules.
//!
//! The explanation is the core's ([`seal_policy::rules::RuleSet::explain`] and
//! `DestructiveGuard::explain_command`), found by the same matching the decision uses, so it
//! cannot disagree with it. A call's own reading comes with its decision:
//! [`Seal::prepare_explaining`](crate::Seal::prepare_explaining) has the rules listener record
//! it in the trace ([`Reading`]) as it decides.
//!
//! ```
//! use seal::explain::{explain_rules, MatchedBy};
//! use seal::Fallback;
//!
//! let rules = r#"{"permissions": {"allow": ["Bash(git:*)"], "deny": ["Bash(git reset --hard:*)"]}}"#;
//! let explained = explain_rules(rules, Fallback::Ask, None, "Bash", "git -C . reset --ha")?;
//! assert!(explained.segments[0].forms[0].matches.iter().any(|m| m.by == MatchedBy::Model));
//! assert_eq!(explained.evaluation.effect(), Some(seal::explain::Effect::Deny));
//! # Ok::<(), seal::BuildError>(())
//! ```

pub use seal_policy::destructive::{GuardExplanation, GuardForm};
pub use seal_policy::rules::{
    AskCause, CarriedReading, Effect, Evaluation, Explanation, FormExplanation, FormKind, Input,
    LauncherExplanation, Match, MatchedBy, ModelReading, RuleMatch, SegmentExplanation, Site,
    Unanalysed, COMMAND_TOOL,
};

use seal_policy::assembly::rule_set;
pub use seal_policy::rules::{Explain, Reading};

use seal_policy::rules::Subject;

use crate::builder::{BuildError, Fallback};

/// Explains the rules of the rule text `json` (as
/// [`SealBuilder::rules_json`](crate::SealBuilder::rules_json) takes it) on a call of `tool`
/// whose command is `command`, read as a seal built with `fallback` and `workspace_root`
/// reads it (the client's default mode for [`Fallback::ClaudeCode`]; absolute paths placed
/// under the root). Pure: no IO.
///
/// # Errors
/// [`BuildError::Policy`] with [`PolicyError::Rules`](crate::PolicyError::Rules) when the text
/// is not a valid rule file, or [`PolicyError::WorkspaceRoot`](crate::PolicyError::WorkspaceRoot)
/// when the root is not absolute.
pub fn explain_rules(
    json: &str,
    fallback: Fallback,
    workspace_root: Option<&str>,
    tool: &str,
    command: &str,
) -> Result<Explanation, BuildError> {
    let rules = rule_set(json, fallback, workspace_root).map_err(BuildError::Policy)?;
    Ok(rules.explain(tool, Subject::Command(command)))
}
