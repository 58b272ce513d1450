//! Path specifiers: gitignore-style globs over canonical paths relative to the workspace.

use std::fmt;

use super::wildcard::{chars_match, glob};

/// A path pattern, the specifier of `Read(...)`, `Edit(...)` and the other file tools.
///
/// Gitignore-style, over canonical relative paths (components separated by `/`, no `.` or `..`,
/// no leading `./`):
/// - a leading `./` or `/` anchors the pattern at the workspace root; a pattern with no other
///   `/` than a trailing one matches at any depth (`.env` is `**/.env`), and one with a `/`
///   inside is anchored (`src/*.rs` is `./src/*.rs`);
/// - `*` matches any run of characters within one component, `?` one character;
/// - a component `**` matches any number of components, none included;
/// - a trailing `/` (`target/`) matches only below a directory of that name, never a file;
/// - a pattern that matches a directory matches everything below it (`Edit(src)` covers
///   `src/main.rs`), as gitignore ignores the contents of an ignored directory.
///
/// Matching is byte-exact (case-sensitive). `[`, `\`, `~` and `$` are refused at load: no
/// character classes, escapes, home or variable expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    components: Vec<Component>,
}

/// Why a path pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathPatternError {
    /// The pattern is empty (or only `./`).
    Empty,
    /// A character that would need an expansion or a character class: `[`, `\`, `~`, `$`.
    UnsupportedCharacter {
        /// The character.
        found: char,
    },
    /// A `.` or `..` component: patterns are over canonical paths, which have none.
    DotComponent,
}

impl fmt::Display for PathPatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty path pattern"),
            Self::UnsupportedCharacter { found } => write!(
                f,
                "unsupported character `{}` in path pattern (no classes, escapes, home or variables)",
                found.escape_debug()
            ),
            Self::DotComponent => f.write_str(
                "`.` or `..` component in path pattern (patterns match canonical paths)",
            ),
        }
    }
}

impl std::error::Error for PathPatternError {}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Component {
    /// `**`: any number of components.
    Any,
    /// One component, with `*` and `?` wildcards.
    Glob(String),
}

impl PathPattern {
    /// Reads a path pattern.
    ///
    /// # Errors
    ///
    /// [`PathPatternError`] for an empty pattern, an unsupported character, or a `.`/`..`
    /// component.
    pub fn parse(specifier: &str) -> Result<PathPattern, PathPatternError> {
        if let Some(found) = specifier
            .chars()
            .find(|c| matches!(c, '[' | '\\' | '~' | '$'))
        {
            return Err(PathPatternError::UnsupportedCharacter { found });
        }
        let (body, anchored) = if let Some(rest) = specifier.strip_prefix("./") {
            (rest, true)
        } else if let Some(rest) = specifier.strip_prefix('/') {
            (rest, true)
        } else {
            (specifier, false)
        };
        let (body, directory) = match body.strip_suffix('/') {
            Some(rest) => (rest, true),
            None => (body, false),
        };
        let anchored = anchored || body.contains('/');
        let mut components = Vec::new();
        if !anchored {
            components.push(Component::Any);
        }
        for part in body.split('/').filter(|p| !p.is_empty()) {
            if part == "." || part == ".." {
                return Err(PathPatternError::DotComponent);
            }
            let component = if part == "**" {
                Component::Any
            } else {
                Component::Glob(part.to_owned())
            };
            if component == Component::Any && components.last() == Some(&Component::Any) {
                continue;
            }
            components.push(component);
        }
        if body.split('/').all(str::is_empty) {
            return Err(PathPatternError::Empty);
        }
        if directory {
            // `dir/` names a directory: something below it, never a file called `dir`.
            components.push(Component::Glob("*".to_owned()));
        }
        // Everything below a matched directory matches too.
        if components.last() != Some(&Component::Any) {
            components.push(Component::Any);
        }
        Ok(PathPattern { components })
    }

    /// Whether the canonical relative path `path` (see [`canonical_path`]) matches.
    #[must_use]
    pub fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return false;
        }
        glob(
            &self.components,
            &parts,
            |c| *c == Component::Any,
            |c, part| match c {
                Component::Glob(pattern) => chars_match(pattern, part, true),
                Component::Any => false,
            },
        )
    }

    /// A path this pattern matches (wildcards replaced by `x`), for lint findings.
    #[must_use]
    pub fn example(&self) -> String {
        let parts: Vec<String> = self
            .components
            .iter()
            .filter_map(|c| match c {
                Component::Glob(p) => Some(p.replace(['*', '?'], "x")),
                Component::Any => None,
            })
            .collect();
        if parts.is_empty() {
            "x".to_owned()
        } else {
            parts.join("/")
        }
    }
}

/// Where a path given to a tool lies, once made canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CanonicalPath {
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
pub fn canonical_path(path: &str, workspace_root: Option<&str>) -> CanonicalPath {
    if path.contains('\0') {
        return CanonicalPath::Outside("path contains a NUL character");
    }
    if path.starts_with('/') {
        let Some(root) = workspace_root else {
            return CanonicalPath::Outside("absolute path and no workspace root configured");
        };
        let Ok(root_parts) = lexical(root) else {
            return CanonicalPath::Outside("workspace root climbs above `/`");
        };
        let Ok(parts) = lexical(path) else {
            return CanonicalPath::Outside("path climbs above `/`");
        };
        if parts.len() < root_parts.len() || parts.get(..root_parts.len()) != Some(&root_parts[..])
        {
            return CanonicalPath::Outside("absolute path outside the workspace root");
        }
        let inner = parts.get(root_parts.len()..).unwrap_or_default().join("/");
        return if inner.is_empty() {
            CanonicalPath::Outside("the workspace root itself")
        } else {
            CanonicalPath::Relative(inner)
        };
    }
    match lexical(path) {
        Ok(parts) if parts.is_empty() => CanonicalPath::Outside("empty path"),
        Ok(parts) => CanonicalPath::Relative(parts.join("/")),
        Err(()) => CanonicalPath::Outside("path climbs above the workspace root"),
    }
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
        assert!(!m("./.env", "a/.env"));
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
        assert!(PathPattern::parse("~/.ssh").is_err());
        assert!(PathPattern::parse("a/../b").is_err());
        assert!(PathPattern::parse("[ab]").is_err());
    }

    #[test]
    fn canonical_paths() {
        let rel = |s: &str| CanonicalPath::Relative(s.to_owned());
        assert_eq!(canonical_path("./a//b/./c", None), rel("a/b/c"));
        assert_eq!(canonical_path("a/x/../.env", None), rel("a/.env"));
        assert!(matches!(
            canonical_path("../x", None),
            CanonicalPath::Outside(_)
        ));
        assert!(matches!(
            canonical_path("/ws/.env", None),
            CanonicalPath::Outside(_)
        ));
        assert_eq!(canonical_path("/ws/./.env", Some("/ws/")), rel(".env"));
        assert!(matches!(
            canonical_path("/wsx/.env", Some("/ws")),
            CanonicalPath::Outside(_)
        ));
        assert!(matches!(
            canonical_path("/ws/../etc", Some("/ws")),
            CanonicalPath::Outside(_)
        ));
    }
}
