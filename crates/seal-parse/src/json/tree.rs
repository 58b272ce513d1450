//! The sink that builds a [`Value`] tree.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::error::Located;
use super::order::compare_keys;
use super::parser::Sink;
use super::value::{Object, Value};

/// Builds the tree with one stack of completed values shared by all open containers; a closing
/// container takes its tail in one exact-size allocation.
#[derive(Default)]
pub(crate) struct TreeSink<'a> {
    open: Vec<Open>,
    values: Vec<Value<'a>>,
    keys: Vec<(Cow<'a, str>, usize)>,
    root: Option<Value<'a>>,
}

struct Open {
    values_base: usize,
    keys_base: usize,
}

impl<'a> TreeSink<'a> {
    fn complete(&mut self, value: Value<'a>) {
        if self.open.is_empty() {
            self.root = Some(value);
        } else {
            self.values.push(value);
        }
    }
}

impl<'a> Sink<'a> for TreeSink<'a> {
    type Output = Value<'a>;

    fn scalar(&mut self, value: Value<'a>) {
        self.complete(value);
    }

    fn open(&mut self, _object: bool) {
        self.open.push(Open {
            values_base: self.values.len(),
            keys_base: self.keys.len(),
        });
    }

    fn key(&mut self, key: Cow<'a, str>, offset: usize) {
        self.keys.push((key, offset));
    }

    fn close_array(&mut self) {
        let base = self
            .open
            .pop()
            .map_or(self.values.len(), |open| open.values_base);
        let items = self.values.split_off(base.min(self.values.len()));
        self.complete(Value::Array(items));
    }

    fn close_object(&mut self) -> Result<(), (String, usize)> {
        let Some(open) = self.open.pop() else {
            return Ok(());
        };
        let values_base = open.values_base.min(self.values.len());
        let keys_base = open.keys_base.min(self.keys.len());
        let in_order = self.keys.get(keys_base..).is_some_and(|keys| {
            keys.windows(2).all(
                |pair| matches!(pair, [(a, _), (b, _)] if compare_keys(a, b) == Ordering::Less),
            )
        });
        let keys = self.keys.drain(keys_base..);
        let values = self.values.drain(values_base..);
        let members = if in_order {
            keys.zip(values)
                .map(|((key, _), value)| (key, value))
                .collect()
        } else {
            let mut members: Vec<_> = keys
                .zip(values)
                .map(|((key, offset), value)| (key, value, offset))
                .collect();
            members.sort_unstable_by(|(a, _, a_offset), (b, _, b_offset)| {
                compare_keys(a, b).then(a_offset.cmp(b_offset))
            });
            let repeated = members.windows(2).find_map(|pair| match pair {
                [(a, _, _), (b, _, later)] if a == b => Some((a.to_string(), *later)),
                _ => None,
            });
            if let Some(repeated) = repeated {
                return Err(repeated);
            }
            members
                .into_iter()
                .map(|(key, value, _)| (key, value))
                .collect()
        };
        self.complete(Value::Object(Object::from_sorted_unique(members)));
        Ok(())
    }

    type Unescaped = String;

    fn escaped_string<F>(&mut self, decode: F) -> Result<usize, Located>
    where
        F: FnOnce(&mut String) -> Result<usize, Located>,
    {
        let mut text = String::new();
        let end = decode(&mut text)?;
        self.complete(Value::String(Cow::Owned(text)));
        Ok(end)
    }

    fn finish(self) -> Value<'a> {
        self.root.unwrap_or(Value::Null)
    }
}
