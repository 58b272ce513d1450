//! The walk of a segmented command: every path [`command_paths`] gives, placed where it may be
//! (every `cd` followed, or, once one cannot be, each run of them), then grouped by segment for
//! [`segment_touches`].

use seal_parse::shell::SegmentsRef;

use super::place::place;
use super::segment::segment_touches;
use super::Touch;
use crate::paths::{command_paths, Access, Cwd, Places, ReadPlace, Unplaced, MAX_CDS};

/// Most `cd` targets kept to place a path read after a `cd` the walk could not follow.
const MAX_KEPT_CDS: usize = 2 * MAX_CDS;

/// One path of a command as the walk gives it.
pub(super) struct Walked<'a> {
    pub(super) segment: usize,
    pub(super) word: &'a str,
    pub(super) access: Access,
    pub(super) spots: Vec<Result<String, Unplaced>>,
    /// For a word of a program without a path model with a `:` in it, the part before the
    /// first `:` and the part after the last one, and where each may be (`docker run -v
    /// ~/.aws:/root/.aws` mounts `~/.aws`; `git show HEAD:.env` reads `.env`).
    pub(super) colon_parts: Vec<(&'a str, Vec<Result<String, Unplaced>>)>,
}

pub(super) fn command_touches<'a>(segments: SegmentsRef<'a>, places: &Places) -> Vec<Touch<'a>> {
    let mut walked: Vec<Walked<'a>> = Vec::new();
    let mut cds: Vec<&'a str> = Vec::new();
    command_paths(segments, &mut |path, reading| {
        let spots_of = |word: &str| match reading {
            ReadPlace::In(cwd) => place(places, word, cwd),
            // Best effort: as if every `cd` seen ran, then fewer of them, then none.
            ReadPlace::Unplaced(_) => {
                let mut spots = Vec::new();
                let mut run = cds.as_slice();
                while let Some((_, shorter)) = run.split_last() {
                    spots.extend(place(places, word, Cwd::After(run)));
                    run = shorter;
                }
                spots.extend(place(places, word, Cwd::Root));
                spots
            }
        };
        let spots = spots_of(path.word);
        let mut colon_parts = Vec::new();
        if path.access == Access::Both {
            let before = path.word.split_once(':').map(|(before, _)| before);
            let after = path.word.rsplit_once(':').map(|(_, after)| after);
            for part in [before, after].into_iter().flatten() {
                if !part.is_empty() {
                    colon_parts.push((part, spots_of(part)));
                }
            }
        }
        if matches!(path.program, "cd" | "pushd" | "chdir") && cds.len() < MAX_KEPT_CDS {
            cds.push(path.word);
        }
        walked.push(Walked {
            segment: path.segment,
            word: path.word,
            access: path.access,
            spots,
            colon_parts,
        });
    });
    let mut touches = Vec::with_capacity(walked.len());
    for group in walked.chunk_by(|a, b| a.segment == b.segment) {
        let Some(index) = group.first().map(|first| first.segment) else {
            continue;
        };
        match segments.get(index) {
            Some(segment) => segment_touches(&segment, group, places, &mut touches),
            None => {
                // The walk numbers segments as `segments` does, so this is never reached; were
                // it, each path counts as read and changed with all below it (fail closed).
                debug_assert!(false, "walked segment {index} not in the command");
                touches.extend(group.iter().map(Walked::touched_every_way));
            }
        }
    }
    touches
}

impl<'a> Walked<'a> {
    /// The path read, written and changed with everything below it, wherever it may be.
    fn touched_every_way(&self) -> Touch<'a> {
        Touch {
            by: self.word.to_owned(),
            word: self.word,
            access: Access::Both,
            names_only: false,
            reads_below: true,
            changes_below: true,
            changed_names: None,
            spots: self.spots.clone(),
        }
    }
}
