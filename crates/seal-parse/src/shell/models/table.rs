//! The program model table (spec/shell-segments.md, "Program models"): which programs are
//! modelled, their global options, subcommands and options, as data.

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    None,
    /// The next word, or joined (`-Cdir`, `--git-dir=x`).
    Required,
    /// Only joined (`--interactive=never`).
    Optional,
}

/// One option of a model.
#[derive(Debug)]
pub(super) struct Opt {
    pub(super) short: Option<char>,
    pub(super) long: Option<&'static str>,
    pub(super) value: Value,
    /// The long names it sets (`-D` of `git branch` sets `delete` and `force`).
    pub(super) sets: &'static [&'static str],
}

/// One modelled program.
#[derive(Debug)]
pub(super) struct Program {
    /// Its names (the first is the model's name for it).
    pub(super) names: &'static [&'static str],
    /// Options before the subcommand, removed from the model.
    pub(super) globals: &'static [Opt],
    /// Options of a program without subcommands.
    pub(super) options: &'static [Opt],
    pub(super) subcommands: &'static [Sub],
}

/// One subcommand of a modelled program.
#[derive(Debug)]
pub(super) struct Sub {
    pub(super) name: &'static str,
    pub(super) options: &'static [Opt],
    /// Second words that make a subcommand of their own (`worktree remove`, `stash drop`).
    pub(super) subcommands: &'static [&'static str],
    /// Operands after the first that mean an option, by their first character (a `git push`
    /// refspec `+ref` forces, `:ref` deletes).
    pub(super) operand_options: &'static [(char, &'static str)],
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
pub(super) const PROGRAMS: &[Program] = &[
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
