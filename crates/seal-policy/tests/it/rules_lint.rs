//! The lint: each finding names the rule, says why, and carries a counterexample whose
//! evaluation by the whole set shows the claim.

use seal_policy::rules::{lint, AskCause, Effect, Evaluation, FindingKind, LintFinding, RuleSet};

fn set(rules: &[(Effect, &str)]) -> RuleSet {
    let mut set = RuleSet::default();
    for &(effect, text) in rules {
        set.push(effect, text).unwrap();
    }
    set
}

fn only(findings: &[LintFinding], rule: &str) -> Vec<LintFinding> {
    findings
        .iter()
        .filter(|f| f.text == rule)
        .cloned()
        .collect()
}

#[test]
fn an_allow_covered_by_a_deny_never_fires() {
    let rules = set(&[
        (Effect::Allow, "Bash(git clean -n:*)"),
        (Effect::Allow, "Bash(git log:*)"),
        (Effect::Deny, "Bash(git clean:*)"),
    ]);
    let findings = lint(&rules);
    let [finding] = &only(&findings, "Bash(git clean -n:*)")[..] else {
        panic!("{findings:?}")
    };
    assert_eq!(finding.kind, FindingKind::CoveredByDeny { deny: 2 });
    assert_eq!(finding.counterexample, "git clean -n");
    assert!(
        finding.fires_alone,
        "the counterexample is one the allow rule matches"
    );
    assert!(matches!(&finding.evaluation, Evaluation::Deny(m) if m.text == "Bash(git clean:*)"));
    assert!(only(&findings, "Bash(git log:*)").is_empty());
}

#[test]
fn an_ask_under_a_tool_wide_deny_never_fires() {
    let rules = set(&[
        (Effect::Ask, "WebFetch(domain:docs.rs)"),
        (Effect::Deny, "WebFetch"),
    ]);
    let findings = lint(&rules);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].kind, FindingKind::CoveredByDeny { deny: 1 });
    assert_eq!(findings[0].counterexample, "https://docs.rs/");
    assert_eq!(findings[0].evaluation.effect(), Some(Effect::Deny));
}

#[test]
fn an_ask_under_a_broad_allow_is_reported_and_still_asks() {
    let rules = set(&[(Effect::Allow, "Bash"), (Effect::Ask, "Bash(git push:*)")]);
    let findings = lint(&rules);
    let [finding] = &findings[..] else {
        panic!("{findings:?}")
    };
    assert_eq!(finding.text, "Bash(git push:*)");
    assert_eq!(finding.kind, FindingKind::AskUnderBroadAllow { allow: 0 });
    assert_eq!(finding.counterexample, "git push");
    assert!(
        matches!(&finding.evaluation, Evaluation::Ask(AskCause::Rule(m)) if m.text == "Bash(git push:*)")
    );
    let mcp = set(&[
        (Effect::Allow, "mcp__github"),
        (Effect::Ask, "mcp__github__delete_repo"),
    ]);
    let findings = lint(&mcp);
    assert_eq!(
        findings[0].kind,
        FindingKind::AskUnderBroadAllow { allow: 0 }
    );
    assert_eq!(findings[0].tool, "mcp__github__delete_repo");
    assert_eq!(findings[0].evaluation.effect(), Some(Effect::Ask));
}

#[test]
fn an_allow_with_a_separator_is_reported_with_the_command_it_spells() {
    for (rule, word, command) in [
        ("Bash(git log && rm:*)", "&&", "git log && rm"),
        ("Bash(git log; rm -rf t)", "log;", "git log; rm -rf t"),
        ("Bash(cat x | tee y)", "|", "cat x | tee y"),
    ] {
        let rules = set(&[(Effect::Allow, rule)]);
        let findings = lint(&rules);
        let [finding] = &findings[..] else {
            panic!("{rule}: {findings:?}")
        };
        assert_eq!(
            finding.kind,
            FindingKind::Separator { word: word.into() },
            "{rule}"
        );
        assert_eq!(finding.counterexample, command);
        assert!(!finding.fires_alone, "{rule}");
        assert_eq!(finding.evaluation.effect(), None, "{rule}");
    }
    // A deny spelled with a separator denies the command as written (Claude Code's reading,
    // spaces aside: `curl x|sh` too), and is still reported: the pair under another spelling
    // (`curl x | /bin/sh`) is not that text.
    let rules = set(&[(Effect::Deny, "Bash(curl x | sh)")]);
    let findings = lint(&rules);
    assert!(matches!(findings[0].kind, FindingKind::Separator { .. }));
    assert_eq!(findings[0].evaluation.effect(), Some(Effect::Deny));
    assert!(findings[0].fires_alone);
    let other_spelling = rules.evaluate(
        "Bash",
        seal_policy::rules::Subject::Command("curl x | /bin/sh"),
    );
    // Not denied by the rule's text; it asks because `sh` runs commands read from its input.
    assert_eq!(other_spelling.effect(), Some(Effect::Ask));
    assert!(other_spelling
        .to_string()
        .contains("reads commands from its input"));
    let same_text = rules.evaluate("Bash", seal_policy::rules::Subject::Command("curl x|sh"));
    assert_eq!(same_text.effect(), Some(Effect::Deny));
}

#[test]
fn specifiers_that_can_never_match_a_segment() {
    for (rule, counterexample) in [
        ("Bash(eval:*)", "eval"),
        ("Bash(if:*)", "if"),
        ("Bash(r\u{217f}:*)", "r\u{217f}"),
        ("Bash($CMD x)", "$CMD x"),
        ("Bash(~/bin/tool)", "~/bin/tool"),
    ] {
        let rules = set(&[(Effect::Allow, rule)]);
        let findings = lint(&rules);
        assert!(
            findings
                .iter()
                .any(|f| matches!(f.kind, FindingKind::NeverMatches { .. })
                    && f.counterexample == counterexample
                    && !f.fires_alone
                    && f.evaluation.effect() != Some(Effect::Allow)),
            "{rule}: {findings:?}"
        );
    }
}

#[test]
fn allow_rules_that_allow_nothing_and_uninterpreted_rules_are_named() {
    for rule in [
        "Write(src/**)",
        "NotebookEdit(*.ipynb)",
        "mcp__*",
        "Read(../x/**)",
        "Read(~/notes/**)",
    ] {
        let rules = set(&[(Effect::Allow, rule)]);
        let findings = lint(&rules);
        assert!(
            findings
                .iter()
                .any(|f| matches!(f.kind, FindingKind::AllowsNothing { .. })
                    && f.evaluation.effect() != Some(Effect::Allow)),
            "{rule}: {findings:?}"
        );
    }
    // Negative controls: the forms that do allow are not reported.
    for rule in ["Edit(src/**)", "mcp__s", "Read(//etc/**)"] {
        let findings = lint(&set(&[(Effect::Allow, rule)]));
        assert!(findings.is_empty(), "{rule}: {findings:?}");
    }
    let home = set(&[(Effect::Allow, "Read(~/notes/**)")]).with_home_dir("/home/u");
    assert!(lint(&home).is_empty());
    // An uninterpreted rule from a file is named with its line and column.
    let loaded = RuleSet::from_json(
        b"{\"permissions\": {\n  \"deny\": [\"WebSearch(go)\"]}}",
        &seal_policy::rules::RuleLimits::default(),
    )
    .unwrap();
    let findings = lint(&loaded);
    assert!(matches!(
        findings[0].kind,
        FindingKind::Uninterpreted { .. }
    ));
    assert!(
        findings[0].to_string().starts_with("line 2, column 12: "),
        "{}",
        findings[0]
    );
    assert_eq!(findings[0].evaluation.effect(), Some(Effect::Ask));
}

#[test]
fn malformed_but_parsable_specifiers() {
    let rules = set(&[
        (Effect::Allow, "Bash(git commit -m \"wip\":*)"),
        (Effect::Allow, "Bash(npm:* test)"),
    ]);
    let findings = lint(&rules);
    let quotes = &only(&findings, "Bash(git commit -m \"wip\":*)")[0];
    assert_eq!(quotes.kind, FindingKind::LiteralQuotes);
    assert_eq!(quotes.counterexample, "git commit -m wip");
    assert_eq!(quotes.evaluation.effect(), None);
    let misplaced = &only(&findings, "Bash(npm:* test)")[0];
    assert_eq!(misplaced.kind, FindingKind::MisplacedPrefixWildcard);
    assert_eq!(misplaced.counterexample, "npm test");
    assert_eq!(misplaced.evaluation.effect(), None);
}

#[test]
fn a_clean_set_has_no_finding() {
    let rules = set(&[
        (Effect::Allow, "Bash(git log:*)"),
        (Effect::Allow, "Bash(git status)"),
        (Effect::Allow, "Read(src/**)"),
        (Effect::Ask, "Bash(git push:*)"),
        (Effect::Deny, "Bash(rm:*)"),
        (Effect::Deny, "Read(./.env)"),
    ]);
    assert_eq!(lint(&rules), []);
}

#[test]
fn finding_messages() {
    let rules = set(&[
        (Effect::Allow, "Bash"),
        (Effect::Allow, "Bash(git clean -n:*)"),
        (Effect::Allow, "Bash(git log && rm:*)"),
        (Effect::Allow, "Bash(eval:*)"),
        (Effect::Allow, "Bash(git commit -m 'x')"),
        (Effect::Allow, "Bash(npm:* test)"),
        (Effect::Ask, "Bash(git push:*)"),
        (Effect::Deny, "Bash(git clean:*)"),
    ]);
    let report: Vec<String> = lint(&rules).iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(report.join("\n"));
}
