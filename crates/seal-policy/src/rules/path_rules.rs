//! The paths a command names: the `Read` and `Edit` deny and ask rules matching each, and the
//! workspace boundary where allow rules and the client's default mode stop.

use seal_parse::shell::{SegmentRef, SegmentsRef};

use crate::paths::{command_paths, Access, CommandPath, Cwd, ReadPlace, Whereabouts};

use super::evaluation::{Input, Unanalysed};
use super::placed::{place, SplitPath};
use super::read_only;
use super::rule::Specifier;
use super::set::{RuleEntry, RuleSet};
use super::site::{Hit, SiteRef};
use super::Effect;

impl RuleSet {
    /// The first deny and the first ask path rule matching a path the command names: `Read`
    /// rules on every path a program reads (`cat .env` under `Read(.env)`), `Edit` rules (and
    /// `Read` denies and asks, which Claude Code applies to edits too) on every path a program
    /// writes, each placed by the one resolver in the working directory the command gives it.
    pub(super) fn path_rule_hits<'f>(
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
    pub(super) fn path_outside(
        &self,
        segments: SegmentsRef<'_>,
        input: Input,
    ) -> Option<Unanalysed> {
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
            let at = segments.get(path.segment).map(|seg| seg.span().start);
            // Only the offset in the reason depends on it: the command asks either way.
            debug_assert!(
                at.is_some(),
                "a command path names a segment of its command"
            );
            let at = at.unwrap_or(0);
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
    pub(super) fn path_allowed(&self, word: &str, access: Access, cwd: Cwd<'_>) -> bool {
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
fn access_verb(access: Access) -> &'static str {
    match access {
        Access::Read => "reads",
        Access::Write => "writes",
        Access::Both => "may read or write",
        Access::Use => "uses",
    }
}
