//! Every path a segmented command names, in order, with the working directory each is read
//! in: the one walk the rules, the guards and the explanation share.

use seal_parse::shell::SegmentsRef;

use super::access::{form_paths, Access};
use super::resolve::{Cwd, Unplaced};

/// Most `cd` commands whose targets a walk follows; after more, relative paths are not placed.
pub const MAX_CDS: usize = 8;

/// One path a command names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandPath<'a> {
    /// Index of the segment (payload segments counted in place).
    pub segment: usize,
    /// The program that uses it (the segment's normalized program; `cd` for a `cd` target,
    /// the program for a leading assignment's value).
    pub program: &'a str,
    /// The path as the program receives it.
    pub word: &'a str,
    /// How the program uses it.
    pub access: Access,
}

/// Where a walk says a path is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPlace<'c> {
    /// In this working directory.
    In(Cwd<'c>),
    /// Nowhere seal can tell (a relative path after `cd -`, after too many `cd`s, or with a
    /// `..` after a `cd`): no allow may cover it.
    Unplaced(Unplaced),
}

/// Calls `found` with every path the segments name (see [`CommandPath`]), each with where it
/// is read: relative paths after `cd DIR` (or `pushd DIR`) are read in `DIR` (a `cd` with no
/// operand goes home). Which `cd` took effect can depend on which commands succeeded, so a
/// relative path with a `..` component after a `cd`, and every relative path after `cd -`,
/// `popd` or more than [`MAX_CDS`] `cd`s, is [`ReadPlace::Unplaced`]: with every `cd` target
/// inside the workspace (each is itself a path read) and no `..` after them, every path that
/// stays relative lies inside whichever `cd`s ran. Allocates nothing.
///
/// ```
/// use seal_parse::shell::{segment_into, SegmentBuffer, ShellLimits};
/// use seal_policy::paths::{command_paths, Access, Cwd, ReadPlace};
///
/// let mut buffer = SegmentBuffer::new();
/// let segments = segment_into("cd sub && cp a ~/b", &ShellLimits::default(), &mut buffer)?;
/// let mut seen = Vec::new();
/// command_paths(segments, &mut |path, reading| {
///     let after_cd = matches!(reading, ReadPlace::In(Cwd::After(_)));
///     seen.push((path.program, path.word, path.access, after_cd));
/// });
/// assert_eq!(
///     seen,
///     [
///         ("cd", "sub", Access::Read, false),
///         ("cp", "a", Access::Read, true),
///         ("cp", "~/b", Access::Write, false),
///     ]
/// );
/// # Ok::<(), seal_parse::shell::Unanalysable>(())
/// ```
pub fn command_paths<'a>(
    segments: SegmentsRef<'a>,
    found: &mut dyn FnMut(&CommandPath<'a>, ReadPlace<'_>),
) {
    let mut cds: [&'a str; MAX_CDS] = [""; MAX_CDS];
    let mut cd_count = 0usize;
    // Why relative paths can no longer be placed, once that is so.
    let mut lost: Option<Unplaced> = None;
    for (index, segment) in segments.iter().enumerate() {
        let form = segment.forms().normalized();
        let program = form.program();
        let path = |word: &'a str, access: Access| CommandPath {
            segment: index,
            program,
            word,
            access,
        };
        // A wrapper that changes the working directory (`env -C DIR`, `env --chdir=DIR`,
        // `sudo -D DIR`): its directory is read as a `cd` target is, and the program's
        // paths are read there.
        let canonical = segment.forms().canonical();
        let wrapped = canonical
            .len()
            .saturating_sub(form.len())
            .saturating_sub(segment.assignments());
        let mut wrapper_words = canonical.words().skip(segment.assignments()).take(wrapped);
        while let Some(word) = wrapper_words.next() {
            let dir = match word {
                "-C" | "-D" | "--chdir" => wrapper_words.next(),
                _ if word.starts_with("--") => word.strip_prefix("--chdir="),
                _ => word
                    .strip_prefix("-C")
                    .or_else(|| word.strip_prefix("-D"))
                    .filter(|dir| !dir.is_empty()),
            };
            if let Some(dir) = dir {
                found(&path(dir, Access::Read), reading(dir, &cds, cd_count, lost));
                change_directory(dir, &mut cds, &mut cd_count, &mut lost);
            }
        }
        let mut report = |word: &'a str, access: Access| {
            found(&path(word, access), reading(word, &cds, cd_count, lost));
        };
        // Values of leading assignments (`KUBECONFIG=~/.kube/config kubectl ...`).
        for assignment in segment.words().take(segment.assignments()) {
            if let Some((_, value)) = assignment.split_once('=') {
                if !value.is_empty() {
                    report(value, Access::Both);
                }
            }
        }
        match program {
            "cd" | "pushd" | "chdir" => {
                let target = form
                    .args()
                    .find(|word| !matches!(*word, "-L" | "-P" | "-e" | "-@" | "--"));
                match target {
                    Some("-") => lost = Some(Unplaced::NoWorkingDirectory),
                    target => {
                        let target = target.unwrap_or("~");
                        report(target, Access::Read);
                        change_directory(target, &mut cds, &mut cd_count, &mut lost);
                    }
                }
            }
            "popd" => lost = Some(Unplaced::NoWorkingDirectory),
            _ => form_paths(form.words(), &mut report),
        }
    }
}

/// Where a path word is read after the first `count` of the `cd`s `cds` (see
/// [`command_paths`]).
fn reading<'c>(
    word: &str,
    cds: &'c [&'c str; MAX_CDS],
    count: usize,
    lost: Option<Unplaced>,
) -> ReadPlace<'c> {
    // `count` never passes `MAX_CDS`: `change_directory` loses the working directory instead.
    // Were it to, the `cd`s counted but not kept leave no working directory (fail closed).
    debug_assert!(count <= MAX_CDS, "`cd`s counted but not kept");
    let (cds, lost) = match cds.get(..count) {
        Some(cds) => (cds, lost),
        None => (&[][..], Some(Unplaced::NoWorkingDirectory)),
    };
    let relative = !(word.starts_with('/') || word.starts_with('~'));
    match lost {
        Some(why) if relative => ReadPlace::Unplaced(why),
        _ if relative && !cds.is_empty() && word.split('/').any(|p| p == "..") => {
            ReadPlace::Unplaced(Unplaced::ClimbAfterCd)
        }
        _ if relative && !cds.is_empty() => ReadPlace::In(Cwd::After(cds)),
        _ => ReadPlace::In(Cwd::Root),
    }
}

/// Records a `cd` to `dir`; past [`MAX_CDS`], the working directory is lost.
fn change_directory<'a>(
    dir: &'a str,
    cds: &mut [&'a str; MAX_CDS],
    count: &mut usize,
    lost: &mut Option<Unplaced>,
) {
    match cds.get_mut(*count) {
        Some(slot) => {
            *slot = dir;
            *count += 1;
        }
        None => *lost = Some(Unplaced::NoWorkingDirectory),
    }
}

#[cfg(test)]
mod tests {
    use seal_parse::shell::{segment_into, SegmentBuffer, ShellLimits};

    use super::*;

    /// Every path of `command` as `word access reading` lines.
    fn walk(command: &str) -> Vec<String> {
        let mut buffer = SegmentBuffer::new();
        let segments = segment_into(command, &ShellLimits::default(), &mut buffer).unwrap();
        let mut out = Vec::new();
        command_paths(segments, &mut |path, reading| {
            let reading = match reading {
                ReadPlace::In(Cwd::Root) => "root".to_owned(),
                ReadPlace::In(Cwd::After(cds)) => format!("after {}", cds.join(",")),
                ReadPlace::Unplaced(why) => format!("unplaced {why:?}"),
            };
            out.push(format!(
                "{} {} {}",
                path.word,
                path.access.as_str(),
                reading
            ));
        });
        out
    }

    #[test]
    fn readings_follow_cd() {
        assert_eq!(walk("cat a"), ["a read root"]);
        assert_eq!(
            walk("cd sub; cat a ../b /x ~/y"),
            [
                "sub read root",
                "a read after sub",
                "../b read unplaced ClimbAfterCd",
                "/x read root",
                "~/y read root",
            ]
        );
        assert_eq!(
            walk("cd - && cat a /x"),
            ["a read unplaced NoWorkingDirectory", "/x read root"]
        );
        assert_eq!(
            walk("pushd sub; popd; cat a"),
            ["sub read root", "a read unplaced NoWorkingDirectory"]
        );
        assert_eq!(walk("cd && cat a"), ["~ read root", "a read after ~"]);
        assert_eq!(
            walk("K=/etc/kube E= kubectl get"),
            ["/etc/kube read-write root", "get read-write root"]
        );
        assert_eq!(
            walk("env -C sub cat a"),
            ["sub read root", "a read after sub"]
        );
        assert_eq!(
            walk("env --chdir=/srv sudo -D/x cat a"),
            ["/srv read root", "/x read root", "a read after /srv,/x"]
        );
        let many = "cd a; ".repeat(MAX_CDS + 1);
        let seen = walk(&format!("{many}cat x"));
        assert_eq!(
            seen.last().map(String::as_str),
            Some("x read unplaced NoWorkingDirectory")
        );
    }
}
