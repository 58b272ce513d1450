//! What one segment's program does to each path it names: reads or changes the tree below
//! it, only names it, or, for a copy or a move, writes below its target directory.

use super::command::Walked;
use super::installer::installer_touches;
use super::options::{has_recursive_option, FindReading};
use super::place::place;
use super::tables::{COPIERS, NAME_READERS, RECURSIVE_READERS, TREE_CHANGERS, TREE_READERS};
use super::Touch;
use crate::paths::{Access, Cwd, Places, Unplaced};

/// The touches of one segment's walked paths: what its program does to each, and for a copy or
/// a move, the paths it writes below its target directory.
pub(super) fn segment_touches<'a>(
    segment: &seal_parse::shell::SegmentRef<'a>,
    group: &[Walked<'a>],
    places: &Places,
    out: &mut Vec<Touch<'a>>,
) {
    let form = segment.forms().normalized();
    let program = form.program();
    let by = form.to_string();
    let named = |list: &[&str]| list.iter().any(|name| program.eq_ignore_ascii_case(name));
    // `-a` is recursive for copies (archive mode) only: grep and diff read it as "text".
    let recursive = if named(&["cp", "gcp", "rsync"]) {
        has_recursive_option(form.args(), &['r', 'R', 'a'], true)
    } else if named(&["scp"]) {
        has_recursive_option(form.args(), &['r'], false)
    } else {
        has_recursive_option(form.args(), &['r', 'R'], false)
    };
    let reads_tree = named(TREE_READERS) || (named(RECURSIVE_READERS) && recursive);
    let changes_tree = named(TREE_CHANGERS);
    let names_only = named(NAME_READERS);
    let moves = named(&["mv", "gmv", "ln"]);
    // `find` changes what it finds with `-delete` and may with `-exec`, maybe only the names
    // its `-name` tests match.
    let find = named(&["find", "gfind", "bfs"]).then(|| FindReading::of(form.args()));
    // The values of leading assignments come first, one per assignment with a value.
    let assigned = segment
        .words()
        .take(segment.assignments())
        .filter(|word| {
            word.split_once('=')
                .is_some_and(|(_, value)| !value.is_empty())
        })
        .count()
        .min(group.len());
    let (assignments, operands) = group.split_at(assigned);
    installer_touches(program, form.args(), &by, operands, places, out);
    for walked in assignments {
        out.push(Touch {
            by: by.clone(),
            word: walked.word,
            access: walked.access,
            names_only: false,
            reads_below: false,
            changes_below: false,
            changed_names: None,
            spots: walked.spots.clone(),
        });
    }
    // A move's or a link's target: the `-t` directory (written), else its last operand; a
    // copy's: the written operand.
    let target_at = if moves {
        operands
            .iter()
            .rposition(|w| w.access == Access::Write)
            .or_else(|| operands.len().checked_sub(1).filter(|_| operands.len() > 1))
    } else if named(COPIERS) {
        operands.iter().rposition(|w| w.access == Access::Write)
    } else {
        None
    };
    // A tree moved, linked or copied recursively onto a target that does not exist becomes
    // it, whatever the target holds then: only a directory that surely exists (the workspace,
    // the home directory, a directory above them) takes it below.
    let tree = moves || (named(COPIERS) && recursive);
    for (at, walked) in operands.iter().enumerate() {
        let is_target = target_at == Some(at);
        let access = if moves && is_target {
            Access::Write
        } else {
            walked.access
        };
        let touch = if is_target {
            Touch {
                by: by.clone(),
                word: walked.word,
                access,
                names_only,
                reads_below: false,
                changes_below: tree && !walked.spots.iter().all(|spot| surely_exists(places, spot)),
                changed_names: None,
                spots: walked.spots.clone(),
            }
        } else {
            let changes_find = find.as_ref().is_some_and(|find| find.changes);
            Touch {
                by: by.clone(),
                word: walked.word,
                access,
                names_only,
                reads_below: access.reads()
                    && (reads_tree || (access == Access::Both && !names_only)),
                changes_below: (access.writes() && changes_tree) || changes_find,
                changed_names: find.as_ref().and_then(|find| find.names.clone()),
                spots: walked.spots.clone(),
            }
        };
        out.push(touch);
        for (part, spots) in &walked.colon_parts {
            // Each part as the word itself is read (a program without a model may read or
            // write it, or everything below it).
            out.push(Touch {
                by: by.clone(),
                word: part,
                access: Access::Both,
                names_only: false,
                reads_below: true,
                changes_below: false,
                changed_names: None,
                spots: spots.clone(),
            });
        }
    }
    // What a copy or a move writes below its target directory: TARGET/NAME for each source
    // (the whole tree for a recursive copy, a move or a link), or TARGET itself for a source
    // naming its contents (`src/.`, and rsync's `src/`).
    let Some(target) = target_at.and_then(|at| operands.get(at)) else {
        return;
    };
    let rsync = named(&["rsync"]);
    for (at, source) in operands.iter().enumerate() {
        if Some(at) == target_at || !source.access.reads() {
            continue;
        }
        let trimmed = source.word.trim_end_matches('/');
        let contents = rsync && source.word.ends_with('/');
        let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
        for spot in target.spots.iter().filter_map(|spot| spot.as_ref().ok()) {
            let into = if contents || matches!(name, "" | "." | "..") {
                spot.clone()
            } else {
                format!("{}/{name}", spot.trim_end_matches('/'))
            };
            out.push(Touch {
                by: by.clone(),
                word: source.word,
                access: Access::Write,
                names_only: false,
                reads_below: false,
                changes_below: tree,
                changed_names: None,
                spots: place(places, &into, Cwd::Root),
            });
        }
    }
}

/// Whether `spot` is a directory that surely exists: `/`, or a directory at or above the
/// workspace root or the home directory.
fn surely_exists(places: &Places, spot: &Result<String, Unplaced>) -> bool {
    let Ok(path) = spot else {
        return false;
    };
    let parts = |path: &'_ str| -> Vec<String> {
        path.split('/')
            .filter(|part| !part.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let own = parts(path);
    places
        .root()
        .into_iter()
        .chain(places.home())
        .any(|dir| parts(dir).starts_with(&own))
}
