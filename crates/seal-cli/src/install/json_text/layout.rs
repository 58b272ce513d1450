//! Values to write and the layout they are written in: the text's own line ending and
//! indentation.

use std::fmt::Write as _;

/// A value to write, rendered in the style of the text it goes into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// An object, members in this order.
    Object(Vec<(String, Out)>),
    /// An array.
    Array(Vec<Out>),
    /// A string.
    String(String),
    /// A non-negative integer.
    Number(u64),
}

/// How the text around an edit is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// `"\r\n"` when the text's lines end so, else `"\n"`.
    pub newline: &'static str,
    /// One level of indentation (the text's own, else two spaces).
    pub unit: String,
}

impl Layout {
    /// The layout of `text`: its line ending and the indentation of its first indented line.
    pub fn of(text: &str) -> Layout {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let unit = text
            .split('\n')
            .skip(1)
            .map(|line| {
                let width = line.len() - line.trim_start_matches([' ', '\t']).len();
                line.get(..width).unwrap_or_default()
            })
            .find(|indent| !indent.is_empty())
            .unwrap_or("  ")
            .to_owned();
        Layout { newline, unit }
    }
}

pub(super) fn string_literal(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// `value` as JSON text: on several lines, each `indent` deep plus one `unit` per level, when
/// `multiline`; on one line with `", "` and `": "` otherwise.
pub fn render(value: &Out, layout: &Layout, indent: &str, multiline: bool) -> String {
    let mut out = String::new();
    render_into(&mut out, value, layout, indent, multiline);
    out
}

fn render_into(out: &mut String, value: &Out, layout: &Layout, indent: &str, multiline: bool) {
    match value {
        Out::String(text) => out.push_str(&string_literal(text)),
        Out::Number(number) => {
            let _ = write!(out, "{number}");
        }
        Out::Array(items) if items.is_empty() => out.push_str("[]"),
        Out::Object(members) if members.is_empty() => out.push_str("{}"),
        Out::Array(items) => {
            let inner = format!("{indent}{}", layout.unit);
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                separate(out, index, layout, &inner, multiline);
                render_into(out, item, layout, &inner, multiline);
            }
            close(out, layout, indent, multiline);
            out.push(']');
        }
        Out::Object(members) => {
            let inner = format!("{indent}{}", layout.unit);
            out.push('{');
            for (index, (key, member)) in members.iter().enumerate() {
                separate(out, index, layout, &inner, multiline);
                out.push_str(&string_literal(key));
                out.push_str(": ");
                render_into(out, member, layout, &inner, multiline);
            }
            close(out, layout, indent, multiline);
            out.push('}');
        }
    }
}

fn separate(out: &mut String, index: usize, layout: &Layout, inner: &str, multiline: bool) {
    if index > 0 {
        out.push(',');
        if !multiline {
            out.push(' ');
        }
    }
    if multiline {
        out.push_str(layout.newline);
        out.push_str(inner);
    }
}

fn close(out: &mut String, layout: &Layout, indent: &str, multiline: bool) {
    if multiline {
        out.push_str(layout.newline);
        out.push_str(indent);
    }
}
