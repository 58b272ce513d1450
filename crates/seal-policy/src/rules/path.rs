//! Path specifiers: gitignore-style globs over canonical paths relative to the workspace.

use std::fmt;

use super::wildcard::glob;

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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Component {
    /// `**`: any number of components.
    Any,
    /// One component, with `*`, `?` and class wildcards.
    Glob(Vec<Unit>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Unit {
    Star,
    One,
    Char(char),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// A call's path, placed: absolute and, when inside the workspace, relative to its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Placed {
    /// The lexically canonical absolute path (`/a/b`), when known (the path was absolute, or
    /// relative with a workspace root).
    pub(super) absolute: Option<String>,
    /// The canonical path relative to the workspace root, when the path lies below it (or is
    /// relative and no root is known).
    pub(super) relative: Option<String>,
    /// Whether a workspace root is known.
    pub(super) root_known: bool,
    /// The root's components, when known.
    pub(super) root: Vec<String>,
}

impl Placed {
    /// The path a trace shows: relative to the workspace root when it lies below it, else
    /// absolute.
    pub(super) fn shown(&self) -> &str {
        let text = self.relative.as_deref().or(self.absolute.as_deref());
        debug_assert!(
            text.is_some(),
            "a placed path has an absolute or a relative form"
        );
        text.unwrap_or_default()
    }

    /// The path absolute when known, else relative to the workspace root.
    pub(super) fn absolute_or_relative(&self) -> &str {
        let text = self.absolute.as_deref().or(self.relative.as_deref());
        debug_assert!(
            text.is_some(),
            "a placed path has an absolute or a relative form"
        );
        text.unwrap_or_default()
    }
}

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

    /// Whether the canonical path `path`, relative to the workspace root (see
    /// [`workspace_path`]), matches a pattern anchored at the root or at any depth below it.
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
                Some(
                    parts.len() >= base
                        && parts.iter().zip(prefix).all(|(a, b)| a == b)
                        && self.matches_parts(parts.get(base..).unwrap_or_default()),
                )
            }
            Anchor::Home => {
                match home {
                    Some(home) => {
                        let home = split(home);
                        let parts = absolute()?;
                        Some(
                            parts.len() >= home.len()
                                && parts.iter().zip(&home).all(|(a, b)| a == b)
                                && self.matches_parts(parts.get(home.len()..).unwrap_or_default()),
                        )
                    }
                    None if strict => {
                        // The home directory could be any directory: match below any of them.
                        let parts = absolute().or(parts.relative.as_deref())?;
                        Some((0..parts.len()).any(|start| {
                            self.matches_parts(parts.get(start..).unwrap_or_default())
                        }))
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

fn matches_parts(components: &[Component], parts: &[&str]) -> bool {
    !parts.is_empty()
        && glob(
            components,
            parts,
            |c| *c == Component::Any,
            |c, part| match c {
                Component::Glob(units) => component_matches(units, part),
                Component::Any => false,
            },
        )
}

fn split(path: &str) -> Vec<&str> {
    path.split('/').filter(|p| !p.is_empty()).collect()
}

/// A placed path's components, split once for matching against many patterns.
pub(super) struct SplitPath<'p> {
    relative: Option<Vec<&'p str>>,
    absolute: Option<Vec<&'p str>>,
}

impl<'p> SplitPath<'p> {
    pub(super) fn of(path: &'p Placed) -> SplitPath<'p> {
        SplitPath {
            relative: path.relative.as_deref().map(split),
            absolute: path.absolute.as_deref().map(split),
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
    let mut up = 0;
    let mut parts: Vec<&str> = Vec::new();
    for part in body.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    if !matches!(anchor, Anchor::Root { .. }) {
                        return Err(PathPatternError::DotComponent);
                    }
                    up += 1;
                }
            }
            other => parts.push(other),
        }
    }
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

/// The units of one component: `*`, `?`, classes `[...]` (`!` or `^` first negates, `a-z`
/// ranges; a `[` without its `]` is literal), other characters literal.
fn units(part: &str) -> Vec<Unit> {
    let chars: Vec<char> = part.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        at += 1;
        match c {
            '*' => out.push(Unit::Star),
            '?' => out.push(Unit::One),
            '[' => match class(chars.get(at..).unwrap_or_default()) {
                Some((unit, used)) => {
                    out.push(unit);
                    at += used;
                }
                None => out.push(Unit::Char('[')),
            },
            c => out.push(Unit::Char(c)),
        }
    }
    out
}

/// A class after its `[`, and how many characters it used (its `]` included).
fn class(rest: &[char]) -> Option<(Unit, usize)> {
    let mut at = 0;
    let negated = matches!(rest.first(), Some('!' | '^'));
    if negated {
        at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *rest.get(at)?;
        if c == ']' && !first {
            return Some((Unit::Class { negated, ranges }, at + 1));
        }
        first = false;
        match (rest.get(at + 1), rest.get(at + 2)) {
            (Some('-'), Some(&end)) if end != ']' => {
                ranges.push((c, end));
                at += 3;
            }
            _ => {
                ranges.push((c, c));
                at += 1;
            }
        }
    }
}

fn component_matches(units: &[Unit], part: &str) -> bool {
    // A literal component (most are) compares character by character, with no copy.
    if units.iter().all(|unit| matches!(unit, Unit::Char(_))) {
        let mut chars = part.chars();
        return units
            .iter()
            .all(|unit| matches!(unit, Unit::Char(want) if chars.next() == Some(*want)))
            && chars.next().is_none();
    }
    let text: Vec<char> = part.chars().collect();
    glob(
        units,
        &text,
        |u| *u == Unit::Star,
        |u, c| match u {
            Unit::Char(want) => want == c,
            Unit::One => true,
            Unit::Class { negated, ranges } => {
                ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated
            }
            Unit::Star => false,
        },
    )
}

/// Where a path given to a tool lies in the workspace, for matching path rules (not a disclosure
/// path: `seal_record::canonical_path` has the stricter rules of manifests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspacePath {
    /// Inside the workspace: the canonical relative path (`a/b`, never empty, no `.`/`..`).
    Relative(String),
    /// Not placeable relative to the workspace: absolute without a workspace root, or under
    /// another root, or climbing above the root with `..`, or empty. Rules never allow such a
    /// path by pattern; the evaluation asks with this reason.
    Outside(&'static str),
}

/// Makes `path` canonical relative to the workspace: `.` and empty components dropped, `..`
/// resolved lexically; an absolute path is made relative when it lies under `workspace_root`
/// (itself absolute, canonicalized the same way).
#[must_use]
pub fn workspace_path(path: &str, workspace_root: Option<&str>) -> WorkspacePath {
    if path.contains('\0') {
        return WorkspacePath::Outside("path contains a NUL character");
    }
    if path.starts_with('/') {
        let Some(root) = workspace_root else {
            return WorkspacePath::Outside("absolute path and no workspace root configured");
        };
        let Ok(root_parts) = lexical(root) else {
            return WorkspacePath::Outside("workspace root climbs above `/`");
        };
        let Ok(parts) = lexical(path) else {
            return WorkspacePath::Outside("path climbs above `/`");
        };
        if parts.len() < root_parts.len() || parts.get(..root_parts.len()) != Some(&root_parts[..])
        {
            return WorkspacePath::Outside("absolute path outside the workspace root");
        }
        let inner = parts.get(root_parts.len()..).unwrap_or_default().join("/");
        return if inner.is_empty() {
            WorkspacePath::Outside("the workspace root itself")
        } else {
            WorkspacePath::Relative(inner)
        };
    }
    match lexical(path) {
        Ok(parts) if parts.is_empty() => WorkspacePath::Outside("empty path"),
        Ok(parts) => WorkspacePath::Relative(parts.join("/")),
        Err(()) => WorkspacePath::Outside("path climbs above the workspace root"),
    }
}

/// Places a call's path: its canonical absolute form (the path itself when absolute, else
/// joined to `workspace_root`) and its form relative to the root when it lies below it (or is
/// relative and no root is known); `Err` with a reason when neither can be had (a NUL, an
/// empty path, `..` climbing above `/`, or a relative path climbing above an unknown root).
pub(super) fn place(path: &str, workspace_root: Option<&str>) -> Result<Placed, &'static str> {
    if path.contains('\0') {
        return Err("path contains a NUL character");
    }
    let root = match workspace_root {
        Some(root) => Some(lexical(root).map_err(|()| "workspace root climbs above `/`")?),
        None => None,
    };
    let root_owned: Vec<String> = root.iter().flatten().map(|p| (*p).to_owned()).collect();
    let absolute: Option<Vec<&str>> = if path.starts_with('/') {
        Some(lexical(path).map_err(|()| "path climbs above `/`")?)
    } else {
        match &root {
            Some(root) => {
                let mut joined = root.clone();
                for part in path.split('/') {
                    match part {
                        "" | "." => {}
                        ".." => {
                            joined.pop().ok_or("path climbs above `/`")?;
                        }
                        other => joined.push(other),
                    }
                }
                Some(joined)
            }
            None => None,
        }
    };
    let relative = match (&absolute, &root) {
        (Some(parts), Some(root)) => (parts.len() >= root.len()
            && parts.get(..root.len()) == Some(&root[..]))
        .then(|| parts.get(root.len()..).unwrap_or_default().join("/")),
        (Some(_), None) => None,
        (None, _) => match lexical(path) {
            Ok(parts) if parts.is_empty() && path.is_empty() => return Err("empty path"),
            Ok(parts) => Some(parts.join("/")),
            Err(()) => return Err("path climbs above the workspace root"),
        },
    };
    if absolute.as_ref().is_some_and(Vec::is_empty) && relative.is_none() {
        return Err("the path is `/`");
    }
    Ok(Placed {
        absolute: absolute.map(|parts| format!("/{}", parts.join("/"))),
        relative,
        root_known: root.is_some(),
        root: root_owned,
    })
}

/// Components of `path` with `.` and empty ones dropped and `..` applied; `Err` if `..` climbs
/// above the start.
fn lexical(path: &str) -> Result<Vec<&str>, ()> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop().ok_or(())?;
            }
            other => parts.push(other),
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn workspace_paths() {
        let rel = |s: &str| WorkspacePath::Relative(s.to_owned());
        assert_eq!(workspace_path("./a//b/./c", None), rel("a/b/c"));
        assert_eq!(workspace_path("a/x/../.env", None), rel("a/.env"));
        assert!(matches!(
            workspace_path("../x", None),
            WorkspacePath::Outside(_)
        ));
        assert!(matches!(
            workspace_path("/ws/.env", None),
            WorkspacePath::Outside(_)
        ));
        assert_eq!(workspace_path("/ws/./.env", Some("/ws/")), rel(".env"));
        assert!(matches!(
            workspace_path("/wsx/.env", Some("/ws")),
            WorkspacePath::Outside(_)
        ));
        assert!(matches!(
            workspace_path("/ws/../etc", Some("/ws")),
            WorkspacePath::Outside(_)
        ));
    }
}
