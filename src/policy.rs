//! The embedder's own policy stages: listeners in the pre-execute waterfall and deny-only
//! guards, over a read-only view of the call.

use std::fmt;

use seal_policy::chain::{self as core, CatchPanics, StageError};

/// What a listener or guard sees of a tool call: who asks, which tool, the frozen arguments and
/// the typed subject extracted from them once (the same values the rules, the approval card and
/// the dispatcher see).
#[derive(Debug, Clone, Copy)]
pub struct CallView<'a> {
    call: &'a core::ToolCall,
}

/// A stage of the pre-execute waterfall, run in registration order after the rules (or before
/// them when registered with [`SealBuilder::prepend_listener`](crate::SealBuilder::prepend_listener)).
///
/// A listener may short-circuit (return a ruling without running `next`), delegate (return
/// [`Next::run`] unchanged) or replace the downstream ruling. Whatever it returns, the guards
/// still run after an allow. An `Err` denies the call, and so does a panic (caught).
///
/// ```
/// use seal::{CallView, Next, Ruling, StageFailure};
///
/// let only_git = |call: &CallView<'_>, next: Next<'_>| -> Result<Ruling, StageFailure> {
///     match call.command() {
///         Some(command) if command.starts_with("git ") => Ok(next.run()),
///         Some(_) => Ok(Ruling::ask("not a git command")),
///         None => Err(StageFailure::new("a Bash call without a command")),
///     }
/// };
/// let seal = seal::Seal::builder().listener("only-git", seal::Scope::tool("Bash"), only_git).build()?;
/// # Ok::<(), seal::BuildError>(())
/// ```
pub trait Listener: Send + Sync + 'static {
    /// Rules on the call, possibly by delegating to `next`.
    ///
    /// # Errors
    /// A [`StageFailure`] denies the call.
    fn decide(&self, call: &CallView<'_>, next: Next<'_>) -> Result<Ruling, StageFailure>;
}

/// A deny-only check run on every call the waterfall (or an approval) allowed. It can only pass
/// or deny, so adding a guard never turns a deny or an ask into an allow; no listener can skip
/// it. An `Err` or a panic denies.
///
/// ```
/// use seal::{CallView, Check, StageFailure};
///
/// let no_env_files = |call: &CallView<'_>| -> Result<Check, StageFailure> {
///     Ok(match call.path() {
///         Some(path) if path.ends_with(".env") => Check::deny("secrets stay local"),
///         _ => Check::Pass,
///     })
/// };
/// let seal = seal::Seal::builder().guard("no-env", no_env_files).build()?;
/// # Ok::<(), seal::BuildError>(())
/// ```
pub trait Guard: Send + Sync + 'static {
    /// Checks the call.
    ///
    /// # Errors
    /// A [`StageFailure`] denies the call.
    fn check(&self, call: &CallView<'_>) -> Result<Check, StageFailure>;
}

/// The rest of the waterfall after a listener. Running it consumes it; dropping it without
/// running is a short-circuit.
#[derive(Debug)]
pub struct Next<'a> {
    next: core::Next<'a>,
}

/// A listener's ruling: allow, deny with a reason, or ask (the call then needs approval).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    pub(crate) ruling: core::Ruling,
}

/// A guard's answer: pass (not an allow: every other guard must pass too) or deny.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// No objection.
    Pass,
    /// Refused, with the reason.
    Deny(String),
}

/// A listener or guard that could not decide. It denies the call; the detail goes to the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageFailure {
    detail: String,
}

/// Which calls a listener or scoped guard sees: every call, or only those of a tool, session or
/// agent (criteria combine with and).
///
/// ```
/// let scope = seal::Scope::tool("Bash").and_agent("agent-1");
/// # let _ = scope;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub(crate) scope: core::Scope,
}

impl<'a> CallView<'a> {
    pub(crate) fn new(call: &'a core::ToolCall) -> CallView<'a> {
        CallView { call }
    }

    /// The session id.
    pub fn session(&self) -> &'a str {
        self.call.session()
    }

    /// The agent id, if the call comes from an agent.
    pub fn agent(&self) -> Option<&'a str> {
        self.call.agent()
    }

    /// The tool name.
    pub fn tool(&self) -> &'a str {
        self.call.tool()
    }

    /// The call id.
    pub fn call_id(&self) -> &'a str {
        self.call.call_id()
    }

    /// The shell command of a `Bash` call (its `command` argument).
    pub fn command(&self) -> Option<&'a str> {
        self.call.command()
    }

    /// The file path of a file tool call (`Read`, `Write`, `Edit`, ...: `file_path` or `path`).
    pub fn path(&self) -> Option<&'a str> {
        self.call.path()
    }

    /// The URL of a `WebFetch` call.
    pub fn url(&self) -> Option<&'a str> {
        self.call.url()
    }

    /// The host of that URL, lowercased.
    pub fn domain(&self) -> Option<&'a str> {
        self.call.domain()
    }

    /// The arguments as RFC 8785 canonical JSON.
    pub fn arguments_json(&self) -> &'a str {
        std::str::from_utf8(self.call.sealed().arguments_bytes()).unwrap_or("")
    }
}

impl Next<'_> {
    /// Runs the rest of the waterfall and returns its ruling (returning it unchanged keeps it).
    pub fn run(self) -> Ruling {
        Ruling {
            ruling: self.next.run(),
        }
    }
}

impl Ruling {
    /// Allow (the guards still run).
    pub fn allow() -> Ruling {
        Ruling {
            ruling: core::Ruling::allow(),
        }
    }

    /// Deny, with a reason shown to the agent and in the trace.
    pub fn deny(reason: impl Into<String>) -> Ruling {
        Ruling {
            ruling: core::Ruling::deny(reason.into()),
        }
    }

    /// Ask: the call needs approval, with a reason shown on the approval card.
    pub fn ask(reason: impl Into<String>) -> Ruling {
        Ruling {
            ruling: core::Ruling::ask(reason.into()),
        }
    }

    /// The same ruling, explained by `rule` in the trace.
    #[must_use]
    pub fn because(self, rule: impl Into<String>) -> Ruling {
        Ruling {
            ruling: self.ruling.because(core::Because::rule(rule.into())),
        }
    }

    /// `allow`, `deny` or `ask`.
    pub fn kind(&self) -> &'static str {
        self.ruling.decision().kind()
    }
}

impl StageFailure {
    /// A failure with a detail for the operator.
    pub fn new(detail: impl Into<String>) -> StageFailure {
        StageFailure {
            detail: detail.into(),
        }
    }

    /// The detail.
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

impl fmt::Display for StageFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stage failed: `{}`", self.detail.escape_debug())
    }
}

impl std::error::Error for StageFailure {}

impl Check {
    /// `Deny` with a reason.
    pub fn deny(reason: impl Into<String>) -> Check {
        Check::Deny(reason.into())
    }
}

impl Scope {
    /// Every call.
    pub fn everywhere() -> Scope {
        Scope {
            scope: core::Scope::everywhere(),
        }
    }

    /// Calls of `tool`.
    pub fn tool(tool: &str) -> Scope {
        Scope::everywhere().and_tool(tool)
    }

    /// The same scope, further limited to calls of `tool`.
    #[must_use]
    pub fn and_tool(self, tool: &str) -> Scope {
        Scope {
            scope: self.scope.tool(tool),
        }
    }

    /// The same scope, further limited to calls in `session`.
    #[must_use]
    pub fn and_session(self, session: &str) -> Scope {
        Scope {
            scope: self.scope.session(session),
        }
    }

    /// The same scope, further limited to calls from `agent`.
    #[must_use]
    pub fn and_agent(self, agent: &str) -> Scope {
        Scope {
            scope: self.scope.agent(agent),
        }
    }
}

impl<F> Listener for F
where
    F: Fn(&CallView<'_>, Next<'_>) -> Result<Ruling, StageFailure> + Send + Sync + 'static,
{
    fn decide(&self, call: &CallView<'_>, next: Next<'_>) -> Result<Ruling, StageFailure> {
        self(call, next)
    }
}

impl<F> Guard for F
where
    F: Fn(&CallView<'_>) -> Result<Check, StageFailure> + Send + Sync + 'static,
{
    fn check(&self, call: &CallView<'_>) -> Result<Check, StageFailure> {
        self(call)
    }
}

/// The core listener of a facade listener, with panics caught (a panic denies).
pub(crate) fn core_listener<L: Listener>(listener: L) -> impl core::Listener + Send + Sync {
    CatchPanics(
        move |call: &core::ToolCall, next: core::Next<'_>| -> Result<core::Ruling, StageError> {
            listener
                .decide(&CallView::new(call), Next { next })
                .map(|ruling| ruling.ruling)
                .map_err(|failure| StageError::failed(failure.detail))
        },
    )
}

/// The core guard of a facade guard, with panics caught (a panic denies).
pub(crate) fn core_guard<G: Guard>(guard: G) -> impl core::Guard + Send + Sync {
    CatchPanics(
        move |call: &core::ToolCall| -> Result<core::Check, StageError> {
            match guard.check(&CallView::new(call)) {
                Ok(Check::Pass) => Ok(core::Check::Pass),
                Ok(Check::Deny(reason)) => Ok(core::Check::deny(reason)),
                Err(failure) => Err(StageError::failed(failure.detail)),
            }
        },
    )
}
