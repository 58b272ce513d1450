//! One name per type, at every layer: no two crates of the workspace define a public type of the
//! same name, unless the facade's type wraps the core's (each such pair is listed in
//! [`FACADE_WRAPPERS`], and the facade file must name the core type it wraps), and no crate
//! re-exports a type under another name (`pub use .. as`).
//!
//! The reading is textual: every `.rs` file under `src/` and `crates/*/src/`, each line that
//! starts a `pub struct`, `pub enum`, `pub trait` or `pub type` (restricted visibility such as
//! `pub(crate)` does not count), items of `#[cfg(test)]` modules left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A facade type that wraps a core type of the same name: the name, the facade file that
/// defines it, and the core type's path.
struct Wrapper {
    name: &'static str,
    facade_file: &'static str,
    core_path: &'static str,
}

/// Every facade type that may share its name with a core type, because it wraps that type.
const FACADE_WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "Answer",
        facade_file: "src/approval.rs",
        core_path: "seal_policy::approval::Answer",
    },
    Wrapper {
        name: "Answerer",
        facade_file: "src/approval.rs",
        core_path: "seal_policy::approval::Answerer",
    },
    Wrapper {
        name: "Question",
        facade_file: "src/approval.rs",
        core_path: "seal_policy::approval::Question",
    },
    Wrapper {
        name: "Manifest",
        facade_file: "src/disclosure.rs",
        core_path: "seal_record::Manifest",
    },
    Wrapper {
        name: "ManifestBuilder",
        facade_file: "src/disclosure.rs",
        core_path: "seal_record::ManifestBuilder",
    },
    Wrapper {
        name: "Prepared",
        facade_file: "src/dispatch.rs",
        core_path: "seal_policy::pipeline::Prepared",
    },
    Wrapper {
        name: "Run",
        facade_file: "src/dispatch.rs",
        core_path: "seal_policy::pipeline::Run",
    },
    Wrapper {
        name: "Deny",
        facade_file: "src/dispatch.rs",
        core_path: "seal_policy::pipeline::Deny",
    },
    Wrapper {
        name: "PendingApproval",
        facade_file: "src/approval.rs",
        core_path: "seal_policy::pipeline::PendingApproval",
    },
    Wrapper {
        name: "Session",
        facade_file: "src/session.rs",
        core_path: "seal_policy::preset::Session",
    },
    Wrapper {
        name: "Stamp",
        facade_file: "src/dispatch.rs",
        core_path: "seal_policy::escalation::Stamp",
    },
];

/// The facade crate's name, as [`crate_of`] reports it.
const FACADE: &str = "seal";

/// One public type definition.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Definition {
    /// The crate's directory name (`seal-verify`), or `seal` for the facade at the root.
    krate: String,
    /// The file, relative to the workspace root.
    file: String,
    /// 1-based line.
    line: usize,
    /// The type's name.
    name: String,
}

/// A name defined in more than one crate that no wrapper entry covers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Duplicate {
    name: String,
    definitions: Vec<Definition>,
}

#[test]
fn no_public_type_name_is_defined_in_two_crates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let definitions = workspace_definitions(root);
    assert!(
        definitions.len() > 100,
        "the walk found only {} definitions: the layout changed under this test",
        definitions.len()
    );

    for (name, found) in same_crate_duplicates(&definitions) {
        let places: Vec<String> = found
            .iter()
            .map(|d| format!("{}:{}", d.file, d.line))
            .collect();
        println!(
            "defined twice in crate {}: {name} ({})",
            found[0].krate,
            places.join(", ")
        );
    }

    let duplicates = cross_crate_duplicates(&definitions, FACADE_WRAPPERS);
    let listing: Vec<String> = duplicates.iter().map(describe).collect();
    assert!(
        duplicates.is_empty(),
        "public types of the same name in more than one crate (rename the core one, or list a \
         facade wrapper in FACADE_WRAPPERS):\n{}",
        listing.join("\n")
    );
}

#[test]
fn every_wrapper_entry_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let definitions = workspace_definitions(root);
    for wrapper in FACADE_WRAPPERS {
        let (core_crate, _) = split_core_path(wrapper.core_path);
        let defined_in = |krate: &str, file: Option<&str>| {
            definitions.iter().any(|d| {
                d.name == wrapper.name && d.krate == krate && file.map_or(true, |f| d.file == f)
            })
        };
        assert!(
            defined_in(FACADE, Some(wrapper.facade_file)),
            "{} does not define `{}`",
            wrapper.facade_file,
            wrapper.name
        );
        assert!(
            defined_in(&core_crate, None),
            "{core_crate} does not define `{}`: the entry is stale",
            wrapper.name
        );
        let text = fs::read_to_string(root.join(wrapper.facade_file)).unwrap();
        assert!(
            mentions(&text, wrapper.core_path),
            "{} never names `{}`, the type it is listed as wrapping",
            wrapper.facade_file,
            wrapper.core_path
        );
    }
}

#[test]
fn no_renaming_re_export() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for (_, file) in source_files(root) {
        let text = fs::read_to_string(&file).unwrap();
        for statement in renaming_re_exports(&text) {
            found.push(format!("{}: {statement}", relative(root, &file)));
        }
    }
    assert!(
        found.is_empty(),
        "`pub use .. as` re-exports a type under a second name; rename it in the core instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_planted_duplicate_is_reported() {
    let text = "\
/// Docs.
pub struct Shared;
pub(crate) struct Hidden;
pub enum Wrapped {}
#[cfg(test)]
mod tests {
    pub struct OnlyInTests;
}
pub trait AfterTests {}
";
    let mut definitions = definitions_in("seal-one", "crates/seal-one/src/lib.rs", text);
    definitions.extend(definitions_in(
        "seal-two",
        "crates/seal-two/src/lib.rs",
        "pub type Shared = u8;\npub struct OnlyInTests;\n",
    ));
    definitions.extend(definitions_in(
        FACADE,
        "src/lib.rs",
        "pub struct Wrapped(seal_one::Wrapped);\npub struct AfterTests;\n",
    ));
    let names: BTreeSet<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from(["AfterTests", "OnlyInTests", "Shared", "Wrapped"]),
        "restricted items and test modules are left out, later items are read"
    );

    let wrappers = [Wrapper {
        name: "Wrapped",
        facade_file: "src/lib.rs",
        core_path: "seal_one::Wrapped",
    }];
    let reported: Vec<String> = cross_crate_duplicates(&definitions, &wrappers)
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(reported, ["AfterTests", "Shared"]);

    // Without the wrapper entry, the facade's wrapper is a duplicate too; an entry naming
    // another core crate does not cover it.
    let reported: Vec<String> = cross_crate_duplicates(&definitions, &[])
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(reported, ["AfterTests", "Shared", "Wrapped"]);
    let elsewhere = [Wrapper {
        name: "Wrapped",
        facade_file: "src/lib.rs",
        core_path: "seal_two::Wrapped",
    }];
    assert_eq!(cross_crate_duplicates(&definitions, &elsewhere).len(), 3);

    // Twice in one crate is listed, not a cross-crate duplicate.
    let twice = definitions_in("seal-one", "a.rs", "pub struct Twice;\npub enum Twice {}\n");
    assert!(cross_crate_duplicates(&twice, &[]).is_empty());
    assert_eq!(same_crate_duplicates(&twice).len(), 1);
}

#[test]
fn a_planted_renaming_re_export_is_found() {
    let text = "pub use a::b::{C, D as E};\npub use f::G;\npub(crate) use h::I as J;\n\
                pub use k::{\n    L as M,\n};\nuse n::O as P;\n";
    assert_eq!(
        renaming_re_exports(text),
        ["pub use a::b::{C, D as E};", "pub use k::{ L as M, };"]
    );
}

#[test]
fn a_wrapper_is_named_by_path_or_import() {
    assert!(mentions(
        "/// See [`seal_record::Manifest::summary`].",
        "seal_record::Manifest"
    ));
    assert!(!mentions(
        "/// See [`seal_record::ManifestBuilder`].",
        "seal_record::Manifest"
    ));
    let import = "use seal_policy::approval::{answer_with, Answer as CoreAnswer};";
    assert!(mentions(import, "seal_policy::approval::Answer"));
    assert!(!mentions(import, "seal_policy::approval::Answerer"));
    assert!(!mentions(import, "seal_policy::chain::Answer"));
    assert!(mentions(
        "use seal_policy::preset::Session as CoreSession;",
        "seal_policy::preset::Session"
    ));
}

/// Every public type definition under `src/` and `crates/*/src/`.
fn workspace_definitions(root: &Path) -> Vec<Definition> {
    let mut definitions = Vec::new();
    for (krate, file) in source_files(root) {
        let text = fs::read_to_string(&file).unwrap();
        definitions.extend(definitions_in(&krate, &relative(root, &file), &text));
    }
    definitions
}

/// The names defined in more than one crate, each with its definitions, except a facade type
/// and the one core type it wraps (by `wrappers`).
fn cross_crate_duplicates(definitions: &[Definition], wrappers: &[Wrapper]) -> Vec<Duplicate> {
    let mut by_name: BTreeMap<&str, Vec<&Definition>> = BTreeMap::new();
    for definition in definitions {
        by_name
            .entry(&definition.name)
            .or_default()
            .push(definition);
    }
    let mut duplicates = Vec::new();
    for (name, found) in by_name {
        let crates: BTreeSet<&str> = found.iter().map(|d| d.krate.as_str()).collect();
        if crates.len() < 2 {
            continue;
        }
        let wrapped = wrappers.iter().any(|wrapper| {
            let (core_crate, _) = split_core_path(wrapper.core_path);
            wrapper.name == name
                && crates == BTreeSet::from([FACADE, core_crate.as_str()])
                && found
                    .iter()
                    .any(|d| d.krate == FACADE && d.file == wrapper.facade_file)
        });
        if !wrapped {
            duplicates.push(Duplicate {
                name: name.to_owned(),
                definitions: found.into_iter().cloned().collect(),
            });
        }
    }
    duplicates
}

/// The names defined more than once inside one crate.
fn same_crate_duplicates(definitions: &[Definition]) -> Vec<(String, Vec<Definition>)> {
    let mut by_crate_and_name: BTreeMap<(&str, &str), Vec<&Definition>> = BTreeMap::new();
    for definition in definitions {
        by_crate_and_name
            .entry((&definition.krate, &definition.name))
            .or_default()
            .push(definition);
    }
    by_crate_and_name
        .into_iter()
        .filter(|(_, found)| found.len() > 1)
        .map(|((_, name), found)| (name.to_owned(), found.into_iter().cloned().collect()))
        .collect()
}

/// The public type definitions of one file's text: lines that start `pub struct`, `pub enum`,
/// `pub trait` or `pub type`, outside `#[cfg(test)]` items (a test module is skipped to its
/// closing brace at the indentation of its `mod` line, as rustfmt writes it).
fn definitions_in(krate: &str, file: &str, text: &str) -> Vec<Definition> {
    let mut definitions = Vec::new();
    let mut cfg_test = false;
    let mut skip_to: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        if let Some(close) = &skip_to {
            if line == close {
                skip_to = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            cfg_test = true;
            continue;
        }
        if trimmed.starts_with("#[") || trimmed.starts_with("//") || trimmed.is_empty() {
            continue;
        }
        let test_only = std::mem::take(&mut cfg_test);
        if test_only {
            let is_module = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
            if is_module && trimmed.ends_with('{') {
                let indent = &line[..line.len() - trimmed.len()];
                skip_to = Some(format!("{indent}}}"));
            }
            continue;
        }
        if let Some(name) = defined_name(trimmed) {
            definitions.push(Definition {
                krate: krate.to_owned(),
                file: file.to_owned(),
                line: index + 1,
                name: name.to_owned(),
            });
        }
    }
    definitions
}

/// The name a line defines, when it starts a public struct, enum, trait or type alias.
fn defined_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("pub ")?;
    let rest = ["struct ", "enum ", "trait ", "type "]
        .iter()
        .find_map(|keyword| rest.strip_prefix(keyword))?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then_some(name)
}

/// Every `pub use` statement (joined to one line) that renames with `as`.
fn renaming_re_exports(text: &str) -> Vec<String> {
    use_statements(text)
        .into_iter()
        .filter(|statement| {
            statement.starts_with("pub use ") && words(statement).any(|word| word == "as")
        })
        .collect()
}

/// Whether `text` names `core_path`: the path itself (not as the prefix of a longer name), or
/// an import of its last segment from its module (`use module::Name ..;` or
/// `use module::{.., Name as Other, ..};`).
fn mentions(text: &str, core_path: &str) -> bool {
    let by_path = text.match_indices(core_path).any(|(at, _)| {
        !text[at + core_path.len()..].starts_with(is_ident)
            && !text[..at].ends_with(|c: char| is_ident(c) || c == ':')
    });
    if by_path {
        return true;
    }
    let Some((module, name)) = core_path.rsplit_once("::") else {
        return false;
    };
    let module = format!("{module}::");
    use_statements(text).iter().any(|statement| {
        let Some((_, path)) = statement.split_once("use ") else {
            return false;
        };
        let Some(imported) = path.strip_prefix(&module) else {
            return false;
        };
        match imported.strip_prefix('{') {
            Some(group) => group
                .split(',')
                .any(|item| words(item).find(|word| !word.is_empty()) == Some(name)),
            None => words(imported).next() == Some(name),
        }
    })
}

/// Every `use` statement of `text` (with or without a visibility), joined to one line.
fn use_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut open: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        let starts = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|prefix| trimmed.starts_with(prefix));
        let statement = match open.take() {
            Some(mut statement) => {
                statement.push(' ');
                statement.push_str(trimmed);
                statement
            }
            None if starts => trimmed.to_owned(),
            None => continue,
        };
        if statement.contains(';') {
            statements.push(statement);
        } else {
            open = Some(statement);
        }
    }
    statements
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident(c))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The crate directory of a core path's first segment (`seal_record` is `seal-record`), and
/// the rest.
fn split_core_path(core_path: &str) -> (String, &str) {
    let (krate, rest) = core_path.split_once("::").unwrap_or((core_path, ""));
    (krate.replace('_', "-"), rest)
}

/// Every `.rs` file under `src/` (the facade, crate `seal`) and `crates/*/src/` (crate named by
/// its directory), sorted, with its crate; files named `tests.rs` are left out.
fn source_files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut roots = vec![(FACADE.to_owned(), root.join("src"))];
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("src").is_dir())
        .collect();
    crates.sort();
    for krate in crates {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        roots.push((name, krate.join("src")));
    }
    let mut files = Vec::new();
    for (krate, dir) in roots {
        let mut found = Vec::new();
        walk(&dir, &mut found);
        found.sort();
        files.extend(found.into_iter().map(|file| (krate.clone(), file)));
    }
    files
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs")
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            found.push(path);
        }
    }
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

fn describe(duplicate: &Duplicate) -> String {
    let places: Vec<String> = duplicate
        .definitions
        .iter()
        .map(|d| format!("{} ({}:{})", d.krate, d.file, d.line))
        .collect();
    format!("  {}: {}", duplicate.name, places.join(", "))
}
