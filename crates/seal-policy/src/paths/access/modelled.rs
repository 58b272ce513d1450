//! The reading of a modelled program's words: its options (and the values they take), then its
//! operands, each given with how the program uses it.

use super::find::find;
use super::model::{Model, Operands, Value};
use super::Access::{self, Both, Read, Write};
use super::{generic, path_value, MAX_PATH_WORDS};
use Value::{AtPath, NameThenFile, Other, Path, Pattern, PatternFile, Target, TwoOthers};

/// Reads the words after a modelled program.
pub(super) fn modelled<'a, I>(model: &Model, words: I, found: &mut dyn FnMut(&'a str, Access))
where
    I: Iterator<Item = &'a str> + Clone,
{
    match model.operands {
        Operands::Dd => {
            for word in words.take(MAX_PATH_WORDS) {
                if let Some(file) = word.strip_prefix("if=") {
                    path_value(file, Read, found);
                } else if let Some(file) = word.strip_prefix("of=") {
                    path_value(file, Write, found);
                }
            }
            return;
        }
        Operands::Find => return find(words, found),
        _ => {}
    }
    let mut state = OptionState::default();
    let mut first: Option<&'a str> = None;
    let mut count = 0usize;
    let mut last: Option<&'a str> = None;
    let mut options = true;
    let mut words = words.take(MAX_PATH_WORDS);
    while let Some(word) = words.next() {
        // Standard input (`-`) and empty words name no file.
        if word.is_empty() || word == "-" {
            continue;
        }
        if options && word == "--" {
            options = false;
            continue;
        }
        if options && word.starts_with('-') {
            read_option(model, word, &mut words, &mut state, found);
            continue;
        }
        // Operands are given as they are met, except the ones whose use depends on what comes
        // after them (the first of a pattern program, the last of a copy).
        match model.operands {
            Operands::None => {}
            Operands::All(access) => found(word, with_in_place(access, &state)),
            Operands::PatternThenRead => {
                if count == 0 {
                    first = Some(word);
                } else {
                    found(word, with_in_place(Read, &state));
                }
            }
            Operands::SourcesThenTarget => {
                if let Some(previous) = last.replace(word) {
                    found(previous, Read);
                }
            }
            Operands::InThenOut => {
                match count {
                    0 => found(word, Read),
                    1 => found(word, Write),
                    // More than the program takes: read both ways.
                    _ => found(word, Both),
                }
            }
            Operands::Dd | Operands::Find => {}
        }
        count += 1;
    }
    // Words beyond the limit: read as a program without a model reads them.
    generic(words, found);
    match model.operands {
        // A pattern given by an option: the first operand was a file too.
        Operands::PatternThenRead if state.pattern_given => {
            if let Some(first) = first {
                found(first, with_in_place(Read, &state));
            }
        }
        Operands::SourcesThenTarget => {
            if let Some(last) = last {
                found(last, if state.target { Read } else { Write });
            }
        }
        _ => {}
    }
}

/// What the options met so far change.
#[derive(Default)]
struct OptionState {
    /// A pattern or script was given as an option: the first operand is a file.
    pattern_given: bool,
    /// The files are edited in place.
    in_place: bool,
    /// A target directory was given as an option: every operand is a source.
    target: bool,
}

fn with_in_place(access: Access, state: &OptionState) -> Access {
    if state.in_place && access == Read {
        Both
    } else {
        access
    }
}

/// Reads one option word (and the value words it takes).
fn read_option<'a>(
    model: &Model,
    word: &'a str,
    rest: &mut dyn Iterator<Item = &'a str>,
    state: &mut OptionState,
    found: &mut dyn FnMut(&'a str, Access),
) {
    if word.starts_with("--") {
        let (name, attached) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (word, None),
        };
        match lookup(model, name) {
            Some(kind) => take_value(kind, attached, rest, state, found),
            // An option the model does not know: a value after `=` may still name a file.
            None => {
                if let Some(value) = attached {
                    path_value(value, Both, found);
                }
            }
        }
        return;
    }
    // A cluster of short options: the first that takes a value takes the rest of the word
    // (or the next word).
    for (at, letter) in word.char_indices().skip(1) {
        let end = at + letter.len_utf8();
        let Some(kind) = lookup_short(model, letter) else {
            continue;
        };
        let attached = word.get(end..).filter(|rest| !rest.is_empty());
        take_value(kind, attached, rest, state, found);
        return;
    }
}

/// The value kind of a long option (`--name`) or a whole short option word (`-x`).
fn lookup(model: &Model, name: &str) -> Option<Value> {
    let exact = model.options.iter().find(|(option, _)| *option == name);
    // GNU programs accept a unique prefix of a long option's name (`--out` for `--output`):
    // a prefix of any listed name is read as the first such option.
    let prefix = || {
        (name.len() > 2)
            .then(|| {
                model
                    .options
                    .iter()
                    .find(|(option, _)| option.starts_with(name))
            })
            .flatten()
    };
    exact.or_else(prefix).map(|(_, kind)| *kind)
}

fn lookup_short(model: &Model, letter: char) -> Option<Value> {
    model.options.iter().find_map(|(option, kind)| {
        let mut chars = option.chars();
        (chars.next() == Some('-') && chars.next() == Some(letter) && chars.next().is_none())
            .then_some(*kind)
    })
}

fn take_value<'a>(
    kind: Value,
    attached: Option<&'a str>,
    rest: &mut dyn Iterator<Item = &'a str>,
    state: &mut OptionState,
    found: &mut dyn FnMut(&'a str, Access),
) {
    // `sed -i` takes no separate value (a suffix is attached); the others take the next word
    // when none is attached.
    if kind == Value::InPlace {
        state.in_place = true;
        return;
    }
    let Some(value) = attached.or_else(|| rest.next()) else {
        return;
    };
    match kind {
        Other => {}
        Path(access) => path_value(value, access, found),
        AtPath(access) => {
            // `@file`, `name@file` (`--data-urlencode`), `name=@file` and `name=<file`
            // (`-F`): the part after the first `@` or `=<` (text with an `@` in it is read as
            // a file too, which can only add a check).
            let file = value
                .split_once('@')
                .or_else(|| value.split_once("=<"))
                .map(|(_, file)| file);
            if let Some(file) = file {
                path_value(file, access, found);
            }
        }
        Pattern => state.pattern_given = true,
        PatternFile => {
            state.pattern_given = true;
            path_value(value, Read, found);
        }
        TwoOthers => {
            rest.next();
        }
        NameThenFile => {
            if let Some(file) = rest.next() {
                path_value(file, Read, found);
            }
        }
        Target => {
            state.target = true;
            path_value(value, Write, found);
        }
        Value::InPlace => {}
    }
}
