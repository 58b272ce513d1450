//! Loading rule files: the accepted shapes, line-precise errors, and examples checked at load.

use seal_policy::rules::{
    AskCause, Effect, Evaluation, RuleLimits, RuleSet, RuleSyntaxError, RulesErrorKind, Subject,
};

fn load(text: &str) -> Result<RuleSet, seal_policy::rules::RulesError> {
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
    let text = "{\"permissions\": {\n  \"allow\": [\n    \"Bash(git status)\",\n      7\n  ]\n}}";
    let error = load(text).unwrap_err();
    assert_eq!((error.line, error.column), (4, 7));
    assert!(matches!(&error.kind, RulesErrorKind::WrongType { .. }));
    // Columns count characters, not bytes.
    let error = load("{\"permissions\": {\"allow\": [\"Bash(\u{e9}\u{e9})\", 7]}}").unwrap_err();
    assert_eq!((error.line, error.column), (1, 40));
    let error = load("{\"permissions\": {\"allow\": [\"Bash(lsx)\", 7]}}").unwrap_err();
    assert_eq!((error.line, error.column), (1, 41));
    // A rule outside the syntax loads, uninterpreted, where it stands (Claude Code loads it).
    let set =
        load("{\"permissions\": {\"allow\": [\"Bash(git log\", \" Bash(ls) \", \"Bash()\"]}}")
            .unwrap();
    for entry in set.rules() {
        assert!(
            matches!(
                entry.rule().specifier(),
                seal_policy::rules::Specifier::Uninterpreted(_)
            ),
            "{}",
            entry.text()
        );
    }
}

#[test]
fn duplicate_keys_are_refused_where_the_second_one_stands() {
    let error = load("{\"permissions\": {\n\"allow\": [],\n\"allow\": [\"Bash\"]}}").unwrap_err();
    assert_eq!((error.line, error.column), (3, 1));
    assert!(matches!(error.kind, RulesErrorKind::Json(_)));
    let error =
        load(r#"{"permissions": {"deny": [{"rule": "Bash(rm:*)", "rule": "Bash"}]}}"#).unwrap_err();
    assert!(matches!(error.kind, RulesErrorKind::Json(_)));
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
        {"rule": "Bash(rm:*)", "match": ["sudo rm -rf t", "/bin/rm x", "ls && rm x", "bash -c 'rm x'"], "not_match": ["rmdir x", "rm\\ x"]},
        {"rule": "Bash(rm:*)", "match": ["rm $(x)"]}
      ],
      "ask": [
        {"rule": "Bash(git push:*)", "match": ["git push", "timeout 5 git push -f", "git push > x"], "not_match": ["git pushx", "git pull > x"]}
      ]
    }}"#;
    let set = load(good).unwrap();
    assert_eq!(set.rules().len(), 7);

    let failing_match = "{\"permissions\": {\"allow\": [\n  {\"rule\": \"Bash(git log:*)\",\n   \"match\": [\"git log -p\", \"git logx\"]}\n]}}";
    let error = load(failing_match).unwrap_err();
    assert_eq!((error.line, error.column), (3, 28));
    assert!(matches!(
        &error.kind,
        RulesErrorKind::ExampleFailed { rule, example, should_match: true, .. }
            if rule == "Bash(git log:*)" && example == "git logx"
    ));

    let failing_not_match = r#"{"permissions": {"allow": [{"rule": "Bash(git log:*)", "not_match": ["git log && ls", "git log -p"]}]}}"#;
    let error = load(failing_not_match).unwrap_err();
    assert!(matches!(
        &error.kind,
        RulesErrorKind::ExampleFailed { example, should_match: false, .. } if example == "git log -p"
    ));

    // An ask caused by an unanalysable example is not the rule firing.
    let error = load(
        r#"{"permissions": {"ask": [{"rule": "Bash(curl:*)", "match": ["echo $(wget x)"]}]}}"#,
    )
    .unwrap_err();
    assert!(matches!(error.kind, RulesErrorKind::ExampleFailed { .. }));
    // The rule firing on what can be read of an unanalysable example is.
    assert!(load(
        r#"{"permissions": {"ask": [{"rule": "Bash(curl:*)", "match": ["echo $(curl x)"]}]}}"#,
    )
    .is_ok());
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
        RulesErrorKind::Rule {
            error: RuleSyntaxError::TooManyRules { max: 2 },
            ..
        }
    ));
    assert_eq!(error.column, 50);
    let too_long = r#"{"permissions": {"allow": ["Bash(aaaaaaaaaaaaaaaaaaaa)"]}}"#;
    let error = RuleSet::from_json(too_long.as_bytes(), &limits).unwrap_err();
    assert!(matches!(
        error.kind,
        RulesErrorKind::Rule {
            error: RuleSyntaxError::TooLong { len: 26, max: 20 },
            ..
        }
    ));
    let examples =
        r#"{"permissions": {"allow": [{"rule": "Bash(a)", "match": ["a"], "not_match": ["b"]}]}}"#;
    let error = RuleSet::from_json(examples.as_bytes(), &limits).unwrap_err();
    assert!(matches!(
        error.kind,
        RulesErrorKind::TooManyExamples { max: 1, .. }
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
        ("list_not_array", br#"{"permissions": {"deny": "Bash(rm:*)"}}"#),
        ("rule_number", br#"{"permissions": {"deny": [42]}}"#),
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

/// Every form Claude Code accepts loads, in one file; a form seal cannot interpret never
/// refuses the file: as an allow rule it allows nothing, as a deny or ask rule every call of
/// its tool asks. Structural errors still refuse the file (see `error_messages`).
#[test]
fn every_claude_code_form_loads() {
    let forms = [
        "Bash",
        "Bash(*)",
        "Bash(npm run test*)",
        "Bash(git * main)",
        "Bash(git commit -m \"msg\")",
        "Bash(echo $HOME)",
        "Bash(cd /tmp && ls)",
        "PowerShell",
        "PowerShell(Get-ChildItem:*)",
        "Read",
        "Read(~/x)",
        "Read(~/.ssh/**)",
        "Read([ab].txt)",
        "Read(../x/**)",
        "Read(./a/../x)",
        "Read(c:\\Users\\x)",
        "Read(//etc/passwd)",
        "Read({a,b}/c)",
        "Edit(src/**)",
        "Write(*.md)",
        "MultiEdit(x)",
        "NotebookEdit(*.ipynb)",
        "Grep",
        "Grep(*.rs)",
        "Glob(src/**)",
        "WebFetch",
        "WebFetch(domain:docs.rs)",
        "WebFetch(https://example.com/x)",
        "WebSearch",
        "WebSearch(q)",
        "mcp__s",
        "mcp__s__*",
        "mcp__s__t",
        "mcp__s__t(arg)",
        "mcp__*",
        "mcp__*(x)",
        "mcp__git*__read",
        "Agent",
        "Agent(name)",
        "Task",
        "Task(name)",
        "Skill",
        "Skill(x)",
        "Skill(x:*)",
        "SlashCommand",
        "SlashCommand(/x)",
        "SlashCommand(/x:*)",
        "SomeNewTool",
        "SomeNewTool(anything at all)",
        "*",
    ];
    for effect in ["allow", "ask", "deny"] {
        let rules: Vec<String> = forms.iter().map(|f| format!("{f:?}")).collect();
        let text = format!(
            r#"{{"permissions": {{"{effect}": [{}], "permissions": {{"allow": ["x"]}}, "defaultMode": "ask"}}}}"#,
            rules.join(", ")
        );
        let set = load(&text).unwrap_or_else(|e| panic!("{effect}: {e}"));
        assert_eq!(set.rules().len(), forms.len());
    }
    // Uninterpreted forms: an allow allows nothing, a deny or an ask asks for every call.
    for (rule, tool) in [
        ("WebSearch(q)", "WebSearch"),
        ("Agent(Ex*)", "Agent"),
        ("Task(Ex*)", "Agent"),
        ("Skill(x:*)", "Skill"),
        ("SlashCommand(/x)", "SlashCommand"),
        ("mcp__s__t(arg)", "mcp__s__t"),
        ("Grep(*.rs)", "Grep"),
        ("PowerShell(Get-ChildItem:*)", "PowerShell"),
        ("Read(c:\\x)", "Read"),
        ("WebFetch(https://example.com/x)", "WebFetch"),
    ] {
        let tool_too = if tool == "Read" || tool == "WebFetch" {
            String::new()
        } else {
            format!(", {tool:?}")
        };
        let allow = load(&format!(r#"{{"permissions": {{"allow": [{rule:?}]}}}}"#)).unwrap();
        let subject = match tool {
            "Read" | "Grep" => Subject::Path("a.txt"),
            "WebFetch" => Subject::Url("https://example.com/x"),
            "Agent" => Subject::Name("Explore"),
            "Skill" => Subject::Name("x"),
            _ => Subject::Opaque,
        };
        assert_eq!(allow.evaluate(tool, subject).effect(), None, "{rule}");
        for effect in ["ask", "deny"] {
            let set = load(&format!(
                r#"{{"permissions": {{"allow": ["*"{tool_too}], "{effect}": [{rule:?}]}}}}"#
            ))
            .unwrap();
            let got = set.evaluate(tool, subject);
            assert_eq!(got.effect(), Some(Effect::Ask), "{effect} {rule}: {got}");
            assert!(got.to_string().contains("not interpreted"), "{got}");
            // Other tools are untouched.
            assert_eq!(
                set.evaluate("Other", Subject::Opaque).effect(),
                Some(Effect::Allow),
                "{rule}"
            );
        }
    }
    // Agent, Task and Skill specifiers are names, compared exactly.
    let names =
        load(r#"{"permissions": {"allow": ["Skill(x)"], "deny": ["Task(Explore)"]}}"#).unwrap();
    assert_eq!(
        names.evaluate("Skill", Subject::Name("x")).effect(),
        Some(Effect::Allow)
    );
    assert_eq!(names.evaluate("Skill", Subject::Name("y")).effect(), None);
    assert_eq!(
        names.evaluate("Agent", Subject::Name("Explore")).effect(),
        Some(Effect::Deny)
    );
    assert_eq!(
        names.evaluate("Agent", Subject::Name("Plan")).effect(),
        None
    );
    assert_eq!(
        names.evaluate("Agent", Subject::Opaque).effect(),
        Some(Effect::Ask)
    );
    // Negative control: a structural error still refuses the file, with its position.
    let error = load("{\"permissions\": {\"deny\": [\"Read(x)\", 7]}}").unwrap_err();
    assert_eq!((error.line, error.column), (1, 38));
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
        ("Read", Subject::Opaque),
        ("WebFetch", Subject::Opaque),
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
    // `..` resolved against the root: back inside it.
    assert_eq!(edit("../ws/src/a.rs"), Some(Effect::Allow));
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
