//! Deny and ask rules read through program models: a command rule naming a modelled program
//! (`Bash(git reset --hard:*)`, `Bash(rm -rf:*)`) also matches a form whose words the program
//! reads the same way, whatever the spelling: global options removed, clusters split, long
//! options abbreviated, options in any order and after operands (spec/policy-rules.md,
//! section 4, step 2).

use seal_parse::shell::{model, Form, ModelOption, Modelled};

use super::CommandPattern;

/// A command pattern read with its program's model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RuleModel {
    program: &'static str,
    subcommand: Vec<String>,
    options: Vec<Owned>,
    /// A last word `--name*`: any long option whose full name starts with `name`.
    option_prefix: Option<String>,
    operands: Vec<String>,
    /// Further operands may follow the pattern's.
    prefix: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Owned {
    Long(String),
    Short(char),
}

impl RuleModel {
    /// The model of `pattern`, when its program is modelled and its words can be read by the
    /// model (no `*` but a trailing `--name*`).
    pub(super) fn of(pattern: &CommandPattern) -> Option<RuleModel> {
        let words = pattern.words();
        let (last, rest) = words.split_last()?;
        let mut prefix = pattern.is_prefix();
        let mut option_prefix = None;
        let mut literal: Vec<&str> = rest.iter().map(String::as_str).collect();
        match last.strip_suffix('*') {
            Some(stem) if stem.starts_with("--") && !stem.contains('*') && !prefix => {
                option_prefix = Some(stem.trim_start_matches('-').to_owned());
                prefix = true;
            }
            Some(_) => return None,
            None => literal.push(last),
        }
        if literal.iter().any(|word| word.contains('*')) {
            return None;
        }
        let modelled = model(literal.iter().copied())?;
        // The model keeps options, not their values: a rule naming a value
        // (`git commit -m "msg"`) is matched as written only.
        if modelled.truncated() || modelled.took_values() {
            return None;
        }
        if option_prefix.is_some() && modelled.subcommand().len() == 0 && literal.len() == 1 {
            // `git --force*`: nothing but the program; the model adds nothing.
            return None;
        }
        Some(RuleModel {
            program: modelled.program(),
            subcommand: modelled.subcommand().map(str::to_owned).collect(),
            options: modelled
                .options()
                .map(|option| match option {
                    ModelOption::Long(name) => Owned::Long(name.to_owned()),
                    ModelOption::Short(letter) => Owned::Short(letter),
                })
                .collect(),
            option_prefix,
            operands: modelled.operands().map(str::to_owned).collect(),
            prefix,
        })
    }

    /// Whether the command `modelled` is what the pattern names: the same program and
    /// subcommand (a pattern without a subcommand covers them all), every option of the
    /// pattern given in any order (among others for a prefix pattern, and no other for an
    /// exact one), and the pattern's operands first (and no others, for an exact pattern).
    /// A command cut at the model's limits ([`Modelled::truncated`]) may hold any option or
    /// operand beyond them: it matches once its program, subcommand and the operands it shows
    /// agree, since a rule read by a model is a deny or ask rule and must not be passed by
    /// padding a command with options.
    pub(super) fn matches(&self, modelled: &Modelled<'_>) -> bool {
        if modelled.program() != self.program {
            return false;
        }
        let same_subcommand = modelled
            .subcommand()
            .eq(self.subcommand.iter().map(String::as_str));
        // A prefix pattern without a subcommand (`git:*`) covers every subcommand.
        if !(same_subcommand || self.prefix && self.subcommand.is_empty()) {
            return false;
        }
        let cut = modelled.truncated();
        let given = cut
            || self.options.iter().all(|option| {
                modelled.has(match option {
                    Owned::Long(name) => ModelOption::Long(name),
                    Owned::Short(letter) => ModelOption::Short(*letter),
                })
            });
        // A pattern that is not a prefix names its options exactly: no other may be given.
        let exact = self.prefix || cut || modelled.options().len() == self.options.len();
        if !given || !exact {
            return false;
        }
        if let Some(stem) = self.option_prefix.as_ref().filter(|_| !cut) {
            let any = modelled
                .options()
                .any(|option| matches!(option, ModelOption::Long(name) if name.starts_with(stem.as_str())));
            if !any {
                return false;
            }
        }
        let mut operands = modelled.operands();
        for want in &self.operands {
            if operands.next() != Some(want.as_str()) {
                return false;
            }
        }
        // A command cut at the model's limits may hold more operands than it shows.
        self.prefix || cut || operands.next().is_none()
    }
}

/// The model of a form, when its program has one.
pub(super) fn model_of<'a>(form: &Form<'a>) -> Option<Modelled<'a>> {
    model(form.words())
}
