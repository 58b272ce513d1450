//! The tools and programs the path guards know by name, besides the file tools of the one
//! table [`TOOL_FIELDS`](crate::chain::TOOL_FIELDS): the patch tool, and the programs that
//! read, change or only name what lies below a directory.

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
pub(super) const COPIERS: &[&str] = &["cp", "gcp", "install", "rsync", "scp", "mv", "gmv", "ln"];
