//! Where a path operand points, read lexically against the workspace, the home directory and
//! the temporary directories (no file system is consulted: symbolic links are not followed).
//! The path is placed by the one resolver the rules and the path guards use
//! ([`crate::paths::Places`]); this module only classifies where it lands.

use crate::paths::{Cwd, Places, Unplaced};

/// The directories a [`super::DestructiveGuard`] reads paths against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Context {
    /// The workspace root (absolute, normalized), when known.
    pub workspace: Option<String>,
    /// The home directory (absolute, normalized), when known.
    pub home: Option<String>,
    /// Directories whose contents may be deleted freely (absolute, normalized).
    pub temp: Vec<String>,
}

/// Top-level directories of the operating system (Linux, the BSDs and macOS).
pub const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/home",
    "/mnt",
    "/media",
    "/nix",
    "/snap",
    "/Applications",
    "/Library",
    "/System",
    "/Users",
    "/Volumes",
    "/private",
];

/// The temporary directories a guard starts with.
pub const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp", "/private/tmp"];

/// How a path operand reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// Strictly inside the workspace or a temporary directory.
    Inside,
    /// Anywhere else, with the path as resolved, what it is, and whether it is the root, a
    /// system path, the home directory, the workspace or what holds it, or a path seal cannot
    /// place (what [`super::Reach::System`] refuses).
    Protected {
        path: String,
        what: &'static str,
        system: bool,
    },
}

/// Normalizes an absolute path lexically: `.` and empty components dropped, `..` removes the
/// component before it (never above the root: [`AboveRoot::Stay`](crate::paths::AboveRoot)).
pub(super) fn normalize(path: &str) -> String {
    crate::paths::Lexical::staying(path).to_absolute()
}

/// Whether `path` is strictly below `dir` (both normalized).
fn below(path: &str, dir: &str) -> bool {
    if dir == "/" {
        return path != "/";
    }
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/')
}

/// Whether `path` is `dir` or one of its ancestors.
fn at_or_above(path: &str, dir: &str) -> bool {
    path == dir || below(dir, path)
}

impl Context {
    /// Where `word` (a path operand, as the shell passes it) points. A word seal cannot place
    /// (an expansion, `~user`, a relative path without a workspace that leaves the working
    /// directory, a `.*` glob that matches `..` in some shells) is protected.
    pub(super) fn place(&self, word: &str) -> Place {
        let unknown = |what| Place::Protected {
            path: word.to_owned(),
            what,
            system: true,
        };
        if word.contains(['$', '`']) {
            return unknown("a path the shell expands");
        }
        if word
            .split('/')
            .any(|part| part.starts_with(".*") || part.starts_with("..*"))
        {
            return unknown("a pattern that can match `..`");
        }
        let mut places = Places::new();
        if let Some(root) = &self.workspace {
            places = places.with_root(root);
        }
        if let Some(home) = &self.home {
            places = places.with_home(home);
        }
        let absolute = match places.absolute(word, Cwd::Root) {
            Ok(absolute) => absolute,
            Err(Unplaced::HomeUnknown) => return unknown("the home directory"),
            Err(Unplaced::OtherHome) => return unknown("another user's home directory"),
            Err(Unplaced::GlobMayClimb) => return unknown("a pattern that can match `..`"),
            Err(Unplaced::NoWorkingDirectory) => {
                // Without a workspace, a relative path stays where it is unless it leaves.
                let inside = normalize(&format!("/w/{word}"));
                return if below(&inside, "/w") {
                    Place::Inside
                } else {
                    Place::Protected {
                        path: word.to_owned(),
                        what: "a path outside the working directory",
                        system: false,
                    }
                };
            }
            Err(_) => return unknown("a path seal cannot place"),
        };
        self.classify(absolute)
    }

    fn classify(&self, path: String) -> Place {
        let protected = |path: String, what| Place::Protected {
            path,
            what,
            system: true,
        };
        let outside = |path: String, what| Place::Protected {
            path,
            what,
            system: false,
        };
        debug_assert!(path.starts_with('/'), "a placed path is absolute");
        // The first component (after the empty text before the leading `/`) is a glob.
        let top_glob = path
            .split('/')
            .take(2)
            .any(|part| part.contains(['*', '?', '[']));
        if path == "/" || top_glob {
            return protected(path, "the root directory");
        }
        if self.workspace.as_deref() == Some(path.as_str()) {
            return protected(path, "the workspace itself");
        }
        if let Some(home) = &self.home {
            if at_or_above(&path, home) {
                return protected(path, "the home directory");
            }
        }
        if let Some(root) = &self.workspace {
            if at_or_above(&path, root) {
                return protected(path, "a directory holding the workspace");
            }
        }
        if self.temp.iter().any(|dir| at_or_above(&path, dir)) {
            return outside(path, "a temporary directory itself");
        }
        let inside = self.workspace.iter().any(|root| below(&path, root))
            || self.temp.iter().any(|dir| below(&path, dir));
        if inside {
            return Place::Inside;
        }
        if self.home.as_deref().is_some_and(|home| below(&path, home)) {
            return outside(path, "a path outside the workspace");
        }
        if SYSTEM_DIRS.iter().any(|dir| at_or_above(dir, &path)) {
            return protected(path, "a system path");
        }
        outside(path, "a path outside the workspace")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        Context {
            workspace: Some("/home/dev/project".to_owned()),
            home: Some("/home/dev".to_owned()),
            temp: TEMP_DIRS.iter().map(|d| (*d).to_owned()).collect(),
        }
    }

    fn what(word: &str) -> &'static str {
        match context().place(word) {
            Place::Inside => "inside",
            Place::Protected { what, .. } => what,
        }
    }

    #[test]
    fn places() {
        assert_eq!(what("build"), "inside");
        assert_eq!(what("./build/x"), "inside");
        assert_eq!(what("/tmp/cache"), "inside");
        assert_eq!(what("*"), "inside");
        assert_eq!(what("."), "the workspace itself");
        assert_eq!(what("../project"), "the workspace itself");
        assert_eq!(what(".."), "the home directory");
        assert_eq!(what("~"), "the home directory");
        assert_eq!(what("~/"), "the home directory");
        assert_eq!(what("~/.ssh"), "a path outside the workspace");
        assert_eq!(what("../other"), "a path outside the workspace");
        assert_eq!(what("/"), "the root directory");
        assert_eq!(what("/*"), "the root directory");
        assert_eq!(what("/e*"), "the root directory");
        assert_eq!(what("//"), "the root directory");
        assert_eq!(what("/etc"), "a system path");
        assert_eq!(what("/usr/lib/x"), "a system path");
        assert_eq!(what("/tmp"), "a temporary directory itself");
        assert_eq!(what("/tmp/../etc"), "a system path");
        assert_eq!(what("$HOME"), "a path the shell expands");
        assert_eq!(what(".*"), "a pattern that can match `..`");
        assert_eq!(what("~root"), "another user's home directory");
        assert_eq!(what("/home/dev/project/../../dev"), "the home directory");
        assert_eq!(what("/srv2/x"), "a path outside the workspace");
    }

    #[test]
    fn without_a_workspace() {
        let context = Context {
            workspace: None,
            home: None,
            temp: vec!["/tmp".to_owned()],
        };
        assert_eq!(context.place("build"), Place::Inside);
        assert!(matches!(context.place("../x"), Place::Protected { .. }));
        assert!(matches!(context.place("."), Place::Protected { .. }));
        assert!(matches!(context.place("~"), Place::Protected { .. }));
        assert!(matches!(context.place("/home/x"), Place::Protected { .. }));
    }
}
