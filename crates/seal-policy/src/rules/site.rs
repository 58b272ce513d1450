//! Where a rule matched: a hit, borrowed from the rule set and the field, and the names of a
//! segment's forms.

use std::fmt;
use std::sync::Arc;

use seal_parse::shell::{Form, NormalizedForms, SegmentRef, Words};

use crate::chain::Because;

use super::evaluation::{FormKind, Input, Match, Site};
use super::set::RuleEntry;

/// One rule matching one site, borrowed from the rule set and the field.
#[derive(Clone)]
pub(super) struct Hit<'a> {
    pub(super) rule: usize,
    pub(super) entry: &'a RuleEntry,
    pub(super) site: SiteRef<'a>,
    pub(super) input: Input,
}

impl Hit<'_> {
    pub(super) fn to_match(&self) -> Match {
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
    pub(super) fn because(&self, form: &mut Option<Arc<String>>) -> Because {
        let rule = Because::shared_rule(Arc::clone(&self.entry.text));
        match &self.site {
            SiteRef::Tool => rule,
            site => rule.with_pooled_form(form, site),
        }
    }
}

/// Where a rule matched, borrowed: [`Site`] without its strings.
#[derive(Clone)]
pub(super) enum SiteRef<'a> {
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
    pub(super) fn to_site(&self) -> Site {
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
pub(super) fn form_kind(forms: &NormalizedForms<'_>, form: &Form<'_>) -> FormKind {
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
