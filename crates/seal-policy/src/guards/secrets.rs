//! The secret-read guard: a deny-only guard that keeps well-known credential files (SSH and
//! GnuPG keys, cloud credentials, package-registry tokens, `.env` files...) from being read
//! by any tool call, whatever the rules allow and whatever a human approves
//! (spec/secret-guard.md).
//!
//! A file is read by a file tool (`Read`, `Edit`...), by a search (`Grep`, `Glob`) of a
//! directory holding it, and by every program of a shell command that reads it: the programs
//! seal has path models for as their models say (`cat`, `cp`'s sources, `grep`'s files...,
//! but not `ssh -i KEY`, which uses a key without showing it), every program seal has no model
//! for (each of its words may be a file it reads), and a recursive reader of a directory
//! holding it (`grep -r`, `rg`, `tar`, `cp -r`, `find`...).
//!
//! ```
//! use seal_policy::guards::secrets::SecretGuard;
//!
//! let guard = SecretGuard::new()
//!     .with_workspace_root("/home/dev/project")
//!     .with_home_dir("/home/dev");
//! let found = guard.check_command("cat ~/.ssh/id_rsa").unwrap();
//! assert_eq!(found.id, "ssh-keys");
//! assert_eq!(found.path, "/home/dev/.ssh/id_rsa");
//! assert!(guard.check_command("cat ~/.ssh/id_rsa.pub").is_none());
//! assert_eq!(guard.check_command("tar czf /tmp/x.tgz ~").unwrap().id, "ssh-keys");
//! assert_eq!(guard.check_command("cd src && cat ../.env").unwrap().id, "dotenv");
//! assert!(guard.check_command("cat .env.example").is_none());
//! ```

use std::fmt;

use seal_parse::shell::ShellLimits;

use super::reach::{call_finding, command_finding, readable_first, Touch};
use super::shape::{comps, excepted, Bases, Shape};
use super::{check_id, reading_places, Act, PatternError, Shown};
use crate::chain::{Because, Check, Decision, Guard, Listener, Next, Ruling, StageError, ToolCall};
use crate::paths::Places;

/// A row of the default table ([`DEFAULT_SECRETS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecretRow {
    /// The pattern's id (what `--allow-secret` names).
    pub id: &'static str,
    /// The paths it covers (patterns, see [`SecretPattern::new`]).
    pub paths: &'static [&'static str],
    /// Names below them that are not secrets (globs over the last component).
    pub except: &'static [&'static str],
    /// What such a file is, as a finding says it.
    pub what: &'static str,
}

/// The well-known credential locations the guard covers by default.
pub const DEFAULT_SECRETS: &[SecretRow] = &[
    SecretRow {
        id: "ssh-keys",
        paths: &["~/.ssh/**"],
        except: &["*.pub", "known_hosts*"],
        what: "an SSH private key",
    },
    SecretRow {
        id: "gnupg",
        paths: &["~/.gnupg/**"],
        except: &[],
        what: "a GnuPG key",
    },
    SecretRow {
        id: "aws",
        paths: &[
            "~/.aws/credentials",
            "~/.aws/sso/cache/**",
            "~/.aws/cli/cache/**",
        ],
        except: &[],
        what: "AWS credentials",
    },
    SecretRow {
        id: "gcloud",
        paths: &["~/.config/gcloud/**"],
        except: &[],
        what: "Google Cloud credentials",
    },
    SecretRow {
        id: "azure",
        paths: &["~/.azure/**"],
        except: &[],
        what: "Azure credentials",
    },
    SecretRow {
        id: "kube-config",
        paths: &["~/.kube/config"],
        except: &[],
        what: "Kubernetes credentials",
    },
    SecretRow {
        id: "netrc",
        paths: &["~/.netrc", "~/_netrc"],
        except: &[],
        what: "network login passwords",
    },
    SecretRow {
        id: "docker-config",
        paths: &["~/.docker/config.json"],
        except: &[],
        what: "Docker registry credentials",
    },
    SecretRow {
        id: "npmrc",
        paths: &["~/.npmrc"],
        except: &[],
        what: "an npm registry token",
    },
    SecretRow {
        id: "pypirc",
        paths: &["~/.pypirc"],
        except: &[],
        what: "a PyPI token",
    },
    SecretRow {
        id: "cargo-credentials",
        paths: &["~/.cargo/credentials", "~/.cargo/credentials.toml"],
        except: &[],
        what: "a crates.io token",
    },
    SecretRow {
        id: "gh-hosts",
        paths: &["~/.config/gh/hosts.yml"],
        except: &[],
        what: "a GitHub CLI token",
    },
    SecretRow {
        id: "git-credentials",
        paths: &["~/.git-credentials", "~/.config/git/credentials"],
        except: &[],
        what: "stored git credentials",
    },
    SecretRow {
        id: "terraform-credentials",
        paths: &["~/.terraform.d/credentials.tfrc.json"],
        except: &[],
        what: "a Terraform Cloud token",
    },
    SecretRow {
        id: "vault-token",
        paths: &["~/.vault-token"],
        except: &[],
        what: "a Vault token",
    },
    SecretRow {
        id: "dotenv",
        paths: &[".env", ".env.*"],
        except: &[".env.example", ".env.sample", ".env.template", ".env.dist"],
        what: "an environment file with secrets",
    },
];

/// What the guard reports for a secret the operator listed (`--secret`).
pub const LISTED_SECRET: &str = "a secret listed by the operator";

/// One pattern of the guard: an id, the paths it covers, the names below them that are not
/// secrets, and what such a file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretPattern {
    id: String,
    paths: Vec<String>,
    except: Vec<String>,
    what: String,
    shapes: Vec<Shape>,
}

impl SecretPattern {
    /// A pattern `id` covering `paths`, except names matching a glob of `except`. A path is
    /// `~/...` (below the home directory, and every other user's), `/...` (absolute), a path
    /// with a `/` (below the workspace root), or one name (`.env`, `*.pem`: a file of that
    /// name in any directory). Names are globs (`*`, `?`, `[...]`), matched ignoring ASCII
    /// case; `**` as a whole component is any number of names (at the end: at least one, so
    /// `~/.ssh/**` is everything below `~/.ssh`).
    ///
    /// # Errors
    ///
    /// [`PatternError`] for an empty path or id, `~user`, a `..` component, a NUL, or too
    /// many components.
    pub fn new(
        id: &str,
        paths: &[&str],
        except: &[&str],
        what: &str,
    ) -> Result<SecretPattern, PatternError> {
        check_id(id)?;
        if paths.is_empty() {
            return Err(PatternError::Empty);
        }
        let shapes = paths
            .iter()
            .map(|path| Shape::pattern(path))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SecretPattern {
            id: id.to_owned(),
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            except: except.iter().map(|e| (*e).to_owned()).collect(),
            what: what.to_owned(),
            shapes,
        })
    }

    /// A pattern the operator lists: its id is the path itself, and it says
    /// [`LISTED_SECRET`].
    ///
    /// # Errors
    ///
    /// As [`SecretPattern::new`].
    pub fn listed(path: &str) -> Result<SecretPattern, PatternError> {
        SecretPattern::new(path, &[path], &[], LISTED_SECRET)
    }

    /// The pattern of a row of the default table.
    ///
    /// # Errors
    ///
    /// As [`SecretPattern::new`] (never for [`DEFAULT_SECRETS`]).
    pub fn of_row(row: &SecretRow) -> Result<SecretPattern, PatternError> {
        SecretPattern::new(row.id, row.paths, row.except, row.what)
    }

    /// The id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The paths covered, as given.
    #[must_use]
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The names that are not secrets.
    #[must_use]
    pub fn except(&self) -> &[String] {
        &self.except
    }

    /// What such a file is.
    #[must_use]
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Whether the pattern covers the path `comps`.
    fn names(&self, bases: &Bases, comps: &[super::shape::Comp<'_>]) -> bool {
        self.shapes.iter().any(|shape| shape.names(bases, comps)) && !excepted(comps, &self.except)
    }

    /// The first path of the pattern that `comps` holds strictly below it.
    fn held_by(&self, bases: &Bases, comps: &[super::shape::Comp<'_>]) -> Option<&str> {
        self.shapes
            .iter()
            .zip(&self.paths)
            .find(|(shape, _)| shape.held_by(bases, comps))
            .map(|(_, path)| path.as_str())
    }
}

/// The deny-only secret-read guard (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretGuard {
    places: Places,
    patterns: Vec<SecretPattern>,
    limits: ShellLimits,
}

/// What the guard found: the pattern, the path and what the call does to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// The pattern's id (`unplaceable` for a path seal cannot place).
    pub id: String,
    /// What the file is.
    pub what: String,
    /// What the call does: [`Act::Read`], [`Act::ReadBelow`] or [`Act::Unplaced`].
    pub act: Act,
    /// The path, absolute and lexically normalized (as written when it cannot be placed).
    pub path: String,
    /// For [`Act::ReadBelow`], the pattern's path the directory holds.
    pub held: Option<String>,
    /// The tool, or the command's normalized form, that reads it.
    pub by: String,
}

impl fmt::Display for SecretFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = Shown(&self.path);
        let by = Shown(&self.by);
        match (self.act, &self.held) {
            (Act::Unplaced(why), _) => write!(
                f,
                "secret-guard: reading `{path}`, a path seal cannot place ({why}), with `{by}`"
            ),
            (Act::ReadBelow, Some(held)) => write!(
                f,
                "secret-guard: reading everything below `{path}`, which holds `{}` ({}, pattern `{}`), with `{by}`",
                Shown(held),
                Shown(&self.what),
                Shown(&self.id)
            ),
            (act, _) => write!(
                f,
                "secret-guard: {act} `{path}` ({}, pattern `{}`) with `{by}`",
                Shown(&self.what),
                Shown(&self.id)
            ),
        }
    }
}

impl Default for SecretGuard {
    fn default() -> Self {
        SecretGuard::new()
    }
}

impl SecretGuard {
    /// A guard with the patterns of [`DEFAULT_SECRETS`], no workspace root and no home
    /// directory (a `~` path is then read under every home directory seal knows of).
    #[must_use]
    pub fn new() -> SecretGuard {
        SecretGuard {
            patterns: DEFAULT_SECRETS
                .iter()
                .filter_map(|row| {
                    // Every default row is well formed (the unit test below checks it): a row
                    // that were not would leave its files unguarded.
                    let pattern = SecretPattern::of_row(row);
                    debug_assert!(pattern.is_ok(), "default secret row `{}` refused", row.id);
                    pattern.ok()
                })
                .collect(),
            ..SecretGuard::empty()
        }
    }

    /// A guard with no pattern (add them with [`SecretGuard::with_pattern`]).
    #[must_use]
    pub fn empty() -> SecretGuard {
        SecretGuard {
            places: Places::new(),
            patterns: Vec::new(),
            limits: ShellLimits::default(),
        }
    }

    /// The same guard, reading relative paths against `root` (absolute; anything else is
    /// ignored).
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> SecretGuard {
        self.places = self.places.with_root(root);
        self
    }

    /// The same guard, reading `~` as `home` (absolute; anything else is ignored).
    #[must_use]
    pub fn with_home_dir(mut self, home: &str) -> SecretGuard {
        self.places = self.places.with_home(home);
        self
    }

    /// The same guard, segmenting commands with `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: ShellLimits) -> SecretGuard {
        self.limits = limits;
        self
    }

    /// The same guard with `pattern` too (replacing a pattern of the same id).
    #[must_use]
    pub fn with_pattern(mut self, pattern: SecretPattern) -> SecretGuard {
        self.patterns.retain(|kept| kept.id != pattern.id);
        self.patterns.push(pattern);
        self
    }

    /// The same guard without the pattern `id` (unchanged when it has none: see
    /// [`SecretGuard::pattern`]).
    #[must_use]
    pub fn without_pattern(mut self, id: &str) -> SecretGuard {
        self.patterns.retain(|kept| kept.id != id);
        self
    }

    /// The pattern `id`, when the guard has it.
    #[must_use]
    pub fn pattern(&self, id: &str) -> Option<&SecretPattern> {
        self.patterns.iter().find(|pattern| pattern.id == id)
    }

    /// The patterns, in order.
    #[must_use]
    pub fn patterns(&self) -> &[SecretPattern] {
        &self.patterns
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

    /// The first secret `call` reads, if any.
    #[must_use]
    pub fn check_call(&self, call: &ToolCall) -> Option<SecretFinding> {
        let places = reading_places(&self.places);
        call_finding(call, &places, &self.limits, &|touches| {
            self.first(touches, &places)
        })
    }

    /// The first secret the shell command `command` reads, if any.
    #[must_use]
    pub fn check_command(&self, command: &str) -> Option<SecretFinding> {
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
    pub fn check_unanalysable(&self, command: &str) -> Option<SecretFinding> {
        let places = reading_places(&self.places);
        readable_first(command, &places, &self.limits, &mut |touches| {
            self.first(touches, &places)
        })
    }

    fn first(&self, touches: &[Touch<'_>], places: &Places) -> Option<SecretFinding> {
        let bases = Bases::of(places);
        touches
            .iter()
            .find_map(|touch| self.check_touch(touch, &bases))
    }

    fn check_touch(&self, touch: &Touch<'_>, bases: &Bases) -> Option<SecretFinding> {
        let reads = touch.access.reads() && !touch.names_only;
        if !reads && !touch.reads_below {
            return None;
        }
        let found =
            |pattern: &SecretPattern, act: Act, path: &str, held: Option<&str>| SecretFinding {
                id: pattern.id.clone(),
                what: pattern.what.clone(),
                act,
                path: path.to_owned(),
                held: held.map(str::to_owned),
                by: touch.by.clone(),
            };
        for spot in &touch.spots {
            let path = match spot {
                Ok(path) => path,
                Err(why) => {
                    return Some(SecretFinding {
                        id: "unplaceable".to_owned(),
                        what: why.as_str().to_owned(),
                        act: Act::Unplaced(*why),
                        path: touch.word.to_owned(),
                        held: None,
                        by: touch.by.clone(),
                    });
                }
            };
            let comps = comps(path);
            if reads {
                if let Some(pattern) = self.patterns.iter().find(|p| p.names(bases, &comps)) {
                    return Some(found(pattern, Act::Read, path, None));
                }
            }
            if touch.reads_below {
                for pattern in &self.patterns {
                    if let Some(held) = pattern.held_by(bases, &comps) {
                        return Some(found(pattern, Act::ReadBelow, path, Some(held)));
                    }
                }
            }
        }
        None
    }

    /// The refusal for a finding.
    fn refusal(found: &SecretFinding) -> (String, Because) {
        let because =
            Because::rule_and_form(format!("secret-guard:{}", found.id), found.by.clone());
        (found.to_string(), because)
    }
}

impl super::shared::CallCheck for SecretGuard {
    type Finding = SecretFinding;

    fn check(&self, call: &ToolCall) -> Option<SecretFinding> {
        self.check_call(call)
    }

    fn refusal(found: &SecretFinding) -> (String, Because) {
        SecretGuard::refusal(found)
    }
}

/// As a guard: denies a call that reads a secret (only after an allow, as every guard; see
/// [`Listener`] for the use before the rules).
impl Guard for SecretGuard {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        let Some(found) = self.check_call(call) else {
            return Ok(Check::Pass);
        };
        let (reason, because) = SecretGuard::refusal(&found);
        Ok(Check::Deny {
            reason: reason.into(),
            because: Some(because),
        })
    }
}

/// As a listener placed first: denies a call that reads a secret before any rule can ask about
/// it (so no approval can let it through), and hands every other call on.
impl Listener for SecretGuard {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match self.check_call(call) {
            Some(found) => {
                let (reason, because) = SecretGuard::refusal(&found);
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
        assert_eq!(SecretGuard::new().patterns().len(), DEFAULT_SECRETS.len());
    }
}
