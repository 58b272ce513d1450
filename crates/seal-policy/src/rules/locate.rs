//! Byte offsets of the values of a JSON document, for line-precise load errors.
//!
//! Runs only on documents the strict parser (`seal_parse::json`) has already accepted, so it
//! can be small; it still never panics and gives up (`None`) on anything unexpected.

/// A value's starting byte offset and, for containers, its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Located {
    pub start: usize,
    pub node: Node,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Node {
    Scalar,
    Array(Vec<Located>),
    /// Members in document order: unescaped key, offset of the key's opening quote, value.
    Object(Vec<(String, usize, Located)>),
}

impl Located {
    /// The member `key` of an object: the key's offset and the value.
    pub fn member(&self, key: &str) -> Option<(usize, &Located)> {
        match &self.node {
            Node::Object(members) => members
                .iter()
                .find(|(k, _, _)| k == key)
                .map(|(_, at, value)| (*at, value)),
            _ => None,
        }
    }

    /// The element `index` of an array.
    pub fn element(&self, index: usize) -> Option<&Located> {
        match &self.node {
            Node::Array(items) => items.get(index),
            _ => None,
        }
    }
}

/// Locates every value of `input`, nesting at most `max_depth` deep.
pub(super) fn locate(input: &[u8], max_depth: usize) -> Option<Located> {
    let mut cursor = Cursor { input, at: 0 };
    cursor.value(max_depth)
}

/// 1-based line and column (in characters) of byte `offset` of `input`; lines end at LF.
pub(super) fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = input.get(..offset).unwrap_or(input);
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + before
        .get(line_start..)
        .unwrap_or_default()
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count();
    (line, column)
}

/// [`line_column`] of offsets asked for in increasing order, in time linear in the input over
/// all of them (a rules file on one line would otherwise cost the square of its length). An
/// offset before the previous one starts over from the beginning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineCursor {
    offset: usize,
    line: usize,
    column: usize,
}

impl LineCursor {
    /// A cursor at the start of the input (line 1, column 1).
    pub(super) fn new() -> LineCursor {
        LineCursor {
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    /// The line and column of `offset` in `input`, exactly as [`line_column`] gives them.
    pub(super) fn at(&mut self, input: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(input.len());
        if offset < self.offset {
            *self = LineCursor::new();
        }
        for &byte in input.get(self.offset..offset).unwrap_or_default() {
            if byte == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if byte & 0xC0 != 0x80 {
                self.column += 1;
            }
        }
        self.offset = offset;
        (self.line, self.column)
    }
}

struct Cursor<'a> {
    input: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.at).copied()
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.blank();
        (self.peek() == Some(byte)).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Located> {
        self.blank();
        let start = self.at;
        let node = match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                self.blank();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.blank();
                        let key_at = self.at;
                        let key = self.string()?;
                        self.eat(b':')?;
                        let value = self.value(depth.checked_sub(1)?)?;
                        members.push((key, key_at, value));
                        self.blank();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b'}' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Node::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.blank();
                if self.peek() == Some(b']') {
                    self.at += 1;
                } else {
                    loop {
                        items.push(self.value(depth.checked_sub(1)?)?);
                        self.blank();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                Node::Array(items)
            }
            b'"' => {
                self.string()?;
                Node::Scalar
            }
            _ => {
                while matches!(
                    self.peek(),
                    Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' | b'a'..=b'z')
                ) {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
                Node::Scalar
            }
        };
        Some(Located { start, node })
    }

    /// Reads a string at the cursor and returns its unescaped value.
    fn string(&mut self) -> Option<String> {
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        let mut units: Vec<u16> = Vec::new();
        let mut out = String::new();
        loop {
            let rest = self.input.get(self.at..)?;
            let stop = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
            let run = std::str::from_utf8(rest.get(..stop)?).ok()?;
            if !run.is_empty() {
                flush(&mut units, &mut out)?;
                out.push_str(run);
            }
            self.at += stop;
            if self.peek()? == b'"' {
                self.at += 1;
                flush(&mut units, &mut out)?;
                return Some(out);
            }
            self.at += 1;
            let escaped = self.peek()?;
            self.at += 1;
            let simple = match escaped {
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                b'/' => Some('/'),
                b'b' => Some('\u{8}'),
                b'f' => Some('\u{c}'),
                b'n' => Some('\n'),
                b'r' => Some('\r'),
                b't' => Some('\t'),
                b'u' => None,
                _ => return None,
            };
            match simple {
                Some(c) => {
                    flush(&mut units, &mut out)?;
                    out.push(c);
                }
                None => {
                    let hex = std::str::from_utf8(self.input.get(self.at..self.at + 4)?).ok()?;
                    units.push(u16::from_str_radix(hex, 16).ok()?);
                    self.at += 4;
                }
            }
        }
    }
}

fn flush(units: &mut Vec<u16>, out: &mut String) -> Option<()> {
    if !units.is_empty() {
        for c in char::decode_utf16(units.drain(..)) {
            out.push(c.ok()?);
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_keys() {
        let doc = br#"{"a\u0062": [1, "x", {"y": null}], "c": true}"#;
        let root = locate(doc, 8).unwrap();
        let (key_at, ab) = root.member("ab").unwrap();
        assert_eq!(key_at, 1);
        assert_eq!(ab.element(1).unwrap().start, 16);
        assert_eq!(root.member("c").unwrap().1.start, 40);
        assert_eq!(line_column(b"a\nb\xc3\xa9c", 5), (2, 3));
    }

    /// The cursor against its naive oracle, [`line_column`], for every offset of inputs with
    /// LFs, CRs, multi-byte characters and stray continuation bytes, asked in increasing order,
    /// in decreasing order, repeated, and past the end.
    #[test]
    fn the_line_cursor_agrees_with_line_column() {
        let inputs: [&[u8]; 5] = [
            b"",
            b"{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}",
            b"a\nb\xc3\xa9c\n\n\xe2\x82\xacd\r\ne",
            b"\x80\x80\n\xbf x",
            "\u{1f600}\n\u{e9}t\u{e9}\n".as_bytes(),
        ];
        for input in inputs {
            let offsets: Vec<usize> = (0..=input.len() + 2).collect();
            let mut cursor = LineCursor::new();
            for &offset in &offsets {
                assert_eq!(cursor.at(input, offset), line_column(input, offset));
                assert_eq!(cursor.at(input, offset), line_column(input, offset));
            }
            let mut cursor = LineCursor::new();
            for &offset in offsets.iter().rev() {
                assert_eq!(cursor.at(input, offset), line_column(input, offset));
            }
            let mut cursor = LineCursor::new();
            for (index, &offset) in offsets.iter().enumerate() {
                let offset = if index % 3 == 2 { offset / 2 } else { offset };
                assert_eq!(cursor.at(input, offset), line_column(input, offset));
            }
        }
        let pair = br#"{"\ud83d\ude00": 1}"#;
        assert!(locate(pair, 2).unwrap().member("\u{1f600}").is_some());
    }
}
