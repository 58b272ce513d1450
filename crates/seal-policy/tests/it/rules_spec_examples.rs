//! Runs the examples tables of spec/policy-rules.md (sections 13 and 15), so the spec's examples
//! are tests.

use seal_policy::rules::{AskCause, ClientDefault, Effect, Evaluation, RuleSet, Subject};

const SPEC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../spec/policy-rules.md"
));

fn subject<'a>(tool: &str, input: &'a str) -> Subject<'a> {
    match tool {
        "Bash" => Subject::Command(input),
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => Subject::Path(input),
        "WebFetch" => Subject::Url(input),
        "Agent" | "Task" | "Skill" => Subject::Name(input),
        _ => Subject::Opaque,
    }
}

#[test]
fn every_example_of_the_spec_holds() {
    let count = run_examples("rules-examples", ClientDefault::Nothing);
    assert!(count >= 50, "only {count} examples");
}

#[test]
fn every_default_mode_example_of_the_spec_holds() {
    let count = run_examples("default-mode-examples", ClientDefault::ClaudeCode);
    assert!(count >= 15, "only {count} examples");
}

/// Runs the table between the `<!-- {name}:begin -->` and `<!-- {name}:end -->` markers; the
/// number of rows.
fn run_examples(name: &str, mode: ClientDefault) -> usize {
    let table = SPEC
        .split(&format!("<!-- {name}:begin -->"))
        .nth(1)
        .and_then(|rest| rest.split(&format!("<!-- {name}:end -->")).next())
        .expect("examples table markers");
    let mut count = 0;
    for line in table.lines().filter(|l| l.starts_with('|')).skip(2) {
        let line = line.replace("\\|", "\u{1}");
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|cell| cell.trim().replace('\u{1}', "|"))
            .collect();
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        let [rules, tool, input, effect, decided] = cells[..] else {
            panic!("malformed row: {line}")
        };
        let mut set = RuleSet::default();
        for rule in rules.split(", ") {
            let (effect, text) = rule.split_once(' ').unwrap();
            let effect = match effect {
                "allow" => Effect::Allow,
                "ask" => Effect::Ask,
                "deny" => Effect::Deny,
                other => panic!("effect {other}"),
            };
            set.push(effect, text).unwrap();
        }
        let input = input
            .strip_prefix('`')
            .and_then(|i| i.strip_suffix('`'))
            .unwrap();
        let set = set.with_workspace_root("/ws").with_client_default(mode);
        let got = set.evaluate(tool, subject(tool, input));
        let want = match effect {
            "allow" => Some(Effect::Allow),
            "ask" => Some(Effect::Ask),
            "deny" => Some(Effect::Deny),
            "-" => None,
            other => panic!("effect {other}"),
        };
        assert_eq!(got.effect(), want, "{line}: {got}");
        let by = match &got {
            Evaluation::Ask(AskCause::Unanalysed(u)) => u.code.to_owned(),
            other => other.decisive().map(|m| m.text.clone()).unwrap_or_default(),
        };
        assert_eq!(by, decided, "{line}: {got}");
        count += 1;
    }
    count
}
