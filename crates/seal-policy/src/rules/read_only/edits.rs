//! The edits Claude Code's accept-edits mode allows with no rule: a program of a short list,
//! every path inside the workspace.

use seal_parse::shell::SegmentRef;

use super::plain::plain_segment;
use super::{guarded_component, literal};
use crate::paths::{Cwd, Places, Whereabouts};

/// The programs Claude Code's accept-edits mode runs with no rule on paths inside the
/// workspace (observed with 2.1.332; `sed -i` too, which seal leaves out: a sed script can run
/// commands).
const EDITING_PROGRAMS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "cp", "mv"];

/// Whether `segment` is an edit accept-edits mode allows with no rule: a program of
/// [`EDITING_PROGRAMS`] as written, no word the shell expands or with a character a shell
/// reads, no path with a `..` or a guarded component, every path inside the workspace.
pub(in crate::rules) fn accepted_edit(segment: &SegmentRef<'_>, places: &Places) -> bool {
    // (Paths in added directories count as inside; `Read` allow rules do not cover edits.)
    if !plain_segment(segment) {
        return false;
    }
    let mut words = segment.words().enumerate().skip(segment.assignments());
    let Some((_, program)) = words.next() else {
        return false;
    };
    if !EDITING_PROGRAMS.contains(&program) {
        return false;
    }
    let mut operands = false;
    for (at, word) in words {
        if segment.word_expands(at) || !literal(word) || word.is_empty() {
            return false;
        }
        if word.starts_with('-') && !operands {
            if word == "--" {
                operands = true;
            }
            continue;
        }
        if word.split('/').any(|part| part == "..") || guarded_component(word) {
            return false;
        }
        if places.whereabouts(word, Cwd::Root) != Whereabouts::Inside {
            return false;
        }
    }
    true
}
