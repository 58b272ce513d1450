//! Path shapes: what a path guard protects, as components (names, globs, `**`) standing under
//! a base directory; and the two questions a guard asks of a placed path: does the shape name
//! it, and does it hold (strictly below it) something the shape names.

use std::fmt;

use super::glob;
use crate::paths::{Places, MAX_PATH_COMPONENTS};

/// Why a protected path or a secret pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PatternError {
    /// The pattern is empty.
    Empty,
    /// `~user/...`: another user's home directory cannot be written down as a pattern.
    OtherHome {
        /// The pattern given.
        pattern: String,
    },
    /// A `..` component: a pattern names paths as the resolver gives them, without `..`.
    Climbs {
        /// The pattern given.
        pattern: String,
    },
    /// A NUL character.
    Nul,
    /// More than [`MAX_PATH_COMPONENTS`] components.
    TooDeep {
        /// The pattern given.
        pattern: String,
    },
    /// An id that is empty, longer than 64 bytes, or not of `a-z`, `0-9`, `-`, `_`, `.`, `~`,
    /// `/`, `*`.
    Id {
        /// The id given.
        id: String,
    },
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Empty => f.write_str("empty path pattern"),
            PatternError::OtherHome { pattern } => write!(
                f,
                "path pattern `{}` names another user's home directory",
                pattern.escape_debug()
            ),
            PatternError::Climbs { pattern } => write!(
                f,
                "path pattern `{}` has a `..` component",
                pattern.escape_debug()
            ),
            PatternError::Nul => f.write_str("path pattern with a NUL character"),
            PatternError::TooDeep { pattern } => write!(
                f,
                "path pattern `{}` has more than {MAX_PATH_COMPONENTS} components",
                pattern.escape_debug()
            ),
            PatternError::Id { id } => write!(f, "pattern id `{}` is not valid", id.escape_debug()),
        }
    }
}

impl std::error::Error for PatternError {}

/// The directory a shape stands under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    /// `/`.
    Root,
    /// The home directory: the known one, and every other user's (`/root`, `/home/*`,
    /// `/Users/*`, `/var/root`).
    Home,
    /// The workspace root.
    Workspace,
    /// The workspace root and every directory above it.
    Upward,
    /// Any directory (a pattern that is one name).
    Anywhere,
}

/// One component of a shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// A name, exactly (ASCII case ignored).
    Name(String),
    /// A glob over one name.
    Glob(String),
    /// Any one name.
    Any,
    /// Any number of names, none included.
    AnyDepth,
}

/// A shape: a base and components.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    base: Base,
    parts: Vec<Part>,
}

/// One component of a placed path: a name, a glob the shell expands (read as the shell reads
/// it), or `**`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comp<'a> {
    Name(&'a str),
    Glob(&'a str),
    Deep,
}

/// The components of an absolute path.
pub(crate) fn comps(path: &str) -> Vec<Comp<'_>> {
    path.split('/')
        .filter(|part| !part.is_empty())
        .map(|part| {
            if part == "**" {
                Comp::Deep
            } else if glob::is_glob(part) {
                Comp::Glob(part)
            } else {
                Comp::Name(part)
            }
        })
        .collect()
}

impl Shape {
    /// A secret pattern: `~/...` under the home directory, `/...` absolute, a path with a `/`
    /// under the workspace root, one name anywhere; globs in names, `**` as a whole component
    /// (any number of names; at the end, at least one).
    pub(crate) fn pattern(text: &str) -> Result<Shape, PatternError> {
        let (base, rest) = split_base(text)?;
        let base = match base {
            Base::Workspace if !text.contains('/') => Base::Anywhere,
            other => other,
        };
        let mut parts = Vec::new();
        let names: Vec<&str> = rest
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        let last = names.len().saturating_sub(1);
        for (at, name) in names.iter().enumerate() {
            match *name {
                ".." => {
                    return Err(PatternError::Climbs {
                        pattern: text.to_owned(),
                    })
                }
                "**" if at == last => {
                    parts.push(Part::Any);
                    parts.push(Part::AnyDepth);
                }
                "**" => parts.push(Part::AnyDepth),
                name if glob::is_glob(name) => parts.push(Part::Glob(name.to_owned())),
                name => parts.push(Part::Name(name.to_owned())),
            }
        }
        finish(text, base, parts)
    }

    /// A protected path: the path itself (and everything below it, for a `directory`), every
    /// name literal; a relative path under the workspace root and every directory above it.
    pub(crate) fn protected(text: &str, directory: bool) -> Result<Shape, PatternError> {
        let (base, rest) = split_base(text)?;
        let base = match base {
            Base::Workspace => Base::Upward,
            other => other,
        };
        let mut parts = Vec::new();
        for name in rest.split('/').filter(|p| !p.is_empty() && *p != ".") {
            if name == ".." {
                return Err(PatternError::Climbs {
                    pattern: text.to_owned(),
                });
            }
            parts.push(Part::Name(name.to_owned()));
        }
        if directory {
            parts.push(Part::AnyDepth);
        }
        finish(text, base, parts)
    }

    /// The last name of a shape that ends in one (a protected file's own name).
    pub(crate) fn last_name(&self) -> Option<&str> {
        match self.parts.last() {
            Some(Part::Name(name)) => Some(name),
            _ => None,
        }
    }

    /// Whether the shape stands under the workspace root and every directory above it (such a
    /// shape also names paths a more specific one names, as `~/.claude/settings.json`).
    pub(crate) fn is_upward(&self) -> bool {
        self.base == Base::Upward
    }

    /// Whether the shape is one name matched anywhere (such a shape is never held: any
    /// directory may hold one).
    pub(crate) fn is_anywhere(&self) -> bool {
        self.base == Base::Anywhere
    }

    /// Whether the shape names the path `comps` (under one of its bases).
    pub(crate) fn names(&self, bases: &Bases, comps: &[Comp<'_>]) -> bool {
        bases
            .prefixes(self.base)
            .iter()
            .any(|prefix| walk(comps, prefix, &self.parts, false))
    }

    /// Whether the path `comps` holds, strictly below it, something the shape names.
    pub(crate) fn held_by(&self, bases: &Bases, comps: &[Comp<'_>]) -> bool {
        !self.is_anywhere()
            && bases
                .prefixes(self.base)
                .iter()
                .any(|prefix| walk(comps, prefix, &self.parts, true))
    }
}

fn split_base(text: &str) -> Result<(Base, &str), PatternError> {
    if text.is_empty() {
        return Err(PatternError::Empty);
    }
    if text.contains('\0') {
        return Err(PatternError::Nul);
    }
    if let Some(rest) = text.strip_prefix('~') {
        return match rest {
            "" => Ok((Base::Home, "")),
            rest if rest.starts_with('/') => Ok((Base::Home, rest)),
            _ => Err(PatternError::OtherHome {
                pattern: text.to_owned(),
            }),
        };
    }
    if text.starts_with('/') {
        return Ok((Base::Root, text));
    }
    Ok((Base::Workspace, text))
}

fn finish(text: &str, base: Base, parts: Vec<Part>) -> Result<Shape, PatternError> {
    if parts.len() > MAX_PATH_COMPONENTS + 2 {
        return Err(PatternError::TooDeep {
            pattern: text.to_owned(),
        });
    }
    if parts.is_empty() && base == Base::Anywhere {
        return Err(PatternError::Empty);
    }
    Ok(Shape { base, parts })
}

/// Whether the names `exceptions` (globs) certainly cover the last component of `comps`.
pub(crate) fn excepted(comps: &[Comp<'_>], exceptions: &[String]) -> bool {
    match comps.last() {
        Some(Comp::Name(name)) => exceptions.iter().any(|e| glob::matches(e, name, false)),
        Some(Comp::Glob(word)) => exceptions.iter().any(|e| glob::covered_by(word, e)),
        Some(Comp::Deep) | None => false,
    }
}

/// The base directories, as components, for the places a guard reads paths against.
#[derive(Debug, Clone)]
pub(crate) struct Bases {
    root: Vec<Part>,
    upward: Vec<Vec<Part>>,
    homes: Vec<Vec<Part>>,
    anywhere: Vec<Part>,
}

impl Bases {
    /// The bases of `places`: its root ([`super::UNKNOWN_ROOT`] without one), its home
    /// directory and every other user's.
    pub(crate) fn of(places: &Places) -> Bases {
        let names = |path: &str| -> Vec<Part> {
            path.split('/')
                .filter(|p| !p.is_empty())
                .map(|p| Part::Name(p.to_owned()))
                .collect()
        };
        let root = names(places.root().unwrap_or(super::UNKNOWN_ROOT));
        let upward = (0..=root.len())
            .rev()
            .map(|len| root.iter().take(len).cloned().collect())
            .collect();
        let mut homes: Vec<Vec<Part>> = Vec::new();
        if let Some(home) = places.home() {
            homes.push(names(home));
        }
        homes.push(names("/root"));
        homes.push(vec![Part::Name("home".into()), Part::Any]);
        homes.push(vec![Part::Name("Users".into()), Part::Any]);
        homes.push(names("/var/root"));
        Bases {
            root,
            upward,
            homes,
            anywhere: vec![Part::AnyDepth],
        }
    }

    fn prefixes(&self, base: Base) -> Vec<&[Part]> {
        match base {
            Base::Root => vec![&[]],
            Base::Workspace => vec![&self.root],
            Base::Upward => self.upward.iter().map(Vec::as_slice).collect(),
            Base::Home => self.homes.iter().map(Vec::as_slice).collect(),
            Base::Anywhere => vec![&self.anywhere],
        }
    }
}

/// Whether `comps` is named by `prefix` then `parts` (`hold`: whether it is strictly above
/// something they name). A table over (component, part): linear in their product. The leading
/// pairs of a plain name and a name, glob or any-name part are compared one by one first (the table's
/// entry for such a pair is the comparison and the entry after both), so a path that leaves a
/// pattern at its first names costs no table.
fn walk(comps: &[Comp<'_>], prefix: &[Part], parts: &[Part], hold: bool) -> bool {
    let part = |j: usize| -> Option<&Part> {
        match j.checked_sub(prefix.len()) {
            None => prefix.get(j),
            Some(k) => parts.get(k),
        }
    };
    let mut start = 0;
    while let (
        Some(comp @ Comp::Name(_)),
        Some(next @ (Part::Name(_) | Part::Glob(_) | Part::Any)),
    ) = (comps.get(start), part(start))
    {
        if !meets(*comp, next) {
            return false;
        }
        start += 1;
    }
    let n = comps.len().saturating_sub(start);
    let m = (prefix.len() + parts.len()).saturating_sub(start);
    let width = m + 1;
    let mut table = vec![false; (n + 1) * width];
    let at = |table: &[bool], i: usize, j: usize| {
        // Every cell read is one of the `(n + 1) * (m + 1)` the table holds.
        debug_assert!(i <= n && j <= m, "cell ({i}, {j}) outside the table");
        table.get(i * width + j).copied().unwrap_or(false)
    };
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            let value = match (comps.get(start + i), part(start + j)) {
                // Every component read: a match when the rest may be empty, a hold when
                // something is left to be below.
                (None, _) if hold => j < m,
                (None, None) => true,
                (None, Some(Part::AnyDepth)) => at(&table, i, j + 1),
                (None, Some(_)) => false,
                (Some(Comp::Deep), None) => at(&table, i + 1, j),
                (Some(_), None) => false,
                (_, Some(Part::AnyDepth)) => at(&table, i, j + 1) || at(&table, i + 1, j),
                (Some(Comp::Deep), Some(next)) => {
                    at(&table, i + 1, j) || (deep_reaches(next) && at(&table, i, j + 1))
                }
                (Some(comp), Some(next)) => meets(*comp, next) && at(&table, i + 1, j + 1),
            };
            if let Some(slot) = table.get_mut(i * width + j) {
                *slot = value;
            }
        }
    }
    at(&table, 0, 0)
}

/// Whether a word's `**` may stand for the part (the shell's `**` skips names starting with
/// `.`).
fn deep_reaches(part: &Part) -> bool {
    match part {
        Part::Name(name) | Part::Glob(name) => !name.starts_with('.'),
        Part::Any | Part::AnyDepth => true,
    }
}

/// Whether one component of a placed path may be the part.
fn meets(comp: Comp<'_>, part: &Part) -> bool {
    match (comp, part) {
        (_, Part::Any | Part::AnyDepth) => true,
        (Comp::Name(name), Part::Name(want)) => name.eq_ignore_ascii_case(want),
        (Comp::Name(name), Part::Glob(pattern)) => glob::matches(pattern, name, false),
        (Comp::Glob(word), Part::Name(want)) => glob::matches(word, want, true),
        (Comp::Glob(word), Part::Glob(pattern)) => glob::may_meet(word, pattern),
        (Comp::Deep, Part::Name(name) | Part::Glob(name)) => !name.starts_with('.'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases() -> Bases {
        Bases::of(&Places::new().with_root("/home/u/app").with_home("/home/u"))
    }

    fn names(pattern: &str, path: &str) -> bool {
        Shape::pattern(pattern)
            .unwrap()
            .names(&bases(), &comps(path))
    }

    fn held(pattern: &str, path: &str) -> bool {
        Shape::pattern(pattern)
            .unwrap()
            .held_by(&bases(), &comps(path))
    }

    #[test]
    fn patterns() {
        assert!(names("~/.ssh/**", "/home/u/.ssh/id_rsa"));
        assert!(names("~/.ssh/**", "/home/u/.ssh/a/b"));
        assert!(!names("~/.ssh/**", "/home/u/.ssh"));
        assert!(names("~/.ssh/**", "/home/other/.ssh/id_rsa"));
        assert!(names("~/.ssh/**", "/root/.ssh/id_rsa"));
        assert!(names("~/.ssh/**", "/HOME/U/.SSH/ID_RSA"));
        assert!(!names("~/.ssh/**", "/home/u/app/.ssh/id_rsa"));
        assert!(names("~/.ssh/**", "/home/u/.ssh/*"));
        assert!(names("~/.ssh/**", "/home/u/.s*/id_rsa"));
        assert!(!names("~/.ssh/**", "/home/u/*/id_rsa"));
        assert!(names("~/.ssh/**", "/home/*/.ssh/id_rsa"));
        assert!(!names("~/.ssh/**", "/home/u/**/id_rsa"));
        assert!(names(".env", "/home/u/app/x/.env"));
        assert!(names(".env.*", "/srv/.env.local"));
        assert!(!names(".env.*", "/srv/x.md"));
        assert!(!names(".env.*", "/srv/*.md"));
        assert!(names("config/secret.yml", "/home/u/app/config/secret.yml"));
        assert!(!names("config/secret.yml", "/home/u/config/secret.yml"));
        assert!(names("/etc/x/**", "/etc/x/y"));
    }

    #[test]
    fn holding() {
        assert!(held("~/.ssh/**", "/home/u"));
        assert!(held("~/.ssh/**", "/home/u/.ssh"));
        assert!(held("~/.ssh/**", "/home"));
        assert!(held("~/.ssh/**", "/"));
        assert!(!held("~/.ssh/**", "/home/u/app"));
        assert!(!held(".env", "/home/u/app"));
        assert!(held("~/.aws/credentials", "/home/u/.aws"));
        assert!(!held("~/.aws/credentials", "/home/u/.aws/credentials"));
        assert!(held("~/.ssh/**", "/home/u/**"));
    }

    #[test]
    fn protected_paths() {
        let shape = Shape::protected(".claude/settings.json", false).unwrap();
        let b = bases();
        assert!(shape.names(&b, &comps("/home/u/app/.claude/settings.json")));
        assert!(shape.names(&b, &comps("/home/.claude/settings.json")));
        assert!(!shape.names(&b, &comps("/home/u/app/src/.claude/settings.json")));
        assert!(shape.held_by(&b, &comps("/home/u/app")));
        assert!(shape.held_by(&b, &comps("/home/u/app/.claude")));
        assert!(!shape.held_by(&b, &comps("/home/u/app/src")));
        assert!(!shape.names(&b, &comps("/home/u/app/.claude/settings.json/x")));
        let dir = Shape::protected("~/.seal", true).unwrap();
        assert!(dir.names(&b, &comps("/home/u/.seal")));
        assert!(dir.names(&b, &comps("/home/u/.seal/rules.json")));
        assert!(dir.names(&b, &comps("/home/u/.seal/*")));
        assert!(!dir.names(&b, &comps("/home/u/.sealed")));
        assert!(dir.held_by(&b, &comps("/home/u")));
    }

    #[test]
    fn refusals() {
        assert_eq!(Shape::pattern(""), Err(PatternError::Empty));
        assert!(matches!(
            Shape::pattern("~bob/x"),
            Err(PatternError::OtherHome { .. })
        ));
        assert!(matches!(
            Shape::pattern("a/../b"),
            Err(PatternError::Climbs { .. })
        ));
        assert!(matches!(
            Shape::protected("/a/../b", true),
            Err(PatternError::Climbs { .. })
        ));
    }
}
