//! The process edge: which lane a run takes (a tool hook, a prompt hook, any other command),
//! decided from the raw arguments before anything can fail, and the boundary that turns a panic
//! into the lane's failure answer instead of Rust's exit 101.

use std::any::Any;
use std::ffi::OsString;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};

use crate::failure::{Exit, Failure};
use crate::hook::{Harness, ToolEvent};

/// The events of the hook lanes, as written on the command line.
pub const TOOL_EVENT: &str = "pre-tool-use";
/// The prompt event.
pub const PROMPT_EVENT: &str = "user-prompt-submit";
/// The skill shell line event (a tool hook).
pub const SKILL_EVENT: &str = "pre-skill-shell-command";
/// The permission request event (the relay to the approval panel).
pub const RELAY_EVENT: &str = "permission-request";
/// The event after a call ran (tells the approval server the person answered elsewhere).
pub const NOTICE_EVENT: &str = "post-tool-use";

/// How a run answers its failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// `seal hook <harness> pre-tool-use ...` and `... pre-skill-shell-command ...`: every
    /// failure is the client's deny.
    ToolHook(Harness, ToolEvent),
    /// `seal hook <harness> user-prompt-submit ...`: every failure is a `verification_failed`
    /// alarm with exit 0 (a prompt is never blocked).
    PromptHook(Harness),
    /// `seal hook <harness> permission-request ...`: every failure is no decision (exit 0,
    /// nothing on stdout), which leaves the client's own prompt in force.
    RelayHook(Harness),
    /// `seal hook <harness> post-tool-use ...`: never answers anything (exit 0, empty stdout);
    /// it only tells the approval server that the call was answered at the client.
    NoticeHook(Harness),
    /// Anything else: one line on stderr and the failure's exit code.
    Command,
}

impl Lane {
    /// The lane of the raw command line `args` (the program name first). The second word must
    /// be `hook` and the fourth the event, whatever the third (the harness) is: an unknown
    /// harness word still gets its lane's failure answer, in Claude Code's shape (the deny
    /// shape both clients read).
    pub fn of(args: &[OsString]) -> Lane {
        let word = |index: usize| args.get(index).and_then(|arg| arg.to_str());
        if word(1) != Some("hook") {
            return Lane::Command;
        }
        let harness = match word(2) {
            Some("codex") => Harness::Codex,
            _ => Harness::ClaudeCode,
        };
        match word(3) {
            Some(TOOL_EVENT) => Lane::ToolHook(harness, ToolEvent::PreToolUse),
            Some(SKILL_EVENT) => Lane::ToolHook(harness, ToolEvent::PreSkillShellCommand),
            Some(PROMPT_EVENT) => Lane::PromptHook(harness),
            Some(RELAY_EVENT) => Lane::RelayHook(harness),
            Some(NOTICE_EVENT) => Lane::NoticeHook(harness),
            _ => Lane::Command,
        }
    }
}

/// Where the last panic happened (`file:line`), kept by the panic report for [`catch`].
static PANIC_PLACE: Mutex<Option<String>> = Mutex::new(None);

/// Runs `run`, turning a panic into an internal failure that names it and where it happened.
pub fn catch<T>(run: impl FnOnce() -> Result<T, Failure>) -> Result<Result<T, Failure>, Failure> {
    panic::catch_unwind(AssertUnwindSafe(run)).map_err(|payload| {
        let place = PANIC_PLACE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .map(|place| format!(" at {place}"))
            .unwrap_or_default();
        Failure::new(
            Exit::Internal,
            format!("internal error{place}: {}", panic_message(payload.as_ref())),
        )
    })
}

/// Replaces Rust's multi-line panic report: the place is kept for [`catch`], which reports the
/// panic as one failure line, and the lane then gives its failure answer.
pub fn install_panic_report() {
    panic::set_hook(Box::new(|info| {
        if let Some(location) = info.location() {
            let place = format!("{}:{}", location.file(), location.line());
            *PANIC_PLACE.lock().unwrap_or_else(PoisonError::into_inner) = Some(place);
        }
    }));
}

/// What a clap refusal means for a command outside the hooks: help and version are printed on
/// stdout (exit 0); anything else is a usage failure of one line.
pub fn clap_outcome(error: &clap::Error) -> Result<u8, Failure> {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            crate::io::emit(&error.render().to_string())?;
            Ok(Exit::Ok.code())
        }
        _ => Err(usage_failure(error)),
    }
}

/// A clap refusal as one usage failure line: the error and its tips, without the usage block.
pub fn usage_failure(error: &clap::Error) -> Failure {
    let rendered = error.render().to_string();
    if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // clap renders the command's whole help here: name the command instead.
        let command = rendered
            .lines()
            .find_map(|line| line.trim().strip_prefix("Usage: "))
            .and_then(|usage| usage.split(" <").next())
            .unwrap_or("seal");
        return Failure::usage(format!(
            "`{command}` needs a subcommand; see `{command} --help`"
        ));
    }
    let parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:"))
        .filter(|line| !line.is_empty() && !line.starts_with("For more information"))
        .map(|line| line.strip_prefix("error: ").unwrap_or(line))
        .collect();
    let mut message = String::new();
    for part in parts {
        if !message.is_empty() {
            message.push_str(if message.ends_with(':') { " " } else { "; " });
        }
        message.push_str(part);
    }
    if message.is_empty() {
        message.push_str("bad command line; see `seal --help`");
    }
    Failure::usage(message)
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("panic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(words: &[&str]) -> Lane {
        let args: Vec<OsString> = std::iter::once("seal")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect();
        Lane::of(&args)
    }

    #[test]
    fn lanes_come_from_the_raw_words() {
        assert_eq!(
            lane(&["hook", "claude-code", "pre-tool-use", "--rules", "r"]),
            Lane::ToolHook(Harness::ClaudeCode, ToolEvent::PreToolUse)
        );
        assert_eq!(
            lane(&["hook", "codex", "pre-tool-use"]),
            Lane::ToolHook(Harness::Codex, ToolEvent::PreToolUse)
        );
        assert_eq!(
            lane(&["hook", "cursor", "pre-tool-use"]),
            Lane::ToolHook(Harness::ClaudeCode, ToolEvent::PreToolUse)
        );
        assert_eq!(
            lane(&["hook", "claude-code", "pre-skill-shell-command"]),
            Lane::ToolHook(Harness::ClaudeCode, ToolEvent::PreSkillShellCommand)
        );
        assert_eq!(
            lane(&["hook", "codex", "user-prompt-submit"]),
            Lane::PromptHook(Harness::Codex)
        );
        assert_eq!(lane(&["hook", "codex", "stop"]), Lane::Command);
        assert_eq!(lane(&["scan", "pre-tool-use"]), Lane::Command);
        assert_eq!(lane(&[]), Lane::Command);
    }

    #[test]
    fn a_panic_becomes_an_internal_failure() {
        #[allow(clippy::panic)]
        let caught = catch::<()>(|| panic!("boom"));
        let Err(failure) = caught else {
            unreachable_failure()
        };
        assert_eq!(failure.exit, Exit::Internal);
        assert!(failure.message.contains("boom"), "{}", failure.message);
    }

    #[allow(clippy::panic)]
    fn unreachable_failure() -> ! {
        panic!("the panic was not caught")
    }
}
