#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Loading rule files: the accepted shapes, line-precise errors, and examples checked at load.

use seal_policy::rules::{
    AskCause, Effect, Evaluation, LoadErrorKind, RuleLimits, RuleSet, RuleSyntaxError, Subject,
};

fn load(text: &str) -> Result<RuleSet, seal_policy::rules::LoadError> {
    RuleSet::from_json(text.as_bytes(), &RuleLimits::default())
}

#[test]
fn rules_keep_document_order_and_their_positions() {
    let text = "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*)\"],\n    \"allow\": [\n      \"Bash(git log:*)\", {\"rule\": \"Read(src/**)\"}\n    ],\n    \"defaultMode\": \"default\"\n  },\n  \"env\": {\"X\": \"1\"}\n}";
    let set = load(text).unwrap();
    let summary: Vec<(Effect, &str, usize, usize)> = set
        .rules()
        .iter()
        .map(|r| {
            let at = r.location().unwrap();
            (r.effect(), r.text(), at.line, at.column)
        })
        .collect();
    assert_eq!(
        summary,
        [
            (Effect::Deny, "Bash(rm:*)", 3, 14),
            (Effect::Allow, "Bash(git log:*)", 5, 7),
            (Effect::Allow, "Read(src/**)", 5, 35),
        ]
    );
    let empty = load(r#"{"permissions": {}}"#).unwrap();
    assert!(empty.rules().is_empty());
}

#[test]
fn errors_point_at_the_offending_rule() {
    let text = "{\"permissions\": {\n  \"allow\": [\n    \"Bash(git status)\",\n      \"Bash(git log\"\n  ]\n}}";
    let error = load(text).unwrap_err();
    assert_eq!((error.line, error.column), (4, 7));
    assert!(matches!(
        &error.kind,
        LoadErrorKind::Rule { rule, error: RuleSyntaxError::UnbalancedParenthesis } if rule == "Bash(git log"
    ));
    // Columns count characters, not bytes.
    let error =
        load("{\"permissions\": {\"allow\": [\"Bash(\u{e9}\u{e9})\", \"Task(x)\"]}}").unwrap_err();
    assert_eq!((error.line, error.column), (1, 40));
    let error = load("{\"permissions\": {\"allow\": [\"Bash(lsx)\", \"Task(x)\"]}}").unwrap_err();
    assert_eq!((error.line, error.column), (1, 41));
}

#[test]
fn duplicate_keys_are_refused_where_the_second_one_stands() {
    let error = load("{\"permissions\": {\n\"allow\": [],\n\"allow\": [\"Bash\"]}}").unwrap_err();
    assert_eq!((error.line, error.column), (3, 1));
    assert!(matches!(error.kind, LoadErrorKind::Json(_)));
    let error =
        load(r#"{"permissions": {"deny": [{"rule": "Bash(rm:*)", "rule": "Bash"}]}}"#).unwrap_err();
    assert!(matches!(error.kind, LoadErrorKind::Json(_)));
}

#[test]
fn examples_are_checked_at_load() {
    let good = r#"{"permissions": {
      "allow": [
        {"rule": "Bash(git log:*)", "match": ["git log", "git log --oneline", "git log; git log -p"],
         "not_match": ["git logx", "git log && rm x", "sudo git log", "git log $(x)"]},
        {"rule": "Edit(src/**)", "match": ["src/a/b.rs", "./src/x"], "not_match": ["srcx/a", "../src/a", "/src/a"]},
        {"rule": "WebFetch(domain:*.example.com)", "match": ["https://a.example.com/x"], "not_match": ["https://example.com/", "https://a.example.com@evil.com/"]},
        {"rule": "mcp__github", "match": ["mcp__github__create_issue"], "not_match": ["mcp__gitlab__x", "mcp__github"]}
      ],
      "deny": [
        {"rule": "Bash(rm:*)", "match": ["sudo rm -rf t", "/bin/rm x", "ls && rm x", "bash -c 'rm x'"], "not_match": ["rmdir x", "rm $(x)"]}
      ],
      "ask": [
        {"rule": "Bash(git push:*)", "match": ["git push", "timeout 5 git push -f"], "not_match": ["git push > x"]}
      ]
    }}"#;
    let set = load(good).unwrap();
    assert_eq!(set.rules().len(), 6);

    let failing_match = "{\"permissions\": {\"allow\": [\n  {\"rule\": \"Bash(git log:*)\",\n   \"match\": [\"git log -p\", \"git logx\"]}\n]}}";
    let error = load(failing_match).unwrap_err();
    assert_eq!((error.line, error.column), (3, 28));
    assert!(matches!(
        &error.kind,
        LoadErrorKind::ExampleFailed { rule, example, should_match: true, .. }
            if rule == "Bash(git log:*)" && example == "git logx"
    ));

    let failing_not_match = r#"{"permissions": {"allow": [{"rule": "Bash(git log:*)", "not_match": ["git log && ls", "git log -p"]}]}}"#;
    let error = load(failing_not_match).unwrap_err();
    assert!(matches!(
        &error.kind,
        LoadErrorKind::ExampleFailed { example, should_match: false, .. } if example == "git log -p"
    ));

    // An ask caused by an unanalysable example is not the rule firing.
    let error =
        load(r#"{"permissions": {"ask": [{"rule": "Bash(curl:*)", "match": ["curl x > y"]}]}}"#)
            .unwrap_err();
    assert!(matches!(error.kind, LoadErrorKind::ExampleFailed { .. }));
}

/// A rule of exactly the byte limit and a set of exactly the rule limit are accepted; the set
/// keeps the limits it was made with.
#[test]
fn limits_accept_exactly_their_maximum() {
    let mut limits = RuleLimits::default();
    limits.max_rules = 2;
    limits.max_rule_bytes = 20;
    let mut set = RuleSet::new(limits);
    assert_eq!(set.limits(), &limits);
    let exact = format!("Bash({})", "a".repeat(14));
    assert_eq!(exact.len(), 20);
    set.push(Effect::Allow, &exact).unwrap();
    set.push(Effect::Deny, "Bash(b)").unwrap();
    assert_eq!(set.rules().len(), 2);
    assert_eq!(
        set.push(Effect::Ask, "Bash(c)"),
        Err(RuleSyntaxError::TooManyRules { max: 2 })
    );
    let mut set = RuleSet::new(limits);
    assert_eq!(
        set.push(Effect::Allow, &format!("Bash({})", "a".repeat(15))),
        Err(RuleSyntaxError::TooLong { len: 21, max: 20 })
    );
}

#[test]
fn limits_are_named() {
    let mut limits = RuleLimits::default();
    limits.max_rules = 2;
    limits.max_rule_bytes = 20;
    limits.max_examples = 1;
    let too_many = r#"{"permissions": {"allow": ["Bash(a)", "Bash(b)", "Bash(c)"]}}"#;
    let error = RuleSet::from_json(too_many.as_bytes(), &limits).unwrap_err();
    assert!(matches!(
        error.kind,
        LoadErrorKind::Rule {
            error: RuleSyntaxError::TooManyRules { max: 2 },
            ..
        }
    ));
    assert_eq!(error.column, 50);
    let too_long = r#"{"permissions": {"allow": ["Bash(aaaaaaaaaaaaaaaaaaaa)"]}}"#;
    let error = RuleSet::from_json(too_long.as_bytes(), &limits).unwrap_err();
    assert!(matches!(
        error.kind,
        LoadErrorKind::Rule {
            error: RuleSyntaxError::TooLong { len: 26, max: 20 },
            ..
        }
    ));
    let examples =
        r#"{"permissions": {"allow": [{"rule": "Bash(a)", "match": ["a"], "not_match": ["b"]}]}}"#;
    let error = RuleSet::from_json(examples.as_bytes(), &limits).unwrap_err();
    assert!(matches!(
        error.kind,
        LoadErrorKind::TooManyExamples { max: 1, .. }
    ));
}

/// Every refusal, as its message reads (snapshot).
#[test]
fn error_messages() {
    let cases: &[(&str, &[u8])] = &[
        ("trailing_comma", br#"{"permissions": {"allow": ["Bash(ls)",]}}"#),
        ("not_utf8", b"{\"permissions\": {\"allow\": [\"Bash(\xff)\"]}}"),
        ("duplicate_key", b"{\"permissions\": {\"allow\": [], \"allow\": []}}"),
        ("top_level_array", b"[]"),
        ("no_permissions", b"{\"allow\": []}"),
        ("permissions_array", br#"{"permissions": []}"#),
        ("unknown_list", br#"{"permissions": {"allw": ["Bash"]}}"#),
        ("list_not_array", br#"{"permissions": {"deny": "Bash(rm:*)"}}"#),
        ("rule_number", br#"{"permissions": {"deny": [42]}}"#),
        ("rule_empty", br#"{"permissions": {"deny": [""]}}"#),
        ("rule_whitespace", br#"{"permissions": {"deny": ["Bash(rm:*) "]}}"#),
        ("rule_unclosed", br#"{"permissions": {"deny": ["Bash(rm:*"]}}"#),
        ("rule_bad_tool", br#"{"permissions": {"deny": ["Ba sh"]}}"#),
        ("rule_empty_specifier", br#"{"permissions": {"deny": ["Bash()"]}}"#),
        ("rule_specifier_not_supported", br#"{"permissions": {"deny": ["Task(x)"]}}"#),
        ("rule_mcp_specifier", br#"{"permissions": {"deny": ["mcp__s__t(x)"]}}"#),
        ("path_home", br#"{"permissions": {"deny": ["Read(~/.ssh/**)"]}}"#),
        ("path_dot_dot", br#"{"permissions": {"deny": ["Read(a/../b)"]}}"#),
        ("path_class", br#"{"permissions": {"deny": ["Read(*.[ch])"]}}"#),
        ("domain_prefix", br#"{"permissions": {"allow": ["WebFetch(example.com)"]}}"#),
        ("domain_host", br#"{"permissions": {"allow": ["WebFetch(domain:ex_ample.com)"]}}"#),
        ("object_without_rule", br#"{"permissions": {"allow": [{"match": ["ls"]}]}}"#),
        ("object_unknown_member", br#"{"permissions": {"allow": [{"rule": "Bash(ls)", "matches": ["ls"]}]}}"#),
        ("object_rule_not_string", br#"{"permissions": {"allow": [{"rule": ["Bash(ls)"]}]}}"#),
        ("examples_not_array", br#"{"permissions": {"allow": [{"rule": "Bash(ls)", "match": "ls"}]}}"#),
        ("example_not_string", br#"{"permissions": {"allow": [{"rule": "Bash(ls)", "match": [1]}]}}"#),
        ("example_fails", br#"{"permissions": {"allow": [{"rule": "Bash(git log:*)", "match": ["git log && rm x"]}]}}"#),
        ("not_match_fires", br#"{"permissions": {"deny": [{"rule": "Bash(rm:*)", "not_match": ["sudo rm x"]}]}}"#),
    ];
    let mut report = String::new();
    for (name, input) in cases {
        let error = RuleSet::from_json(input, &RuleLimits::default()).unwrap_err();
        report.push_str(&format!("{name}: {error}\n"));
    }
    insta::assert_snapshot!(report);
}

/// Rules that name only the tool (no specifier) never look at the field: a path outside the
/// workspace, a URL that is not plain, or no field at all is then no reason to ask. With a
/// specified rule for the tool, each of those asks.
#[test]
fn a_field_that_cannot_be_read_asks_only_when_a_rule_would_read_it() {
    let tool_only = load(r#"{"permissions": {"allow": ["Read", "WebFetch"]}}"#)
        .unwrap()
        .with_workspace_root("/home/u/ws");
    let specified =
        load(r#"{"permissions": {"allow": ["Read(src/**)", "WebFetch(domain:x.example)"]}}"#)
            .unwrap()
            .with_workspace_root("/home/u/ws");
    let calls = [
        ("Read", Subject::Path("/etc/passwd")),
        ("WebFetch", Subject::Url("ftp://user@x.example/a")),
        ("Read", Subject::None),
        ("WebFetch", Subject::None),
    ];
    for (tool, subject) in calls {
        assert_eq!(
            tool_only.evaluate(tool, subject).effect(),
            Some(Effect::Allow),
            "{tool} {subject:?}"
        );
        assert_eq!(
            specified.evaluate(tool, subject).effect(),
            Some(Effect::Ask),
            "{tool} {subject:?}"
        );
    }
}

#[test]
fn a_loaded_set_evaluates_paths_relative_to_the_workspace() {
    let set = load(
        r#"{"permissions": {"allow": ["Edit(src/**)"], "deny": ["Edit(.env)", "Read(secrets/)"]}}"#,
    )
    .unwrap()
    .with_workspace_root("/home/u/ws");
    let edit = |p| set.evaluate("Edit", Subject::Path(p)).effect();
    assert_eq!(edit("src/a.rs"), Some(Effect::Allow));
    assert_eq!(edit("/home/u/ws/src/a.rs"), Some(Effect::Allow));
    assert_eq!(edit("src/.env"), Some(Effect::Deny));
    assert_eq!(edit("./src/../src/x/.env"), Some(Effect::Deny));
    assert_eq!(edit("../ws/src/a.rs"), Some(Effect::Ask));
    assert_eq!(edit("/home/u/other/src/a.rs"), Some(Effect::Ask));
    assert_eq!(edit("lib/a.rs"), None);
    let read = |p| set.evaluate("Read", Subject::Path(p)).effect();
    assert_eq!(read("secrets/key"), Some(Effect::Deny));
    assert_eq!(read("secrets"), None);
}

/// The ask a command leads to names the ask rule that matched at the first site where any ask
/// rule matched, whatever later segments match; a deny anywhere still wins.
#[test]
fn an_ask_names_the_rule_of_the_first_site_that_asks() {
    let set =
        load(r#"{"permissions": {"ask": ["Bash(b:*)", "Bash(a:*)"], "deny": ["Bash(z:*)"]}}"#)
            .unwrap();
    let asked = |command| match set.evaluate("Bash", Subject::Command(command)) {
        Evaluation::Ask(AskCause::Rule(found)) => found.text,
        other => panic!("{command}: {other:?}"),
    };
    assert_eq!(asked("a 1; b 2"), "Bash(a:*)");
    assert_eq!(asked("b 1; a 2"), "Bash(b:*)");
    assert_eq!(asked("x; a 1 && b 2 | b 3"), "Bash(a:*)");
    assert_eq!(
        set.evaluate("Bash", Subject::Command("a 1; z 2")).effect(),
        Some(Effect::Deny)
    );
}
