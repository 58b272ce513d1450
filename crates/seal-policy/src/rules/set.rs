//! A rule set and its evaluation on one call: deny beats ask beats allow, commands per segment.

use std::sync::Arc;

use seal_parse::shell::{segment, Form, NormalizedForms, Segment, Segments};

use super::domain::url_host;
use super::evaluation::{AskCause, Evaluation, FormKind, Input, Match, Site, Unanalysed};
use super::path::{canonical_path, CanonicalPath};
use super::rule::{FieldKind, Rule, RuleSyntaxError, Specifier};
use super::{Effect, RuleLimits};

/// The typed field of a call that rules bind to. Rules never see a serialized blob of all
/// arguments: the embedder (or the chain adapter) picks the one field the tool's rules are
/// about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject<'a> {
    /// The call has no field rules look at (or the embedder has none to give): only rules
    /// without a specifier can match, and a specifier rule for the tool makes the call
    /// unanalysed (never allowed by rules).
    None,
    /// The command line of a shell tool.
    Command(&'a str),
    /// The path of a file tool, as given (canonicalized before matching).
    Path(&'a str),
    /// The URL of a web tool.
    Url(&'a str),
}

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
    text: String,
    effect: Effect,
    rule: Rule,
    location: Option<Location>,
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
        }
    }

    /// The same set, placing absolute paths under `root` (an absolute path) relative to it
    /// before matching path rules. Without a root, every absolute path is outside the
    /// workspace: path rules never allow it and the evaluation asks.
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> RuleSet {
        self.workspace_root = Some(root.to_owned());
        self
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
        self.rules.push(RuleEntry {
            text: text.to_owned(),
            effect,
            rule,
            location,
        });
        Ok(())
    }

    /// The rules, in the order they were added (`allow`, then `ask`, then `deny` for a file).
    #[must_use]
    pub fn rules(&self) -> &[RuleEntry] {
        &self.rules
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
    /// assert_eq!(run("git log $(rm -rf t)"), Some(Effect::Ask));
    /// assert_eq!(run("git log && ls"), None);
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    #[must_use]
    pub fn evaluate(&self, tool: &str, subject: Subject<'_>) -> Evaluation {
        let scan = self.scan(tool, subject, Input::Submitted, Detail::Every);
        combine(scan, None)
    }

    /// [`RuleSet::evaluate`], except that an allow carries only its first match (the decisive
    /// one): the chain's rules listener needs no more, and the others are not built.
    pub(crate) fn evaluate_decisive(&self, tool: &str, subject: Subject<'_>) -> Evaluation {
        let scan = self.scan(tool, subject, Input::Submitted, Detail::Decisive);
        combine(scan, None)
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
        let first = self.scan(tool, submitted, Input::Submitted, Detail::Every);
        let second = self.scan(tool, rewritten, Input::Rewritten, Detail::Every);
        combine(second, Some(first))
    }

    fn scan(&self, tool: &str, subject: Subject<'_>, input: Input, detail: Detail) -> Scan {
        let rules = Applicable {
            entries: &self.rules,
            tool,
        };
        let mut scan = Scan::default();
        let field = self.field(tool, subject, rules, input);
        if let Field::Unanalysed(u) = &field {
            scan.unanalysed = Some(u.clone());
        }
        for effect in [Effect::Deny, Effect::Ask] {
            let found = first_hit(rules, effect, &field, input);
            match effect {
                Effect::Deny => scan.deny = found,
                _ => scan.ask = found,
            }
        }
        scan.allow = allow_cover(rules, &field, input, detail);
        scan
    }

    fn field(
        &self,
        tool: &str,
        subject: Subject<'_>,
        rules: Applicable<'_>,
        input: Input,
    ) -> Field {
        let kind = FieldKind::of(tool);
        let specified = rules
            .iter()
            .any(|(_, e)| !matches!(e.rule.specifier(), Specifier::Any));
        let unanalysed = |code: &'static str, reason: String| {
            Field::Unanalysed(Unanalysed {
                input,
                code,
                reason,
            })
        };
        match (kind, subject) {
            (FieldKind::Command, Subject::Command(command)) => {
                match segment(command, &self.limits.shell) {
                    Ok(segments) => Field::Command(segments),
                    Err(e) => unanalysed(e.reason.code(), e.to_string()),
                }
            }
            (FieldKind::Command, _) => unanalysed(
                "field_missing",
                "the call gives no command to check rules against".to_owned(),
            ),
            (FieldKind::Path, Subject::Path(path)) => {
                match canonical_path(path, self.workspace_root.as_deref()) {
                    CanonicalPath::Relative(path) => Field::Path(path),
                    CanonicalPath::Outside(why) if specified => unanalysed(
                        "path_outside_workspace",
                        format!("path `{}`: {why}", path.escape_debug()),
                    ),
                    CanonicalPath::Outside(_) => Field::Opaque,
                }
            }
            (FieldKind::Url, Subject::Url(url)) => match url_host(url) {
                Ok(host) => Field::Host(host),
                Err(why) if specified => unanalysed(
                    "url_not_plain",
                    format!("URL `{}`: {why}", url.escape_debug()),
                ),
                Err(_) => Field::Opaque,
            },
            (FieldKind::Path | FieldKind::Url, _) if specified => unanalysed(
                "field_missing",
                "the call gives no field for the tool's rules to check".to_owned(),
            ),
            _ => Field::Opaque,
        }
    }
}

/// The rules that name the tool, in set order, with their indices: a view, so that selecting
/// them allocates nothing.
#[derive(Clone, Copy)]
struct Applicable<'a> {
    entries: &'a [RuleEntry],
    tool: &'a str,
}

impl<'a> Applicable<'a> {
    fn iter(self) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.entries
            .iter()
            .enumerate()
            .filter(move |(_, entry)| entry.rule.tool().matches(self.tool))
    }

    /// The rules of one effect (the effect is compared first: it is the cheaper test).
    fn of(self, effect: Effect) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.entries.iter().enumerate().filter(move |(_, entry)| {
            entry.effect == effect && entry.rule.tool().matches(self.tool)
        })
    }
}

/// How many matches an allow keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// One per segment, then per launcher ([`Evaluation::Allow`] as documented).
    Every,
    /// The first only.
    Decisive,
}

/// The typed field, ready for matching.
enum Field {
    Command(Segments),
    Path(String),
    Host(String),
    /// Only rules without a specifier apply.
    Opaque,
    /// Rules without a specifier apply; no rule may allow.
    Unanalysed(Unanalysed),
}

#[derive(Default)]
struct Scan {
    deny: Option<Match>,
    ask: Option<Match>,
    unanalysed: Option<Unanalysed>,
    /// `Ok(matches)` when allow rules cover the field; `Err(site)` otherwise, with the first
    /// uncovered site when there is one to name.
    allow: Option<Result<Vec<Match>, Option<Site>>>,
}

fn combine(main: Scan, other: Option<Scan>) -> Evaluation {
    let (other_deny, other_ask, other_unanalysed) = match other {
        Some(scan) => (scan.deny, scan.ask, scan.unanalysed),
        None => (None, None, None),
    };
    if let Some(m) = other_deny.or(main.deny) {
        return Evaluation::Deny(m);
    }
    if let Some(m) = other_ask.or(main.ask) {
        return Evaluation::Ask(AskCause::Rule(m));
    }
    if let Some(u) = other_unanalysed.or(main.unanalysed) {
        return Evaluation::Ask(AskCause::Unanalysed(u));
    }
    match main.allow {
        Some(Ok(matches)) => Evaluation::Allow(matches),
        Some(Err(site)) => Evaluation::NoMatch(site),
        None => Evaluation::NoMatch(None),
    }
}

/// The first rule of `effect` matching anything in the field (segments in order, forms
/// canonical first, then launchers; rules in set order within one site).
fn first_hit(rules: Applicable<'_>, effect: Effect, field: &Field, input: Input) -> Option<Match> {
    let of_effect = || rules.of(effect);
    let hit = |index: usize, entry: &RuleEntry, site: Site| Match {
        rule: index,
        effect,
        text: entry.text.clone(),
        site,
        input,
    };
    // Rules without a specifier match every call of the tool, whatever its field.
    if let Some((index, entry)) = of_effect().find(|(_, e)| *e.rule.specifier() == Specifier::Any) {
        return Some(hit(index, entry, Site::Tool));
    }
    match field {
        Field::Command(segments) => {
            for (at, seg) in segments.iter().enumerate() {
                for (kind, form) in labelled_forms(seg) {
                    if let Some((index, entry)) =
                        of_effect().find(|(_, e)| command_matches(e, &form))
                    {
                        return Some(hit(
                            index,
                            entry,
                            Site::Segment {
                                index: at,
                                kind,
                                form: joined(&form),
                            },
                        ));
                    }
                }
            }
            for (at, launcher) in distinct_launchers(segments) {
                for start in 0..launcher.len() {
                    let Some(words) = launcher.get(start..) else {
                        continue;
                    };
                    for based in [false, true] {
                        let Some(form) = suffix_words(words, based) else {
                            continue;
                        };
                        let found =
                            of_effect().find(|(_, e)| command_matches_words(e, form.clone()));
                        if let Some((index, entry)) = found {
                            return Some(hit(
                                index,
                                entry,
                                Site::Launcher {
                                    segment: at,
                                    form: form.collect::<Vec<_>>().join(" "),
                                },
                            ));
                        }
                    }
                }
            }
            None
        }
        Field::Path(path) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Path(p) if p.matches(path)))
            .map(|(index, entry)| hit(index, entry, Site::Path(path.clone()))),
        Field::Host(host) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Domain(d) if d.matches(host)))
            .map(|(index, entry)| hit(index, entry, Site::Host(host.clone()))),
        Field::Opaque | Field::Unanalysed(_) => None,
    }
}

/// Whether allow rules cover the field: `None` when no allow rule names the tool.
fn allow_cover(
    rules: Applicable<'_>,
    field: &Field,
    input: Input,
    detail: Detail,
) -> Option<Result<Vec<Match>, Option<Site>>> {
    let allows = || rules.of(Effect::Allow);
    // No allow rule names the tool: nothing to cover.
    allows().next()?;
    let hit = |index: usize, entry: &RuleEntry, site: Site| Match {
        rule: index,
        effect: Effect::Allow,
        text: entry.text.clone(),
        site,
        input,
    };
    let any = allows().find(|(_, e)| *e.rule.specifier() == Specifier::Any);
    match field {
        Field::Unanalysed(_) => Some(Err(None)),
        Field::Command(segments) => {
            if let Some((index, entry)) = any {
                return Some(Ok(vec![hit(index, entry, Site::Tool)]));
            }
            let mut matches = Vec::new();
            // Sites are written out only for a match that is kept, or for the uncovered one.
            let keep = |matches: &Vec<Match>| detail == Detail::Every || matches.is_empty();
            for (at, seg) in segments.iter().enumerate() {
                let canonical = seg.forms().canonical();
                let site = || Site::Segment {
                    index: at,
                    kind: FormKind::Canonical,
                    form: joined(&canonical),
                };
                match allows().find(|(_, e)| command_matches(e, &canonical)) {
                    Some((index, entry)) if keep(&matches) => {
                        matches.push(hit(index, entry, site()));
                    }
                    Some(_) => {}
                    None => return Some(Err(Some(site()))),
                }
                for launcher in seg.launchers() {
                    let site = || Site::Launcher {
                        segment: at,
                        form: launcher.join(" "),
                    };
                    match allows().find(|(_, e)| {
                        command_matches_words(e, launcher.iter().map(String::as_str))
                    }) {
                        Some((index, entry)) if keep(&matches) => {
                            matches.push(hit(index, entry, site()));
                        }
                        Some(_) => {}
                        None => return Some(Err(Some(site()))),
                    }
                }
            }
            Some(Ok(matches))
        }
        Field::Path(path) => {
            let site = Site::Path(path.clone());
            let found = any.or_else(|| {
                allows().find(
                    |(_, e)| matches!(e.rule.specifier(), Specifier::Path(p) if p.matches(path)),
                )
            });
            Some(
                found
                    .map(|(i, e)| vec![hit(i, e, site.clone())])
                    .ok_or(Some(site)),
            )
        }
        Field::Host(host) => {
            let site = Site::Host(host.clone());
            let found = any.or_else(|| {
                allows().find(
                    |(_, e)| matches!(e.rule.specifier(), Specifier::Domain(d) if d.matches(host)),
                )
            });
            Some(
                found
                    .map(|(i, e)| vec![hit(i, e, site.clone())])
                    .ok_or(Some(site)),
            )
        }
        Field::Opaque => Some(any.map(|(i, e)| vec![hit(i, e, Site::Tool)]).ok_or(None)),
    }
}

/// The form's words joined by single spaces (its `Display`), sized up front so that it is one
/// allocation.
fn joined(form: &Form<'_>) -> String {
    let len = form.words().map(|word| word.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(len.saturating_sub(1));
    for (at, word) in form.words().enumerate() {
        if at > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn command_matches(entry: &RuleEntry, form: &Form<'_>) -> bool {
    matches!(entry.rule.specifier(), Specifier::Command(p) if p.matches(form))
}

fn command_matches_words<'a>(entry: &RuleEntry, words: impl IntoIterator<Item = &'a str>) -> bool {
    matches!(entry.rule.specifier(), Specifier::Command(p) if p.matches_words(words))
}

/// Every form of the segment with the name of the first named form it equals.
fn labelled_forms(seg: &Segment) -> impl Iterator<Item = (FormKind, Form<'_>)> {
    let forms = seg.forms();
    forms.all().map(move |form| {
        let kind = NAMED_KINDS
            .into_iter()
            // Forms are suffixes of the same words: equal argument counts and programs mean
            // the same form, without comparing every word. Named forms are built only as far
            // as the search goes (most segments stop at the canonical form).
            .find(|kind| {
                let named = named_form(&forms, *kind);
                named.args().len() == form.args().len() && named.program() == form.program()
            })
            .unwrap_or(FormKind::Intermediate);
        (kind, form)
    })
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

/// Each distinct launcher (launchers are shared between the segments of one payload) with the
/// index of the first segment it launched.
fn distinct_launchers(segments: &Segments) -> Vec<(usize, &Arc<[String]>)> {
    let mut out: Vec<(usize, &Arc<[String]>)> = Vec::new();
    for (at, seg) in segments.iter().enumerate() {
        for launcher in seg.launchers() {
            if !out.iter().any(|(_, seen)| Arc::ptr_eq(seen, launcher)) {
                out.push((at, launcher));
            }
        }
    }
    out
}

/// The words of a launcher suffix, with the first one reduced to its basename when `based`
/// (`None` when that changes nothing, so each distinct form is tried once).
fn suffix_words(words: &[String], based: bool) -> Option<impl Iterator<Item = &str> + Clone + '_> {
    let (first, rest) = words.split_first()?;
    let program = if based {
        match first.rsplit_once('/') {
            Some((_, base)) if !base.is_empty() => base,
            _ => return None,
        }
    } else {
        first.as_str()
    };
    Some(std::iter::once(program).chain(rest.iter().map(String::as_str)))
}
