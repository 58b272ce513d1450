//! The guard's patterns (spec/destructive-guard.md, section 3): reviewed data, one row per
//! destructive use of a program.

/// Which paths a path test refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Anything not strictly inside the workspace or a temporary directory, and the
    /// workspace, the home directory, a temporary directory or the root itself.
    Outside,
    /// The root, the system directories and what is below them, the home directory and the
    /// workspace itself (not what is below them).
    System,
}

/// What the operands of a form must hold for a pattern to fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Nothing.
    Any,
    /// At least this many operands.
    AtLeast(usize),
    /// An operand equal to one of these words.
    OneOf(&'static [&'static str]),
    /// The words hold `--` followed by an operand (`git checkout -- a.txt`).
    AfterDashDash,
    /// An operand naming a path within the reach.
    Path(Reach),
    /// A `key=value` operand (`dd of=/dev/sda`) whose value is a device: below `/dev/`, other
    /// than [`SAFE_DEVICES`].
    Device(&'static str),
    /// A path operand below `/dev/` other than [`SAFE_DEVICES`] and the devices data is only
    /// read from ([`SOURCE_DEVICES`]).
    DevicePath,
    /// A starting point of `find` (`.` when none is given) within the reach.
    FindStart(Reach),
}

/// Devices writing to which destroys nothing.
pub const SAFE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/full",
];

/// Devices that are read from, never written: a copy from them destroys nothing.
pub const SOURCE_DEVICES: &[&str] = &["/dev/random", "/dev/urandom", "/dev/stdin"];

/// One destructive use of a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern's name, cited by every refusal.
    pub id: &'static str,
    /// The program names (compared ignoring ASCII case); a name ending in `.` covers every
    /// name it starts (`mkfs.` covers `mkfs.ext4`).
    pub programs: &'static [&'static str],
    /// The subcommand words, as the program's model reads them (empty: any or none).
    pub subcommand: &'static [&'static str],
    /// At least one of these options must be given (empty: no condition). `--name` is a long
    /// option (a modelled program's abbreviations and clusters already spelt out), `-x` a
    /// short one; for `find`, a primary of its expression (`-delete`).
    pub any_option: &'static [&'static str],
    /// Every one of these options must be given.
    pub all_options: &'static [&'static str],
    /// None of these options may be given.
    pub no_option: &'static [&'static str],
    /// What the operands must hold.
    pub operands: Operands,
    /// What the pattern refuses, in a few words.
    pub what: &'static str,
}

const fn row(id: &'static str, programs: &'static [&'static str], what: &'static str) -> Pattern {
    Pattern {
        id,
        programs,
        subcommand: &[],
        any_option: &[],
        all_options: &[],
        no_option: &[],
        operands: Operands::Any,
        what,
    }
}

const GIT: &[&str] = &["git"];
const RM: &[&str] = &["rm"];
const PERMISSIONS: &[&str] = &["chmod", "chown", "chgrp"];

/// The patterns, in the order they are tried.
pub const PATTERNS: &[Pattern] = &[
    Pattern {
        any_option: &["--recursive", "--force"],
        operands: Operands::Path(Reach::Outside),
        ..row(
            "rm-outside-workspace",
            RM,
            "recursive or forced deletion outside the workspace",
        )
    },
    Pattern {
        operands: Operands::Path(Reach::System),
        ..row("rm-system-path", RM, "deletion of a system path")
    },
    Pattern {
        any_option: &["-delete"],
        operands: Operands::FindStart(Reach::Outside),
        ..row(
            "find-delete-outside-workspace",
            &["find"],
            "find -delete outside the workspace",
        )
    },
    Pattern {
        subcommand: &["reset"],
        any_option: &["--hard", "--merge"],
        ..row(
            "git-reset-hard",
            GIT,
            "a hard reset, discarding uncommitted work",
        )
    },
    Pattern {
        subcommand: &["checkout"],
        any_option: &["--force"],
        ..row(
            "git-checkout-force",
            GIT,
            "a forced checkout over local changes",
        )
    },
    Pattern {
        subcommand: &["checkout"],
        operands: Operands::AfterDashDash,
        ..row(
            "git-checkout-paths",
            GIT,
            "a checkout of paths, overwriting their local changes",
        )
    },
    Pattern {
        subcommand: &["checkout"],
        no_option: &["-b", "--orphan"],
        operands: Operands::AtLeast(2),
        ..row(
            "git-checkout-tree-paths",
            GIT,
            "a checkout of paths from a commit, overwriting their local changes",
        )
    },
    Pattern {
        subcommand: &["checkout"],
        operands: Operands::OneOf(&[".", ":/", "*"]),
        ..row(
            "git-checkout-everything",
            GIT,
            "a checkout of every path, discarding local changes",
        )
    },
    Pattern {
        subcommand: &["checkout"],
        any_option: &["-B"],
        ..row(
            "git-checkout-force-create",
            GIT,
            "a checkout that resets an existing branch",
        )
    },
    Pattern {
        subcommand: &["switch"],
        any_option: &["--force", "--discard-changes", "--force-create"],
        ..row(
            "git-switch-force",
            GIT,
            "a forced switch over local changes or an existing branch",
        )
    },
    Pattern {
        subcommand: &["restore"],
        no_option: &["--staged"],
        ..row(
            "git-restore-worktree",
            GIT,
            "a restore of working-tree files, discarding their changes",
        )
    },
    Pattern {
        subcommand: &["restore"],
        all_options: &["--staged", "--worktree"],
        ..row(
            "git-restore-staged-worktree",
            GIT,
            "a restore of working-tree files, discarding their changes",
        )
    },
    Pattern {
        subcommand: &["clean"],
        any_option: &["--force"],
        no_option: &["--dry-run"],
        ..row("git-clean-force", GIT, "deletion of untracked files")
    },
    Pattern {
        subcommand: &["branch"],
        all_options: &["--delete", "--force"],
        ..row("git-branch-force-delete", GIT, "a forced branch deletion")
    },
    Pattern {
        subcommand: &["branch"],
        any_option: &["--force"],
        ..row(
            "git-branch-force-overwrite",
            GIT,
            "a branch reset, renamed or copied over an existing one",
        )
    },
    Pattern {
        subcommand: &["tag"],
        any_option: &["--delete", "--force"],
        ..row("git-tag-delete", GIT, "a tag deletion or replacement")
    },
    Pattern {
        subcommand: &["push"],
        any_option: &[
            "--force",
            "--force-with-lease",
            "--mirror",
            "--delete",
            "--prune",
        ],
        no_option: &["--dry-run"],
        ..row(
            "git-push-force",
            GIT,
            "a force push or a deletion of remote refs (the model reads a `+ref` refspec as `--force`, `:ref` as `--delete`)",
        )
    },
    Pattern {
        subcommand: &["stash", "drop"],
        ..row("git-stash-drop", GIT, "a stash entry dropped")
    },
    Pattern {
        subcommand: &["stash", "clear"],
        ..row("git-stash-clear", GIT, "every stash entry dropped")
    },
    Pattern {
        subcommand: &["worktree", "remove"],
        any_option: &["--force"],
        ..row(
            "git-worktree-force-remove",
            GIT,
            "a forced worktree removal, with its changes",
        )
    },
    Pattern {
        subcommand: &["filter-branch"],
        ..row("git-filter-branch", GIT, "history rewritten")
    },
    Pattern {
        subcommand: &["filter-repo"],
        ..row("git-filter-repo", GIT, "history rewritten")
    },
    Pattern {
        subcommand: &["reflog", "expire"],
        ..row("git-reflog-expire", GIT, "reflog entries expired")
    },
    Pattern {
        subcommand: &["reflog", "delete"],
        ..row("git-reflog-delete", GIT, "reflog entries deleted")
    },
    Pattern {
        subcommand: &["update-ref"],
        any_option: &["-d"],
        ..row("git-update-ref-delete", GIT, "a ref deleted")
    },
    Pattern {
        subcommand: &["gc"],
        any_option: &["--prune=now", "--prune=all"],
        ..row(
            "git-gc-prune-now",
            GIT,
            "unreachable objects pruned at once",
        )
    },
    Pattern {
        operands: Operands::Device("of"),
        ..row("dd-device", &["dd"], "a write to a device")
    },
    Pattern {
        operands: Operands::DevicePath,
        ..row(
            "device-copy",
            &["cp", "mv", "tee", "install", "rsync", "cat"],
            "a copy onto a device",
        )
    },
    Pattern {
        operands: Operands::Path(Reach::Outside),
        ..row(
            "filesystem-create",
            &[
                "mkfs", "mkfs.", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs",
            ],
            "a file system created over a device or a file outside the workspace",
        )
    },
    row(
        "device-wipe",
        &["wipefs", "blkdiscard"],
        "a device's signatures or blocks wiped",
    ),
    Pattern {
        operands: Operands::Path(Reach::Outside),
        ..row(
            "file-shred",
            &["shred"],
            "a device or a file outside the workspace overwritten",
        )
    },
    Pattern {
        no_option: &["-l", "--list", "-s", "--show-size"],
        ..row(
            "partition-table",
            &["fdisk", "sfdisk", "gdisk", "sgdisk", "parted", "cfdisk"],
            "a partition table edited",
        )
    },
    Pattern {
        any_option: &["-R", "--recursive"],
        operands: Operands::Path(Reach::Outside),
        ..row(
            "permissions-recursive-outside-workspace",
            PERMISSIONS,
            "a recursive permission or owner change outside the workspace",
        )
    },
    Pattern {
        operands: Operands::Path(Reach::System),
        ..row(
            "permissions-system-path",
            PERMISSIONS,
            "a permission or owner change of a system path",
        )
    },
];
