//! The self-protection guard: a deny-only guard that keeps seal's own files (secret keys,
//! trust store, rules, replay state, the running binary) and the clients' hook settings out of
//! every tool call's reach, whatever the rules allow and whatever a human approves
//! (spec/self-protection.md).
//!
//! Each [`ProtectedPath`] is a file, or a directory and everything below it, protected from
//! writes (written, created, deleted, moved, linked, mode changed) or from reads and writes
//! (secret key files). A directory holding a protected path is protected from the programs that remove,
//! move, link or change the mode of a directory with its contents ([`super::TREE_CHANGERS`]),
//! and a copy or a move into a directory is a write of the path it creates there. The core
//! does no IO: the paths come in as values (the binary takes them from its flags and
//! environment), over a default table of the clients' settings ([`DEFAULT_PROTECTED`]).
//!
//! ```
//! use seal_policy::guards::self_protection::{Protection, ProtectedPath, SelfProtection};
//!
//! let guard = SelfProtection::new()
//!     .with_workspace_root("/home/dev/project")
//!     .with_home_dir("/home/dev")
//!     .with_protected(ProtectedPath::file("seal-rules", "/home/dev/.seal/rules.json", Protection::Write, "seal's rules file")?);
//! assert!(guard.check_command("cat ~/.seal/rules.json").is_none());
//! let found = guard.check_command("sed -i s/deny/allow/ ~/.seal/rules.json").unwrap();
//! assert_eq!(found.id, "seal-rules");
//! assert_eq!(guard.check_command("rm -rf .").unwrap().id, "claude-project-settings");
//! assert!(guard.check_command("cp a.txt .").is_none());
//! assert_eq!(guard.check_command("mv ~/.seal ~/x").unwrap().id, "seal-dir");
//! # Ok::<(), seal_policy::guards::PatternError>(())
//! ```

use std::fmt;

use seal_parse::shell::ShellLimits;

use super::reach::{call_finding, command_finding, readable_first, Touch};
use super::shape::{comps, Bases, Shape};
use super::{check_id, reading_places, Act, PatternError, Shown};
use crate::chain::{Because, Check, Decision, Guard, Listener, Next, Ruling, StageError, ToolCall};
use crate::paths::Places;

/// What is protected of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protection {
    /// It may be read, never written (rules, trust store, settings).
    Write,
    /// It may be neither read nor written (secret key files).
    ReadWrite,
}

impl Protection {
    /// `write` or `read-write`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Protection::Write => "write",
            Protection::ReadWrite => "read-write",
        }
    }
}

/// Whether a protected path is a file or a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// A file: the path itself.
    File,
    /// A directory: the path and everything below it.
    Directory,
}

impl PathKind {
    /// `file` or `directory`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PathKind::File => "file",
            PathKind::Directory => "directory",
        }
    }
}

/// A row of the default table ([`DEFAULT_PROTECTED`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtectedRow {
    /// What kind of path it is (the finding's id).
    pub id: &'static str,
    /// The path (`~/...`, absolute, or relative to the workspace root).
    pub path: &'static str,
    /// A file or a directory.
    pub kind: PathKind,
    /// What is protected.
    pub protection: Protection,
    /// What the path is, as a finding says it.
    pub what: &'static str,
}

/// The paths every [`SelfProtection::new`] protects: the clients' hook settings at their
/// default places and seal's directory of the README (`~/.seal`, its key file protected from
/// reads too). The binary adds the paths its flags and environment name.
pub const DEFAULT_PROTECTED: &[ProtectedRow] = &[
    ProtectedRow {
        id: "claude-user-settings",
        path: "~/.claude/settings.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's user settings",
    },
    ProtectedRow {
        id: "claude-user-settings",
        path: "~/.claude/settings.local.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's user settings",
    },
    ProtectedRow {
        id: "claude-project-settings",
        path: ".claude/settings.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's project settings",
    },
    ProtectedRow {
        id: "claude-project-settings",
        path: ".claude/settings.local.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's local project settings",
    },
    ProtectedRow {
        id: "claude-managed-settings",
        path: "/etc/claude-code/managed-settings.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's managed settings",
    },
    ProtectedRow {
        id: "claude-managed-settings",
        path: "/Library/Application Support/ClaudeCode/managed-settings.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's managed settings",
    },
    ProtectedRow {
        id: "codex-hooks",
        path: "~/.codex/hooks.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Codex's hook configuration",
    },
    ProtectedRow {
        id: "codex-config",
        path: "~/.codex/config.toml",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Codex's configuration",
    },
    ProtectedRow {
        id: "claude-state",
        path: "~/.claude.json",
        kind: PathKind::File,
        protection: Protection::Write,
        what: "Claude Code's state (MCP servers, trusted folders)",
    },
    ProtectedRow {
        id: "seal-dir",
        path: "~/.seal",
        kind: PathKind::Directory,
        protection: Protection::Write,
        what: "seal's directory of keys, trust store and rules",
    },
    ProtectedRow {
        id: "seal-keys",
        path: "~/.seal/keys.json",
        kind: PathKind::File,
        protection: Protection::ReadWrite,
        what: "seal's secret key file",
    },
];

/// A protected path: a file, or a directory and everything below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedPath {
    id: String,
    path: String,
    kind: PathKind,
    protection: Protection,
    what: String,
    shape: Shape,
}

impl ProtectedPath {
    /// The file `path` protected as `protection`: `~/...` below the home directory (and
    /// every other user's), absolute, or relative to the workspace root (and to every
    /// directory above it, where the client may have been started). Names are literal and
    /// compared ignoring ASCII case. `id` names the kind of path in findings and traces;
    /// `what` says what it is.
    ///
    /// # Errors
    ///
    /// [`PatternError`] for an empty path or id, `~user`, a `..` component, a NUL, or too
    /// many components.
    pub fn file(
        id: &str,
        path: &str,
        protection: Protection,
        what: &str,
    ) -> Result<ProtectedPath, PatternError> {
        ProtectedPath::new(id, path, PathKind::File, protection, what)
    }

    /// The directory `path` and everything below it, protected as `protection` (see
    /// [`ProtectedPath::file`]).
    ///
    /// # Errors
    ///
    /// As [`ProtectedPath::file`].
    pub fn directory(
        id: &str,
        path: &str,
        protection: Protection,
        what: &str,
    ) -> Result<ProtectedPath, PatternError> {
        ProtectedPath::new(id, path, PathKind::Directory, protection, what)
    }

    /// A protected path of `kind` (see [`ProtectedPath::file`]).
    ///
    /// # Errors
    ///
    /// As [`ProtectedPath::file`].
    pub fn new(
        id: &str,
        path: &str,
        kind: PathKind,
        protection: Protection,
        what: &str,
    ) -> Result<ProtectedPath, PatternError> {
        check_id(id)?;
        Ok(ProtectedPath {
            id: id.to_owned(),
            path: path.to_owned(),
            kind,
            protection,
            what: what.to_owned(),
            shape: Shape::protected(path, kind == PathKind::Directory)?,
        })
    }

    /// The path of a row of the default table.
    ///
    /// # Errors
    ///
    /// As [`ProtectedPath::file`] (never for [`DEFAULT_PROTECTED`]).
    pub fn of_row(row: &ProtectedRow) -> Result<ProtectedPath, PatternError> {
        ProtectedPath::new(row.id, row.path, row.kind, row.protection, row.what)
    }

    /// The id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The path, as given.
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A file or a directory.
    #[must_use]
    pub fn kind(&self) -> PathKind {
        self.kind
    }

    /// What is protected.
    #[must_use]
    pub fn protection(&self) -> Protection {
        self.protection
    }

    /// What the path is.
    #[must_use]
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Whether a change of the tree `touch` reaches, held below it, may change this path: any
    /// change, unless it changes only names matching globs (a `find -name`) that this file's
    /// own name does not match (a directory holds names no one knows).
    fn changed_by(&self, touch: &Touch<'_>) -> bool {
        match (&touch.changed_names, self.kind, self.shape.last_name()) {
            (Some(globs), PathKind::File, Some(name)) => globs
                .iter()
                .all(|glob| super::glob::matches(glob, name, false)),
            _ => true,
        }
    }
}

/// The deny-only self-protection guard (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfProtection {
    places: Places,
    protected: Vec<ProtectedPath>,
    limits: ShellLimits,
}

/// What the guard found: the protected path, the path the call reaches and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectionFinding {
    /// The protected path's id (`unplaceable` for a path seal cannot place).
    pub id: String,
    /// What the protected path is.
    pub what: String,
    /// What the call does.
    pub act: Act,
    /// The path the call reaches, absolute and lexically normalized (as written when it cannot
    /// be placed).
    pub path: String,
    /// The protected path, as given (the same for a direct read or write).
    pub protected: String,
    /// The tool, or the command's normalized form.
    pub by: String,
}

impl fmt::Display for ProtectionFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = Shown(&self.path);
        let by = Shown(&self.by);
        let what = Shown(&self.what);
        match self.act {
            Act::Unplaced(why) => write!(
                f,
                "self-protection: `{path}` is a path seal cannot place ({why}), with `{by}`"
            ),
            Act::ReadBelow | Act::ChangeBelow => write!(
                f,
                "self-protection: {} `{path}`, which holds `{}` ({what}), with `{by}`",
                self.act,
                Shown(&self.protected)
            ),
            act => write!(f, "self-protection: {act} `{path}` ({what}) with `{by}`"),
        }
    }
}

impl Default for SelfProtection {
    fn default() -> Self {
        SelfProtection::new()
    }
}

impl SelfProtection {
    /// A guard protecting the paths of [`DEFAULT_PROTECTED`], with no workspace root and no
    /// home directory (a `~` path is then read under every home directory seal knows of).
    #[must_use]
    pub fn new() -> SelfProtection {
        SelfProtection {
            protected: DEFAULT_PROTECTED
                .iter()
                .filter_map(|row| {
                    // Every default row is well formed (the unit test below checks it): a row
                    // that were not would leave its path unprotected.
                    let path = ProtectedPath::of_row(row);
                    debug_assert!(path.is_ok(), "default protected row `{}` refused", row.id);
                    path.ok()
                })
                .collect(),
            ..SelfProtection::empty()
        }
    }

    /// A guard protecting nothing (add paths with [`SelfProtection::with_protected`]).
    #[must_use]
    pub fn empty() -> SelfProtection {
        SelfProtection {
            places: Places::new(),
            protected: Vec::new(),
            limits: ShellLimits::default(),
        }
    }

    /// The same guard, reading relative paths against `root` (absolute; anything else is
    /// ignored).
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> SelfProtection {
        self.places = self.places.with_root(root);
        self
    }

    /// The same guard, reading `~` as `home` (absolute; anything else is ignored).
    #[must_use]
    pub fn with_home_dir(mut self, home: &str) -> SelfProtection {
        self.places = self.places.with_home(home);
        self
    }

    /// The same guard, segmenting commands with `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: ShellLimits) -> SelfProtection {
        self.limits = limits;
        self
    }

    /// The same guard, protecting `path` too.
    #[must_use]
    pub fn with_protected(mut self, path: ProtectedPath) -> SelfProtection {
        if !self.protected.contains(&path) {
            self.protected.push(path);
        }
        self
    }

    /// The protected paths, in order.
    #[must_use]
    pub fn protected(&self) -> &[ProtectedPath] {
        &self.protected
    }

    /// The workspace root, when one was given.
    #[must_use]
    pub fn workspace_root(&self) -> Option<&str> {
        self.places.root()
    }

    /// The home directory, when one was given.
    #[must_use]
    pub fn home_dir(&self) -> Option<&str> {
        self.places.home()
    }

    /// The first protected path `call` reaches, if any.
    #[must_use]
    pub fn check_call(&self, call: &ToolCall) -> Option<ProtectionFinding> {
        let places = reading_places(&self.places);
        call_finding(call, &places, &self.limits, &|touches| {
            self.first(touches, &places)
        })
    }

    /// The first protected path the shell command `command` reaches, if any.
    #[must_use]
    pub fn check_command(&self, command: &str) -> Option<ProtectionFinding> {
        let places = reading_places(&self.places);
        command_finding(command, &places, &self.limits, &|touches| {
            self.first(touches, &places)
        })
    }

    /// What the guard finds in a command seal cannot segment (substitutions, redirections,
    /// subshells...): the rules never allow such a command, but a human may approve one, so
    /// every part seal can read is checked: each piece that segments (the command around a
    /// substitution, the substitution's body) and every redirection's file
    /// (spec/shell-segments.md section 9).
    #[must_use]
    pub fn check_unanalysable(&self, command: &str) -> Option<ProtectionFinding> {
        let places = reading_places(&self.places);
        readable_first(command, &places, &self.limits, &mut |touches| {
            self.first(touches, &places)
        })
    }

    fn first(&self, touches: &[Touch<'_>], places: &Places) -> Option<ProtectionFinding> {
        let bases = Bases::of(places);
        touches
            .iter()
            .find_map(|touch| self.check_touch(touch, &bases))
    }

    fn check_touch(&self, touch: &Touch<'_>, bases: &Bases) -> Option<ProtectionFinding> {
        let writes = touch.access.writes();
        let reads = touch.access.reads() && !touch.names_only;
        let guards_reads = self
            .protected
            .iter()
            .any(|p| p.protection == Protection::ReadWrite);
        let found = |protected: &ProtectedPath, act: Act, path: &str| ProtectionFinding {
            id: protected.id.clone(),
            what: protected.what.clone(),
            act,
            path: path.to_owned(),
            protected: protected.path.clone(),
            by: touch.by.clone(),
        };
        for spot in &touch.spots {
            let path = match spot {
                Ok(path) => path,
                Err(why)
                    if writes
                        || touch.changes_below
                        || (guards_reads && (reads || touch.reads_below)) =>
                {
                    return Some(ProtectionFinding {
                        id: "unplaceable".to_owned(),
                        what: why.as_str().to_owned(),
                        act: Act::Unplaced(*why),
                        path: touch.word.to_owned(),
                        protected: String::new(),
                        by: touch.by.clone(),
                    });
                }
                Err(_) => continue,
            };
            let comps = comps(path);
            for protected in self.in_finding_order() {
                let read_protected = protected.protection == Protection::ReadWrite;
                if (writes || (reads && read_protected)) && protected.shape.names(bases, &comps) {
                    let act = if writes { Act::Write } else { Act::Read };
                    return Some(found(protected, act, path));
                }
            }
            for protected in self.in_finding_order() {
                let read_protected = protected.protection == Protection::ReadWrite;
                if touch.changes_below
                    && protected.shape.held_by(bases, &comps)
                    && protected.changed_by(touch)
                {
                    return Some(found(protected, Act::ChangeBelow, path));
                }
                if touch.reads_below && read_protected && protected.shape.held_by(bases, &comps) {
                    return Some(found(protected, Act::ReadBelow, path));
                }
            }
        }
        None
    }

    /// The protected paths in the order a finding names them: the paths added last (the
    /// most specific, as the binary adds them) first, and a relative path (protected in every
    /// directory above the workspace too) after every other.
    fn in_finding_order(&self) -> impl Iterator<Item = &ProtectedPath> {
        let placed = self.protected.iter().rev().filter(|p| !p.shape.is_upward());
        let upward = self.protected.iter().rev().filter(|p| p.shape.is_upward());
        placed.chain(upward)
    }

    /// The refusal for a finding.
    fn refusal(found: &ProtectionFinding) -> (String, Because) {
        let rule = format!("self-protection-guard:{}", found.id);
        (
            found.to_string(),
            Because::rule_and_form(rule, found.by.clone()),
        )
    }
}

impl super::shared::CallCheck for SelfProtection {
    type Finding = ProtectionFinding;

    fn check(&self, call: &ToolCall) -> Option<ProtectionFinding> {
        self.check_call(call)
    }

    fn refusal(found: &ProtectionFinding) -> (String, Because) {
        SelfProtection::refusal(found)
    }
}

/// As a guard: denies a call that reaches a protected path (only after an allow, as every
/// guard; see [`Listener`] for the use before the rules).
impl Guard for SelfProtection {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        let Some(found) = self.check_call(call) else {
            return Ok(Check::Pass);
        };
        let (reason, because) = SelfProtection::refusal(&found);
        Ok(Check::Deny {
            reason: reason.into(),
            because: Some(because),
        })
    }
}

/// As a listener placed first: denies a call that reaches a protected path before any rule can
/// ask about it (so no approval can let it through), and hands every other call on.
impl Listener for SelfProtection {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match self.check_call(call) {
            Some(found) => {
                let (reason, because) = SelfProtection::refusal(&found);
                Ok(Ruling::new(Decision::deny(reason)).because(because))
            }
            None => Ok(next.run()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_row_is_well_formed() {
        assert_eq!(
            SelfProtection::new().protected().len(),
            DEFAULT_PROTECTED.len()
        );
    }
}
