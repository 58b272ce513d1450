//! The table of read-only commands: each program (and its subcommand words), the options it
//! may take and what its operands are.

/// One program (and its subcommand words) of the table.
pub(super) struct Program {
    /// The program name as written (no directory), then any fixed words (`["git", "status"]`).
    pub(super) words: &'static [&'static str],
    /// The options it may take, anywhere among its operands.
    pub(super) options: &'static [Opt],
    /// What its operands are.
    pub(super) operands: Operands,
}

/// An option a program of the table may take.
pub(super) enum Opt {
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
pub(super) enum Operands {
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
pub(super) const PROGRAMS: &[Program] = &[
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
