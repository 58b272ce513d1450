//! Where a path word may be: placed by [`Places`], with a glob component that may expand to
//! `..` read as a name, and a home seal cannot resolve read under each home it may be.

use crate::guards::glob;
use crate::paths::{Cwd, Places, Unplaced};

/// The private-use character that stands for a component the resolver would not place (a glob
/// that may expand to `..`), so that it is read as a name.
const MASK: char = '\u{E000}';

/// Where `word`, read in `cwd`, may be: its absolute, lexically normalized path, with a
/// component that is a glob starting with `.` (which the shell may expand to `..`) read as a
/// name; for a home seal cannot resolve (`~user`, or `~` without a home directory), the path
/// under each home directory it may be (the known one, `/root`, `/home/*`, `/Users/*`,
/// `/var/root`). An error when it cannot be placed at all.
pub(super) fn place(places: &Places, word: &str, cwd: Cwd<'_>) -> Vec<Result<String, Unplaced>> {
    if word.contains(MASK) {
        return vec![Err(Unplaced::GlobMayClimb)];
    }
    let (masked, globs) = mask(word);
    let resolve =
        |word: &str, cwd: Cwd<'_>| places.absolute(word, cwd).map(|path| unmask(&path, &globs));
    match resolve(&masked, cwd) {
        Err(Unplaced::OtherHome | Unplaced::HomeUnknown) => {
            let cds: &[&str] = match cwd {
                Cwd::Root => &[],
                Cwd::After(cds) => cds,
            };
            let mut homes: Vec<&str> = places.home().into_iter().collect();
            homes.extend(["/root", "/home/*", "/Users/*", "/var/root"]);
            homes
                .into_iter()
                .map(|home| {
                    let word = rehome(&masked, home);
                    let cds: Vec<String> = cds.iter().map(|cd| rehome(cd, home)).collect();
                    let cds: Vec<&str> = cds.iter().map(String::as_str).collect();
                    if cds.is_empty() {
                        resolve(&word, Cwd::Root)
                    } else {
                        resolve(&word, Cwd::After(&cds))
                    }
                })
                .collect()
        }
        other => vec![other],
    }
}

/// `word` with a leading `~` or `~user` replaced by `home`.
fn rehome(word: &str, home: &str) -> String {
    if !word.starts_with('~') {
        return word.to_owned();
    }
    match word.split_once('/') {
        Some((_, rest)) => format!("{home}/{rest}"),
        None => home.to_owned(),
    }
}

/// `word` with each component that is a glob starting with `.` replaced by [`MASK`] and its
/// index; the globs replaced, in order.
fn mask(word: &str) -> (String, Vec<&str>) {
    let mut globs = Vec::new();
    if !word
        .split('/')
        .any(|part| part.starts_with('.') && glob::is_glob(part))
    {
        return (word.to_owned(), globs);
    }
    let parts: Vec<String> = word
        .split('/')
        .map(|part| {
            if part.starts_with('.') && glob::is_glob(part) {
                globs.push(part);
                format!("{MASK}{}", globs.len() - 1)
            } else {
                part.to_owned()
            }
        })
        .collect();
    (parts.join("/"), globs)
}

/// `path` with each masked component given back.
fn unmask(path: &str, globs: &[&str]) -> String {
    if globs.is_empty() {
        return path.to_owned();
    }
    path.split('/')
        .map(|part| {
            part.strip_prefix(MASK)
                .and_then(|index| index.parse::<usize>().ok())
                .and_then(|index| globs.get(index).copied())
                // Not a mark `mask` made (the root's or a `cd`'s own name): kept as it is.
                .unwrap_or(part)
        })
        .collect::<Vec<&str>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places {
        Places::new().with_root("/home/u/app").with_home("/home/u")
    }

    #[test]
    fn placing() {
        let p = places();
        assert_eq!(
            place(&p, "~/.ssh/x", Cwd::Root),
            vec![Ok("/home/u/.ssh/x".to_owned())]
        );
        assert_eq!(
            place(&p, "~/.s*/x", Cwd::Root),
            vec![Ok("/home/u/.s*/x".to_owned())]
        );
        assert_eq!(
            place(&p, ".e*", Cwd::Root),
            vec![Ok("/home/u/app/.e*".to_owned())]
        );
        let other = place(&p, "~bob/.ssh/x", Cwd::Root);
        assert!(other.contains(&Ok("/home/*/.ssh/x".to_owned())));
        assert!(other.contains(&Ok("/root/.ssh/x".to_owned())));
        let unknown = place(&Places::new(), "~/.ssh/x", Cwd::Root);
        assert!(unknown.contains(&Ok("/home/*/.ssh/x".to_owned())));
        assert_eq!(
            place(&p, "a\u{E000}", Cwd::Root),
            vec![Err(Unplaced::GlobMayClimb)]
        );
        assert_eq!(
            place(&p, "x", Cwd::After(&["~bob"])).first(),
            Some(&Ok("/home/u/x".to_owned()))
        );
    }
}
