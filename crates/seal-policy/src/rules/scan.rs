//! Evaluating a rule set on one call: one scan of the deny, ask and allow rules over the typed
//! field, and how scans combine (deny beats ask beats allow).

use seal_parse::shell::SegmentBuffer;

use crate::chain::Subject;

use super::cover::{allow_cover, DefaultMode};
use super::evaluation::{AskCause, Evaluation, Input, Match, Unanalysed};
use super::field::Field;
use super::index::Applicable;
use super::matching::{code_in_arguments, first_hits};
use super::read_only;
use super::rule::Specifier;
use super::set::RuleSet;
use super::site::{Hit, SiteRef};
use super::Effect;

impl RuleSet {
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
    pub(super) fn scan<'f>(
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
                            path.absolute_or_relative(),
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
            if read_only::edits(rules.tool) && read_only::guarded_component(path.shown()) {
                scan.unanalysed = Some(Unanalysed {
                    input,
                    code: "path_outside_workspace",
                    reason: format!(
                        "path `{}`: Claude Code asks before anything writes here (its settings, git's own files)",
                        path.shown()
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
                        path.shown()
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
}

pub(super) struct Scan<'a> {
    deny: Option<Hit<'a>>,
    ask: Option<Hit<'a>>,
    unanalysed: Option<Unanalysed>,
    /// `Ok(by_default)` when allow rules (with the client's default mode where `by_default`)
    /// cover the field; `Err(site)` otherwise, with the first uncovered site when there is one
    /// to name.
    pub(super) allow: Option<Result<bool, Option<SiteRef<'a>>>>,
}

/// What the scans amount to, deny beating ask beating allow.
pub(super) enum Outcome<'a> {
    Deny(Hit<'a>),
    Ask(Hit<'a>),
    Unanalysed(Unanalysed),
    Allow,
    /// Allowed by the client's default mode (in part, for a command some of whose segments
    /// allow rules cover).
    ClientDefault,
    NoMatch(Option<SiteRef<'a>>),
}

pub(super) fn combine<'a>(main: Scan<'a>, other: Option<Scan<'a>>) -> Outcome<'a> {
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
pub(super) fn owned(outcome: Outcome<'_>, allowed: Vec<Match>) -> Evaluation {
    match outcome {
        Outcome::Deny(hit) => Evaluation::Deny(hit.to_match()),
        Outcome::Ask(hit) => Evaluation::Ask(AskCause::Rule(hit.to_match())),
        Outcome::Unanalysed(u) => Evaluation::Ask(AskCause::Unanalysed(u)),
        Outcome::Allow => Evaluation::Allow(allowed),
        Outcome::ClientDefault => Evaluation::ClientDefault(allowed),
        Outcome::NoMatch(site) => Evaluation::NoMatch(site.as_ref().map(SiteRef::to_site)),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::{AskCause, Effect, Evaluation, RuleSet, Subject};

    /// What a one-rule set without a workspace root gives on a `Read` of `path`.
    fn read_without_root(effect: Effect, rule: &str, path: &str) -> String {
        let mut rules = RuleSet::default();
        assert!(rules.push(effect, rule).is_ok(), "{rule}");
        match rules.evaluate("Read", Subject::Path(path)) {
            Evaluation::Ask(AskCause::Unanalysed(u)) => u.code.to_owned(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn a_rule_that_depends_on_the_unknown_root_asks() {
        let code = read_without_root(Effect::Deny, "Read(/secrets/**)", "/srv/app/secrets/a");
        assert_eq!(code, "path_outside_workspace");
        let code = read_without_root(Effect::Allow, "Read(/docs/**)", "/srv/app/docs/a");
        assert_eq!(code, "path_outside_workspace");
        // An absolute allow covers the path, but a root-relative deny might match it too: the
        // call asks rather than being allowed past a deny that may apply.
        let mut rules = RuleSet::default();
        assert!(rules.push(Effect::Allow, "Read(//srv/**)").is_ok());
        assert!(rules.push(Effect::Deny, "Read(/secrets/**)").is_ok());
        let evaluation = rules.evaluate("Read", Subject::Path("/srv/app/secrets/a"));
        assert!(
            matches!(&evaluation, Evaluation::Ask(AskCause::Unanalysed(u)) if u.code == "path_outside_workspace"),
            "{evaluation:?}"
        );
    }

    #[test]
    fn an_allow_of_a_directory_anywhere_asks_without_a_root_and_its_deny_twin_denies() {
        // `docs/**` names `docs` at the root or at any depth: without a known root an allow
        // cannot tell whether the path is inside, so it asks; a deny reads it at any depth.
        let code = read_without_root(Effect::Allow, "Read(docs/**)", "/srv/app/docs/a");
        assert_eq!(code, "path_outside_workspace");
        let denied = read_without_root(Effect::Deny, "Read(docs/**)", "/srv/app/docs/a");
        assert!(denied.starts_with("Deny"), "{denied}");
    }

    #[test]
    fn the_first_rule_matching_a_readable_part_is_the_one_named() {
        let mut rules = RuleSet::default();
        for (effect, text) in [
            (Effect::Deny, "Bash(rm:*)"),
            (Effect::Deny, "Bash(curl:*)"),
            (Effect::Ask, "Bash(git push:*)"),
            (Effect::Ask, "Bash(npm publish:*)"),
        ] {
            assert!(rules.push(effect, text).is_ok(), "{text}");
        }
        let deny = rules.evaluate("Bash", Subject::Command("echo $(rm -rf t) $(curl x)"));
        assert!(
            matches!(&deny, Evaluation::Deny(m) if m.text == "Bash(rm:*)"),
            "{deny:?}"
        );
        let ask = rules.evaluate("Bash", Subject::Command("echo $(git push) $(npm publish)"));
        assert!(
            matches!(&ask, Evaluation::Ask(AskCause::Rule(m)) if m.text == "Bash(git push:*)"),
            "{ask:?}"
        );
    }
}
