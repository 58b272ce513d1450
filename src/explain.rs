//! What the rules and the destructive-command guard read in a shell command, form by form
//! (`seal policy check --explain`): every normalized form of every segment, the program
//! model's reading of each, the payloads the rules read, the rules that match each form and
//! the guard pattern that fires on it, with the decision of the rules.
//!
//! The explanation is the core's ([`seal_policy::rules::RuleSet::explain`] and
//! `DestructiveGuard::explain_command`), found by the same matching the decision uses, so it
//! cannot disagree with it. [`explain_call`] explains a frozen [`Call`] as the seal read it:
//! the rules' evaluation and, for a shell command, every form, from one evaluation.
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
use seal_policy::chain;
use seal_policy::rules::{RulesListener, Subject};

use crate::builder::{BuildError, Fallback};
use crate::session::Call;

/// What the rules read in one frozen call ([`explain_call`]), from one evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallExplanation {
    /// A call of the shell tool with a command: every segment and form, and the evaluation.
    Command(Explanation),
    /// Any other call: what the rules give on its typed field.
    Other(Evaluation),
}

impl CallExplanation {
    /// What the rules alone give on the call.
    pub fn evaluation(&self) -> &Evaluation {
        match self {
            CallExplanation::Command(explanation) => &explanation.evaluation,
            CallExplanation::Other(evaluation) => evaluation,
        }
    }

    /// The explanation form by form, for a shell command.
    pub fn command(&self) -> Option<&Explanation> {
        match self {
            CallExplanation::Command(explanation) => Some(explanation),
            CallExplanation::Other(_) => None,
        }
    }
}

/// What the rules alone give on `call`, as a seal built with the rule text `json`,
/// `fallback` and `workspace_root` reads them: the arguments the call froze, the typed field
/// the chain's rules listener reads. Give `forms` to explain a shell command form by form as
/// well ([`CallExplanation::Command`]); either way the rules are evaluated once. Pure: no IO.
///
/// ```
/// use seal::explain::{explain_call, Effect};
/// use seal::{Fallback, Seal};
///
/// let rules = r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#;
/// let seal = Seal::builder().rules_json(rules).build()?;
/// let session = seal.open_session("session-1")?;
/// let call = seal.call(&session, "agent-1", "call-1", "Bash", r#"{"command":"ls; rm -rf t"}"#)?;
/// let explained = explain_call(rules, Fallback::Ask, None, &call, true)?;
/// assert_eq!(explained.evaluation().effect(), Some(Effect::Deny));
/// assert_eq!(explained.command().map(|command| command.segments.len()), Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`explain_rules`].
pub fn explain_call(
    json: &str,
    fallback: Fallback,
    workspace_root: Option<&str>,
    call: &Call,
    forms: bool,
) -> Result<CallExplanation, BuildError> {
    let rules = rule_set(json, fallback, workspace_root).map_err(BuildError::Policy)?;
    Ok(match call.call.subject() {
        chain::Subject::Command(command) if forms => {
            CallExplanation::Command(rules.explain(call.tool(), Subject::Command(command)))
        }
        _ => CallExplanation::Other(RulesListener::new(rules).evaluate(&call.call)),
    })
}

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
