//! Deny and ask matching: the first deny and the first ask rule matching any site of the field
//! (every form of every segment, the payloads programs run, launchers, the command as
//! written), and the predicates the explanation shares with the evaluation.

use seal_parse::shell::{
    carried_code, segment_into, CarriedCode, Form, LauncherRef, SegmentBuffer, SegmentsRef, Words,
};

use crate::paths::{Access, CommandPath, Cwd, ReadPlace};

use super::evaluation::{Input, Unanalysed};
use super::field::Field;
use super::index::Applicable;
use super::model::model_of;
use super::rule::Specifier;
use super::set::{RuleEntry, RuleSet};
use super::site::{form_kind, Hit, SiteRef};
use super::Effect;

/// The first deny rule and the first ask rule matching anything in the field: a rule without a
/// specifier first, then for a command the sites in order (segments, each form canonical
/// first, then launchers and their suffixes), rules in set order within one site. One pass
/// over the sites checks both effects, and stops at a deny, which no ask can outweigh.
pub(super) fn first_hits<'a>(
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
            .map(|(index, entry)| hit(index, entry, SiteRef::Path(path.shown()))),
        Field::Host(host) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Domain(d) if d.matches(host)))
            .map(|(index, entry)| hit(index, entry, SiteRef::Host(host))),
        Field::Name(name) => of_effect()
            .find(|(_, e)| matches!(e.rule.specifier(), Specifier::Name(n) if n == name))
            .map(|(index, entry)| hit(index, entry, SiteRef::Name(name))),
        Field::Opaque | Field::Unanalysed(..) => None,
    }
}

/// The first segment form whose program runs code its words or its input carry (an awk
/// program, `find -exec`, `xargs`, `python -c`, ...): no rule may allow such a command
/// (spec/policy-rules.md, section 4, step 1).
pub(super) fn code_in_arguments(
    segments: SegmentsRef<'_>,
    carrier: Option<Carrier<'_>>,
    input: Input,
) -> Option<Unanalysed> {
    let found = |at: usize, start: usize, program: &str, why: &str| {
        Unanalysed {
        input,
        code: "code_in_arguments",
        reason: format!(
            "segment {at} (at byte {start}): `{program}` {why}, which seal cannot see; no rule may allow it",
        ),
    }
    };
    if let Some(Carrier {
        segment,
        program,
        why,
    }) = carrier
    {
        // The carrier was found in these segments; were it not, the command still may not be
        // allowed.
        let start = segments.get(segment).map(|seg| seg.span().start);
        debug_assert!(start.is_some(), "a carrier names a segment of its command");
        return Some(found(segment, start.unwrap_or(0), program, why));
    }
    for (at, seg) in segments.iter().enumerate() {
        // The words of the shell invocations its payload came from (`xargs sh -c '...'`),
        // from each word on.
        for launcher in seg.launchers() {
            let mut words = launcher.words();
            while let Some(program) = words.clone().next() {
                if let Some(code) = seal_parse::shell::carried_code_in(words.clone()) {
                    return Some(found(at, seg.span().start, program, code.why));
                }
                words.next();
            }
        }
    }
    None
}

/// The first segment form found whose program runs code its words or input carry.
#[derive(Clone, Copy)]
pub(super) struct Carrier<'a> {
    pub(super) segment: usize,
    pub(super) program: &'a str,
    pub(super) why: &'static str,
}

impl RuleSet {
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
    let base = first.rsplit_once('/').map_or(first, |(_, base)| base);
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
