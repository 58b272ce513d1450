//! The option reader of program models: how one option word (long, abbreviated, clustered,
//! with a joined value) reads against a model's option table.

use super::table::{Opt, Value};
use super::ModelOption;

/// Whether `word` spells a global option of the table (exactly, as a unique or ambiguous
/// prefix of a long one, or as a cluster of known letters).
pub(super) fn is_global(globals: &[Opt], word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split_once('=').map_or(long, |(name, _)| name);
        return !name.is_empty()
            && globals
                .iter()
                .any(|o| o.long.is_some_and(|l| l.starts_with(name)));
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    for letter in cluster.chars() {
        match globals.iter().find(|o| o.short == Some(letter)) {
            Some(option) if option.value == Value::Required => return true,
            Some(_) => {}
            None => return false,
        }
    }
    !cluster.is_empty()
}

/// Whether `word` holds a value joined to an option (`--name=value`, `-Cdir`).
pub(super) fn takes_any_value(options: &[Opt], word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        return long.contains('=');
    }
    // Not an option word: no value joined to it.
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    cluster.char_indices().any(|(at, letter)| {
        options
            .iter()
            .any(|o| o.short == Some(letter) && o.value == Value::Required)
            && cluster.len() > at + letter.len_utf8()
    })
}

/// Reads one option word against `options`, giving each option it sets to `set`; whether the
/// next word is the option's value.
pub(super) fn read_option<'a>(
    options: &[Opt],
    word: &'a str,
    set: &mut dyn FnMut(ModelOption<'a>),
) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let (name, joined) = match long.split_once('=') {
            Some((name, _)) => (name, true),
            None => (long, false),
        };
        let exact = options.iter().find(|o| o.long == Some(name));
        if let Some(option) = exact {
            for set_name in option.sets {
                set(ModelOption::Long(set_name));
            }
            return option.value == Value::Required && !joined;
        }
        // A unique prefix is the option; an ambiguous one (which the program refuses) is
        // read as every option it could be, so that a deny can only fire more often.
        let mut matched = false;
        let mut value = false;
        for option in options
            .iter()
            .filter(|o| !name.is_empty() && o.long.is_some_and(|l| l.starts_with(name)))
        {
            matched = true;
            value |= option.value == Value::Required;
            for set_name in option.sets {
                set(ModelOption::Long(set_name));
            }
        }
        if !matched {
            set(ModelOption::Long(name));
        }
        return value && !joined;
    }
    let Some(cluster) = word.strip_prefix('-') else {
        return false;
    };
    for (at, letter) in cluster.char_indices() {
        match options.iter().find(|o| o.short == Some(letter)) {
            Some(option) => {
                for set_name in option.sets {
                    set(ModelOption::Long(set_name));
                }
                if option.value == Value::Required {
                    // The rest of the word is the value, or the next word is.
                    return cluster.len() == at + letter.len_utf8();
                }
            }
            None => set(ModelOption::Short(letter)),
        }
    }
    false
}
