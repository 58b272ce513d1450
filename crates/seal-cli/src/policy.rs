//! Policy decisions as the binary makes them (`policy check`, the tool hooks, `demo`): a rules
//! file loaded into seal's pre-execute chain, one tool call evaluated, the decision with its
//! trace; and `policy lint`.

use seal_parse::json::{Object, Value};
use seal_policy::chain::{Chain, Decision, Evaluation, Scope, ToolCall, Verdict};
use seal_policy::rules::{lint, RuleLimits, RuleSet, RulesListener};
use seal_record::SealedCall;
use seal_render::{escape, Context};

use crate::args::{Flag, Flags};
use crate::card;
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, read_stdin, MAX_FILE_BYTES, MAX_STDIN_BYTES};
use crate::json_in;
use crate::json_out::J;

/// The flags of `seal policy check`.
pub const CHECK_FLAGS: &[Flag] = &[
    Flag::value("rules"),
    Flag::value("default"),
    Flag::value("cwd"),
    Flag::switch("json"),
];

/// The flags of `seal policy lint`.
pub const LINT_FLAGS: &[Flag] = &[Flag::value("rules"), Flag::switch("json")];

/// The three answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The call may run.
    Allow,
    /// The call is refused.
    Deny,
    /// A human must approve the call.
    Ask,
}

impl Answer {
    /// `allow`, `deny` or `ask`.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::Deny => "deny",
            Answer::Ask => "ask",
        }
    }
}

/// A decision with everything that explains it.
#[derive(Debug, Clone)]
pub struct Decided {
    /// The answer.
    pub answer: Answer,
    /// The reason (for deny and ask), ASCII.
    pub reason: String,
    /// The chain's trace, one line per step, then `decided by: n`.
    pub trace: Vec<String>,
    /// What the rules alone gave, with the rule and the normalized form that matched.
    pub rules: String,
    /// The approval card, for an ask.
    pub card: Option<String>,
}

/// A tool call as the hooks and `policy check` read it.
pub struct CallInput<'a> {
    /// `tool_name`.
    pub tool: &'a str,
    /// `tool_input`.
    pub input: &'a Value<'a>,
    /// `session_id`, or `seal-cli` when absent.
    pub session: &'a str,
    /// `tool_use_id`, or `call` when absent.
    pub call_id: &'a str,
    /// The working directory: absolute paths under it are workspace paths for path rules.
    pub cwd: Option<&'a str>,
}

impl<'a> CallInput<'a> {
    /// Reads the call members of a hook payload or `policy check` input.
    pub fn from_object(object: &'a Object<'a>, what: &str) -> Result<CallInput<'a>, Failure> {
        let tool = json_in::string(object, "tool_name", what)?;
        let input = object
            .get("tool_input")
            .ok_or_else(|| Failure::input(format!("{what}: `tool_input` is missing")))?;
        if !matches!(input, Value::Object(_)) {
            return Err(Failure::input(format!(
                "{what}: `tool_input` is not an object"
            )));
        }
        Ok(CallInput {
            tool,
            input,
            session: json_in::optional_string(object, "session_id", what)?.unwrap_or("seal-cli"),
            call_id: json_in::optional_string(object, "tool_use_id", what)?.unwrap_or("call"),
            cwd: json_in::optional_string(object, "cwd", what)?,
        })
    }
}

/// Loads the rules file at `path`.
pub fn load_rules(path: &str) -> Result<RuleSet, Failure> {
    let bytes = read_file(path, MAX_FILE_BYTES, "rules file").map_err(|failure| Failure {
        exit: Exit::Rules,
        ..failure
    })?;
    RuleSet::from_json(&bytes, &RuleLimits::default())
        .map_err(|error| Failure::new(Exit::Rules, format!("rules file {}: {error}", quoted(path))))
}

/// The end-of-chain default named by `text` (`allow`, `ask` or `deny`).
pub fn default_decision(text: Option<&str>) -> Result<Decision, Failure> {
    match text.unwrap_or("ask") {
        "allow" => Ok(Decision::Allow),
        "ask" => Ok(Decision::ask("no rule decided this call")),
        "deny" => Ok(Decision::deny("no rule allows this call")),
        other => Err(Failure::usage(format!(
            "`--default` is `allow`, `ask` or `deny`, not {}",
            quoted(other)
        ))),
    }
}

/// Decides `call` with `rules` in a chain ending in `default`.
pub fn decide(rules: RuleSet, default: Decision, call: &CallInput<'_>) -> Result<Decided, Failure> {
    let rules = match call.cwd {
        Some(cwd) if cwd.starts_with('/') => rules.with_workspace_root(cwd),
        _ => rules,
    };
    let sealed = SealedCall::new(call.call_id, call.tool, call.input)
        .map_err(|error| Failure::input(format!("tool call refused: {error}")))?;
    let tool_call = ToolCall::new(call.session, None, sealed)
        .map_err(|error| Failure::input(format!("tool call refused: {error}")))?;
    let listener = RulesListener::new(rules);
    let detail = listener.evaluate(&tool_call).to_string();
    let mut chain = Chain::new(default);
    chain
        .append("rules", Scope::everywhere(), listener)
        .map_err(|error| Failure::new(Exit::Internal, format!("chain: {error}")))?;
    let inline = |text: &str| escape(text, Context::Inline).into_owned();
    let decided = match chain.evaluate(&tool_call) {
        Evaluation::Decided(Verdict::Allow(allowed)) => Decided {
            answer: Answer::Allow,
            reason: String::new(),
            trace: lines(&allowed.trace().to_string()),
            rules: inline(&detail),
            card: None,
        },
        Evaluation::Decided(Verdict::Deny(denied)) => Decided {
            answer: Answer::Deny,
            reason: inline(denied.reason().as_str()),
            trace: lines(&denied.trace().to_string()),
            rules: inline(&detail),
            card: None,
        },
        Evaluation::Pending(pending) => {
            let reason = pending.reason().map_or_else(
                || String::from("approval required"),
                |r| r.as_str().to_owned(),
            );
            Decided {
                answer: Answer::Ask,
                card: Some(card::render(pending.call(), &reason)),
                reason: inline(&reason),
                trace: lines(&pending.trace().to_string()),
                rules: inline(&detail),
            }
        }
    };
    Ok(decided)
}

/// The decision as JSON (spec/cli.md, "policy check --json").
pub fn decided_json(decided: &Decided) -> J {
    J::Obj(vec![
        ("decision", J::str(decided.answer.as_str())),
        ("reason", J::str(decided.reason.clone())),
        (
            "trace",
            J::Arr(
                decided
                    .trace
                    .iter()
                    .map(|line| J::str(line.clone()))
                    .collect(),
            ),
        ),
        ("rules", J::str(decided.rules.clone())),
        ("card", J::opt(decided.card.clone())),
    ])
}

/// The decision as text: decision, reason, trace, the rules' detail, and the card for an ask.
pub fn decided_text(decided: &Decided) -> String {
    let mut out = format!("decision: {}\n", decided.answer.as_str());
    if !decided.reason.is_empty() {
        out.push_str(&format!("reason:   {}\n", decided.reason));
    }
    out.push_str("trace:\n");
    for line in &decided.trace {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&format!("rules:    {}\n", decided.rules));
    if let Some(card) = &decided.card {
        out.push_str(card);
    }
    out
}

/// Runs `seal policy check`.
pub fn run_check(flags: &Flags) -> Result<u8, Failure> {
    let rules = load_rules(flags.required("rules")?)?;
    let default = default_decision(flags.value("default"))?;
    let bytes = read_stdin(MAX_STDIN_BYTES)?;
    let object = json_in::object(&bytes, "tool call")?;
    let mut call = CallInput::from_object(&object, "tool call")?;
    if let Some(cwd) = flags.value("cwd") {
        call.cwd = Some(cwd);
    }
    let decided = decide(rules, default, &call)?;
    if flags.switch("json") {
        println!("{}", decided_json(&decided).to_text());
    } else {
        print!("{}", decided_text(&decided));
    }
    Ok(match decided.answer {
        Answer::Allow => Exit::Ok,
        Answer::Deny => Exit::Deny,
        Answer::Ask => Exit::Ask,
    }
    .code())
}

/// Runs `seal policy lint`.
pub fn run_lint(flags: &Flags) -> Result<u8, Failure> {
    let rules = load_rules(flags.required("rules")?)?;
    let findings = lint_lines(&rules);
    if flags.switch("json") {
        let items = findings.iter().map(|line| J::str(line.clone())).collect();
        println!("{}", J::Obj(vec![("findings", J::Arr(items))]).to_text());
    } else if findings.is_empty() {
        println!("no findings in {} rules", rules.rules().len());
    } else {
        for line in &findings {
            println!("{line}");
        }
    }
    Ok(if findings.is_empty() {
        Exit::Ok
    } else {
        Exit::LintFindings
    }
    .code())
}

/// The lint findings of `rules`, one ASCII line each, with the rule's location when known.
pub fn lint_lines(rules: &RuleSet) -> Vec<String> {
    lint(rules)
        .iter()
        .map(|finding| {
            let at = rules
                .rules()
                .get(finding.rule)
                .and_then(|entry| entry.location())
                .map(|location| format!("line {}: ", location.line))
                .unwrap_or_default();
            escape(&format!("{at}{finding}"), Context::Inline).into_owned()
        })
        .collect()
}

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| escape(line, Context::Inline).into_owned())
        .collect()
}
