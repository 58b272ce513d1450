//! Inputs that spell one thing in several ways, for tests that every spelling is read as the
//! same thing (and golden vectors that record it).

/// Spellings of the workspace path `src/lib.rs`: as it stands, with a `.` segment, a doubled
/// separator, a leading `./`, a trailing separator, and a `..` back out of another folder. Each
/// canonicalizes to `src/lib.rs`.
pub const SRC_LIB_RS: [&str; 6] = [
    "src/lib.rs",
    "src/./lib.rs",
    "src//lib.rs",
    "./src/lib.rs",
    "src/lib.rs/",
    "x/../src/lib.rs",
];

/// Spellings of `rm -rf /`: clustered options in either order, separate options, long options,
/// another option between them, and the options after the operand. Each removes `/`
/// recursively and by force.
pub const RM_RF_ROOT: [&str; 6] = [
    "rm -rf /",
    "rm -fr /",
    "rm -r -f /",
    "rm --recursive --force /",
    "rm -r -v -f /",
    "rm / -rf",
];

/// Thirty distinct options `git push` accepts (each checked against git 2.47), none of which
/// forces, deletes, mirrors, prunes or only pretends (`--dry-run`): more than a program model
/// keeps, so a command padded with them tests what happens to an option given after the
/// model's limit.
pub const GIT_PUSH_PADDING: [&str; 30] = [
    "--all",
    "--atomic",
    "--follow-tags",
    "--tags",
    "--porcelain",
    "--verbose",
    "--quiet",
    "--progress",
    "--no-verify",
    "--thin",
    "--signed",
    "--ipv4",
    "--ipv6",
    "--set-upstream",
    "--no-recurse-submodules",
    "--verify",
    "--no-signed",
    "--no-thin",
    "--no-progress",
    "--no-atomic",
    "--no-follow-tags",
    "--no-all",
    "--no-push-option",
    "--no-tags",
    "--no-porcelain",
    "--no-verbose",
    "--no-quiet",
    "--no-set-upstream",
    "--no-force-with-lease",
    "--no-force-if-includes",
];
