//! Path specifiers: gitignore-style globs over canonical paths relative to the workspace.

use std::fmt;

use crate::paths::Lexical;

use super::path_glob::{matches_parts, units, Component, Unit};
use super::placed::{split, Placed, SplitPath};

/// A path pattern, the specifier of `Read(...)`, `Edit(...)` and the other file tools, read as
/// Claude Code reads it (gitignore-style):
///
/// - `//abs/x` is the absolute path `/abs/x`; `~/x` is `x` in the home directory; `/x` is `x`
///   at the project (workspace) root; `../x` is `x` beside the root (each leading `..` one
///   directory up); `./x` and `x` are read as gitignore reads them: a pattern with no `/` but
///   a trailing `/` or `/**` (`.env`, `./.env`, `src/**`, `target/`) matches at any depth
///   below the root; any other (`src/a.ts`, `./src/*.rs`) is anchored at the root;
/// - `*` matches any run of characters within one component, `?` one character, `[abc]`,
///   `[a-z]`, `[!a]` one character of (or not of) a class; a component `**` matches any number
///   of components, none included; braces are literal characters (`{a,b}.txt` is the file of
///   that name, as Claude Code 2.1.328 read it);
/// - `.` components are dropped and `a/..` removed;
/// - a trailing `/` (`target/`) matches only below a directory of that name, never a file;
/// - a pattern that matches a directory matches everything below it (`Edit(src)` covers
///   `src/main.rs`), as gitignore ignores the contents of an ignored directory.
///
/// Where Claude Code's reading is unclear or narrower for allow than for deny, deny and ask
/// rules read the pattern widely and allow rules narrowly: `src/**` and `target/` match at
/// any depth for deny and ask (Claude Code denied `lib/src/a.ts` under `Read(src/**)`) but only
/// at the root for allow (Claude Code asked for `lib/src/n2.ts` under an allow `Edit(src/**)`);
/// `../x` allows nothing.
///
/// Matching is byte-exact (case-sensitive). A backslash (an escape, or a Windows path), `$`,
/// `~` other than a leading `~/`, or a `..` climbing above an absolute or home anchor are
/// refused ([`PathPatternError`]); the rule then loads as an uninterpreted rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    anchor: Anchor,
    components: Vec<Component>,
    /// For a pattern at any depth that names a directory (`src/**`, `target/`): the components
    /// allow rules read, anchored at the root.
    at_root: Option<Vec<Component>>,
}

/// What a path pattern's components are relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// The workspace root, `up` directories above it (`/x`, `./a/b`, `../x`).
    Root { up: usize },
    /// Any directory below the workspace root (`.env`, `src/**`); deny and ask rules read it
    /// as any directory at all.
    AnyDepth,
    /// The file system root (`//x`).
    Absolute,
    /// The home directory (`~/x`).
    Home,
}

/// Why a path pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathPatternError {
    /// The pattern is empty (or only `./`).
    Empty,
    /// A character seal does not read in a path pattern: `\` (escape or Windows path), `$`, or
    /// a `~` other than a leading `~/`.
    UnsupportedCharacter {
        /// The character.
        found: char,
    },
    /// A `..` climbing above the absolute or home anchor.
    DotComponent,
}

impl fmt::Display for PathPatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty path pattern"),
            Self::UnsupportedCharacter { found } => write!(
                f,
                "unsupported character `{}` in path pattern (no escapes, Windows paths, variables, or `~user`)",
                found.escape_debug()
            ),
            Self::DotComponent => f.write_str("`..` climbing above the pattern's anchor"),
        }
    }
}

impl std::error::Error for PathPatternError {}

impl PathPattern {
    /// Reads a path pattern.
    ///
    /// # Errors
    ///
    /// [`PathPatternError`] for an empty pattern, an unsupported character, or a `..` above an
    /// absolute or home anchor.
    pub fn parse(specifier: &str) -> Result<PathPattern, PathPatternError> {
        if let Some(found) = specifier.chars().find(|c| matches!(c, '\\' | '$')) {
            return Err(PathPatternError::UnsupportedCharacter { found });
        }
        let mut directory_anywhere = false;
        let (anchor, body) = if let Some(rest) = specifier.strip_prefix("//") {
            (Anchor::Absolute, rest)
        } else if let Some(rest) = specifier.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if let Some(rest) = specifier.strip_prefix('/') {
            (Anchor::Root { up: 0 }, rest)
        } else {
            let rest = specifier.strip_prefix("./").unwrap_or(specifier);
            let trimmed = rest.strip_suffix('/').unwrap_or(rest);
            let trimmed = trimmed.strip_suffix("/**").unwrap_or(trimmed);
            if rest.starts_with("**/") {
                (Anchor::AnyDepth, rest)
            } else if trimmed.contains('/') || rest.starts_with("../") || rest == ".." {
                (Anchor::Root { up: 0 }, rest)
            } else {
                directory_anywhere = trimmed != rest;
                (Anchor::AnyDepth, rest)
            }
        };
        if body.contains('~') {
            return Err(PathPatternError::UnsupportedCharacter { found: '~' });
        }
        let (body, directory) = match body.strip_suffix('/') {
            Some(rest) => (rest, true),
            None => (body, false),
        };
        let (up, parts) = components(body, anchor, directory)?;
        let anchor = match anchor {
            Anchor::Root { .. } => Anchor::Root { up },
            other => other,
        };
        let at_root = if directory_anywhere {
            Some(components(body, Anchor::Root { up: 0 }, directory)?.1)
        } else {
            None
        };
        Ok(PathPattern {
            anchor,
            components: parts,
            at_root,
        })
    }

    /// Whether the canonical path `path`, relative to the workspace root (no empty, `.` or
    /// `..` component), matches a pattern anchored at the root or at any depth below it.
    /// Patterns anchored elsewhere (`//`, `~/`, `../`) never match a relative path here.
    #[must_use]
    pub fn matches(&self, path: &str) -> bool {
        match self.anchor {
            Anchor::Root { up: 0 } | Anchor::AnyDepth => {
                matches_parts(&self.components, &split(path))
            }
            _ => false,
        }
    }

    /// Whether the pattern matches `path`: `Some(true)` or `Some(false)` when that can be told,
    /// `None` when it depends on a root the set does not know. `strict` is the reading of deny
    /// and ask rules (a pattern at any depth matches anywhere; `~/` without a home directory
    /// matches below any directory); allow rules read patterns exactly (`strict == false`).
    pub(super) fn decide(&self, path: &Placed, home: Option<&str>, strict: bool) -> Option<bool> {
        self.decide_split(path, &SplitPath::of(path), home, strict)
    }

    /// [`PathPattern::decide`] with the path's components split once (a path matched by many
    /// patterns is split once, not once a pattern).
    pub(super) fn decide_split(
        &self,
        path: &Placed,
        parts: &SplitPath<'_>,
        home: Option<&str>,
        strict: bool,
    ) -> Option<bool> {
        let absolute = || parts.absolute.as_deref();
        match self.anchor {
            Anchor::Root { up: 0 } => match &parts.relative {
                Some(relative) => Some(self.matches_parts(relative)),
                None if path.root_known => Some(false),
                None => None,
            },
            Anchor::AnyDepth => {
                if let (Some(at_root), false) = (&self.at_root, strict) {
                    return match &parts.relative {
                        Some(relative) => Some(matches_parts(at_root, relative)),
                        None if path.root_known => Some(false),
                        None => None,
                    };
                }
                let inside = parts.relative.as_deref().map(|r| self.matches_parts(r));
                if inside == Some(true) {
                    return Some(true);
                }
                if strict {
                    // Every relative form is a suffix of the absolute one: `**` covers both.
                    if let Some(parts) = absolute() {
                        return Some(self.matches_parts(parts));
                    }
                    return inside;
                }
                match inside {
                    Some(found) => Some(found),
                    None if path.root_known => Some(false),
                    None => None,
                }
            }
            Anchor::Absolute => absolute().map(|parts| self.matches_parts(parts)),
            Anchor::Root { up } => {
                if !strict {
                    // Claude Code asked for `/x/f` under an allow `Read(../x/**)`.
                    return Some(false);
                }
                if !path.root_known {
                    return None;
                }
                let parts = absolute()?;
                let base = path.root.len().checked_sub(up)?;
                let prefix = path.root.get(..base)?;
                Some(parts.get(base..).is_some_and(|inner| {
                    parts.iter().zip(prefix).all(|(a, b)| a == b) && self.matches_parts(inner)
                }))
            }
            Anchor::Home => {
                match home {
                    Some(home) => {
                        let home = split(home);
                        let parts = absolute()?;
                        Some(parts.get(home.len()..).is_some_and(|inner| {
                            parts.iter().zip(&home).all(|(a, b)| a == b)
                                && self.matches_parts(inner)
                        }))
                    }
                    None if strict => {
                        // The home directory could be any directory: match below any of them.
                        let parts = absolute().or(parts.relative.as_deref())?;
                        Some(
                            (0..parts.len())
                                .filter_map(|start| parts.get(start..))
                                .any(|suffix| self.matches_parts(suffix)),
                        )
                    }
                    None => Some(false),
                }
            }
        }
    }

    fn matches_parts(&self, parts: &[&str]) -> bool {
        matches_parts(&self.components, parts)
    }

    /// Whether the pattern starts above the workspace root (`../x`).
    #[must_use]
    pub fn climbs(&self) -> bool {
        matches!(self.anchor, Anchor::Root { up } if up > 0)
    }

    /// Whether the pattern is in the home directory (`~/x`).
    #[must_use]
    pub fn is_home(&self) -> bool {
        self.anchor == Anchor::Home
    }

    /// A path this pattern matches (wildcards replaced by `x`), for lint findings.
    #[must_use]
    pub fn example(&self) -> String {
        let parts: Vec<String> = self
            .components
            .iter()
            .filter_map(|c| match c {
                Component::Glob(units) => Some(
                    units
                        .iter()
                        .map(|u| match u {
                            Unit::Char(c) => *c,
                            Unit::Class {
                                negated: false,
                                ranges,
                            } => ranges.first().map_or('x', |r| r.0),
                            _ => 'x',
                        })
                        .collect(),
                ),
                Component::Any => None,
            })
            .collect();
        let body = if parts.is_empty() {
            "x".to_owned()
        } else {
            parts.join("/")
        };
        match self.anchor {
            Anchor::Absolute => format!("/{body}"),
            Anchor::Root { up } => format!("{}{body}", "../".repeat(up)),
            _ => body,
        }
    }
}

/// The components of one brace-free pattern body, and how many leading `..` it has (only a
/// root-anchored pattern may climb).
fn components(
    body: &str,
    anchor: Anchor,
    directory: bool,
) -> Result<(usize, Vec<Component>), PathPatternError> {
    let lexical = Lexical::staying(body);
    let up = lexical.climbed();
    if up > 0 && !matches!(anchor, Anchor::Root { .. }) {
        return Err(PathPatternError::DotComponent);
    }
    let parts = lexical.into_components();
    if parts.is_empty() {
        return Err(PathPatternError::Empty);
    }
    let mut out = Vec::new();
    if anchor == Anchor::AnyDepth {
        out.push(Component::Any);
    }
    for part in parts {
        let component = if part == "**" {
            Component::Any
        } else {
            Component::Glob(units(part))
        };
        if component == Component::Any && out.last() == Some(&Component::Any) {
            continue;
        }
        out.push(component);
    }
    if directory {
        // `dir/` names a directory: something below it, never a file called `dir`.
        out.push(Component::Glob(vec![Unit::Star]));
    }
    // Everything below a matched directory matches too.
    if out.last() != Some(&Component::Any) {
        out.push(Component::Any);
    }
    Ok((up, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::placed::place;

    fn m(pattern: &str, path: &str) -> bool {
        PathPattern::parse(pattern).unwrap().matches(path)
    }

    #[test]
    fn gitignore_style() {
        assert!(m("./.env", ".env"));
        // As Claude Code: `./x` with no other slash matches at any depth.
        assert!(m("./.env", "a/.env"));
        assert!(m("src/**", "lib/src/a.ts"));
        assert!(m("./src/**", "lib/src/a.ts"));
        assert!(!m("/src/**", "lib/src/a.ts"));
        assert!(!m("src/a.ts", "lib/src/a.ts"));
        assert!(m("[ab].txt", "x/a.txt"));
        assert!(!m("[ab].txt", "c.txt"));
        assert!(m("[!ab].txt", "c.txt"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("{a,b}.txt", "{a,b}.txt"));
        assert!(!m("{a,b}.txt", "a.txt"));
        assert!(m("./a/../x", "x"));
        assert!(!m("//etc/passwd", "etc/passwd"));
        assert!(m(".env", "a/b/.env"));
        assert!(m("src/**", "src/a/b.rs"));
        assert!(!m("src/**", "srcx/a"));
        assert!(m("src", "src/main.rs"));
        assert!(m("src/*.rs", "src/main.rs"));
        assert!(!m("src/*.rs", "lib/src/main.rs"));
        assert!(m("**/*.rs", "a/b/c.rs"));
        assert!(m("target/", "target/debug/x"));
        assert!(m("a/**/b", "a/b"));
        assert!(m("a/**/b", "a/x/y/b"));
        assert!(m("*.key", "deep/dir/x.key"));
        assert!(m("sec?et", "x/secret"));
    }

    #[test]
    fn refused_patterns() {
        assert!(PathPattern::parse("").is_err());
        assert!(PathPattern::parse("./").is_err());
        assert!(PathPattern::parse("c:\\x").is_err());
        assert!(PathPattern::parse("$HOME/x").is_err());
        assert!(PathPattern::parse("~user/x").is_err());
        assert!(PathPattern::parse("//../x").is_err());
        assert!(PathPattern::parse("~/../x").is_err());
        for loads in [
            "~/.ssh/**",
            "../x/**",
            "./a/../x",
            "//etc/**",
            "[ab].txt",
            "{a,b}",
        ] {
            assert!(PathPattern::parse(loads).is_ok(), "{loads}");
        }
    }

    #[test]
    fn anchors_against_placed_paths() {
        let placed = |path: &str, root: Option<&str>| place(path, root).unwrap();
        let d = |pattern: &str, path: &Placed, strict: bool| {
            PathPattern::parse(pattern)
                .unwrap()
                .decide(path, None, strict)
        };
        let etc = placed("/etc/passwd", Some("/ws"));
        assert_eq!(d("//etc/passwd", &etc, false), Some(true));
        assert_eq!(d("/etc/passwd", &etc, true), Some(false));
        let env = placed("/ws/.env", Some("/ws"));
        assert_eq!(d("//ws/.env", &env, true), Some(true));
        let beside = placed("/x/a", Some("/ws"));
        assert_eq!(d("../x/**", &beside, true), Some(true));
        assert_eq!(d("../x/**", &beside, false), Some(false));
        // A directory at any depth: deny and ask anywhere below the root, allow at the root.
        let nested = placed("/ws/lib/src/a.ts", Some("/ws"));
        assert_eq!(d("src/**", &nested, true), Some(true));
        assert_eq!(d("src/**", &nested, false), Some(false));
        assert_eq!(
            d("src/**", &placed("/ws/src/a.ts", Some("/ws")), false),
            Some(true)
        );
        assert_eq!(d("../y/**", &beside, true), Some(false));
        // Home unknown: deny and ask read `~/` as any directory, allow matches nothing.
        let key = placed("/home/eve/.ssh/id_rsa", Some("/ws"));
        assert_eq!(d("~/.ssh/**", &key, true), Some(true));
        assert_eq!(d("~/.ssh/**", &key, false), Some(false));
        let home = PathPattern::parse("~/.ssh/**").unwrap();
        assert_eq!(home.decide(&key, Some("/home/eve"), false), Some(true));
        assert_eq!(home.decide(&key, Some("/home/bob"), true), Some(false));
        // A pattern at any depth: allow inside the root only, deny and ask anywhere.
        let outside = placed("/tmp/.env", Some("/ws"));
        assert_eq!(d(".env", &outside, false), Some(false));
        assert_eq!(d(".env", &outside, true), Some(true));
        // No root: what depends on it cannot be told.
        let unplaced = placed("/ws/src/a", None);
        assert_eq!(d("/src/**", &unplaced, true), None);
        assert_eq!(d("//ws/src/**", &unplaced, false), Some(true));
        let relative = placed("src/a", None);
        assert_eq!(d("//ws/src/**", &relative, true), None);
        assert_eq!(d("src/**", &relative, false), Some(true));
    }
}
