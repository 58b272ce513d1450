//! The guard itself: its context (workspace, home and temporary directories), its two
//! entry points for one command, and its two places in a chain, as a first listener and as a
//! global guard.

use seal_parse::shell::ShellLimits;

use super::forms::Reader;
use super::places::{normalize, Context};
use super::{GuardExplanation, GuardFinding, TEMP_DIRS};
use crate::chain::{Because, Check, Decision, Guard, Listener, Next, Ruling, StageError, ToolCall};

/// The deny-only destructive-command guard (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestructiveGuard {
    context: Context,
    limits: ShellLimits,
}

impl Default for DestructiveGuard {
    fn default() -> Self {
        DestructiveGuard::new()
    }
}

impl DestructiveGuard {
    /// A guard without a workspace or home directory: relative paths that stay in the working
    /// directory are inside it, every absolute path outside a temporary directory is outside,
    /// and `~` is protected.
    #[must_use]
    pub fn new() -> DestructiveGuard {
        DestructiveGuard {
            context: Context {
                workspace: None,
                home: None,
                temp: TEMP_DIRS.iter().map(|dir| (*dir).to_owned()).collect(),
            },
            limits: ShellLimits::default(),
        }
    }

    /// The same guard, reading relative paths against `root` (an absolute path: the agent's
    /// working directory); anything else is ignored, so relative paths stay unplaced.
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> DestructiveGuard {
        if root.starts_with('/') {
            self.context.workspace = Some(normalize(root));
        }
        self
    }

    /// The same guard, reading `~` as `home` (an absolute path; anything else is ignored).
    #[must_use]
    pub fn with_home_dir(mut self, home: &str) -> DestructiveGuard {
        if home.starts_with('/') {
            self.context.home = Some(normalize(home));
        }
        self
    }

    /// The same guard, also treating `dir` (an absolute path) as a temporary directory whose
    /// contents may be deleted.
    #[must_use]
    pub fn with_temp_dir(mut self, dir: &str) -> DestructiveGuard {
        if dir.starts_with('/') {
            self.context.temp.push(normalize(dir));
        }
        self
    }

    /// The same guard, segmenting with `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: ShellLimits) -> DestructiveGuard {
        self.limits = limits;
        self
    }

    /// The workspace root, when one was given.
    #[must_use]
    pub fn workspace_root(&self) -> Option<&str> {
        self.context.workspace.as_deref()
    }

    /// The first pattern `command` matches, if any.
    #[must_use]
    pub fn check_command(&self, command: &str) -> Option<GuardFinding> {
        Reader::new(&self.context, &self.limits).command(command)
    }

    /// What the guard reads in `command`, form by form: the finding on the command's text
    /// (fork bombs, redirections onto devices), then every form of every segment, in the
    /// order [`DestructiveGuard::check_command`] reads them, each with the pattern it fires, if
    /// any (payloads of `find -exec`, `parallel` and `watch` are read within their form).
    /// [`GuardExplanation::first`] is what `check_command` gives.
    ///
    /// ```
    /// use seal_policy::destructive::DestructiveGuard;
    ///
    /// let guard = DestructiveGuard::new().with_workspace_root("/home/dev/project");
    /// let explained = guard.explain_command("ls && sudo git -C . reset --ha");
    /// assert!(explained.forms[0].finding.is_none());
    /// let fired: Vec<_> = explained.forms.iter().filter_map(|f| f.finding.as_ref()).collect();
    /// assert!(fired.iter().all(|f| f.pattern.id == "git-reset-hard"));
    /// assert_eq!(explained.first(), guard.check_command("ls && sudo git -C . reset --ha").as_ref());
    /// ```
    #[must_use]
    pub fn explain_command(&self, command: &str) -> GuardExplanation {
        Reader::new(&self.context, &self.limits).explain(command)
    }
}

impl DestructiveGuard {
    /// The refusal for a finding, naming the pattern, the form and the path.
    fn refusal(found: &GuardFinding) -> (String, Because) {
        let because = Because::rule_and_form(
            format!("destructive-guard:{}", found.pattern.id),
            found.form.clone(),
        );
        (found.to_string(), because)
    }
}

/// As a guard: denies a call whose command matches a pattern (only after an allow, as every
/// guard; see [`Listener`] for the use before the rules).
impl Guard for DestructiveGuard {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        let Some(found) = call
            .command()
            .and_then(|command| self.check_command(command))
        else {
            return Ok(Check::Pass);
        };
        let (reason, because) = DestructiveGuard::refusal(&found);
        Ok(Check::Deny {
            reason: reason.into(),
            because: Some(because),
        })
    }
}

/// As a listener placed first: denies a call whose command matches a pattern before any rule
/// can ask about it (so no approval can let it through), and hands every other call on.
impl Listener for DestructiveGuard {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match call
            .command()
            .and_then(|command| self.check_command(command))
        {
            Some(found) => {
                let (reason, because) = DestructiveGuard::refusal(&found);
                Ok(Ruling::new(Decision::deny(reason)).because(because))
            }
            None => Ok(next.run()),
        }
    }
}

#[cfg(test)]
mod tests {
    use seal_parse::json::{parse, JsonLimits};
    use seal_record::SealedCall;

    use super::*;
    use crate::chain::{Chain, Evaluated, Scope, Verdict};
    use crate::destructive::forms::segmented;

    fn guard() -> DestructiveGuard {
        DestructiveGuard::new()
            .with_workspace_root("/home/dev/project")
            .with_home_dir("/home/dev")
    }

    fn call(command: &str) -> ToolCall {
        let arguments = serde_json::json!({ "command": command }).to_string();
        let arguments = parse(arguments.as_bytes(), &JsonLimits::default()).unwrap();
        ToolCall::new(
            "s1",
            None,
            SealedCall::new("c1", "Bash", &arguments).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn each_stage_of_a_decision_segments_the_command_once() {
        let mut chain = Chain::new(Decision::Allow);
        chain
            .prepend("destructive-commands", Scope::everywhere(), guard())
            .unwrap();
        chain
            .add_global_guard("destructive-guard", guard())
            .unwrap();

        // Allowed: the listener reads the command and its payload line once, then the guard.
        let command = r"ls && find / . -exec watch 'ls -l' \; && watch 'ls -l'";
        let allowed = call(command);
        let (verdict, seen) = segmented(|| chain.evaluate(&allowed));
        assert!(matches!(verdict, Evaluated::Decided(Verdict::Allow(_))));
        assert_eq!(seen, [command, "ls -l", command, "ls -l"]);

        // Denied by the listener: the guard stage never runs.
        let command = "git reset --hard && rm -rf ~";
        let denied = call(command);
        let (verdict, seen) = segmented(|| chain.evaluate(&denied));
        assert!(matches!(verdict, Evaluated::Decided(Verdict::Deny(_))));
        assert_eq!(seen, [command]);
    }
}
