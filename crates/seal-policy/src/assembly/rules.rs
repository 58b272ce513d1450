//! A policy's rule text: the rule set it decides with, and its lint.

use std::fmt;

use seal_render::Escaped;

use super::error::rules_error;
use super::{Fallback, PolicyError};
use crate::rules::{closest_list, lint, ClientDefault, LintFinding, Location, RuleLimits, RuleSet};

/// The rule set a policy with the rule text `json`, `fallback` and `workspace_root` decides
/// with: the client's default mode for [`Fallback::ClaudeCode`], absolute paths placed under
/// the root.
///
/// # Errors
/// [`PolicyError::Rules`] for a text that is not a rule file, [`PolicyError::WorkspaceRoot`]
/// for a root that is not absolute.
pub fn rule_set(
    json: &str,
    fallback: Fallback,
    workspace_root: Option<&str>,
) -> Result<RuleSet, PolicyError> {
    let mut rules = RuleSet::from_json(json.as_bytes(), &RuleLimits::default())
        .map_err(|error| rules_error(error.line, error.column, error.kind))?;
    if let Some(root) = workspace_root {
        if !root.starts_with('/') {
            let root = root.to_owned();
            return Err(PolicyError::WorkspaceRoot { root });
        }
        rules = rules.with_workspace_root(root);
    }
    match fallback {
        Fallback::ClaudeCode => rules = rules.with_client_default(ClientDefault::ClaudeCode),
        Fallback::ClaudeCodeAcceptEdits => {
            rules = rules.with_client_default(ClientDefault::ClaudeCodeAcceptEdits);
        }
        Fallback::Ask | Fallback::Deny | Fallback::Allow => {}
    }
    Ok(rules)
}

/// One rule that can never fire, or does not mean what it seems to, with a counterexample; or a
/// member of `permissions` no rule comes from. Kept typed; [`RuleFinding::message`] renders it,
/// escaped once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFinding {
    /// The position of the rule in the rule text's allow, ask and deny lists (0-based, as the
    /// rule set orders them); `None` for a member of `permissions` no rule comes from.
    pub index: Option<usize>,
    /// The rule as written, or the member's name (raw text).
    pub rule: String,
    what: What,
}

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq)]
enum What {
    /// The rule linter's finding.
    Rule(LintFinding),
    /// A member of `permissions` that is not a rule list, where it is, and the list it may
    /// have meant.
    Member {
        at: Location,
        hint: Option<&'static str>,
    },
}

impl RuleFinding {
    /// The rule linter's finding, when the finding is about a rule.
    #[must_use]
    pub fn lint(&self) -> Option<&LintFinding> {
        match &self.what {
            What::Rule(finding) => Some(finding),
            What::Member { .. } => None,
        }
    }

    /// What is wrong and the counterexample, as one line escaped once (escape-v1, inline
    /// context: a rule, a word or a member name may hold anything).
    #[must_use]
    pub fn message(&self) -> Escaped {
        Escaped::new(&self.to_string())
    }
}

/// Lints a rule text (the JSON the builder takes with
/// [`PolicyBuilder::rules_json`](super::PolicyBuilder::rules_json)): rules covered by a deny,
/// asks under a broader allow, separators, quotes and misplaced wildcards in command
/// specifiers, programs no segment can have, forms seal does not interpret or that allow
/// nothing. Each finding names the rule and a counterexample. Members of `permissions` that no
/// rule comes from (`alow`, `Deny`, a nested `permissions`) are findings too, with their line
/// and column.
///
/// ```
/// let findings = seal_policy::assembly::lint_rules(r#"{"permissions": {"allow": ["Bash(git log && rm:*)"]}}"#)?;
/// assert_eq!(findings.len(), 1);
/// assert!(findings[0].message().as_str().contains("separator"));
/// assert!(seal_policy::assembly::lint_rules(r#"{"permissions": {"allow": ["Bash(git status)"]}}"#)?.is_empty());
/// # Ok::<(), seal_policy::assembly::PolicyError>(())
/// ```
///
/// # Errors
/// [`PolicyError::Rules`] when the text is not a valid rule file.
pub fn lint_rules(json: &str) -> Result<Vec<RuleFinding>, PolicyError> {
    let rules = rule_set(json, Fallback::Ask, None)?;
    let mut findings: Vec<RuleFinding> = lint(&rules)
        .into_iter()
        .map(|finding| RuleFinding {
            index: Some(finding.rule),
            rule: finding.text.clone(),
            what: What::Rule(finding),
        })
        .collect();
    for (key, at) in rules.ignored_members() {
        findings.push(RuleFinding {
            index: None,
            rule: key.clone(),
            what: What::Member {
                at: *at,
                hint: closest_list(key),
            },
        });
    }
    Ok(findings)
}

impl fmt::Display for RuleFinding {
    /// The finding as one line, raw (its rule text, words and member names as they are):
    /// escape it for display, as [`RuleFinding::message`] does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.what {
            What::Rule(finding) => finding.fmt(f),
            What::Member { at, hint } => {
                write!(
                    f,
                    "line {}, column {}: member `{}` of `permissions` is not `allow`, `ask` or `deny`: no rule comes from it",
                    at.line, at.column, self.rule
                )?;
                match hint {
                    Some(list) => write!(f, " (did you mean `{list}`?)"),
                    None => Ok(()),
                }
            }
        }
    }
}
