//! Lint of permission rules: rules that can never fire or do not mean what they seem to.

use std::fmt;

use seal_policy::assembly::{rule_set, Fallback};
use seal_policy::rules::{closest_list, lint};
use seal_render::{escape, Context};

use crate::builder::BuildError;

/// One rule that can never fire, or does not mean what it seems to, with a counterexample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFinding {
    /// The position of the rule in the rule text's allow, ask and deny lists (0-based, as the
    /// rule set orders them); `None` for a member of `permissions` no rule comes from.
    pub index: Option<usize>,
    /// The rule as written, or the member's name (escaped to ASCII).
    pub rule: String,
    /// What is wrong and the counterexample (ASCII).
    pub message: String,
}

/// Lints a rule text (the JSON the builder takes with
/// [`SealBuilder::rules_json`](crate::SealBuilder::rules_json)): rules covered by a deny,
/// asks under a broader allow, separators, quotes and misplaced wildcards in command
/// specifiers, programs no segment can have, forms seal does not interpret or that allow
/// nothing. Each finding names the rule and a counterexample. Members of `permissions` that no
/// rule comes from (`alow`, `Deny`, a nested `permissions`) are findings too, with their line
/// and column.
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
/// [`BuildError::Policy`] when the text is not a valid rule file.
pub fn lint_rules(json: &str) -> Result<Vec<RuleFinding>, BuildError> {
    let rules = rule_set(json, Fallback::Ask, None).map_err(BuildError::Policy)?;
    let mut findings: Vec<RuleFinding> = lint(&rules)
        .iter()
        .map(|finding| RuleFinding {
            index: Some(finding.rule),
            rule: escape(&finding.text, Context::Inline).into_owned(),
            message: escape(&finding.to_string(), Context::Inline).into_owned(),
        })
        .collect();
    for (key, at) in rules.ignored_members() {
        let hint = match closest_list(key) {
            Some(list) => format!(" (did you mean `{list}`?)"),
            None => String::new(),
        };
        let message = format!(
            "line {}, column {}: member `{}` of `permissions` is not `allow`, `ask` or `deny`: no rule comes from it{hint}",
            at.line,
            at.column,
            key.escape_debug()
        );
        findings.push(RuleFinding {
            index: None,
            rule: escape(key, Context::Inline).into_owned(),
            message: escape(&message, Context::Inline).into_owned(),
        });
    }
    Ok(findings)
}

impl fmt::Display for RuleFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
