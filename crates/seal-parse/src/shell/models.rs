//! Program models: how some programs read their own words (global options, where the
//! subcommand stands, long options and the unique prefixes the program accepts for them,
//! clustered short options, options after operands), so that a deny or ask rule can match what
//! the program will do however the command spells it (spec/shell-segments.md, "Program
//! models").
//!
//! [`model`] reads the words of one form (program first) into a [`Modelled`]: the program, its
//! subcommand, the set of options given (each spelt out in full, clusters split, abbreviations
//! expanded, global options removed) and the operands in order. Nothing is allocated: a command
//! with more options or operands than [`MAX_OPTIONS`] or [`MAX_OPERANDS`] keeps the first ones
//! and says so ([`Modelled::truncated`]).

/// Options a [`Modelled`] keeps.
pub const MAX_OPTIONS: usize = 24;
/// Operands a [`Modelled`] keeps.
pub const MAX_OPERANDS: usize = 8;

/// One option given to a modelled program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelOption<'a> {
    /// A long option, by its full name without dashes (`force` for `-f`, `--for`, `--force`);
    /// for a long option the model does not know, the name as written (up to any `=`).
    Long(&'a str),
    /// A short option the model does not know, by its letter.
    Short(char),
}

/// The words of one command as its program reads them (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Modelled<'a> {
    program: &'static str,
    subcommand: [&'a str; 2],
    subcommand_words: usize,
    options: [ModelOption<'a>; MAX_OPTIONS],
    option_count: usize,
    operands: [&'a str; MAX_OPERANDS],
    operand_count: usize,
    truncated: bool,
    values: bool,
}

impl<'a> Modelled<'a> {
    /// The program (as the model names it).
    #[must_use]
    pub fn program(&self) -> &'static str {
        self.program
    }

    /// The subcommand words (`["reset"]`, `["worktree", "remove"]`), empty for a program
    /// without subcommands or a command that gives none.
    pub fn subcommand(&self) -> impl ExactSizeIterator<Item = &'a str> + Clone + '_ {
        self.subcommand.iter().copied().take(self.subcommand_words)
    }

    /// The options given, each once, in the order first given.
    pub fn options(&self) -> impl ExactSizeIterator<Item = ModelOption<'a>> + Clone + '_ {
        self.options.iter().copied().take(self.option_count)
    }

    /// Whether `option` was given.
    #[must_use]
    pub fn has(&self, option: ModelOption<'_>) -> bool {
        self.options().any(|given| same(given, option))
    }

    /// The operands, in order.
    pub fn operands(&self) -> impl ExactSizeIterator<Item = &'a str> + Clone + '_ {
        self.operands.iter().copied().take(self.operand_count)
    }

    /// Whether an option of the command took a value (`-m msg`, `--git-dir=x` among the
    /// global options): the model keeps options, not their values.
    #[must_use]
    pub fn took_values(&self) -> bool {
        self.values
    }

    /// Whether options or operands beyond the limits were dropped.
    #[must_use]
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn push_option(&mut self, option: ModelOption<'a>) {
        if self.has(option) {
            return;
        }
        match self.options.get_mut(self.option_count) {
            Some(slot) => {
                *slot = option;
                self.option_count += 1;
            }
            None => self.truncated = true,
        }
    }

    fn push_operand(&mut self, word: &'a str) {
        match self.operands.get_mut(self.operand_count) {
            Some(slot) => {
                *slot = word;
                self.operand_count += 1;
            }
            None => self.truncated = true,
        }
    }
}

fn same(a: ModelOption<'_>, b: ModelOption<'_>) -> bool {
    match (a, b) {
        (ModelOption::Long(a), ModelOption::Long(b)) => a == b,
        (ModelOption::Short(a), ModelOption::Short(b)) => a == b,
        _ => false,
    }
}

/// The names under which `program` (a name as written, e.g. `git`) is modelled: every name of
/// its model, the given one included, or none when it has no model. A form is read by the
/// model only when its program is one of these names.
#[must_use]
pub fn model_names(program: &str) -> &'static [&'static str] {
    PROGRAMS
        .iter()
        .find(|entry| entry.names.contains(&program))
        .map_or(&[], |entry| entry.names)
}

/// Reads `words` (a form: program first) with the program's model, if the program has one.
/// The program is compared as written (a form's basename is already reduced).
pub fn model<'a, I>(words: I) -> Option<Modelled<'a>>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut words = words.into_iter();
    let program = words.next()?;
    let entry = PROGRAMS
        .iter()
        .find(|entry| entry.names.contains(&program))?;
    let mut out = Modelled {
        program: entry.names.first().copied().unwrap_or_default(),
        subcommand: [""; 2],
        subcommand_words: 0,
        options: [ModelOption::Short(' '); MAX_OPTIONS],
        option_count: 0,
        operands: [""; MAX_OPERANDS],
        operand_count: 0,
        truncated: false,
        values: false,
    };
    let mut words = words.peekable();
    // Global options, before the subcommand.
    let mut options: &[Opt] = entry.options;
    let mut operand_options: &[(char, &str)] = &[];
    if !entry.subcommands.is_empty() {
        while let Some(&word) = words.peek() {
            if word == "--" {
                words.next();
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            words.next();
            // A global option the model does not know: the program refuses it, or reads it
            // in a way the model cannot tell; no model.
            if !is_global(entry.globals, word) {
                return None;
            }
            let takes_value = read_option(entry.globals, word, &mut |_| {});
            if takes_value {
                words.next();
            }
            out.values |= takes_value || takes_any_value(entry.globals, word);
        }
        let Some(first) = words.next() else {
            return Some(out);
        };
        out.subcommand[0] = first;
        out.subcommand_words = 1;
        options = &[];
        if let Some(sub) = entry.subcommands.iter().find(|sub| sub.name == first) {
            options = sub.options;
            operand_options = sub.operand_options;
            if !sub.subcommands.is_empty() {
                if let Some(&second) = words.peek() {
                    if sub.subcommands.contains(&second) {
                        words.next();
                        out.subcommand[1] = second;
                        out.subcommand_words = 2;
                    }
                }
            }
        }
    }
    let mut operands_only = false;
    let mut operand_at = 0usize;
    while let Some(word) = words.next() {
        if operands_only || !word.starts_with('-') || word == "-" {
            if operand_at > 0 {
                for (first, name) in operand_options {
                    if word.starts_with(*first) {
                        out.push_option(ModelOption::Long(name));
                    }
                }
            }
            operand_at += 1;
            out.push_operand(word);
            continue;
        }
        if word == "--" {
            operands_only = true;
            continue;
        }
        let takes_value = read_option(options, word, &mut |option| out.push_option(option));
        if takes_value {
            words.next();
        }
        out.values |= takes_value || takes_any_value(options, word);
    }
    Some(out)
}

/// Whether `word` spells a global option of the table (exactly, as a unique or ambiguous
/// prefix of a long one, or as a cluster of known letters).
fn is_global(globals: &[Opt], word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split_once('=').map_or(long, |(name, _)| name);
        return !name.is_empty()
            && globals
                .iter()
                .any(|o| o.long.is_some_and(|l| l.starts_with(name)));
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    for letter in cluster.chars() {
        match globals.iter().find(|o| o.short == Some(letter)) {
            Some(option) if option.value == Value::Required => return true,
            Some(_) => {}
            None => return false,
        }
    }
    !cluster.is_empty()
}

/// Whether `word` holds a value joined to an option (`--name=value`, `-Cdir`).
fn takes_any_value(options: &[Opt], word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        return long.contains('=');
    }
    let cluster = word.strip_prefix('-').unwrap_or_default();
    cluster.char_indices().any(|(at, letter)| {
        options
            .iter()
            .any(|o| o.short == Some(letter) && o.value == Value::Required)
            && cluster.len() > at + letter.len_utf8()
    })
}

/// Reads one option word against `options`, giving each option it sets to `set`; whether the
/// next word is the option's value.
fn read_option<'a>(options: &[Opt], word: &'a str, set: &mut dyn FnMut(ModelOption<'a>)) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let (name, joined) = match long.split_once('=') {
            Some((name, _)) => (name, true),
            None => (long, false),
        };
        let exact = options.iter().find(|o| o.long == Some(name));
        if let Some(option) = exact {
            for set_name in option.sets {
                set(ModelOption::Long(set_name));
            }
            return option.value == Value::Required && !joined;
        }
        // A unique prefix is the option; an ambiguous one (which the program refuses) is
        // read as every option it could be, so that a deny can only fire more often.
        let mut matched = false;
        let mut value = false;
        for option in options
            .iter()
            .filter(|o| !name.is_empty() && o.long.is_some_and(|l| l.starts_with(name)))
        {
            matched = true;
            value |= option.value == Value::Required;
            for set_name in option.sets {
                set(ModelOption::Long(set_name));
            }
        }
        if !matched {
            set(ModelOption::Long(name));
        }
        return value && !joined;
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    for (at, letter) in cluster.char_indices() {
        match options.iter().find(|o| o.short == Some(letter)) {
            Some(option) => {
                for set_name in option.sets {
                    set(ModelOption::Long(set_name));
                }
                if option.value == Value::Required {
                    // The rest of the word is the value, or the next word is.
                    return cluster.len() == at + letter.len_utf8();
                }
            }
            None => set(ModelOption::Short(letter)),
        }
    }
    false
}

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    None,
    /// The next word, or joined (`-Cdir`, `--git-dir=x`).
    Required,
    /// Only joined (`--interactive=never`).
    Optional,
}

/// One option of a model.
#[derive(Debug)]
struct Opt {
    short: Option<char>,
    long: Option<&'static str>,
    value: Value,
    /// The long names it sets (`-D` of `git branch` sets `delete` and `force`).
    sets: &'static [&'static str],
}

/// One modelled program.
#[derive(Debug)]
struct Program {
    /// Its names (the first is the model's name for it).
    names: &'static [&'static str],
    /// Options before the subcommand, removed from the model.
    globals: &'static [Opt],
    /// Options of a program without subcommands.
    options: &'static [Opt],
    subcommands: &'static [Sub],
}

/// One subcommand of a modelled program.
#[derive(Debug)]
struct Sub {
    name: &'static str,
    options: &'static [Opt],
    /// Second words that make a subcommand of their own (`worktree remove`, `stash drop`).
    subcommands: &'static [&'static str],
    /// Operands after the first that mean an option, by their first character (a `git push`
    /// refspec `+ref` forces, `:ref` deletes).
    operand_options: &'static [(char, &'static str)],
}

const fn flag(short: char, long: &'static str, sets: &'static [&'static str]) -> Opt {
    Opt {
        short: Some(short),
        long: Some(long),
        value: Value::None,
        sets,
    }
}

const fn long(long: &'static str, sets: &'static [&'static str]) -> Opt {
    Opt {
        short: None,
        long: Some(long),
        value: Value::None,
        sets,
    }
}

const fn short(short: char, sets: &'static [&'static str]) -> Opt {
    Opt {
        short: Some(short),
        long: None,
        value: Value::None,
        sets,
    }
}

const fn with_value(mut option: Opt) -> Opt {
    option.value = Value::Required;
    option
}

const fn optional_value(mut option: Opt) -> Opt {
    option.value = Value::Optional;
    option
}

const fn sub(name: &'static str, options: &'static [Opt]) -> Sub {
    Sub {
        name,
        options,
        subcommands: &[],
        operand_options: &[],
    }
}

/// The model table (spec/shell-segments.md, "Program models").
const PROGRAMS: &[Program] = &[
    Program {
        names: &["git"],
        globals: GIT_GLOBALS,
        options: &[],
        subcommands: GIT_SUBCOMMANDS,
    },
    Program {
        names: &["rm"],
        globals: &[],
        options: RM_OPTIONS,
        subcommands: &[],
    },
    // The CLIs below read their options anywhere among their words (pflag, argparse, nopt):
    // they are read without subcommands, every word not an option being an operand in order
    // (`kubectl -n prod delete ns x` has the operands `delete ns x`), with the options that
    // take a value, wherever they stand, so that their values are not read as operands.
    Program {
        names: &["docker"],
        globals: &[],
        options: DOCKER_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["kubectl"],
        globals: &[],
        options: KUBECTL_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["aws"],
        globals: &[],
        options: AWS_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["gcloud"],
        globals: &[],
        options: GCLOUD_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["npm"],
        globals: &[],
        options: NPM_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["pnpm"],
        globals: &[],
        options: PNPM_OPTIONS,
        subcommands: &[],
    },
    Program {
        names: &["yarn"],
        globals: &[],
        options: YARN_OPTIONS,
        subcommands: &[],
    },
];

const fn value(long: &'static str) -> Opt {
    with_value(Opt {
        short: None,
        long: Some(long),
        value: Value::None,
        sets: &[],
    })
}

const fn short_value(short: char, long: &'static str) -> Opt {
    with_value(Opt {
        short: Some(short),
        long: Some(long),
        value: Value::None,
        sets: &[],
    })
}

/// docker's global options and the options of its commands that matter to rules.
const DOCKER_OPTIONS: &[Opt] = &[
    short_value('H', "host"),
    short_value('c', "context"),
    value("config"),
    short_value('l', "log-level"),
    flag('D', "debug", &["debug"]),
    long("tls", &["tls"]),
    long("tlsverify", &["tlsverify"]),
    value("tlscacert"),
    value("tlscert"),
    value("tlskey"),
    FORCE,
    flag('a', "all", &["all"]),
    flag('v', "volumes", &["volumes"]),
    long("rmi", &["rmi"]),
    value("filter"),
    flag('q', "quiet", &["quiet"]),
    value("name"),
    short_value('t', "tag"),
    short_value('p', "project-name"),
    value("file"),
];

/// kubectl's global options (accepted anywhere) and the options of its commands that matter to
/// rules.
const KUBECTL_OPTIONS: &[Opt] = &[
    value("context"),
    value("cluster"),
    value("user"),
    short_value('n', "namespace"),
    value("kubeconfig"),
    short_value('s', "server"),
    value("token"),
    value("as"),
    value("as-group"),
    value("request-timeout"),
    value("certificate-authority"),
    value("client-certificate"),
    value("client-key"),
    value("cache-dir"),
    value("tls-server-name"),
    value("username"),
    value("password"),
    value("profile"),
    short_value('v', "v"),
    long("insecure-skip-tls-verify", &["insecure-skip-tls-verify"]),
    short_value('f', "filename"),
    short_value('l', "selector"),
    short_value('o', "output"),
    short_value('k', "kustomize"),
    value("field-selector"),
    value("grace-period"),
    long("all", &["all"]),
    flag('A', "all-namespaces", &["all-namespaces"]),
    long("force", &["force"]),
    long("now", &["now"]),
    flag('R', "recursive", &["recursive"]),
    optional_value(long("cascade", &["cascade"])),
    optional_value(long("dry-run", &["dry-run"])),
    long("ignore-not-found", &["ignore-not-found"]),
    long("delete-emptydir-data", &["delete-emptydir-data"]),
    long("ignore-daemonsets", &["ignore-daemonsets"]),
];

/// The AWS CLI's global options (accepted anywhere).
const AWS_OPTIONS: &[Opt] = &[
    value("profile"),
    value("region"),
    value("output"),
    value("endpoint-url"),
    value("query"),
    value("color"),
    value("ca-bundle"),
    value("cli-read-timeout"),
    value("cli-connect-timeout"),
    value("cli-binary-format"),
    long("debug", &["debug"]),
    long("no-verify-ssl", &["no-verify-ssl"]),
    long("no-paginate", &["no-paginate"]),
    long("no-sign-request", &["no-sign-request"]),
    long("no-cli-pager", &["no-cli-pager"]),
    long("recursive", &["recursive"]),
    long("force", &["force"]),
    long("dryrun", &["dryrun"]),
];

/// gcloud's global options (accepted anywhere).
const GCLOUD_OPTIONS: &[Opt] = &[
    value("project"),
    value("account"),
    value("configuration"),
    value("verbosity"),
    value("format"),
    value("impersonate-service-account"),
    value("billing-project"),
    value("flags-file"),
    value("flatten"),
    value("trace-token"),
    value("zone"),
    value("region"),
    flag('q', "quiet", &["quiet"]),
    long("log-http", &["log-http"]),
    long("async", &["async"]),
];

/// npm's options that take a value, and its flags that matter to rules.
const NPM_OPTIONS: &[Opt] = &[
    value("prefix"),
    value("registry"),
    short_value('w', "workspace"),
    value("tag"),
    value("otp"),
    value("userconfig"),
    value("cache"),
    value("loglevel"),
    value("access"),
    FORCE,
    flag('g', "global", &["global"]),
    long("dry-run", &["dry-run"]),
    flag('y', "yes", &["yes"]),
];

/// pnpm's options that take a value, and its flags that matter to rules.
const PNPM_OPTIONS: &[Opt] = &[
    short_value('C', "dir"),
    short_value('F', "filter"),
    value("registry"),
    value("reporter"),
    flag('w', "workspace-root", &["workspace-root"]),
    flag('r', "recursive", &["recursive"]),
    flag('g', "global", &["global"]),
    FORCE,
    long("dry-run", &["dry-run"]),
];

/// yarn's options that take a value, and its flags that matter to rules.
const YARN_OPTIONS: &[Opt] = &[
    value("cwd"),
    value("registry"),
    value("otp"),
    value("access"),
    value("tag"),
    FORCE,
    long("dry-run", &["dry-run"]),
];

const GIT_GLOBALS: &[Opt] = &[
    with_value(short('C', &[])),
    with_value(short('c', &[])),
    with_value(long("git-dir", &[])),
    with_value(long("work-tree", &[])),
    with_value(long("namespace", &[])),
    with_value(long("config-env", &[])),
    with_value(long("super-prefix", &[])),
    optional_value(long("exec-path", &[])),
    flag('p', "paginate", &[]),
    flag('P', "no-pager", &[]),
    long("bare", &[]),
    long("no-replace-objects", &[]),
    long("literal-pathspecs", &[]),
    long("glob-pathspecs", &[]),
    long("noglob-pathspecs", &[]),
    long("icase-pathspecs", &[]),
    long("no-optional-locks", &[]),
    long("no-advice", &[]),
    long("no-lazy-fetch", &[]),
    with_value(long("attr-source", &[])),
    optional_value(long("list-cmds", &[])),
    long("html-path", &[]),
    long("man-path", &[]),
    long("info-path", &[]),
    long("version", &[]),
    long("help", &[]),
];

const FORCE: Opt = flag('f', "force", &["force"]);
const QUIET: Opt = flag('q', "quiet", &["quiet"]);
const VERBOSE: Opt = flag('v', "verbose", &["verbose"]);
const DRY_RUN: Opt = flag('n', "dry-run", &["dry-run"]);

const GIT_SUBCOMMANDS: &[Sub] = &[
    sub(
        "reset",
        &[
            long("hard", &["hard"]),
            long("soft", &["soft"]),
            long("mixed", &["mixed"]),
            long("merge", &["merge"]),
            long("keep", &["keep"]),
            QUIET,
            flag('p', "patch", &["patch"]),
            long("recurse-submodules", &["recurse-submodules"]),
            long("no-recurse-submodules", &["no-recurse-submodules"]),
            long("pathspec-from-file", &["pathspec-from-file"]),
        ],
    ),
    sub(
        "checkout",
        &[
            FORCE,
            QUIET,
            with_value(short('b', &["b"])),
            with_value(short('B', &["B"])),
            flag('m', "merge", &["merge"]),
            flag('p', "patch", &["patch"]),
            long("ours", &["ours"]),
            long("theirs", &["theirs"]),
            long("detach", &["detach"]),
            with_value(long("orphan", &["orphan"])),
            long("overwrite-ignore", &["overwrite-ignore"]),
            long("ignore-other-worktrees", &["ignore-other-worktrees"]),
            long("progress", &["progress"]),
            long("no-progress", &["no-progress"]),
            flag('t', "track", &["track"]),
            long("no-track", &["no-track"]),
            long("recurse-submodules", &["recurse-submodules"]),
            long("pathspec-from-file", &["pathspec-from-file"]),
        ],
    ),
    sub(
        "switch",
        &[
            FORCE,
            QUIET,
            long("discard-changes", &["discard-changes"]),
            with_value(flag('c', "create", &["create"])),
            with_value(flag('C', "force-create", &["force-create"])),
            long("detach", &["detach"]),
            with_value(long("orphan", &["orphan"])),
            flag('m', "merge", &["merge"]),
            flag('t', "track", &["track"]),
            long("no-track", &["no-track"]),
            long("guess", &["guess"]),
            long("no-guess", &["no-guess"]),
            long("ignore-other-worktrees", &["ignore-other-worktrees"]),
            long("recurse-submodules", &["recurse-submodules"]),
        ],
    ),
    sub(
        "restore",
        &[
            with_value(flag('s', "source", &["source"])),
            flag('S', "staged", &["staged"]),
            flag('W', "worktree", &["worktree"]),
            long("ours", &["ours"]),
            long("theirs", &["theirs"]),
            flag('p', "patch", &["patch"]),
            QUIET,
            long("overlay", &["overlay"]),
            long("no-overlay", &["no-overlay"]),
        ],
    ),
    Sub {
        name: "push",
        subcommands: &[],
        operand_options: &[('+', "force"), (':', "delete")],
        options: &[
            FORCE,
            optional_value(long("force-with-lease", &["force-with-lease"])),
            long("force-if-includes", &["force-if-includes"]),
            long("mirror", &["mirror"]),
            flag('d', "delete", &["delete"]),
            long("all", &["all"]),
            long("branches", &["branches"]),
            long("tags", &["tags"]),
            long("prune", &["prune"]),
            DRY_RUN,
            QUIET,
            VERBOSE,
            flag('u', "set-upstream", &["set-upstream"]),
            long("follow-tags", &["follow-tags"]),
            long("atomic", &["atomic"]),
            long("no-verify", &["no-verify"]),
            with_value(flag('o', "push-option", &["push-option"])),
            with_value(long("repo", &["repo"])),
            long("porcelain", &["porcelain"]),
        ],
    },
    sub(
        "branch",
        &[
            flag('d', "delete", &["delete"]),
            short('D', &["delete", "force"]),
            FORCE,
            flag('m', "move", &["move"]),
            short('M', &["move", "force"]),
            flag('c', "copy", &["copy"]),
            short('C', &["copy", "force"]),
            flag('r', "remotes", &["remotes"]),
            flag('a', "all", &["all"]),
            flag('l', "list", &["list"]),
            VERBOSE,
            QUIET,
            flag('u', "set-upstream-to", &["set-upstream-to"]),
            long("unset-upstream", &["unset-upstream"]),
            long("edit-description", &["edit-description"]),
            long("show-current", &["show-current"]),
            long("contains", &["contains"]),
            long("merged", &["merged"]),
            long("no-merged", &["no-merged"]),
        ],
    ),
    sub(
        "tag",
        &[
            flag('d', "delete", &["delete"]),
            FORCE,
            flag('l', "list", &["list"]),
            flag('a', "annotate", &["annotate"]),
            flag('s', "sign", &["sign"]),
            with_value(flag('m', "message", &["message"])),
            VERBOSE,
        ],
    ),
    sub(
        "clean",
        &[
            FORCE,
            short('d', &["d"]),
            short('x', &["x"]),
            short('X', &["X"]),
            DRY_RUN,
            QUIET,
            flag('i', "interactive", &["interactive"]),
            with_value(flag('e', "exclude", &["exclude"])),
        ],
    ),
    Sub {
        name: "stash",
        options: &[QUIET],
        subcommands: &[
            "drop", "clear", "pop", "apply", "push", "list", "show", "save",
        ],
        operand_options: &[],
    },
    Sub {
        name: "worktree",
        options: &[FORCE, VERBOSE, DRY_RUN],
        subcommands: &["remove", "prune", "add", "move", "list", "lock", "unlock"],
        operand_options: &[],
    },
    sub(
        "rm",
        &[
            FORCE,
            short('r', &["r"]),
            long("cached", &["cached"]),
            DRY_RUN,
            QUIET,
            long("ignore-unmatch", &["ignore-unmatch"]),
        ],
    ),
    sub(
        "commit",
        &[
            long("amend", &["amend"]),
            flag('a', "all", &["all"]),
            with_value(flag('m', "message", &["message"])),
            long("no-verify", &["no-verify"]),
            long("allow-empty", &["allow-empty"]),
            QUIET,
            VERBOSE,
        ],
    ),
    sub(
        "rebase",
        &[
            flag('i', "interactive", &["interactive"]),
            long("onto", &["onto"]),
            long("abort", &["abort"]),
            long("continue", &["continue"]),
            long("skip", &["skip"]),
            long("root", &["root"]),
            QUIET,
            VERBOSE,
            FORCE,
        ],
    ),
    sub("filter-branch", &[FORCE]),
    Sub {
        name: "reflog",
        options: &[],
        subcommands: &["expire", "delete", "show", "exists"],
        operand_options: &[],
    },
    sub(
        "gc",
        &[
            optional_value(long("prune", &["prune"])),
            long("aggressive", &["aggressive"]),
            QUIET,
        ],
    ),
    sub(
        "update-ref",
        &[
            short('d', &["d"]),
            long("stdin", &["stdin"]),
            short('m', &["m"]),
        ],
    ),
];

const RM_OPTIONS: &[Opt] = &[
    flag('r', "recursive", &["recursive"]),
    short('R', &["recursive"]),
    FORCE,
    short('i', &["i"]),
    short('I', &["I"]),
    optional_value(long("interactive", &["interactive"])),
    flag('d', "dir", &["dir"]),
    VERBOSE,
    long("one-file-system", &["one-file-system"]),
    long("no-preserve-root", &["no-preserve-root"]),
    optional_value(long("preserve-root", &["preserve-root"])),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn read(command: &str) -> (String, Vec<String>, Vec<String>) {
        let modelled = model(command.split(' ')).expect("modelled");
        let sub: Vec<&str> = modelled.subcommand().collect();
        let options = modelled
            .options()
            .map(|o| match o {
                ModelOption::Long(name) => format!("--{name}"),
                ModelOption::Short(letter) => format!("-{letter}"),
            })
            .collect();
        let operands = modelled.operands().map(str::to_owned).collect();
        (sub.join(" "), options, operands)
    }

    #[test]
    fn git_global_options_abbreviations_and_clusters() {
        for command in [
            "git reset --hard",
            "git -C repo reset --hard",
            "git -Crepo reset --ha",
            "git --git-dir=.git --work-tree . reset --hard",
            "git --no-pager -c k=v reset --har",
            "git -- reset --hard",
        ] {
            assert_eq!(read(command).0, "reset", "{command}");
            assert_eq!(read(command).1, ["--hard"], "{command}");
        }
        assert_eq!(read("git checkout -qf main").1, ["--quiet", "--force"]);
        assert_eq!(
            read("git branch -Dv x").1,
            ["--delete", "--force", "--verbose"]
        );
        assert_eq!(read("git branch --del --forc x").1, ["--delete", "--force"]);
        let (sub, options, operands) = read("git worktree remove -f /tmp/wt");
        assert_eq!(
            (sub.as_str(), options, operands),
            (
                "worktree remove",
                vec!["--force".to_owned()],
                vec!["/tmp/wt".to_owned()]
            )
        );
        let (_, options, operands) = read("git push origin main --force");
        assert_eq!(
            (options, operands),
            (
                vec!["--force".to_owned()],
                vec!["origin".to_owned(), "main".to_owned()]
            )
        );
        // An ambiguous prefix reads as every option it could be.
        assert_eq!(
            read("git push --fo").1,
            [
                "--force",
                "--force-with-lease",
                "--force-if-includes",
                "--follow-tags"
            ]
        );
        // A value is not an operand.
        assert_eq!(read("git checkout -b topic main").2, ["main"]);
        assert_eq!(read("git checkout -- a.txt").2, ["a.txt"]);
    }

    #[test]
    fn rm_clusters_long_options_and_order() {
        let others = ["rm --rec --for /", "rm -Rf /"];
        for command in seal_test_support::spellings::RM_RF_ROOT
            .into_iter()
            .chain(others)
        {
            let (_, options, operands) = read(command);
            assert!(
                options.contains(&"--recursive".to_owned())
                    && options.contains(&"--force".to_owned()),
                "{command}: {options:?}"
            );
            assert_eq!(operands, ["/"], "{command}");
        }
        assert_eq!(read("rm -- -rf").2, ["-rf"]);
    }

    #[test]
    fn unknown_global_options_leave_git_unmodelled() {
        for command in ["git -rf", "git --frobnicate reset --hard", "git -x reset"] {
            assert!(model(command.split(' ')).is_none(), "{command}");
        }
        assert!(model("git --no-p reset --hard".split(' ')).is_some());
        assert_eq!(
            read("git --no-lazy-fetch --attr-source HEAD reset --hard").1,
            ["--hard"]
        );
    }

    #[test]
    fn unmodelled_programs_and_limits() {
        assert!(model("ls -la".split(' ')).is_none());
        let many: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let words = std::iter::once("rm").chain(many.iter().map(String::as_str));
        let modelled = model(words).unwrap();
        assert_eq!(modelled.operands().len(), MAX_OPERANDS);
        assert!(modelled.truncated());
    }
}
