//! Lint of permission rules: rules that can never fire or do not mean what they seem to.

use std::fmt;

use seal_policy::rules::{lint, RuleLimits, RuleSet};
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
/// [`BuildError::Rules`] when the text is not a valid rule file.
pub fn lint_rules(json: &str) -> Result<Vec<RuleFinding>, BuildError> {
    let rules = RuleSet::from_json(json.as_bytes(), &RuleLimits::default()).map_err(|error| {
        BuildError::Rules {
            line: error.line,
            column: error.column,
            detail: error.kind.to_string(),
        }
    })?;
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

/// The rule list `key` was likely meant to be: the same letters in another case, or at most
/// two edits away.
fn closest_list(key: &str) -> Option<&'static str> {
    ["allow", "ask", "deny"]
        .into_iter()
        .find(|list| key.eq_ignore_ascii_case(list) || edits(key, list) <= 2)
}

/// Levenshtein distance, for short keys (longer ones are never close: `usize::MAX`).
fn edits(a: &str, b: &str) -> usize {
    if a.len() > 32 {
        return usize::MAX;
    }
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut next = Vec::with_capacity(row.len());
        next.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let cost = |at: usize, add: usize| row.get(at).map_or(usize::MAX, |d| d + add);
            let diagonal = cost(j, usize::from(ca != *cb));
            let up = cost(j + 1, 1);
            let left = next.last().map_or(usize::MAX, |d| d + 1);
            next.push(diagonal.min(up).min(left));
        }
        row = next;
    }
    row.last().copied().unwrap_or(usize::MAX)
}

impl fmt::Display for RuleFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
