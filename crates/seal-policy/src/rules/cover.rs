//! Allow coverage: whether allow rules, or the client's default mode, cover every site of the
//! field (every segment's canonical form and every launcher of a command).

use seal_parse::shell::SegmentRef;

use crate::paths::{Access, Cwd, Places, Whereabouts};

use super::evaluation::{FormKind, Input};
use super::field::Field;
use super::index::Applicable;
use super::matching::{command_matches, command_matches_words};
use super::placed::Placed;
use super::read_only::{self, ClientDefault};
use super::rule::{FieldKind, Specifier};
use super::set::{RuleEntry, RuleSet};
use super::site::{Hit, SiteRef};
use super::Effect;

/// Whether allow rules (and the client's default mode) cover the field: `None` when no allow
/// rule names the tool and the default mode allows nothing here. `Ok(true)` when the default
/// mode covered some part. Each match covering a site goes to `keep` while it returns `true`.
pub(super) fn allow_cover<'a>(
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
        // An unanalysable field asks whatever allow rules say (the scan's outcome puts it
        // before allow), so no coverage is read for it.
        Field::Unanalysed(..) => None,
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
                    let Some(program) = words.next() else {
                        // A launcher is the words of a shell invocation, its program first;
                        // were it empty, nothing would cover it.
                        debug_assert!(false, "a launcher has a program word");
                        return Some(Err(None));
                    };
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
            one(
                found,
                SiteRef::Path(path.shown()),
                default.allows_path(path),
            )
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

/// What the client's default mode needs to know about a call.
#[derive(Clone, Copy)]
pub(super) struct DefaultMode<'a> {
    pub(super) mode: ClientDefault,
    pub(super) tool: &'a str,
    pub(super) places: &'a Places,
    pub(super) rules: &'a RuleSet,
}

impl DefaultMode<'_> {
    /// Whether a read-only command of the mode may read `word`: inside the workspace or an
    /// added directory, or covered by a `Read` allow rule (Claude Code 2.1.332 lets `cat`
    /// read `~/shared/x` under `Read(~/shared/**)` with no `Bash` rule).
    pub(super) fn readable(self, word: &str) -> bool {
        match self.places.whereabouts(word, Cwd::Root) {
            Whereabouts::Inside => true,
            Whereabouts::Outside => self.rules.path_allowed(word, Access::Read, Cwd::Root),
            Whereabouts::Unplaced(_) => false,
        }
    }

    pub(super) fn on(self) -> bool {
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

#[cfg(test)]
mod tests {
    use crate::rules::{Effect, Evaluation, RuleSet, Site, Subject};

    /// The allow rules `--explain` lists against a segment's canonical form: those that match
    /// it, or its form without the assignments Claude Code strips.
    fn listed(rule: &str, command: &str) -> bool {
        let mut rules = RuleSet::default();
        assert!(rules.push(Effect::Allow, rule).is_ok());
        let explained = rules.explain("Bash", Subject::Command(command));
        explained.segments.iter().any(|segment| {
            (segment.forms.iter()).any(|form| form.matches.iter().any(|m| m.text == rule))
        })
    }

    #[test]
    fn an_allow_is_listed_for_the_form_it_covers() {
        assert!(listed("Bash(npm test:*)", "npm test"));
        assert!(listed("Bash(npm test:*)", "NODE_ENV=test npm test"));
        assert!(!listed("Bash(npm test:*)", "npm run"));
    }

    #[test]
    fn the_uncovered_segment_is_named_only_when_allow_rules_name_the_tool() {
        let mut no_allow = RuleSet::default();
        assert!(no_allow.push(Effect::Deny, "Bash(rm:*)").is_ok());
        let evaluation = no_allow.evaluate("Bash", Subject::Command("git log && ls"));
        assert_eq!(evaluation, Evaluation::NoMatch(None));
        let mut allow = RuleSet::default();
        assert!(allow.push(Effect::Allow, "Bash(git log:*)").is_ok());
        let evaluation = allow.evaluate("Bash", Subject::Command("git log && ls"));
        assert!(
            matches!(
                &evaluation,
                Evaluation::NoMatch(Some(Site::Segment { index: 1, .. }))
            ),
            "{evaluation:?}"
        );
        let mut read = RuleSet::default().with_workspace_root("/ws");
        assert!(read.push(Effect::Deny, "Read(./.env)").is_ok());
        let evaluation = read.evaluate("Read", Subject::Path("/ws/src/a.rs"));
        assert_eq!(evaluation, Evaluation::NoMatch(None));
        assert!(read.push(Effect::Allow, "Read(./docs/**)").is_ok());
        let evaluation = read.evaluate("Read", Subject::Path("/ws/src/a.rs"));
        assert!(
            matches!(&evaluation, Evaluation::NoMatch(Some(Site::Path(_)))),
            "{evaluation:?}"
        );
    }
}
