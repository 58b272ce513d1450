//! What evaluating a rule set on one call gives: the effect, the rule, and where it matched.

use std::fmt;

use seal_render::Escaped;

use super::Effect;

/// Which input of a call a match or a problem concerns: the input as submitted, or as a hook
/// rewrote it ([`RuleSet::evaluate_rewrite`](super::RuleSet::evaluate_rewrite)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The input the model submitted (the only one outside rewrites).
    Submitted,
    /// The input after a hook rewrote it.
    Rewritten,
}

/// Which normalized form of a segment matched (spec/shell-segments.md, section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    /// The words as parsed.
    Canonical,
    /// Leading assignments removed.
    EnvStripped,
    /// Env-stripped, program reduced to its basename.
    Basename,
    /// Assignments and wrappers removed, program as written.
    WrapperStripped,
    /// Wrapper-stripped with the program's basename.
    Normalized,
    /// A form met between two wrappers (`nohup /bin/rm -rf t` in `sudo nohup /bin/rm -rf t`).
    Intermediate,
}

impl FormKind {
    /// A stable snake_case name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FormKind::Canonical => "canonical",
            FormKind::EnvStripped => "env_stripped",
            FormKind::Basename => "basename",
            FormKind::WrapperStripped => "wrapper_stripped",
            FormKind::Normalized => "normalized",
            FormKind::Intermediate => "intermediate",
        }
    }
}

/// Where in the call's typed field a rule matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Site {
    /// The rule names the tool only (no specifier): it matched the tool name.
    Tool,
    /// A form of one segment of the command.
    Segment {
        /// Index of the segment (payload segments counted in place).
        index: usize,
        /// Which form.
        kind: FormKind,
        /// The form's words joined by single spaces.
        form: String,
    },
    /// The words of a shell invocation that launched a payload segment (`bash -c '...'`), or
    /// a suffix of them (deny and ask look at every suffix; allow at the full words).
    Launcher {
        /// Index of the payload segment it launched.
        segment: usize,
        /// The words matched, joined by single spaces.
        form: String,
    },
    /// The canonical relative path.
    Path(String),
    /// The URL's host.
    Host(String),
    /// The command as written, matched whole by a deny or ask rule (a literal specifier
    /// such as `cd /tmp && ls`, as Claude Code reads it).
    Command(String),
    /// The agent type or skill the call names.
    Name(String),
    /// What can be read of an unanalysable command (a substitution's body, the command around
    /// it, a redirection's file; spec/shell-segments.md section 9), given as the command.
    Readable(String),
}

impl Site {
    /// The text matched at the site (the form, the launcher's words, the path, the host, the
    /// command, the name or the readable part), `None` for the tool itself.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self {
            Site::Tool => None,
            Site::Segment { form, .. } | Site::Launcher { form, .. } => Some(form),
            Site::Path(text)
            | Site::Host(text)
            | Site::Command(text)
            | Site::Name(text)
            | Site::Readable(text) => Some(text),
        }
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Site::Tool => f.write_str("the tool"),
            Site::Segment { index, kind, form } => {
                write!(f, "segment {index} ({} form `{}`)", kind.as_str(), form)
            }
            Site::Launcher { segment, form } => {
                write!(f, "launcher of segment {segment} (`{}`)", form)
            }
            Site::Path(path) => write!(f, "path `{}`", path),
            Site::Host(host) => write!(f, "host `{}`", host),
            Site::Command(text) => write!(f, "the command as written `{}`", text),
            Site::Name(name) => write!(f, "name `{}`", name),
            Site::Readable(text) => write!(
                f,
                "a part seal can read of the unanalysable command `{}`",
                text
            ),
        }
    }
}

/// One rule matching one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// Index of the rule in [`RuleSet::rules`](super::RuleSet::rules).
    pub rule: usize,
    /// The rule's effect.
    pub effect: Effect,
    /// The rule as written.
    pub text: String,
    /// Where it matched.
    pub site: Site,
    /// Which input.
    pub input: Input,
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rule `{}` matched {}",
            self.effect, self.text, self.site
        )?;
        if self.input == Input::Rewritten {
            f.write_str(" of the rewritten input")?;
        }
        Ok(())
    }
}

/// A typed field that rules could not be checked against, so that no rule may allow the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanalysed {
    /// Which input.
    pub input: Input,
    /// A stable snake_case code: the segmenter's reason code for commands
    /// (`command_substitution`, `redirection`, ...), or `path_outside_workspace`,
    /// `url_not_plain`, `field_missing`, `rule_not_interpreted`.
    pub code: &'static str,
    /// A sentence for the operator and the approval card.
    pub reason: String,
}

impl fmt::Display for Unanalysed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)?;
        if self.input == Input::Rewritten {
            f.write_str(" (rewritten input)")?;
        }
        Ok(())
    }
}

/// Why rules ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskCause {
    /// An ask rule matched.
    Rule(Match),
    /// The field could not be analysed; rules never allow such a call.
    Unanalysed(Unanalysed),
}

/// The result of evaluating a rule set on one call. Deny beats ask beats allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evaluation {
    /// A deny rule matched (the first one found, segments in order, forms canonical first).
    Deny(Match),
    /// An ask rule matched, or the field could not be analysed.
    Ask(AskCause),
    /// Every segment's canonical form (and every launcher) matched an allow rule: one match
    /// per segment then per launcher, in order. For fields other than commands, one match.
    Allow(Vec<Match>),
    /// No deny or ask rule matched and the client's default mode
    /// ([`RuleSet::with_client_default`](super::RuleSet::with_client_default)) allows the
    /// call: a read-only command (each segment read-only or covered by an allow rule, whose
    /// matches these are, in order), a read inside the workspace, or a tool the client runs
    /// without a permission check.
    ClientDefault(Vec<Match>),
    /// No rule decided. Carries the first site no allow rule covered, if rules for the tool
    /// exist but did not cover every segment.
    NoMatch(Option<Site>),
}

impl Evaluation {
    /// The effect, or `None` when no rule decided.
    #[must_use]
    pub fn effect(&self) -> Option<Effect> {
        match self {
            Evaluation::Deny(_) => Some(Effect::Deny),
            Evaluation::Ask(_) => Some(Effect::Ask),
            Evaluation::Allow(_) | Evaluation::ClientDefault(_) => Some(Effect::Allow),
            Evaluation::NoMatch(_) => None,
        }
    }

    /// The rule that decided (for allow, the first of the per-segment matches).
    #[must_use]
    pub fn decisive(&self) -> Option<&Match> {
        match self {
            Evaluation::Deny(m) | Evaluation::Ask(AskCause::Rule(m)) => Some(m),
            Evaluation::Allow(matches) | Evaluation::ClientDefault(matches) => matches.first(),
            Evaluation::Ask(AskCause::Unanalysed(_)) | Evaluation::NoMatch(_) => None,
        }
    }
}

impl Evaluation {
    /// The evaluation as one line for people, escaped once (escape-v1, inline context): rule
    /// text, forms, paths and reasons may hold anything.
    #[must_use]
    pub fn escaped(&self) -> Escaped {
        Escaped::new(&self.to_string())
    }
}

impl fmt::Display for Evaluation {
    /// The evaluation as one line, its rule text, forms, paths and reasons as they are (raw:
    /// escape it for display, as [`Evaluation::escaped`] does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evaluation::Deny(m) => write!(f, "deny: {m}"),
            Evaluation::Ask(AskCause::Rule(m)) => write!(f, "ask: {m}"),
            Evaluation::Ask(AskCause::Unanalysed(u)) if u.code == "path_outside_workspace" => {
                write!(f, "ask: an allow stops at the workspace: {u}")
            }
            Evaluation::Ask(AskCause::Unanalysed(u)) => {
                write!(f, "ask: not analysable, no rule may allow it: {u}")
            }
            Evaluation::Allow(matches) => {
                f.write_str("allow:")?;
                for (at, m) in matches.iter().enumerate() {
                    f.write_str(if at == 0 { " " } else { "; " })?;
                    m.fmt(f)?;
                }
                Ok(())
            }
            Evaluation::ClientDefault(matches) => {
                f.write_str("allow: the client's default mode allows it (read-only, or a tool run without a permission check)")?;
                for m in matches {
                    f.write_str("; ")?;
                    m.fmt(f)?;
                }
                Ok(())
            }
            Evaluation::NoMatch(None) => f.write_str("no rule matched"),
            Evaluation::NoMatch(Some(site)) => {
                write!(f, "no rule matched: no allow rule covers {site}")
            }
        }
    }
}
