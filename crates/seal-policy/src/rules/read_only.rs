//! Claude Code's default permission mode, as seal models it: the read-only commands, reads and
//! tools the client lets run with no rule (spec/policy-rules.md, "The client's default mode").
//!
//! The model is a table of programs, each with the options it may take and what its operands
//! are. It is a subset of what Claude Code 2.1.328 was seen to allow: every program, option and
//! operand form below was observed allowed with no rule, and the forms next to them that
//! Claude Code asked for (an option that writes, a path outside the workspace, a `..`) are not
//! in it. Anything the table does not describe is not read-only.

use seal_parse::shell::{Operator, SegmentRef};

use crate::paths::{Cwd, Places, Whereabouts};

/// What a client decides on its own when no permission rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClientDefault {
    /// Nothing is allowed without a rule: a call no rule decides is left undecided (the
    /// embedder's fallback applies).
    #[default]
    Nothing,
    /// Claude Code's default permission mode: a command whose every segment is read-only or
    /// allowed by a rule, a `Read` of a path inside the workspace, and `Agent`, `Task` and
    /// `Skill` calls are allowed with no rule (deny and ask rules still come first).
    ClaudeCode,
    /// Claude Code's accept-edits permission mode: what [`ClientDefault::ClaudeCode`] allows,
    /// and edits inside the workspace: `Write`, `Edit`, `MultiEdit` and `NotebookEdit` calls,
    /// and the segments `mkdir`, `touch`, `rm`, `rmdir`, `cp`, `mv` and `sed -i` whose every
    /// path is inside it.
    ClaudeCodeAcceptEdits,
}

impl ClientDefault {
    /// A stable name: `nothing` or `claude-code`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ClientDefault::Nothing => "nothing",
            ClientDefault::ClaudeCode => "claude-code",
            ClientDefault::ClaudeCodeAcceptEdits => "claude-code-accept-edits",
        }
    }
}

impl ClientDefault {
    /// Whether this is one of Claude Code's modes.
    pub(super) fn is_claude_code(self) -> bool {
        matches!(
            self,
            ClientDefault::ClaudeCode | ClientDefault::ClaudeCodeAcceptEdits
        )
    }
}

/// The tools Claude Code's default mode runs with no permission check.
pub(super) fn runs_unchecked(tool: &str) -> bool {
    matches!(tool, "Agent" | "Task" | "Skill")
}

/// Whether Claude Code's `mode` allows a call of the file tool `tool` on a path inside the
/// workspace with no rule: `Read` in every mode; in accept-edits mode the editing tools too,
/// except on a path with a component Claude Code's safety check asks about (`path`, the path
/// relative to the directory it lies in).
pub(super) fn allows_file_tool(mode: ClientDefault, tool: &str, path: &str) -> bool {
    match tool {
        "Read" => mode.is_claude_code(),
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            mode == ClientDefault::ClaudeCodeAcceptEdits && !guarded_component(path)
        }
        _ => false,
    }
}

/// Whether `tool` is one of the editing file tools.
pub(super) fn edits(tool: &str) -> bool {
    matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit")
}

/// Components whose files Claude Code 2.1.332 asks before writing in every mode (its own
/// settings, git's internals), and neighbours seal treats the same way.
const GUARDED_COMPONENTS: &[&str] = &[".git", ".claude", ".vscode", ".idea", ".husky", ".mcp.json"];

/// Whether a path has a component of [`GUARDED_COMPONENTS`].
pub(super) fn guarded_component(path: &str) -> bool {
    path.split('/')
        .any(|part| GUARDED_COMPONENTS.contains(&part))
}

/// The programs Claude Code's accept-edits mode runs with no rule on paths inside the
/// workspace (observed with 2.1.332; `sed -i` too, which seal leaves out: a sed script can run
/// commands).
const EDITING_PROGRAMS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "cp", "mv"];

/// Whether `segment` is an edit accept-edits mode allows with no rule: a program of
/// [`EDITING_PROGRAMS`] as written, no word the shell expands or with a character a shell
/// reads, no path with a `..` or a guarded component, every path inside the workspace.
pub(super) fn accepted_edit(segment: &SegmentRef<'_>, places: &Places) -> bool {
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

/// A segment with no launcher, not in the background, and only assignments Claude Code
/// strips.
fn plain_segment(segment: &SegmentRef<'_>) -> bool {
    segment.payload_depth() == 0
        && segment.launchers().next().is_none()
        && segment.operator() != Some(Operator::Background)
        && segment
            .words()
            .take(segment.assignments())
            .all(safe_assignment)
}

/// Environment variables Claude Code 2.1.332 strips from before a command when it matches
/// rules and its read-only set (each observed; others, `PATH`, `LD_PRELOAD`, `NODE_OPTIONS`
/// among them, make the command ask).
pub const SAFE_ENV_VARS: &[&str] = &[
    "NODE_ENV",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "GOEXPERIMENT",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DEBUG",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "LANGUAGE",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "CI",
    "ANTHROPIC_API_KEY",
    "COLORTERM",
    "LC_TIME",
];

/// Whether `assignment` (`NAME=value`, quotes removed) is one Claude Code strips: a name of
/// [`SAFE_ENV_VARS`] with a value of letters, digits and `-_./:` (not empty); `COLUMNS` and
/// `LINES` with digits; `LANG`, `LC_ALL`, `LC_CTYPE` with a locale name (`C`, `POSIX`,
/// `C.UTF-8`, `xx_XX.UTF-8`). The caller checks the value was not quoted.
pub(super) fn safe_assignment(assignment: &str) -> bool {
    let Some((name, value)) = assignment.split_once('=') else {
        return false;
    };
    if value.is_empty() {
        return false;
    }
    match name {
        "COLUMNS" | "LINES" => number(value),
        "LANG" | "LC_ALL" | "LC_CTYPE" => locale(value),
        _ => {
            SAFE_ENV_VARS.contains(&name)
                && value.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':')
                })
        }
    }
}

/// `C`, `POSIX`, `C.UTF-8`, `C.utf8`, or `ll_CC.UTF-8` / `ll_CC.utf8`.
fn locale(value: &str) -> bool {
    if matches!(value, "C" | "POSIX" | "C.UTF-8" | "C.utf8") {
        return true;
    }
    let Some(name) = value
        .strip_suffix(".UTF-8")
        .or_else(|| value.strip_suffix(".utf8"))
    else {
        return false;
    };
    let bytes = name.as_bytes();
    bytes.len() == 5
        && bytes.get(2) == Some(&b'_')
        && bytes.iter().take(2).all(u8::is_ascii_lowercase)
        && bytes.iter().skip(3).all(u8::is_ascii_uppercase)
}

/// Whether `segment` is a read-only command of the table, its path operands inside the
/// workspace rooted at `root`. Each path operand read on the way goes to `path` (also when
/// the segment turns out not to be read-only further on), so that Read rules can be checked
/// against what the command reads.
pub(super) fn read_only<'a>(
    segment: &SegmentRef<'a>,
    root: &dyn Fn(&str) -> bool,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    if !plain_segment(segment) {
        return false;
    }
    let first = segment.assignments();
    let Some(program) = segment.words().nth(first) else {
        return false;
    };
    PROGRAMS
        .iter()
        .filter(|entry| entry.words.first() == Some(&program))
        .any(|entry| {
            let mut args = segment.words().enumerate().skip(first + 1);
            for fixed in entry.words.iter().skip(1) {
                match args.next() {
                    Some((_, word)) if word == *fixed => {}
                    _ => return false,
                }
            }
            read_args(segment, entry, args, root, path)
        })
}

/// Reads the words after a program's fixed words: options of the entry anywhere, operands of
/// its kind. `false` as soon as a word is not of the entry.
fn read_args<'a>(
    segment: &SegmentRef<'a>,
    entry: &Program,
    mut args: impl Iterator<Item = (usize, &'a str)>,
    root: &dyn Fn(&str) -> bool,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    let mut operands = 0usize;
    let mut find_predicates = false;
    while let Some((at, word)) = args.next() {
        if segment.word_expands(at) && !home_path(word) {
            return false;
        }
        if let Operands::Text = entry.operands {
            // Printed, never read as a file or an option that acts.
            continue;
        }
        if !literal(word) {
            return false;
        }
        match entry.operands {
            Operands::Find => {
                if find_predicates || word.starts_with('-') {
                    find_predicates = true;
                    let Some((value_at, value)) = args.next() else {
                        return false;
                    };
                    if segment.word_expands(value_at) || !literal(value) {
                        return false;
                    }
                    let fits = match word {
                        "-name" | "-iname" => true,
                        "-newer" if inside_workspace(value, root) => {
                            path(value);
                            true
                        }
                        "-type" => matches!(value, "f" | "d"),
                        "-maxdepth" | "-mindepth" => number(value),
                        _ => false,
                    };
                    if !fits {
                        return false;
                    }
                } else if inside_workspace(word, root) {
                    path(word);
                } else {
                    return false;
                }
                continue;
            }
            Operands::Test => {
                let fits = match operands {
                    0 => matches!(word, "-f" | "-d" | "-e"),
                    1 if inside_workspace(word, root) => {
                        path(word);
                        true
                    }
                    _ => false,
                };
                if !fits {
                    return false;
                }
                operands += 1;
                continue;
            }
            _ => {}
        }
        if word.len() > 1 && word.starts_with('-') {
            let Some(takes_value) = option(entry.options, word) else {
                return false;
            };
            if let Some(kind) = takes_value {
                let Some((value_at, value)) = args.next() else {
                    return false;
                };
                let fits = match kind {
                    Value::Number => number(value),
                    Value::Word => true,
                };
                if segment.word_expands(value_at) || !literal(value) || !fits {
                    return false;
                }
            }
            continue;
        }
        let fits = match entry.operands {
            Operands::Nothing => false,
            Operands::Paths => inside_workspace(word, root),
            Operands::Words => true,
            Operands::Numbers => number(word),
            Operands::Format => word.starts_with('+'),
            Operands::PatternThenPaths => operands == 0 || inside_workspace(word, root),
            Operands::SedPrint => {
                if operands == 0 {
                    sed_print(word)
                } else {
                    inside_workspace(word, root)
                }
            }
            Operands::Text | Operands::Find | Operands::Test => false,
        };
        if !fits {
            return false;
        }
        let is_path = match entry.operands {
            Operands::Paths => true,
            Operands::PatternThenPaths | Operands::SedPrint => operands > 0,
            _ => false,
        };
        if is_path {
            path(word);
        }
        operands += 1;
    }
    match entry.operands {
        Operands::SedPrint => operands > 0,
        Operands::Test => operands == 2,
        _ => true,
    }
}

/// What follows an option that takes a value.
#[derive(Clone, Copy)]
enum Value {
    Number,
    Word,
}

/// Whether `word` is one of `options`: `None` if not, else whether a separate value follows.
fn option(options: &[Opt], word: &str) -> Option<Option<Value>> {
    options.iter().find_map(|option| match option {
        Opt::Word(exact) => (word == *exact).then_some(None),
        Opt::Letters(letters) => {
            let rest = word.strip_prefix('-')?;
            (!rest.is_empty()
                && !rest.starts_with('-')
                && rest.chars().all(|c| letters.contains(c)))
            .then_some(None)
        }
        Opt::Number(flag) => match word.strip_prefix(flag) {
            Some("") => Some(Some(Value::Number)),
            Some(joined) if number(joined) => Some(None),
            _ => None,
        },
        Opt::DashNumber => word.strip_prefix('-').filter(|n| number(n)).map(|_| None),
        Opt::Value(flag) => match word.strip_prefix(flag) {
            Some("") => Some(Some(Value::Word)),
            Some(_) => Some(None),
            None => None,
        },
    })
}

/// A word with no byte a shell could read as anything but text, and no control character.
fn literal(word: &str) -> bool {
    !word
        .bytes()
        .any(|b| b < 0x20 || b == 0x7f || matches!(b, b'$' | b'`' | b'\\'))
}

fn number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

/// `N p` or `N,M p`: a script that prints lines and nothing else.
fn sed_print(script: &str) -> bool {
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    match range.split_once(',') {
        Some((from, to)) => number(from) && number(to),
        None => number(range),
    }
}

/// A path the read-only table may read: no `..` component, not starting with `-`, and
/// `reach` says it may be read (inside the workspace or a directory the operator added, or
/// covered by a `Read` allow rule, as Claude Code lets its read-only commands read there).
fn inside_workspace(word: &str, reach: &dyn Fn(&str) -> bool) -> bool {
    !(word.is_empty() || word.starts_with('-') || word.split('/').any(|part| part == ".."))
        && reach(word)
}

/// `~/...` with no other character the shell expands: the home directory's path, which the
/// resolver reads as the shell does.
fn home_path(word: &str) -> bool {
    word.starts_with("~/")
        && !word
            .get(1..)
            .is_some_and(|rest| rest.contains(['~', '*', '?', '[', ']', '^']))
}

/// One program (and its subcommand words) of the table.
struct Program {
    /// The program name as written (no directory), then any fixed words (`["git", "status"]`).
    words: &'static [&'static str],
    /// The options it may take, anywhere among its operands.
    options: &'static [Opt],
    /// What its operands are.
    operands: Operands,
}

/// An option a program of the table may take.
enum Opt {
    /// This exact word.
    Word(&'static str),
    /// One `-` then one or more of these letters (`-la`).
    Letters(&'static str),
    /// This word then a number, as the next word or joined (`-n 5`, `-n5`).
    Number(&'static str),
    /// `-` then a number (`-5`).
    DashNumber,
    /// This word then a literal word, as the next word or joined (`-d :`, `-d:`).
    Value(&'static str),
}

/// What the words of a program that are not options are.
#[derive(Clone, Copy)]
enum Operands {
    /// None at all.
    Nothing,
    /// Paths inside the workspace.
    Paths,
    /// Literal words, read as text (not files).
    Words,
    /// Every word after the program, options or not, read as text (`echo`).
    Text,
    /// Non-negative integers.
    Numbers,
    /// A literal pattern (or filter), then paths inside the workspace.
    PatternThenPaths,
    /// Words starting with `+` (a `date` format).
    Format,
    /// A `sed -n` script that only prints lines (`5p`, `1,20p`), then paths.
    SedPrint,
    /// `find`: paths, then the predicates `-name`, `-iname` (a literal pattern), `-type` (`f`
    /// or `d`), `-maxdepth`, `-mindepth` (a number), `-newer` (a path).
    Find,
    /// `test -f|-d|-e PATH`.
    Test,
}

/// The table. Every entry was observed allowed by Claude Code 2.1.328 with no rule, with the
/// options listed (rows of `tests/conformance/claude-code-2.1.328.json`, cases `00`, `150` and
/// `151`).
const PROGRAMS: &[Program] = &[
    program(&["pwd"], &[], Operands::Nothing),
    // `cd sub` reads nothing; the paths after it are read in `sub` (crate::paths).
    program(&["cd"], &[], Operands::Paths),
    program(&["whoami"], &[], Operands::Nothing),
    program(&["id"], &[], Operands::Nothing),
    program(&["hostname"], &[], Operands::Nothing),
    program(&["ps"], &[], Operands::Nothing),
    program(&["true"], &[], Operands::Nothing),
    program(&["false"], &[], Operands::Nothing),
    program(&["lsof"], &[Opt::Word("-v")], Operands::Nothing),
    program(&["uname"], &[Opt::Letters("asrm")], Operands::Nothing),
    program(&["date"], &[Opt::Word("-u")], Operands::Format),
    program(&["sleep"], &[], Operands::Numbers),
    program(&["seq"], &[], Operands::Numbers),
    program(&["echo"], &[], Operands::Text),
    program(&["which"], &[], Operands::Words),
    program(&["type"], &[Opt::Word("-a")], Operands::Words),
    program(&["basename"], &[], Operands::Words),
    program(&["dirname"], &[], Operands::Words),
    program(&["tr"], &[], Operands::Words),
    // `uniq IN OUT` writes OUT: Claude Code asked for `uniq a.txt`, allowed a bare `uniq`.
    program(&["uniq"], &[], Operands::Nothing),
    program(&["ls"], &[Opt::Letters("alhrRtS1AdF")], Operands::Paths),
    program(&["cat"], &[Opt::Word("-n")], Operands::Paths),
    program(
        &["head"],
        &[Opt::Number("-n"), Opt::Number("-c"), Opt::DashNumber],
        Operands::Paths,
    ),
    program(
        &["tail"],
        &[Opt::Number("-n"), Opt::Number("-c"), Opt::DashNumber],
        Operands::Paths,
    ),
    program(&["wc"], &[Opt::Letters("lwcm")], Operands::Paths),
    program(&["file"], &[], Operands::Paths),
    program(&["stat"], &[Opt::Value("-c")], Operands::Paths),
    program(&["realpath"], &[], Operands::Paths),
    program(&["readlink"], &[], Operands::Paths),
    program(&["md5sum"], &[], Operands::Paths),
    program(&["sha256sum"], &[], Operands::Paths),
    program(&["nl"], &[], Operands::Paths),
    program(&["tac"], &[], Operands::Paths),
    program(&["rev"], &[], Operands::Paths),
    program(&["od"], &[Opt::Letters("c")], Operands::Paths),
    program(&["hexdump"], &[Opt::Letters("C")], Operands::Paths),
    program(&["strings"], &[], Operands::Paths),
    program(&["base64"], &[], Operands::Paths),
    program(&["column"], &[], Operands::Paths),
    program(&["cmp"], &[], Operands::Paths),
    program(&["comm"], &[], Operands::Paths),
    program(&["diff"], &[Opt::Word("-u")], Operands::Paths),
    program(&["sort"], &[Opt::Letters("nur")], Operands::Paths),
    program(
        &["cut"],
        &[Opt::Value("-d"), Opt::Value("-f"), Opt::Value("-c")],
        Operands::Paths,
    ),
    program(&["du"], &[Opt::Letters("sh")], Operands::Paths),
    program(
        &["grep"],
        &[Opt::Letters("inrlwvcEF")],
        Operands::PatternThenPaths,
    ),
    program(&["rg"], &[Opt::Word("-n")], Operands::PatternThenPaths),
    program(&["jq"], &[Opt::Word("-r")], Operands::PatternThenPaths),
    program(&["sed", "-n"], &[], Operands::SedPrint),
    program(&["find"], &[], Operands::Find),
    program(&["test"], &[], Operands::Test),
    program(&["node", "--version"], &[], Operands::Nothing),
    program(&["python3", "--version"], &[], Operands::Nothing),
    program(
        &["git", "status"],
        &[
            Opt::Letters("sb"),
            Opt::Word("--short"),
            Opt::Word("--branch"),
            Opt::Word("--porcelain"),
        ],
        Operands::Paths,
    ),
    program(
        &["git", "log"],
        &[
            Opt::Word("--oneline"),
            Opt::Word("--stat"),
            Opt::Word("-p"),
            Opt::Number("-n"),
            Opt::DashNumber,
        ],
        Operands::Paths,
    ),
    program(
        &["git", "diff"],
        &[
            Opt::Word("--stat"),
            Opt::Word("--cached"),
            Opt::Word("--staged"),
            Opt::Word("--name-only"),
            Opt::Word("--no-index"),
        ],
        Operands::Paths,
    ),
    program(&["git", "show"], &[Opt::Word("--stat")], Operands::Paths),
    program(&["git", "blame"], &[], Operands::Paths),
    program(
        &["git", "branch"],
        &[Opt::Letters("av"), Opt::Word("--list")],
        Operands::Nothing,
    ),
    program(&["git", "rev-parse"], &[], Operands::Words),
    program(&["git", "remote"], &[Opt::Word("-v")], Operands::Nothing),
    program(&["git", "ls-files"], &[], Operands::Nothing),
    program(&["git", "config", "--get"], &[], Operands::Words),
    program(&["git", "tag"], &[], Operands::Nothing),
    program(&["git", "stash", "list"], &[], Operands::Nothing),
];

const fn program(
    words: &'static [&'static str],
    options: &'static [Opt],
    operands: Operands,
) -> Program {
    Program {
        words,
        options,
        operands,
    }
}
