//! The whole engine against one small reference evaluator: permission rules (per segment, every
//! normalized form, launchers, unanalysable commands) inside a chain of listeners (order,
//! prepend, scope routing, delegate / keep / replace / short-circuit, failures, the default),
//! then the approval outcome, then global and scoped guards. On random rule sets, commands,
//! listener stacks, guards, defaults and approval outcomes, the real `Chain` with a
//! `RulesListener` must end exactly where the reference does: whether it asked, whether it
//! allowed, and which stage decided.
//!
//! Segmentation is the one part the reference does not redo: it calls
//! `seal_parse::shell::segment` and reads the segments' normalized forms and launchers. The
//! shell grammar (quoting, wrappers and their options, assignments, `bash -c` payloads, the
//! refusal of what cannot be analysed) is the largest surface of the engine and has its own
//! properties; a second, simpler segmenter would disagree with it on shapes the rules and the
//! chain do not care about. Everything above segmentation (pattern matching, which forms each
//! effect looks at, deny > ask > allow, the waterfall, approval and guards) is written here
//! again from the spec, as plainly as possible.
//!
//! Three deliberately broken references (allow by whole-string prefix; allow on the normalized
//! form instead of the canonical one; guards skipped when a listener short-circuits) run the
//! same property through a fixed-seed `TestRunner`, which must find a counterexample for each.
//!
//! The same cases then run through the whole decision pipeline (`seal_policy::pipeline`): a
//! session's standing mode and approval policy, an executor that can or cannot sandbox, and an
//! escalation request (absent, valid, partial, blank, or not wider) on top of the chain. The
//! reference checks the escalation first, then reuses the chain's reference, asks for approval
//! on an ask or a valid escalation (settled `rejected` under policy `never`), and stamps the run
//! with the escalated mode only when the escalation was granted. Three broken pipelines
//! (escalation checked after the waterfall; the standing stamp on a granted escalation; policy
//! `never` ignored) must each be caught.

use seal_test_support::{assert_finds_counterexample, exploring, seeded};
use std::collections::VecDeque;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_parse::json::{parse, JsonLimits};
use seal_parse::shell::{carried_code_in, model, readable, segment, ShellLimits};
use seal_policy::approval::ApprovalPolicy;
use seal_policy::chain::{
    Chain, Check, Evaluated, Guard, Listener, Next, Ruling, Scope, StageError, ToolCall,
};
use seal_policy::escalation::EscalationFields;
use seal_policy::pipeline::{Answering, Pipeline, Prepared};
use seal_policy::preset::{Executor, Knobs, PermissionState, SandboxMode, Session};
use seal_policy::rules::{Effect, RuleSet, RulesListener};
use seal_record::{ApprovalAsked, Outcome, SealedCall};

// ------------------------------------------------------------------ the case

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dec {
    Allow,
    Deny,
    Ask,
}

/// One permission rule: its effect and its text as written (`Bash(git log:*)`, `Bash`, ...).
#[derive(Debug, Clone)]
struct GenRule {
    effect: Effect,
    text: String,
}

/// What a scripted listener does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Behavior {
    /// Short-circuit with a decision.
    Decide(Dec),
    /// Delegate and keep what the rest of the chain gave.
    Delegate,
    /// Delegate, then replace the downstream ruling with a decision of its own.
    Replace(Dec),
    /// Return an error without delegating.
    Fail,
}

/// A listener of the stack: a scripted one or the rules listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Scripted(Behavior),
    Rules,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GuardBehavior {
    Pass,
    /// Deny when any normalized form of any segment runs this program, or when the command
    /// cannot be analysed.
    DenyProgram(&'static str),
    Fail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ScopeSpec {
    session: Option<&'static str>,
    agent: Option<&'static str>,
    tool: Option<&'static str>,
}

#[derive(Debug, Clone)]
struct ListenerSpec {
    name: String,
    stage: Stage,
    scope: ScopeSpec,
    prepend: bool,
}

#[derive(Debug, Clone)]
struct GuardSpec {
    behavior: GuardBehavior,
    /// `None`: a global guard.
    scope: Option<ScopeSpec>,
}

#[derive(Debug, Clone)]
struct Case {
    rules: Vec<GenRule>,
    command: String,
    session: &'static str,
    agent: Option<&'static str>,
    /// In registration order.
    listeners: Vec<ListenerSpec>,
    default: Dec,
    guards: Vec<GuardSpec>,
    outcome: Outcome,
}

/// Where an evaluation ended, compared between the engine and the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Observed {
    /// The waterfall asked and the approval outcome was consulted.
    asked: bool,
    /// The final verdict allows.
    allowed: bool,
    /// The name of the stage that decided (`default`, `approval`, a listener, a guard).
    decided_by: Option<String>,
}

// ------------------------------------------------------------------ generators

const SESSIONS: [&str; 2] = ["s1", "s2"];
const AGENTS: [&str; 2] = ["a1", "a2"];
const TOOLS: [&str; 2] = ["Bash", "Read"];

/// Command patterns people write, plus the corners of the pattern language.
const CURATED_PATTERNS: &[&str] = &[
    "git log:*",
    "git status",
    "git *",
    "git push:*",
    "git l*:*",
    "g*t log",
    "rm:*",
    "rm -rf *",
    "/usr/bin/rm:*",
    "npm test:*",
    "npm *",
    "curl:*",
    "sh:*",
    "sh -c:*",
    "bash -c:*",
    "bash -c *",
    "/bin/bash -c:*",
    "bash:*",
    "sudo:*",
    "nohup:*",
    "env:*",
    "timeout:*",
    "nice:*",
    "ls",
    "ls:*",
    "echo *",
    "*",
];

const PATTERN_WORDS: &[&str] = &[
    "git",
    "log",
    "status",
    "push",
    "rm",
    "-rf",
    "t",
    "npm",
    "test",
    "curl",
    "sh",
    "bash",
    "-c",
    "sudo",
    "env",
    "timeout",
    "5",
    "/usr/bin/rm",
    "ls",
    "g*",
    "*t",
    "*",
    "x",
];

const SIMPLE_COMMANDS: &[&str] = &[
    "git log",
    "git log -p",
    "git logx",
    "git status",
    "git push -f",
    "git log \"--format=%h %s\"",
    "rm -rf t",
    "/usr/bin/rm -rf t",
    "npm test",
    "npm install x",
    "curl x",
    "ls",
    "echo hi",
];

const WRAPPERS: &[&str] = &[
    "",
    "",
    "",
    "sudo ",
    "env ",
    "env X=1 ",
    "/usr/bin/env ",
    "timeout 5 ",
    "nice -n 5 ",
    "nohup ",
    "sudo -u root ",
];

const ASSIGNMENTS: &[&str] = &["", "", "", "X=1 ", "PATH=. "];

const SEPARATORS: &[&str] = &[" && ", " || ", "; ", " | ", "\n"];

const UNANALYSABLE: &[&str] = &[" $(rm -rf t)", " > out", " `rm -rf t`"];

const PROGRAMS: &[&str] = &["rm", "git", "curl", "npm", "sudo", "bash"];

fn dec() -> impl Strategy<Value = Dec> {
    prop_oneof![Just(Dec::Allow), Just(Dec::Deny), Just(Dec::Ask)]
}

fn effect() -> impl Strategy<Value = Effect> {
    prop_oneof![
        3 => Just(Effect::Allow),
        1 => Just(Effect::Ask),
        2 => Just(Effect::Deny),
    ]
}

fn random_pattern() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(proptest::sample::select(PATTERN_WORDS), 1..=3),
        0..3u8,
    )
        .prop_map(|(words, suffix)| {
            let body = words.join(" ");
            match suffix {
                0 => body,
                1 => format!("{body}:*"),
                _ => format!("{body} *"),
            }
        })
}

fn rule_text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::sample::select(CURATED_PATTERNS).prop_map(|p| format!("Bash({p})")),
        3 => random_pattern().prop_map(|p| format!("Bash({p})")),
        1 => Just("Bash".to_owned()),
        1 => Just("Read(./.env)".to_owned()),
    ]
}

fn rules() -> impl Strategy<Value = Vec<GenRule>> {
    proptest::collection::vec(
        (effect(), rule_text()).prop_map(|(effect, text)| GenRule { effect, text }),
        0..6,
    )
}

/// One simple command, perhaps behind assignments and a wrapper, or a `bash -c` payload of
/// two, perhaps with something the segmenter refuses.
fn unit() -> impl Strategy<Value = String> {
    let plain = (
        proptest::sample::select(ASSIGNMENTS),
        proptest::sample::select(WRAPPERS),
        proptest::sample::select(SIMPLE_COMMANDS),
    )
        .prop_map(|(assign, wrapper, simple)| format!("{assign}{wrapper}{simple}"));
    let payload = (
        proptest::sample::select(
            &[
                "bash -c",
                "sh -c",
                "sudo bash -c",
                "/bin/bash -c",
                "env X=1 sh -c",
            ][..],
        ),
        proptest::sample::select(SIMPLE_COMMANDS),
        proptest::sample::select(&["; ", " && ", " | "][..]),
        proptest::sample::select(SIMPLE_COMMANDS),
    )
        .prop_map(|(launcher, a, sep, b)| format!("{launcher} '{a}{sep}{b}'"));
    let shape = prop_oneof![5 => plain, 1 => payload];
    (
        shape,
        proptest::option::weighted(0.1, proptest::sample::select(UNANALYSABLE)),
    )
        .prop_map(|(shape, tail)| format!("{shape}{}", tail.unwrap_or("")))
}

fn command() -> impl Strategy<Value = String> {
    (
        unit(),
        proptest::collection::vec((proptest::sample::select(SEPARATORS), unit()), 0..3),
    )
        .prop_map(|(first, rest)| {
            let mut command = first;
            for (sep, unit) in rest {
                command.push_str(sep);
                command.push_str(&unit);
            }
            command
        })
}

fn maybe(values: &'static [&'static str]) -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![3 => Just(None), 1 => proptest::sample::select(values).prop_map(Some)]
}

fn scope_spec() -> impl Strategy<Value = ScopeSpec> {
    (maybe(&SESSIONS), maybe(&AGENTS), maybe(&TOOLS)).prop_map(|(session, agent, tool)| ScopeSpec {
        session,
        agent,
        tool,
    })
}

fn behavior() -> impl Strategy<Value = Behavior> {
    prop_oneof![
        3 => dec().prop_map(Behavior::Decide),
        3 => Just(Behavior::Delegate),
        2 => dec().prop_map(Behavior::Replace),
        1 => Just(Behavior::Fail),
    ]
}

fn guard_behavior() -> impl Strategy<Value = GuardBehavior> {
    prop_oneof![
        3 => Just(GuardBehavior::Pass),
        3 => proptest::sample::select(PROGRAMS).prop_map(GuardBehavior::DenyProgram),
        1 => Just(GuardBehavior::Fail),
    ]
}

fn listeners() -> impl Strategy<Value = Vec<ListenerSpec>> {
    (
        proptest::collection::vec(
            (behavior(), scope_spec(), proptest::bool::weighted(0.25)),
            0..=3,
        ),
        0..4usize,
        prop_oneof![3 => Just(None), 1 => scope_spec().prop_map(Some)],
        proptest::bool::weighted(0.25),
    )
        .prop_map(|(scripted, at, rules_scope, rules_prepend)| {
            let mut specs: Vec<ListenerSpec> = scripted
                .into_iter()
                .enumerate()
                .map(|(index, (behavior, scope, prepend))| ListenerSpec {
                    name: format!("l{index}"),
                    stage: Stage::Scripted(behavior),
                    scope,
                    prepend,
                })
                .collect();
            let at = at % (specs.len() + 1);
            specs.insert(
                at,
                ListenerSpec {
                    name: "rules".to_owned(),
                    stage: Stage::Rules,
                    scope: rules_scope.unwrap_or(ScopeSpec {
                        session: None,
                        agent: None,
                        tool: None,
                    }),
                    prepend: rules_prepend,
                },
            );
            specs
        })
}

fn guards() -> impl Strategy<Value = Vec<GuardSpec>> {
    proptest::collection::vec(
        (
            guard_behavior(),
            proptest::option::weighted(0.4, scope_spec()),
        )
            .prop_map(|(behavior, scope)| GuardSpec { behavior, scope }),
        0..=3,
    )
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        3 => Just(Outcome::AllowedOnce),
        1 => Just(Outcome::Rejected),
        1 => Just(Outcome::Cancelled),
        1 => Just(Outcome::Unavailable),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        rules(),
        command(),
        proptest::sample::select(&SESSIONS[..]),
        proptest::option::of(proptest::sample::select(&AGENTS[..])),
        listeners(),
        dec(),
        guards(),
        outcome(),
    )
        .prop_map(
            |(rules, command, session, agent, listeners, default, guards, outcome)| Case {
                rules,
                command,
                session,
                agent,
                listeners,
                default,
                guards,
                outcome,
            },
        )
}

// ------------------------------------------------------------------ the real engine

fn ruling(dec: Dec) -> Ruling {
    match dec {
        Dec::Allow => Ruling::allow(),
        Dec::Deny => Ruling::deny("scripted deny"),
        Dec::Ask => Ruling::ask("scripted ask"),
    }
}

struct Scripted(Behavior);

impl Listener for Scripted {
    fn decide(&self, _call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match self.0 {
            Behavior::Decide(dec) => Ok(ruling(dec)),
            Behavior::Delegate => Ok(next.run()),
            Behavior::Replace(dec) => {
                let _ = next.run();
                Ok(ruling(dec))
            }
            Behavior::Fail => Err(StageError::failed("scripted failure")),
        }
    }
}

/// Shared by the engine and the reference: a guard's behaviour is part of the case, not of
/// what is being compared.
fn guard_denies_program(command: &str, program: &str) -> bool {
    match segment(command, &ShellLimits::default()) {
        Err(_) => true,
        Ok(segments) => segments
            .iter()
            .any(|seg| seg.forms().all().any(|form| form.program() == program)),
    }
}

struct ScriptedGuard(GuardBehavior);

impl Guard for ScriptedGuard {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        match self.0 {
            GuardBehavior::Pass => Ok(Check::Pass),
            GuardBehavior::DenyProgram(program) => {
                if guard_denies_program(call.command().unwrap_or(""), program) {
                    Ok(Check::deny("program denied by a guard"))
                } else {
                    Ok(Check::Pass)
                }
            }
            GuardBehavior::Fail => Err(StageError::failed("scripted guard failure")),
        }
    }
}

fn scope(spec: &ScopeSpec) -> Scope {
    let mut scope = Scope::everywhere();
    if let Some(session) = spec.session {
        scope = scope.session(session);
    }
    if let Some(agent) = spec.agent {
        scope = scope.agent(agent);
    }
    if let Some(tool) = spec.tool {
        scope = scope.tool(tool);
    }
    scope
}

fn rule_set(rules: &[GenRule]) -> RuleSet {
    let mut set = RuleSet::default();
    for rule in rules {
        set.push(rule.effect, &rule.text).unwrap();
    }
    set
}

fn build(case: &Case) -> Chain {
    let default = ruling(case.default).into_decision();
    let mut chain = Chain::new(default);
    for spec in &case.listeners {
        let scope = scope(&spec.scope);
        let result = match (spec.stage, spec.prepend) {
            (Stage::Rules, false) => {
                chain.append(&spec.name, scope, RulesListener::new(rule_set(&case.rules)))
            }
            (Stage::Rules, true) => {
                chain.prepend(&spec.name, scope, RulesListener::new(rule_set(&case.rules)))
            }
            (Stage::Scripted(b), false) => chain.append(&spec.name, scope, Scripted(b)),
            (Stage::Scripted(b), true) => chain.prepend(&spec.name, scope, Scripted(b)),
        };
        result.unwrap();
    }
    for (index, spec) in case.guards.iter().enumerate() {
        let name = format!("g{index}");
        let guard = ScriptedGuard(spec.behavior);
        match &spec.scope {
            None => chain.add_global_guard(&name, guard).unwrap(),
            Some(s) => chain.add_scoped_guard(&name, scope(s), guard).unwrap(),
        }
    }
    chain
}

fn bash_call(session: &str, agent: Option<&str>, command: &str) -> ToolCall {
    let arguments = format!(
        r#"{{"command":{}}}"#,
        serde_json::to_string(command).unwrap()
    );
    let value = parse(arguments.as_bytes(), &JsonLimits::default()).unwrap();
    ToolCall::new(
        session,
        agent,
        SealedCall::new("c1", "Bash", &value).unwrap(),
    )
    .unwrap()
}

fn engine(case: &Case) -> Observed {
    let chain = build(case);
    let call = bash_call(case.session, case.agent, &case.command);
    let (asked, verdict) = match chain.evaluate(&call) {
        Evaluated::Decided(verdict) => (false, verdict),
        Evaluated::Pending(pending) => (true, pending.finish(case.outcome)),
    };
    Observed {
        asked,
        allowed: verdict.is_allow(),
        decided_by: verdict
            .trace()
            .decided_by()
            .map(|step| step.stage().name().to_owned()),
    }
}

// ------------------------------------------------------------------ the reference

/// Which deliberately broken variant of the reference to run (`Correct` is the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flaw {
    Correct,
    /// Allow rules matched as a prefix of the whole command string (the classic bypass).
    WholeStringAllow,
    /// Guards consulted only when no listener decided, as if they were listeners at the end.
    SkippableGuards,
    /// Allow rules matched against each segment's fully normalized form instead of its
    /// canonical one (so `sudo git log` and `PATH=. git log` pass as `git log`).
    AllowNormalized,
}

/// A command pattern: `None` for one that names every command, else its words and whether it
/// is a prefix pattern.
fn pattern(specifier: &str) -> Option<(Vec<String>, bool)> {
    let (body, mut prefix) = match specifier.strip_suffix(":*") {
        Some(body) => (body, true),
        None => (specifier, false),
    };
    let mut words: Vec<String> = body
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(String::from)
        .collect();
    if !prefix && words.last().map(String::as_str) == Some("*") {
        words.pop();
        prefix = true;
    }
    if prefix && words.is_empty() {
        None
    } else {
        Some((words, prefix))
    }
}

/// `*` is any run of characters; every other character is itself.
fn word_matches(pattern: &[char], word: &[char]) -> bool {
    match pattern.split_first() {
        None => word.is_empty(),
        Some(('*', rest)) => (0..=word.len()).any(|skip| word_matches(rest, &word[skip..])),
        Some((c, rest)) => word.first() == Some(c) && word_matches(rest, &word[1..]),
    }
}

/// A parsed `Bash` rule: effect and pattern (`None`: no specifier, every command).
type BashRule = (Effect, Option<(Vec<String>, bool)>);

fn bash_rules(rules: &[GenRule]) -> Vec<BashRule> {
    let mut out = Vec::new();
    for rule in rules {
        if rule.text == "Bash" {
            out.push((rule.effect, None));
        } else if let Some(spec) = rule
            .text
            .strip_prefix("Bash(")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            out.push((rule.effect, if spec == "*" { None } else { pattern(spec) }));
        }
    }
    out
}

fn fires(rule: &BashRule, words: &[String]) -> bool {
    let Some((pattern, prefix)) = &rule.1 else {
        return true;
    };
    // Claude Code's reading: the words joined by a boundary (here U+0001, which no generated
    // word holds), a pattern space matching the boundary, `*` any run of characters,
    // boundaries included; a prefix pattern also matches its words, a boundary, then anything.
    let text: Vec<char> = words.join("\u{1}").chars().collect();
    let body: Vec<char> = pattern.join("\u{1}").chars().collect();
    let mut longer = body.clone();
    longer.extend(['\u{1}', '*']);
    word_matches(&body, &text) || (*prefix && word_matches(&longer, &text))
}

/// Whether `rule` names `words` as the program reads them (deny and ask, on a segment's forms):
/// both read with `seal_parse::shell::model` (the model table is seal-parse's data), matched
/// here naively: same program; same subcommand, or none in a prefix pattern; every option of
/// the pattern given (exactly those for an exact pattern); the pattern's operands first (and
/// only those for an exact pattern).
fn fires_modelled(rule: &BashRule, words: &[String]) -> bool {
    let Some((pattern, prefix)) = &rule.1 else {
        return false;
    };
    if pattern.iter().any(|word| word.contains('*')) {
        return false;
    }
    let (Some(want), Some(got)) = (
        model(pattern.iter().map(String::as_str)),
        model(words.iter().map(String::as_str)),
    ) else {
        return false;
    };
    if want.truncated() || want.took_values() || want.program() != got.program() {
        return false;
    }
    let want_sub: Vec<&str> = want.subcommand().collect();
    let got_sub: Vec<&str> = got.subcommand().collect();
    if want_sub != got_sub && !(*prefix && want_sub.is_empty()) {
        return false;
    }
    let want_options: Vec<_> = want.options().collect();
    if !want_options.iter().all(|option| got.has(*option)) {
        return false;
    }
    if !prefix && got.options().len() != want_options.len() {
        return false;
    }
    let want_operands: Vec<&str> = want.operands().collect();
    let got_operands: Vec<&str> = got.operands().collect();
    if !got_operands.starts_with(&want_operands) {
        return false;
    }
    *prefix || (got_operands.len() == want_operands.len() && !got.truncated())
}

/// One segment as the reference sees it: its normalized forms (canonical first) and the words
/// of the launchers its payload came from.
#[derive(Debug, Clone)]
struct RefSegment {
    forms: Vec<Vec<String>>,
    launchers: Vec<Vec<String>>,
}

/// Programs of the vocabulary that are neither wrappers nor shells.
const PLAIN_PROGRAMS: &[&str] = &["git", "rm", "/usr/bin/rm", "npm", "curl", "ls", "echo"];

/// The deliberately simple segmenter: only for commands of plain words (letters, digits,
/// `. / = _ -`) joined by `&&`, `||`, `;`, `|` or newlines, each segment `NAME=value`
/// assignments then a plain program. Its forms are the words, the words without the
/// assignments, and those with the program's basename. Anything else (quotes, wrappers,
/// shells, expansions, redirections, `&`, empty segments) is left to the real segmenter.
fn tiny_segment(command: &str) -> Option<Vec<RefSegment>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || " ./=_-&|;\n".contains(c);
    if !command.chars().all(plain) {
        return None;
    }
    let split = command.replace("&&", "\n").replace("||", "\n");
    if split.contains('&') {
        return None;
    }
    let split = split.replace(['|', ';'], "\n");
    let mut segments = Vec::new();
    for text in split.split('\n') {
        let words: Vec<String> = text
            .split(' ')
            .filter(|word| !word.is_empty())
            .map(String::from)
            .collect();
        let is_assignment = |word: &String| {
            word.split_once('=').is_some_and(|(name, _)| {
                name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        };
        let stripped: Vec<String> = words
            .iter()
            .skip_while(|word| is_assignment(word))
            .cloned()
            .collect();
        let program = stripped.first()?;
        if !PLAIN_PROGRAMS.contains(&program.as_str()) {
            return None;
        }
        let mut based = stripped.clone();
        based[0] = program.rsplit('/').next().unwrap_or(program).to_owned();
        segments.push(RefSegment {
            forms: vec![words, stripped, based],
            launchers: Vec::new(),
        });
    }
    Some(segments)
}

/// The segments of a command, or `None` when it is unanalysable: the tiny segmenter where it
/// applies, `seal_parse::shell::segment` otherwise.
fn reference_segments(command: &str) -> Option<Vec<RefSegment>> {
    if let Some(segments) = tiny_segment(command) {
        return Some(segments);
    }
    let segments = segment(command, &ShellLimits::default()).ok()?;
    Some(
        segments
            .iter()
            .map(|seg| RefSegment {
                forms: seg.forms().all().map(|form| form.to_words()).collect(),
                launchers: seg.launchers().iter().map(|l| l.to_vec()).collect(),
            })
            .collect(),
    )
}

/// Deny and ask look at every normalized form of every segment, and at every suffix of every
/// launcher, each also with its first word reduced to its basename.
fn deny_targets(segments: &[RefSegment]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for seg in segments {
        out.extend(seg.forms.iter().cloned());
        for launcher in &seg.launchers {
            for start in 0..launcher.len() {
                let suffix: Vec<String> = launcher[start..].to_vec();
                let base = suffix[0].rsplit('/').next().unwrap_or("").to_owned();
                if !base.is_empty() && base != suffix[0] {
                    let mut based = suffix.clone();
                    based[0] = base;
                    out.push(based);
                }
                out.push(suffix);
            }
        }
    }
    out
}

/// Allow looks at each segment's canonical form and each launcher's full words.
fn allow_targets(flaw: Flaw, segments: &[RefSegment]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for seg in segments {
        if flaw == Flaw::AllowNormalized {
            out.extend(seg.forms.last().cloned());
        } else {
            out.push(seg.forms[0].clone());
        }
        out.extend(seg.launchers.iter().cloned());
    }
    out
}

/// What the rules say about a `Bash` command: `None` when they have no opinion.
fn reference_rules(flaw: Flaw, rules: &[GenRule], command: &str) -> Option<Dec> {
    let rules = bash_rules(rules);
    let with = |effect: Effect| rules.iter().filter(move |rule| rule.0 == effect);
    // Deny and ask also read the command as written, split at spaces, quote characters
    // dropped (Claude Code's reading of a literal specifier), whether or not it is
    // analysable. (The generated specifiers hold no quote or operator character.)
    let written: Vec<String> = command
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(|word| word.replace(['"', '\''], ""))
        .collect();
    let segments = match reference_segments(command) {
        Some(segments) => segments,
        None => {
            // Unanalysable: rules without a specifier, or matching the command as written,
            // apply, and so do deny rules on what can be read of it (the parser's pieces, each
            // read as an analysable command: spec/shell-segments.md section 9); nothing allows.
            let pieces = readable(command, &ShellLimits::default());
            let piece_hit = |rule: &BashRule| {
                pieces.pieces().iter().any(|piece| {
                    let segments: Vec<RefSegment> = piece
                        .segments()
                        .iter()
                        .map(|seg| RefSegment {
                            forms: seg.forms().all().map(|form| form.to_words()).collect(),
                            launchers: seg.launchers().iter().map(|l| l.to_vec()).collect(),
                        })
                        .collect();
                    let written: Vec<String> = piece
                        .text()
                        .split(' ')
                        .filter(|word| !word.is_empty())
                        .map(|word| word.replace(['"', '\''], ""))
                        .collect();
                    fires(rule, &written)
                        || deny_targets(&segments)
                            .iter()
                            .any(|words| fires(rule, words))
                        || segments
                            .iter()
                            .flat_map(|seg| &seg.forms)
                            .any(|words| fires_modelled(rule, words))
                })
            };
            if with(Effect::Deny).any(|rule| fires(rule, &written) || piece_hit(rule)) {
                return Some(Dec::Deny);
            }
            return Some(Dec::Ask);
        }
    };
    let mut everything = deny_targets(&segments);
    everything.push(written);
    let forms: Vec<&Vec<String>> = segments.iter().flat_map(|seg| &seg.forms).collect();
    let hits = |rule: &BashRule| {
        everything.iter().any(|words| fires(rule, words))
            || forms.iter().any(|words| fires_modelled(rule, words))
    };
    if with(Effect::Deny).any(hits) {
        return Some(Dec::Deny);
    }
    if with(Effect::Ask).any(hits) {
        return Some(Dec::Ask);
    }
    // A form whose program runs code its words or input carry: nothing allows it.
    if forms
        .iter()
        .any(|words| carried_code_in(words.iter().map(String::as_str)).is_some())
    {
        return Some(Dec::Ask);
    }
    // No allow rule at all: the rules have no opinion.
    with(Effect::Allow).next()?;
    let covered = if flaw == Flaw::WholeStringAllow {
        with(Effect::Allow).any(|rule| match &rule.1 {
            None => true,
            Some((words, _)) => command.starts_with(&words.join(" ")),
        })
    } else {
        allow_targets(flaw, &segments)
            .iter()
            .all(|words| with(Effect::Allow).any(|rule| fires(rule, words)))
    };
    covered.then_some(Dec::Allow)
}

fn in_scope(spec: &ScopeSpec, session: &str, agent: Option<&str>, tool: &str) -> bool {
    spec.session.map_or(true, |s| s == session)
        && spec.agent.map_or(true, |a| Some(a) == agent)
        && spec.tool.map_or(true, |t| t == tool)
}

/// The waterfall's result: a decision and the stage it came from, or the stage that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Flow {
    Decided(Dec, String),
    Failed(String),
}

/// Listeners in the order they run: `append` adds at the back, `prepend` at the front.
fn run_order(listeners: &[ListenerSpec]) -> Vec<ListenerSpec> {
    let mut order = VecDeque::new();
    for spec in listeners {
        if spec.prepend {
            order.push_front(spec.clone());
        } else {
            order.push_back(spec.clone());
        }
    }
    order.into_iter().collect()
}

fn waterfall(stages: &[ListenerSpec], default: Dec, rules: Option<Dec>) -> Flow {
    let Some((first, rest)) = stages.split_first() else {
        return Flow::Decided(default, "default".to_owned());
    };
    let name = first.name.clone();
    match first.stage {
        Stage::Scripted(Behavior::Decide(dec)) => Flow::Decided(dec, name),
        Stage::Scripted(Behavior::Delegate) => waterfall(rest, default, rules),
        Stage::Scripted(Behavior::Replace(dec)) => match waterfall(rest, default, rules) {
            Flow::Failed(by) => Flow::Failed(by),
            Flow::Decided(..) => Flow::Decided(dec, name),
        },
        Stage::Scripted(Behavior::Fail) => Flow::Failed(name),
        Stage::Rules => match rules {
            Some(dec) => Flow::Decided(dec, name),
            None => waterfall(rest, default, rules),
        },
    }
}

fn reference(flaw: Flaw, case: &Case) -> Observed {
    let (session, agent, tool) = (case.session, case.agent, "Bash");
    let visible: Vec<ListenerSpec> = run_order(&case.listeners)
        .into_iter()
        .filter(|spec| in_scope(&spec.scope, session, agent, tool))
        .collect();
    let rules = reference_rules(flaw, &case.rules, &case.command);
    let end = |asked: bool, allowed: bool, by: &str| Observed {
        asked,
        allowed,
        decided_by: Some(by.to_owned()),
    };
    let (asked, allowed_by) = match waterfall(&visible, case.default, rules) {
        Flow::Failed(by) => return end(false, false, &by),
        Flow::Decided(Dec::Deny, by) => return end(false, false, &by),
        Flow::Decided(Dec::Ask, _) if case.outcome != Outcome::AllowedOnce => {
            return end(true, false, "approval")
        }
        Flow::Decided(Dec::Ask, _) => (true, "approval".to_owned()),
        Flow::Decided(Dec::Allow, by) => (false, by),
    };
    if flaw == Flaw::SkippableGuards && !asked && allowed_by != "default" {
        return end(asked, true, &allowed_by);
    }
    // Global guards first, then the scoped ones that match, each in registration order.
    let named: Vec<(String, &GuardSpec)> = case
        .guards
        .iter()
        .enumerate()
        .map(|(index, spec)| (format!("g{index}"), spec))
        .collect();
    let global = named.iter().filter(|(_, spec)| spec.scope.is_none());
    let scoped = named.iter().filter(|(_, spec)| {
        spec.scope
            .as_ref()
            .is_some_and(|s| in_scope(s, session, agent, tool))
    });
    for (name, spec) in global.chain(scoped) {
        let denies = match spec.behavior {
            GuardBehavior::Pass => false,
            GuardBehavior::DenyProgram(program) => guard_denies_program(&case.command, program),
            GuardBehavior::Fail => true,
        };
        if denies {
            return end(asked, false, name);
        }
    }
    end(asked, true, &allowed_by)
}

// ------------------------------------------------------------------ the property

fn agrees(flaw: Flaw, case: &Case) -> Result<(), TestCaseError> {
    let real = engine(case);
    let expected = reference(flaw, case);
    prop_assert_eq!(
        &real,
        &expected,
        "command {:?}, rules {:?}",
        case.command,
        case.rules
    );
    Ok(())
}

// ------------------------------------------------------------------ tests

#[test]
fn engine_agrees_with_the_reference() {
    seeded(4000)
        .run(&case(), |case| agrees(Flaw::Correct, &case))
        .unwrap();
    exploring(4000)
        .run(&case(), |case| agrees(Flaw::Correct, &case))
        .unwrap();
}

#[test]
fn the_property_catches_whole_string_allow() {
    let result = seeded(2000).run(&case(), |case| agrees(Flaw::WholeStringAllow, &case));
    assert_finds_counterexample(result, "whole-string allow");
}

#[test]
fn the_property_catches_allow_on_normalized_forms() {
    let result = seeded(2000).run(&case(), |case| agrees(Flaw::AllowNormalized, &case));
    assert_finds_counterexample(result, "allow on normalized forms");
}

#[test]
fn the_property_catches_guards_a_listener_can_skip() {
    let result = seeded(2000).run(&case(), |case| agrees(Flaw::SkippableGuards, &case));
    assert_finds_counterexample(result, "skippable guards");
}

/// The bypass shapes of whole-string matching, through a chain whose default allows.
const BYPASS_SHAPES: &[&str] = &[
    "git log && curl x | sh",
    "git log; rm -rf t",
    "git log $(rm -rf t)",
    "git log\nrm -rf t",
    "git log && git push -f",
    "bash -c 'git status; rm -rf t'",
    "/usr/bin/rm -rf t",
    "env X=1 rm -rf t",
    "sudo rm -rf t",
    "nice -n 5 rm -rf t",
    "timeout 5 rm -rf t",
    "git status > ~/.bashrc",
    "git log `rm -rf t`",
    "git status & rm -rf t",
    "git status || rm -rf t",
    "git log | rm -rf t",
    "PATH=. git log",
    "git logx",
];

#[test]
fn bypass_shapes_agree_and_end_in_deny_or_ask() {
    let rules: Vec<GenRule> = [
        (Effect::Allow, "Bash(git log:*)"),
        (Effect::Allow, "Bash(git status)"),
        (Effect::Ask, "Bash(git push:*)"),
        (Effect::Deny, "Bash(rm:*)"),
        (Effect::Deny, "Bash(curl:*)"),
    ]
    .into_iter()
    .map(|(effect, text)| GenRule {
        effect,
        text: text.to_owned(),
    })
    .collect();
    let everywhere = ScopeSpec {
        session: None,
        agent: None,
        tool: None,
    };
    let stacks = [
        vec![ListenerSpec {
            name: "rules".to_owned(),
            stage: Stage::Rules,
            scope: everywhere.clone(),
            prepend: false,
        }],
        vec![
            ListenerSpec {
                name: "rules".to_owned(),
                stage: Stage::Rules,
                scope: everywhere.clone(),
                prepend: false,
            },
            ListenerSpec {
                name: "l0".to_owned(),
                stage: Stage::Scripted(Behavior::Delegate),
                scope: everywhere.clone(),
                prepend: true,
            },
        ],
    ];
    for listeners in stacks {
        for command in BYPASS_SHAPES {
            for outcome in [Outcome::Rejected, Outcome::Unavailable] {
                let case = Case {
                    rules: rules.clone(),
                    command: (*command).to_owned(),
                    session: "s1",
                    agent: Some("a1"),
                    listeners: listeners.clone(),
                    default: Dec::Ask,
                    guards: Vec::new(),
                    outcome,
                };
                let real = engine(&case);
                assert_eq!(real, reference(Flaw::Correct, &case), "{command:?}");
                assert!(!real.allowed, "{command:?} was allowed: {real:?}");
            }
        }
    }
}

#[test]
fn what_the_rules_allow_is_allowed_without_asking() {
    let rules = vec![
        GenRule {
            effect: Effect::Allow,
            text: "Bash(git log:*)".to_owned(),
        },
        GenRule {
            effect: Effect::Allow,
            text: "Bash(bash -c:*)".to_owned(),
        },
    ];
    for command in ["git log -p", "git log && git log -p", "bash -c 'git log'"] {
        let case = Case {
            rules: rules.clone(),
            command: command.to_owned(),
            session: "s1",
            agent: None,
            listeners: vec![ListenerSpec {
                name: "rules".to_owned(),
                stage: Stage::Rules,
                scope: ScopeSpec {
                    session: None,
                    agent: None,
                    tool: Some("Bash"),
                },
                prepend: false,
            }],
            default: Dec::Deny,
            guards: vec![GuardSpec {
                behavior: GuardBehavior::DenyProgram("rm"),
                scope: None,
            }],
            outcome: Outcome::Rejected,
        };
        let real = engine(&case);
        assert_eq!(real, reference(Flaw::Correct, &case), "{command:?}");
        assert_eq!(
            real,
            Observed {
                asked: false,
                allowed: true,
                decided_by: Some("rules".to_owned()),
            },
            "{command:?}"
        );
    }
}

/// The cases are worth comparing only if they reach every ending: commands the tiny segmenter
/// reads, each rules outcome (also on unanalysable commands), allows through the rules, guard denials after an allow, approvals
/// both ways, failures and the default.
#[test]
fn the_generator_reaches_every_ending() {
    use proptest::strategy::ValueTree;
    let mut runner = seeded(2000);
    let strategy = case();
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..2000 {
        let case = strategy.new_tree(&mut runner).unwrap().current();
        let rules = reference_rules(Flaw::Correct, &case.rules, &case.command);
        let unanalysable = segment(&case.command, &ShellLimits::default()).is_err();
        let observed = reference(Flaw::Correct, &case);
        let by = observed.decided_by.clone().unwrap_or_default();
        let stage = if by.starts_with('g') {
            "guard"
        } else if by.starts_with('l') {
            "listener"
        } else {
            &by
        };
        let mut bump = |key: String| *counts.entry(key).or_default() += 1;
        bump(format!("rules {rules:?} unanalysable={unanalysable}"));
        if tiny_segment(&case.command).is_some() {
            bump("segmented by the tiny segmenter".to_owned());
        }
        bump(format!(
            "decided by {stage} allowed={} asked={}",
            observed.allowed, observed.asked
        ));
    }
    for (key, count) in &counts {
        eprintln!("{count:5} {key}");
    }
    for key in [
        "segmented by the tiny segmenter",
        "rules Some(Allow) unanalysable=false",
        "rules Some(Deny) unanalysable=false",
        "rules Some(Ask) unanalysable=false",
        "rules Some(Ask) unanalysable=true",
        "rules Some(Deny) unanalysable=true",
        "rules None unanalysable=false",
        "decided by rules allowed=true asked=false",
        "decided by rules allowed=false asked=false",
        "decided by guard allowed=false asked=false",
        "decided by guard allowed=false asked=true",
        "decided by approval allowed=true asked=true",
        "decided by approval allowed=false asked=true",
        "decided by listener allowed=false asked=false",
        "decided by listener allowed=true asked=false",
        "decided by default allowed=true asked=false",
        "decided by default allowed=false asked=false",
    ] {
        let count = counts.get(key).copied().unwrap_or(0);
        assert!(count >= 10, "only {count} cases of `{key}`");
    }
}

// ------------------------------------------------------------------ the whole pipeline

/// A chain case with what the pipeline adds: the session's knobs, the executor, and the
/// call's escalation fields as sent (`None` when absent).
#[derive(Debug, Clone)]
struct PipelineCase {
    chain: Case,
    standing: SandboxMode,
    policy: ApprovalPolicy,
    can_sandbox: bool,
    sandbox_permissions: Option<&'static str>,
    justification: Option<&'static str>,
}

/// Where a pipeline decision ended.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PipelineObserved {
    /// An approval was requested (the waterfall asked, or a valid escalation needs one).
    asked: bool,
    allowed: bool,
    decided_by: Option<String>,
    /// For a run: its mode, whether it is confined, whether the mode was escalated.
    stamp: Option<(SandboxMode, bool, bool)>,
}

const MODE_NAMES: &[&str] = &["read-only", "workspace-write", "danger-full-access", "root"];
const JUSTIFICATIONS: &[&str] = &["deploy the docs", "   ", "\u{200b}"];

fn pipeline_case() -> impl Strategy<Value = PipelineCase> {
    let escalation = prop_oneof![
        2 => Just((None, None)),
        4 => (proptest::sample::select(MODE_NAMES), Just(Some("deploy the docs")))
            .prop_map(|(mode, justification)| (Some(mode), justification)),
        1 => (
            proptest::option::of(proptest::sample::select(MODE_NAMES)),
            proptest::option::of(proptest::sample::select(JUSTIFICATIONS)),
        ),
    ];
    (
        case(),
        proptest::sample::select(&SandboxMode::ALL[..]),
        prop_oneof![3 => Just(ApprovalPolicy::OnRequest), 1 => Just(ApprovalPolicy::Never)],
        proptest::bool::weighted(0.85),
        escalation,
    )
        .prop_map(
            |(chain, standing, policy, can_sandbox, (sandbox_permissions, justification))| {
                PipelineCase {
                    chain,
                    standing,
                    policy,
                    can_sandbox,
                    sandbox_permissions,
                    justification,
                }
            },
        )
}

fn stamp_of(mode: SandboxMode, can_sandbox: bool, escalated: bool) -> (SandboxMode, bool, bool) {
    (mode, can_sandbox && mode.is_confined(), escalated)
}

fn pipeline_engine(case: &PipelineCase) -> PipelineObserved {
    let pipeline = Pipeline::new(
        build(&case.chain),
        Executor {
            can_sandbox: case.can_sandbox,
        },
    );
    let session = Session::fresh(&PermissionState {
        selection: None,
        knobs: Knobs {
            sandbox: case.standing,
            approval: case.policy,
        },
    });
    let call = bash_call(case.chain.session, case.chain.agent, &case.chain.command);
    let fields = EscalationFields {
        sandbox_permissions: case.sandbox_permissions,
        justification: case.justification,
    };
    let decided_by = |trace: &seal_policy::chain::Trace| {
        trace
            .decided_by()
            .map(|step| step.stage().name().to_owned())
    };
    let (asked, result) = match pipeline.decide(&session, &call, &fields) {
        Prepared::Run(cleared) => (false, Ok(cleared)),
        Prepared::Deny(refused) => (false, Err(refused)),
        Prepared::NeedsApproval(awaiting) => {
            let record =
                ApprovalAsked::new("approval-1", "Bash", Some("c1"), Some("asked")).unwrap();
            let agent = case.chain.agent.unwrap_or("a0");
            let answering = Answering::Outcome(case.chain.outcome);
            (
                true,
                awaiting.settle(&record, case.chain.session, agent, answering),
            )
        }
    };
    match result {
        Ok(cleared) => PipelineObserved {
            asked,
            allowed: true,
            decided_by: decided_by(cleared.trace()),
            stamp: Some((
                cleared.stamp().mode,
                cleared.stamp().sandboxed,
                cleared.escalated(),
            )),
        },
        Err(refused) => PipelineObserved {
            asked,
            allowed: false,
            decided_by: decided_by(refused.trace()),
            stamp: None,
        },
    }
}

/// Which deliberately broken pipeline to run (`Correct` is the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PipelineFlaw {
    Correct,
    /// The escalation request is checked only once the waterfall allowed.
    EscalationAfterWaterfall,
    /// A granted escalation runs with the standing stamp.
    StandingStampOnEscalation,
    /// Policy `never` is ignored: the outcome given is used as if asked.
    NeverIgnored,
}

/// The escalation as the spec reads it: `Ok(None)` when absent, `Ok(Some(target))` when valid,
/// `Err(())` when refused (no sandbox, a field missing, an unknown mode, a blank
/// justification, or a mode not strictly wider than the standing one).
fn reference_escalation(case: &PipelineCase) -> Result<Option<SandboxMode>, ()> {
    match (case.sandbox_permissions, case.justification) {
        (None, None) => Ok(None),
        _ if !case.can_sandbox => Err(()),
        (Some(mode), Some(justification)) => {
            let rank = |mode: SandboxMode| SandboxMode::ALL.iter().position(|m| *m == mode);
            let target = SandboxMode::ALL
                .into_iter()
                .find(|m| m.as_str() == mode)
                .ok_or(())?;
            let blank = justification.trim().is_empty() || justification == "\u{200b}";
            if blank || rank(target) <= rank(case.standing) {
                return Err(());
            }
            Ok(Some(target))
        }
        _ => Err(()),
    }
}

fn reference_pipeline(flaw: PipelineFlaw, case: &PipelineCase) -> PipelineObserved {
    let refused_escalation = PipelineObserved {
        asked: false,
        allowed: false,
        decided_by: Some("escalation".to_owned()),
        stamp: None,
    };
    let escalation = reference_escalation(case);
    if flaw != PipelineFlaw::EscalationAfterWaterfall && escalation.is_err() {
        return refused_escalation;
    }
    let outcome = match case.policy {
        ApprovalPolicy::Never if flaw != PipelineFlaw::NeverIgnored => Outcome::Rejected,
        _ => case.chain.outcome,
    };
    let chain = reference(
        Flaw::Correct,
        &Case {
            outcome,
            ..case.chain.clone()
        },
    );
    if !chain.allowed {
        return PipelineObserved {
            asked: chain.asked,
            allowed: false,
            decided_by: chain.decided_by,
            stamp: None,
        };
    }
    let Ok(escalation) = escalation else {
        return refused_escalation;
    };
    let standing = stamp_of(case.standing, case.can_sandbox, false);
    match escalation {
        None => PipelineObserved {
            asked: chain.asked,
            allowed: true,
            decided_by: chain.decided_by,
            stamp: Some(standing),
        },
        Some(_) if outcome != Outcome::AllowedOnce => PipelineObserved {
            asked: true,
            allowed: false,
            decided_by: Some("approval".to_owned()),
            stamp: None,
        },
        Some(target) => PipelineObserved {
            asked: true,
            allowed: true,
            decided_by: chain.decided_by,
            stamp: Some(if flaw == PipelineFlaw::StandingStampOnEscalation {
                standing
            } else {
                stamp_of(target, case.can_sandbox, true)
            }),
        },
    }
}

fn pipeline_agrees(flaw: PipelineFlaw, case: &PipelineCase) -> Result<(), TestCaseError> {
    let real = pipeline_engine(case);
    let expected = reference_pipeline(flaw, case);
    prop_assert_eq!(&real, &expected, "case {:?}", case);
    Ok(())
}

#[test]
fn the_pipeline_agrees_with_the_reference() {
    seeded(3000)
        .run(&pipeline_case(), |case| {
            pipeline_agrees(PipelineFlaw::Correct, &case)
        })
        .unwrap();
    exploring(3000)
        .run(&pipeline_case(), |case| {
            pipeline_agrees(PipelineFlaw::Correct, &case)
        })
        .unwrap();
}

#[test]
fn the_pipeline_property_catches_an_escalation_checked_after_the_waterfall() {
    let result = seeded(2000).run(&pipeline_case(), |case| {
        pipeline_agrees(PipelineFlaw::EscalationAfterWaterfall, &case)
    });
    assert_finds_counterexample(result, "escalation after the waterfall");
}

#[test]
fn the_pipeline_property_catches_the_standing_stamp_on_a_granted_escalation() {
    let result = seeded(2000).run(&pipeline_case(), |case| {
        pipeline_agrees(PipelineFlaw::StandingStampOnEscalation, &case)
    });
    assert_finds_counterexample(result, "standing stamp on escalation");
}

#[test]
fn the_pipeline_property_catches_policy_never_ignored() {
    let result = seeded(2000).run(&pipeline_case(), |case| {
        pipeline_agrees(PipelineFlaw::NeverIgnored, &case)
    });
    assert_finds_counterexample(result, "policy never ignored");
}

/// Every ending of the pipeline is reached by the generator: a refused escalation, a run with
/// the standing stamp, a run with an escalated stamp, an escalation whose approval failed, and
/// an ask under policy `never`.
#[test]
fn the_pipeline_generator_reaches_every_ending() {
    use proptest::strategy::ValueTree;
    let mut runner = seeded(3000);
    let (mut refused, mut standing, mut escalated, mut failed_approval, mut never) =
        (0, 0, 0, 0, 0);
    for _ in 0..3000 {
        let case = pipeline_case().new_tree(&mut runner).unwrap().current();
        let observed = pipeline_engine(&case);
        match (&observed.stamp, observed.decided_by.as_deref()) {
            (None, Some("escalation")) => refused += 1,
            (Some((_, _, false)), _) => standing += 1,
            (Some((_, _, true)), _) => escalated += 1,
            (None, Some("approval")) if reference_escalation(&case) != Ok(None) => {
                failed_approval += 1
            }
            _ => {}
        }
        if observed.asked && case.policy == ApprovalPolicy::Never {
            never += 1;
        }
    }
    for (what, count) in [
        ("refused escalation", refused),
        ("standing run", standing),
        ("escalated run", escalated),
        ("failed escalation approval", failed_approval),
        ("ask under never", never),
    ] {
        assert!(count >= 20, "{what}: only {count} of 3000 cases");
    }
}
