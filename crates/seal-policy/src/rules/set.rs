//! A rule set: its rules with their effects and where they were written, and what evaluating
//! them needs (limits, the workspace root, the home directory, the added directories, the
//! client's default mode).

use std::sync::Arc;

use crate::paths::{Cwd, Places, MAX_ADDED_DIRS};

use super::index::RuleIndex;
use super::model::RuleModel;
use super::read_only::ClientDefault;
use super::rule::{Rule, RuleSyntaxError, Specifier};
use super::{Effect, RuleLimits};

/// Where a rule came from in a rule file: 1-based line and column (columns count Unicode
/// scalar values) and the byte offset of the rule's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Byte offset.
    pub offset: usize,
}

/// One rule of a set, as written and as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    pub(super) text: Arc<str>,
    pub(super) effect: Effect,
    pub(super) rule: Rule,
    pub(super) location: Option<Location>,
    /// The reason a deny or an ask by this rule gives, shared by every ruling that cites it.
    pub(super) reason: Arc<str>,
    /// For a deny or ask command rule naming a modelled program: the rule read by the model.
    pub(super) model: Option<RuleModel>,
}

impl RuleEntry {
    /// The rule as written.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its effect.
    #[must_use]
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// The parsed rule.
    #[must_use]
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// Where it was written, for a rule loaded from a file.
    #[must_use]
    pub fn location(&self) -> Option<Location> {
        self.location
    }
}

/// A set of rules with their effects, and the context needed to evaluate them (limits, the
/// workspace root for absolute paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    pub(super) rules: Vec<RuleEntry>,
    pub(super) limits: RuleLimits,
    pub(super) workspace_root: Option<String>,
    pub(super) home_dir: Option<String>,
    /// Directories counted as inside the workspace, as given (`~/x` and relative ones are read
    /// against the home directory and the root once known).
    added_dirs: Vec<String>,
    /// The root, the home directory and the added directories, for placing paths.
    pub(super) places: Places,
    /// What the client allows with no rule.
    pub(super) client_default: ClientDefault,
    /// Whether a deny or ask rule has a specifier seal does not interpret.
    pub(super) uninterpreted: bool,
    /// Whether a deny or ask rule naming `Read` or `Edit` has a path specifier (so that what
    /// commands read and write is checked against it).
    pub(super) read_guarded: bool,
    /// The deny and ask rules with a path specifier that name `Read`, and those that name
    /// `Edit`, by index: what a path a command reads, or writes, is matched against.
    pub(super) path_rules: [Vec<usize>; 2],
    /// Members of a rule file's `permissions` that no rule came from (see
    /// [`RuleSet::ignored_members`]).
    ignored: Vec<(String, Location)>,
    /// Which of the first [`MASKED`] rules name a tool and may match a program.
    pub(super) index: RuleIndex,
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::new(RuleLimits::DEFAULT)
    }
}

impl RuleSet {
    /// An empty set (every call evaluates to [`Evaluation::NoMatch`](super::Evaluation::NoMatch), except unanalysable
    /// commands, which ask).
    #[must_use]
    pub fn new(limits: RuleLimits) -> RuleSet {
        RuleSet {
            rules: Vec::new(),
            limits,
            workspace_root: None,
            home_dir: None,
            added_dirs: Vec::new(),
            places: Places::new(),
            client_default: ClientDefault::Nothing,
            uninterpreted: false,
            read_guarded: false,
            path_rules: [Vec::new(), Vec::new()],
            ignored: Vec::new(),
            index: RuleIndex::default(),
        }
    }

    /// The same set, placing absolute paths under `root` (an absolute path) relative to it
    /// before matching path rules. Without a root, every absolute path is outside the
    /// workspace: path rules never allow it and the evaluation asks.
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> RuleSet {
        self.workspace_root = Some(root.to_owned());
        self.replace_places();
        self
    }

    /// The same set, reading `~/` in path rules as `home` (an absolute path). Without a home
    /// directory, an allow rule `~/...` allows nothing and a deny or ask rule `~/x` matches
    /// `x` below any directory (`Read(~/.ssh/**)` denies `/home/anyone/.ssh/id_rsa`).
    #[must_use]
    pub fn with_home_dir(mut self, home: &str) -> RuleSet {
        self.home_dir = Some(home.to_owned());
        self.replace_places();
        self
    }

    /// The same set, counting `dir` as inside the workspace besides the root, as Claude Code's
    /// `additionalDirectories` (a rule file's own are read at load): a path in it is allowed
    /// like a path in the workspace. `~/x` is read in the home directory and a relative
    /// directory against the root, once they are known; one that cannot be placed adds
    /// nothing. At most [`MAX_ADDED_DIRS`] are kept.
    #[must_use]
    pub fn with_added_dir(mut self, dir: &str) -> RuleSet {
        self.push_added_dir(dir);
        self
    }

    pub(super) fn push_added_dir(&mut self, dir: &str) {
        if self.added_dirs.len() < MAX_ADDED_DIRS {
            self.added_dirs.push(dir.to_owned());
            self.replace_places();
        }
    }

    /// The directories paths are placed against.
    #[must_use]
    pub fn places(&self) -> &Places {
        &self.places
    }

    fn replace_places(&mut self) {
        let mut places = Places::new();
        if let Some(root) = &self.workspace_root {
            places = places.with_root(root);
        }
        if let Some(home) = &self.home_dir {
            places = places.with_home(home);
        }
        for dir in &self.added_dirs {
            if let Ok(absolute) = places.absolute(dir, Cwd::Root) {
                places = places.with_added(&absolute);
            }
        }
        self.places = places;
    }

    /// The same set, allowing what `default` allows with no rule (after deny and ask rules,
    /// never over them): with [`ClientDefault::ClaudeCode`], read-only commands and reads
    /// inside the workspace, as Claude Code's default permission mode does
    /// (spec/policy-rules.md, "The client's default mode"). Such an allow evaluates to
    /// [`Evaluation::ClientDefault`](super::Evaluation::ClientDefault).
    ///
    /// ```
    /// use seal_policy::rules::{ClientDefault, Effect, RuleSet, Subject};
    ///
    /// let mut rules = RuleSet::default();
    /// rules.push(Effect::Allow, "Bash(touch:*)")?;
    /// let rules = rules.with_client_default(ClientDefault::ClaudeCode);
    /// let run = |c| rules.evaluate("Bash", Subject::Command(c)).effect();
    /// assert_eq!(run("git status && touch t"), Some(Effect::Allow));
    /// assert_eq!(run("git status && mkdir d"), None);
    /// assert_eq!(run("cat /etc/passwd"), None);
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    #[must_use]
    pub fn with_client_default(mut self, default: ClientDefault) -> RuleSet {
        self.client_default = default;
        self
    }

    /// What the client allows with no rule ([`RuleSet::with_client_default`]).
    #[must_use]
    pub fn client_default(&self) -> ClientDefault {
        self.client_default
    }

    /// Whether a home directory was given ([`RuleSet::with_home_dir`]).
    #[must_use]
    pub fn knows_home(&self) -> bool {
        self.home_dir.is_some()
    }

    /// Parses `text` and adds it with `effect`.
    ///
    /// # Errors
    ///
    /// [`RuleSyntaxError`] when the text is not a rule, is longer than
    /// [`RuleLimits::max_rule_bytes`], or the set already holds [`RuleLimits::max_rules`].
    pub fn push(&mut self, effect: Effect, text: &str) -> Result<(), RuleSyntaxError> {
        self.push_at(effect, text, None)
    }

    pub(super) fn push_at(
        &mut self,
        effect: Effect,
        text: &str,
        location: Option<Location>,
    ) -> Result<(), RuleSyntaxError> {
        if self.rules.len() >= self.limits.max_rules {
            return Err(RuleSyntaxError::TooManyRules {
                max: self.limits.max_rules,
            });
        }
        if text.len() > self.limits.max_rule_bytes {
            return Err(RuleSyntaxError::TooLong {
                len: text.len(),
                max: self.limits.max_rule_bytes,
            });
        }
        let rule = Rule::parse(text)?;
        if effect != Effect::Allow && matches!(rule.specifier(), Specifier::Uninterpreted(_)) {
            self.uninterpreted = true;
        }
        if effect != Effect::Allow && matches!(rule.specifier(), Specifier::Path(_)) {
            let index = self.rules.len();
            for (slot, tool) in self.path_rules.iter_mut().zip(["Read", "Edit"]) {
                if rule.names(effect, tool) {
                    slot.push(index);
                    self.read_guarded = true;
                }
            }
        }
        let model = match (effect, rule.specifier()) {
            (Effect::Deny | Effect::Ask, Specifier::Command(pattern)) => RuleModel::of(pattern),
            _ => None,
        };
        let reason = match effect {
            Effect::Deny => format!("denied by rule `{text}`"),
            Effect::Ask => format!("rule `{text}` asks"),
            Effect::Allow => format!("allowed by rule `{text}`"),
        };
        self.rules.push(RuleEntry {
            text: Arc::from(text),
            effect,
            rule,
            location,
            reason: Arc::from(reason),
            model,
        });
        self.index.add(&self.rules, self.rules.len() - 1);
        Ok(())
    }

    /// The rules, in the order they were added (`allow`, then `ask`, then `deny` for a file).
    #[must_use]
    pub fn rules(&self) -> &[RuleEntry] {
        &self.rules
    }

    /// The members of a rule file's `permissions` object other than `allow`, `ask`, `deny` and
    /// those Claude Code reads for other purposes (`additionalDirectories`, `defaultMode`,
    /// `disableBypassPermissionsMode`), with where each was written: no rule came from them
    /// (a misspelt `deny` protects nothing). [`lint`](super::lint) reports each.
    #[must_use]
    pub fn ignored_members(&self) -> &[(String, Location)] {
        &self.ignored
    }

    pub(super) fn ignore_member(&mut self, key: &str, location: Location) {
        self.ignored.push((key.to_owned(), location));
    }

    /// The limits.
    #[must_use]
    pub fn limits(&self) -> &RuleLimits {
        &self.limits
    }
}
