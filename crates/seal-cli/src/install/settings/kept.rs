//! The invariance check: the document with every seal hook taken out, which an install or
//! uninstall must leave equal.

use super::found::{events_of, hooks_object, position};
use super::seal_command;
use crate::install::json_text::{parse, Kind, Node};

/// The document as a comparable value with every seal hook taken out (and the groups, events
/// and `hooks` object that held nothing else): what an install or uninstall must leave equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    Object(Vec<(String, Value)>),
    Array(Vec<Value>),
    Scalar(String),
}

fn value(node: &Node, text: &str) -> Value {
    match &node.kind {
        Kind::Object(members) => Value::Object(
            members
                .iter()
                .map(|member| (member.key.clone(), value(&member.value, text)))
                .collect(),
        ),
        Kind::Array(items) => Value::Array(items.iter().map(|item| value(item, text)).collect()),
        _ => {
            // A node's range is where the reader read it in this same text; an empty scalar
            // would hide a change from the check, so the invariant is asserted.
            let scalar = text.get(node.start..node.end);
            debug_assert!(scalar.is_some(), "a node lies in the text it was read from");
            Value::Scalar(scalar.unwrap_or_default().to_owned())
        }
    }
}

pub(super) fn without_seal(text: &str, root: &Node) -> Result<Value, String> {
    let Value::Object(mut members) = value(root, text) else {
        return Err(format!(
            "{}: the settings are not a JSON object",
            position(text, root.start)
        ));
    };
    let Some(hooks) = hooks_object(text, root)? else {
        return Ok(Value::Object(members));
    };
    let mut kept_events = Vec::new();
    for event in events_of(hooks) {
        let Some(groups) = event.value.elements() else {
            kept_events.push((event.key.clone(), value(&event.value, text)));
            continue;
        };
        let mut kept_groups = Vec::new();
        for group in groups {
            let Some(handlers) = group.get("hooks").and_then(|m| m.value.elements()) else {
                kept_groups.push(value(group, text));
                continue;
            };
            let others: Vec<&Node> = handlers
                .iter()
                .filter(|handler| {
                    handler
                        .get("command")
                        .and_then(|m| m.value.as_str())
                        .and_then(seal_command)
                        .is_none()
                })
                .collect();
            if others.len() == handlers.len() {
                kept_groups.push(value(group, text));
            } else if !others.is_empty() {
                let Value::Object(mut group_members) = value(group, text) else {
                    continue;
                };
                for (key, member) in &mut group_members {
                    if key == "hooks" {
                        *member = Value::Array(others.iter().map(|h| value(h, text)).collect());
                    }
                }
                kept_groups.push(Value::Object(group_members));
            }
        }
        // An event left with no group, and `hooks` left with no event, are the same as none:
        // an uninstall removes what its removal empties.
        if !kept_groups.is_empty() {
            kept_events.push((event.key.clone(), Value::Array(kept_groups)));
        }
    }
    members.retain(|(key, _)| key != "hooks" || !kept_events.is_empty());
    for (key, member) in &mut members {
        if key == "hooks" {
            *member = Value::Object(kept_events.clone());
        }
    }
    Ok(Value::Object(members))
}

pub(super) fn check_kept(text: &str, kept: &Value) -> Result<(), String> {
    let root = parse(text).map_err(|error| format!("internal: the edit is not JSON: {error}"))?;
    if without_seal(text, &root)? == *kept {
        Ok(())
    } else {
        Err("internal: the edit would change settings other than seal's hooks".into())
    }
}
