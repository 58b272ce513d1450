//! The one path canonicalization used by the manifest builder, its parser and the verifier.

use std::fmt;

use crate::lexical::{AboveRoot, ClimbsAboveRoot, Lexical};
use crate::text::is_forbidden_text_char;

/// Longest canonical path, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// A path in its one canonical spelling: relative, `/`-separated, with no empty, `.` or `..`
/// segment, no backslash, no control, bidi, invisible or tag character, at most [`MAX_PATH_BYTES`] bytes.
///
/// Only [`canonical_path`] builds one, so two `CanonicalPath`s name the same place exactly when
/// they are equal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CanonicalPath(String);

/// Why a path has no canonical spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathError {
    /// The path is empty, or names the root itself (`.`, `a/..`).
    Empty,
    /// The path starts with `/`.
    Absolute {
        /// The path given.
        path: String,
    },
    /// The path contains a backslash. Backslashes are rejected, not converted: on POSIX systems
    /// `a\b` is one file name, so converting would merge two places.
    Backslash {
        /// The path given.
        path: String,
    },
    /// The path contains a control, bidi, invisible or tag character
    /// ([`is_forbidden_text_char`]): a path shown to an approver must read as it is.
    ForbiddenCharacter {
        /// The path given.
        path: String,
        /// The first such character.
        character: char,
    },
    /// A `..` segment climbs above the root.
    EscapesRoot {
        /// The path given.
        path: String,
    },
    /// The canonical path is longer than [`MAX_PATH_BYTES`].
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
}

/// Canonicalizes a relative path: normalizes it lexically ([`Lexical`]: empty and `.` segments
/// dropped, `..` resolved against the segment before it, never above the start) and rejects what
/// cannot be spelled canonically.
///
/// `a/./b`, `a//b`, `a/b/` and `x/../a/b` all give `a/b`. `..` above the root, a leading `/`, a
/// backslash, a forbidden character ([`is_forbidden_text_char`]) and a path naming the root
/// itself are errors. The function is
/// idempotent: canonicalizing a canonical path returns it unchanged.
///
/// ```
/// use seal_record::canonical_path;
///
/// assert_eq!(canonical_path("src/./lib.rs")?.as_str(), "src/lib.rs");
/// assert!(canonical_path("../secret").is_err());
/// # Ok::<(), seal_record::PathError>(())
/// ```
pub fn canonical_path(path: &str) -> Result<CanonicalPath, PathError> {
    if path.starts_with('/') {
        return Err(PathError::Absolute {
            path: path.to_owned(),
        });
    }
    if path.contains('\\') {
        return Err(PathError::Backslash {
            path: path.to_owned(),
        });
    }
    if let Some(character) = path.chars().find(|&c| is_forbidden_text_char(c)) {
        return Err(PathError::ForbiddenCharacter {
            path: path.to_owned(),
            character,
        });
    }
    let segments =
        Lexical::of(path, AboveRoot::Refuse).map_err(|ClimbsAboveRoot| PathError::EscapesRoot {
            path: path.to_owned(),
        })?;
    if segments.components().is_empty() {
        return Err(PathError::Empty);
    }
    let joined = segments.to_relative();
    if joined.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong { len: joined.len() });
    }
    Ok(CanonicalPath(joined))
}

impl CanonicalPath {
    /// The canonical spelling.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CanonicalPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("path is empty or names the root"),
            PathError::Absolute { path } => {
                write!(f, "path `{}` is absolute", path.escape_debug())
            }
            PathError::Backslash { path } => {
                write!(f, "path `{}` contains a backslash", path.escape_debug())
            }
            PathError::ForbiddenCharacter { path, character } => write!(
                f,
                "path `{}` contains the forbidden character `{}`",
                path.escape_debug(),
                character.escape_unicode()
            ),
            PathError::EscapesRoot { path } => {
                write!(f, "path `{}` climbs above the root", path.escape_debug())
            }
            PathError::TooLong { len } => write!(
                f,
                "path of {len} bytes exceeds the limit of {MAX_PATH_BYTES}"
            ),
        }
    }
}

impl std::error::Error for PathError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(path: &str) -> Result<String, PathError> {
        canonical_path(path).map(|p| p.as_str().to_owned())
    }

    #[test]
    fn one_place_one_spelling() {
        for spelling in [
            "a/b", "a/./b", "a//b", "./a/b", "a/b/", "a/b/.", "x/../a/b", "a/c/../b",
        ] {
            assert_eq!(canon(spelling).unwrap(), "a/b", "{spelling}");
        }
    }

    #[test]
    fn rejections() {
        assert_eq!(canon(""), Err(PathError::Empty));
        assert_eq!(canon("."), Err(PathError::Empty));
        assert_eq!(canon("a/.."), Err(PathError::Empty));
        assert!(matches!(
            canon("/etc/passwd"),
            Err(PathError::Absolute { .. })
        ));
        assert!(matches!(canon("a\\b"), Err(PathError::Backslash { .. })));
        assert!(matches!(canon("..\\a"), Err(PathError::Backslash { .. })));
        for bad in ["a\nb", "a\u{85}b", "a\u{202e}b", "\u{200b}a", "a/\u{e0041}"] {
            assert!(
                matches!(canon(bad), Err(PathError::ForbiddenCharacter { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(canon(".."), Err(PathError::EscapesRoot { .. })));
        assert!(matches!(
            canon("a/../../b"),
            Err(PathError::EscapesRoot { .. })
        ));
        assert!(matches!(
            canon(&"a".repeat(MAX_PATH_BYTES + 1)),
            Err(PathError::TooLong { .. })
        ));
        assert!(canon(&"a".repeat(MAX_PATH_BYTES)).is_ok());
    }

    #[test]
    fn dots_inside_names_are_names() {
        assert_eq!(canon("...").unwrap(), "...");
        assert_eq!(canon(".env").unwrap(), ".env");
        assert_eq!(canon("a/..b").unwrap(), "a/..b");
    }
}
