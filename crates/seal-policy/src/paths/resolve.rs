//! The one lexical resolver: where a path word of a command or a file tool's path lies, read
//! against the workspace root, the directories the operator added and the home directory. No
//! file system is consulted (symbolic links are not followed): the path is normalized by
//! [`Lexical`] (`.` and empty components dropped, `..` removing the component before it and
//! staying at `/`), as the kernel reads a path without links.

use std::fmt;

use seal_record::{ComponentStack, Lexical};

/// Most components a path may have once resolved; a deeper one is not placed
/// ([`Unplaced::TooDeep`]).
pub const MAX_PATH_COMPONENTS: usize = 64;

/// Most directories besides the workspace root that count as inside ([`Places::with_added`]).
pub const MAX_ADDED_DIRS: usize = 32;

/// The directories paths are read against. Every directory is an absolute path; a relative
/// one given to a builder is ignored (it cannot be placed without a working directory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    root: Option<String>,
    home: Option<String>,
    added: Vec<String>,
}

/// Where a path lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whereabouts {
    /// In the workspace (the root itself included) or in a directory the operator added.
    Inside,
    /// Somewhere else.
    Outside,
    /// Not placeable; the call's allow is refused with this reason.
    Unplaced(Unplaced),
}

/// Why a path word cannot be placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unplaced {
    /// `~user`: another user's home directory, which seal cannot resolve.
    OtherHome,
    /// `~` or `~/...` and no home directory is known.
    HomeUnknown,
    /// A relative path and no working directory is known.
    NoWorkingDirectory,
    /// More than [`MAX_PATH_COMPONENTS`] components.
    TooDeep,
    /// A NUL byte.
    Nul,
    /// A component that a glob may expand to `..` (`.*`, `..?`).
    GlobMayClimb,
    /// A relative path with `..` read after a `cd` whose effect depends on which earlier
    /// commands succeeded.
    ClimbAfterCd,
    /// A `..` after a directory name (`sub/../x`): if the directory is a symbolic link, `..`
    /// leaves where the text says it stays.
    ClimbThroughDirectory,
}

impl Unplaced {
    /// A short, stable description.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Unplaced::OtherHome => "another user's home directory, which seal cannot resolve",
            Unplaced::HomeUnknown => "the home directory is not known",
            Unplaced::NoWorkingDirectory => "a relative path and no working directory is known",
            Unplaced::TooDeep => "too many path components",
            Unplaced::Nul => "a NUL character",
            Unplaced::GlobMayClimb => "a glob that may expand to `..`",
            Unplaced::ClimbAfterCd => {
                "a `..` after a `cd`, which depends on which commands before it succeeded"
            }
            Unplaced::ClimbThroughDirectory => {
                "a `..` after a directory name, which a symbolic link may lead elsewhere"
            }
        }
    }
}

impl fmt::Display for Unplaced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fixed-capacity stack of path components, so that placing a path allocates nothing: the
/// storage of the [`Lexical`] normalizer while placing.
struct Bounded<'a> {
    parts: [&'a str; MAX_PATH_COMPONENTS],
    len: usize,
    /// Whether a component ever found no room; the components are then incomplete.
    overflowed: bool,
}

impl<'a> ComponentStack<'a> for Bounded<'a> {
    fn push_component(&mut self, name: &'a str) {
        match self.parts.get_mut(self.len) {
            Some(slot) => {
                *slot = name;
                self.len += 1;
            }
            None => self.overflowed = true,
        }
    }

    fn pop_component(&mut self) -> Option<&'a str> {
        let top = self.len.checked_sub(1)?;
        self.len = top;
        self.parts.get(top).copied()
    }

    fn components(&self) -> &[&'a str] {
        // `len` never passes the capacity: `push_component` counts a component only once its
        // slot is found, and records the overflow instead.
        debug_assert!(
            self.len <= MAX_PATH_COMPONENTS,
            "components counted but not kept"
        );
        self.parts.get(..self.len).unwrap_or_default()
    }
}

/// A path being placed: normalized lexically, `..` staying at `/` at the top, in a
/// [`Bounded`] stack.
struct Components<'a>(Lexical<'a, Bounded<'a>>);

impl<'a> Components<'a> {
    fn new() -> Components<'a> {
        Components(Lexical::in_stack(Bounded {
            parts: [""; MAX_PATH_COMPONENTS],
            len: 0,
            overflowed: false,
        }))
    }

    /// Applies the components of `path` (absolute or not: a leading `/` is read as empty
    /// components) on top of the stack; [`Unplaced::TooDeep`] once more than
    /// [`MAX_PATH_COMPONENTS`] were held at once.
    fn push_path(&mut self, path: &'a str) -> Result<(), Unplaced> {
        self.0.push_staying(path);
        if self.0.stack().overflowed {
            return Err(Unplaced::TooDeep);
        }
        Ok(())
    }

    /// Applies the absolute path `path` from `/`.
    fn restart_at(&mut self, path: &'a str) -> Result<(), Unplaced> {
        *self = Components::new();
        self.push_path(path)
    }

    /// Whether the stack starts with the components of the absolute directory `dir`.
    fn starts_with_dir(&self, dir: &str) -> bool {
        let mut own = self.0.components().iter();
        for part in dir.split('/').filter(|p| !p.is_empty() && *p != ".") {
            if own.next() != Some(&part) {
                return false;
            }
        }
        true
    }

    /// The path, absolute.
    fn to_absolute(&self) -> String {
        self.0.to_absolute()
    }
}

/// A working directory a relative path is read against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cwd<'a> {
    /// The workspace root (the call's working directory).
    Root,
    /// The root after the `cd` words given, in order (each read against the one before).
    After(&'a [&'a str]),
}

impl Places {
    /// No directory known: relative paths that stay below the working directory are inside,
    /// everything absolute or under `~` is outside or unplaced.
    #[must_use]
    pub fn new() -> Places {
        Places::default()
    }

    /// The same, with the workspace root `root` (absolute; anything else is ignored).
    #[must_use]
    pub fn with_root(mut self, root: &str) -> Places {
        if root.starts_with('/') {
            self.root = Some(root.to_owned());
        }
        self
    }

    /// The same, with the home directory `home` (absolute; anything else is ignored).
    #[must_use]
    pub fn with_home(mut self, home: &str) -> Places {
        if home.starts_with('/') {
            self.home = Some(home.to_owned());
        }
        self
    }

    /// The same, with `dir` (absolute; anything else is ignored, as are directories beyond
    /// [`MAX_ADDED_DIRS`]) counted as inside, as Claude Code's `additionalDirectories`.
    #[must_use]
    pub fn with_added(mut self, dir: &str) -> Places {
        if dir.starts_with('/') && self.added.len() < MAX_ADDED_DIRS {
            self.added.push(dir.to_owned());
        }
        self
    }

    /// The workspace root, when known.
    #[must_use]
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    /// The home directory, when known.
    #[must_use]
    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }

    /// The added directories.
    #[must_use]
    pub fn added(&self) -> &[String] {
        &self.added
    }

    /// Where `word` (a path as the program receives it; `~` as the shell expands it) lies
    /// when read in the working directory `cwd`. Allocates nothing.
    ///
    /// ```
    /// use seal_policy::paths::{Cwd, Places, Whereabouts};
    ///
    /// let places = Places::new().with_root("/home/dev/app").with_home("/home/dev");
    /// assert_eq!(places.whereabouts("./src/README.md", Cwd::Root), Whereabouts::Inside);
    /// assert_eq!(places.whereabouts("../other/x", Cwd::Root), Whereabouts::Outside);
    /// assert_eq!(places.whereabouts("~/.ssh/id_rsa", Cwd::Root), Whereabouts::Outside);
    /// assert_eq!(places.whereabouts("~/app/src", Cwd::Root), Whereabouts::Inside);
    /// assert_eq!(places.whereabouts("/home/dev/app2", Cwd::Root), Whereabouts::Outside);
    /// ```
    #[must_use]
    pub fn whereabouts(&self, word: &str, cwd: Cwd<'_>) -> Whereabouts {
        if climbs_through_directory(word) {
            return Whereabouts::Unplaced(Unplaced::ClimbThroughDirectory);
        }
        let mut parts = Components::new();
        match self.resolve_into(word, cwd, &mut parts) {
            Ok(true) => {}
            Ok(false) => return self.relative_without_root(word, cwd),
            Err(why) => return Whereabouts::Unplaced(why),
        }
        if self.contains(&parts) {
            Whereabouts::Inside
        } else {
            Whereabouts::Outside
        }
    }

    /// The absolute, lexically normalized path of `word` read in `cwd`, when it can be placed
    /// (a relative path needs the root).
    ///
    /// # Errors
    ///
    /// [`Unplaced`] when it cannot.
    pub fn absolute(&self, word: &str, cwd: Cwd<'_>) -> Result<String, Unplaced> {
        let mut parts = Components::new();
        if self.resolve_into(word, cwd, &mut parts)? {
            Ok(parts.to_absolute())
        } else {
            Err(Unplaced::NoWorkingDirectory)
        }
    }

    /// Whether the resolved components lie in the root or an added directory.
    fn contains(&self, parts: &Components<'_>) -> bool {
        self.root
            .iter()
            .chain(&self.added)
            .any(|dir| parts.starts_with_dir(dir))
    }

    /// Resolves `word` onto `parts`: `Ok(true)` when placed absolutely, `Ok(false)` when the
    /// word is relative and no root is known.
    fn resolve_into<'a>(
        &'a self,
        word: &'a str,
        cwd: Cwd<'a>,
        parts: &mut Components<'a>,
    ) -> Result<bool, Unplaced> {
        if word.contains('\0') {
            return Err(Unplaced::Nul);
        }
        if word
            .split('/')
            .any(|part| part.starts_with('.') && part.contains(['*', '?', '[']))
        {
            return Err(Unplaced::GlobMayClimb);
        }
        if let Some(rest) = word.strip_prefix('~') {
            if !(rest.is_empty() || rest.starts_with('/')) {
                return Err(Unplaced::OtherHome);
            }
            let home = self.home.as_deref().ok_or(Unplaced::HomeUnknown)?;
            parts.push_path(home)?;
            parts.push_path(rest)?;
            return Ok(true);
        }
        if word.starts_with('/') {
            parts.push_path(word)?;
            return Ok(true);
        }
        let Some(root) = self.root.as_deref() else {
            return Ok(false);
        };
        parts.push_path(root)?;
        if let Cwd::After(cds) = cwd {
            for cd in cds {
                if cd.starts_with('/') {
                    parts.restart_at(cd)?;
                } else if let Some(rest) = cd.strip_prefix('~') {
                    if !(rest.is_empty() || rest.starts_with('/')) {
                        return Err(Unplaced::OtherHome);
                    }
                    let home = self.home.as_deref().ok_or(Unplaced::HomeUnknown)?;
                    parts.restart_at(home)?;
                    parts.push_path(rest)?;
                } else {
                    parts.push_path(cd)?;
                }
            }
        }
        parts.push_path(word)?;
        Ok(true)
    }

    /// A relative word with no root known: inside when it never climbs above the working
    /// directory (and no `cd` moved it).
    fn relative_without_root(&self, word: &str, cwd: Cwd<'_>) -> Whereabouts {
        let mut depth = 0usize;
        let cds: &[&str] = match cwd {
            Cwd::Root => &[],
            Cwd::After(cds) => cds,
        };
        for part in cds.iter().chain(std::iter::once(&word)) {
            if part.starts_with('/') || part.starts_with('~') {
                return Whereabouts::Unplaced(Unplaced::NoWorkingDirectory);
            }
            for component in part.split('/') {
                match component {
                    "" | "." => {}
                    ".." => match depth.checked_sub(1) {
                        Some(up) => depth = up,
                        None => return Whereabouts::Outside,
                    },
                    _ => depth += 1,
                }
            }
        }
        Whereabouts::Inside
    }
}

/// Whether a `..` component follows a directory name in `word` (`sub/../x`, `/ws/a/..`):
/// lexically it cancels the name, but the kernel follows the name first, and a symbolic link
/// there leads elsewhere. A leading `~` counts as a name; leading `..` components do not.
fn climbs_through_directory(word: &str) -> bool {
    let mut named = false;
    for part in word.split('/') {
        match part {
            "" | "." => {}
            ".." if named => return true,
            ".." => {}
            _ => named = true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places::new()
            .with_root("/home/dev/app")
            .with_home("/home/dev")
            .with_added("/srv/shared")
    }

    #[test]
    fn lexical_resolution() {
        let p = places();
        let at = |w: &str| p.whereabouts(w, Cwd::Root);
        assert_eq!(at("a.txt"), Whereabouts::Inside);
        assert_eq!(at("."), Whereabouts::Inside);
        let through = Whereabouts::Unplaced(Unplaced::ClimbThroughDirectory);
        assert_eq!(at("./sub/../a"), through);
        assert_eq!(at(".."), Whereabouts::Outside);
        assert_eq!(at("sub/../../x"), through);
        assert_eq!(at("../../dev/app/x"), Whereabouts::Inside);
        assert_eq!(at("../app/x"), Whereabouts::Inside);
        assert_eq!(at("../app2/x"), Whereabouts::Outside);
        assert_eq!(at("/home/dev/app"), Whereabouts::Inside);
        assert_eq!(at("/home/dev/app/../app"), through);
        assert_eq!(at("/home/dev/apps"), Whereabouts::Outside);
        assert_eq!(at("//home//dev/./app/x"), Whereabouts::Inside);
        assert_eq!(at("/../home/dev/app/x"), Whereabouts::Inside);
        assert_eq!(at("~"), Whereabouts::Outside);
        assert_eq!(at("~/"), Whereabouts::Outside);
        assert_eq!(at("~/app/x"), Whereabouts::Inside);
        assert_eq!(at("~root/x"), Whereabouts::Unplaced(Unplaced::OtherHome));
        assert_eq!(at("/srv/shared/y"), Whereabouts::Inside);
        assert_eq!(at("/srv/sharedx"), Whereabouts::Outside);
        assert_eq!(at(".*/x"), Whereabouts::Unplaced(Unplaced::GlobMayClimb));
        assert_eq!(at("*/x"), Whereabouts::Inside);
        assert_eq!(at("a\0b"), Whereabouts::Unplaced(Unplaced::Nul));
        let deep = "a/".repeat(MAX_PATH_COMPONENTS);
        assert_eq!(at(&deep), Whereabouts::Unplaced(Unplaced::TooDeep));
    }

    #[test]
    fn too_deep_counts_the_most_components_held_at_once() {
        let p = Places::new().with_root("/r");
        // 70 names then 10 `..`: 60 below `/r` at the end, but 71 held on the way.
        let climbing = format!("{}{}", "a/".repeat(70), "../".repeat(10));
        assert_eq!(p.absolute(&climbing, Cwd::Root), Err(Unplaced::TooDeep));
        let at_most = "a/".repeat(MAX_PATH_COMPONENTS - 1);
        let placed = p.absolute(&at_most, Cwd::Root).unwrap();
        assert_eq!(placed.matches('/').count(), MAX_PATH_COMPONENTS);
        assert_eq!(
            p.absolute(&format!("{at_most}b"), Cwd::Root),
            Err(Unplaced::TooDeep)
        );
        // An absolute `cd` starts again from `/`.
        let deep_cd = "/x/".repeat(40);
        assert_eq!(
            p.absolute("y", Cwd::After(&[&deep_cd, "/s"])),
            Ok("/s/y".to_owned())
        );
    }

    #[test]
    fn climbs_above_slash_stay_there() {
        let p = Places::new().with_root("/r");
        assert_eq!(p.absolute("/../../x/..", Cwd::Root), Ok("/".to_owned()));
        assert_eq!(p.absolute("../../../x", Cwd::Root), Ok("/x".to_owned()));
    }

    proptest::proptest! {
        /// The bounded stack places a path as the unbounded normalizer reads it.
        #[test]
        fn placing_is_lexical_normalizing(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["a", "b", ".", "..", ""]),
                0..40,
            ),
        ) {
            let word = format!("/{}", parts.join("/"));
            let p = Places::new();
            proptest::prop_assert_eq!(
                p.absolute(&word, Cwd::Root),
                Ok(Lexical::staying(&word).to_absolute())
            );
        }
    }

    #[test]
    fn after_cd() {
        let p = places();
        assert_eq!(
            p.whereabouts("x", Cwd::After(&["sub"])),
            Whereabouts::Inside
        );
        assert_eq!(
            p.whereabouts("x", Cwd::After(&[".."])),
            Whereabouts::Outside
        );
        assert_eq!(
            p.whereabouts("id_rsa", Cwd::After(&["~/.ssh"])),
            Whereabouts::Outside
        );
        assert_eq!(
            p.absolute("id_rsa", Cwd::After(&["~", ".ssh"])).unwrap(),
            "/home/dev/.ssh/id_rsa"
        );
        assert_eq!(
            p.whereabouts("x", Cwd::After(&["/tmp", "/home/dev/app/s"])),
            Whereabouts::Inside
        );
    }

    #[test]
    fn added_directories_are_absolute_and_bounded() {
        assert!(Places::new().with_added("rel/dir").added().is_empty());
        let mut many = Places::new();
        for index in 0..=MAX_ADDED_DIRS {
            many = many.with_added(&format!("/srv/d{index}"));
        }
        assert_eq!(many.added().len(), MAX_ADDED_DIRS);
        assert_eq!(many.added().first().map(String::as_str), Some("/srv/d0"));
        assert_eq!(places().added(), ["/srv/shared".to_owned()]);
        assert_eq!(Places::new().with_root("rel").root(), None);
        assert_eq!(Places::new().with_home("rel").home(), None);
    }

    #[test]
    fn unplaced_reasons_are_named() {
        let all = [
            (Unplaced::OtherHome, "another user's home directory"),
            (Unplaced::HomeUnknown, "the home directory is not known"),
            (Unplaced::NoWorkingDirectory, "no working directory"),
            (Unplaced::TooDeep, "too many path components"),
            (Unplaced::Nul, "a NUL character"),
            (Unplaced::GlobMayClimb, "a glob that may expand to `..`"),
            (Unplaced::ClimbAfterCd, "after a `cd`"),
            (Unplaced::ClimbThroughDirectory, "after a directory name"),
        ];
        for (why, text) in all {
            assert!(why.as_str().contains(text), "{why:?}: {}", why.as_str());
            assert_eq!(why.to_string(), why.as_str());
        }
    }

    #[test]
    fn without_root_or_home() {
        let p = Places::new();
        assert_eq!(p.whereabouts("a/b", Cwd::Root), Whereabouts::Inside);
        assert_eq!(p.whereabouts("../x", Cwd::Root), Whereabouts::Outside);
        assert_eq!(p.whereabouts("./../x", Cwd::Root), Whereabouts::Outside);
        assert_eq!(p.whereabouts(".//./../x", Cwd::Root), Whereabouts::Outside);
        assert_eq!(p.whereabouts("./a/./b", Cwd::Root), Whereabouts::Inside);
        // After `cd sub` (no root known), `../x` is back in the working directory.
        assert_eq!(
            p.whereabouts("../x", Cwd::After(&["sub"])),
            Whereabouts::Inside
        );
        assert_eq!(
            p.whereabouts("../../x", Cwd::After(&["sub"])),
            Whereabouts::Outside
        );
        assert_eq!(p.whereabouts("/etc/x", Cwd::Root), Whereabouts::Outside);
        assert_eq!(
            p.whereabouts("~/x", Cwd::Root),
            Whereabouts::Unplaced(Unplaced::HomeUnknown)
        );
        assert_eq!(
            p.whereabouts("x", Cwd::After(&["/tmp"])),
            Whereabouts::Unplaced(Unplaced::NoWorkingDirectory)
        );
        assert_eq!(
            p.absolute("x", Cwd::Root),
            Err(Unplaced::NoWorkingDirectory)
        );
    }
}
