//! Policy decisions as the binary makes them (`policy check`, the tool hooks, `demo`): the rules
//! file given to the facade's [`Seal`], one tool call frozen and prepared, the decision with its
//! trace and, for an ask, the facade's approval card; and `policy lint` (the facade's lint).

use seal::destructive::DestructiveGuard;
use seal::explain::{Explain as Reads, Reading};
use seal::json::{Object, Value};
use seal::render::Escaped;
use seal::{lint_rules, Fallback, Prepared, Seal, Step, Trace};

use crate::cli::{PolicyCheckArgs, PolicyLintArgs, Toggle};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, read_stdin, utf8, MAX_FILE_BYTES, MAX_STDIN_BYTES};
use crate::json_in;
use crate::json_out::J;
use crate::path_guards::{PathGuards, SealFiles, NO_PATH_GUARDS};

/// The binary's three answers to a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyAnswer {
    /// The call may run.
    Allow,
    /// The call is refused.
    Deny,
    /// A human must approve the call.
    Ask,
}

impl PolicyAnswer {
    /// `allow`, `deny` or `ask`.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyAnswer::Allow => "allow",
            PolicyAnswer::Deny => "deny",
            PolicyAnswer::Ask => "ask",
        }
    }
}

/// A decision with everything that explains it. Every text is ASCII.
#[derive(Debug, Clone)]
pub struct Decided {
    /// The answer.
    pub answer: PolicyAnswer,
    /// The reason (for deny and ask), escaped once.
    pub reason: Escaped,
    /// The trace, one line per stage that ran, then `decided by: n` (for an ask, the stages
    /// before the approval: the binary never answers an approval itself).
    pub trace: Vec<String>,
    /// The rule that decided and the normalized form it matched, when a rule decided.
    pub matched: Option<Escaped>,
    /// What the rules alone give, per segment (for a command no rule covers, the first segment
    /// no allow rule covers); empty when not asked for ([`ExplainDepth`]).
    pub rules: Escaped,
    /// The rules listener's reading of the call, recorded in the decision's trace as it
    /// decided ([`Decided::rules`] comes from it), form by form for a shell command with
    /// [`ExplainDepth::Forms`]; `None` when a stage before the rules decided.
    pub explanation: Option<Reading>,
    /// The approval card, for an ask.
    pub card: Option<String>,
    /// The approval id the card names, for an ask.
    pub approval_id: Option<String>,
    /// SHA-256 (hex) of the frozen arguments: the lossless canonical bytes of `tool_input`, the
    /// same for the same call on every run (the digest computed when the call was frozen).
    pub arguments_sha256: String,
    /// Whether the deny is a failure after the decision (the decision log could not record
    /// it): its reason stands alone, with no rule beside it.
    pub failed: bool,
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
    /// The agent making the call (`claude-code`, `codex`, `seal-cli`).
    pub agent: &'a str,
    /// The working directory: absolute paths under it are workspace paths for path rules.
    pub cwd: Option<&'a str>,
    /// `permission_mode`, the client's permission mode for the call, when given.
    pub permission_mode: Option<&'a str>,
}

impl<'a> CallInput<'a> {
    /// Reads the call members of a hook payload or `policy check` input (an object read with
    /// [`json_in::foreign_object`]): `tool_name` and the object `tool_input` are required, and
    /// `session_id`, `tool_use_id` and `cwd` are strings when present. Every other member is
    /// ignored, whatever it holds.
    pub fn from_object(
        object: &'a Object<'a>,
        agent: &'a str,
        what: &str,
    ) -> Result<CallInput<'a>, Failure> {
        let tool = json_in::string(object, "tool_name", what)?;
        CallInput::with_tool(object, tool, agent, what)
    }

    /// Reads a skill shell line (`PreSkillShellCommand`) as a `Bash` call: the members of
    /// [`CallInput::from_object`], with the tool `Bash` whatever `tool_name` says (the hook
    /// refuses one that says otherwise) and `tool_input.command` required to be a string.
    pub fn skill_line(
        object: &'a Object<'a>,
        agent: &'a str,
        what: &str,
    ) -> Result<CallInput<'a>, Failure> {
        let call = CallInput::with_tool(object, "Bash", agent, what)?;
        match call.input {
            Value::Object(input) if matches!(input.get("command"), Some(Value::String(_))) => {
                Ok(call)
            }
            _ => Err(Failure::input(format!(
                "{what}: `tool_input.command` is not a string"
            ))),
        }
    }

    fn with_tool(
        object: &'a Object<'a>,
        tool: &'a str,
        agent: &'a str,
        what: &str,
    ) -> Result<CallInput<'a>, Failure> {
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
            agent,
            cwd: json_in::optional_string(object, "cwd", what)?,
            permission_mode: json_in::optional_string(object, "permission_mode", what)?,
        })
    }
}

/// Reads the rules file at `path` (UTF-8 text; whether it loads is decided when the seal is
/// built, or by the lint).
pub fn read_rules(path: &str) -> Result<String, Failure> {
    let bytes = read_file(path, MAX_FILE_BYTES, "rules file").map_err(|failure| Failure {
        exit: Exit::Rules,
        ..failure
    })?;
    utf8(bytes, &format!("rules file {}", quoted(path))).map_err(|failure| Failure {
        exit: Exit::Rules,
        ..failure
    })
}

/// Whether [`decide`] explains what the rule set alone gives ([`Decided::rules`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainDepth {
    /// Always, and a shell command form by form as well (`policy check --explain`), from the
    /// same evaluation.
    Forms,
    /// Always (`policy check`, the demo).
    Always,
    /// Only when no rule decided, where the hook's reason names what the rules saw; otherwise
    /// `rules` is empty and the rule set is not evaluated a second time.
    WhenNoRuleDecided,
}

/// How the binary decides a call: the end of the chain, and which guards run first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode<'a> {
    /// What no rule decides gets this.
    pub fallback: Fallback,
    /// Whether the destructive-command guard runs (spec/destructive-guard.md), reading `~` as
    /// `HOME`.
    pub destructive_guard: bool,
    /// The self-protection and secret-read guards that run (spec/self-protection.md,
    /// spec/secret-guard.md), reading `~` as `HOME` and the workspace as the call's `cwd`.
    pub path_guards: &'a PathGuards,
    /// Whether the fallback is the client's own in the call's permission mode
    /// (`--default client`): [`Mode::for_call`] picks it.
    pub by_permission_mode: bool,
    /// Directories counted as inside the workspace besides the call's `cwd` (`--add-dir`).
    pub added_dirs: &'a [String],
    /// Where decisions are recorded (`--log`), if anywhere.
    pub log: Option<&'a LogTarget>,
    /// The approval ids' prefix (default `approval-`): a hook that puts a call on the approval
    /// panel gives one unique to its run, since the panel keys approvals by session and id.
    pub approval_prefix: Option<&'a str>,
}

/// The decision log a hook records in, and whether it runs in shadow mode.
#[derive(Clone)]
pub struct LogTarget {
    /// The sink.
    pub sink: std::sync::Arc<dyn seal::log::LogSink>,
    /// Shadow mode: events are marked `shadow`.
    pub shadow: bool,
}

impl std::fmt::Debug for LogTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogTarget")
            .field("shadow", &self.shadow)
            .finish_non_exhaustive()
    }
}

impl PartialEq for LogTarget {
    fn eq(&self, other: &LogTarget) -> bool {
        std::sync::Arc::ptr_eq(&self.sink, &other.sink) && self.shadow == other.shadow
    }
}

impl Eq for LogTarget {}

impl Mode<'_> {
    /// The mode for `call`: with `--default client`, the fallback the client's permission mode
    /// gives (`crate::cli::client_fallback`).
    pub fn for_call(self, call: &CallInput<'_>) -> Self {
        if !self.by_permission_mode {
            return self;
        }
        Mode {
            fallback: crate::cli::client_fallback(call.agent, call.permission_mode),
            by_permission_mode: false,
            ..self
        }
    }
}

impl Mode<'static> {
    /// `fallback`, with the destructive-command guard on and no path guard.
    pub fn guarded(fallback: Fallback) -> Mode<'static> {
        Mode {
            fallback,
            destructive_guard: true,
            path_guards: &NO_PATH_GUARDS,
            by_permission_mode: false,
            added_dirs: &[],
            log: None,
            approval_prefix: None,
        }
    }
}

/// Decides `call` with the rules `rules` (a rules file's text) and `mode`, through the
/// facade: [`Seal::call_foreign`] freezes the client's arguments exactly (lossless profile),
/// [`Seal::prepare`] runs the waterfall and the guards.
pub fn decide(
    rules: &str,
    mode: Mode<'_>,
    call: &CallInput<'_>,
    explain: ExplainDepth,
) -> Result<Decided, Failure> {
    let mode = mode.for_call(call);
    let seal = build_seal(rules, mode, call)?;
    decide_with(&seal, mode, call, explain)
}

/// The seal that decides `call` under `mode` (its rules, guards, workspace and log).
fn build_seal(rules: &str, mode: Mode<'_>, call: &CallInput<'_>) -> Result<Seal, Failure> {
    let fallback = mode.fallback;
    let mut builder = Seal::builder().rules_json(rules).fallback(fallback);
    for dir in mode.added_dirs {
        builder = builder.added_dir(dir);
    }
    if let Some(prefix) = mode.approval_prefix {
        builder = builder.approval_id_prefix(prefix);
    }
    let home = std::env::var("HOME")
        .ok()
        .filter(|home| home.starts_with('/'));
    if let Some(home) = &home {
        // `~` in rules and commands, and for the path guards, which take the builder's.
        builder = builder.home_dir(home);
    }
    if mode.destructive_guard {
        let mut guard = DestructiveGuard::new();
        if let Some(home) = &home {
            guard = guard.with_home_dir(home);
        }
        builder = builder.destructive_guard(guard);
    }
    if let Some(guard) = &mode.path_guards.self_protection {
        builder = builder.self_protection(guard.clone());
    }
    if let Some(guard) = &mode.path_guards.secrets {
        builder = builder.secret_guard(guard.clone());
    }
    if let Some(cwd) = call.cwd.filter(|cwd| cwd.starts_with('/')) {
        builder = builder.workspace_root(cwd);
    }
    match mode.log {
        Some(target) if target.shadow => builder = builder.shadow_log_sink(target.sink.clone()),
        Some(target) => builder = builder.log_sink(target.sink.clone()),
        None => {}
    }
    builder
        .build()
        .map_err(|error| Failure::new(Exit::Rules, format!("rules refused: {error}")))
}

/// The approval card of `call` under `approval_id` with `reason`, as the seal that decides it
/// renders it (for a call put to a person by the client rather than by seal).
pub fn call_card(
    rules: &str,
    mode: Mode<'_>,
    call: &CallInput<'_>,
    approval_id: &str,
    reason: &str,
) -> Result<String, Failure> {
    let mode = mode.for_call(call);
    let seal = build_seal(rules, mode, call)?;
    let session = seal
        .open_session(call.session)
        .map_err(|error| Failure::input(format!("tool call refused: {error}")))?;
    let tool_call = seal
        .call_parsed(&session, call.agent, call.call_id, call.tool, call.input)
        .map_err(|error| Failure::input(format!("tool call refused: {error}")))?;
    Ok(tool_call.card(approval_id, reason))
}

fn decide_with(
    seal: &Seal,
    mode: Mode<'_>,
    call: &CallInput<'_>,
    explain: ExplainDepth,
) -> Result<Decided, Failure> {
    let refused = |error: String| {
        let failure = Failure::input(format!("tool call refused: {error}"));
        match record_refusal(mode.log, seal, call) {
            Ok(()) => failure,
            Err(problem) => Failure::input(format!(
                "tool call refused: {error}; and the decision log could not record it: {problem}"
            )),
        }
    };
    let session = seal
        .open_session(call.session)
        .map_err(|error| refused(error.to_string()))?;
    let tool_call = seal
        .call_parsed(&session, call.agent, call.call_id, call.tool, call.input)
        .map_err(|error| refused(error.to_string()))?;
    let arguments_sha256 = tool_call.arguments_sha256().to_hex();
    let reads = match explain {
        ExplainDepth::Forms => Reads::Forms,
        ExplainDepth::Always | ExplainDepth::WhenNoRuleDecided => Reads::Evaluation,
    };
    let read = |answer, reason, trace: &Trace, before_approval, card| Decided {
        answer,
        reason,
        trace: trace_lines(trace, before_approval),
        matched: matched(trace),
        rules: Escaped::default(),
        explanation: Reading::of(trace).cloned(),
        card,
        approval_id: None,
        arguments_sha256: arguments_sha256.clone(),
        failed: false,
    };
    let mut decided = match seal.prepare_explaining(&tool_call, None, reads) {
        Prepared::Run(run) => read(
            PolicyAnswer::Allow,
            Escaped::default(),
            run.trace(),
            false,
            None,
        ),
        Prepared::Deny(deny) => Decided {
            failed: deny.cause() == seal::DenyCause::Failed,
            ..read(
                PolicyAnswer::Deny,
                deny.reason().clone(),
                deny.trace(),
                false,
                None,
            )
        },
        // The harness asks the human: seal's own pending approval is dropped unsettled (which
        // dispatches nothing), and the trace shown is the waterfall's, before the approval.
        Prepared::NeedsApproval(pending) => {
            let card = Some(pending.card().to_owned());
            Decided {
                approval_id: Some(pending.approval_id().to_owned()),
                ..read(
                    PolicyAnswer::Ask,
                    pending.reason().clone(),
                    pending.trace(),
                    true,
                    card,
                )
            }
        }
    };
    if explain != ExplainDepth::WhenNoRuleDecided || decided.matched.is_none() {
        // What the rules alone give, next to the seal's decision and never instead of it: the
        // rules listener's own reading, recorded in the decision's trace as it decided.
        // When a stage before the rules decided, the rules never read the call: they read it
        // here, once, under the seal's own rules.
        let reading =
            (decided.explanation.take()).unwrap_or_else(|| seal.read_rules(&tool_call, reads));
        decided.rules = reading.evaluation().escaped();
        decided.explanation = Some(reading);
    } else {
        decided.explanation = None;
    }
    Ok(decided)
}

/// Records a call refused before it could be decided (its session or identifiers outside the
/// grammar) as a `hook/decision` deny by `call refused`, with the digest of the lossless
/// canonical bytes of its `tool_input`: the log holds every call a hook denied.
fn record_refusal(
    log: Option<&LogTarget>,
    seal: &Seal,
    call: &CallInput<'_>,
) -> Result<(), String> {
    use seal::log::{LogEvent, LogEventType};
    let Some(target) = log else {
        return Ok(());
    };
    let arguments = seal::Sha256Digest::of(&call.input.canonical_bytes());
    let mut event = LogEvent::new(LogEventType::Decision)
        .text("agent", call.agent)
        .and_then(|event| event.text("session", call.session))
        .and_then(|event| event.text("tool", call.tool))
        .and_then(|event| event.text("call_id", call.call_id))
        .and_then(|event| event.choice("decision", "deny"))
        .and_then(|event| event.text("by", "call refused"))
        .and_then(|event| event.digest("policy", seal.policy_digest()))
        .and_then(|event| event.digest("arguments", arguments));
    if target.shadow {
        event = event.and_then(|event| event.flag("shadow"));
    }
    target
        .sink
        .record(event.map_err(|error| error.to_string())?)
}

/// The decision as JSON (spec/cli.md, "policy check --json").
pub fn decided_json(decided: &Decided) -> J {
    J::Obj(vec![
        ("decision", J::str(decided.answer.as_str())),
        ("reason", J::str(decided.reason.as_str())),
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
        (
            "matched",
            J::opt(decided.matched.as_ref().map(Escaped::as_str)),
        ),
        ("rules", J::str(decided.rules.as_str())),
        ("card", J::opt(decided.card.clone())),
        ("arguments_sha256", J::str(decided.arguments_sha256.clone())),
    ])
}

/// The decision as text: decision, reason, the rule that matched, trace, and the card for an
/// ask.
pub fn decided_text(decided: &Decided) -> String {
    let mut out = format!("decision: {}\n", decided.answer.as_str());
    if !decided.reason.is_empty() {
        out.push_str(&format!("reason:   {}\n", decided.reason));
    }
    if let Some(matched) = &decided.matched {
        out.push_str(&format!("matched:  {matched}\n"));
    }
    out.push_str(&format!("rules:    {}\n", decided.rules));
    out.push_str(&format!("frozen:   sha256 {}\n", decided.arguments_sha256));
    out.push_str("trace:\n");
    for line in &decided.trace {
        out.push_str(&format!("  {line}\n"));
    }
    if let Some(card) = &decided.card {
        out.push_str(card);
        if !card.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn trace_lines(trace: &Trace, before_approval: bool) -> Vec<String> {
    let steps = if before_approval {
        trace.before_approval()
    } else {
        trace.steps()
    };
    let mut lines: Vec<String> = (steps.iter().enumerate())
        .map(|(index, step)| format!("{}. {step}", index + 1))
        .collect();
    if !before_approval {
        let decided = trace
            .decided_by_index()
            .map_or_else(|| "none".to_owned(), |index| (index + 1).to_string());
        lines.push(format!("decided by: {decided}"));
    }
    lines
}

fn matched(trace: &Trace) -> Option<Escaped> {
    let because = trace.steps().iter().rev().find_map(Step::because)?;
    let mut matched = Escaped::new("rule `");
    matched.push_raw(because.rule_text());
    if let Some(form) = because.form() {
        matched.push_raw("` matched `");
        matched.push_raw(form);
    }
    matched.push_raw("`");
    Some(matched)
}

/// Runs `seal policy recommended`: prints the recommended rule file.
pub fn run_recommended() -> Result<u8, Failure> {
    out!("{}", seal::RECOMMENDED_RULES);
    Ok(0)
}

/// Runs `seal policy check`.
pub fn run_check(args: &PolicyCheckArgs) -> Result<u8, Failure> {
    let rules = read_rules(&args.rules)?;
    let files = SealFiles {
        rules: Some(&args.rules),
        keys: args.keys.as_deref(),
        store: args.store.as_deref(),
        state: args.state.as_deref(),
        log: None,
        log_key: None,
        approvers: None,
    };
    let path_guards = PathGuards::of(&args.guards, &files)?;
    let mode = Mode {
        fallback: args.default.fallback(),
        destructive_guard: args.destructive_guard == Toggle::On,
        path_guards: &path_guards,
        by_permission_mode: args.default == crate::cli::DefaultDecision::Client,
        added_dirs: &args.add_dir,
        log: None,
        approval_prefix: None,
    };
    let bytes = read_stdin(MAX_STDIN_BYTES)?;
    let object = json_in::foreign_object(&bytes, "tool call")?;
    let mut call = CallInput::from_object(&object, "seal-cli", "tool call")?;
    if let Some(cwd) = &args.cwd {
        call.cwd = Some(cwd);
    }
    let explain = if args.explain {
        ExplainDepth::Forms
    } else {
        ExplainDepth::Always
    };
    let decided = decide(&rules, mode, &call, explain)?;
    let explained = args
        .explain
        .then(|| crate::explain::explain(decided.explanation.as_ref(), mode, &call));
    if args.json {
        let mut json = decided_json(&decided);
        if let (J::Obj(members), Some(explained)) = (&mut json, &explained) {
            members.push(("explain", crate::explain::explained_json(explained)));
        }
        outln!("{}", json.to_text());
    } else {
        out!("{}", decided_text(&decided));
        if let Some(explained) = &explained {
            out!("{}", crate::explain::explained_text(explained));
        }
    }
    Ok(match decided.answer {
        PolicyAnswer::Allow => Exit::Ok,
        PolicyAnswer::Deny => Exit::Deny,
        PolicyAnswer::Ask => Exit::Ask,
    }
    .code())
}

/// Runs `seal policy lint`.
pub fn run_lint(args: &PolicyLintArgs) -> Result<u8, Failure> {
    let findings = lint_file(&args.rules)?;
    if args.json {
        let items = findings.iter().map(|line| J::str(line.clone())).collect();
        outln!("{}", J::Obj(vec![("findings", J::Arr(items))]).to_text());
    } else if findings.is_empty() {
        outln!("no findings");
    } else {
        for line in &findings {
            outln!("{line}");
        }
    }
    Ok(if findings.is_empty() {
        Exit::Ok
    } else {
        Exit::LintFindings
    }
    .code())
}

/// The lint findings of the rules file at `path` ([`seal::lint_rules`]), one ASCII line each:
/// the rule, what is wrong, and a counterexample.
pub fn lint_file(path: &str) -> Result<Vec<String>, Failure> {
    let text = read_rules(path)?;
    let findings = lint_rules(&text).map_err(|error| {
        Failure::new(Exit::Rules, format!("rules file {}: {error}", quoted(path)))
    })?;
    Ok(findings
        .into_iter()
        .map(|finding| finding.message().into_string())
        .collect())
}
