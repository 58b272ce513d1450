//! `seal hook claude-code ...` and `seal hook codex ...`: the agent hooks. Each reads the hook's
//! JSON on stdin and answers one JSON object on stdout, whatever happens: a prompt is never
//! blocked (every failure, a panic included, becomes a `verification_failed` alarm with exit 0),
//! and a tool call is denied when anything fails (a bad command line, a panic, the deadline);
//! when not even the deny can be written, the tool hook exits 2, which both clients read as a
//! refusal.

use std::ffi::OsString;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use seal::render::{escape, render_alarm, Context};
use seal::ALARM_ELEMENT;

use crate::cli::{PromptHookArgs, Toggle, ToolHookArgs};
use crate::failure::{Exit, Failure};
use crate::fault;
use crate::io::{now, read_stdin, utf8, MAX_HOOK_INPUT_BYTES};
use crate::json_in;
use crate::json_out::J;
use crate::keys::SecretKeys;
use crate::lane;
use crate::path_guards::{PathGuards, SealFiles};
use crate::policy::{decide, read_rules, CallInput, ExplainDepth, Mode, PolicyAnswer};
use crate::state;
use crate::verify::{inbound_verifier, verify_text, FrameOptions};

/// The `reason` of the alarm a prompt hook appends when it could not verify.
pub const VERIFICATION_FAILED: &str = "verification_failed";

/// Seconds after which a hook gives its failure answer by itself (`--deadline`).
pub const DEFAULT_DEADLINE_SECONDS: u64 = 30;

/// The longest `--deadline` (an hour).
pub const MAX_DEADLINE_SECONDS: u64 = 3600;

/// The exit code of a tool hook that could not write its deny: Claude Code and Codex read exit
/// 2 as blocking the call (with stderr as the reason).
pub const TOOL_REFUSAL_EXIT: u8 = 2;

/// The tool-call events: what the hook input names in `hook_event_name` and the answer in
/// `hookEventName`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolEvent {
    /// A tool call (`PreToolUse`).
    PreToolUse,
    /// A skill's `` !`command` `` line, decided as a `Bash` call with that command
    /// (`PreSkillShellCommand`, Claude Code).
    PreSkillShellCommand,
}

impl ToolEvent {
    /// The client's name for the event.
    pub fn name(self) -> &'static str {
        match self {
            ToolEvent::PreToolUse => "PreToolUse",
            ToolEvent::PreSkillShellCommand => "PreSkillShellCommand",
        }
    }
}

/// Which agent's hook protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Harness {
    /// Claude Code: `permissionDecision` allow, deny or ask.
    ClaudeCode,
    /// Codex: `PreToolUse` honours deny only; allow is written as no decision, ask as deny.
    Codex,
}

impl Harness {
    /// The agent id the facade is given (`claude-code`, `codex`).
    pub fn agent(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
        }
    }
}

/// The tool-hook lane (`seal hook <harness> pre-tool-use ...`): parses the command line, then
/// decides; any failure, a panic anywhere below, or the deadline answers deny. Exit 0 with the
/// answer, or [`TOOL_REFUSAL_EXIT`] when stdout cannot be written.
pub fn tool_lane(harness: Harness, event: ToolEvent, args: &[OsString]) -> u8 {
    let shadow = std::cell::Cell::new(false);
    let decided = lane::catch(|| {
        fault::point("args");
        let flags: ToolHookArgs = hook_args(args)?;
        shadow.set(flags.log.shadow);
        let hold = flags.hold && event == ToolEvent::PreToolUse;
        let seconds = if hold {
            crate::relay::hook_deadline(&flags, crate::relay::DEFAULT_HOLD_WAIT)
        } else {
            flags.deadline.seconds
        };
        let in_shadow = flags.log.shadow;
        start_deadline(seconds, move || {
            if in_shadow {
                return (String::new(), true);
            }
            let failure = Failure::new(
                Exit::Internal,
                format!("no decision within the deadline of {seconds} seconds"),
            );
            (answer_text(&answer_for(harness, event, Err(failure))), true)
        });
        if hold {
            return crate::relay::hold_decision(harness, &flags);
        }
        tool_decision(harness, event, &flags)
    })
    .and_then(|decided| decided);
    if let Err(failure) = &decided {
        crate::io::warn(&format!("seal: {failure}"));
    }
    if shadow.get() {
        // Shadow mode: decided and recorded; the client's own permission flow decides.
        return match write_answer("") {
            Some(Ok(())) | None => Exit::Ok.code(),
            Some(Err(failure)) => {
                crate::io::warn(&format!("seal: {failure}"));
                Exit::Ok.code()
            }
        };
    }
    let answer = lane::catch(|| {
        let answer = answer_for(harness, event, decided);
        fault::point("answer");
        Ok(answer_text(&answer))
    })
    .and_then(|answer| answer)
    .unwrap_or_else(|failure| {
        crate::io::warn(&format!("seal: {failure}"));
        answer_text(&answer_for(harness, event, Err(failure)))
    });
    match write_answer(&answer) {
        Some(Ok(())) | None => Exit::Ok.code(),
        Some(Err(failure)) => {
            crate::io::warn(&format!("seal: {failure}; the call is refused"));
            TOOL_REFUSAL_EXIT
        }
    }
}

/// The prompt-hook lane (`seal hook <harness> user-prompt-submit ...`): always exit 0 with the
/// alarms as `additionalContext`; any failure, a panic or the deadline answers the
/// `verification_failed` alarm. A stdout that cannot be written still exits 0: a prompt hook
/// never blocks the prompt.
pub fn prompt_lane(harness: Harness, args: &[OsString]) -> u8 {
    let context = lane::catch(|| {
        fault::point("args");
        let flags: PromptHookArgs = hook_args(args)?;
        start_deadline(flags.deadline.seconds, move || {
            (answer_text(&prompt_answer(harness, failure_alarm())), false)
        });
        prompt_context(&flags)
    })
    .and_then(|context| context)
    .unwrap_or_else(|failure| {
        crate::io::warn(&format!("seal: {failure}"));
        failure_alarm()
    });
    let answer = lane::catch(|| {
        let answer = prompt_answer(harness, context);
        fault::point("answer");
        Ok(answer_text(&answer))
    })
    .and_then(|answer| answer)
    .unwrap_or_else(|failure| {
        crate::io::warn(&format!("seal: {failure}"));
        answer_text(&prompt_answer(harness, failure_alarm()))
    });
    if let Some(Err(failure)) = write_answer(&answer) {
        crate::io::warn(&format!("seal: {failure}"));
    }
    Exit::Ok.code()
}

/// The flags of a hook command line (`seal hook <harness> <event> FLAGS...`): only that
/// event's flags are built and read, not the whole command tree, which keeps the parse a small
/// part of a hook's answer time. Any refusal of the command line, help included (printed on
/// stderr, since stdout carries the answer), and a harness other than `claude-code` or `codex`,
/// is a usage failure, which the lane answers.
pub(crate) fn hook_args<T: clap::Args + clap::FromArgMatches>(
    args: &[OsString],
) -> Result<T, Failure> {
    let words: Vec<String> = args
        .iter()
        .take(4)
        .map(|word| word.to_string_lossy().into_owned())
        .collect();
    let harness = words.get(2).map_or("", String::as_str);
    if !matches!(harness, "claude-code" | "codex") {
        return Err(Failure::usage(format!(
            "unknown harness `{}` for `seal hook`: expected `claude-code` or `codex`",
            escape(harness, Context::Inline)
        )));
    }
    let command = T::augment_args(
        clap::Command::new("seal-hook")
            .bin_name(format!(
                "seal {}",
                words.get(1..).unwrap_or_default().join(" ")
            ))
            .no_binary_name(true)
            .max_term_width(80),
    );
    let refused = |error: clap::Error| {
        use clap::error::ErrorKind;
        if matches!(
            error.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
        ) {
            crate::io::warn(error.render().to_string().trim_end());
            Failure::usage("`--help` given to a hook (the help is on stderr)")
        } else {
            lane::usage_failure(&error)
        }
    };
    let matches = command
        .try_get_matches_from(args.iter().skip(4))
        .map_err(refused)?;
    T::from_arg_matches(&matches).map_err(refused)
}

/// Whether an answer was written: the lane and its deadline write at most one between them.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Writes `text` unless an answer was already written (`None` then).
pub(crate) fn write_answer(text: &str) -> Option<Result<(), Failure>> {
    let mut answered = ANSWERED.lock().unwrap_or_else(PoisonError::into_inner);
    if *answered {
        return None;
    }
    *answered = true;
    if crate::io::stdout_discarded() {
        return Some(Err(Failure::new(
            Exit::Output,
            "cannot write stdout: it goes nowhere (closed or /dev/null)",
        )));
    }
    Some(crate::io::emit(text))
}

/// After `seconds`, writes the failure answer `answer()` gives (unless the lane answered first)
/// and ends the process: exit 0, or when stdout failed and the pair's flag says the lane is a
/// tool hook, [`TOOL_REFUSAL_EXIT`]. A deadline that cannot be started is reported and the
/// lane goes on without it.
pub(crate) fn start_deadline(
    seconds: u64,
    answer: impl FnOnce() -> (String, bool) + Send + 'static,
) {
    let started = std::thread::Builder::new()
        .name("seal-deadline".into())
        .spawn(move || {
            std::thread::sleep(Duration::from_secs(seconds));
            let (text, tool) = answer();
            crate::io::warn(&format!(
                "seal: no answer within the deadline of {seconds} seconds; failure answer given"
            ));
            let code = match write_answer(&text) {
                None => return,
                Some(Ok(())) => Exit::Ok.code(),
                Some(Err(_)) if tool => TOOL_REFUSAL_EXIT,
                Some(Err(_)) => Exit::Ok.code(),
            };
            std::process::exit(i32::from(code));
        });
    if let Err(error) = started {
        crate::io::warn(&format!("seal: the deadline could not be started: {error}"));
    }
}

/// The prompt hook's answer: the alarms as `additionalContext`. For Codex, no alarm is `{}`:
/// Codex 0.171 adds every `additionalContext`, an empty one too, to each request of the turn as
/// a developer message of its own.
fn prompt_answer(harness: Harness, context: String) -> J {
    if harness == Harness::Codex && context.is_empty() {
        return J::Obj(vec![]);
    }
    J::Obj(vec![(
        "hookSpecificOutput",
        J::Obj(vec![
            ("hookEventName", J::str("UserPromptSubmit")),
            ("additionalContext", J::str(context)),
        ]),
    )])
}

pub(crate) fn answer_text(answer: &J) -> String {
    let mut text = answer.to_text();
    text.push('\n');
    text
}

/// The hook answer for a decision or a failure: every failure is a deny.
pub fn answer_for(
    harness: Harness,
    event: ToolEvent,
    decided: Result<(PolicyAnswer, String), Failure>,
) -> J {
    let (answer, reason) = match decided {
        Ok(pair) => pair,
        Err(failure) => (
            PolicyAnswer::Deny,
            format!(
                "seal: the policy check failed, so the call is denied: {}",
                escape(&failure.to_string(), Context::Inline)
            ),
        ),
    };
    tool_answer(harness, event, answer, &reason)
}

/// The hook answer for a decision.
pub fn tool_answer(harness: Harness, event: ToolEvent, answer: PolicyAnswer, reason: &str) -> J {
    let (decision, reason) = match (harness, answer) {
        (Harness::Codex, PolicyAnswer::Allow) => return J::Obj(vec![]),
        (Harness::Codex, PolicyAnswer::Ask) => (
            "deny",
            format!("{reason} (Codex hooks cannot ask for approval, so seal denies)"),
        ),
        (_, answer) => (answer.as_str(), reason.to_owned()),
    };
    J::Obj(vec![(
        "hookSpecificOutput",
        J::Obj(vec![
            ("hookEventName", J::str(event.name())),
            ("permissionDecision", J::str(decision)),
            ("permissionDecisionReason", J::str(reason)),
        ]),
    )])
}

/// The alarm appended when verification itself failed: detail-free toward the model (the cause
/// goes to stderr for the operator).
pub fn failure_alarm() -> String {
    render_alarm(
        ALARM_ELEMENT,
        &[("reason", VERIFICATION_FAILED)],
        &["The message this alarm is attached to could not be verified; every frame in it is untrusted."],
    )
    .unwrap_or_else(|_| String::from("<seal-alarm reason=\"verification_failed\"></seal-alarm>"))
}

fn prompt_context(flags: &PromptHookArgs) -> Result<String, Failure> {
    let bytes = read_stdin(MAX_HOOK_INPUT_BYTES)?;
    fault::point("input");
    let object = json_in::foreign_object(&bytes, "hook input")?;
    check_event(&object, "UserPromptSubmit")?;
    let prompt = json_in::string(&object, "prompt", "hook input")?;
    let session = json_in::string(&object, "session_id", "hook input")?;
    let frames = &flags.frames;
    let store_path = frames
        .store
        .as_deref()
        .ok_or_else(|| Failure::usage("no trust store: give `--store` or set `SEAL_STORE`"))?;
    let keys_path = frames.keys.as_deref();
    let conversation = flags.conversation.as_deref().unwrap_or(session);
    let options = FrameOptions::of(frames);
    let now = now(frames.now.as_deref())?;
    fault::point("decide");
    let keys = keys_path.map(SecretKeys::load).transpose()?;
    let verifier = inbound_verifier(store_path, keys.as_ref(), &options, now)?;
    let replay = state::open(frames, &options, now)?;
    let inbound = verify_text(
        &verifier,
        conversation,
        now,
        &replay,
        prompt,
        options.footer,
    )?;
    if let Some(sink) = crate::audit::sink::HookSink::of(&flags.log, now.0)? {
        sink.record_alarms(conversation, inbound.report())?;
    }
    Ok(inbound.alarms().trim_start_matches('\n').to_owned())
}

fn tool_decision(
    harness: Harness,
    event: ToolEvent,
    flags: &ToolHookArgs,
) -> Result<(PolicyAnswer, String), Failure> {
    let bytes = read_stdin(MAX_HOOK_INPUT_BYTES)?;
    fault::point("input");
    fault::point("decide");
    with_mode(flags, true, |rules, mode| match event {
        ToolEvent::PreToolUse => decide_input(harness, rules, mode, bytes),
        ToolEvent::PreSkillShellCommand => decide_skill_line(harness, rules, mode, bytes),
    })
}

/// Runs `run` with the rules text and the decision mode `flags` give (the decision log only
/// when `record`).
pub(crate) fn with_mode<T>(
    flags: &ToolHookArgs,
    record: bool,
    run: impl FnOnce(&str, Mode<'_>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let rules_path = flags
        .rules
        .as_deref()
        .ok_or_else(|| Failure::usage("no rules file: give `--rules` or set `SEAL_RULES`"))?;
    let rules = read_rules(rules_path)?;
    let files = SealFiles {
        rules: Some(rules_path),
        keys: flags.keys.as_deref(),
        store: flags.store.as_deref(),
        state: flags.state.as_deref(),
        log: flags.log.log.as_deref(),
        log_key: flags.log.log_key.as_deref(),
        approvers: flags.approval.approvers.as_deref(),
    };
    let path_guards = PathGuards::of(&flags.guards, &files)?;
    let log = if record {
        crate::audit::sink::HookSink::of(&flags.log, now(None)?.0)?
    } else {
        None
    };
    let log = log.map(|sink| crate::policy::LogTarget {
        sink: std::sync::Arc::new(sink),
        shadow: flags.log.shadow,
    });
    let mode = Mode {
        fallback: flags.default.fallback(),
        destructive_guard: flags.destructive_guard == Toggle::On,
        path_guards: &path_guards,
        by_permission_mode: flags.default == crate::cli::DefaultDecision::Client,
        added_dirs: &flags.add_dir,
        log: log.as_ref(),
        approval_prefix: None,
    };
    run(&rules, mode)
}

/// Decides a `PreSkillShellCommand` hook input: the skill line `tool_input.command` as a `Bash`
/// call with that command, in the call's `cwd` and permission mode, exactly as a `PreToolUse`
/// for `Bash` (a `tool_name` other than `Bash` is refused, and so denied).
pub fn decide_skill_line(
    harness: Harness,
    rules: &str,
    mode: Mode<'_>,
    bytes: Vec<u8>,
) -> Result<(PolicyAnswer, String), Failure> {
    let text = utf8(bytes, "hook input")?;
    let object = json_in::foreign_object(text.as_bytes(), "hook input")?;
    check_event(&object, ToolEvent::PreSkillShellCommand.name())?;
    match json_in::optional_string(&object, "tool_name", "hook input")? {
        None | Some("Bash") => {}
        Some(other) => {
            return Err(Failure::input(format!(
                "hook input: a skill shell line with `tool_name` `{}`, not `Bash`",
                escape(other, Context::Inline)
            )))
        }
    }
    let call = CallInput::skill_line(&object, harness.agent(), "hook input")?;
    decided_reason(rules, mode.for_call(&call), &call)
}

/// Decides a `PreToolUse` hook input (`bytes`) with the rules text `rules`. The payload is read
/// with the lossless JSON profile: a member seal does not use (an integer beyond 2^53, a lone
/// surrogate escape) never makes the call fail; a duplicate key anywhere still does.
pub fn decide_input(
    harness: Harness,
    rules: &str,
    mode: Mode<'_>,
    bytes: Vec<u8>,
) -> Result<(PolicyAnswer, String), Failure> {
    let text = utf8(bytes, "hook input")?;
    let object = json_in::foreign_object(text.as_bytes(), "hook input")?;
    check_event(&object, "PreToolUse")?;
    let agent = harness.agent();
    let call = CallInput::from_object(&object, agent, "hook input")?;
    let mode = mode.for_call(&call);
    if harness == Harness::Codex && call.tool == crate::codex_patch::TOOL {
        // Every path the patch touches is decided as an `Edit` (spec/apply-patch.md).
        return crate::codex_patch::decide_patch(rules, mode, &call);
    }
    decided_reason(rules, mode, &call)
}

/// The decision of `call` and the reason the hook gives for it.
fn decided_reason(
    rules: &str,
    mode: Mode<'_>,
    call: &CallInput<'_>,
) -> Result<(PolicyAnswer, String), Failure> {
    let decided = decide(rules, mode, call, ExplainDepth::WhenNoRuleDecided)?;
    let matched = match &decided.matched {
        Some(matched) => format!(" [{matched}]"),
        None => String::new(),
    };
    let reason = match (decided.answer, decided.matched.is_some()) {
        // A failure after the decision: no rule beside its reason reads as its cause.
        (PolicyAnswer::Deny, _) if decided.failed => format!("seal: {}", decided.reason),
        (PolicyAnswer::Allow, _) => format!("seal: allowed{matched}"),
        (_, true) => format!("seal: {}{matched}", decided.reason),
        // No rule decided: say what the rules saw (the first segment no allow rule covers).
        (_, false) => format!("seal: {} [{}]", decided.reason, decided.rules),
    };
    Ok((decided.answer, reason))
}

pub(crate) fn check_event(object: &seal::json::Object<'_>, expected: &str) -> Result<(), Failure> {
    match json_in::optional_string(object, "hook_event_name", "hook input")? {
        Some(name) if name != expected => Err(Failure::input(format!(
            "hook input is for `{}`, not `{expected}`",
            escape(name, Context::Inline)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use super::*;

    const RULES: &str = r#"{"permissions": {"allow": ["Bash(git log:*)", "Read"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)"]}}"#;

    /// A mapping from a decision (or failure) to the hook's answer.
    type Mapping = fn(Harness, ToolEvent, Result<(PolicyAnswer, String), Failure>) -> J;

    /// The answer a hook writes for `input`, through `answer` (the real mapping or a broken one).
    fn answer_text(answer: Mapping, input: &[u8]) -> String {
        let decided = decide_input(
            Harness::ClaudeCode,
            RULES,
            Mode::guarded(seal::Fallback::Ask),
            input.to_vec(),
        );
        answer(Harness::ClaudeCode, ToolEvent::PreToolUse, decided).to_text()
    }

    /// Whether `input` is a well-formed call: a strict JSON object with a string `tool_name`
    /// and an object `tool_input`.
    fn is_call(input: &[u8]) -> bool {
        let Ok(serde_json::Value::Object(object)) = serde_json::from_slice(input) else {
            return false;
        };
        object
            .get("tool_name")
            .is_some_and(serde_json::Value::is_string)
            && object
                .get("tool_input")
                .is_some_and(serde_json::Value::is_object)
    }

    /// The command of a Bash call, if `input` is one.
    fn bash_command(input: &[u8]) -> Option<String> {
        let value: serde_json::Value = serde_json::from_slice(input).ok()?;
        (value["tool_name"] == "Bash")
            .then(|| value["tool_input"]["command"].as_str().map(str::to_owned))
            .flatten()
    }

    /// The invariant: one JSON object, a decision among allow, deny and ask, deny whenever
    /// the input is not a call, and never allow for a Bash command holding an `rm` segment.
    fn check(text: &str, input: &[u8]) -> Result<(), TestCaseError> {
        let opens = text.starts_with('{');
        prop_assert!(opens && text.is_ascii(), "not one ASCII object: {}", text);
        let answer: serde_json::Value =
            serde_json::from_str(text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let output = &answer["hookSpecificOutput"];
        prop_assert_eq!(&output["hookEventName"], "PreToolUse");
        let decision = output["permissionDecision"].as_str().unwrap_or("");
        prop_assert!(["allow", "deny", "ask"].contains(&decision));
        if !is_call(input) {
            prop_assert_eq!(decision, "deny");
        }
        if bash_command(input).is_some_and(|command| command.contains("; rm ")) {
            prop_assert_ne!(decision, "allow");
        }
        Ok(())
    }

    fn inputs() -> impl Strategy<Value = Vec<u8>> {
        let command = prop_oneof![
            Just("git log".to_owned()),
            Just("git log; rm -rf t".to_owned()),
            Just("git push origin".to_owned()),
            "[ -~]{0,24}",
            "\\PC{0,12}",
        ];
        let call = (
            prop_oneof![Just("Bash"), Just("Read"), Just("Write"), Just("mcp__x__y")],
            command,
        )
            .prop_map(|(tool, command)| {
                serde_json::to_vec(&serde_json::json!({
                    "session_id": "s",
                    "hook_event_name": "PreToolUse",
                    "tool_name": tool,
                    "tool_input": {"command": command, "file_path": "/ws/a"},
                    "cwd": "/ws",
                }))
                .unwrap_or_default()
            });
        prop_oneof![
            call.clone(),
            call.prop_map(|mut bytes| {
                bytes.truncate(bytes.len() / 2);
                bytes
            }),
            prop::collection::vec(any::<u8>(), 0..64),
            Just(b"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\",\"command\":\"rm -rf /\"}}".to_vec()),
        ]
    }

    fn runner() -> TestRunner {
        TestRunner::new_with_rng(
            Config {
                cases: 256,
                failure_persistence: None,
                ..Config::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
        )
    }

    #[test]
    fn every_input_gets_one_answer_and_failures_deny() {
        let result = runner().run(&inputs(), |input| {
            check(&answer_text(answer_for, &input), &input)
        });
        assert!(result.is_ok(), "{result:?}");
    }

    /// A broken mapping that lets a failure through as allow: the property must catch it.
    fn failure_allows(
        harness: Harness,
        event: ToolEvent,
        decided: Result<(PolicyAnswer, String), Failure>,
    ) -> J {
        match decided {
            Ok((answer, reason)) => tool_answer(harness, event, answer, &reason),
            Err(_) => tool_answer(harness, event, PolicyAnswer::Allow, "seal: failed open"),
        }
    }

    #[test]
    fn the_property_catches_a_hook_that_fails_open() {
        let result = runner().run(&inputs(), |input| {
            check(&answer_text(failure_allows, &input), &input)
        });
        assert!(result.is_err(), "the broken hook was not caught");
    }
}
