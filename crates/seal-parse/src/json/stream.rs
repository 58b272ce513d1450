//! The sink that writes canonical bytes while parsing, without building a tree.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::error::Located;
use super::order::compare_keys;
use super::parser::Sink;
use super::string::write_string;
use super::value::Value;

/// Writes each value's canonical bytes as soon as it is parsed. An object's members are written
/// in document order, each as one span `"key":value`; when the object closes out of order, the
/// spans are moved into canonical order (one copy of the object's bytes).
///
/// Moving is bounded: once the bytes moved exceed [`StreamSink::new`]'s budget (a fixed multiple
/// of the input length), the sink stops reordering and [`Sink::finish`] returns `None`, so the
/// caller can fall back to the tree, which is linear whatever the nesting.
pub(crate) struct StreamSink<'a> {
    out: Vec<u8>,
    open: Vec<Open>,
    members: Vec<Member<'a>>,
    /// Scratch: positions of the closing object's members in canonical order.
    order: Vec<usize>,
    scratch: Vec<u8>,
    moved: usize,
    budget: usize,
}

struct Open {
    object: bool,
    first: bool,
    members_base: usize,
}

struct Member<'a> {
    key: Cow<'a, str>,
    offset: usize,
    start: usize,
    end: usize,
}

/// Bytes a document may move while reordering, per input byte, before the sink gives up.
const MOVE_BUDGET_PER_INPUT_BYTE: usize = 8;

impl<'a> StreamSink<'a> {
    /// A sink for an input of `input_len` bytes.
    pub(crate) fn new(input_len: usize) -> Self {
        StreamSink {
            out: Vec::with_capacity(input_len.saturating_add(16)),
            open: Vec::with_capacity(16),
            members: Vec::with_capacity(32),
            order: Vec::with_capacity(32),
            scratch: Vec::new(),
            moved: 0,
            budget: input_len
                .saturating_mul(MOVE_BUDGET_PER_INPUT_BYTE)
                .saturating_add(1 << 16),
        }
    }

    fn separate_element(&mut self) {
        if let Some(top) = self.open.last_mut() {
            if !top.object && !std::mem::replace(&mut top.first, false) {
                self.out.push(b',');
            }
        }
    }

    /// Writes a string from the parser: a borrowed one had no escape, so it holds no `"`, `\` or
    /// control character and is copied as is.
    fn parsed_string(&mut self, text: &str, borrowed: bool) {
        if borrowed {
            self.out.reserve(text.len() + 2);
            self.out.push(b'"');
            self.out.extend_from_slice(text.as_bytes());
            self.out.push(b'"');
        } else {
            write_string(text, &mut self.out);
        }
    }

    /// Rewrites the output from the first member of `members[base..]` on with the member spans
    /// in the order given by `self.order`.
    fn reorder(&mut self, base: usize) {
        let members = self.members.get(base..).unwrap_or(&[]);
        let Some(region_start) = members.first().map(|member| member.start) else {
            return;
        };
        let Some(region) = self.out.get(region_start..) else {
            return;
        };
        self.moved = self.moved.saturating_add(region.len());
        if self.moved > self.budget {
            return;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(region);
        self.out.truncate(region_start);
        for (rank, &index) in self.order.iter().enumerate() {
            if rank > 0 {
                self.out.push(b',');
            }
            if let Some(member) = members.get(index) {
                let from = member.start.saturating_sub(region_start);
                let to = member.end.saturating_sub(region_start);
                self.out
                    .extend_from_slice(self.scratch.get(from..to).unwrap_or(&[]));
            }
        }
    }
}

impl<'a> Sink<'a> for StreamSink<'a> {
    type Output = Option<Vec<u8>>;

    fn scalar(&mut self, value: Value<'a>) {
        self.separate_element();
        match value {
            Value::String(Cow::Borrowed(text)) => self.parsed_string(text, true),
            Value::String(Cow::Owned(text)) => self.parsed_string(&text, false),
            Value::Number(number) => number.write_canonical(&mut self.out),
            other => other.write_canonical(&mut self.out),
        }
    }

    fn open(&mut self, object: bool) {
        self.separate_element();
        self.out.push(if object { b'{' } else { b'[' });
        self.open.push(Open {
            object,
            first: true,
            members_base: self.members.len(),
        });
    }

    fn key(&mut self, key: Cow<'a, str>, offset: usize) {
        if let Some(top) = self.open.last_mut() {
            if !std::mem::replace(&mut top.first, false) {
                self.out.push(b',');
            }
        }
        let start = self.out.len();
        match &key {
            Cow::Borrowed(text) => self.parsed_string(text, true),
            Cow::Owned(text) => self.parsed_string(text, false),
        }
        self.out.push(b':');
        self.members.push(Member {
            key,
            offset,
            start,
            end: 0,
        });
    }

    fn close_array(&mut self) {
        self.open.pop();
        self.out.push(b']');
    }

    fn close_object(&mut self) -> Result<(), (String, usize)> {
        let base = self
            .open
            .pop()
            .map_or(self.members.len(), |open| open.members_base);
        let base = base.min(self.members.len());
        let mut end = self.out.len();
        for member in self
            .members
            .get_mut(base..)
            .unwrap_or(&mut [])
            .iter_mut()
            .rev()
        {
            member.end = end;
            end = member.start.saturating_sub(1);
        }
        let members = self.members.get(base..).unwrap_or(&[]);
        let in_order = members
            .windows(2)
            .all(|pair| matches!(pair, [a, b] if compare_keys(&a.key, &b.key) == Ordering::Less));
        if !in_order {
            // Sort positions, not members: ties keep document order, so of two equal keys the
            // later one is the second occurrence.
            let key = |index: usize| members.get(index).map_or("", |member| member.key.as_ref());
            self.order.clear();
            self.order.extend(0..members.len());
            self.order
                .sort_unstable_by(|&a, &b| compare_keys(key(a), key(b)).then(a.cmp(&b)));
            let repeated = self.order.windows(2).find_map(|pair| match pair {
                [a, b] if key(*a) == key(*b) => members
                    .get(*b)
                    .map(|member| (member.key.to_string(), member.offset)),
                _ => None,
            });
            if let Some(repeated) = repeated {
                return Err(repeated);
            }
            self.reorder(base);
        }
        self.members.truncate(base);
        self.out.push(b'}');
        Ok(())
    }

    type Unescaped = Vec<u8>;

    fn escaped_string<F>(&mut self, decode: F) -> Result<usize, Located>
    where
        F: FnOnce(&mut Vec<u8>) -> Result<usize, Located>,
    {
        self.separate_element();
        self.out.push(b'"');
        let end = decode(&mut self.out)?;
        self.out.push(b'"');
        Ok(end)
    }

    fn finish(self) -> Option<Vec<u8>> {
        (self.moved <= self.budget).then_some(self.out)
    }
}
