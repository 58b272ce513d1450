//! A rule set and its evaluation on one call: deny beats ask beats allow, commands per segment.

use std::fmt;
use std::sync::Arc;

use seal_parse::shell::{
    carried_code, segment_into, CarriedCode, Form, LauncherRef, NormalizedForms, SegmentBuffer,
    SegmentRef, SegmentsRef, Words,
};

use crate::chain::{url_host, Because, Reason, Ruling, Subject};
use crate::paths::{
    command_paths, Access, CommandPath, Cwd, Places, ReadPlace, Whereabouts, MAX_ADDED_DIRS,
};

use super::evaluation::{AskCause, Evaluation, FormKind, Input, Match, Site, Unanalysed};
use super::model::{model_of, RuleModel};
use super::path::{place, Placed, SplitPath};
use super::read_only::{self, ClientDefault};
use super::rule::{FieldKind, Rule, RuleSyntaxError, Specifier};
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
    text: Arc<str>,
    effect: Effect,
    rule: Rule,
    location: Option<Location>,
    /// The reason a deny or an ask by this rule gives, shared by every ruling that cites it.
    reason: Arc<str>,
    /// For a deny or ask command rule naming a modelled program: the rule read by the model.
    model: Option<RuleModel>,
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
    rules: Vec<RuleEntry>,
    limits: RuleLimits,
    workspace_root: Option<String>,
    home_dir: Option<String>,
    /// Directories counted as inside the workspace, as given (`~/x` and relative ones are read
    /// against the home directory and the root once known).
    added_dirs: Vec<String>,
    /// The root, the home directory and the added directories, for placing paths.
    places: Places,
    /// What the client allows with no rule.
    client_default: ClientDefault,
    /// Whether a deny or ask rule has a specifier seal does not interpret.
    uninterpreted: bool,
    /// Whether a deny or ask rule naming `Read` or `Edit` has a path specifier (so that what
    /// commands read and write is checked against it).
    read_guarded: bool,
    /// The deny and ask rules with a path specifier that name `Read`, and those that name
    /// `Edit`, by index: what a path a command reads, or writes, is matched against.
    path_rules: [Vec<usize>; 2],
    /// Members of a rule file's `permissions` that no rule came from (see
    /// [`RuleSet::ignored_members`]).
    ignored: Vec<(String, Location)>,
    /// Which of the first [`MASKED`] rules name a tool and may match a program.
    index: RuleIndex,
}

/// Most tool names [`RuleIndex`] keeps the rules of.
const MAX_INDEXED_TOOLS: usize = 16;

/// Bit masks over the first [`MASKED`] rules, kept up to date as rules are added, so that an
/// evaluation selects the rules that can apply with bit operations. Each mask is exactly what
/// testing the rules one by one gives: the index only skips tests that cannot succeed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RuleIndex {
    /// Tool names some rule names literally (at most [`MAX_INDEXED_TOOLS`]), each with the
    /// rules naming it ([`Rule::names`]); another tool name is worked out rule by rule.
    tools: Vec<(Box<str>, u64)>,
    /// Program names, sorted by length then bytes (see [`by_length`]), each with the command rules that can match only a form whose
    /// program is that name: a pattern without `*` compares its first word with the form's
    /// program exactly, and a rule read by a model matches only a form its model reads.
    programs: Vec<(Box<str>, u64)>,
    /// Command rules that may match a form of any program (a `*` in the pattern, or no word).
    any_program: u64,
    /// The rules of each effect, in the order of [`Effect::ALL`].
    effects: [u64; 3],
    /// The rules read by a program model.
    modelled: u64,
    /// Whether a rule from [`MASKED`] on is read by a program model.
    modelled_beyond: bool,
}

/// Orders names by length first, so that a search compares bytes only of names as long as
/// the one it looks for.
fn by_length(name: &str, program: &str) -> std::cmp::Ordering {
    name.len()
        .cmp(&program.len())
        .then_with(|| name.as_bytes().cmp(program.as_bytes()))
}

/// The position of `effect` in [`Effect::ALL`].
fn effect_slot(effect: Effect) -> usize {
    match effect {
        Effect::Allow => 0,
        Effect::Ask => 1,
        Effect::Deny => 2,
    }
}

/// The set bits of a mask, lowest first.
#[derive(Clone, Copy)]
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let at = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        usize::try_from(at).ok()
    }
}

impl RuleIndex {
    /// Records rule `index` (below [`MASKED`]), after `rules` (which ends with it).
    fn add(&mut self, rules: &[RuleEntry], index: usize) {
        let Some(entry) = rules.get(index) else {
            return;
        };
        if index >= MASKED {
            self.modelled_beyond |= entry.model.is_some();
            return;
        }
        let bit = 1u64 << index;
        if let Some(mask) = self.effects.get_mut(effect_slot(entry.effect)) {
            *mask |= bit;
        }
        if entry.model.is_some() {
            self.modelled |= bit;
        }
        for (tool, mask) in &mut self.tools {
            if entry.rule.names(entry.effect, tool) {
                *mask |= bit;
            }
        }
        if let super::ToolPattern::Exact(name) = entry.rule.tool() {
            let known = self.tools.iter().any(|(tool, _)| **tool == **name);
            if !known && self.tools.len() < MAX_INDEXED_TOOLS {
                let mut mask = 0;
                for (at, e) in rules.iter().enumerate().take(MASKED) {
                    if e.rule.names(e.effect, name) {
                        mask |= 1 << at;
                    }
                }
                self.tools.push((name.as_str().into(), mask));
            }
        }
        let Specifier::Command(pattern) = entry.rule.specifier() else {
            return;
        };
        let first = pattern.words().first().filter(|_| !pattern.has_wildcard());
        let Some(first) = first else {
            self.any_program |= bit;
            return;
        };
        let modelled = entry
            .model
            .as_ref()
            .map_or(&[][..], |_| seal_parse::shell::model_names(first));
        for program in std::iter::once(first.as_str()).chain(modelled.iter().copied()) {
            match self
                .programs
                .binary_search_by(|(name, _)| by_length(name, program))
            {
                Ok(at) => {
                    if let Some((_, mask)) = self.programs.get_mut(at) {
                        *mask |= bit;
                    }
                }
                Err(at) => self.programs.insert(at, (program.into(), bit)),
            }
        }
    }

    /// The rules naming `tool`, if the index keeps that name.
    fn tool(&self, tool: &str) -> Option<u64> {
        self.tools
            .iter()
            .find(|(name, _)| **name == *tool)
            .map(|(_, mask)| *mask)
    }

    /// The command rules that may match a form whose program is `program`.
    fn candidates(&self, program: &str) -> u64 {
        let named = self
            .programs
            .binary_search_by(|(name, _)| by_length(name, program))
            .ok()
            .and_then(|at| self.programs.get(at))
            .map_or(0, |(_, mask)| *mask);
        named | self.any_program
    }
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::new(RuleLimits::DEFAULT)
    }
}

impl RuleSet {
    /// An empty set (every call evaluates to [`Evaluation::NoMatch`], except unanalysable
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
    /// [`Evaluation::ClientDefault`].
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

    /// Evaluates the rules on a call of `tool` whose typed field is `subject`.
    ///
    /// - **deny** if a deny rule naming the tool matches: for a command, any form
    ///   (canonical, env-stripped, basename, wrapper-stripped, normalized, and those between
    ///   wrappers) of any segment, or any suffix of a payload's launcher words;
    /// - else **ask** if an ask rule matches the same way, or if the field cannot be analysed
    ///   (an unanalysable command always; an unplaceable path or URL, or a missing field, when
    ///   a rule with a specifier names the tool);
    /// - else **allow** if allow rules cover the call: for a command, every segment's
    ///   canonical form and the full words of every launcher, each matched by some allow rule;
    /// - else no match.
    ///
    /// ```
    /// use seal_policy::rules::{Effect, RuleSet, Subject};
    ///
    /// let mut rules = RuleSet::default();
    /// rules.push(Effect::Allow, "Bash(git log:*)")?;
    /// rules.push(Effect::Deny, "Bash(rm:*)")?;
    /// let run = |c| rules.evaluate("Bash", Subject::Command(c)).effect();
    /// assert_eq!(run("git log --oneline"), Some(Effect::Allow));
    /// assert_eq!(run("git log && sudo rm -rf t"), Some(Effect::Deny));
    /// assert_eq!(run("git log $(rm -rf t)"), Some(Effect::Deny));
    /// assert_eq!(run("git log $(date)"), Some(Effect::Ask));
    /// assert_eq!(run("git log && ls"), None);
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    #[must_use]
    pub fn evaluate(&self, tool: &str, subject: Subject<'_>) -> Evaluation {
        let mut buffer = SegmentBuffer::new();
        let rules = self.applicable(tool);
        let field = self.field(rules, subject, Input::Submitted, &mut buffer);
        let mut allowed = Vec::new();
        let scan = self.scan(rules, &field, Input::Submitted, &mut |hit: Hit<'_>| {
            allowed.push(hit.to_match());
            true
        });
        owned(combine(scan, None), allowed)
    }

    /// The chain's rules listener: the ruling [`RuleSet::evaluate`] leads to (deny, ask, or
    /// allow explained by its first match; `None` when no rule decides), segmenting into
    /// `buffer` and writing the matched form into the pooled string `form`. For a command,
    /// deciding allocates nothing once both have the room the command needs, unless the
    /// command is unanalysable (the ask then carries the reason).
    pub(crate) fn decide(
        &self,
        tool: &str,
        subject: Subject<'_>,
        buffer: &mut SegmentBuffer,
        form: &mut Option<Arc<String>>,
    ) -> Option<Ruling> {
        let rules = self.applicable(tool);
        let field = self.field(rules, subject, Input::Submitted, buffer);
        let mut first = None;
        let scan = self.scan(rules, &field, Input::Submitted, &mut |hit: Hit<'_>| {
            first = Some(hit);
            false
        });
        match combine(scan, None) {
            Outcome::Deny(hit) | Outcome::Ask(hit) => {
                Some(Ruling::new(hit.entry.ruling_decision()).because(hit.because(form)))
            }
            Outcome::Unanalysed(u) => Some(Ruling::ask(u.to_string())),
            Outcome::Allow | Outcome::ClientDefault => Some(match first {
                Some(hit) => Ruling::allow().because(hit.because(form)),
                None => Ruling::allow(),
            }),
            Outcome::NoMatch(_) => None,
        }
    }

    /// The ruling `evaluation` (of this rule set, by [`RuleSet::evaluate`] or
    /// [`RuleSet::explain`]) leads to: the ruling the chain's rules listener gives for the same
    /// call, read off the evaluation instead of scanning the rules again. Deny and ask carry
    /// their rule's reason and the rule and form as the explanation; an unanalysable field asks
    /// with its reason; allow is explained by its first match; `None` when no rule decided.
    /// A match whose rule index is not in this set (an evaluation of another set) denies.
    pub(crate) fn ruling(&self, evaluation: &Evaluation) -> Option<Ruling> {
        let explained = |m: &Match, decision: Option<crate::chain::Decision>| {
            let Some(entry) = self.rules.get(m.rule) else {
                debug_assert!(false, "a match names rule {} of another set", m.rule);
                return Ruling::deny("the rules' evaluation names a rule they do not hold");
            };
            let rule = Because::shared_rule(Arc::clone(&entry.text));
            let because = match m.site.text() {
                Some(form) => rule.with_form(form),
                None => rule,
            };
            let decision = decision.unwrap_or_else(|| entry.ruling_decision());
            Ruling::new(decision).because(because)
        };
        match evaluation {
            Evaluation::Deny(m) | Evaluation::Ask(AskCause::Rule(m)) => Some(explained(m, None)),
            Evaluation::Ask(AskCause::Unanalysed(u)) => Some(Ruling::ask(u.to_string())),
            Evaluation::Allow(matches) | Evaluation::ClientDefault(matches) => {
                Some(match matches.first() {
                    Some(m) => explained(m, Some(crate::chain::Decision::Allow)),
                    None => Ruling::allow(),
                })
            }
            Evaluation::NoMatch(_) => None,
        }
    }

    /// Evaluates a call whose input a hook rewrote: deny and ask are checked on both the
    /// submitted and the rewritten field (a rewrite can neither hide a denied command nor be
    /// one); allow needs the rewritten field, the one that runs, to be covered; a field that
    /// cannot be analysed on either side asks.
    #[must_use]
    pub fn evaluate_rewrite(
        &self,
        tool: &str,
        submitted: Subject<'_>,
        rewritten: Subject<'_>,
    ) -> Evaluation {
        let (mut first_buffer, mut second_buffer) = (SegmentBuffer::new(), SegmentBuffer::new());
        let rules = self.applicable(tool);
        let first_field = self.field(rules, submitted, Input::Submitted, &mut first_buffer);
        let second_field = self.field(rules, rewritten, Input::Rewritten, &mut second_buffer);
        let first = self.scan(rules, &first_field, Input::Submitted, &mut |_: Hit<'_>| {
            true
        });
        let mut allowed = Vec::new();
        let second = self.scan(rules, &second_field, Input::Rewritten, &mut |hit: Hit<
            '_,
        >| {
            allowed.push(hit.to_match());
            true
        });
        owned(combine(second, Some(first)), allowed)
    }

    /// Matches the rules naming `tool` against `field`. Each allow match covering a site is
    /// given to `allowed`, in order, for as long as it returns `true`.
    fn scan<'f>(
        &'f self,
        rules: Applicable<'f>,
        field: &'f Field<'f>,
        input: Input,
        allowed: &mut dyn FnMut(Hit<'f>) -> bool,
    ) -> Scan<'f> {
        let mut scan = Scan {
            deny: None,
            ask: None,
            unanalysed: None,
            allow: None,
        };
        if let Field::Unanalysed(u, _) = field {
            scan.unanalysed = Some(u.clone());
        }
        let home = self.home_dir.as_deref();
        let mut carrier = None;
        (scan.deny, scan.ask) = first_hits(rules, field, home, input, &mut carrier);
        // What can be read of an unanalysable command: deny and ask rules still apply to it.
        if let (Field::Unanalysed(_, Some(text)), None) = (field, &scan.deny) {
            let (mut deny, mut ask) = (None, None);
            self.readable_matches(rules, text, input, &mut |index, effect| match effect {
                Effect::Deny if deny.is_none() => deny = Some(index),
                Effect::Ask if ask.is_none() => ask = Some(index),
                _ => {}
            });
            let hit = |index: usize| {
                self.rules.get(index).map(|entry| Hit {
                    rule: index,
                    entry,
                    site: SiteRef::Readable(text),
                    input,
                })
            };
            scan.deny = deny.and_then(hit);
            scan.ask = scan.ask.take().or_else(|| ask.and_then(hit));
        }
        if let Field::Command(segments, _) = field {
            let (deny, ask) = self.path_rule_hits(*segments, input);
            scan.deny = scan.deny.or(deny);
            scan.ask = scan.ask.or(ask);
            // Only where no rule denies or asks (its reason is written out).
            if scan.unanalysed.is_none() && scan.deny.is_none() && scan.ask.is_none() {
                scan.unanalysed = code_in_arguments(*segments, carrier, input);
            }
        }
        let default = DefaultMode {
            mode: self.client_default,
            tool: rules.tool,
            places: &self.places,
            rules: self,
        };
        scan.allow = allow_cover(rules, field, home, input, default, allowed);
        // An allow stops at the workspace: a path outside it that no path rule covers asks.
        if let (Field::Command(segments, _), Some(Ok(_)), None, None, None) =
            (field, &scan.allow, &scan.deny, &scan.ask, &scan.unanalysed)
        {
            scan.unanalysed = self.path_outside(*segments, input);
        }
        if let (Field::Path(path), None) = (field, &scan.unanalysed) {
            scan.unanalysed = rules.iter().find_map(|(_, entry)| match entry.rule.specifier() {
                Specifier::Path(pattern)
                    if pattern
                        .decide(path, self.home_dir.as_deref(), entry.effect != Effect::Allow)
                        .is_none() =>
                {
                    Some(Unanalysed {
                        input,
                        code: "path_outside_workspace",
                        reason: format!(
                            "path `{}`: whether rule `{}` matches depends on the workspace root, which is not known",
                            path.absolute.as_deref().or(path.relative.as_deref()).unwrap_or_default(),
                            entry.text
                        ),
                    })
                }
                _ => None,
            });
        }
        if let (Field::Path(path), Some(Ok(_)), None) = (field, &scan.allow, &scan.unanalysed) {
            // Claude Code's safety check asks before an edit of its settings or git's files,
            // whatever the rules say.
            if read_only::edits(rules.tool) && read_only::guarded_component(shown(path)) {
                scan.unanalysed = Some(Unanalysed {
                    input,
                    code: "path_outside_workspace",
                    reason: format!(
                        "path `{}`: Claude Code asks before anything writes here (its settings, git's own files)",
                        shown(path)
                    ),
                });
            }
        }
        if let (Field::Path(path), None) = (field, &scan.unanalysed) {
            // Outside the workspace and allowed by no rule: ask, as for a path that cannot be
            // placed (Claude Code asks before touching a file outside the project).
            let specified = rules
                .iter()
                .any(|(_, e)| !matches!(e.rule.specifier(), Specifier::Any));
            if path.relative.is_none() && specified && !matches!(scan.allow, Some(Ok(_))) {
                scan.unanalysed = Some(Unanalysed {
                    input,
                    code: "path_outside_workspace",
                    reason: format!(
                        "path `{}`: outside the workspace root, and no rule allows it",
                        shown(path)
                    ),
                });
            }
        }
        if self.uninterpreted && scan.unanalysed.is_none() {
            scan.unanalysed = rules
                .iter()
                .find_map(|(_, entry)| match entry.rule.specifier() {
                    Specifier::Uninterpreted(why) if entry.effect != Effect::Allow => {
                        Some(Unanalysed {
                            input,
                            code: "rule_not_interpreted",
                            reason: format!(
                                "{} rule `{}` is not interpreted by seal ({why}): every call of the tool asks",
                                entry.effect,
                                entry.text
                            ),
                        })
                    }
                    _ => None,
                });
        }
        scan
    }

    /// The first deny and the first ask path rule matching a path the command names: `Read`
    /// rules on every path a program reads (`cat .env` under `Read(.env)`), `Edit` rules (and
    /// `Read` denies and asks, which Claude Code applies to edits too) on every path a program
    /// writes, each placed by the one resolver in the working directory the command gives it.
    fn path_rule_hits<'f>(
        &'f self,
        segments: SegmentsRef<'f>,
        input: Input,
    ) -> (Option<Hit<'f>>, Option<Hit<'f>>) {
        if !self.read_guarded {
            return (None, None);
        }
        let (mut deny, mut ask) = (None, None);
        command_paths(segments, &mut |path, reading| {
            if deny.is_some() {
                return;
            }
            self.path_rule_matches(path, reading, &mut |rule, entry| {
                let hit = Hit {
                    rule,
                    entry,
                    site: SiteRef::Path(path.word),
                    input,
                };
                match entry.effect {
                    Effect::Deny if deny.is_none() => deny = Some(hit),
                    Effect::Ask if ask.is_none() => ask = Some(hit),
                    _ => {}
                }
            });
        });
        (deny, ask)
    }

    /// Calls `found` with the index and effect of each deny and ask rule matching what can be
    /// read of the unanalysable command `text` (spec/shell-segments.md section 9): every form
    /// of every segment of each piece that segments (the command around a substitution, each
    /// substitution's body), with the models and payloads as for an analysable command, the
    /// paths those pieces name, and the file of every redirection (`Read` rules on a file read,
    /// `Edit` and `Read` rules on a file written). Never an allow: such a command still asks.
    pub(super) fn readable_matches(
        &self,
        rules: Applicable<'_>,
        text: &str,
        input: Input,
        found: &mut dyn FnMut(usize, Effect),
    ) {
        let parts = seal_parse::shell::readable(text, &self.limits.shell);
        let home = self.home_dir.as_deref();
        let mut buffer = SegmentBuffer::new();
        for piece in parts.pieces() {
            let Ok(segments) = segment_into(piece.text(), &self.limits.shell, &mut buffer) else {
                continue;
            };
            let field = Field::Command(segments, piece.text());
            let mut carrier = None;
            let (deny, ask) = first_hits(rules, &field, home, input, &mut carrier);
            let (path_deny, path_ask) = self.path_rule_hits(segments, input);
            for hit in [deny, path_deny, ask, path_ask].into_iter().flatten() {
                found(hit.rule, hit.entry.effect);
            }
        }
        for redirect in parts.redirects() {
            let access = match (redirect.reads(), redirect.writes()) {
                (true, true) => Access::Both,
                (false, true) => Access::Write,
                _ => Access::Read,
            };
            let path = CommandPath {
                segment: 0,
                program: "redirection",
                word: redirect.target(),
                access,
            };
            self.path_rule_matches(&path, ReadPlace::In(Cwd::Root), &mut |index, entry| {
                found(index, entry.effect);
            });
        }
    }

    /// Calls `found` with each deny and ask path rule matching one path a command names (see
    /// [`RuleSet::path_rule_hits`]), in set order, `Read` rules first.
    pub(super) fn path_rule_matches<'f>(
        &'f self,
        path: &CommandPath<'_>,
        reading: ReadPlace<'_>,
        found: &mut dyn FnMut(usize, &'f RuleEntry),
    ) {
        if !self.read_guarded {
            return;
        }
        let cwd = match reading {
            ReadPlace::In(cwd) => cwd,
            ReadPlace::Unplaced(_) => Cwd::Root,
        };
        let root = self.workspace_root.as_deref();
        let placed = match self.places.absolute(path.word, cwd) {
            Ok(absolute) => place(&absolute, root),
            // No root: a relative path is placed relative to the working directory.
            Err(_) if !path.word.starts_with(['/', '~']) => place(path.word, root),
            Err(_) => return,
        };
        let Ok(placed) = placed else {
            return;
        };
        let home = self.home_dir.as_deref();
        let parts = SplitPath::of(&placed);
        let [reads, edits] = &self.path_rules;
        let uses = [
            (reads, path.access.reads() || path.access == Access::Use),
            (edits, path.access.writes()),
        ];
        let mut seen: Vec<usize> = Vec::new();
        for (indices, used) in uses {
            if !used {
                continue;
            }
            for &index in indices {
                let Some(entry) = self.rules.get(index) else {
                    continue;
                };
                if seen.contains(&index) {
                    continue;
                }
                if matches!(entry.rule.specifier(), Specifier::Path(p)
                    if p.decide_split(&placed, &parts, home, true) == Some(true))
                {
                    seen.push(index);
                    found(index, entry);
                }
            }
        }
    }

    /// Why a path a command names keeps allow rules and the client's default mode from
    /// allowing the command: it lies outside the workspace and the added directories and no
    /// `Read` (for a read) or `Edit` (for a write) allow rule covers it, or it cannot be
    /// placed, or (with a `Read` or `Edit` deny or ask rule in the set) it is relative and
    /// read after a `cd`, as Claude Code 2.1.332 asks then. `None` when it does not.
    pub(super) fn path_blocks_allow(
        &self,
        path: &CommandPath<'_>,
        reading: ReadPlace<'_>,
    ) -> Option<&'static str> {
        let cwd = match reading {
            ReadPlace::Unplaced(why) => return Some(why.as_str()),
            ReadPlace::In(cwd) => cwd,
        };
        let relative = !path.word.starts_with(['/', '~']);
        if path.access.writes() && read_only::guarded_component(path.word) {
            return Some(
                "Claude Code asks before anything writes here (its settings, git's own files)",
            );
        }
        match self.places.whereabouts(path.word, cwd) {
            Whereabouts::Inside
                if self.read_guarded && relative && matches!(cwd, Cwd::After(_)) =>
            {
                Some("read after a `cd` while a `Read` or `Edit` deny or ask rule is set")
            }
            Whereabouts::Inside => None,
            Whereabouts::Outside if self.path_allowed(path.word, path.access, cwd) => None,
            Whereabouts::Outside => {
                Some("outside the workspace, and no `Read` or `Edit` allow rule covers it")
            }
            Whereabouts::Unplaced(why) => Some(why.as_str()),
        }
    }

    /// For a command allow rules or the client's default mode would allow: the first path it
    /// names that [blocks the allow](RuleSet::path_blocks_allow), as the ask's reason (an
    /// allow stops at the workspace).
    fn path_outside(&self, segments: SegmentsRef<'_>, input: Input) -> Option<Unanalysed> {
        let mut found: Option<Unanalysed> = segments.iter().enumerate().find_map(|(at, seg)| {
            target_option(&seg).then(|| Unanalysed {
                input,
                code: "path_outside_workspace",
                reason: format!(
                    "segment {at} (at byte {}): a target directory given by option, which Claude Code asks about",
                    seg.span().start
                ),
            })
        });
        command_paths(segments, &mut |path, reading| {
            if found.is_some() {
                return;
            }
            let Some(why) = self.path_blocks_allow(path, reading) else {
                return;
            };
            let at = segments.get(path.segment).map_or(0, |seg| seg.span().start);
            found = Some(Unanalysed {
                input,
                code: "path_outside_workspace",
                reason: format!(
                    "segment {} (at byte {at}): `{}` {} `{}`: {why}",
                    path.segment,
                    path.program,
                    access_verb(path.access),
                    path.word,
                ),
            });
        });
        found
    }

    /// Whether allow rules cover a path outside the workspace: a `Read` allow for a read, an
    /// `Edit` allow (which Claude Code reads as covering reads too) for a write.
    fn path_allowed(&self, word: &str, access: Access, cwd: Cwd<'_>) -> bool {
        let Ok(absolute) = self.places.absolute(word, cwd) else {
            return false;
        };
        let Ok(placed) = place(&absolute, self.workspace_root.as_deref()) else {
            return false;
        };
        let home = self.home_dir.as_deref();
        let covered = |tool: &str| {
            self.applicable(tool)
                .of(Effect::Allow)
                .any(|(_, e)| match e.rule.specifier() {
                    Specifier::Any => true,
                    Specifier::Path(p) => p.decide(&placed, home, false) == Some(true),
                    _ => false,
                })
        };
        let read = !(access.reads() || access == Access::Use) || covered("Read");
        let write = !access.writes() || covered("Edit");
        read && write
    }

    fn field<'b>(
        &self,
        rules: Applicable<'_>,
        subject: Subject<'b>,
        input: Input,
        buffer: &'b mut SegmentBuffer,
    ) -> Field<'b> {
        let kind = FieldKind::of(rules.tool);
        let specified = rules
            .iter()
            .any(|(_, e)| !matches!(e.rule.specifier(), Specifier::Any));
        let unanalysed = |code: &'static str, reason: String| {
            Field::Unanalysed(
                Unanalysed {
                    input,
                    code,
                    reason,
                },
                None,
            )
        };
        match (kind, subject) {
            (FieldKind::Command, Subject::Command(command)) => {
                match segment_into(command, &self.limits.shell, buffer) {
                    Ok(segments) => Field::Command(segments, command),
                    Err(e) => Field::Unanalysed(
                        Unanalysed {
                            input,
                            code: e.reason.code(),
                            reason: e.to_string(),
                        },
                        Some(command),
                    ),
                }
            }
            (FieldKind::Command, _) => unanalysed(
                "field_missing",
                "the call gives no command to check rules against".to_owned(),
            ),
            (FieldKind::Path, Subject::Path(path)) => {
                match place(path, self.workspace_root.as_deref()) {
                    Ok(placed) => Field::Path(placed),
                    Err(why) if specified => {
                        unanalysed("path_outside_workspace", format!("path `{path}`: {why}"))
                    }
                    Err(_) => Field::Opaque,
                }
            }
            (FieldKind::Url, Subject::Url(url)) => match url_host(url) {
                Ok(host) => Field::Host(host),
                Err(why) if specified => unanalysed("url_not_plain", format!("URL `{url}`: {why}")),
                Err(_) => Field::Opaque,
            },
            (FieldKind::Name, Subject::Name(name)) => Field::Name(name),
            (FieldKind::Path | FieldKind::Url | FieldKind::Name, _) if specified => unanalysed(
                "field_missing",
                "the call gives no field for the tool's rules to check".to_owned(),
            ),
            _ => Field::Opaque,
        }
    }
}

impl RuleSet {
    pub(super) fn applicable<'a>(&'a self, tool: &'a str) -> Applicable<'a> {
        let named = self.index.tool(tool).unwrap_or_else(|| {
            let mut named = 0u64;
            for (index, entry) in self.rules.iter().enumerate().take(MASKED) {
                if entry.rule.names(entry.effect, tool) {
                    named |= 1 << index;
                }
            }
            named
        });
        Applicable {
            entries: &self.rules,
            tool,
            named,
            index: &self.index,
        }
    }
}

impl RuleEntry {
    /// The decision a deny or an ask by this rule gives (its reason shared, not copied).
    fn ruling_decision(&self) -> crate::chain::Decision {
        let reason = Reason::from(Arc::clone(&self.reason));
        match self.effect {
            Effect::Deny => crate::chain::Decision::Deny(reason),
            Effect::Ask => crate::chain::Decision::Ask(Some(reason)),
            Effect::Allow => crate::chain::Decision::Allow,
        }
    }
}

/// Rules whose tool match [`Applicable`] works out once per evaluation (bits of a `u64`); the
/// others are matched against the tool name each time they are looked at.
const MASKED: usize = 64;

/// The rules that name the tool, in set order, with their indices: a view, so that selecting
/// them allocates nothing.
#[derive(Clone, Copy)]
pub(super) struct Applicable<'a> {
    entries: &'a [RuleEntry],
    tool: &'a str,
    /// Bit `i`: rule `i` (for `i` below [`MASKED`]) names the tool.
    named: u64,
    index: &'a RuleIndex,
}

impl<'a> Applicable<'a> {
    fn names(self, index: usize, entry: &RuleEntry) -> bool {
        if index < MASKED {
            self.named >> index & 1 == 1
        } else {
            entry.rule.names(entry.effect, self.tool)
        }
    }

    fn iter(self) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.among(u64::MAX)
    }

    /// The rules that name the tool among `only` (bit `i` for rule `i` below [`MASKED`];
    /// every rule from [`MASKED`] on is looked at), in set order.
    fn among(self, only: u64) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        let head = Bits(self.named & only)
            .filter_map(move |index| self.entries.get(index).map(|entry| (index, entry)));
        let tail = self
            .entries
            .iter()
            .enumerate()
            .skip(MASKED)
            .filter(move |(index, entry)| self.names(*index, entry));
        head.chain(tail)
    }

    /// The rules that name the tool and may match a form whose program is `program`: bit `i`
    /// for rule `i` below [`MASKED`] (see [`Applicable::among`]).
    fn candidates(self, program: &str) -> u64 {
        self.named & self.index.candidates(program)
    }

    /// Whether a rule read by a program model names the tool among `candidates` (or stands
    /// beyond the indexed rules).
    fn may_be_modelled(self, candidates: u64) -> bool {
        self.named & candidates & self.index.modelled != 0 || self.index.modelled_beyond
    }

    /// The rules of one effect.
    fn of(self, effect: Effect) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.of_among(effect, u64::MAX)
    }

    /// The rules of one effect among `only` (as for [`Applicable::among`]).
    fn of_among(
        self,
        effect: Effect,
        only: u64,
    ) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        let mask = self
            .index
            .effects
            .get(effect_slot(effect))
            .copied()
            .unwrap_or(0);
        self.among(mask & only)
            .filter(move |(_, entry)| entry.effect == effect)
    }
}

/// The typed field, ready for matching.
enum Field<'b> {
    /// The segments, in a buffer, and the command as written.
    Command(SegmentsRef<'b>, &'b str),
    Path(Placed),
    Host(String),
    Name(&'b str),
    /// Only rules without a specifier apply.
    Opaque,
    /// Rules without a specifier apply (and, for a command, deny and ask rules matching the
    /// command as written); no rule may allow.
    Unanalysed(Unanalysed, Option<&'b str>),
}

/// One rule matching one site, borrowed from the rule set and the field.
#[derive(Clone)]
struct Hit<'a> {
    rule: usize,
    entry: &'a RuleEntry,
    site: SiteRef<'a>,
    input: Input,
}

impl Hit<'_> {
    fn to_match(&self) -> Match {
        Match {
            rule: self.rule,
            effect: self.entry.effect,
            text: self.entry.text.to_string(),
            site: self.site.to_site(),
            input: self.input,
        }
    }

    /// The rule (shared) and the form it matched (written into the pooled string `form`), as
    /// the chain's explanation.
    fn because(&self, form: &mut Option<Arc<String>>) -> Because {
        let rule = Because::shared_rule(Arc::clone(&self.entry.text));
        match &self.site {
            SiteRef::Tool => rule,
            site => rule.with_pooled_form(form, site),
        }
    }
}

/// Where a rule matched, borrowed: [`Site`] without its strings.
#[derive(Clone)]
enum SiteRef<'a> {
    Tool,
    Segment {
        index: usize,
        kind: FormKind,
        form: Form<'a>,
    },
    Launcher {
        segment: usize,
        program: &'a str,
        rest: Words<'a>,
    },
    Path(&'a str),
    Host(&'a str),
    Command(&'a str),
    Name(&'a str),
    Readable(&'a str),
}

impl SiteRef<'_> {
    fn to_site(&self) -> Site {
        match self {
            SiteRef::Tool => Site::Tool,
            SiteRef::Segment { index, kind, form } => Site::Segment {
                index: *index,
                kind: *kind,
                form: form.to_string(),
            },
            SiteRef::Launcher { segment, .. } => Site::Launcher {
                segment: *segment,
                form: self.to_string(),
            },
            SiteRef::Path(path) => Site::Path((*path).to_owned()),
            SiteRef::Host(host) => Site::Host((*host).to_owned()),
            SiteRef::Command(text) => Site::Command((*text).to_owned()),
            SiteRef::Readable(text) => Site::Readable((*text).to_owned()),
            SiteRef::Name(name) => Site::Name((*name).to_owned()),
        }
    }
}

impl fmt::Display for SiteRef<'_> {
    /// The text of the form matched: words joined by single spaces, the path, or the host.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SiteRef::Tool => Ok(()),
            SiteRef::Segment { form, .. } => form.fmt(f),
            SiteRef::Launcher { program, rest, .. } => {
                f.write_str(program)?;
                for word in rest.clone() {
                    f.write_str(" ")?;
                    f.write_str(word)?;
                }
                Ok(())
            }
            SiteRef::Path(text)
            | SiteRef::Host(text)
            | SiteRef::Command(text)
            | SiteRef::Readable(text)
            | SiteRef::Name(text) => f.write_str(text),
        }
    }
}

struct Scan<'a> {
    deny: Option<Hit<'a>>,
    ask: Option<Hit<'a>>,
    unanalysed: Option<Unanalysed>,
    /// `Ok(by_default)` when allow rules (with the client's default mode where `by_default`)
    /// cover the field; `Err(site)` otherwise, with the first uncovered site when there is one
    /// to name.
    allow: Option<Result<bool, Option<SiteRef<'a>>>>,
}

/// What the scans amount to, deny beating ask beating allow.
enum Outcome<'a> {
    Deny(Hit<'a>),
    Ask(Hit<'a>),
    Unanalysed(Unanalysed),
    Allow,
    /// Allowed by the client's default mode (in part, for a command some of whose segments
    /// allow rules cover).
    ClientDefault,
    NoMatch(Option<SiteRef<'a>>),
}

fn combine<'a>(main: Scan<'a>, other: Option<Scan<'a>>) -> Outcome<'a> {
    let (other_deny, other_ask, other_unanalysed) = match other {
        Some(scan) => (scan.deny, scan.ask, scan.unanalysed),
        None => (None, None, None),
    };
    if let Some(hit) = other_deny.or(main.deny) {
        return Outcome::Deny(hit);
    }
    if let Some(hit) = other_ask.or(main.ask) {
        return Outcome::Ask(hit);
    }
    if let Some(u) = other_unanalysed.or(main.unanalysed) {
        return Outcome::Unanalysed(u);
    }
    match main.allow {
        Some(Ok(false)) => Outcome::Allow,
        Some(Ok(true)) => Outcome::ClientDefault,
        Some(Err(site)) => Outcome::NoMatch(site),
        None => Outcome::NoMatch(None),
    }
}

/// The owned evaluation of an outcome, `allowed` holding the allow matches.
fn owned(outcome: Outcome<'_>, allowed: Vec<Match>) -> Evaluation {
    match outcome {
        Outcome::Deny(hit) => Evaluation::Deny(hit.to_match()),
        Outcome::Ask(hit) => Evaluation::Ask(AskCause::Rule(hit.to_match())),
        Outcome::Unanalysed(u) => Evaluation::Ask(AskCause::Unanalysed(u)),
        Outcome::Allow => Evaluation::Allow(allowed),
        Outcome::ClientDefault => Evaluation::ClientDefault(allowed),
        Outcome::NoMatch(site) => Evaluation::NoMatch(site.as_ref().map(SiteRef::to_site)),
    }
}

/// The first segment form whose program runs code its words or its input carry (an awk
/// program, `find -exec`, `xargs`, `python -c`, ...): no rule may allow such a command
/// (spec/policy-rules.md, section 4, step 1).
fn code_in_arguments(
    segments: SegmentsRef<'_>,
    carrier: Option<Carrier<'_>>,
    input: Input,
) -> Option<Unanalysed> {
    let found = |at: usize, seg: &SegmentRef<'_>, program: &str, why: &str| Unanalysed {
        input,
        code: "code_in_arguments",
        reason: format!(
            "segment {at} (at byte {}): `{}` {why}, which seal cannot see; no rule may allow it",
            seg.span().start,
            program,
        ),
    };
    if let Some(Carrier {
        segment,
        program,
        why,
    }) = carrier
    {
        let seg = segments.get(segment)?;
        return Some(found(segment, &seg, program, why));
    }
    for (at, seg) in segments.iter().enumerate() {
        // The words of the shell invocations its payload came from (`xargs sh -c '...'`),
        // from each word on.
        for launcher in seg.launchers() {
            for start in 0..launcher.words().len() {
                let words = launcher.words().skip(start);
                if let Some(code) = seal_parse::shell::carried_code_in(words.clone()) {
                    let program = words.clone().next().unwrap_or_default();
                    return Some(found(at, &seg, program, code.why));
                }
            }
        }
    }
    None
}

/// The first segment form found whose program runs code its words or input carry.
#[derive(Clone, Copy)]
struct Carrier<'a> {
    segment: usize,
    program: &'a str,
    why: &'static str,
}

/// The first deny rule and the first ask rule matching anything in the field: a rule without a
/// specifier first, then for a command the sites in order (segments, each form canonical
/// first, then launchers and their suffixes), rules in set order within one site. One pass
/// over the sites checks both effects, and stops at a deny, which no ask can outweigh.
fn first_hits<'a>(
    rules: Applicable<'a>,
    field: &'a Field<'a>,
    home: Option<&str>,
    input: Input,
    carrier: &mut Option<Carrier<'a>>,
) -> (Option<Hit<'a>>, Option<Hit<'a>>) {
    let hit = |rule: usize, entry: &'a RuleEntry, site: SiteRef<'a>| Hit {
        rule,
        entry,
        site,
        input,
    };
    let (segments, text) = match field {
        Field::Command(segments, text) => (Some(segments), *text),
        Field::Unanalysed(_, Some(text)) => (None, *text),
        _ => {
            return (
                first_hit(rules, Effect::Deny, field, home, input),
                first_hit(rules, Effect::Ask, field, home, input),
            )
        }
    };
    // Rules without a specifier match every call of the tool, whatever its field.
    let any = |effect: Effect| {
        rules
            .of(effect)
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Any))
            .map(|(index, entry)| hit(index, entry, SiteRef::Tool))
    };
    let (deny, mut ask) = (any(Effect::Deny), any(Effect::Ask));
    if deny.is_some() {
        return (deny, ask);
    }
    // At one site: the first deny rule and (while none was found) the first ask rule matching,
    // among `only` (see `Applicable::candidates`).
    let at_site = |ask_found: bool, only: u64, matches: &dyn Fn(&RuleEntry) -> bool| {
        let (mut deny, mut ask) = (None, None);
        for (index, entry) in rules.among(only) {
            let wanted = match entry.effect {
                Effect::Deny => deny.is_none(),
                Effect::Ask => !ask_found && ask.is_none(),
                Effect::Allow => false,
            };
            if wanted && matches(entry) {
                match entry.effect {
                    Effect::Deny => deny = Some((index, entry)),
                    _ => ask = Some((index, entry)),
                }
            }
        }
        (deny, ask)
    };
    // Last, the command as written: a literal specifier (`git commit -m "msg"`,
    // `cd /tmp && ls`) denies or asks its command as Claude Code reads it.
    // A plain specifier matches the text of an analysable command only where it matches its
    // first segment (`CommandPattern::is_plain`): only the others are read on the text then.
    let analysable = segments.is_some();
    let whole = |ask: Option<Hit<'a>>| {
        let (found_deny, found_ask) = at_site(ask.is_some(), u64::MAX, &|e: &RuleEntry| {
            matches_written(e, text, analysable)
        });
        let ask = ask.or_else(|| found_ask.map(|(i, e)| hit(i, e, SiteRef::Command(text))));
        (
            found_deny.map(|(i, e)| hit(i, e, SiteRef::Command(text))),
            ask,
        )
    };
    let Some(segments) = segments else {
        return whole(ask);
    };
    for (at, seg) in segments.iter().enumerate() {
        let forms = seg.forms();
        for form in forms.all() {
            // The form's name is worked out only for a site that is reported.
            let site = || SiteRef::Segment {
                index: at,
                kind: form_kind(&forms, &form),
                form,
            };
            let only = rules.candidates(form.program());
            // The form as its program reads it, when a rule read by a model may match it.
            let modelled = if rules.may_be_modelled(only) {
                model_of(&form)
            } else {
                None
            };
            let (found_deny, found_ask) = at_site(ask.is_some(), only, &|e: &RuleEntry| {
                matches_form(e, &form, modelled.as_ref())
            });
            if let Some((index, entry)) = found_ask {
                ask = Some(hit(index, entry, site()));
            }
            if let Some((index, entry)) = found_deny {
                return (Some(hit(index, entry, site())), ask);
            }
            let code = carried_code(&form);
            if let (Some(code), None) = (code, &carrier) {
                *carrier = Some(Carrier {
                    segment: at,
                    program: form.program(),
                    why: code.why,
                });
            }
            // A payload the program runs (`find . -exec rm -rf {} +`): its words as a command.
            if let Some(payload) = code.and_then(|code| payload_words(&form, code)) {
                let (found_deny, found_ask) = at_site(ask.is_some(), u64::MAX, &|e: &RuleEntry| {
                    matches_payload(e, payload.clone())
                });
                if let Some((index, entry)) = found_ask {
                    ask = Some(hit(index, entry, site()));
                }
                if let Some((index, entry)) = found_deny {
                    return (Some(hit(index, entry, site())), ask);
                }
            }
        }
    }
    for launcher in segments.launchers() {
        for (program, suffix) in launcher_suffixes(launcher) {
            let site = || SiteRef::Launcher {
                segment: launcher.first_segment(),
                program,
                rest: suffix.clone(),
            };
            let form = std::iter::once(program).chain(suffix.clone());
            let only = rules.candidates(program);
            let (found_deny, found_ask) = at_site(ask.is_some(), only, &|e: &RuleEntry| {
                command_matches_words(e, form.clone())
            });
            if let Some((index, entry)) = found_ask {
                ask = Some(hit(index, entry, site()));
            }
            if let Some((index, entry)) = found_deny {
                return (Some(hit(index, entry, site())), ask);
            }
        }
    }
    whole(ask)
}

/// The first rule of `effect` matching a field other than a command (a rule without a
/// specifier first).
fn first_hit<'a>(
    rules: Applicable<'a>,
    effect: Effect,
    field: &'a Field<'a>,
    home: Option<&str>,
    input: Input,
) -> Option<Hit<'a>> {
    let of_effect = || rules.of(effect);
    let hit = |rule: usize, entry: &'a RuleEntry, site: SiteRef<'a>| Hit {
        rule,
        entry,
        site,
        input,
    };
    // Rules without a specifier match every call of the tool, whatever its field.
    if let Some((index, entry)) =
        of_effect().find(|(_, e)| matches!(e.rule.specifier(), Specifier::Any))
    {
        return Some(hit(index, entry, SiteRef::Tool));
    }
    match field {
        // Commands are read by `first_hits`, both effects in one pass.
        Field::Command(..) => None,
        Field::Path(path) => of_effect()
            .find(|(_, e)| {
                matches!(e.rule.specifier(), Specifier::Path(p)
                    if p.decide(path, home, true) == Some(true))
            })
            .map(|(index, entry)| hit(index, entry, SiteRef::Path(shown(path)))),
        Field::Host(host) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Domain(d) if d.matches(host)))
            .map(|(index, entry)| hit(index, entry, SiteRef::Host(host))),
        Field::Name(name) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Name(n) if n == name))
            .map(|(index, entry)| hit(index, entry, SiteRef::Name(name))),
        Field::Opaque | Field::Unanalysed(..) => None,
    }
}

/// What the client's default mode needs to know about a call.
#[derive(Clone, Copy)]
struct DefaultMode<'a> {
    mode: ClientDefault,
    tool: &'a str,
    places: &'a Places,
    rules: &'a RuleSet,
}

impl DefaultMode<'_> {
    /// Whether a read-only command of the mode may read `word`: inside the workspace or an
    /// added directory, or covered by a `Read` allow rule (Claude Code 2.1.332 lets `cat`
    /// read `~/shared/x` under `Read(~/shared/**)` with no `Bash` rule).
    fn readable(self, word: &str) -> bool {
        match self.places.whereabouts(word, Cwd::Root) {
            Whereabouts::Inside => true,
            Whereabouts::Outside => self.rules.path_allowed(word, Access::Read, Cwd::Root),
            Whereabouts::Unplaced(_) => false,
        }
    }

    fn on(self) -> bool {
        self.mode.is_claude_code()
    }

    /// Whether the default mode allows the whole call, whatever its field (`Agent`, `Skill`).
    fn allows_tool(self) -> bool {
        self.on() && read_only::runs_unchecked(self.tool)
    }

    /// Whether the default mode allows a call on this placed path: inside the workspace or a
    /// directory the operator added, by a tool the mode lets work there.
    fn allows_path(self, path: &Placed) -> bool {
        if !self.on() {
            return false;
        }
        let inside = match (&path.relative, &path.absolute) {
            (Some(relative), _) => Some(relative.as_str()),
            (None, Some(absolute)) => (self.places.whereabouts(absolute, Cwd::Root)
                == Whereabouts::Inside)
                .then_some(absolute.as_str()),
            (None, None) => None,
        };
        inside.is_some_and(|shown| read_only::allows_file_tool(self.mode, self.tool, shown))
    }

    /// Whether the default mode allows this segment of a command.
    fn allows_segment(self, segment: &SegmentRef<'_>) -> bool {
        let reach = |word: &str| self.readable(word);
        self.on()
            && FieldKind::of(self.tool) == FieldKind::Command
            && (read_only::read_only(segment, &reach, &mut |_| {})
                || (self.mode == ClientDefault::ClaudeCodeAcceptEdits
                    && read_only::accepted_edit(segment, self.places)))
    }
}

/// Whether allow rules (and the client's default mode) cover the field: `None` when no allow
/// rule names the tool and the default mode allows nothing here. `Ok(true)` when the default
/// mode covered some part. Each match covering a site goes to `keep` while it returns `true`.
fn allow_cover<'a>(
    rules: Applicable<'a>,
    field: &'a Field<'a>,
    home: Option<&str>,
    input: Input,
    default: DefaultMode<'_>,
    keep: &mut dyn FnMut(Hit<'a>) -> bool,
) -> Option<Result<bool, Option<SiteRef<'a>>>> {
    let allows = || rules.of(Effect::Allow);
    // No allow rule names the tool, and the client's default allows nothing of it.
    if allows().next().is_none() && !default.on() {
        return None;
    }
    let hit = |rule: usize, entry: &'a RuleEntry, site: SiteRef<'a>| Hit {
        rule,
        entry,
        site,
        input,
    };
    let any = allows().find(|(_, e)| matches!(e.rule.specifier(), Specifier::Any));
    let mut keeping = true;
    let mut give = |found: Hit<'a>| {
        if keeping {
            keeping = keep(found);
        }
    };
    // One site: an allow rule covers it, else the default mode may.
    let mut one =
        |found: Option<(usize, &'a RuleEntry)>, site: SiteRef<'a>, by_default: bool| match found {
            Some((i, e)) => {
                give(hit(i, e, site));
                Some(Ok(false))
            }
            None if by_default || default.allows_tool() => Some(Ok(true)),
            None if allows().next().is_none() => None,
            None => Some(Err(Some(site))),
        };
    match field {
        Field::Unanalysed(..) if allows().next().is_none() => None,
        Field::Unanalysed(..) => Some(Err(None)),
        Field::Command(segments, text) => {
            if let Some((index, entry)) = any {
                give(hit(index, entry, SiteRef::Tool));
                return Some(Ok(false));
            }
            let mut by_default = false;
            for (at, seg) in segments.iter().enumerate() {
                let canonical = seg.forms().canonical();
                let site = SiteRef::Segment {
                    index: at,
                    kind: FormKind::Canonical,
                    form: canonical,
                };
                let only = rules.candidates(canonical.program());
                // Assignments Claude Code strips (`NODE_ENV=test npm test`) before a program
                // an allow rule names: the form without them is matched too.
                let stripped = (seg.assignments() > 0 && strippable(&seg, text))
                    .then(|| seg.forms().env_stripped());
                let found = rules
                    .of_among(Effect::Allow, only)
                    .find(|(_, e)| command_matches(e, &canonical))
                    .or_else(|| {
                        let form = stripped?;
                        let only = rules.candidates(form.program());
                        rules
                            .of_among(Effect::Allow, only)
                            .find(|(_, e)| command_matches(e, &form))
                    })
                    .or_else(|| {
                        // An allow rule written with the command's own quotes.
                        let raw = raw_text(&seg, text)?;
                        rules.of(Effect::Allow).find(|(_, e)| {
                            matches!(e.rule.specifier(), Specifier::Command(p)
                                if p.is_quoted() && p.matches_raw(raw))
                        })
                    });
                match found {
                    Some((index, entry)) => give(hit(index, entry, site)),
                    None if default.allows_segment(&seg) => {
                        by_default = true;
                        continue;
                    }
                    None if allows().next().is_none() => return None,
                    None => return Some(Err(Some(site))),
                }
                for launcher in seg.launchers() {
                    let mut words = launcher.words();
                    let program = words.next().unwrap_or_default();
                    let site = SiteRef::Launcher {
                        segment: at,
                        program,
                        rest: words,
                    };
                    let only = rules.candidates(program);
                    match rules
                        .of_among(Effect::Allow, only)
                        .find(|(_, e)| command_matches_words(e, launcher.words()))
                    {
                        Some((index, entry)) => give(hit(index, entry, site)),
                        None => return Some(Err(Some(site))),
                    }
                }
            }
            Some(Ok(by_default))
        }
        Field::Path(path) => {
            let found = any.or_else(|| {
                allows().find(|(_, e)| {
                    matches!(e.rule.specifier(), Specifier::Path(p)
                        if p.decide(path, home, false) == Some(true))
                })
            });
            one(found, SiteRef::Path(shown(path)), default.allows_path(path))
        }
        Field::Host(host) => {
            let found = any.or_else(|| {
                allows().find(
                    |(_, e)| matches!(e.rule.specifier(), Specifier::Domain(d) if d.matches(host)),
                )
            });
            one(found, SiteRef::Host(host), false)
        }
        Field::Name(name) => {
            let found = any.or_else(|| {
                allows()
                    .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Name(n) if n == name))
            });
            one(found, SiteRef::Name(name), false)
        }
        Field::Opaque => match one(any, SiteRef::Tool, false) {
            Some(Err(_)) => Some(Err(None)),
            other => other,
        },
    }
}

/// Whether an allow rule covers a segment: its canonical form, the form without assignments
/// Claude Code strips, or its text as written with the rule's own quotes (see `allow_cover`).
pub(super) fn allow_matches(entry: &RuleEntry, seg: &SegmentRef<'_>, text: &str) -> bool {
    let forms = seg.forms();
    command_matches(entry, &forms.canonical())
        || (seg.assignments() > 0
            && strippable(seg, text)
            && command_matches(entry, &forms.env_stripped()))
        || matches!(entry.rule.specifier(), Specifier::Command(p)
            if p.is_quoted() && raw_text(seg, text).is_some_and(|raw| p.matches_raw(raw)))
}

/// Whether a segment copies, moves or links into a target directory given by option
/// (`cp -t DIR`, `mv --target-directory=DIR`), which Claude Code 2.1.332 asks about whatever
/// the rules say (seal reads the directory as a path written; the allow is refused to match).
pub(super) fn target_option(seg: &SegmentRef<'_>) -> bool {
    let form = seg.forms().normalized();
    matches!(form.program(), "cp" | "mv" | "ln" | "install")
        && form.args().take_while(|w| *w != "--").any(|word| {
            word.starts_with("--target-directory")
                || (word.starts_with('-') && !word.starts_with("--") && word.contains('t'))
        })
}

/// How a reason names a program's use of a path.
pub(super) fn access_verb(access: Access) -> &'static str {
    match access {
        Access::Read => "reads",
        Access::Write => "writes",
        Access::Both => "may read or write",
        Access::Use => "uses",
    }
}

/// Whether every leading assignment of `seg` is one Claude Code strips, written without a
/// quote or an escape (Claude Code asks for `NODE_ENV="x" npm test`).
fn strippable(seg: &SegmentRef<'_>, text: &str) -> bool {
    let Some(raw) = raw_text(seg, text) else {
        return false;
    };
    let mut raw_words = raw.split([' ', '\t']).filter(|w| !w.is_empty());
    seg.words().take(seg.assignments()).all(|assignment| {
        raw_words.next() == Some(assignment) && read_only::safe_assignment(assignment)
    })
}

/// The text of a segment of the command itself (not of a shell payload), as written.
fn raw_text<'t>(seg: &SegmentRef<'_>, text: &'t str) -> Option<&'t str> {
    if seg.payload_depth() != 0 {
        return None;
    }
    let span = seg.span();
    text.get(span.start..span.end)
}

/// The path a trace shows: relative to the workspace root when it lies below it, else
/// absolute.
fn shown(path: &Placed) -> &str {
    path.relative
        .as_deref()
        .or(path.absolute.as_deref())
        .unwrap_or_default()
}

/// Whether a deny or ask rule matches a form of a segment: by its words, or (for a rule read
/// by a program model) by the model's reading of the form, `modelled`.
pub(super) fn matches_form(
    entry: &RuleEntry,
    form: &Form<'_>,
    modelled: Option<&seal_parse::shell::Modelled<'_>>,
) -> bool {
    command_matches(entry, form)
        || matches!((&entry.model, modelled), (Some(rule), Some(command)) if rule.matches(command))
}

/// Whether a deny or ask rule matches the command as written (a literal specifier; a plain
/// one only when the command cannot be segmented, see `CommandPattern::is_plain`).
pub(super) fn matches_written(entry: &RuleEntry, text: &str, analysable: bool) -> bool {
    matches!(entry.rule.specifier(), Specifier::Command(p)
        if !(analysable && p.is_plain()) && p.matches_text(text))
}

/// The words of the payload a form's program runs (`rm -rf {} +` of `find . -exec rm -rf {}
/// +`), when `code` names one and it is not empty.
pub(super) fn payload_words<'a>(
    form: &Form<'a>,
    code: CarriedCode,
) -> Option<impl Iterator<Item = &'a str> + Clone + 'a> {
    let (start, end) = code.payload?;
    let payload = form.words().skip(start).take(end.saturating_sub(start));
    payload.clone().next()?;
    Some(payload)
}

/// Whether a deny or ask rule matches a payload's words, its program as written or by its
/// basename.
pub(super) fn matches_payload<'a, I>(entry: &RuleEntry, payload: I) -> bool
where
    I: Iterator<Item = &'a str> + Clone,
{
    let Some(first) = payload.clone().next() else {
        return false;
    };
    let base = first.rsplit('/').next().unwrap_or(first);
    let based = std::iter::once(base).chain(payload.clone().skip(1));
    command_matches_words(entry, payload) || command_matches_words(entry, based)
}

/// Every suffix of a launcher's words that deny and ask read, program first: from each word
/// on, as written, then with the basename of its first word when that differs.
pub(super) fn launcher_suffixes<'a>(
    launcher: LauncherRef<'a>,
) -> impl Iterator<Item = (&'a str, Words<'a>)> + 'a {
    (0..launcher.words().len()).flat_map(move |start| {
        let mut suffix = launcher.words();
        for _ in 0..start {
            suffix.next();
        }
        let first = suffix.next();
        [false, true].into_iter().filter_map(move |based| {
            let first = first?;
            if !based {
                return Some((first, suffix.clone()));
            }
            match first.rsplit_once('/') {
                Some((_, base)) if !base.is_empty() => Some((base, suffix.clone())),
                _ => None,
            }
        })
    })
}

pub(super) fn command_matches(entry: &RuleEntry, form: &Form<'_>) -> bool {
    matches!(entry.rule.specifier(), Specifier::Command(p) if p.matches(form))
}

pub(super) fn command_matches_words<'a, I>(entry: &RuleEntry, words: I) -> bool
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    matches!(entry.rule.specifier(), Specifier::Command(p) if p.matches_words(words))
}

/// Every form of the segment with the name of the first named form it equals.
pub(super) fn labelled_forms<'a>(
    seg: SegmentRef<'a>,
) -> impl Iterator<Item = (FormKind, Form<'a>)> {
    let forms = seg.forms();
    forms
        .all()
        .map(move |form| (form_kind(&forms, &form), form))
}

/// The name of the first named form `form` equals.
fn form_kind(forms: &NormalizedForms<'_>, form: &Form<'_>) -> FormKind {
    NAMED_KINDS
        .into_iter()
        // Forms are suffixes of the same words: equal argument counts and programs mean the
        // same form, without comparing every word. Named forms are built only as far as the
        // search goes (most segments stop at the canonical form).
        .find(|kind| {
            let named = named_form(forms, *kind);
            named.args().len() == form.args().len() && named.program() == form.program()
        })
        .unwrap_or(FormKind::Intermediate)
}

/// The named forms, in the order a form takes the first name it equals.
const NAMED_KINDS: [FormKind; 5] = [
    FormKind::Canonical,
    FormKind::EnvStripped,
    FormKind::Basename,
    FormKind::WrapperStripped,
    FormKind::Normalized,
];

/// The form of a segment that a named kind stands for (an intermediate form has no name: it
/// is never asked for).
fn named_form<'a>(forms: &NormalizedForms<'a>, kind: FormKind) -> Form<'a> {
    match kind {
        FormKind::Canonical | FormKind::Intermediate => forms.canonical(),
        FormKind::EnvStripped => forms.env_stripped(),
        FormKind::Basename => forms.basename(),
        FormKind::WrapperStripped => forms.wrapper_stripped(),
        FormKind::Normalized => forms.normalized(),
    }
}
