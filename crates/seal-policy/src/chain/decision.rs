//! What a listener decides: [`Decision`], its [`Reason`], the [`Because`] that explains it, and the
//! [`Ruling`] that carries both through the waterfall.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

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
/// (with the escape grammar), never interpreted. A `&'static str` reason costs no allocation,
/// and neither does cloning a reason made from an `Arc<str>` (a reference-count increment).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reason(Text);

/// Which rule matched, and the normalized form of the input it matched, as reported by the stage
/// that decided.
///
/// `rule` is the rule as its author wrote it (`Bash(git log:*)`); `form` is the normalized form
/// the rule was matched against (a wrapper-stripped segment, a canonical path), when there is one.
///
/// Cloning an explanation made with [`Because::shared_rule`] does not copy the rule text (a
/// reference-count increment); the rules listener also shares the form it reports, written
/// into a buffer that a reused trace keeps from one evaluation to the next.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Because {
    rule: Text,
    form: Option<Text>,
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
        Reason(Text::from(text.into()))
    }

    /// The text as given.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&'static str> for Reason {
    fn from(text: &'static str) -> Reason {
        Reason(Text::Static(text))
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason(Text::Owned(text))
    }
}

impl From<Arc<str>> for Reason {
    /// A reason sharing `text`: cloning it does not copy the text.
    fn from(text: Arc<str>) -> Reason {
        Reason(Text::Shared(text))
    }
}

impl fmt::Display for Reason {
    /// The text in backticks, with control and other non-printing characters shown as Rust
    /// escapes so that a reason can never forge a line of a report.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.as_str().escape_debug())
    }
}

impl Because {
    /// The given rule matched, with no particular normalized form.
    pub fn rule(rule: impl Into<Cow<'static, str>>) -> Because {
        Because {
            rule: Text::from(rule.into()),
            form: None,
        }
    }

    /// The given rule matched, with no particular normalized form; the rule text is shared
    /// (making and cloning the explanation does not copy it).
    pub fn shared_rule(rule: Arc<str>) -> Because {
        Because {
            rule: Text::Shared(rule),
            form: None,
        }
    }

    /// The given rule matched the given normalized form.
    pub fn rule_and_form(
        rule: impl Into<Cow<'static, str>>,
        form: impl Into<Cow<'static, str>>,
    ) -> Because {
        Because {
            rule: Text::from(rule.into()),
            form: Some(Text::from(form.into())),
        }
    }

    /// The same rule, matched against `form` (copied).
    pub(crate) fn with_form(self, form: &str) -> Because {
        Because {
            rule: self.rule,
            form: Some(Text::Owned(form.to_owned())),
        }
    }

    /// The same rule, matched against the form that `form` writes (its `Display` text), kept in
    /// the shared string `pool` holds: rewritten in place when nothing else holds it (no
    /// allocation while it has room), otherwise replaced by a new one of
    /// [`POOLED_FORM_CAPACITY`] bytes.
    pub(crate) fn with_pooled_form(
        self,
        pool: &mut Option<Arc<String>>,
        form: impl fmt::Display,
    ) -> Because {
        if !pool
            .as_mut()
            .is_some_and(|text| Arc::get_mut(text).is_some())
        {
            *pool = Some(Arc::new(String::with_capacity(POOLED_FORM_CAPACITY)));
        }
        let shared = match pool.as_mut() {
            Some(text) => {
                if let Some(text) = Arc::get_mut(text) {
                    text.clear();
                    // Writing to a `String` fails only if `form`'s `Display` fails.
                    let _ = fmt::write(text, format_args!("{form}"));
                }
                Text::Pooled(Arc::clone(text))
            }
            None => Text::Owned(form.to_string()),
        };
        Because {
            rule: self.rule,
            form: Some(shared),
        }
    }

    /// The rule as written by its author.
    pub fn rule_text(&self) -> &str {
        self.rule.as_str()
    }

    /// The normalized form the rule matched, if the stage reported one.
    pub fn form(&self) -> Option<&str> {
        self.form.as_ref().map(Text::as_str)
    }
}

impl fmt::Display for Because {
    /// ``rule `r` `` or ``rule `r` matched `form` `` (non-printing characters escaped).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule `{}`", self.rule_text().escape_debug())?;
        if let Some(form) = self.form() {
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

/// Room reserved by a pooled form string when it is made: every form of a command under 256
/// bytes fits without growing it.
pub(crate) const POOLED_FORM_CAPACITY: usize = 256;

/// Text of a reason or an explanation: static, owned, or shared. Compared and hashed as its
/// characters, whatever the storage.
#[derive(Debug, Clone)]
enum Text {
    Static(&'static str),
    Owned(String),
    Shared(Arc<str>),
    /// A string reused from one evaluation to the next (see [`Because::with_pooled_form`]).
    Pooled(Arc<String>),
}

impl Text {
    fn as_str(&self) -> &str {
        match self {
            Text::Static(text) => text,
            Text::Owned(text) => text,
            Text::Shared(text) => text,
            Text::Pooled(text) => text,
        }
    }
}

impl From<Cow<'static, str>> for Text {
    fn from(text: Cow<'static, str>) -> Text {
        match text {
            Cow::Borrowed(text) => Text::Static(text),
            Cow::Owned(text) => Text::Owned(text),
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}
