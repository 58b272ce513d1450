//! What a tool call does to paths, as the path guards read it: every path of a file tool, of a
//! Codex patch, and of a shell command (through [`command_paths`], the walk the rules share),
//! each placed by [`Places`] and marked with whether the whole tree below it is read or
//! changed.

use seal_parse::patch::{Patch, PatchLimits};
use seal_parse::shell::{readable, segment_into, SegmentBuffer, SegmentsRef, ShellLimits};

use super::glob;
use crate::chain::ToolCall;
use crate::paths::{command_paths, Access, Cwd, Places, Reading, Unplaced, MAX_CDS};

/// How the path guards read the arguments of a file tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileTool {
    /// The tool's name (compared exactly).
    pub tool: &'static str,
    /// The argument holding the path.
    pub argument: &'static str,
    /// What the tool does to the file (an edit shows the lines it changes, so it reads too).
    pub access: Access,
    /// Whether it searches the directory (reads every file below it); a search without a path
    /// searches the working directory.
    pub searches: bool,
}

/// The file tools the path guards read (Claude Code's, by their names in hook payloads).
/// Codex's `apply_patch` is read as a write of every path its patch touches.
pub const FILE_TOOLS: &[FileTool] = &[
    FileTool {
        tool: "Read",
        argument: "file_path",
        access: Access::Read,
        searches: false,
    },
    FileTool {
        tool: "NotebookRead",
        argument: "notebook_path",
        access: Access::Read,
        searches: false,
    },
    FileTool {
        tool: "Write",
        argument: "file_path",
        access: Access::Write,
        searches: false,
    },
    FileTool {
        tool: "Edit",
        argument: "file_path",
        access: Access::Both,
        searches: false,
    },
    FileTool {
        tool: "MultiEdit",
        argument: "file_path",
        access: Access::Both,
        searches: false,
    },
    FileTool {
        tool: "NotebookEdit",
        argument: "notebook_path",
        access: Access::Both,
        searches: false,
    },
    FileTool {
        tool: "Grep",
        argument: "path",
        access: Access::Read,
        searches: true,
    },
    FileTool {
        tool: "Glob",
        argument: "path",
        access: Access::Read,
        searches: true,
    },
];

/// Codex's patch tool.
pub const PATCH_TOOL: &str = "apply_patch";

/// Programs that read every file below a directory operand whatever their options (searchers
/// and `find`, whose list of names feeds `xargs cat` as well as `-exec`).
pub const TREE_READERS: &[&str] = &[
    "rg", "ag", "ack", "ack-grep", "ugrep", "ug", "pt", "sift", "find", "gfind", "bfs", "fd",
    "fdfind",
];

/// Programs that read every file below a directory operand when given a recursive option
/// (`-r`, `-R`, `-a`, `--recursive`, `--archive`, `--dereference-recursive`,
/// `--directories=recurse`).
pub const RECURSIVE_READERS: &[&str] = &[
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "diff",
    "colordiff",
    "cp",
    "gcp",
    "rsync",
    "scp",
];

/// Programs that remove, move, link or change the mode of an operand with everything below
/// it.
pub const TREE_CHANGERS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "srm",
    "shred",
    "mv",
    "gmv",
    "ln",
    "chmod",
    "chown",
    "chgrp",
    "chattr",
    "chflags",
    "find",
    "gfind",
    "bfs",
    "trash",
    "trash-put",
];

/// Programs that show nothing of a file's content (its name, mode or place only) and read no
/// file named by an option (unlike `du --files0-from`, `file -f` or `tree --fromfile`): what
/// they are given is not read.
pub const NAME_READERS: &[&str] = &[
    "ls", "dir", "vdir", "stat", "df", "test", "[", "realpath", "readlink", "lsattr", "getfacl",
    "cd", "pushd", "chdir",
];

/// Programs that copy or move their sources into a target directory (`TARGET/NAME`).
const COPIERS: &[&str] = &["cp", "gcp", "install", "rsync", "scp", "mv", "gmv", "ln"];

/// Most `cd` targets kept to place a path read after a `cd` the walk could not follow.
const MAX_KEPT_CDS: usize = 2 * MAX_CDS;

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
    let Some(file_tool) = FILE_TOOLS.iter().find(|entry| entry.tool == tool) else {
        return Reached::Paths(Vec::new());
    };
    let absent = arguments.is_some_and(|object| object.get(file_tool.argument).is_none());
    let word = match string(file_tool.argument) {
        Some(word) => word,
        None if absent && file_tool.searches => ".",
        None => return Reached::Paths(Vec::new()),
    };
    Reached::Paths(vec![Touch {
        by: format!("{tool} {word}"),
        word,
        access: file_tool.access,
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

/// One path of a command as the walk gives it.
struct Walked<'a> {
    segment: usize,
    word: &'a str,
    access: Access,
    spots: Vec<Result<String, Unplaced>>,
    /// For a word of a program without a path model with a `:` in it, the part before the
    /// first `:` and the part after the last one, and where each may be (`docker run -v
    /// ~/.aws:/root/.aws` mounts `~/.aws`; `git show HEAD:.env` reads `.env`).
    colon_parts: Vec<(&'a str, Vec<Result<String, Unplaced>>)>,
}

fn command_touches<'a>(segments: SegmentsRef<'a>, places: &Places) -> Vec<Touch<'a>> {
    let mut walked: Vec<Walked<'a>> = Vec::new();
    let mut cds: Vec<&'a str> = Vec::new();
    command_paths(segments, &mut |path, reading| {
        let spots_of = |word: &str| match reading {
            Reading::In(cwd) => place(places, word, cwd),
            // Best effort: as if every `cd` seen ran, then fewer of them, then none.
            Reading::Unplaced(_) => {
                let mut spots = Vec::new();
                for len in (1..=cds.len()).rev() {
                    if let Some(run) = cds.get(..len) {
                        spots.extend(place(places, word, Cwd::After(run)));
                    }
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
    let mut start = 0usize;
    while let Some(first) = walked.get(start) {
        let index = first.segment;
        let end = walked
            .iter()
            .skip(start)
            .position(|w| w.segment != index)
            .map_or(walked.len(), |len| start + len);
        let group = walked.get(start..end).unwrap_or_default();
        if let Some(segment) = segments.get(index) {
            segment_touches(&segment, group, places, &mut touches);
        }
        start = end;
    }
    touches
}

/// The touches of one segment's walked paths: what its program does to each, and for a copy or
/// a move, the paths it writes below its target directory.
fn segment_touches<'a>(
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

/// The clients' hook settings that seal's own installer writes without naming them
/// (`seal install claude-code`, `seal uninstall codex --project DIR`; spec/install.md section 1):
/// a write of the user's settings file, or of the project's with `--project DIR`, for the
/// client named (both when none is).
fn installer_touches<'a>(
    program: &'a str,
    args: impl Iterator<Item = &'a str>,
    by: &str,
    operands: &[Walked<'a>],
    places: &Places,
    out: &mut Vec<Touch<'a>>,
) {
    let base = program.rsplit('/').next().unwrap_or(program);
    if !base.to_ascii_lowercase().starts_with("seal") {
        return;
    }
    let words: Vec<&'a str> = args.collect();
    if !matches!(words.first(), Some(&("install" | "uninstall"))) {
        return;
    }
    let mut project: Option<&'a str> = None;
    let mut clients: Vec<&'a str> = Vec::new();
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        if *word == "--project" {
            project = rest.next().copied();
        } else if let Some(dir) = word.strip_prefix("--project=") {
            project = Some(dir);
        } else if matches!(*word, "claude-code" | "codex") {
            clients.push(word);
        }
    }
    let files: &[(&str, &str)] = match clients.first() {
        Some(&"claude-code") => &[(".claude", "settings.json")],
        Some(&"codex") => &[(".codex", "hooks.json")],
        _ => &[(".claude", "settings.json"), (".codex", "hooks.json")],
    };
    for (dir, file) in files {
        let (word, spots) = match project {
            Some(project) => {
                let placed = operands
                    .iter()
                    .find(|walked| walked.word == project)
                    .map_or_else(|| place(places, project, Cwd::Root), |w| w.spots.clone());
                let spots = placed
                    .into_iter()
                    .map(|spot| spot.map(|at| format!("{}/{dir}/{file}", at.trim_end_matches('/'))))
                    .collect();
                (project, spots)
            }
            None => (base, place(places, &format!("~/{dir}/{file}"), Cwd::Root)),
        };
        out.push(Touch {
            by: by.to_owned(),
            word,
            access: Access::Write,
            names_only: false,
            reads_below: false,
            changes_below: false,
            changed_names: None,
            spots,
        });
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

/// What a `find` command does to what it finds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FindReading<'a> {
    /// It deletes (`-delete`) or runs commands on (`-exec`, `-execdir`, `-ok`, `-okdir`) what
    /// it finds.
    changes: bool,
    /// The globs every name it finds matches (its `-name` and `-iname` tests), when its
    /// expression is a conjunction with at least one of them; `None` otherwise.
    names: Option<Vec<&'a str>>,
}

impl<'a> FindReading<'a> {
    fn of(args: impl Iterator<Item = &'a str>) -> FindReading<'a> {
        let mut changes = false;
        let mut names = Vec::new();
        let mut conjunction = true;
        let mut words =
            args.skip_while(|word| !(word.starts_with('-') || matches!(*word, "(" | "!")));
        while let Some(word) = words.next() {
            match word {
                "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" => changes = true,
                "-o" | "-or" | "," | "!" | "-not" | "(" | ")" => conjunction = false,
                "-name" | "-iname" => match words.next() {
                    Some(glob) => names.push(glob),
                    None => conjunction = false,
                },
                _ => {}
            }
        }
        let names = (conjunction && !names.is_empty()).then_some(names);
        FindReading { changes, names }
    }
}

/// Whether the words hold a recursive option: a short cluster with one of `letters`, or a long
/// `--recursive`, `--dereference-recursive`, `--archive` (with `archive`), each also as a
/// prefix of at least 3 letters (as GNU accepts), or `--directories=recurse` / `-d recurse`.
fn has_recursive_option<'a>(
    words: impl Iterator<Item = &'a str>,
    letters: &[char],
    archive: bool,
) -> bool {
    let mut previous = "";
    for word in words {
        if word == "--" {
            return false;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            let prefix_of = |full: &str| name.len() >= 3 && full.starts_with(name);
            if prefix_of("recursive")
                || (archive && prefix_of("archive"))
                || prefix_of("dereference-recursive")
                || (prefix_of("directories") && value == "recurse")
            {
                return true;
            }
        } else if let Some(short) = word.strip_prefix('-') {
            if short.contains(letters) {
                return true;
            }
        } else if previous == "-d" && word == "recurse" {
            return true;
        }
        previous = word;
    }
    false
}

/// The private-use character that stands for a component the resolver would not place (a glob
/// that may expand to `..`), so that it is read as a name.
const MASK: char = '\u{E000}';

/// Where `word`, read in `cwd`, may be: its absolute, lexically normalized path, with a
/// component that is a glob starting with `.` (which the shell may expand to `..`) read as a
/// name; for a home seal cannot resolve (`~user`, or `~` without a home directory), the path
/// under each home directory it may be (the known one, `/root`, `/home/*`, `/Users/*`,
/// `/var/root`). An error when it cannot be placed at all.
pub(crate) fn place(places: &Places, word: &str, cwd: Cwd<'_>) -> Vec<Result<String, Unplaced>> {
    if word.contains(MASK) {
        return vec![Err(Unplaced::GlobMayClimb)];
    }
    let (masked, globs) = mask(word);
    let resolve =
        |word: &str, cwd: Cwd<'_>| places.absolute(word, cwd).map(|path| unmask(&path, &globs));
    match resolve(&masked, cwd) {
        Err(Unplaced::OtherHome | Unplaced::HomeUnknown) => {
            let cds: &[&str] = match cwd {
                Cwd::Root => &[],
                Cwd::After(cds) => cds,
            };
            let mut homes: Vec<&str> = places.home().into_iter().collect();
            homes.extend(["/root", "/home/*", "/Users/*", "/var/root"]);
            homes
                .into_iter()
                .map(|home| {
                    let word = rehome(&masked, home);
                    let cds: Vec<String> = cds.iter().map(|cd| rehome(cd, home)).collect();
                    let cds: Vec<&str> = cds.iter().map(String::as_str).collect();
                    if cds.is_empty() {
                        resolve(&word, Cwd::Root)
                    } else {
                        resolve(&word, Cwd::After(&cds))
                    }
                })
                .collect()
        }
        other => vec![other],
    }
}

/// `word` with a leading `~` or `~user` replaced by `home`.
fn rehome(word: &str, home: &str) -> String {
    if !word.starts_with('~') {
        return word.to_owned();
    }
    match word.find('/') {
        Some(at) => format!("{home}{}", word.get(at..).unwrap_or_default()),
        None => home.to_owned(),
    }
}

/// `word` with each component that is a glob starting with `.` replaced by [`MASK`] and its
/// index; the globs replaced, in order.
fn mask(word: &str) -> (String, Vec<&str>) {
    let mut globs = Vec::new();
    if !word
        .split('/')
        .any(|part| part.starts_with('.') && glob::is_glob(part))
    {
        return (word.to_owned(), globs);
    }
    let parts: Vec<String> = word
        .split('/')
        .map(|part| {
            if part.starts_with('.') && glob::is_glob(part) {
                globs.push(part);
                format!("{MASK}{}", globs.len() - 1)
            } else {
                part.to_owned()
            }
        })
        .collect();
    (parts.join("/"), globs)
}

/// `path` with each masked component given back.
fn unmask(path: &str, globs: &[&str]) -> String {
    if globs.is_empty() {
        return path.to_owned();
    }
    path.split('/')
        .map(|part| {
            part.strip_prefix(MASK)
                .and_then(|index| index.parse::<usize>().ok())
                .and_then(|index| globs.get(index).copied())
                .unwrap_or(part)
        })
        .collect::<Vec<&str>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places::new().with_root("/home/u/app").with_home("/home/u")
    }

    #[test]
    fn placing() {
        let p = places();
        assert_eq!(
            place(&p, "~/.ssh/x", Cwd::Root),
            vec![Ok("/home/u/.ssh/x".to_owned())]
        );
        assert_eq!(
            place(&p, "~/.s*/x", Cwd::Root),
            vec![Ok("/home/u/.s*/x".to_owned())]
        );
        assert_eq!(
            place(&p, ".e*", Cwd::Root),
            vec![Ok("/home/u/app/.e*".to_owned())]
        );
        let other = place(&p, "~bob/.ssh/x", Cwd::Root);
        assert!(other.contains(&Ok("/home/*/.ssh/x".to_owned())));
        assert!(other.contains(&Ok("/root/.ssh/x".to_owned())));
        let unknown = place(&Places::new(), "~/.ssh/x", Cwd::Root);
        assert!(unknown.contains(&Ok("/home/*/.ssh/x".to_owned())));
        assert_eq!(
            place(&p, "a\u{E000}", Cwd::Root),
            vec![Err(Unplaced::GlobMayClimb)]
        );
        assert_eq!(
            place(&p, "x", Cwd::After(&["~bob"])).first(),
            Some(&Ok("/home/u/x".to_owned()))
        );
    }

    #[test]
    fn recursive_options() {
        let has = |words: &str| has_recursive_option(words.split(' '), &['r', 'R', 'a'], true);
        assert!(has("-rn x ."));
        assert!(has("-R x"));
        assert!(has("-avz a b"));
        assert!(has("--recursive x"));
        assert!(has("--recur x"));
        assert!(has("-d recurse x"));
        assert!(has("--directories=recurse x"));
        assert!(!has("-n x"));
        assert!(!has("-- -r"));
        assert!(!has("--re x"));
        assert!(!has_recursive_option("-a x".split(' '), &['r', 'R'], false));
        assert!(!has_recursive_option(
            "--archive x".split(' '),
            &['r', 'R'],
            false
        ));
    }
}
