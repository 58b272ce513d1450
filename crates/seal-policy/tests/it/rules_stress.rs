//! Large and adversarial inputs at the limits: the loader, the evaluator and the lint finish and
//! decide correctly (no wall-clock assertion; a quadratic blow-up shows as a test that never
//! ends).

use seal_policy::rules::{
    fuzz_check, lint, Effect, Evaluation, RuleLimits, RuleSet, RulesErrorKind, Subject,
};

fn big_rule_file(count: usize) -> String {
    let mut rules = Vec::new();
    for i in 0..count {
        let rule = match i % 4 {
            0 => format!("\"Bash(tool{i} sub:*)\""),
            1 => format!("\"Bash(tool{i} *x*y*z* --flag)\""),
            2 => format!("\"Edit(dir{i}/**/*.rs)\""),
            _ => format!("\"WebFetch(domain:*.host{i}.example)\""),
        };
        rules.push(rule);
    }
    format!(
        "{{\"permissions\": {{\"allow\": [\n{}\n], \"deny\": [\"Bash(rm:*)\"]}}}}",
        rules.join(",\n")
    )
}

#[test]
fn the_largest_rule_file_against_the_largest_command() {
    let text = big_rule_file(4095);
    let set = RuleSet::from_json(text.as_bytes(), &RuleLimits::default()).unwrap();
    assert_eq!(set.rules().len(), 4096);
    // 255 allowed segments, each behind wrappers, then a denied one.
    let mut command = String::new();
    for i in 0..255 {
        command.push_str(&format!(
            "sudo nice -n 5 tool{} sub arg{i} && ",
            (i % 1000) * 4
        ));
    }
    command.push_str("timeout 5 /bin/rm -rf t");
    let got = set.evaluate("Bash", Subject::Command(&command));
    assert!(
        matches!(&got, Evaluation::Deny(m) if m.text == "Bash(rm:*)"),
        "{got}"
    );
    let allowed = command
        .replace(" && timeout 5 /bin/rm -rf t", "")
        .replace("sudo nice -n 5 ", "");
    assert_eq!(
        set.evaluate("Bash", Subject::Command(&allowed)).effect(),
        Some(Effect::Allow)
    );
    assert!(lint(&set).is_empty());
}

#[test]
fn a_launcher_with_many_options_and_a_long_payload() {
    let mut set = RuleSet::default();
    set.push(Effect::Allow, "Bash(git log:*)").unwrap();
    set.push(Effect::Deny, "Bash(bash -e:*)").unwrap();
    let options = "-e ".repeat(1000);
    let payload = "git log; ".repeat(200);
    let command = format!("bash {options}-c '{payload}'");
    let got = set.evaluate("Bash", Subject::Command(&command));
    assert_eq!(got.effect(), Some(Effect::Deny), "{got}");
}

#[test]
fn long_paths_and_many_wildcards() {
    let mut set = RuleSet::default();
    set.push(Effect::Allow, "Edit(**/a/**/b/**/c/**/*.rs)")
        .unwrap();
    set.push(Effect::Deny, "Edit(**/*a*a*a*a*a*a*b)").unwrap();
    let path = format!("{}x.rs", "a/".repeat(20_000));
    assert_eq!(set.evaluate("Edit", Subject::Path(&path)).effect(), None);
    let word = format!("{}c", "a".repeat(50_000));
    assert_eq!(set.evaluate("Edit", Subject::Path(&word)).effect(), None);
}

#[test]
fn the_loader_on_large_refused_documents() {
    let mut text = " \n".repeat(500_000);
    text.push_str("{\"permissions\": {\"allow\": [\"Bash\", 7]}}");
    let error = RuleSet::from_json(text.as_bytes(), &RuleLimits::default()).unwrap_err();
    assert_eq!(error.line, 500_001);
    assert!(matches!(error.kind, RulesErrorKind::WrongType { .. }));
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let error = RuleSet::from_json(deep.as_bytes(), &RuleLimits::default()).unwrap_err();
    assert!(matches!(error.kind, RulesErrorKind::Json(_)));
}

#[test]
fn the_fuzz_check_holds_on_the_large_inputs() {
    fuzz_check::rules_load(big_rule_file(300).as_bytes()).unwrap();
    let mut hostile = String::from(
        r#"{"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"], "allow": ["Bash"]}}"#,
    );
    hostile.push_str(&" && sudo rm -rf t; bash -c 'git push'".repeat(100));
    fuzz_check::rules_load(hostile.as_bytes()).unwrap();
}
