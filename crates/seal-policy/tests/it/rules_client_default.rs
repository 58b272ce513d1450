//! Claude Code's default mode as seal models it ([`ClientDefault::ClaudeCode`]): what it
//! allows with no rule, each next to its negative twins (an option that writes, a path outside
//! the workspace, an expansion, a wrapper), and how it sits under deny and ask rules.

use seal_policy::rules::{ClientDefault, Effect, Evaluation, RuleLimits, RuleSet, Subject};
use seal_test_support::permissions_json;

const ROOT: &str = "/ws";

fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleSet {
    let text = permissions_json(allow, ask, deny);
    RuleSet::from_json(text.as_bytes(), &RuleLimits::default())
        .unwrap()
        .with_workspace_root(ROOT)
        .with_client_default(ClientDefault::ClaudeCode)
}

fn bash(set: &RuleSet, command: &str) -> Evaluation {
    set.evaluate("Bash", Subject::Command(command))
}

fn by_default(evaluation: &Evaluation) -> bool {
    matches!(evaluation, Evaluation::ClientDefault(_))
}

#[test]
fn read_only_commands_are_allowed_and_their_twins_are_not() {
    let set = rules(&[], &[], &[]);
    let allowed = [
        "ls",
        "ls -la src",
        "ls /ws/src",
        "cat a.txt ./b.txt",
        "head -n 5 a.txt",
        "head -n5 a.txt",
        "tail -5 a.txt",
        "wc -lw a.txt",
        "echo rm -rf /",
        "echo -e 'a\\tb'",
        "grep -rn foo src",
        "grep -E 'a|b' a.txt",
        "sed -n 1,20p a.txt",
        "find src -name '*.ts' -type f",
        "find . -newer a.txt",
        "git status --short",
        "git log --oneline -n 5",
        "git diff --stat",
        "git branch",
        "test -f a.txt",
        "date +%s",
        "cat a.txt | sort | uniq",
        "ls && pwd",
        "ls || pwd",
        "ls\npwd",
        // A `cd` into the workspace, then paths read there (Claude Code 2.1.332 allows it).
        "cd src && ls",
        "cd src && cat a.ts",
        // Assignments Claude Code strips.
        "NODE_ENV=test ls",
        "LANG=C grep -n a a.txt",
    ];
    for command in allowed {
        assert!(by_default(&bash(&set, command)), "`{command}` not allowed");
    }
    let twins = [
        // Options that write or run.
        "sort -o out a.txt",
        "sort --output=out a.txt",
        "git diff --output=out",
        "git log --output=out",
        "git branch -D x",
        "find . -delete",
        "find . -exec rm {} ;",
        "find . -fprint out",
        "sed -n 1w out a.txt",
        "sed -i s/a/b/ a.txt",
        "uniq a.txt out",
        "tail -f a.txt",
        // Paths outside the workspace, climbing out, expanding.
        "cat /etc/passwd",
        "cat /wsx/a",
        "ls /",
        "cat ../x",
        "cat src/../a.txt",
        "cat ~/x",
        "ls ~",
        "cat *.txt",
        "ls src/*",
        "cat $HOME/x",
        // Shapes the model does not take.
        "FOO=1 ls",
        "timeout 5 ls",
        "sudo ls",
        "/bin/ls",
        "bash -c ls",
        "ls &",
        "ls > out",
        "cd .. && ls",
        "cd /tmp && ls",
        "cd src && cat ../x",
        "cd",
        "cd - && ls",
        "NODE_ENV=\"a b\" ls",
        "LANG=x ls",
        "PATH=. ls",
        "git -C src status",
        "git --no-pager log",
        "env",
        "printenv HOME",
        "touch t",
        "ls; touch t",
        "cat a.txt | tee out",
        "npm test",
        "python3 -c 1",
        "test -f a.txt -a -f b",
        "sed -n p",
    ];
    for command in twins {
        let evaluation = bash(&set, command);
        assert_ne!(
            evaluation.effect(),
            Some(Effect::Allow),
            "`{command}`: {evaluation}"
        );
    }
}

#[test]
fn without_the_mode_nothing_is_allowed_by_default() {
    let set = RuleSet::default().with_workspace_root(ROOT);
    assert_eq!(set.client_default(), ClientDefault::Nothing);
    for command in ["ls", "cat a.txt", "git status"] {
        assert_eq!(bash(&set, command).effect(), None, "`{command}`");
    }
    assert_eq!(
        set.evaluate("Read", Subject::Path("/ws/a.txt")).effect(),
        None
    );
    assert_eq!(set.evaluate("Agent", Subject::Name("x")).effect(), None);
}

#[test]
fn read_only_segments_count_as_covered_next_to_allow_rules() {
    let set = rules(&["Bash(touch:*)"], &[], &[]);
    let both = bash(&set, "ls && touch t");
    assert!(by_default(&both), "{both}");
    assert_eq!(
        both.decisive().map(|m| m.text.as_str()),
        Some("Bash(touch:*)")
    );
    assert!(matches!(bash(&set, "touch t"), Evaluation::Allow(_)));
    assert_eq!(bash(&set, "ls && mkdir d").effect(), None);
}

#[test]
fn deny_and_ask_rules_come_first() {
    let set = rules(&[], &["Bash(git status)"], &["Bash(ls*)"]);
    assert_eq!(bash(&set, "ls -la").effect(), Some(Effect::Deny));
    assert_eq!(bash(&set, "git status").effect(), Some(Effect::Ask));
    assert!(by_default(&bash(&set, "git status --short")));
}

#[test]
fn read_deny_rules_cover_what_read_only_commands_read() {
    // Claude Code 2.1.328 denied `cat .env` under `Read(.env)`, with or without `Bash(cat:*)`.
    for set in [
        rules(&[], &[], &["Read(.env)", "Read(src/**)"]),
        rules(
            &["Bash(cat:*)", "Bash"],
            &[],
            &["Read(.env)", "Read(src/**)"],
        ),
    ] {
        for command in [
            "cat .env",
            "cat a.txt .env",
            "cat sub/.env",
            "cat /ws/.env",
            "grep T .env",
            "head -1 .env",
            "ls src",
            "find src",
            "find . -newer .env",
            "diff .env a.txt",
            "sed -n 1p .env",
        ] {
            let evaluation = bash(&set, command);
            assert_eq!(
                evaluation.effect(),
                Some(Effect::Deny),
                "`{command}`: {evaluation}"
            );
        }
        // A directory holding a denied file is not the file.
        assert_ne!(bash(&set, "grep -r T .").effect(), Some(Effect::Deny));
        assert_ne!(bash(&set, "cat a.txt").effect(), Some(Effect::Deny));
    }
    // Read ask rules ask (stricter than Claude Code, which applies only deny rules here).
    let set = rules(&["Bash(cat:*)"], &["Read(secret/**)"], &[]);
    assert_eq!(bash(&set, "cat secret/k").effect(), Some(Effect::Ask));
    assert_eq!(bash(&set, "cat a.txt").effect(), Some(Effect::Allow));
}

#[test]
fn reads_inside_the_workspace_and_unchecked_tools() {
    let set = rules(&[], &[], &["Read(.env)", "Agent(Explore)", "Skill(x)"]);
    let read = |path| set.evaluate("Read", Subject::Path(path));
    assert!(by_default(&read("/ws/a.txt")));
    assert!(by_default(&read("/ws/a/../x")));
    assert_eq!(read("/ws/.env").effect(), Some(Effect::Deny));
    assert_ne!(read("/etc/passwd").effect(), Some(Effect::Allow));
    assert_ne!(read("/ws/../x").effect(), Some(Effect::Allow));
    // Only Read: writes, edits and web tools are never allowed by the mode.
    for tool in ["Write", "Edit", "NotebookEdit"] {
        assert_ne!(
            set.evaluate(tool, Subject::Path("/ws/a.txt")).effect(),
            Some(Effect::Allow),
            "{tool}"
        );
    }
    assert_eq!(
        set.evaluate("WebFetch", Subject::Url("https://example.com/"))
            .effect(),
        None
    );
    assert_eq!(set.evaluate("mcp__s__t", Subject::Opaque).effect(), None);
    assert!(by_default(
        &set.evaluate("Agent", Subject::Name("general-purpose"))
    ));
    assert_eq!(
        set.evaluate("Agent", Subject::Name("Explore")).effect(),
        Some(Effect::Deny)
    );
    assert!(by_default(&set.evaluate("Skill", Subject::Name("y"))));
    assert_eq!(
        set.evaluate("Skill", Subject::Name("x")).effect(),
        Some(Effect::Deny)
    );
}

/// `Read(path)` rules cover the path `Grep` and `Glob` search (`path`, the working directory
/// when absent); their own specifiers are uninterpreted.
#[test]
fn read_rules_cover_grep_and_glob() {
    use seal_parse::json::JsonLimits;
    use seal_policy::chain::ToolCall;
    use seal_policy::rules::RulesListener;
    use seal_record::SealedCall;

    let set = RuleSet::from_json(
        br#"{"permissions": {"allow": ["Read(src/**)"], "deny": ["Read(.env)", "Read(secret/**)"]}}"#,
        &RuleLimits::default(),
    )
    .unwrap()
    .with_workspace_root(ROOT);
    let listener = RulesListener::new(set);
    let decide = |tool: &str, arguments: &str| {
        let sealed = SealedCall::from_foreign_json_arguments(
            "call",
            tool,
            arguments.as_bytes(),
            &JsonLimits::default(),
        )
        .unwrap();
        let call = ToolCall::new("s", Some("claude-code"), sealed).unwrap();
        listener.evaluate(&call).effect()
    };
    for tool in ["Grep", "Glob"] {
        let with_path = |path: &str| format!(r#"{{"pattern": "x", "path": "{path}"}}"#);
        assert_eq!(
            decide(tool, &with_path("/ws/.env")),
            Some(Effect::Deny),
            "{tool}"
        );
        assert_eq!(
            decide(tool, &with_path("secret")),
            Some(Effect::Deny),
            "{tool}"
        );
        assert_eq!(
            decide(tool, &with_path("/ws/src")),
            Some(Effect::Allow),
            "{tool}"
        );
        assert_eq!(
            decide(tool, &with_path("/etc")),
            Some(Effect::Ask),
            "{tool}"
        );
        // No path: the working directory, which no narrow rule covers or denies.
        assert_eq!(decide(tool, r#"{"pattern": "x"}"#), None, "{tool}");
        // A path that is not a string cannot be checked: never allowed.
        assert_eq!(
            decide(tool, r#"{"pattern": "x", "path": 7}"#),
            Some(Effect::Ask),
            "{tool}"
        );
    }
    let own = RuleSet::from_json(
        br#"{"permissions": {"deny": ["Grep(secret)"]}}"#,
        &RuleLimits::default(),
    )
    .unwrap();
    assert!(matches!(
        own.rules()[0].rule().specifier(),
        seal_policy::rules::Specifier::Uninterpreted(_)
    ));
}
