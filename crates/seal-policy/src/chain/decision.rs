//! What a listener decides: [`Decision`], its [`Reason`], the [`Because`] that explains it, and the
//! [`Ruling`] that carries both through the waterfall.

use std::borrow::Cow;
use std::fmt;

/// The three answers a pre-execute listener (or the end-of-chain default) can give.
///
/// There is no severity, score or privileged "approve" token: `Allow` is the only answer that
/// lets a call go on to the guards, `Ask` hands the call to the approval state machine, and
/// `Deny` ends it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The call may proceed to the guards.
    Allow,
    /// The call is refused, with a reason.
    Deny(Reason),
    /// A human or machine answerer must approve this one call; the reason is optional.
    Ask(Option<Reason>),
}

/// A plain-text reason attached to a deny or an ask.
///
/// The text is kept as given, unvalidated and unescaped: it is rendered for people elsewhere
/// (with the escape grammar), never interpreted. A `&'static str` reason costs no allocation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reason(Cow<'static, str>);

/// Which rule matched, and the normalized form of the input it matched, as reported by the stage
/// that decided.
///
/// `rule` is the rule as its author wrote it (`Bash(git log:*)`); `form` is the normalized form
/// the rule was matched against (a wrapper-stripped segment, a canonical path), when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Because {
    rule: Cow<'static, str>,
    form: Option<Cow<'static, str>>,
}

/// A [`Decision`] with an optional [`Because`], as a listener returns it.
///
/// A ruling obtained from [`Next::run`](crate::chain::Next::run) remembers which stage produced
/// it: returning it unchanged *keeps* the downstream decision (the trace then names the
/// downstream stage as the one that decided); building a new ruling *replaces* it. No public
/// method can carry that memory over to a different decision or explanation. Equality compares
/// the decision and the explanation only. (A listener that stores a ruling and returns it in a
/// later evaluation returns its decision all the same; only which step the trace names as the
/// decider is then unspecified.)
#[derive(Debug, Clone)]
pub struct Ruling {
    decision: Decision,
    because: Option<Because>,
    origin: Option<usize>,
}

impl Decision {
    /// `Deny` with the given reason.
    pub fn deny(reason: impl Into<Reason>) -> Decision {
        Decision::Deny(reason.into())
    }

    /// `Ask` with the given reason.
    pub fn ask(reason: impl Into<Reason>) -> Decision {
        Decision::Ask(Some(reason.into()))
    }

    /// `true` for [`Decision::Allow`] only.
    pub fn is_allow(&self) -> bool {
        matches!(self, Decision::Allow)
    }

    /// The reason of a deny or an ask, if any.
    pub fn reason(&self) -> Option<&Reason> {
        match self {
            Decision::Allow => None,
            Decision::Deny(reason) => Some(reason),
            Decision::Ask(reason) => reason.as_ref(),
        }
    }

    /// The lowercase name of the answer: `allow`, `deny` or `ask`.
    pub fn kind(&self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny(_) => "deny",
            Decision::Ask(_) => "ask",
        }
    }
}

impl fmt::Display for Decision {
    /// `allow`, ``deny: `reason` ``, `ask` or ``ask: `reason` `` (control characters in the reason
    /// are shown as Rust escapes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        if let Some(reason) = self.reason() {
            write!(f, ": {reason}")?;
        }
        Ok(())
    }
}

impl Reason {
    /// A reason with the given text.
    pub fn new(text: impl Into<Cow<'static, str>>) -> Reason {
        Reason(text.into())
    }

    /// The text as given.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&'static str> for Reason {
    fn from(text: &'static str) -> Reason {
        Reason(Cow::Borrowed(text))
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason(Cow::Owned(text))
    }
}

impl fmt::Display for Reason {
    /// The text in backticks, with control and other non-printing characters shown as Rust
    /// escapes so that a reason can never forge a line of a report.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.0.escape_debug())
    }
}

impl Because {
    /// The given rule matched, with no particular normalized form.
    pub fn rule(rule: impl Into<Cow<'static, str>>) -> Because {
        Because {
            rule: rule.into(),
            form: None,
        }
    }

    /// The given rule matched the given normalized form.
    pub fn rule_and_form(
        rule: impl Into<Cow<'static, str>>,
        form: impl Into<Cow<'static, str>>,
    ) -> Because {
        Because {
            rule: rule.into(),
            form: Some(form.into()),
        }
    }

    /// The rule as written by its author.
    pub fn rule_text(&self) -> &str {
        &self.rule
    }

    /// The normalized form the rule matched, if the stage reported one.
    pub fn form(&self) -> Option<&str> {
        self.form.as_deref()
    }
}

impl fmt::Display for Because {
    /// ``rule `r` `` or ``rule `r` matched `form` `` (non-printing characters escaped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule `{}`", self.rule.escape_debug())?;
        if let Some(form) = &self.form {
            write!(f, " matched `{}`", form.escape_debug())?;
        }
        Ok(())
    }
}

impl Ruling {
    /// A new ruling with no explanation. Returned by a listener, it replaces whatever the rest
    /// of the chain decided.
    pub fn new(decision: Decision) -> Ruling {
        Ruling {
            decision,
            because: None,
            origin: None,
        }
    }

    /// A new `Allow` ruling.
    pub fn allow() -> Ruling {
        Ruling::new(Decision::Allow)
    }

    /// A new `Deny` ruling.
    pub fn deny(reason: impl Into<Reason>) -> Ruling {
        Ruling::new(Decision::deny(reason))
    }

    /// A new `Ask` ruling with a reason.
    pub fn ask(reason: impl Into<Reason>) -> Ruling {
        Ruling::new(Decision::ask(reason))
    }

    /// A new `Ask` ruling without a reason.
    pub fn ask_without_reason() -> Ruling {
        Ruling::new(Decision::Ask(None))
    }

    /// The same decision, explained by `because`. This is a new ruling: returned by a
    /// listener, it counts as that listener's own decision.
    pub fn because(self, because: Because) -> Ruling {
        Ruling {
            decision: self.decision,
            because: Some(because),
            origin: None,
        }
    }

    /// The decision.
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// The explanation, if the deciding stage gave one.
    pub fn explanation(&self) -> Option<&Because> {
        self.because.as_ref()
    }

    /// The decision, dropping the explanation.
    pub fn into_decision(self) -> Decision {
        self.decision
    }

    pub(crate) fn with_origin(mut self, origin: usize) -> Ruling {
        self.origin = Some(origin);
        self
    }

    pub(crate) fn origin(&self) -> Option<usize> {
        self.origin
    }
}

impl PartialEq for Ruling {
    fn eq(&self, other: &Ruling) -> bool {
        self.decision == other.decision && self.because == other.because
    }
}

impl Eq for Ruling {}

impl From<Decision> for Ruling {
    fn from(decision: Decision) -> Ruling {
        Ruling::new(decision)
    }
}
