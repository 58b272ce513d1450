//! Paths in tool calls: which words of a command name files and how the program uses them
//! ([`form_paths`], [`command_paths`]), the one lexical resolver that places a path against
//! the workspace root, the directories the operator added and the home directory
//! ([`Places`]), and the lexical normalizer ([`Lexical`], the one of seal, shared with the
//! manifest's canonical paths). The rules (allows stop at the
//! workspace; `Read` and `Edit` rules on every path a command reads or writes), the guards
//! and the explanation all read paths through this module (spec/paths.md).

mod access;
mod command;
mod resolve;

pub use access::{form_paths, Access, MAX_PATH_WORDS};
pub use command::{command_paths, CommandPath, ReadPlace, MAX_CDS};
pub use resolve::{Cwd, Places, Unplaced, Whereabouts, MAX_ADDED_DIRS, MAX_PATH_COMPONENTS};
pub use seal_record::{AboveRoot, ClimbsAboveRoot, ComponentStack, Lexical};
