//! Fuzz entry point for the rule loader, shared by the cargo-fuzz target `rules_load` and the
//! corpus replay test.

use super::evaluation::{AskCause, Evaluation};
use super::load::example_outcome;
use super::locate::line_column;
use super::{lint, Effect, FieldKind, RuleLimits, RuleSet, Subject, ToolPattern};

/// Loads `data` as a rule file and checks what must hold whatever the input:
///
/// - a refusal's line and column are those of its byte offset, which lies within the input;
/// - every loaded rule's location is that of its offset, and its text parses to the same rule;
/// - on each rule's own example input and on the data read as a command, the whole set agrees
///   with the rule alone under deny > ask > allow: a rule that denies alone makes the set deny,
///   one that asks alone makes it deny or ask, and the set allows only if no deny or ask rule
///   fires alone;
/// - an allowed command is analysable;
/// - the lint runs.
///
/// # Errors
///
/// A sentence naming the violated property.
pub fn rules_load(data: &[u8]) -> Result<(), String> {
    let limits = RuleLimits::default();
    let set = match RuleSet::from_json(data, &limits) {
        Err(error) => {
            if error.offset > data.len() {
                return Err(format!("error offset {} beyond the input", error.offset));
            }
            if (error.line, error.column) != line_column(data, error.offset) {
                return Err(format!("error position does not match its offset: {error}"));
            }
            return Ok(());
        }
        Ok(set) => set,
    };
    for entry in set.rules() {
        if let Some(at) = entry.location() {
            if (at.line, at.column) != line_column(data, at.offset) {
                return Err(format!("rule `{}` located inconsistently", entry.text()));
            }
        }
        let again = super::Rule::parse(entry.text()).map_err(|e| e.to_string())?;
        if &again != entry.rule() {
            return Err(format!("rule `{}` parses differently", entry.text()));
        }
    }
    let mut probes: Vec<(String, String)> = lint(&set)
        .into_iter()
        .map(|f| (f.tool, f.counterexample))
        .collect();
    probes.push((
        "Bash".to_owned(),
        String::from_utf8_lossy(data).into_owned(),
    ));
    for (tool, input) in &probes {
        check_precedence(&set, &limits, tool, input)?;
    }
    Ok(())
}

fn check_precedence(
    set: &RuleSet,
    limits: &RuleLimits,
    tool: &str,
    input: &str,
) -> Result<(), String> {
    let subject = match FieldKind::of(tool) {
        FieldKind::Command => Subject::Command(input),
        FieldKind::Path => Subject::Path(input),
        FieldKind::Url => Subject::Url(input),
        FieldKind::Name => Subject::Name(input),
        FieldKind::ToolOnly => Subject::Opaque,
    };
    let whole = set.evaluate(tool, subject);
    if matches!(whole, Evaluation::Allow(_))
        && FieldKind::of(tool) == FieldKind::Command
        && seal_parse::shell::segment(input, &limits.shell).is_err()
    {
        return Err(format!("unanalysable command `{input}` allowed"));
    }
    for entry in set.rules() {
        let same_tool = match entry.rule().tool() {
            ToolPattern::Exact(name) => name == tool,
            _ => false,
        };
        if !same_tool || entry.effect() == Effect::Allow {
            continue;
        }
        let (fires, _) = example_outcome(limits, entry.effect(), entry.text(), input);
        let consistent = match (entry.effect(), &whole) {
            (_, _) if !fires => true,
            (Effect::Deny, Evaluation::Deny(_)) => true,
            (Effect::Ask, Evaluation::Deny(_) | Evaluation::Ask(AskCause::Rule(_))) => true,
            _ => false,
        };
        if !consistent {
            return Err(format!(
                "{} rule `{}` fires alone on `{input}` but the set gives {whole}",
                entry.effect(),
                entry.text()
            ));
        }
    }
    Ok(())
}
