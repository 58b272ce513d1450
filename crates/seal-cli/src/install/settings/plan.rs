//! Planning: the textual edits that write seal's hooks for every event of a client, or remove
//! every seal hook, one edit at a time on the re-read text.

use super::command::{command, group, handler};
use super::found::{find, hooks_object, position, Found};
use super::kept::{check_kept, without_seal};
use super::{Client, InstallPlan, Wanted, MAX_EDITS};
use crate::install::json_text::{
    self, append, apply, parse, remove, replace, Kind, Layout, Node, Out,
};
use crate::install::{wanted_events, HookEntry};

/// Whether the written value `node` is `out` (members in any order).
pub(super) fn same(node: &Node, out: &Out) -> bool {
    match (&node.kind, out) {
        (Kind::String(text), Out::String(wanted)) => text == wanted,
        (Kind::Number(text), Out::Number(wanted)) => *text == wanted.to_string(),
        (Kind::Array(items), Out::Array(wanted)) => {
            items.len() == wanted.len() && items.iter().zip(wanted).all(|(a, b)| same(a, b))
        }
        (Kind::Object(members), Out::Object(wanted)) => {
            members.len() == wanted.len()
                && wanted.iter().all(|(key, value)| {
                    members
                        .iter()
                        .any(|member| member.key == *key && same(&member.value, value))
                })
        }
        _ => false,
    }
}

/// The `index`th group of `event` in `hooks`, with its list.
fn group_nodes<'a>(hooks: &'a Node, event: &str, index: usize) -> Option<(&'a Node, &'a Node)> {
    let list = &hooks.get(event)?.value;
    let group = list.elements()?.get(index)?;
    Some((list, group))
}

enum Step {
    Done,
    Edit(json_text::Edit),
}

/// What an install changes in one event: nothing, a new group, a changed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Unchanged,
    Added,
    Updated,
}

fn install_step(
    text: &str,
    root: &Node,
    event: &HookEntry,
    wanted: &Wanted,
    layout: &Layout,
    change: &mut Change,
) -> Result<Step, String> {
    let group_out = group(wanted, event);
    let Some(hooks) = hooks_object(text, root)? else {
        *change = Change::Added;
        let value = Out::Object(vec![(event.name.into(), Out::Array(vec![group_out]))]);
        return Ok(Step::Edit(append(
            text,
            root,
            Some("hooks"),
            &value,
            layout,
        )));
    };
    let Some(list) = hooks.get(event.name) else {
        *change = Change::Added;
        let value = Out::Array(vec![group_out]);
        return Ok(Step::Edit(append(
            text,
            hooks,
            Some(event.name),
            &value,
            layout,
        )));
    };
    if list.value.elements().is_none() {
        return Err(format!(
            "{}: the hooks of `{}` are not a list",
            position(text, list.value.start),
            event.name
        ));
    }
    let ours: Vec<Found> = find(text, root)?
        .into_iter()
        .filter(|found| found.event == event.name)
        .collect();
    let Some(first) = ours.first() else {
        *change = Change::Added;
        return Ok(Step::Edit(append(
            text,
            &list.value,
            None,
            &group_out,
            layout,
        )));
    };
    let Some((_, group_node)) = group_nodes(hooks, event.name, first.group) else {
        return Err("internal: a found hook's group is gone".into());
    };
    let Some(handler_node) = group_node
        .get("hooks")
        .and_then(|m| m.value.elements())
        .and_then(|handlers| handlers.get(first.handler))
    else {
        return Err("internal: a found hook's handler is gone".into());
    };
    let handler_out = handler(wanted, event);
    if first.alone {
        if !same(group_node, &group_out) {
            if *change == Change::Unchanged {
                *change = Change::Updated;
            }
            return Ok(Step::Edit(replace(text, group_node, &group_out, layout)));
        }
    } else if !same(handler_node, &handler_out) {
        if *change == Change::Unchanged {
            *change = Change::Updated;
        }
        return Ok(Step::Edit(replace(
            text,
            handler_node,
            &handler_out,
            layout,
        )));
    }
    // The first is as wanted: a second seal hook under the same event would run twice.
    match ours.get(1) {
        None => Ok(Step::Done),
        Some(extra) => {
            if *change == Change::Unchanged {
                *change = Change::Updated;
            }
            removal(text, root, extra).map(Step::Edit)
        }
    }
}

/// The edit removing the seal hook `found`: its handler, its group when it is alone there, the
/// event when that was its only group, and `hooks` when that was its only event.
fn removal(text: &str, root: &Node, found: &Found) -> Result<json_text::Edit, String> {
    let internal = || "internal: a found hook is gone".to_owned();
    let hooks = hooks_object(text, root)?.ok_or_else(internal)?;
    let (list, group_node) = group_nodes(hooks, &found.event, found.group).ok_or_else(internal)?;
    if !found.alone {
        let handlers = &group_node.get("hooks").ok_or_else(internal)?.value;
        return remove(handlers, found.handler).ok_or_else(internal);
    }
    if list.elements().map_or(0, <[Node]>::len) > 1 {
        return remove(list, found.group).ok_or_else(internal);
    }
    let members = hooks.members().ok_or_else(internal)?;
    if members.len() > 1 {
        let index = members
            .iter()
            .position(|member| member.key == found.event)
            .ok_or_else(internal)?;
        return remove(hooks, index).ok_or_else(internal);
    }
    let index = root
        .members()
        .ok_or_else(internal)?
        .iter()
        .position(|member| member.key == "hooks")
        .ok_or_else(internal)?;
    remove(root, index).ok_or_else(internal)
}

/// Plans writing seal's hooks for every event of the client into `before` (`None`: no file).
///
/// # Errors
///
/// A text that is not JSON (with its line and column), or whose hook settings do not have the
/// client's shape.
pub fn install(before: Option<&str>, wanted: &Wanted) -> Result<InstallPlan, String> {
    let mut text = match before {
        Some(text) => text.to_owned(),
        None => "{}\n".to_owned(),
    };
    let layout = Layout::of(&text);
    let original = parse(&text).map_err(|error| error.to_string())?;
    let kept = without_seal(&text, &original)?;
    let mut report = Vec::new();
    let mut edits = 0;
    for event in &wanted_events(wanted) {
        if event.frames && wanted.files.store.is_none() {
            let root = parse(&text).map_err(|error| error.to_string())?;
            let present = find(&text, &root)?.iter().any(|f| f.event == event.name);
            report.push(if present {
                format!("{:<22} kept as it is (no --store given)", event.name)
            } else {
                format!(
                    "{:<22} not written: frames are verified only with --store and --keys (seal keygen makes them)",
                    event.name
                )
            });
            continue;
        }
        let mut change = Change::Unchanged;
        loop {
            let root = parse(&text).map_err(|error| error.to_string())?;
            match install_step(&text, &root, event, wanted, &layout, &mut change)? {
                Step::Done => break,
                Step::Edit(edit) => {
                    edits += 1;
                    if edits > MAX_EDITS {
                        return Err(format!("more than {MAX_EDITS} seal hooks to change"));
                    }
                    text = apply(&text, &[edit]);
                }
            }
        }
        let word = match change {
            Change::Unchanged => "unchanged",
            Change::Added => "added",
            Change::Updated => "updated",
        };
        report.push(format!(
            "{:<22} {word:<9} {}",
            event.name,
            command(wanted, event)
        ));
    }
    check_kept(&text, &kept)?;
    Ok(InstallPlan { text, report })
}

/// Plans removing every seal hook from `before`.
///
/// # Errors
///
/// As [`install`].
pub fn uninstall(before: &str, client: Client) -> Result<InstallPlan, String> {
    let mut text = before.to_owned();
    let original = parse(&text).map_err(|error| error.to_string())?;
    let kept = without_seal(&text, &original)?;
    let mut report = Vec::new();
    for _ in 0..=MAX_EDITS {
        let root = parse(&text).map_err(|error| error.to_string())?;
        let found = find(&text, &root)?;
        let Some(first) = found.first() else {
            if report.is_empty() {
                report.push(format!("no seal hook for {} here", client.name()));
            }
            check_kept(&text, &kept)?;
            return Ok(InstallPlan { text, report });
        };
        report.push(format!("{:<22} removed   {}", first.event, first.command));
        let edit = removal(&text, &root, first)?;
        text = apply(&text, &[edit]);
    }
    Err(format!("more than {MAX_EDITS} seal hooks to remove"))
}
