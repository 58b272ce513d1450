//! Lint of permission rules: rules that can never fire or do not mean what they seem to.

use std::fmt;

use seal_policy::rules::{lint, RuleLimits, RuleSet};
use seal_render::{escape, Context};

use crate::builder::BuildError;

/// One rule that can never fire, or does not mean what it seems to, with a counterexample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFinding {
    /// The position of the rule in the rule text's allow, ask and deny lists (0-based, as the
    /// rule set orders them).
    pub index: usize,
    /// The rule as written (escaped to ASCII).
    pub rule: String,
    /// What is wrong and the counterexample (ASCII).
    pub message: String,
}

/// Lints a rule text (the JSON the builder takes with
/// [`SealBuilder::rules_json`](crate::SealBuilder::rules_json)): rules covered by a deny,
/// asks under a broader allow, separators, quotes and misplaced wildcards in command
/// specifiers, programs no segment can have. Each finding names the rule and a counterexample.
///
/// ```
/// let findings = seal::lint_rules(r#"{"permissions": {"allow": ["Bash(git log && rm:*)"]}}"#)?;
/// assert_eq!(findings.len(), 1);
/// assert!(findings[0].message.contains("separator"));
/// assert!(seal::lint_rules(r#"{"permissions": {"allow": ["Bash(git status)"]}}"#)?.is_empty());
/// # Ok::<(), seal::BuildError>(())
/// ```
///
/// # Errors
/// [`BuildError::Rules`] when the text is not a valid rule file.
pub fn lint_rules(json: &str) -> Result<Vec<RuleFinding>, BuildError> {
    let rules = RuleSet::from_json(json.as_bytes(), &RuleLimits::default()).map_err(|error| {
        BuildError::Rules {
            line: error.line,
            column: error.column,
            detail: error.kind.to_string(),
        }
    })?;
    Ok(lint(&rules)
        .iter()
        .map(|finding| RuleFinding {
            index: finding.rule,
            rule: escape(&finding.text, Context::Inline).into_owned(),
            message: escape(&finding.to_string(), Context::Inline).into_owned(),
        })
        .collect())
}

impl fmt::Display for RuleFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
