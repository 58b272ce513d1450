//! Hooks that wait for a person on the approval panel of `seal serve`
//! (spec/approval-server.md, "The server"; spec/cli.md, "Hooks that wait").
//!
//! - `seal hook <harness> permission-request` (relay): the client is about to ask the person;
//!   the hook puts the call on the panel and waits. Only an allow given on the panel, verified
//!   and spent once for this exact call, answers allow; a refusal there answers deny; every
//!   other outcome and every failure answers nothing, so the client's own prompt stands.
//! - `seal hook <harness> pre-tool-use --wait-approval` (hold): a call the rules ask about is
//!   put on the panel; an allow answers allow, a refusal deny, and no answer leaves the ask.
//!
//! Nothing here can turn a deny of the rules into an allow, and nothing but the panel's
//! verified, consumed allow turns an ask into one.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ring::rand::{SecureRandom, SystemRandom};
use seal::render::{escape, Context};
use seal::{Outcome, Sha256Digest};
use seal_serve::client::{wait_for_answer, Settled};
use seal_serve::hookwire::Ask;

use crate::cli::{ApprovalWaitFlags, NoticeHookArgs, ToolHookArgs};
use crate::failure::{Exit, Failure};
use crate::fault;
use crate::hook::{
    answer_text, check_event, hook_args, start_deadline, with_mode, write_answer, Harness,
    ToolEvent,
};
use crate::io::{read_stdin, utf8, MAX_HOOK_INPUT_BYTES};
use crate::json_in;
use crate::json_out::J;
use crate::lane;
use crate::policy::{call_card, decide, CallInput, ExplainDepth, Mode, PolicyAnswer};

/// Seconds a `permission-request` hook waits for the person by default.
pub const DEFAULT_RELAY_WAIT: u64 = 300;

/// Seconds `seal install codex --approvals relay` writes as the relay's wait: Codex runs its
/// own approval only after the hook ends, so the person at Codex waits this long at most.
pub const DEFAULT_CODEX_RELAY_WAIT: u64 = 60;

/// Seconds a `pre-tool-use --wait-approval` hook waits for the person by default.
pub const DEFAULT_HOLD_WAIT: u64 = 120;

/// Seconds the hook's own deadline leaves after the wait, to answer.
pub const ANSWER_MARGIN: u64 = 5;

/// The event name of the relay.
const RELAY_EVENT: &str = "PermissionRequest";

/// The hook's deadline in a waiting mode: its `--deadline`, raised to the wait plus
/// [`ANSWER_MARGIN`].
pub fn hook_deadline(flags: &ToolHookArgs, default_wait: u64) -> u64 {
    let wait = flags.approval.wait.unwrap_or(default_wait);
    flags.deadline.seconds.max(wait + ANSWER_MARGIN)
}

/// The relay lane: always exit 0; an answer only for an allow or a refusal given on the panel,
/// or a deny of the rules.
pub fn relay_lane(harness: Harness, args: &[OsString]) -> u8 {
    let answer = lane::catch(|| {
        fault::point("args");
        let flags: ToolHookArgs = hook_args(args)?;
        start_deadline(hook_deadline(&flags, DEFAULT_RELAY_WAIT), || {
            (String::new(), false)
        });
        relay(harness, &flags)
    })
    .and_then(|answer| answer)
    .unwrap_or_else(|failure| {
        crate::io::warn(&format!(
            "seal: {failure}; no decision, so the client's own prompt stands"
        ));
        None
    });
    let text = answer
        .map(|answer| answer_text(&answer))
        .unwrap_or_default();
    if let Some(Err(failure)) = write_answer(&text) {
        crate::io::warn(&format!("seal: {failure}"));
    }
    Exit::Ok.code()
}

/// The relay's answer, `None` for no decision.
fn relay(harness: Harness, flags: &ToolHookArgs) -> Result<Option<J>, Failure> {
    let bytes = read_stdin(MAX_HOOK_INPUT_BYTES)?;
    fault::point("input");
    let text = utf8(bytes, "hook input")?;
    let object = json_in::foreign_object(text.as_bytes(), "hook input")?;
    check_event(&object, RELAY_EVENT)?;
    let call = CallInput::from_object(&object, harness.agent(), "hook input")?;
    let wait = flags.approval.wait.unwrap_or(DEFAULT_RELAY_WAIT);
    // Decided without recording: the `PreToolUse` hook recorded this call's decision.
    let prefix = approval_prefix()?;
    let asked = with_mode(flags, false, |rules, mode| {
        let mode = Mode {
            approval_prefix: Some(&prefix),
            ..mode
        };
        let decided = decide(rules, mode, &call, ExplainDepth::Forms)?;
        if decided.answer == PolicyAnswer::Deny {
            return Ok(Err(format!("seal: {}", decided.reason)));
        }
        let (approval_id, reason) = match decided.answer {
            PolicyAnswer::Ask => (
                decided.approval_id.clone(),
                format!("seal: {}", decided.reason),
            ),
            _ => (
                None,
                format!("{} asks for permission", client_name(harness)),
            ),
        };
        let approval_id = approval_id.unwrap_or_else(|| format!("{prefix}client"));
        // seal's own card for its ask (it names the approval id this run's prefix gave);
        // for a call only the client asks about, a card under this run's own id.
        let card = match &decided.card {
            Some(card) => card.clone(),
            None => call_card(rules, mode, &call, &approval_id, &reason)?,
        };
        Ok(Ok(Question {
            approval_id,
            reason,
            card,
            digest: digest_of(&call),
        }))
    })?;
    let question = match asked {
        Ok(question) => question,
        Err(reason) => return Ok(Some(relay_answer(false, &reason))),
    };
    Ok(
        match wait_for_person(&flags.approval, wait, &call, question) {
            Waited::Allowed { .. } => Some(relay_answer(true, "")),
            Waited::Refused { message } => Some(relay_answer(false, &message)),
            Waited::NoAnswer { why } => {
                crate::io::warn(&format!(
                    "seal: {why}; no decision, so the client's own prompt stands"
                ));
                None
            }
        },
    )
}

fn relay_answer(allow: bool, message: &str) -> J {
    let decision = if allow {
        J::Obj(vec![("behavior", J::str("allow"))])
    } else {
        J::Obj(vec![
            ("behavior", J::str("deny")),
            ("message", J::str(message)),
        ])
    };
    J::Obj(vec![(
        "hookSpecificOutput",
        J::Obj(vec![
            ("hookEventName", J::str(RELAY_EVENT)),
            ("decision", decision),
        ]),
    )])
}

fn client_name(harness: Harness) -> &'static str {
    match harness {
        Harness::ClaudeCode => "Claude Code",
        Harness::Codex => "Codex",
    }
}

/// Hold mode: decide (recording as the tool hook does); an ask waits for the person.
pub fn hold_decision(
    harness: Harness,
    flags: &ToolHookArgs,
) -> Result<(PolicyAnswer, String), Failure> {
    let bytes = read_stdin(MAX_HOOK_INPUT_BYTES)?;
    fault::point("input");
    fault::point("decide");
    let text = utf8(bytes, "hook input")?;
    let object = json_in::foreign_object(text.as_bytes(), "hook input")?;
    check_event(&object, ToolEvent::PreToolUse.name())?;
    let call = CallInput::from_object(&object, harness.agent(), "hook input")?;
    if harness == Harness::Codex && call.tool == crate::codex_patch::TOOL {
        // A patch is decided path by path; its asks are not put on the panel.
        return with_mode(flags, true, |rules, mode| {
            crate::codex_patch::decide_patch(rules, mode.for_call(&call), &call)
        });
    }
    let prefix = approval_prefix()?;
    let decided = with_mode(flags, true, |rules, mode| {
        let mode = Mode {
            approval_prefix: Some(&prefix),
            ..mode
        };
        decide(rules, mode, &call, ExplainDepth::WhenNoRuleDecided)
    })?;
    let reason = format!("seal: {}", decided.reason);
    if decided.answer != PolicyAnswer::Ask {
        return Ok((
            decided.answer,
            match decided.answer {
                PolicyAnswer::Allow => "seal: allowed".to_owned(),
                _ => reason,
            },
        ));
    }
    let (Some(approval_id), Some(card)) = (decided.approval_id.clone(), decided.card.clone())
    else {
        return Ok((PolicyAnswer::Ask, reason));
    };
    let question = Question {
        approval_id,
        reason: reason.clone(),
        card,
        digest: digest_of(&call),
    };
    let wait = flags.approval.wait.unwrap_or(DEFAULT_HOLD_WAIT);
    Ok(
        match wait_for_person(&flags.approval, wait, &call, question) {
            Waited::Allowed { rpc_id } => (
                PolicyAnswer::Allow,
                format!("seal: allowed once on the approval panel (request {rpc_id})"),
            ),
            Waited::Refused { message } => (PolicyAnswer::Deny, message),
            Waited::NoAnswer { why } => (
                PolicyAnswer::Ask,
                format!(
                    "{reason} (no answer on the approval panel: {})",
                    escape(&why, Context::Inline)
                ),
            ),
        },
    )
}

/// What a waiting hook puts to the person.
struct Question {
    approval_id: String,
    reason: String,
    card: String,
    digest: Sha256Digest,
}

/// How the wait ended.
enum Waited {
    /// Allowed on the panel, verified and spent for this call.
    Allowed { rpc_id: u64 },
    /// Refused on the panel.
    Refused { message: String },
    /// Anything else: the original ask stands.
    NoAnswer { why: String },
}

/// The digest an allow is bound to: SHA-256 of the canonical bytes of the call's
/// `tool_input` (the same for the `PermissionRequest`, `PreToolUse` and `PostToolUse` of one
/// call).
fn digest_of(call: &CallInput<'_>) -> Sha256Digest {
    Sha256Digest::of(&call.input.canonical_bytes())
}

/// The notice lane (`seal hook <harness> post-tool-use`): tells the approval server that the
/// call ran, so a panel entry still pending for it is cancelled as answered elsewhere. Exit 0
/// with nothing on stdout, whatever happens.
pub fn notice_lane(harness: Harness, args: &[OsString]) -> u8 {
    let told = lane::catch(|| {
        let flags: NoticeHookArgs = hook_args(args)?;
        start_deadline(
            seal_serve::client::REQUEST_TIMEOUT.as_secs() + ANSWER_MARGIN,
            || (String::new(), false),
        );
        let bytes = read_stdin(MAX_HOOK_INPUT_BYTES)?;
        let text = utf8(bytes, "hook input")?;
        let object = json_in::foreign_object(text.as_bytes(), "hook input")?;
        check_event(&object, "PostToolUse")?;
        let call = CallInput::from_object(&object, harness.agent(), "hook input")?;
        let Some(socket) = socket_path(&flags.approval) else {
            return Ok(());
        };
        let line = seal_serve::hookwire::HookLine::Elsewhere {
            session_id: call.session.to_owned(),
            tool: call.tool.to_owned(),
            arguments_digest: digest_of(&call),
        };
        match seal_serve::client::request(&socket, &line) {
            Ok(_) | Err(seal_serve::client::ClientError::Unreachable(_)) => Ok(()),
            Err(error) => Err(Failure::new(Exit::Internal, error.to_string())),
        }
    })
    .and_then(|told| told);
    if let Err(failure) = told {
        crate::io::warn(&format!("seal: {failure}"));
    }
    if let Some(Err(failure)) = write_answer("") {
        crate::io::warn(&format!("seal: {failure}"));
    }
    Exit::Ok.code()
}

/// A prefix of approval ids unique to this run (`ask-<24 hex digits>-`): the panel keys
/// approvals by session and approval id, and every hook process counts its ids from 1.
fn approval_prefix() -> Result<String, Failure> {
    let mut bytes = [0u8; 12];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Failure::new(Exit::Internal, "no randomness for an approval id"))?;
    Ok(format!("ask-{}-", hex::encode(bytes)))
}

/// Puts `question` about `call` to the person and waits up to `wait` seconds.
fn wait_for_person(
    flags: &ApprovalWaitFlags,
    wait: u64,
    call: &CallInput<'_>,
    question: Question,
) -> Waited {
    let no_answer = |why: String| Waited::NoAnswer { why };
    let socket = match socket_path(flags) {
        Some(socket) => socket,
        None => return no_answer("no approval socket: give `--approval-socket`".to_owned()),
    };
    let mut nonce = [0u8; 32];
    if SystemRandom::new().fill(&mut nonce).is_err() {
        return no_answer("no randomness for the approval's nonce".to_owned());
    }
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let ask = Ask {
        session_id: call.session.to_owned(),
        agent: call.agent.to_owned(),
        approval_id: question.approval_id,
        tool: call.tool.to_owned(),
        call_id: (call.call_id != "call").then(|| call.call_id.to_owned()),
        reason: question.reason,
        arguments: String::from_utf8_lossy(&call.input.canonical_bytes()).into_owned(),
        arguments_digest: question.digest,
        card: question.card,
        deadline_ms: now_ms.saturating_add(wait.saturating_mul(1000)),
        nonce,
    };
    let deadline = Instant::now() + Duration::from_secs(wait);
    fault::point("wait");
    let mut settled = match wait_for_answer(&socket, &ask, deadline, |_| {}) {
        Ok(settled) => settled,
        Err(error) => return no_answer(error.to_string()),
    };
    match settled.outcome {
        Outcome::AllowedOnce => {}
        Outcome::Rejected => {
            return Waited::Refused {
                message: "seal: refused on the approval panel".to_owned(),
            }
        }
        other => {
            return no_answer(format!(
                "the approval ended {other} ({})",
                escape(&settled.cause, Context::Inline)
            ))
        }
    }
    if let Err(why) = crate::approvers::verify_allow(flags, &ask, &settled) {
        return no_answer(format!("the panel's allow did not verify: {why}"));
    }
    match consume(&mut settled, ask.arguments_digest) {
        Ok(()) => Waited::Allowed {
            rpc_id: settled.rpc_id,
        },
        Err(why) => no_answer(format!("the panel's allow could not be spent: {why}")),
    }
}

fn consume(settled: &mut Settled, digest: Sha256Digest) -> Result<(), String> {
    settled
        .consume(digest, Instant::now() + seal_serve::client::REQUEST_TIMEOUT)
        .map_err(|error| error.to_string())
}

/// The hook socket: `--approval-socket`, else `seal serve`'s default.
fn socket_path(flags: &ApprovalWaitFlags) -> Option<PathBuf> {
    match &flags.socket {
        Some(path) => Some(PathBuf::from(path)),
        None => seal_serve::paths::default_socket(),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::{hook_deadline, ANSWER_MARGIN, DEFAULT_HOLD_WAIT, DEFAULT_RELAY_WAIT};
    use crate::cli::ToolHookArgs;
    use crate::hook::hook_args;

    fn flags(extra: &[&str]) -> ToolHookArgs {
        let mut args: Vec<OsString> = ["seal", "hook", "claude-code", "permission-request"]
            .iter()
            .map(OsString::from)
            .collect();
        args.extend(extra.iter().map(OsString::from));
        hook_args(&args).unwrap_or_else(|failure| panic!("{failure}"))
    }

    #[test]
    fn a_waiting_hooks_deadline_is_raised_above_its_wait() {
        // The wait plus the answer margin, when that is later than --deadline.
        let raised = flags(&["--approval-wait", "10", "--deadline", "3"]);
        assert_eq!(
            hook_deadline(&raised, DEFAULT_RELAY_WAIT),
            10 + ANSWER_MARGIN
        );
        // A later --deadline stands.
        let later = flags(&["--approval-wait", "1", "--deadline", "30"]);
        assert_eq!(hook_deadline(&later, DEFAULT_RELAY_WAIT), 30);
        // Without --approval-wait, the mode's default wait.
        let default = flags(&["--deadline", "3"]);
        assert_eq!(
            hook_deadline(&default, DEFAULT_HOLD_WAIT),
            DEFAULT_HOLD_WAIT + ANSWER_MARGIN
        );
    }
}
