//! The canonical writer (RFC 8785 §3.2): no whitespace, members in canonical order; the lossless
//! profile's number literals as written and lone surrogates as `\udxxx`.

use std::borrow::Cow;

use super::string::write_string;
use super::value::Value;

/// Appends the canonical bytes of `root` to `out`, with an explicit stack instead of recursion.
pub(crate) fn write_value(root: &Value<'_>, out: &mut Vec<u8>) {
    let mut open: Vec<Open<'_, '_>> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(value) = next.take() {
            match value {
                Value::Null => out.extend_from_slice(b"null"),
                Value::Bool(true) => out.extend_from_slice(b"true"),
                Value::Bool(false) => out.extend_from_slice(b"false"),
                Value::Number(number) => number.write_canonical(out),
                Value::String(text) => write_string(text, out),
                Value::NumberLiteral(literal) => out.extend_from_slice(literal.text().as_bytes()),
                Value::IllFormedString(string) => string.write_canonical(out),
                Value::Array(items) => {
                    out.push(b'[');
                    open.push(Open::Array {
                        items: items.iter(),
                        first: true,
                    });
                }
                Value::Object(object) => {
                    out.push(b'{');
                    open.push(Open::Object {
                        members: object.members().iter(),
                        first: true,
                    });
                }
            }
        }
        let Some(top) = open.last_mut() else {
            return;
        };
        match top {
            Open::Array { items, first } => match items.next() {
                Some(item) => {
                    if !std::mem::replace(first, false) {
                        out.push(b',');
                    }
                    next = Some(item);
                }
                None => {
                    out.push(b']');
                    open.pop();
                }
            },
            Open::Object { members, first } => match members.next() {
                Some((key, value)) => {
                    if !std::mem::replace(first, false) {
                        out.push(b',');
                    }
                    write_string(key, out);
                    out.push(b':');
                    next = Some(value);
                }
                None => {
                    out.push(b'}');
                    open.pop();
                }
            },
        }
    }
}

enum Open<'v, 'a> {
    Array {
        items: std::slice::Iter<'v, Value<'a>>,
        first: bool,
    },
    Object {
        members: std::slice::Iter<'v, (Cow<'a, str>, Value<'a>)>,
        first: bool,
    },
}
