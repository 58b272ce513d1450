//! A call's path, placed against the workspace root: its canonical absolute form and its form
//! relative to the root.

use crate::paths::{AboveRoot, ClimbsAboveRoot, Lexical};

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

/// Places a call's path: its canonical absolute form (the path itself when absolute, else
/// joined to `workspace_root`) and its form relative to the root when it lies below it (or is
/// relative and no root is known); `Err` with a reason when neither can be had (a NUL, an
/// empty path, `..` climbing above `/`, or a relative path climbing above an unknown root).
pub(super) fn place(path: &str, workspace_root: Option<&str>) -> Result<Placed, &'static str> {
    if path.contains('\0') {
        return Err("path contains a NUL character");
    }
    let root = match workspace_root {
        Some(root) => Some(
            Lexical::of(root, AboveRoot::Refuse)
                .map_err(|ClimbsAboveRoot| "workspace root climbs above `/`")?,
        ),
        None => None,
    };
    let absolute = if path.starts_with('/') {
        Some(
            Lexical::of(path, AboveRoot::Refuse)
                .map_err(|ClimbsAboveRoot| "path climbs above `/`")?,
        )
    } else {
        match &root {
            Some(root) => {
                let mut joined = root.clone();
                joined
                    .push(path, AboveRoot::Refuse)
                    .map_err(|ClimbsAboveRoot| "path climbs above `/`")?;
                Some(joined)
            }
            None => None,
        }
    };
    let relative = match (&absolute, &root) {
        (Some(parts), Some(root)) => parts
            .components()
            .strip_prefix(root.components())
            .map(|inner| inner.join("/")),
        (Some(_), None) => None,
        (None, _) => match Lexical::of(path, AboveRoot::Refuse) {
            Ok(parts) if parts.components().is_empty() && path.is_empty() => {
                return Err("empty path")
            }
            Ok(parts) => Some(parts.to_relative()),
            Err(ClimbsAboveRoot) => return Err("path climbs above the workspace root"),
        },
    };
    if absolute
        .as_ref()
        .is_some_and(|parts| parts.components().is_empty())
        && relative.is_none()
    {
        return Err("the path is `/`");
    }
    Ok(Placed {
        absolute: absolute.as_ref().map(Lexical::to_absolute),
        relative,
        root_known: root.is_some(),
        root: root
            .iter()
            .flat_map(Lexical::components)
            .map(|part| (*part).to_owned())
            .collect(),
    })
}

/// A placed path's components, split once for matching against many patterns.
pub(super) struct SplitPath<'p> {
    pub(super) relative: Option<Vec<&'p str>>,
    pub(super) absolute: Option<Vec<&'p str>>,
}

impl<'p> SplitPath<'p> {
    pub(super) fn of(path: &'p Placed) -> SplitPath<'p> {
        SplitPath {
            relative: path.relative.as_deref().map(split),
            absolute: path.absolute.as_deref().map(split),
        }
    }
}

/// The components of a canonical path (`/a/b` or `a/b`).
pub(super) fn split(path: &str) -> Vec<&str> {
    path.split('/').filter(|p| !p.is_empty()).collect()
}
