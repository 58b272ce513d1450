//! Failures of the binary: a one-line message for stderr and a documented exit code.

use std::fmt;

/// The exit codes of `seal` (the table in spec/cli.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success; for checks, the clean outcome.
    Ok = 0,
    /// Bad command line: unknown subcommand or flag, missing or repeated flag, bad flag value.
    Usage = 2,
    /// Bad input: unreadable or oversized stdin or file, invalid UTF-8, malformed JSON, a
    /// description or call that does not follow its format.
    Input = 3,
    /// Keys or trust store: unreadable, malformed, not accepted, or refused for the use.
    Keys = 4,
    /// A rules file that does not load.
    Rules = 5,
    /// An output file that cannot be written (or exists and `--force` was not given).
    Output = 6,
    /// `render --decode` refused its input: it is not the escape of any text.
    Decode = 7,
    /// `scan`: the message is tainted (some frame alarmed).
    Tainted = 10,
    /// `policy check`: the call is denied.
    Deny = 11,
    /// `policy check`: the call needs approval.
    Ask = 12,
    /// `policy lint`: findings were reported.
    LintFindings = 13,
    /// `doctor`: at least one problem was found.
    DoctorProblems = 14,
    /// `manifest verify`: the policy in force is not the one approved.
    StalePolicy = 20,
    /// `manifest verify`: a file or the payload changed.
    StaleManifest = 21,
    /// `manifest verify`: the model changed.
    StaleModel = 22,
    /// `manifest verify`: the manifest given is not the one approved.
    NotApproved = 23,
    /// `manifest verify`: the manifest rebuilt from live state does not hash to the approval.
    Recomputed = 24,
    /// `manifest verify --approval`: the signed approval is refused (unknown or out-of-scope
    /// approver key, bad signature, expired, or an approval id already used).
    ApprovalRefused = 25,
    /// `audit verify`: the log does not verify; `audit check-proof`: the proof does not.
    LogBroken = 30,
    /// A failure inside seal itself (a bug): reported, never ignored.
    Internal = 70,
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A failure: the exit code and the one-line message printed after `seal: ` on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The exit code.
    pub exit: Exit,
    /// The message: lowercase, no trailing period, user input quoted in backticks.
    pub message: String,
}

impl Failure {
    /// A failure with `exit` and `message`.
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
        }
    }

    /// A usage failure.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Usage, message)
    }

    /// An input failure.
    pub fn input(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Input, message)
    }

    /// A keys or store failure.
    pub fn keys(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Keys, message)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the message holds.
        for c in self.message.chars() {
            if c == '\n' || c == '\r' {
                f.write_str(" ")?;
            } else if c.is_control() {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// Quotes user text for a message: backticks around the text with controls escaped.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('`');
    for c in text.chars().take(200) {
        if c.is_control() || !(c.is_ascii_graphic() || c == ' ') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if text.chars().count() > 200 {
        out.push_str("...");
    }
    out.push('`');
    out
}
