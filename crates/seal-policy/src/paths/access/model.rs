//! The shape of one program's path model: its names, the options that take a value and what
//! each value is, and what its operands are.

use super::Access;

/// One program's path model.
pub(super) struct Model {
    /// Its names, as the form's program word (a basename) spells them.
    pub(super) names: &'static [&'static str],
    /// Options that take a value, and what the value is.
    pub(super) options: &'static [(&'static str, Value)],
    /// What its operands are.
    pub(super) operands: Operands,
}

/// What an option's value is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// Not a file.
    Other,
    /// A file, used so.
    Path(Access),
    /// A file if it starts with `@` (curl's `-d @FILE`), used so; else not a file.
    AtPath(Access),
    /// A pattern or script given as an option (`grep -e`): the first operand is then a file.
    Pattern,
    /// A file holding the pattern or script (`grep -f`): read, and the first operand is a file.
    PatternFile,
    /// Two values, neither a file (`jq --arg NAME VALUE`).
    TwoOthers,
    /// A name then a file read (`jq --slurpfile NAME FILE`).
    NameThenFile,
    /// The directory the operands go to (`cp -t DIR`): written; every operand is then read.
    Target,
    /// The option makes every operand written as well as read (`sed -i`).
    InPlace,
}

/// What a modelled program's operands are.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// None is a file (`echo`, `basename`).
    None,
    /// Every operand, used so.
    All(Access),
    /// The first operand is a pattern or script (unless an option gave one), the rest read.
    PatternThenRead,
    /// Sources read, the last operand written (`cp SRC... DEST`).
    SourcesThenTarget,
    /// The first operand read, a second one written (`uniq IN OUT`, `xxd IN OUT`).
    InThenOut,
    /// `dd`: `if=FILE` read, `of=FILE` written.
    Dd,
    /// `find`: starting points read (written with `-delete`), then predicates.
    Find,
}

/// A model, in the table's short form.
pub(super) const fn model(
    names: &'static [&'static str],
    options: &'static [(&'static str, Value)],
    operands: Operands,
) -> Model {
    Model {
        names,
        options,
        operands,
    }
}
