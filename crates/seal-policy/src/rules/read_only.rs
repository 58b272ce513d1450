//! Claude Code's default permission mode, as seal models it: the read-only commands, reads and
//! tools the client lets run with no rule (spec/policy-rules.md, "The client's default mode").
//!
//! The model is a table of programs, each with the options it may take and what its operands
//! are. It is a subset of what Claude Code 2.1.328 was seen to allow: every program, option and
//! operand form below was observed allowed with no rule, and the forms next to them that
//! Claude Code asked for (an option that writes, a path outside the workspace, a `..`) are not
//! in it. Anything the table does not describe is not read-only.

use seal_parse::shell::{Operator, SegmentRef};

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
}

impl ClientDefault {
    /// A stable name: `nothing` or `claude-code`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ClientDefault::Nothing => "nothing",
            ClientDefault::ClaudeCode => "claude-code",
        }
    }
}

/// The tools Claude Code's default mode runs with no permission check.
pub(super) fn runs_unchecked(tool: &str) -> bool {
    matches!(tool, "Agent" | "Task" | "Skill")
}

/// The file tool whose calls inside the workspace Claude Code's default mode allows.
pub(super) fn reads_inside_workspace(tool: &str) -> bool {
    tool == "Read"
}

/// Whether `segment` is a read-only command of the table, its path operands inside the
/// workspace rooted at `root`. Each path operand read on the way goes to `path` (also when
/// the segment turns out not to be read-only further on), so that Read rules can be checked
/// against what the command reads.
pub(super) fn read_only<'a>(
    segment: &SegmentRef<'a>,
    root: Option<&str>,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    if segment.assignments() != 0
        || segment.payload_depth() != 0
        || segment.launchers().next().is_some()
        || segment.operator() == Some(Operator::Background)
    {
        return false;
    }
    let Some(program) = segment.words().next() else {
        return false;
    };
    PROGRAMS
        .iter()
        .filter(|entry| entry.words.first() == Some(&program))
        .any(|entry| {
            let mut args = segment.words().enumerate().skip(1);
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
    root: Option<&str>,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    let mut operands = 0usize;
    let mut find_predicates = false;
    while let Some((at, word)) = args.next() {
        if segment.word_expands(at) {
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

/// A path that names something inside the workspace: relative without a `..` component (nor
/// a leading `~` or `-`), or absolute below `root`.
fn inside_workspace(word: &str, root: Option<&str>) -> bool {
    if word.is_empty()
        || word.starts_with('-')
        || word.starts_with('~')
        || word.split('/').any(|part| part == "..")
    {
        return false;
    }
    if !word.starts_with('/') {
        return true;
    }
    let Some(root) = root else {
        return false;
    };
    let root = root.trim_end_matches('/');
    match word.strip_prefix(root) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
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
    program(&["od"], &[], Operands::Paths),
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
