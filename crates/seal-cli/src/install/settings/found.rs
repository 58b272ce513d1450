//! Discovery: the `hooks` object of a settings document and every seal hook in it, with where
//! it stands.

use super::command::SealCommand;
use super::seal_command;
use crate::install::json_text::{self, Kind, Member, Node};

/// A seal hook in a settings document.
#[derive(Debug, Clone)]
pub struct Found {
    /// The event it is listed under.
    pub event: String,
    /// Index of its group in the event's list.
    pub group: usize,
    /// Index of the handler in the group's `hooks`.
    pub handler: usize,
    /// Whether it is the only handler of its group.
    pub alone: bool,
    /// The group's `matcher`, when a string.
    pub matcher: Option<String>,
    /// The command as written.
    pub command: String,
    /// The command's words.
    pub seal: SealCommand,
    /// The handler's `timeout`, as written, when a number.
    pub timeout: Option<String>,
    /// The handler's members (key and value).
    pub members: Vec<(String, Kind)>,
}

pub(super) fn position(text: &str, offset: usize) -> String {
    let (line, column) = json_text::line_column(text, offset);
    format!("line {line} column {column}")
}

/// The `hooks` object of a settings document, when it has one.
///
/// # Errors
///
/// When the document is not an object, or `hooks` is not one.
pub fn hooks_object<'a>(text: &str, root: &'a Node) -> Result<Option<&'a Node>, String> {
    if root.members().is_none() {
        return Err(format!(
            "{}: the settings are not a JSON object",
            position(text, root.start)
        ));
    }
    match root.get("hooks") {
        None => Ok(None),
        Some(member) if member.value.members().is_some() => Ok(Some(&member.value)),
        Some(member) => Err(format!(
            "{}: `hooks` is not an object",
            position(text, member.value.start)
        )),
    }
}

/// The events of a `hooks` object that [`hooks_object`] gave, which checked that it is an
/// object: the empty fallback is never taken.
pub(super) fn events_of(hooks: &Node) -> &[Member] {
    let events = hooks.members();
    debug_assert!(events.is_some(), "`hooks` was checked to be an object");
    events.unwrap_or_default()
}

/// Every seal hook of the document, in document order.
///
/// # Errors
///
/// As [`hooks_object`], and when an event's value is not a list (a hook settings shape the
/// client would not read either).
pub fn find(text: &str, root: &Node) -> Result<Vec<Found>, String> {
    collect(text, root, seal_command)
}

/// Every command handler of the document that `read` takes, in document order.
///
/// # Errors
///
/// As [`find`].
pub fn collect(
    text: &str,
    root: &Node,
    read: impl Fn(&str) -> Option<SealCommand>,
) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    let Some(hooks) = hooks_object(text, root)? else {
        return Ok(found);
    };
    for event in events_of(hooks) {
        let Some(groups) = event.value.elements() else {
            return Err(format!(
                "{}: the hooks of `{}` are not a list",
                position(text, event.value.start),
                event.key.escape_default()
            ));
        };
        for (group_index, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get("hooks").and_then(|m| m.value.elements()) else {
                continue;
            };
            let matcher = group
                .get("matcher")
                .and_then(|m| m.value.as_str())
                .map(str::to_owned);
            for (handler_index, handler) in handlers.iter().enumerate() {
                let Some(command) = handler.get("command").and_then(|m| m.value.as_str()) else {
                    continue;
                };
                let Some(seal) = read(command) else {
                    continue;
                };
                let timeout = handler.get("timeout").and_then(|m| match &m.value.kind {
                    Kind::Number(number) => Some(number.clone()),
                    _ => None,
                });
                // A handler with a `command` member is an object: the fallback is never taken.
                debug_assert!(handler.members().is_some(), "a handler with a command");
                let members = handler
                    .members()
                    .unwrap_or_default()
                    .iter()
                    .map(|m| (m.key.clone(), m.value.kind.clone()))
                    .collect();
                found.push(Found {
                    event: event.key.clone(),
                    group: group_index,
                    handler: handler_index,
                    alone: handlers.len() == 1,
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                    seal,
                    timeout,
                    members,
                });
            }
        }
    }
    Ok(found)
}
