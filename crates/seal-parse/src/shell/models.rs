//! Program models: how some programs read their own words (global options, where the
//! subcommand stands, long options and the unique prefixes the program accepts for them,
//! clustered short options, options after operands), so that a deny or ask rule can match what
//! the program will do however the command spells it (spec/shell-segments.md, "Program
//! models").
//!
//! [`model`] reads the words of one form (program first) into a [`Modelled`]: the program, its
//! subcommand, the set of options given (each spelt out in full, clusters split, abbreviations
//! expanded, global options removed) and the operands in order. Nothing is allocated: a command
//! with more options or operands than [`MAX_OPTIONS`] or [`MAX_OPERANDS`] keeps the first ones
//! and says so ([`Modelled::truncated`]).

mod options;
mod table;

use options::{is_global, read_option, takes_any_value};
use table::{Opt, PROGRAMS};

/// Options a [`Modelled`] keeps.
pub const MAX_OPTIONS: usize = 24;
/// Operands a [`Modelled`] keeps.
pub const MAX_OPERANDS: usize = 8;

/// One option given to a modelled program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelOption<'a> {
    /// A long option, by its full name without dashes (`force` for `-f`, `--for`, `--force`);
    /// for a long option the model does not know, the name as written (up to any `=`).
    Long(&'a str),
    /// A short option the model does not know, by its letter.
    Short(char),
}

/// The words of one command as its program reads them (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Modelled<'a> {
    program: &'static str,
    subcommand: [&'a str; 2],
    subcommand_words: usize,
    options: [ModelOption<'a>; MAX_OPTIONS],
    option_count: usize,
    operands: [&'a str; MAX_OPERANDS],
    operand_count: usize,
    truncated: bool,
    values: bool,
}

impl<'a> Modelled<'a> {
    /// The program (as the model names it).
    #[must_use]
    pub fn program(&self) -> &'static str {
        self.program
    }

    /// The subcommand words (`["reset"]`, `["worktree", "remove"]`), empty for a program
    /// without subcommands or a command that gives none.
    pub fn subcommand(&self) -> impl ExactSizeIterator<Item = &'a str> + Clone + '_ {
        self.subcommand.iter().copied().take(self.subcommand_words)
    }

    /// The options given, each once, in the order first given.
    pub fn options(&self) -> impl ExactSizeIterator<Item = ModelOption<'a>> + Clone + '_ {
        self.options.iter().copied().take(self.option_count)
    }

    /// Whether `option` was given.
    #[must_use]
    pub fn has(&self, option: ModelOption<'_>) -> bool {
        self.options().any(|given| same(given, option))
    }

    /// The operands, in order.
    pub fn operands(&self) -> impl ExactSizeIterator<Item = &'a str> + Clone + '_ {
        self.operands.iter().copied().take(self.operand_count)
    }

    /// Whether an option of the command took a value (`-m msg`, `--git-dir=x` among the
    /// global options): the model keeps options, not their values.
    #[must_use]
    pub fn took_values(&self) -> bool {
        self.values
    }

    /// Whether options or operands beyond the limits were dropped.
    #[must_use]
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    fn push_option(&mut self, option: ModelOption<'a>) {
        if self.has(option) {
            return;
        }
        match self.options.get_mut(self.option_count) {
            Some(slot) => {
                *slot = option;
                self.option_count += 1;
            }
            None => self.truncated = true,
        }
    }

    fn push_operand(&mut self, word: &'a str) {
        match self.operands.get_mut(self.operand_count) {
            Some(slot) => {
                *slot = word;
                self.operand_count += 1;
            }
            None => self.truncated = true,
        }
    }
}

fn same(a: ModelOption<'_>, b: ModelOption<'_>) -> bool {
    match (a, b) {
        (ModelOption::Long(a), ModelOption::Long(b)) => a == b,
        (ModelOption::Short(a), ModelOption::Short(b)) => a == b,
        _ => false,
    }
}

/// The names under which `program` (a name as written, e.g. `git`) is modelled: every name of
/// its model, the given one included, or none when it has no model. A form is read by the
/// model only when its program is one of these names.
#[must_use]
pub fn model_names(program: &str) -> &'static [&'static str] {
    PROGRAMS
        .iter()
        .find(|entry| entry.names.contains(&program))
        .map_or(&[], |entry| entry.names)
}

/// Reads `words` (a form: program first) with the program's model, if the program has one.
/// The program is compared as written (a form's basename is already reduced).
pub fn model<'a, I>(words: I) -> Option<Modelled<'a>>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut words = words.into_iter();
    let program = words.next()?;
    let entry = PROGRAMS
        .iter()
        .find(|entry| entry.names.contains(&program))?;
    let mut out = Modelled {
        program: model_name(entry.names),
        subcommand: [""; 2],
        subcommand_words: 0,
        options: [ModelOption::Short(' '); MAX_OPTIONS],
        option_count: 0,
        operands: [""; MAX_OPERANDS],
        operand_count: 0,
        truncated: false,
        values: false,
    };
    let mut words = words.peekable();
    // Global options, before the subcommand.
    let mut options: &[Opt] = entry.options;
    let mut operand_options: &[(char, &str)] = &[];
    if !entry.subcommands.is_empty() {
        while let Some(&word) = words.peek() {
            if word == "--" {
                words.next();
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            words.next();
            // A global option the model does not know: the program refuses it, or reads it
            // in a way the model cannot tell; no model.
            if !is_global(entry.globals, word) {
                return None;
            }
            let takes_value = read_option(entry.globals, word, &mut |_| {});
            if takes_value {
                words.next();
            }
            out.values |= takes_value || takes_any_value(entry.globals, word);
        }
        let Some(first) = words.next() else {
            return Some(out);
        };
        out.subcommand[0] = first;
        out.subcommand_words = 1;
        options = &[];
        if let Some(sub) = entry.subcommands.iter().find(|sub| sub.name == first) {
            options = sub.options;
            operand_options = sub.operand_options;
            if !sub.subcommands.is_empty() {
                if let Some(&second) = words.peek() {
                    if sub.subcommands.contains(&second) {
                        words.next();
                        out.subcommand[1] = second;
                        out.subcommand_words = 2;
                    }
                }
            }
        }
    }
    let mut operands_only = false;
    let mut operand_at = 0usize;
    while let Some(word) = words.next() {
        if operands_only || !word.starts_with('-') || word == "-" {
            if operand_at > 0 {
                for (first, name) in operand_options {
                    if word.starts_with(*first) {
                        out.push_option(ModelOption::Long(name));
                    }
                }
            }
            operand_at += 1;
            out.push_operand(word);
            continue;
        }
        if word == "--" {
            operands_only = true;
            continue;
        }
        let takes_value = read_option(options, word, &mut |option| out.push_option(option));
        if takes_value {
            words.next();
        }
        out.values |= takes_value || takes_any_value(options, word);
    }
    Some(out)
}

/// The model's name for a program: the first of its names. `entry` was found by one of its
/// names, so the list is not empty and the fallback is never taken.
fn model_name(names: &'static [&'static str]) -> &'static str {
    debug_assert!(!names.is_empty(), "a model entry found by name has a name");
    names.first().copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(command: &str) -> (String, Vec<String>, Vec<String>) {
        let modelled = model(command.split(' ')).expect("modelled");
        let sub: Vec<&str> = modelled.subcommand().collect();
        let options = modelled
            .options()
            .map(|o| match o {
                ModelOption::Long(name) => format!("--{name}"),
                ModelOption::Short(letter) => format!("-{letter}"),
            })
            .collect();
        let operands = modelled.operands().map(str::to_owned).collect();
        (sub.join(" "), options, operands)
    }

    #[test]
    fn git_global_options_abbreviations_and_clusters() {
        for command in [
            "git reset --hard",
            "git -C repo reset --hard",
            "git -Crepo reset --ha",
            "git --git-dir=.git --work-tree . reset --hard",
            "git --no-pager -c k=v reset --har",
            "git -- reset --hard",
        ] {
            assert_eq!(read(command).0, "reset", "{command}");
            assert_eq!(read(command).1, ["--hard"], "{command}");
        }
        assert_eq!(read("git checkout -qf main").1, ["--quiet", "--force"]);
        assert_eq!(
            read("git branch -Dv x").1,
            ["--delete", "--force", "--verbose"]
        );
        assert_eq!(read("git branch --del --forc x").1, ["--delete", "--force"]);
        let (sub, options, operands) = read("git worktree remove -f /tmp/wt");
        assert_eq!(
            (sub.as_str(), options, operands),
            (
                "worktree remove",
                vec!["--force".to_owned()],
                vec!["/tmp/wt".to_owned()]
            )
        );
        let (_, options, operands) = read("git push origin main --force");
        assert_eq!(
            (options, operands),
            (
                vec!["--force".to_owned()],
                vec!["origin".to_owned(), "main".to_owned()]
            )
        );
        // An ambiguous prefix reads as every option it could be.
        assert_eq!(
            read("git push --fo").1,
            [
                "--force",
                "--force-with-lease",
                "--force-if-includes",
                "--follow-tags"
            ]
        );
        // A value is not an operand.
        assert_eq!(read("git checkout -b topic main").2, ["main"]);
        assert_eq!(read("git checkout -- a.txt").2, ["a.txt"]);
    }

    #[test]
    fn rm_clusters_long_options_and_order() {
        let others = ["rm --rec --for /", "rm -Rf /"];
        for command in seal_test_support::spellings::RM_RF_ROOT
            .into_iter()
            .chain(others)
        {
            let (_, options, operands) = read(command);
            assert!(
                options.contains(&"--recursive".to_owned())
                    && options.contains(&"--force".to_owned()),
                "{command}: {options:?}"
            );
            assert_eq!(operands, ["/"], "{command}");
        }
        assert_eq!(read("rm -- -rf").2, ["-rf"]);
    }

    #[test]
    fn unknown_global_options_leave_git_unmodelled() {
        for command in ["git -rf", "git --frobnicate reset --hard", "git -x reset"] {
            assert!(model(command.split(' ')).is_none(), "{command}");
        }
        assert!(model("git --no-p reset --hard".split(' ')).is_some());
        assert_eq!(
            read("git --no-lazy-fetch --attr-source HEAD reset --hard").1,
            ["--hard"]
        );
    }

    #[test]
    fn unmodelled_programs_and_limits() {
        assert!(model("ls -la".split(' ')).is_none());
        let many: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let words = std::iter::once("rm").chain(many.iter().map(String::as_str));
        let modelled = model(words).unwrap();
        assert_eq!(modelled.operands().len(), MAX_OPERANDS);
        assert!(modelled.truncated());
    }
}
