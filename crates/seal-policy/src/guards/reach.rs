//! What a tool call does to paths, as the path guards read it: every path of a file tool, of a
//! Codex patch, and of a shell command (through [`command_paths`], the walk the rules share),
//! each placed by [`Places`] and marked with whether the whole tree below it is read or
//! changed.

mod command;
mod installer;
mod options;
mod place;
mod segment;
mod tables;

pub use tables::{NAME_READERS, PATCH_TOOL, RECURSIVE_READERS, TREE_CHANGERS, TREE_READERS};

use seal_parse::patch::{Patch, PatchLimits};
use seal_parse::shell::{readable, segment_into, SegmentBuffer, ShellLimits};

use crate::chain::{ToolCall, ToolField};
use crate::paths::{Access, Cwd, Places, Unplaced};
use command::command_touches;
use place::place;

/// One path a call reaches.
#[derive(Debug, Clone)]
pub(crate) struct Touch<'a> {
    /// The tool and its path, or the command's normalized form.
    pub by: String,
    /// The path as written.
    pub word: &'a str,
    /// How it is used.
    pub access: Access,
    /// The program shows nothing of the content.
    pub names_only: bool,
    /// Every file below it is read.
    pub reads_below: bool,
    /// It is removed, moved, linked or has its mode changed with everything below it.
    pub changes_below: bool,
    /// When only the names below it matching every one of these globs are changed (a `find`
    /// with `-name` tests).
    pub changed_names: Option<Vec<&'a str>>,
    /// Where it may be (several places when a `cd` or a home could not be followed).
    pub spots: Vec<Result<String, Unplaced>>,
}

/// What a call reaches, or why it cannot be read.
#[derive(Debug)]
pub(crate) enum Reached<'a> {
    /// Every path, in order.
    Paths(Vec<Touch<'a>>),
    /// A shell command seal cannot segment.
    Unanalysable,
}

/// Every path `call` reaches (none for a tool without paths).
pub(crate) fn reached<'a>(
    call: &'a ToolCall,
    places: &Places,
    limits: &ShellLimits,
    buffer: &'a mut SegmentBuffer,
) -> Reached<'a> {
    let tool = call.tool();
    if let Some(command) = call.command() {
        return command_reached(command, places, limits, buffer);
    }
    let arguments = call.sealed().arguments().as_object();
    let string = |name: &str| {
        arguments
            .and_then(|object| object.get(name))
            .and_then(|v| v.as_str())
    };
    if tool == PATCH_TOOL {
        let Some(text) = string("command") else {
            return Reached::Paths(Vec::new());
        };
        let Ok(patch) = Patch::parse(text.as_bytes(), &PatchLimits::DEFAULT) else {
            return Reached::Paths(Vec::new());
        };
        let touches = patch
            .paths()
            .iter()
            .map(|touched| Touch {
                by: format!("{PATCH_TOOL} {} {}", touched.operation, touched.path),
                word: touched.path,
                access: Access::Write,
                names_only: false,
                reads_below: false,
                changes_below: false,
                changed_names: None,
                spots: place(places, touched.path, Cwd::Root),
            })
            .collect();
        return Reached::Paths(touches);
    }
    let Some((file_tool, access)) = ToolField::of(tool).and_then(|row| Some((row, row.access?)))
    else {
        return Reached::Paths(Vec::new());
    };
    let absent = arguments.is_some_and(|object| object.get(file_tool.field).is_none());
    let word = match string(file_tool.field) {
        Some(word) => word,
        None if absent && file_tool.searches => ".",
        None => return Reached::Paths(Vec::new()),
    };
    Reached::Paths(vec![Touch {
        by: format!("{tool} {word}"),
        word,
        access,
        names_only: false,
        reads_below: file_tool.searches,
        changes_below: false,
        changed_names: None,
        spots: place(places, word, Cwd::Root),
    }])
}

/// Every path the shell command `command` reaches.
pub(crate) fn command_reached<'a>(
    command: &'a str,
    places: &Places,
    limits: &ShellLimits,
    buffer: &'a mut SegmentBuffer,
) -> Reached<'a> {
    match segment_into(command, limits, buffer) {
        Ok(segments) => Reached::Paths(command_touches(segments, places)),
        Err(_) => Reached::Unanalysable,
    }
}

/// What a path guard finds in `call`: `first` on every path the call reaches, or, for a
/// command seal cannot segment, on what can be read of it ([`readable_first`]).
pub(crate) fn call_finding<T>(
    call: &ToolCall,
    places: &Places,
    limits: &ShellLimits,
    first: &dyn Fn(&[Touch<'_>]) -> Option<T>,
) -> Option<T> {
    let mut buffer = SegmentBuffer::new();
    match reached(call, places, limits, &mut buffer) {
        Reached::Paths(touches) => first(&touches),
        Reached::Unanalysable => call
            .command()
            .and_then(|command| readable_first(command, places, limits, &mut |t| first(t))),
    }
}

/// [`call_finding`] for a shell command given alone.
pub(crate) fn command_finding<T>(
    command: &str,
    places: &Places,
    limits: &ShellLimits,
    first: &dyn Fn(&[Touch<'_>]) -> Option<T>,
) -> Option<T> {
    let mut buffer = SegmentBuffer::new();
    match command_reached(command, places, limits, &mut buffer) {
        Reached::Paths(touches) => first(&touches),
        Reached::Unanalysable => readable_first(command, places, limits, &mut |t| first(t)),
    }
}

/// The first finding `check` gives on what can be read of a command seal cannot segment
/// (spec/shell-segments.md section 9): the paths of every piece that segments (the skeleton,
/// each substitution's body), then every redirection's file, read in the working directory.
pub(crate) fn readable_first<T>(
    command: &str,
    places: &Places,
    limits: &ShellLimits,
    check: &mut dyn FnMut(&[Touch<'_>]) -> Option<T>,
) -> Option<T> {
    let parts = readable(command, limits);
    let mut buffer = SegmentBuffer::new();
    for piece in parts.pieces() {
        if let Ok(segments) = segment_into(piece.text(), limits, &mut buffer) {
            let touches = command_touches(segments, places);
            if let Some(found) = check(&touches) {
                return Some(found);
            }
        }
    }
    let touches: Vec<Touch<'_>> = parts
        .redirects()
        .iter()
        .map(|redirect| Touch {
            by: format!("a redirection to `{}`", redirect.target().escape_debug()),
            word: redirect.target(),
            access: match (redirect.reads(), redirect.writes()) {
                (true, true) => Access::Both,
                (false, true) => Access::Write,
                _ => Access::Read,
            },
            names_only: false,
            reads_below: false,
            changes_below: false,
            changed_names: None,
            spots: place(places, redirect.target(), Cwd::Root),
        })
        .collect();
    check(&touches)
}
