//! Decisions, tool calls, the pre-execute waterfall of listeners, deny-only guards and the explanation trace.
//!
//! A [`ToolCall`] (session, agent, tool, frozen arguments and their typed [`Subject`]) goes
//! through a [`Chain`]: [`Listener`]s in registration order (scope-routed; each may delegate to
//! [`Next`], keep or replace its [`Ruling`], or short-circuit), the end-of-chain default, then on
//! allow the [`Guard`]s, which can only pass or deny. An ask is [`Pending`] until the approval
//! outcome is given; only `allowed-once` goes on to the guards. Every [`Verdict`] carries a
//! [`Trace`]; every failure denies.
//!
//! ```
//! use seal_parse::json::{parse, JsonLimits};
//! use seal_policy::chain::{Chain, Check, Decision, Evaluated, Ruling, Scope, ToolCall};
//! use seal_record::{Outcome, SealedCall};
//!
//! let mut chain = Chain::new(Decision::Allow);
//! chain.append("reviewer", Scope::everywhere().tool("Bash"), |call: &ToolCall, next: seal_policy::chain::Next<'_>| {
//!     if call.command().is_some_and(|command| command.starts_with("git ")) {
//!         Ok(next.run())
//!     } else {
//!         Ok(Ruling::ask("not a git command"))
//!     }
//! })?;
//! chain.add_global_guard("no-rm", |call: &ToolCall| {
//!     Ok(match call.command() {
//!         Some(command) if command.contains("rm ") => Check::deny("rm is never run"),
//!         _ => Check::Pass,
//!     })
//! })?;
//!
//! let arguments = parse(br#"{"command":"ls"}"#, &JsonLimits::default())?;
//! let call = ToolCall::new("s1", None, SealedCall::new("c1", "Bash", &arguments)?)?;
//! let Evaluated::Pending(pending) = chain.evaluate(&call) else { panic!("expected an ask") };
//! assert!(pending.finish(Outcome::AllowedOnce).is_allow());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod call;
mod decision;
mod failure;
mod guard;
mod listener;
mod note;
mod scope;
mod subject;
mod trace;
mod verdict;
mod waterfall;

pub use call::{Arguments, CallError, ToolCall, MAX_ID_BYTES, MAX_LOSSLESS_ARGUMENTS_BYTES};
pub use decision::{Because, Decision, Reason, Ruling};
pub use failure::{CatchPanics, StageError};
pub use guard::{Check, Guard};
pub use listener::{Listener, Next};
pub use note::Note;
pub use scope::Scope;
pub use subject::{url_domain, url_host, Subject, SubjectKind, ToolField, TOOL_FIELDS};
pub use trace::{Returned, Stage, StageKind, Step, Trace, Via};
pub use verdict::{Allowed, Denied, DenyCause, Evaluated, Pending, Verdict};
pub use waterfall::{
    Chain, ChainError, ChainLimits, APPROVAL_NAME, END_OF_CHAIN_NAME, MAX_STAGES_CEILING,
    MAX_STAGE_NAME_BYTES,
};
