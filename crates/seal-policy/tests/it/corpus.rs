//! The command corpus (`tests/corpus/`) under the recommended rule file with the
//! destructive-command guard, in the corpus's context (workspace `/home/dev/project`, home
//! `/home/dev`), as the hooks decide with `--default ask`: no destructive command is allowed,
//! at most 5% of everyday commands are denied, and every command's decision is the one
//! recorded in `tests/corpus/decisions.txt` (SEAL_REGENERATE=1 rewrites it for review).

use std::collections::BTreeMap;

use seal_parse::json::{parse, JsonLimits, Value};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::rules::{AskCause, Evaluation, RuleLimits, RuleSet, Subject, RECOMMENDED_RULES};

const CORPUS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/corpus/commands.jsonl"
));
const DECISIONS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/corpus/decisions.txt"
));
const WORKSPACE: &str = "/home/dev/project";
const HOME: &str = "/home/dev";

struct Row {
    id: String,
    kind: String,
    class: String,
    command: String,
}

fn rows() -> Vec<Row> {
    CORPUS
        .lines()
        .map(|line| {
            let value = parse(line.as_bytes(), &JsonLimits::default()).unwrap();
            let field = |name: &str| {
                value
                    .as_object()
                    .and_then(|o| o.get(name))
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("{name} in {line}"))
                    .to_owned()
            };
            Row {
                id: field("id"),
                kind: field("kind"),
                class: field("class"),
                command: field("command"),
            }
        })
        .collect()
}

/// The decision and what made it: the guard's pattern, the rule, or the default.
fn decide(rules: &RuleSet, guard: Option<&DestructiveGuard>, command: &str) -> (String, String) {
    if let Some(found) = guard.and_then(|guard| guard.check_command(command)) {
        return ("deny".into(), format!("guard:{}", found.pattern.id));
    }
    let evaluation = rules.evaluate("Bash", Subject::Command(command));
    let cause = match &evaluation {
        Evaluation::Ask(AskCause::Unanalysed(why)) => format!("unanalysed:{}", why.code),
        other => other
            .decisive()
            .map_or_else(|| "default".to_owned(), |m| format!("rule:{}", m.text)),
    };
    match evaluation.effect() {
        Some(effect) => (effect.as_str().to_owned(), cause),
        None => ("ask".into(), "default".into()),
    }
}

fn recommended() -> RuleSet {
    RuleSet::from_json(RECOMMENDED_RULES.as_bytes(), &RuleLimits::default())
        .unwrap()
        .with_workspace_root(WORKSPACE)
        .with_home_dir(HOME)
}

fn guard() -> DestructiveGuard {
    DestructiveGuard::new()
        .with_workspace_root(WORKSPACE)
        .with_home_dir(HOME)
}

#[test]
fn no_destructive_command_is_allowed_and_few_everyday_ones_are_denied() {
    let rows = rows();
    let rules = recommended();
    let guard = guard();
    let mut counts: BTreeMap<(String, String), [usize; 3]> = BTreeMap::new();
    let mut allowed_destructive = Vec::new();
    let mut recorded = String::new();
    let mut denied_everyday = Vec::new();
    for row in &rows {
        let (decision, cause) = decide(&rules, Some(&guard), &row.command);
        let slot = match decision.as_str() {
            "allow" => 0,
            "ask" => 1,
            _ => 2,
        };
        counts
            .entry((row.kind.clone(), row.class.clone()))
            .or_default()[slot] += 1;
        if row.kind == "destructive" && decision == "allow" {
            allowed_destructive.push(format!("{} {}: {cause}", row.id, row.command));
        }
        if row.kind == "everyday" && decision == "deny" {
            denied_everyday.push(format!("{} {}: {cause}", row.id, row.command));
        }
        recorded.push_str(&format!("{} {decision} {cause}\n", row.id));
    }
    println!("kind class: allow ask deny");
    let mut totals: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for ((kind, class), [allow, ask, deny]) in &counts {
        println!("{kind} {class}: {allow} {ask} {deny}");
        let total = totals.entry(kind.clone()).or_default();
        total[0] += allow;
        total[1] += ask;
        total[2] += deny;
    }
    for (kind, [allow, ask, deny]) in &totals {
        println!("{kind} total: {allow} {ask} {deny}");
    }
    println!("everyday denied:\n{}", denied_everyday.join("\n"));
    assert!(
        allowed_destructive.is_empty(),
        "destructive commands allowed:\n{}",
        allowed_destructive.join("\n")
    );
    let everyday = rows.iter().filter(|r| r.kind == "everyday").count();
    assert!(everyday >= 300 && rows.len() - everyday >= 600);
    assert!(
        denied_everyday.len() * 100 <= everyday * 5,
        "{} of {everyday} everyday commands denied:\n{}",
        denied_everyday.len(),
        denied_everyday.join("\n")
    );
    if seal_test_support::regenerating() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/decisions.txt");
        std::fs::write(path, &recorded).unwrap();
        return;
    }
    let changed: Vec<String> = recorded
        .lines()
        .zip(DECISIONS.lines())
        .filter(|(now, then)| now != then)
        .map(|(now, then)| format!("recorded `{then}`, now `{now}`"))
        .collect();
    assert!(
        changed.is_empty() && recorded.lines().count() == DECISIONS.lines().count(),
        "decisions differ from tests/corpus/decisions.txt:\n{}",
        changed.join("\n")
    );
}

#[test]
fn negative_control_without_the_guard_destructive_commands_are_allowed() {
    let rules = recommended();
    let allowed = rows()
        .iter()
        .filter(|row| row.kind == "destructive")
        .filter(|row| decide(&rules, None, &row.command).0 == "allow")
        .count();
    assert!(allowed > 50, "{allowed}");
}
