//! Assembling a policy (`assembly::PolicyBuilder`): where each part lands in the pipeline, what
//! each refusal names, which inputs the policy digest covers, and the rule set and lint a policy
//! text gives.

use seal_policy::approval::ApprovalPolicy;
use seal_policy::assembly::{
    lint_rules, rule_set, Fallback, Policy, PolicyBuilder, PolicyError, StageRefusal,
    DESTRUCTIVE_GUARD_NAME, DESTRUCTIVE_LISTENER_NAME, MAX_STAGES, PRESETS, RULES_LISTENER_NAME,
};
use seal_policy::chain::{Check, Guard, Listener, Next, Ruling, Scope, StageError, ToolCall};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::escalation::EscalationFields;
use seal_policy::pipeline::Prepared;
use seal_policy::preset::{SandboxMode, Session};
use seal_policy::rules::{Effect, Explain, RulesErrorKind, Subject};
use seal_test_support::tool_call::bash_call;

const ALLOW_GIT: &str = r#"{"permissions": {"allow": ["Bash(git:*)", "Bash(rm:*)"]}}"#;

/// What a built policy decides for `command`, and the names of the stages that decided, in
/// trace order.
fn decide(policy: &Policy, command: &str) -> (&'static str, Vec<String>) {
    let session = Session::fresh(&policy.settings);
    let call = bash_call(command);
    let plan = policy
        .pipeline
        .decide(&session, &call, &EscalationFields::default());
    let (kind, trace) = match &plan {
        Prepared::Run(cleared) => ("run", cleared.trace()),
        Prepared::Deny(refused) => ("deny", refused.trace()),
        Prepared::NeedsApproval(awaiting) => ("approve", awaiting.trace()),
    };
    let names = trace
        .steps()
        .iter()
        .map(|s| s.stage().name().to_owned())
        .collect();
    (kind, names)
}

fn build(builder: PolicyBuilder) -> Policy {
    builder.build().expect("the policy builds")
}

/// A listener that rules `ruling` without delegating.
struct Rules(fn() -> Ruling);

impl Listener for Rules {
    fn decide(&self, _call: &ToolCall, _next: Next<'_>) -> Result<Ruling, StageError> {
        Ok((self.0)())
    }
}

/// A listener that delegates.
struct Delegates;

impl Listener for Delegates {
    fn decide(&self, _call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        Ok(next.run())
    }
}

/// A guard that denies every call.
struct DeniesAll;

impl Guard for DeniesAll {
    fn check(&self, _call: &ToolCall) -> Result<Check, StageError> {
        Ok(Check::deny("no calls"))
    }
}

/// A listener that panics.
struct Panics;

impl Listener for Panics {
    fn decide(&self, _call: &ToolCall, _next: Next<'_>) -> Result<Ruling, StageError> {
        panic!("listener bug")
    }
}

#[test]
fn the_fallback_decides_what_no_rule_does() {
    for (fallback, want) in [
        (Fallback::Ask, "approve"),
        (Fallback::ClaudeCode, "approve"),
        (Fallback::Deny, "deny"),
        (Fallback::Allow, "run"),
    ] {
        let policy = build(PolicyBuilder::new().fallback(fallback));
        assert_eq!(decide(&policy, "make").0, want, "{fallback:?}");
    }
    // The default is Ask, over the empty rule text.
    assert_eq!(decide(&build(PolicyBuilder::new()), "make").0, "approve");
    // Claude Code's default mode allows a read-only command; plain Ask does not.
    let claude = build(PolicyBuilder::new().fallback(Fallback::ClaudeCode));
    assert_eq!(decide(&claude, "ls").0, "run");
    assert_eq!(decide(&build(PolicyBuilder::new()), "ls").0, "approve");
    assert_eq!(
        ["ask", "deny", "allow", "claude-code"],
        [
            Fallback::Ask.name(),
            Fallback::Deny.name(),
            Fallback::Allow.name(),
            Fallback::ClaudeCode.name()
        ]
    );
}

#[test]
fn the_rules_decide_in_the_rules_listener() {
    let policy = build(PolicyBuilder::new().rules_json(ALLOW_GIT));
    let (kind, names) = decide(&policy, "git status");
    assert_eq!(kind, "run");
    assert_eq!(names, [RULES_LISTENER_NAME]);
    assert_eq!(
        policy
            .rules
            .read(&bash_call("git status"), Explain::Evaluation)
            .evaluation()
            .effect(),
        Some(Effect::Allow)
    );
}

#[test]
fn listeners_go_before_or_after_the_rules_and_guards_check_every_allow() {
    let before = build(PolicyBuilder::new().rules_json(ALLOW_GIT).prepend_listener(
        "first",
        Scope::everywhere(),
        Rules(|| Ruling::deny("first says no")),
    ));
    assert_eq!(
        decide(&before, "git status"),
        ("deny", vec!["first".to_owned()])
    );

    // An appended listener runs only when the rules delegate (no rule matches `make`).
    let after = build(PolicyBuilder::new().rules_json(ALLOW_GIT).listener(
        "last",
        Scope::everywhere(),
        Rules(Ruling::allow),
    ));
    assert_eq!(decide(&after, "git status").0, "run");
    let (kind, names) = decide(&after, "make");
    assert_eq!(kind, "run");
    assert_eq!(names, [RULES_LISTENER_NAME, "last"]);

    // Prepending twice puts the later one first.
    let twice = build(
        PolicyBuilder::new()
            .prepend_listener("one", Scope::everywhere(), Delegates)
            .prepend_listener("two", Scope::everywhere(), Rules(Ruling::allow)),
    );
    assert_eq!(decide(&twice, "make"), ("run", vec!["two".to_owned()]));

    let guarded = build(
        PolicyBuilder::new()
            .rules_json(ALLOW_GIT)
            .guard("no-calls", DeniesAll),
    );
    let (kind, names) = decide(&guarded, "git status");
    assert_eq!(kind, "deny");
    assert_eq!(names.last().map(String::as_str), Some("no-calls"));

    // A scoped guard checks only its scope.
    let scoped = build(PolicyBuilder::new().rules_json(ALLOW_GIT).scoped_guard(
        "edits-only",
        Scope::everywhere().tool("Edit"),
        DeniesAll,
    ));
    assert_eq!(decide(&scoped, "git status").0, "run");
    let everywhere = build(PolicyBuilder::new().rules_json(ALLOW_GIT).scoped_guard(
        "bash-only",
        Scope::everywhere().tool("Bash"),
        DeniesAll,
    ));
    assert_eq!(decide(&everywhere, "git status").0, "deny");
}

#[test]
fn a_panicking_listener_denies() {
    let policy = build(PolicyBuilder::new().listener("buggy", Scope::everywhere(), Panics));
    assert_eq!(decide(&policy, "make").0, "deny");
    let first = build(PolicyBuilder::new().prepend_listener("buggy", Scope::everywhere(), Panics));
    assert_eq!(decide(&first, "git status").0, "deny");
}

#[test]
fn the_destructive_guard_comes_first_and_takes_the_policy_workspace() {
    let policy = build(
        PolicyBuilder::new()
            .rules_json(ALLOW_GIT)
            .workspace_root("/home/dev/project")
            .destructive_guard(DestructiveGuard::new()),
    );
    let (kind, names) = decide(&policy, "rm -rf /home/dev/other");
    assert_eq!(kind, "deny");
    assert_eq!(names, [DESTRUCTIVE_LISTENER_NAME]);
    // Inside the policy's workspace the guard lets the rules decide.
    let (kind, names) = decide(&policy, "rm -rf /home/dev/project/build");
    assert_eq!(kind, "run");
    assert_eq!(
        names.first().map(String::as_str),
        Some(DESTRUCTIVE_LISTENER_NAME)
    );
    assert!(
        names.iter().any(|name| name == DESTRUCTIVE_GUARD_NAME),
        "{names:?}"
    );

    // A guard with its own workspace keeps it.
    let own = build(
        PolicyBuilder::new()
            .rules_json(ALLOW_GIT)
            .workspace_root("/home/dev/project")
            .destructive_guard(DestructiveGuard::new().with_workspace_root("/srv/other")),
    );
    assert_eq!(decide(&own, "rm -rf /home/dev/project/build").0, "deny");
    // The guard passes a deletion in its own workspace; the rules then ask, since an allow
    // stops at the policy's workspace.
    let (kind, names) = decide(&own, "rm -rf /srv/other/build");
    assert_eq!(kind, "approve");
    assert!(names.iter().any(|name| name == DESTRUCTIVE_LISTENER_NAME));

    // Without the guard the same rules allow a deletion in the workspace, and ask about one
    // outside it (never deny: only the guard denies it).
    let none = build(PolicyBuilder::new().rules_json(ALLOW_GIT));
    assert_eq!(decide(&none, "rm -rf build").0, "run");
    assert_eq!(decide(&none, "rm -rf /home/dev/other").0, "approve");
}

#[test]
fn refusals_name_what_is_wrong() {
    let bad_json = PolicyBuilder::new()
        .rules_json("{\"permissions\":\n  {\"allow\": [7]}}")
        .build()
        .unwrap_err();
    assert!(
        matches!(bad_json, PolicyError::Rules { line: 2, .. }),
        "{bad_json:?}"
    );
    assert!(bad_json
        .to_string()
        .starts_with("rules refused at line 2, column "));

    let relative = PolicyBuilder::new()
        .workspace_root("project")
        .build()
        .unwrap_err();
    assert_eq!(
        relative,
        PolicyError::WorkspaceRoot {
            root: "project".to_owned()
        }
    );
    assert_eq!(
        relative.to_string(),
        "workspace root `project` is not an absolute path"
    );

    let taken = PolicyBuilder::new()
        .listener(RULES_LISTENER_NAME, Scope::everywhere(), Delegates)
        .build()
        .unwrap_err();
    assert!(
        matches!(&taken, PolicyError::Stage { name, error: StageRefusal::Chain(_) } if name == RULES_LISTENER_NAME),
        "{taken:?}"
    );
    let bad_name = PolicyBuilder::new()
        .guard("two words", DeniesAll)
        .build()
        .unwrap_err();
    assert!(
        matches!(&bad_name, PolicyError::Stage { name, .. } if name == "two words"),
        "{bad_name:?}"
    );
    assert!(bad_name
        .to_string()
        .starts_with("stage `two words` refused: "));

    let unknown = PolicyBuilder::new().preset("yolo").build().unwrap_err();
    let known: Vec<String> = PRESETS.iter().map(|row| row.0.to_owned()).collect();
    assert_eq!(
        unknown,
        PolicyError::UnknownPreset {
            name: "yolo".to_owned(),
            known
        }
    );
    assert_eq!(
        unknown.to_string(),
        "unknown preset `yolo`: known presets are read-only, auto, full-access"
    );

    let cannot = PolicyBuilder::new()
        .executor_cannot_sandbox()
        .build()
        .unwrap_err();
    assert!(matches!(cannot, PolicyError::Preset(_)), "{cannot:?}");
    assert!(cannot
        .to_string()
        .starts_with("permission settings refused: "));
}

#[test]
fn at_most_max_stages_listeners_and_guards() {
    // Half listeners, half guards, so that neither of the chain's own limits (64 listeners,
    // the rules listener among them, and 64 guards) is reached first.
    let with = |count: usize| {
        (0..count).fold(PolicyBuilder::new(), |builder, i| {
            let name = format!("s{i}");
            if i % 2 == 0 {
                builder.listener(&name, Scope::everywhere(), Delegates)
            } else {
                builder.guard(&name, DeniesAll)
            }
        })
    };
    if let Err(error) = with(MAX_STAGES).build() {
        panic!("{error}");
    }
    let error = with(MAX_STAGES + 1).build().unwrap_err();
    assert_eq!(
        error,
        PolicyError::Stage {
            name: format!("s{MAX_STAGES}"),
            error: StageRefusal::TooMany { max: MAX_STAGES }
        }
    );
    assert_eq!(
        error.to_string(),
        format!("stage `s{MAX_STAGES}` refused: more than {MAX_STAGES} listeners and guards")
    );
    // The chain's own limit: 64 listeners with the rules listener is one too many.
    let listeners = (0..MAX_STAGES).fold(PolicyBuilder::new(), |builder, i| {
        builder.listener(&format!("l{i}"), Scope::everywhere(), Delegates)
    });
    let error = listeners.build().unwrap_err();
    assert!(
        matches!(&error, PolicyError::Stage { name, error: StageRefusal::Chain(_) } if name == "l63"),
        "{error:?}"
    );
}

#[test]
fn presets_and_knobs_set_new_sessions() {
    let mode = |builder: PolicyBuilder| {
        let policy = build(builder);
        let session = Session::fresh(&policy.settings);
        (session.standing_mode(), session.approval_policy())
    };
    assert_eq!(
        mode(PolicyBuilder::new()),
        (SandboxMode::WorkspaceWrite, ApprovalPolicy::OnRequest)
    );
    assert_eq!(
        mode(PolicyBuilder::new().preset("read-only")),
        (SandboxMode::ReadOnly, ApprovalPolicy::OnRequest)
    );
    assert_eq!(
        mode(PolicyBuilder::new().preset("full-access")),
        (SandboxMode::DangerFullAccess, ApprovalPolicy::Never)
    );
    assert_eq!(
        mode(
            PolicyBuilder::new()
                .sandbox_mode(SandboxMode::ReadOnly)
                .approval_policy(ApprovalPolicy::Never)
        ),
        (SandboxMode::ReadOnly, ApprovalPolicy::Never)
    );
    let table = [
        ("locked", SandboxMode::ReadOnly, ApprovalPolicy::Never),
        (
            "open",
            SandboxMode::DangerFullAccess,
            ApprovalPolicy::OnRequest,
        ),
    ];
    assert_eq!(
        mode(PolicyBuilder::new().preset_table(&table).preset("open")),
        (SandboxMode::DangerFullAccess, ApprovalPolicy::OnRequest)
    );
    // The default table's `auto` is not in a replaced table.
    let error = PolicyBuilder::new()
        .preset_table(&table)
        .build()
        .unwrap_err();
    assert!(
        matches!(error, PolicyError::UnknownPreset { .. }),
        "{error:?}"
    );
}

#[test]
fn the_digest_covers_every_input_and_nothing_else() {
    let digest = |builder: PolicyBuilder| build(builder).digest;
    let base = || PolicyBuilder::new().rules_json(ALLOW_GIT);
    let reference = digest(base());
    // The same inputs, and the same rules spaced and ordered differently, give the same digest.
    assert_eq!(digest(base()), reference);
    assert_eq!(
        digest(PolicyBuilder::new().rules_json(
            "{ \"permissions\" : { \"allow\" : [ \"Bash(git:*)\" , \"Bash(rm:*)\" ] } }"
        )),
        reference
    );
    let table = [("only", SandboxMode::ReadOnly, ApprovalPolicy::Never)];
    let changed: Vec<(&str, PolicyBuilder)> = vec![
        ("rules", PolicyBuilder::new()),
        ("workspace root", base().workspace_root("/w")),
        ("fallback", base().fallback(Fallback::Deny)),
        ("preset", base().preset("read-only")),
        ("preset table", base().preset_table(&table).preset("only")),
        ("sandbox knob", base().sandbox_mode(SandboxMode::ReadOnly)),
        (
            "approval knob",
            base().approval_policy(ApprovalPolicy::Never),
        ),
        ("answerers", base().answerers(1)),
        (
            "listener",
            base().listener("l", Scope::everywhere(), Delegates),
        ),
        (
            "prepended listener",
            base().prepend_listener("l", Scope::everywhere(), Delegates),
        ),
        ("guard", base().guard("g", DeniesAll)),
        (
            "scoped guard",
            base().scoped_guard("g", Scope::everywhere().tool("Bash"), DeniesAll),
        ),
        (
            "destructive guard",
            base().destructive_guard(DestructiveGuard::new()),
        ),
    ];
    let mut seen = vec![reference];
    for (what, builder) in changed {
        let got = digest(builder);
        assert!(!seen.contains(&got), "{what} does not change the digest");
        seen.push(got);
    }
    // The listener's scope and name are covered too.
    assert_ne!(
        digest(base().listener("l", Scope::everywhere(), Delegates)),
        digest(base().listener("l", Scope::everywhere().tool("Bash"), Delegates))
    );
    assert_ne!(
        digest(base().listener("l", Scope::everywhere(), Delegates)),
        digest(base().listener("m", Scope::everywhere(), Delegates))
    );
}

#[test]
fn rule_set_reads_the_text_under_the_fallback_and_root() {
    let plain = rule_set(r#"{"permissions": {}}"#, Fallback::Ask, None).unwrap();
    assert_eq!(
        plain.evaluate("Bash", Subject::Command("ls")).effect(),
        None
    );
    let claude = rule_set(r#"{"permissions": {}}"#, Fallback::ClaudeCode, None).unwrap();
    assert_eq!(
        claude.evaluate("Bash", Subject::Command("ls")).effect(),
        Some(Effect::Allow)
    );
    let rooted = rule_set(
        r#"{"permissions": {"deny": ["Read(/secret/**)"]}}"#,
        Fallback::Ask,
        Some("/w"),
    )
    .unwrap();
    assert_eq!(
        rooted
            .evaluate("Read", Subject::Path("/w/secret/k"))
            .effect(),
        Some(Effect::Deny)
    );
    assert_eq!(
        rule_set(r#"{"permissions": {}}"#, Fallback::Ask, Some("w")).unwrap_err(),
        PolicyError::WorkspaceRoot {
            root: "w".to_owned()
        }
    );
    assert!(matches!(
        rule_set("[", Fallback::Ask, None).unwrap_err(),
        PolicyError::Rules {
            line: 1,
            kind: RulesErrorKind::Json(_),
            ..
        }
    ));
}

#[test]
fn lint_names_rules_and_stray_members() {
    let findings = lint_rules(
        r#"{"permissions": {"allow": ["Bash(git status)"], "deney": ["Bash(rm:*)"], "other": []}}"#,
    )
    .unwrap();
    let messages: Vec<String> = findings.iter().map(|f| f.message().into_string()).collect();
    assert_eq!(findings.len(), 2, "{messages:?}");
    assert_eq!(findings[0].index, None);
    assert_eq!(findings[0].rule, "deney");
    assert!(
        messages[0].starts_with("line 1, column ")
            && messages[0].ends_with("no rule comes from it (did you mean `deny`?)"),
        "{}",
        messages[0]
    );
    assert_eq!(findings[1].rule, "other");
    assert!(
        messages[1].ends_with("no rule comes from it"),
        "{}",
        messages[1]
    );
    assert_eq!(findings[1].to_string(), messages[1]);

    let rule =
        lint_rules(r#"{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(rm -rf x)"]}}"#)
            .unwrap();
    assert_eq!(rule.len(), 1, "{rule:?}");
    assert_eq!(rule[0].rule, "Bash(rm -rf x)");
    assert!(rule[0].index.is_some());
    assert!(lint_rules(ALLOW_GIT).unwrap().is_empty());
    assert!(lint_rules("{").is_err());
}

#[test]
fn a_builder_debugs_as_its_preset_fallback_and_stage_count() {
    let builder = PolicyBuilder::new()
        .fallback(Fallback::Deny)
        .preset("read-only")
        .guard("g", DeniesAll);
    assert_eq!(
        format!("{builder:?}"),
        "PolicyBuilder { preset: \"read-only\", fallback: Deny, stages: 1, .. }"
    );
}

#[test]
fn lint_messages_are_escaped_once() {
    let findings = lint_rules(
        r#"{"permissions": {"allow": ["Bash(echo caf\u00e9\u0007 && rm:*)"], "d\u00e9ny": []}}"#,
    )
    .unwrap();
    assert!(findings.len() >= 2, "{findings:?}");
    for finding in &findings {
        let message = finding.message();
        assert!(message.as_str().is_ascii(), "{message}");
        let decoded = seal_render::decode(message.as_str(), seal_render::Context::Inline).unwrap();
        assert_eq!(
            decoded,
            finding.to_string(),
            "decoded once, the raw finding"
        );
    }
    let shown: Vec<String> = findings.iter().map(|f| f.message().into_string()).collect();
    assert!(
        shown.iter().any(|m| m.contains("caf\\u{e9}\\u{7}")),
        "{shown:?}"
    );
    assert!(
        shown.iter().any(|m| m.contains("`d\\u{e9}ny`")),
        "{shown:?}"
    );
    assert!(
        !shown.iter().any(|m| m.contains("\\\\u{")),
        "escaped twice: {shown:?}"
    );
}
