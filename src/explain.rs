//! What the rules and the destructive-command guard read in a shell command, form by form
//! (`seal policy check --explain`): every normalized form of every segment, the program
//! model's reading of each, the payloads the rules read, the rules that match each form and
//! the guard pattern that fires on it, with the decision of the rules.
//!
//! The explanation is the core's ([`seal_policy::rules::RuleSet::explain`] and
//! `DestructiveGuard::explain_command`), found by the same matching the decision uses, so it
//! cannot disagree with it.
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

use seal_policy::rules::{ClientDefault, RuleLimits, RuleSet, Subject};

use crate::builder::{BuildError, Fallback};

/// Explains the rules of the rule text `json` (as
/// [`SealBuilder::rules_json`](crate::SealBuilder::rules_json) takes it) on a call of `tool`
/// whose command is `command`, read as a seal built with `fallback` and `workspace_root`
/// reads it (the client's default mode for [`Fallback::ClaudeCode`]; absolute paths placed
/// under the root). Pure: no IO.
///
/// # Errors
/// [`BuildError::Rules`] when the text is not a valid rule file; [`BuildError::WorkspaceRoot`]
/// when the root is not absolute.
pub fn explain_rules(
    json: &str,
    fallback: Fallback,
    workspace_root: Option<&str>,
    tool: &str,
    command: &str,
) -> Result<Explanation, BuildError> {
    let mut rules =
        RuleSet::from_json(json.as_bytes(), &RuleLimits::default()).map_err(|error| {
            BuildError::Rules {
                line: error.line,
                column: error.column,
                detail: error.kind.to_string(),
            }
        })?;
    if let Some(root) = workspace_root {
        if !root.starts_with('/') {
            return Err(BuildError::WorkspaceRoot {
                root: root.to_owned(),
            });
        }
        rules = rules.with_workspace_root(root);
    }
    if fallback == Fallback::ClaudeCode {
        rules = rules.with_client_default(ClientDefault::ClaudeCode);
    }
    Ok(rules.explain(tool, Subject::Command(command)))
}
