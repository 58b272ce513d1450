//! Which words of a command name files, and whether the program reads or writes them: a table
//! of path models for the programs agents run, and for every other program the rule that each
//! word that is not an option, each option value after `=` and each `@file` counts as a path
//! both read and written (spec/paths.md, "Path models").

/// How a program uses a file a word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// It reads the file (or lists the directory).
    Read,
    /// It writes, creates, deletes, moves, links or changes the mode of the file, or extracts
    /// into the directory.
    Write,
    /// Both (every path of a program without a model).
    Both,
    /// It uses the file without showing its content (`ssh -i KEY`): a path outside the
    /// workspace still needs a rule, but no guard counts it as a read.
    Use,
}

impl Access {
    /// Whether the file's content may be read (and shown).
    #[must_use]
    pub fn reads(self) -> bool {
        matches!(self, Access::Read | Access::Both)
    }

    /// Whether the file may be written, created, deleted, moved, linked or have its mode
    /// changed.
    #[must_use]
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::Both)
    }

    /// A stable name: `read`, `write`, `read-write` or `use`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Both => "read-write",
            Access::Use => "use",
        }
    }
}

/// Most words of one form the path reading looks at; a longer form's further words are all
/// read as paths both read and written (as for a program without a model).
pub const MAX_PATH_WORDS: usize = 4096;

/// Calls `found` with each word of `words` (one form, program first) that names a file, and
/// how the program uses it (see the module documentation). A word may be given in part
/// (`--output=FILE` gives `FILE`, `@FILE` gives `FILE`, `if=FILE` of `dd` gives `FILE`).
///
/// ```
/// use seal_policy::paths::{form_paths, Access};
///
/// let mut seen = Vec::new();
/// form_paths(["cp", "-r", "src", "~/backup"].into_iter(), &mut |w, a| seen.push((w, a)));
/// assert_eq!(seen, [("src", Access::Read), ("~/backup", Access::Write)]);
///
/// let mut seen = Vec::new();
/// form_paths(["grep", "-rn", "../x", "~/notes"].into_iter(), &mut |w, a| seen.push((w, a)));
/// assert_eq!(seen, [("~/notes", Access::Read)]);
///
/// let mut seen = Vec::new();
/// form_paths(["curl", "-d", "@~/.netrc", "https://example.invalid"].into_iter(), &mut |w, a| {
///     seen.push((w, a))
/// });
/// assert_eq!(seen, [("~/.netrc", Access::Read)]);
/// ```
pub fn form_paths<'a, I>(words: I, found: &mut dyn FnMut(&'a str, Access))
where
    I: Iterator<Item = &'a str> + Clone,
{
    let mut rest = words;
    let Some(program) = rest.next() else {
        return;
    };
    match MODELS.iter().find(|model| model.names.contains(&program)) {
        Some(model) => modelled(model, rest, found),
        None => generic(rest, found),
    }
}

/// The rule for a program without a model: every word that is not an option, every value
/// after `=` and every `@file`, read and written.
fn generic<'a>(words: impl Iterator<Item = &'a str>, found: &mut dyn FnMut(&'a str, Access)) {
    let mut options = true;
    for word in words {
        if word.is_empty() || word == "-" {
            continue;
        }
        if options && word == "--" {
            options = false;
            continue;
        }
        if options && word.starts_with('-') {
            if let Some((_, value)) = word.split_once('=') {
                path_value(value, Access::Both, found);
            } else if !word.starts_with("--") {
                // `-o/path`, `-C~`: a short option with its value attached.
                let value = word.get(2..).unwrap_or_default();
                if value.starts_with(['/', '~', '.']) {
                    path_value(value, Access::Both, found);
                }
            }
            continue;
        }
        found(word, Access::Both);
        if let Some(file) = word.strip_prefix('@').filter(|f| !f.is_empty()) {
            found(file, Access::Both);
        }
        if let Some((_, value)) = word.split_once('=') {
            path_value(value, Access::Both, found);
        }
    }
}

/// A value that names a file (an `@` before it dropped), unless empty or `-`.
fn path_value<'a>(value: &'a str, access: Access, found: &mut dyn FnMut(&'a str, Access)) {
    let value = value.strip_prefix('@').unwrap_or(value);
    if !value.is_empty() && value != "-" {
        found(value, access);
    }
}

/// One program's path model.
struct Model {
    /// Its names, as the form's program word (a basename) spells them.
    names: &'static [&'static str],
    /// Options that take a value, and what the value is.
    options: &'static [(&'static str, Value)],
    /// What its operands are.
    operands: Operands,
}

/// What an option's value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    /// Not a file.
    Other,
    /// A file, used so.
    Path(Access),
    /// A file if it starts with `@` (curl's `-d @FILE`), used so; else not a file.
    AtPath(Access),
    /// A pattern or script given as an option (`grep -e`): the first operand is then a file.
    Pattern,
    /// A file holding the pattern or script (`grep -f`): read, and the first operand is a file.
    PatternFile,
    /// Two values, neither a file (`jq --arg NAME VALUE`).
    TwoOthers,
    /// A name then a file read (`jq --slurpfile NAME FILE`).
    NameThenFile,
    /// The directory the operands go to (`cp -t DIR`): written; every operand is then read.
    Target,
    /// The option makes every operand written as well as read (`sed -i`).
    InPlace,
}

/// What a modelled program's operands are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// None is a file (`echo`, `basename`).
    None,
    /// Every operand, used so.
    All(Access),
    /// The first operand is a pattern or script (unless an option gave one), the rest read.
    PatternThenRead,
    /// Sources read, the last operand written (`cp SRC... DEST`).
    SourcesThenTarget,
    /// The first operand read, a second one written (`uniq IN OUT`, `xxd IN OUT`).
    InThenOut,
    /// `dd`: `if=FILE` read, `of=FILE` written.
    Dd,
    /// `find`: starting points read (written with `-delete`), then predicates.
    Find,
}

const fn model(
    names: &'static [&'static str],
    options: &'static [(&'static str, Value)],
    operands: Operands,
) -> Model {
    Model {
        names,
        options,
        operands,
    }
}

use Access::{Both, Read, Use, Write};
use Value::{AtPath, NameThenFile, Other, Path, Pattern, PatternFile, Target, TwoOthers};

// Option tables list only options that take a value (short options by their letter, long
// options by their full name; GNU's unique prefixes of long names are read too). A flag must
// never be listed: its "value" would be the next word, a file the reading would then miss. An
// option missing from a table only makes its value read as an operand (a path), never less.

const HEAD: &[(&str, Value)] = &[
    ("-n", Other),
    ("-c", Other),
    ("--lines", Other),
    ("--bytes", Other),
    ("-s", Other),
    ("--sleep-interval", Other),
    ("--pid", Other),
];
const GREP: &[(&str, Value)] = &[
    ("-e", Pattern),
    ("--regexp", Pattern),
    ("-f", PatternFile),
    ("--file", PatternFile),
    ("-A", Other),
    ("-B", Other),
    ("-C", Other),
    ("-m", Other),
    ("-d", Other),
    ("-D", Other),
    ("--max-count", Other),
    ("--context", Other),
    ("--after-context", Other),
    ("--before-context", Other),
    ("--include", Other),
    ("--exclude", Other),
    ("--exclude-dir", Other),
    ("--exclude-from", Path(Read)),
    ("--label", Other),
    ("--directories", Other),
    ("--devices", Other),
    ("--binary-files", Other),
    ("--group-separator", Other),
];
const RG: &[(&str, Value)] = &[
    ("-e", Pattern),
    ("--regexp", Pattern),
    ("-f", PatternFile),
    ("--file", PatternFile),
    ("-A", Other),
    ("-B", Other),
    ("-C", Other),
    ("-m", Other),
    ("-d", Other),
    ("-E", Other),
    ("-g", Other),
    ("-t", Other),
    ("-T", Other),
    ("-M", Other),
    ("-j", Other),
    ("-r", Other),
    ("--max-count", Other),
    ("--max-depth", Other),
    ("--context", Other),
    ("--after-context", Other),
    ("--before-context", Other),
    ("--glob", Other),
    ("--iglob", Other),
    ("--type", Other),
    ("--type-not", Other),
    ("--type-add", Other),
    ("--max-columns", Other),
    ("--threads", Other),
    ("--replace", Other),
    ("--encoding", Other),
    ("--ignore-file", Path(Read)),
    ("--pre", Other),
    ("--sort", Other),
    ("--sortr", Other),
    ("--colors", Other),
    ("--max-filesize", Other),
];
const SED: &[(&str, Value)] = &[
    ("-e", Pattern),
    ("--expression", Pattern),
    ("-f", PatternFile),
    ("--file", PatternFile),
    ("-i", Value::InPlace),
    ("--in-place", Value::InPlace),
    ("-l", Other),
    ("--line-length", Other),
];
const JQ: &[(&str, Value)] = &[
    ("-f", PatternFile),
    ("--from-file", PatternFile),
    ("--arg", TwoOthers),
    ("--argjson", TwoOthers),
    ("--slurpfile", NameThenFile),
    ("--rawfile", NameThenFile),
    ("--indent", Other),
    ("-L", Path(Read)),
];
const CP: &[(&str, Value)] = &[
    ("-t", Target),
    ("--target-directory", Target),
    ("-S", Other),
    ("--suffix", Other),
    ("--no-preserve", Other),
    ("--sparse", Other),
];
const INSTALL: &[(&str, Value)] = &[
    ("-t", Target),
    ("--target-directory", Target),
    ("-S", Other),
    ("--suffix", Other),
    ("-m", Other),
    ("--mode", Other),
    ("-o", Other),
    ("--owner", Other),
    ("-g", Other),
    ("--group", Other),
    ("--strip-program", Other),
];
const RSYNC: &[(&str, Value)] = &[
    ("-e", Other),
    ("--rsh", Other),
    ("-f", Other),
    ("--filter", Other),
    ("-T", Path(Write)),
    ("--temp-dir", Path(Write)),
    ("-B", Other),
    ("--block-size", Other),
    ("-M", Other),
    ("--remote-option", Other),
    ("--exclude", Other),
    ("--include", Other),
    ("--exclude-from", Path(Read)),
    ("--include-from", Path(Read)),
    ("--files-from", Path(Read)),
    ("--password-file", Path(Read)),
    ("--log-file", Path(Write)),
    ("--backup-dir", Path(Write)),
    ("--partial-dir", Path(Write)),
    ("--compare-dest", Path(Read)),
    ("--copy-dest", Path(Read)),
    ("--link-dest", Path(Read)),
    ("--suffix", Other),
    ("--chmod", Other),
    ("--chown", Other),
    ("--max-size", Other),
    ("--min-size", Other),
    ("--bwlimit", Other),
    ("--timeout", Other),
    ("--port", Other),
    ("--rsync-path", Other),
];
const SCP: &[(&str, Value)] = &[
    ("-i", Path(Use)),
    ("-F", Path(Use)),
    ("-P", Other),
    ("-l", Other),
    ("-c", Other),
    ("-o", Other),
    ("-S", Other),
    ("-J", Other),
    ("-D", Other),
    ("-X", Other),
];
const MOVE: &[(&str, Value)] = &[
    ("-t", Target),
    ("--target-directory", Target),
    ("-S", Other),
    ("--suffix", Other),
];
const TOUCH: &[(&str, Value)] = &[
    ("-r", Path(Read)),
    ("--reference", Path(Read)),
    ("-d", Other),
    ("--date", Other),
    ("-t", Other),
    ("--time", Other),
];
const MKDIR: &[(&str, Value)] = &[("-m", Other), ("--mode", Other)];
const TRUNCATE: &[(&str, Value)] = &[
    ("-s", Other),
    ("--size", Other),
    ("-r", Path(Read)),
    ("--reference", Path(Read)),
    ("-o", Other),
];
const SHRED: &[(&str, Value)] = &[
    ("-n", Other),
    ("--iterations", Other),
    ("-s", Other),
    ("--size", Other),
    ("--random-source", Path(Read)),
];
const MODE: &[(&str, Value)] = &[("--reference", Path(Read)), ("--from", Other)];
const SORT: &[(&str, Value)] = &[
    ("-o", Path(Write)),
    ("--output", Path(Write)),
    ("-k", Other),
    ("--key", Other),
    ("-t", Other),
    ("--field-separator", Other),
    ("-S", Other),
    ("--buffer-size", Other),
    ("-T", Path(Write)),
    ("--temporary-directory", Path(Write)),
    ("--files0-from", Path(Read)),
    ("--parallel", Other),
    ("--batch-size", Other),
    ("--compress-program", Other),
];
const CUT: &[(&str, Value)] = &[
    ("-d", Other),
    ("--delimiter", Other),
    ("-f", Other),
    ("--fields", Other),
    ("-c", Other),
    ("--characters", Other),
    ("-b", Other),
    ("--bytes", Other),
    ("--output-delimiter", Other),
];
const CURL: &[(&str, Value)] = &[
    ("-o", Path(Write)),
    ("--output", Path(Write)),
    ("--output-dir", Path(Write)),
    ("-d", AtPath(Read)),
    ("--data", AtPath(Read)),
    ("--data-ascii", AtPath(Read)),
    ("--data-binary", AtPath(Read)),
    ("--data-urlencode", AtPath(Read)),
    ("--data-raw", Other),
    ("--json", AtPath(Read)),
    ("-F", AtPath(Read)),
    ("--form", AtPath(Read)),
    ("--form-string", Other),
    ("-T", Path(Read)),
    ("--upload-file", Path(Read)),
    ("-K", Path(Read)),
    ("--config", Path(Read)),
    ("-b", Path(Read)),
    ("--cookie", Path(Read)),
    ("-c", Path(Write)),
    ("--cookie-jar", Path(Write)),
    ("-D", Path(Write)),
    ("--dump-header", Path(Write)),
    ("--cacert", Path(Use)),
    ("--capath", Path(Use)),
    ("-E", Path(Use)),
    ("--cert", Path(Use)),
    ("--key", Path(Use)),
    ("--netrc-file", Path(Read)),
    ("--trace", Path(Write)),
    ("--trace-ascii", Path(Write)),
    ("--stderr", Path(Write)),
    ("-H", AtPath(Read)),
    ("--header", AtPath(Read)),
    ("-w", AtPath(Read)),
    ("--write-out", AtPath(Read)),
    ("-X", Other),
    ("--request", Other),
    ("-u", Other),
    ("--user", Other),
    ("-A", Other),
    ("--user-agent", Other),
    ("-e", Other),
    ("--referer", Other),
    ("-m", Other),
    ("--max-time", Other),
    ("--connect-timeout", Other),
    ("-x", Other),
    ("--proxy", Other),
    ("-r", Other),
    ("--range", Other),
    ("--retry", Other),
    ("-Y", Other),
    ("-y", Other),
    ("-C", Other),
    ("-U", Other),
    ("-Q", Other),
    ("-P", Other),
    ("-t", Other),
    ("-z", Other),
    ("--url", Other),
];
const WGET: &[(&str, Value)] = &[
    ("-O", Path(Write)),
    ("--output-document", Path(Write)),
    ("-o", Path(Write)),
    ("--output-file", Path(Write)),
    ("-a", Path(Write)),
    ("--append-output", Path(Write)),
    ("-P", Path(Write)),
    ("--directory-prefix", Path(Write)),
    ("-i", Path(Read)),
    ("--input-file", Path(Read)),
    ("--post-file", Path(Read)),
    ("--body-file", Path(Read)),
    ("--load-cookies", Path(Read)),
    ("--save-cookies", Path(Write)),
    ("--config", Path(Read)),
    ("--certificate", Path(Use)),
    ("--private-key", Path(Use)),
    ("--ca-certificate", Path(Use)),
    ("-e", Other),
    ("--execute", Other),
    ("-U", Other),
    ("--user-agent", Other),
    ("-t", Other),
    ("--tries", Other),
    ("-T", Other),
    ("--timeout", Other),
    ("-w", Other),
    ("--wait", Other),
    ("-l", Other),
    ("--level", Other),
    ("-A", Other),
    ("-R", Other),
    ("-D", Other),
    ("-X", Other),
    ("-I", Other),
    ("-Q", Other),
    ("-B", Other),
    ("--header", Other),
    ("--user", Other),
    ("--password", Other),
    ("--post-data", Other),
    ("--method", Other),
];
const SSH: &[(&str, Value)] = &[
    ("-i", Path(Use)),
    ("-F", Path(Use)),
    ("-E", Path(Write)),
    ("-S", Path(Use)),
    ("-o", Other),
    ("-p", Other),
    ("-l", Other),
    ("-b", Other),
    ("-c", Other),
    ("-D", Other),
    ("-e", Other),
    ("-I", Other),
    ("-J", Other),
    ("-L", Other),
    ("-m", Other),
    ("-O", Other),
    ("-Q", Other),
    ("-R", Other),
    ("-W", Other),
    ("-w", Other),
    ("-B", Other),
];
const NONE: &[(&str, Value)] = &[];
const DIFF: &[(&str, Value)] = &[
    ("-U", Other),
    ("--unified", Other),
    ("-C", Other),
    ("--context", Other),
    ("-x", Other),
    ("--exclude", Other),
    ("-X", Path(Read)),
    ("--exclude-from", Path(Read)),
    ("-L", Other),
    ("--label", Other),
    ("-I", Other),
    ("--ignore-matching-lines", Other),
    ("-F", Other),
    ("--show-function-line", Other),
    ("--from-file", Path(Read)),
    ("--to-file", Path(Read)),
    ("-W", Other),
    ("--width", Other),
    ("-S", Other),
    ("--starting-file", Other),
    ("--color", Other),
    ("--palette", Other),
];
const LS: &[(&str, Value)] = &[
    ("-I", Other),
    ("--ignore", Other),
    ("--hide", Other),
    ("-w", Other),
    ("--width", Other),
    ("-T", Other),
    ("--tabsize", Other),
    ("--block-size", Other),
    ("--format", Other),
    ("--sort", Other),
    ("--time", Other),
    ("--time-style", Other),
    ("--quoting-style", Other),
    ("--indicator-style", Other),
];
const TREE: &[(&str, Value)] = &[
    ("-L", Other),
    ("-P", Other),
    ("-I", Other),
    ("--filelimit", Other),
    ("--timefmt", Other),
    ("-o", Path(Write)),
];
const BASE64: &[(&str, Value)] = &[
    ("-w", Other),
    ("--wrap", Other),
    ("-b", Other),
    ("--break", Other),
    ("-o", Path(Write)),
    ("--output", Path(Write)),
    ("--input", Path(Read)),
];
const XXD: &[(&str, Value)] = &[
    ("-c", Other),
    ("-g", Other),
    ("-l", Other),
    ("-n", Other),
    ("-o", Other),
    ("-s", Other),
    ("-C", Other),
    ("-cols", Other),
    ("-len", Other),
    ("-seek", Other),
];
const UNIQ: &[(&str, Value)] = &[
    ("-f", Other),
    ("--skip-fields", Other),
    ("-s", Other),
    ("--skip-chars", Other),
    ("-w", Other),
    ("--check-chars", Other),
];

/// The table. Programs not in it are read by [`generic`].
const MODELS: &[Model] = &[
    model(
        &[
            "echo", "printf", "true", "false", "pwd", "whoami", "id", "hostname", "date", "sleep",
            "seq", "yes", "which", "type", "basename", "dirname", "uname", "expr", "tr", "kill",
            "ps", "nproc", "groups", "arch", "tty", "clear", "wait", "jobs",
        ],
        NONE,
        Operands::None,
    ),
    model(&["head", "tail"], HEAD, Operands::All(Read)),
    model(
        &[
            "cat",
            "tac",
            "nl",
            "rev",
            "od",
            "hexdump",
            "hd",
            "strings",
            "file",
            "stat",
            "readlink",
            "realpath",
            "wc",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
            "md5",
            "shasum",
            "cmp",
            "comm",
            "column",
            "paste",
            "join",
            "fold",
            "fmt",
            "expand",
            "unexpand",
            "less",
            "more",
            "most",
            "bat",
            "batcat",
            "base32",
            "basenc",
            "zcat",
            "gzcat",
            "bzcat",
            "xzcat",
            "zstdcat",
            "lz4cat",
            "zless",
            "zmore",
            "du",
            "df",
            "test",
            "lsattr",
            "getfacl",
            "look",
            "pr",
            "gunzip-c",
        ],
        NONE,
        Operands::All(Read),
    ),
    model(&["base64"], BASE64, Operands::All(Read)),
    model(&["ls", "dir", "vdir"], LS, Operands::All(Read)),
    model(&["tree"], TREE, Operands::All(Read)),
    model(&["diff", "colordiff"], DIFF, Operands::All(Read)),
    model(&["cut"], CUT, Operands::All(Read)),
    model(&["sort"], SORT, Operands::All(Read)),
    model(
        &["grep", "egrep", "fgrep", "zgrep"],
        GREP,
        Operands::PatternThenRead,
    ),
    model(&["rg"], RG, Operands::PatternThenRead),
    model(&["sed", "gsed"], SED, Operands::PatternThenRead),
    model(&["jq", "gojq", "jaq"], JQ, Operands::PatternThenRead),
    model(&["cp", "gcp"], CP, Operands::SourcesThenTarget),
    model(&["install"], INSTALL, Operands::SourcesThenTarget),
    model(&["rsync"], RSYNC, Operands::SourcesThenTarget),
    model(&["scp"], SCP, Operands::SourcesThenTarget),
    model(&["mv", "ln", "gmv"], MOVE, Operands::All(Both)),
    model(
        &["rm", "rmdir", "unlink", "mkfifo", "srm"],
        NONE,
        Operands::All(Write),
    ),
    model(&["touch"], TOUCH, Operands::All(Write)),
    model(&["mkdir", "mknod"], MKDIR, Operands::All(Write)),
    model(&["truncate"], TRUNCATE, Operands::All(Write)),
    model(&["shred"], SHRED, Operands::All(Write)),
    model(&["tee"], NONE, Operands::All(Write)),
    model(
        &["chmod", "chown", "chgrp", "chattr", "chflags"],
        MODE,
        Operands::All(Write),
    ),
    model(&["uniq"], UNIQ, Operands::InThenOut),
    model(&["xxd"], XXD, Operands::InThenOut),
    model(&["dd"], NONE, Operands::Dd),
    model(&["find", "gfind", "bfs"], NONE, Operands::Find),
    model(&["curl"], CURL, Operands::None),
    model(&["wget"], WGET, Operands::None),
    model(&["ssh"], SSH, Operands::None),
];

/// Reads the words after a modelled program.
fn modelled<'a, I>(model: &Model, words: I, found: &mut dyn FnMut(&'a str, Access))
where
    I: Iterator<Item = &'a str> + Clone,
{
    match model.operands {
        Operands::Dd => {
            for word in words.take(MAX_PATH_WORDS) {
                if let Some(file) = word.strip_prefix("if=") {
                    path_value(file, Read, found);
                } else if let Some(file) = word.strip_prefix("of=") {
                    path_value(file, Write, found);
                }
            }
            return;
        }
        Operands::Find => return find(words, found),
        _ => {}
    }
    let mut state = OptionState::default();
    let mut first: &'a str = "";
    let mut count = 0usize;
    let mut last: Option<&'a str> = None;
    let mut options = true;
    let mut words = words.take(MAX_PATH_WORDS);
    while let Some(word) = words.next() {
        // Standard input (`-`) and empty words name no file.
        if word.is_empty() || word == "-" {
            continue;
        }
        if options && word == "--" {
            options = false;
            continue;
        }
        if options && word.starts_with('-') {
            read_option(model, word, &mut words, &mut state, found);
            continue;
        }
        // Operands are given as they are met, except the ones whose use depends on what comes
        // after them (the first of a pattern program, the last of a copy).
        match model.operands {
            Operands::None => {}
            Operands::All(access) => found(word, with_in_place(access, &state)),
            Operands::PatternThenRead => {
                if count == 0 {
                    first = word;
                } else {
                    found(word, with_in_place(Read, &state));
                }
            }
            Operands::SourcesThenTarget => {
                if let Some(previous) = last.replace(word) {
                    found(previous, Read);
                }
            }
            Operands::InThenOut => {
                match count {
                    0 => found(word, Read),
                    1 => found(word, Write),
                    // More than the program takes: read both ways.
                    _ => found(word, Both),
                }
            }
            Operands::Dd | Operands::Find => {}
        }
        count += 1;
    }
    // Words beyond the limit: read as a program without a model reads them.
    generic(words, found);
    match model.operands {
        // A pattern given by an option: the first operand was a file too.
        Operands::PatternThenRead if state.pattern_given && !first.is_empty() => {
            found(first, with_in_place(Read, &state));
        }
        Operands::SourcesThenTarget => {
            if let Some(last) = last {
                found(last, if state.target { Read } else { Write });
            }
        }
        _ => {}
    }
}

/// What the options met so far change.
#[derive(Default)]
struct OptionState {
    /// A pattern or script was given as an option: the first operand is a file.
    pattern_given: bool,
    /// The files are edited in place.
    in_place: bool,
    /// A target directory was given as an option: every operand is a source.
    target: bool,
}

fn with_in_place(access: Access, state: &OptionState) -> Access {
    if state.in_place && access == Read {
        Both
    } else {
        access
    }
}

/// Reads one option word (and the value words it takes).
fn read_option<'a>(
    model: &Model,
    word: &'a str,
    rest: &mut dyn Iterator<Item = &'a str>,
    state: &mut OptionState,
    found: &mut dyn FnMut(&'a str, Access),
) {
    if word.starts_with("--") {
        let (name, attached) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (word, None),
        };
        match lookup(model, name) {
            Some(kind) => take_value(kind, attached, rest, state, found),
            // An option the model does not know: a value after `=` may still name a file.
            None => {
                if let Some(value) = attached {
                    path_value(value, Both, found);
                }
            }
        }
        return;
    }
    // A cluster of short options: the first that takes a value takes the rest of the word
    // (or the next word).
    for (at, letter) in word.char_indices().skip(1) {
        let end = at + letter.len_utf8();
        let Some(kind) = lookup_short(model, letter) else {
            continue;
        };
        let attached = word.get(end..).filter(|rest| !rest.is_empty());
        take_value(kind, attached, rest, state, found);
        return;
    }
}

/// The value kind of a long option (`--name`) or a whole short option word (`-x`).
fn lookup(model: &Model, name: &str) -> Option<Value> {
    let exact = model.options.iter().find(|(option, _)| *option == name);
    // GNU programs accept a unique prefix of a long option's name (`--out` for `--output`):
    // a prefix of any listed name is read as the first such option.
    let prefix = || {
        (name.len() > 2)
            .then(|| {
                model
                    .options
                    .iter()
                    .find(|(option, _)| option.starts_with(name))
            })
            .flatten()
    };
    exact.or_else(prefix).map(|(_, kind)| *kind)
}

fn lookup_short(model: &Model, letter: char) -> Option<Value> {
    model.options.iter().find_map(|(option, kind)| {
        let mut chars = option.chars();
        (chars.next() == Some('-') && chars.next() == Some(letter) && chars.next().is_none())
            .then_some(*kind)
    })
}

fn take_value<'a>(
    kind: Value,
    attached: Option<&'a str>,
    rest: &mut dyn Iterator<Item = &'a str>,
    state: &mut OptionState,
    found: &mut dyn FnMut(&'a str, Access),
) {
    // `sed -i` takes no separate value (a suffix is attached); the others take the next word
    // when none is attached.
    if kind == Value::InPlace {
        state.in_place = true;
        return;
    }
    let Some(value) = attached.or_else(|| rest.next()) else {
        return;
    };
    match kind {
        Other => {}
        Path(access) => path_value(value, access, found),
        AtPath(access) => {
            // `@file`, `name@file` (`--data-urlencode`), `name=@file` and `name=<file`
            // (`-F`): the part after the first `@` or `=<` (text with an `@` in it is read as
            // a file too, which can only add a check).
            let file = value
                .split_once('@')
                .or_else(|| value.split_once("=<"))
                .map(|(_, file)| file);
            if let Some(file) = file {
                path_value(file, access, found);
            }
        }
        Pattern => state.pattern_given = true,
        PatternFile => {
            state.pattern_given = true;
            path_value(value, Read, found);
        }
        TwoOthers => {
            rest.next();
        }
        NameThenFile => {
            if let Some(file) = rest.next() {
                path_value(file, Read, found);
            }
        }
        Target => {
            state.target = true;
            path_value(value, Write, found);
        }
        Value::InPlace => {}
    }
}

/// `find`: starting points (read; written when `-delete` is given), then predicates, some with
/// a file value.
fn find<'a, I>(words: I, found: &mut dyn FnMut(&'a str, Access))
where
    I: Iterator<Item = &'a str> + Clone,
{
    let deletes = words.clone().any(|word| word == "-delete");
    let start_access = if deletes { Both } else { Read };
    let mut words = words.take(MAX_PATH_WORDS).peekable();
    // Leading options: -H, -L, -P, -D debugopts, -Olevel.
    while let Some(word) = words.peek().copied() {
        match word {
            "-H" | "-L" | "-P" => {
                words.next();
            }
            "-D" => {
                words.next();
                words.next();
            }
            w if w.starts_with("-O") => {
                words.next();
            }
            _ => break,
        }
    }
    let mut starts = 0usize;
    while let Some(word) = words.peek().copied() {
        if word.starts_with('-') || word == "(" || word == "!" || word == ")" {
            break;
        }
        found(word, start_access);
        starts += 1;
        words.next();
    }
    if starts == 0 {
        found(".", start_access);
    }
    while let Some(word) = words.next() {
        match word {
            "-newer" | "-anewer" | "-cnewer" | "-samefile" | "-files0-from" => {
                if let Some(file) = words.next() {
                    path_value(file, Read, found);
                }
            }
            w if w.starts_with("-newer") && w.len() == 8 => {
                if let Some(file) = words.next() {
                    path_value(file, Read, found);
                }
            }
            "-fprint" | "-fprint0" | "-fls" => {
                if let Some(file) = words.next() {
                    path_value(file, Write, found);
                }
            }
            "-fprintf" => {
                if let Some(file) = words.next() {
                    path_value(file, Write, found);
                }
                words.next();
            }
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
            | "-iregex" | "-type" | "-xtype" | "-maxdepth" | "-mindepth" | "-size" | "-mtime"
            | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-user" | "-group" | "-uid"
            | "-gid" | "-perm" | "-links" | "-inum" | "-printf" | "-used" | "-lname"
            | "-ilname" | "-context" | "-regextype" | "-fstype" => {
                words.next();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(command: &str) -> Vec<(String, Access)> {
        let mut out = Vec::new();
        form_paths(command.split(' '), &mut |w, a| out.push((w.to_owned(), a)));
        out
    }

    fn p(list: &[(&str, Access)]) -> Vec<(String, Access)> {
        list.iter().map(|(w, a)| ((*w).to_owned(), *a)).collect()
    }

    #[test]
    fn models() {
        assert_eq!(paths("cat a ~/b"), p(&[("a", Read), ("~/b", Read)]));
        assert_eq!(paths("head -n 5 a"), p(&[("a", Read)]));
        assert_eq!(paths("head -n5 a"), p(&[("a", Read)]));
        assert_eq!(paths("grep -rn ../pat x"), p(&[("x", Read)]));
        assert_eq!(paths("grep -e ../pat x"), p(&[("x", Read)]));
        assert_eq!(
            paths("grep -f ~/pats x"),
            p(&[("~/pats", Read), ("x", Read)])
        );
        assert_eq!(paths("grep -rn pat"), p(&[]));
        assert_eq!(paths("sed -i s/a/b/ f"), p(&[("f", Both)]));
        assert_eq!(paths("sed -n 1p f"), p(&[("f", Read)]));
        assert_eq!(paths("sed -e s/a/b/ f g"), p(&[("g", Read), ("f", Read)]));
        assert_eq!(
            paths("cp a b c"),
            p(&[("a", Read), ("b", Read), ("c", Write)])
        );
        assert_eq!(
            paths("cp -t ~/d a b"),
            p(&[("~/d", Write), ("a", Read), ("b", Read)])
        );
        assert_eq!(
            paths("cp --target-directory=~/d a"),
            p(&[("~/d", Write), ("a", Read)])
        );
        assert_eq!(paths("mv a ../b"), p(&[("a", Both), ("../b", Both)]));
        assert_eq!(paths("rm -rf x"), p(&[("x", Write)]));
        assert_eq!(
            paths("chmod 600 ~/.ssh/k"),
            p(&[("600", Write), ("~/.ssh/k", Write)])
        );
        assert_eq!(
            paths("chmod --reference=r f"),
            p(&[("r", Read), ("f", Write)])
        );
        assert_eq!(paths("chmod -x ~/.seal/r"), p(&[("~/.seal/r", Write)]));
        assert_eq!(paths("rm -r ~/.seal"), p(&[("~/.seal", Write)]));
        assert_eq!(
            paths("cp -l ~/.ssh/k k"),
            p(&[("~/.ssh/k", Read), ("k", Write)])
        );
        assert_eq!(
            paths("cp -i ~/.ssh/k k"),
            p(&[("~/.ssh/k", Read), ("k", Write)])
        );
        assert_eq!(paths("ls -d ~/.ssh"), p(&[("~/.ssh", Read)]));
        assert_eq!(paths("grep -T pat ~/x"), p(&[("~/x", Read)]));
        assert_eq!(
            paths("sort --outp ~/o a"),
            p(&[("~/o", Write), ("a", Read)])
        );
        assert_eq!(paths("cut -s -f1 ~/x"), p(&[("~/x", Read)]));
        assert_eq!(paths("curl -i -d @~/k https://h"), p(&[("~/k", Read)]));
        assert_eq!(
            paths("dd if=~/k of=/tmp/x bs=1"),
            p(&[("~/k", Read), ("/tmp/x", Write)])
        );
        assert_eq!(paths("uniq a b"), p(&[("a", Read), ("b", Write)]));
        assert_eq!(paths("sort -o ~/o a"), p(&[("~/o", Write), ("a", Read)]));
        assert_eq!(paths("tee -a ~/.bashrc"), p(&[("~/.bashrc", Write)]));
        assert_eq!(paths("echo ~/.ssh/id_rsa"), p(&[]));
        assert_eq!(
            paths("curl -o ~/x --data-binary @../k https://h/p"),
            p(&[("~/x", Write), ("../k", Read)])
        );
        assert_eq!(paths("curl -F f=@/etc/k https://h"), p(&[("/etc/k", Read)]));
        assert_eq!(paths("ssh -i ~/.ssh/k host ls"), p(&[("~/.ssh/k", Use)]));
        assert_eq!(
            paths("jq --slurpfile s ~/a . ~/b"),
            p(&[("~/a", Read), ("~/b", Read)])
        );
        assert_eq!(
            paths("find ~ -name k -newer ../r -fprint /tmp/o"),
            p(&[("~", Read), ("../r", Read), ("/tmp/o", Write)])
        );
        assert_eq!(paths("find -name x"), p(&[(".", Read)]));
        assert_eq!(paths("find -O3 ~/x -name k"), p(&[("~/x", Read)]));
        assert_eq!(paths("find -L -D tree ~/x"), p(&[("~/x", Read)]));
        assert_eq!(paths("find ( -name a -o -name b )"), p(&[(".", Read)]));
        assert_eq!(paths("find ! -name a"), p(&[(".", Read)]));
        assert_eq!(paths("find ) -name a"), p(&[(".", Read)]));
        assert_eq!(
            paths("find . -fprintf ~/o %p"),
            p(&[(".", Read), ("~/o", Write)])
        );
        // A predicate's value is not read as a predicate.
        assert_eq!(paths("find . -name -newer ~/r"), p(&[(".", Read)]));
        assert_eq!(
            paths("find . -newerma ~/r"),
            p(&[(".", Read), ("~/r", Read)])
        );
        assert_eq!(paths("find . -newermat ~/r"), p(&[(".", Read)]));
        // GNU's unique prefixes of long options, down to one letter.
        assert_eq!(paths("sort --o ~/x a"), p(&[("~/x", Write), ("a", Read)]));
        assert_eq!(paths("find ~/.x -delete"), p(&[("~/.x", Both)]));
        assert_eq!(paths("ls -la ~"), p(&[("~", Read)]));
        assert_eq!(paths("xxd ~/k out"), p(&[("~/k", Read), ("out", Write)]));
    }

    #[test]
    fn programs_without_a_model() {
        assert_eq!(
            paths("tar czf ~/o.tgz ."),
            p(&[("czf", Both), ("~/o.tgz", Both), (".", Both)])
        );
        assert_eq!(
            paths("tar -czf ~/o.tgz ."),
            p(&[("~/o.tgz", Both), (".", Both)])
        );
        assert_eq!(paths("make -C../x"), p(&[("../x", Both)]));
        assert_eq!(
            paths("npm --prefix=~/x test"),
            p(&[("~/x", Both), ("test", Both)])
        );
        assert_eq!(paths("tool @~/k"), p(&[("@~/k", Both), ("~/k", Both)]));
        assert_eq!(paths("tool k=~/v"), p(&[("k=~/v", Both), ("~/v", Both)]));
        assert_eq!(paths("tool -- -x"), p(&[("-x", Both)]));
        // Standard input (`-`) and empty words name no file.
        assert_eq!(paths("tool - x"), p(&[("x", Both)]));
        assert_eq!(paths("tool  x"), p(&[("x", Both)]));
        assert_eq!(paths("tool --out= --in=-"), p(&[]));
        assert_eq!(paths("curl -o - https://h"), p(&[]));
    }
}
