//! The reading of a segment against the table of read-only commands: its program and fixed
//! words, then each option and operand of the entry.

use seal_parse::shell::SegmentRef;

use super::plain::plain_segment;
use super::table::{Operands, Opt, Program, PROGRAMS};
use super::{literal, number};

/// Whether `segment` is a read-only command of the table, its path operands inside the
/// workspace rooted at `root`. Each path operand read on the way goes to `path` (also when
/// the segment turns out not to be read-only further on), so that Read rules can be checked
/// against what the command reads.
pub(in crate::rules) fn read_only<'a>(
    segment: &SegmentRef<'a>,
    root: &dyn Fn(&str) -> bool,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    if !plain_segment(segment) {
        return false;
    }
    let first = segment.assignments();
    let Some(program) = segment.words().nth(first) else {
        return false;
    };
    PROGRAMS
        .iter()
        .filter(|entry| entry.words.first() == Some(&program))
        .any(|entry| {
            let mut args = segment.words().enumerate().skip(first + 1);
            for fixed in entry.words.iter().skip(1) {
                match args.next() {
                    Some((_, word)) if word == *fixed => {}
                    _ => return false,
                }
            }
            read_args(segment, entry, args, root, path)
        })
}

/// Reads the words after a program's fixed words: options of the entry anywhere, operands of
/// its kind. `false` as soon as a word is not of the entry.
fn read_args<'a>(
    segment: &SegmentRef<'a>,
    entry: &Program,
    mut args: impl Iterator<Item = (usize, &'a str)>,
    root: &dyn Fn(&str) -> bool,
    path: &mut dyn FnMut(&'a str),
) -> bool {
    let mut operands = 0usize;
    let mut find_predicates = false;
    while let Some((at, word)) = args.next() {
        if segment.word_expands(at) && !home_path(word) {
            return false;
        }
        if let Operands::Text = entry.operands {
            // Printed, never read as a file or an option that acts.
            continue;
        }
        if !literal(word) {
            return false;
        }
        match entry.operands {
            Operands::Find => {
                if find_predicates || word.starts_with('-') {
                    find_predicates = true;
                    let Some((value_at, value)) = args.next() else {
                        return false;
                    };
                    if segment.word_expands(value_at) || !literal(value) {
                        return false;
                    }
                    let fits = match word {
                        "-name" | "-iname" => true,
                        "-newer" if inside_workspace(value, root) => {
                            path(value);
                            true
                        }
                        "-type" => matches!(value, "f" | "d"),
                        "-maxdepth" | "-mindepth" => number(value),
                        _ => false,
                    };
                    if !fits {
                        return false;
                    }
                } else if inside_workspace(word, root) {
                    path(word);
                } else {
                    return false;
                }
                continue;
            }
            Operands::Test => {
                let fits = match operands {
                    0 => matches!(word, "-f" | "-d" | "-e"),
                    1 if inside_workspace(word, root) => {
                        path(word);
                        true
                    }
                    _ => false,
                };
                if !fits {
                    return false;
                }
                operands += 1;
                continue;
            }
            _ => {}
        }
        if word.len() > 1 && word.starts_with('-') {
            let Some(takes_value) = option(entry.options, word) else {
                return false;
            };
            if let Some(kind) = takes_value {
                let Some((value_at, value)) = args.next() else {
                    return false;
                };
                let fits = match kind {
                    Value::Number => number(value),
                    Value::Word => true,
                };
                if segment.word_expands(value_at) || !literal(value) || !fits {
                    return false;
                }
            }
            continue;
        }
        let fits = match entry.operands {
            Operands::Nothing => false,
            Operands::Paths => inside_workspace(word, root),
            Operands::Words => true,
            Operands::Numbers => number(word),
            Operands::Format => word.starts_with('+'),
            Operands::PatternThenPaths => operands == 0 || inside_workspace(word, root),
            Operands::SedPrint => {
                if operands == 0 {
                    sed_print(word)
                } else {
                    inside_workspace(word, root)
                }
            }
            Operands::Text | Operands::Find | Operands::Test => false,
        };
        if !fits {
            return false;
        }
        let is_path = match entry.operands {
            Operands::Paths => true,
            Operands::PatternThenPaths | Operands::SedPrint => operands > 0,
            _ => false,
        };
        if is_path {
            path(word);
        }
        operands += 1;
    }
    match entry.operands {
        Operands::SedPrint => operands > 0,
        Operands::Test => operands == 2,
        _ => true,
    }
}

/// What follows an option that takes a value.
#[derive(Clone, Copy)]
enum Value {
    Number,
    Word,
}

/// Whether `word` is one of `options`: `None` if not, else whether a separate value follows.
fn option(options: &[Opt], word: &str) -> Option<Option<Value>> {
    options.iter().find_map(|option| match option {
        Opt::Word(exact) => (word == *exact).then_some(None),
        Opt::Letters(letters) => {
            let rest = word.strip_prefix('-')?;
            (!rest.is_empty()
                && !rest.starts_with('-')
                && rest.chars().all(|c| letters.contains(c)))
            .then_some(None)
        }
        Opt::Number(flag) => match word.strip_prefix(flag) {
            Some("") => Some(Some(Value::Number)),
            Some(joined) if number(joined) => Some(None),
            _ => None,
        },
        Opt::DashNumber => word.strip_prefix('-').filter(|n| number(n)).map(|_| None),
        Opt::Value(flag) => match word.strip_prefix(flag) {
            Some("") => Some(Some(Value::Word)),
            Some(_) => Some(None),
            None => None,
        },
    })
}

/// `N p` or `N,M p`: a script that prints lines and nothing else.
fn sed_print(script: &str) -> bool {
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    match range.split_once(',') {
        Some((from, to)) => number(from) && number(to),
        None => number(range),
    }
}

/// A path the read-only table may read: no `..` component, not starting with `-`, and
/// `reach` says it may be read (inside the workspace or a directory the operator added, or
/// covered by a `Read` allow rule, as Claude Code lets its read-only commands read there).
fn inside_workspace(word: &str, reach: &dyn Fn(&str) -> bool) -> bool {
    !(word.is_empty() || word.starts_with('-') || word.split('/').any(|part| part == ".."))
        && reach(word)
}

/// `~/...` with no other character the shell expands: the home directory's path, which the
/// resolver reads as the shell does.
fn home_path(word: &str) -> bool {
    word.strip_prefix('~')
        .is_some_and(|rest| rest.starts_with('/') && !rest.contains(['~', '*', '?', '[', ']', '^']))
}
