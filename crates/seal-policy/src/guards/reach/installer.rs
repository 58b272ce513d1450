//! The files seal's own installer writes without naming them on its command line.

use super::command::Walked;
use super::place::place;
use super::Touch;
use crate::paths::{Access, Cwd, Places};

/// The clients' hook settings that seal's own installer writes without naming them
/// (`seal install claude-code`, `seal uninstall codex --project DIR`; spec/install.md section 1):
/// a write of the user's settings file, or of the project's with `--project DIR`, for the
/// client named (both when none is).
pub(super) fn installer_touches<'a>(
    program: &'a str,
    args: impl Iterator<Item = &'a str>,
    by: &str,
    operands: &[Walked<'a>],
    places: &Places,
    out: &mut Vec<Touch<'a>>,
) {
    let base = program.rsplit('/').next().unwrap_or(program);
    if !base.to_ascii_lowercase().starts_with("seal") {
        return;
    }
    let words: Vec<&'a str> = args.collect();
    if !matches!(words.first(), Some(&("install" | "uninstall"))) {
        return;
    }
    let mut project: Option<&'a str> = None;
    let mut clients: Vec<&'a str> = Vec::new();
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        if *word == "--project" {
            project = rest.next().copied();
        } else if let Some(dir) = word.strip_prefix("--project=") {
            project = Some(dir);
        } else if matches!(*word, "claude-code" | "codex") {
            clients.push(word);
        }
    }
    let files: &[(&str, &str)] = match clients.first() {
        Some(&"claude-code") => &[(".claude", "settings.json")],
        Some(&"codex") => &[(".codex", "hooks.json")],
        _ => &[(".claude", "settings.json"), (".codex", "hooks.json")],
    };
    for (dir, file) in files {
        let (word, spots) = match project {
            Some(project) => {
                let placed = operands
                    .iter()
                    .find(|walked| walked.word == project)
                    .map_or_else(|| place(places, project, Cwd::Root), |w| w.spots.clone());
                let spots = placed
                    .into_iter()
                    .map(|spot| spot.map(|at| format!("{}/{dir}/{file}", at.trim_end_matches('/'))))
                    .collect();
                (project, spots)
            }
            None => (base, place(places, &format!("~/{dir}/{file}"), Cwd::Root)),
        };
        out.push(Touch {
            by: by.to_owned(),
            word,
            access: Access::Write,
            names_only: false,
            reads_below: false,
            changes_below: false,
            changed_names: None,
            spots,
        });
    }
}
