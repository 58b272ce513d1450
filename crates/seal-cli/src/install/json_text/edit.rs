//! The textual edits: appending, removing and replacing items in place, copying the layout of
//! their siblings, so that an append followed by its removal gives back the original bytes.

use super::layout::string_literal;
use super::{render, Kind, Layout, Node, Out};

/// One replacement of `start..end` by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// Just past the last byte replaced.
    pub end: usize,
    /// What replaces them.
    pub text: String,
}

/// `text` with `edits` made (they must not overlap).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|edit| edit.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    // Edits are made from the places of nodes read in `text`, on character boundaries and not
    // overlapping: the kept stretches lie in `text`. (An install or uninstall also re-reads the
    // result and checks that nothing but seal's hooks changed.)
    for edit in sorted {
        let kept = text.get(at..edit.start);
        debug_assert!(
            kept.is_some(),
            "an edit starts in the text, after the previous one"
        );
        out.push_str(kept.unwrap_or_default());
        out.push_str(&edit.text);
        at = edit.end.max(at);
    }
    let rest = text.get(at..);
    debug_assert!(rest.is_some(), "the last edit ends in the text");
    out.push_str(rest.unwrap_or_default());
    out
}

/// The indentation of the line `offset` is on. (Here and in [`space_before`] a range outside
/// the text gives no whitespace: layout only, never content.)
fn line_indent(text: &str, offset: usize) -> &str {
    let before = text.get(..offset).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let line = text.get(line_start..).unwrap_or_default();
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.get(..width).unwrap_or_default()
}

/// The whitespace before the item that starts at `start` (back to the `,` or opening bracket).
fn space_before(text: &str, start: usize) -> &str {
    let before = text.get(..start).unwrap_or_default();
    let trimmed = before.trim_end_matches([' ', '\t', '\n', '\r']);
    before.get(trimmed.len()..).unwrap_or_default()
}

/// The edit appending `item` (a member `"key": value` when `key` is given, else an element) to
/// the object or array `container`: after its last item, with that item's separator and
/// indentation, or, in an empty container, on a line of its own one level deeper than the line
/// the container opens on (on the same line when the container's line has no indentation
/// structure, `{}` written inline with no newline before it).
pub fn append(
    text: &str,
    container: &Node,
    key: Option<&str>,
    item: &Out,
    layout: &Layout,
) -> Edit {
    let last_start_end = match &container.kind {
        Kind::Object(members) => members
            .last()
            .map(|member| (member.start, member.value.end)),
        Kind::Array(elements) => elements.last().map(|element| (element.start, element.end)),
        _ => None,
    };
    let prefix = |indent: &str, multiline: bool| match key {
        Some(key) => format!(
            "{}: {}",
            string_literal(key),
            render(item, layout, indent, multiline)
        ),
        None => render(item, layout, indent, multiline),
    };
    match last_start_end {
        Some((last_start, last_end)) => {
            let space = space_before(text, last_start);
            let multiline = space.contains('\n');
            let indent = if multiline {
                line_indent(text, last_start)
            } else {
                ""
            };
            let rendered = prefix(indent, multiline);
            Edit {
                start: last_end,
                end: last_end,
                text: format!(",{space}{rendered}"),
            }
        }
        None => {
            let open_indent = line_indent(text, container.start);
            let inner = format!("{open_indent}{}", layout.unit);
            let rendered = prefix(&inner, true);
            Edit {
                start: container.start + 1,
                end: container.end - 1,
                text: format!(
                    "{nl}{inner}{rendered}{nl}{open_indent}",
                    nl = layout.newline
                ),
            }
        }
    }
}

/// The edit removing item `index` of the object or array `container` (with its separator:
/// the one before it when it is the last item, the one after it otherwise; the whole inside of
/// the container, whitespace included, when it is the only item).
pub fn remove(container: &Node, index: usize) -> Option<Edit> {
    let spans: Vec<(usize, usize)> = match &container.kind {
        Kind::Object(members) => members
            .iter()
            .map(|member| (member.start, member.value.end))
            .collect(),
        Kind::Array(elements) => elements
            .iter()
            .map(|element| (element.start, element.end))
            .collect(),
        _ => return None,
    };
    let (start, end) = *spans.get(index)?;
    if spans.len() == 1 {
        return Some(Edit {
            start: container.start + 1,
            end: container.end - 1,
            text: String::new(),
        });
    }
    if index + 1 == spans.len() {
        let (_, previous_end) = spans.get(index - 1)?;
        return Some(Edit {
            start: *previous_end,
            end,
            text: String::new(),
        });
    }
    let (next_start, _) = spans.get(index + 1)?;
    Some(Edit {
        start,
        end: *next_start,
        text: String::new(),
    })
}

/// The edit replacing `node` by `value`, laid out as the text is around it.
pub fn replace(text: &str, node: &Node, value: &Out, layout: &Layout) -> Edit {
    let original = text.get(node.start..node.end).unwrap_or_default();
    let multiline = original.contains('\n');
    let indent = line_indent(text, node.start);
    Edit {
        start: node.start,
        end: node.end,
        text: render(value, layout, indent, multiline),
    }
}
