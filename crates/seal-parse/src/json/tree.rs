//! The sink that builds a [`Value`] tree.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::marker::PhantomData;

use super::error::Located;
use super::ill_formed::{Decoded, IllFormedString};
use super::order::compare_keys;
use super::parser::Sink;
use super::unescape::Unescaped;
use super::value::{Object, Value};

/// Builds the tree with one stack of completed values shared by all open containers; a closing
/// container takes its tail in one exact-size allocation.
///
/// `T` is what an escaped string value is decoded into: [`String`] under the strict profile,
/// [`Decoded`] (text, or a canonical literal once a lone surrogate appears) under the lossless.
pub(crate) struct TreeSink<'a, T = String> {
    open: Vec<Open>,
    values: Vec<Value<'a>>,
    keys: Vec<(Cow<'a, str>, usize)>,
    root: Option<Value<'a>>,
    text: PhantomData<T>,
}

impl<T> Default for TreeSink<'_, T> {
    fn default() -> Self {
        TreeSink {
            open: Vec::new(),
            values: Vec::new(),
            keys: Vec::new(),
            root: None,
            text: PhantomData,
        }
    }
}

/// A decoded string value that becomes a [`Value`].
pub(crate) trait DecodedString: Unescaped + Default {
    /// The finished string as a value; `None` if it cannot be one (a literal that is not
    /// UTF-8, which its UTF-8 pieces never give: the string is then rejected, never repaired).
    fn into_value(self) -> Option<Value<'static>>;
}

impl DecodedString for String {
    fn into_value(self) -> Option<Value<'static>> {
        Some(Value::String(Cow::Owned(self)))
    }
}

impl DecodedString for Decoded {
    fn into_value(self) -> Option<Value<'static>> {
        match self {
            Decoded::Text(text) => Some(Value::String(Cow::Owned(text))),
            Decoded::Literal(mut literal) => {
                literal.push(b'"');
                IllFormedString::from_literal(literal).map(Value::IllFormedString)
            }
        }
    }
}

struct Open {
    values_base: usize,
    keys_base: usize,
}

impl<'a, T> TreeSink<'a, T> {
    fn complete(&mut self, value: Value<'a>) {
        if self.open.is_empty() {
            self.root = Some(value);
        } else {
            self.values.push(value);
        }
    }
}

impl<'a, T: DecodedString> Sink<'a> for TreeSink<'a, T> {
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

    type Unescaped = T;

    fn escaped_string<F>(&mut self, decode: F) -> Result<usize, Located>
    where
        F: FnOnce(&mut T) -> Result<usize, Located>,
    {
        let mut text = T::default();
        let end = decode(&mut text)?;
        let value = text
            .into_value()
            .ok_or((end, super::JsonErrorKind::InvalidUtf8))?;
        self.complete(value);
        Ok(end)
    }

    fn finish(self) -> Value<'a> {
        self.root.unwrap_or(Value::Null)
    }
}
