//! How the patterns read the words of one form: the subcommand, the options and the operands,
//! through the program's model where there is one and plainly otherwise, and the words of a
//! `find` command.

use seal_parse::shell::{model, model_names, ModelOption};

use super::Pattern;

/// Whether `pattern` names `program` (ASCII case ignored; a name ending in `.` is a prefix).
pub(super) fn names(pattern: &Pattern, program: &str) -> bool {
    pattern
        .programs
        .iter()
        .any(|name| match name.strip_suffix('.') {
            Some(_) => program
                .get(..name.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(name)),
            None => program.eq_ignore_ascii_case(name),
        })
}

/// The words of one command as the patterns read them.
#[derive(Debug)]
pub(super) struct Reading<'a> {
    /// The subcommand words, as the program's model reads them (empty when unmodelled).
    pub(super) subcommand: Vec<&'a str>,
    /// Where the (first) subcommand word stands in the command's words.
    pub(super) subcommand_at: Option<usize>,
    /// The options given, as the program models give them: a modelled program's from its
    /// model; for a program read plainly, `--name[=value]` as the long option `name`, a find
    /// primary whole (`-delete`, dash kept) as a long option, `-abc` as the short options.
    options: Vec<ModelOption<'a>>,
    /// Whether the options are a modelled program's (long names spelt out in full).
    modelled: bool,
    /// The operands: the model's (at most as many as it keeps), or every plain operand.
    pub(super) operands: Vec<&'a str>,
    /// The words that are not options (every operand, however many).
    pub(super) paths: Vec<&'a str>,
    /// Whether the model dropped options or operands beyond its limits.
    pub(super) truncated: bool,
}

impl<'a> Reading<'a> {
    /// The words after `program` read for the patterns.
    pub(super) fn of(program: &'a str, rest: &[&'a str]) -> Reading<'a> {
        let paths = plain_operands(rest);
        // A modelled program, by the model's own name when the case differs.
        let name = model_names(program).first().copied().or_else(|| {
            ["git", "rm"]
                .into_iter()
                .find(|name| program.eq_ignore_ascii_case(name))
        });
        if let Some(modelled) =
            name.and_then(|name| model(std::iter::once(name).chain(rest.iter().copied())))
        {
            let subcommand: Vec<&str> = modelled.subcommand().collect();
            let subcommand_at = subcommand
                .first()
                .and_then(|first| rest.iter().position(|word| word == first))
                .map(|at| at + 1);
            debug_assert!(
                subcommand.is_empty() || subcommand_at.is_some(),
                "a model's subcommand is one of the words after the program"
            );
            return Reading {
                subcommand,
                subcommand_at,
                options: modelled.options().collect(),
                modelled: true,
                operands: modelled.operands().collect(),
                paths,
                truncated: modelled.truncated(),
            };
        }
        let mut options = Vec::new();
        let mut operands = Vec::new();
        let mut only_operands = false;
        for word in rest {
            if only_operands || !word.starts_with('-') || *word == "-" {
                operands.push(*word);
            } else if *word == "--" {
                only_operands = true;
            } else if let Some(long) = word.strip_prefix("--") {
                // `--name=value` names the option `name`, `--name` names it whole.
                options.push(ModelOption::Long(
                    long.split_once('=').map_or(long, |(name, _)| name),
                ));
            } else if program.eq_ignore_ascii_case("find") {
                // find's primaries are whole words.
                options.push(ModelOption::Long(word));
            } else {
                options.extend(word.chars().skip(1).map(ModelOption::Short));
            }
        }
        Reading {
            subcommand: Vec::new(),
            subcommand_at: None,
            options,
            modelled: false,
            operands,
            paths,
            truncated: false,
        }
    }

    /// Whether the option `spec` (`--name`, `-x`, `--name=value`, or a find primary) is given.
    pub(super) fn has(&self, spec: &str, words: &[&str]) -> bool {
        if let Some((name, value)) = spec.strip_prefix("--").and_then(|s| s.split_once('=')) {
            // An option with a value: read from the words (`--prune=now`, `--pru=now`).
            return words.iter().any(|word| {
                word.strip_prefix("--")
                    .and_then(|w| w.split_once('='))
                    .is_some_and(|(n, v)| !n.is_empty() && name.starts_with(n) && v == value)
            });
        }
        if let Some(primary) = spec
            .strip_prefix('-')
            .filter(|p| p.len() > 1 && !p.starts_with('-'))
        {
            // A find primary such as `-delete`.
            return self.options.iter().any(|given| match given {
                ModelOption::Long(word) => word.strip_prefix('-') == Some(primary),
                ModelOption::Short(_) => false,
            });
        }
        if let Some(name) = spec.strip_prefix("--") {
            return self.options.iter().any(|given| match given {
                ModelOption::Long(given) if self.modelled => *given == name,
                // Unmodelled programs accept unique prefixes of long options (GNU getopt).
                ModelOption::Long(given) => !given.is_empty() && name.starts_with(given),
                ModelOption::Short(_) => false,
            });
        }
        let Some(letter) = spec.strip_prefix('-').and_then(|s| s.chars().next()) else {
            // Every option of the table is `--name`, `--name=value`, `-x` or a find primary
            // (tested below); a spec that is none names no option given.
            debug_assert!(false, "the option `{spec}` of the table names no option");
            return false;
        };
        self.options.iter().any(|given| match given {
            ModelOption::Short(given) => *given == letter,
            // A short option a model reads into a one-letter name (`-b` of `git checkout`).
            ModelOption::Long(given) => {
                given.len() == letter.len_utf8() && given.starts_with(letter)
            }
        })
    }
}

/// The words that are not options: every word after `--`, and every word not starting with
/// `-` (or `-` alone).
fn plain_operands<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut only = false;
    for word in rest {
        if only || !word.starts_with('-') || *word == "-" {
            out.push(*word);
        } else if *word == "--" {
            only = true;
        }
    }
    out
}

/// A `find` command's starting points and the commands its `-exec` primaries run.
pub(super) struct FindWords<'a> {
    /// The starting points (`.` when none is given).
    pub(super) starts: Vec<&'a str>,
    /// The words of each `-exec`, `-execdir`, `-ok` and `-okdir` primary.
    pub(super) payloads: Vec<Vec<&'a str>>,
}

impl<'a> FindWords<'a> {
    /// The words after `find` read as its starting points and payloads.
    pub(super) fn of(rest: &[&'a str]) -> FindWords<'a> {
        let mut words = rest.iter().copied().peekable();
        // Leading options: -H, -L, -P, -D debugopts, -Olevel.
        while let Some(word) = words.peek().copied() {
            match word {
                "-H" | "-L" | "-P" => {
                    words.next();
                }
                "-D" => {
                    words.next();
                    words.next();
                }
                w if w.starts_with("-O") => {
                    words.next();
                }
                _ => break,
            }
        }
        let mut starts = Vec::new();
        while let Some(word) = words.peek().copied() {
            if word.starts_with('-') || word == "(" || word == "!" {
                break;
            }
            starts.push(word);
            words.next();
        }
        if starts.is_empty() {
            starts.push(".");
        }
        let mut payloads = Vec::new();
        while let Some(word) = words.next() {
            if matches!(word, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let payload: Vec<&str> = words
                    .by_ref()
                    .take_while(|word| *word != ";" && *word != "+")
                    .collect();
                payloads.push(payload);
            }
        }
        FindWords { starts, payloads }
    }
}

#[cfg(test)]
mod tests {
    use crate::destructive::PATTERNS;

    /// Every option of the table is one [`super::Reading::has`] reads: `--name`,
    /// `--name=value`, `-x` or a find primary (`-delete`).
    #[test]
    fn every_option_of_the_table_names_an_option() {
        for pattern in PATTERNS {
            let specs = pattern
                .any_option
                .iter()
                .chain(pattern.all_options)
                .chain(pattern.no_option);
            for spec in specs {
                let name = spec.strip_prefix("--").or_else(|| spec.strip_prefix('-'));
                assert!(
                    name.is_some_and(|name| !name.is_empty() && !name.starts_with(['-', '='])),
                    "`{spec}` of `{}`",
                    pattern.id
                );
            }
        }
    }
}
