//! What the guard reports: a finding (the pattern, the form it fired on, the path that made it
//! fire) and the explanation of a whole command, form by form.

use std::fmt;

use super::Pattern;

/// What the guard found: the pattern, the form it fired on and the path that made it fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardFinding {
    /// The pattern that fired.
    pub pattern: &'static Pattern,
    /// The words it fired on, joined by spaces (the form as the guard read it).
    pub form: String,
    /// The path operand that made a path test fire, resolved (absolute, normalized) where it
    /// could be, and what that path is (`the home directory`, `a system path`...).
    pub path: Option<String>,
    /// What the path is, when a path test fired.
    pub place: Option<&'static str>,
}

/// What the guard reads in one command
/// ([`DestructiveGuard::explain_command`](super::DestructiveGuard::explain_command)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardExplanation {
    /// What the command's text shows (a fork bomb, output redirected onto a device), read
    /// before any segment.
    pub text: Option<GuardFinding>,
    /// Whether the command could be segmented (otherwise only its text is read).
    pub analysable: bool,
    /// Every form of every segment, in reading order.
    pub forms: Vec<GuardForm>,
}

impl GuardExplanation {
    /// The first finding, as
    /// [`DestructiveGuard::check_command`](super::DestructiveGuard::check_command) gives it.
    #[must_use]
    pub fn first(&self) -> Option<&GuardFinding> {
        self.text
            .as_ref()
            .or_else(|| self.forms.iter().find_map(|form| form.finding.as_ref()))
    }
}

/// One form of one segment as the guard read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardForm {
    /// Index of the segment.
    pub segment: usize,
    /// Position of the form among the segment's forms (`SegmentRef::forms().all()`, the order
    /// the rules read them in too).
    pub position: usize,
    /// The form's words, program first.
    pub words: Vec<String>,
    /// The pattern that fires on the form (or on a command its program runs), if any.
    pub finding: Option<GuardFinding>,
}

/// The finding as one line, its form and path as they are (raw: the deny reason it becomes is
/// escaped once where it is shown).
impl fmt::Display for GuardFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "destructive command: {} (guard pattern `{}`) in `{}`",
            self.pattern.what, self.pattern.id, self.form
        )?;
        if let (Some(path), Some(place)) = (&self.path, self.place) {
            write!(f, ": `{path}` is {place}")?;
        }
        Ok(())
    }
}
