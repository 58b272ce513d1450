//! JSON text with the place of every value, for editing a settings file without touching a byte
//! of what the edit is not about.
//!
//! The reader is strict RFC 8259 JSON (a leading UTF-8 byte-order mark is kept), refuses a key
//! written twice in one object (an edit of such a file could not say which one it changed), and
//! nests at most [`MAX_DEPTH`] deep. Its errors name the line and column. The edits are textual:
//! appending a member or an element copies the separator and indentation of its siblings, and
//! removing the last one takes exactly that back out, so an append followed by its removal gives
//! the original bytes.

use std::fmt::Write as _;

/// The deepest nesting of arrays and objects read.
pub const MAX_DEPTH: usize = 128;

/// A value and where it is: `start..end` are byte offsets into the text.
#[derive(Debug, Clone)]
pub struct Node {
    /// Offset of the value's first byte.
    pub start: usize,
    /// Offset just past the value's last byte.
    pub end: usize,
    /// What the value is.
    pub kind: Kind,
}

/// A member of an object.
#[derive(Debug, Clone)]
pub struct Member {
    /// The key, decoded.
    pub key: String,
    /// Offset of the key's opening quote.
    pub start: usize,
    /// The value.
    pub value: Node,
}

/// The kinds of value the editor tells apart.
#[derive(Debug, Clone)]
pub enum Kind {
    /// An object, its members in order.
    Object(Vec<Member>),
    /// An array, its elements in order.
    Array(Vec<Node>),
    /// A string, decoded (a lone surrogate escape becomes U+FFFD).
    String(String),
    /// A number, as written.
    Number(String),
    /// `true`, `false` or `null`, as written.
    Literal(&'static str),
}

impl Node {
    /// The members, when an object.
    pub fn members(&self) -> Option<&[Member]> {
        match &self.kind {
            Kind::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The elements, when an array.
    pub fn elements(&self) -> Option<&[Node]> {
        match &self.kind {
            Kind::Array(elements) => Some(elements),
            _ => None,
        }
    }

    /// The member `key`, when an object that has it.
    pub fn get(&self, key: &str) -> Option<&Member> {
        self.members()?.iter().find(|member| member.key == key)
    }

    /// The text, when a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(text) => Some(text),
            _ => None,
        }
    }
}

/// Where the text stops being JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong there.
    pub problem: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.problem
        )
    }
}

/// Line and column (both 1-based; the column counts characters) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let column = before
        .get(line_start..)
        .map_or(0, |rest| rest.chars().count())
        + 1;
    (line, column)
}

/// Reads a whole JSON text.
///
/// # Errors
///
/// Where the text is not one JSON value (with only whitespace around it), where a key repeats,
/// or where nesting is deeper than [`MAX_DEPTH`].
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: start,
    };
    reader.skip_space();
    let node = reader.value(0)?;
    reader.skip_space();
    if reader.at < reader.bytes.len() {
        return Err(reader.error_at(reader.at, "text after the JSON value"));
    }
    Ok(node)
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error_at(&self, offset: usize, problem: impl Into<String>) -> SyntaxError {
        let (line, column) = line_column(self.text, offset);
        SyntaxError {
            line,
            column,
            problem: problem.into(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn unexpected(&self, wanted: &str) -> SyntaxError {
        match self
            .text
            .get(self.at..)
            .and_then(|rest| rest.chars().next())
        {
            None => self.error_at(self.at, format!("the text ends where {wanted} should be")),
            Some(found) => self.error_at(
                self.at,
                format!("{} where {wanted} should be", describe(found)),
            ),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.at;
        let kind = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') => self.literal("true")?,
            Some(b'f') => self.literal("false")?,
            Some(b'n') => self.literal("null")?,
            _ => return Err(self.unexpected("a value")),
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    fn enter(&self, depth: usize) -> Result<usize, SyntaxError> {
        if depth >= MAX_DEPTH {
            return Err(self.error_at(
                self.at,
                format!("nested deeper than {MAX_DEPTH} arrays and objects"),
            ));
        }
        Ok(depth + 1)
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        let depth = self.enter(depth)?;
        self.at += 1;
        let mut members: Vec<Member> = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Kind::Object(members));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected("a key (a string in double quotes)"));
            }
            let start = self.at;
            let key = self.string()?;
            if members.iter().any(|member| member.key == key) {
                return Err(self.error_at(
                    start,
                    format!(
                        "the key {} is written twice in this object",
                        serde_json::Value::String(key)
                    ),
                ));
            }
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.unexpected("`:`"));
            }
            self.at += 1;
            self.skip_space();
            let value = self.value(depth)?;
            members.push(Member { key, start, value });
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Kind::Object(members));
                }
                _ => return Err(self.unexpected("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        let depth = self.enter(depth)?;
        self.at += 1;
        let mut elements = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Kind::Array(elements));
        }
        loop {
            self.skip_space();
            elements.push(self.value(depth)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Kind::Array(elements));
                }
                _ => return Err(self.unexpected("`,` or `]`")),
            }
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<Kind, SyntaxError> {
        if self.bytes.get(self.at..self.at + word.len()) == Some(word.as_bytes()) {
            self.at += word.len();
            Ok(Kind::Literal(word))
        } else {
            Err(self.unexpected("a value"))
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - from
    }

    fn number(&mut self) -> Result<Kind, SyntaxError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.at += 1;
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.error_at(start, "a number with a leading zero"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.unexpected("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.unexpected("a digit after `.`"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.unexpected("a digit of the exponent"));
            }
        }
        Ok(Kind::Number(
            self.text.get(start..self.at).unwrap_or_default().to_owned(),
        ))
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut value = 0u32;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(byte @ b'0'..=b'9') => u32::from(byte - b'0'),
                Some(byte @ b'a'..=b'f') => u32::from(byte - b'a' + 10),
                Some(byte @ b'A'..=b'F') => u32::from(byte - b'A' + 10),
                _ => return Err(self.unexpected("a hexadecimal digit of a \\u escape")),
            };
            value = value * 16 + digit;
            self.at += 1;
        }
        Ok(value)
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let open = self.at;
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.error_at(open, "a string that is never closed"));
            };
            match byte {
                b'"' => {
                    self.at += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.at += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let unit = self.hex4()?;
                            out.push(self.surrogate_pair(unit)?);
                            continue;
                        }
                        _ => {
                            return Err(self
                                .unexpected("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"))
                        }
                    };
                    self.at += 1;
                    out.push(escaped);
                }
                0..=0x1f => {
                    return Err(self.error_at(
                        self.at,
                        format!(
                        "control character U+{byte:04X} inside a string (write it as an escape)"
                    ),
                    ))
                }
                _ => {
                    let rest = self.text.get(self.at..).unwrap_or_default();
                    let Some(ch) = rest.chars().next() else {
                        return Err(self.error_at(self.at, "a string that is never closed"));
                    };
                    out.push(ch);
                    self.at += ch.len_utf8();
                }
            }
        }
    }

    fn surrogate_pair(&mut self, unit: u32) -> Result<char, SyntaxError> {
        if (0xD800..0xDC00).contains(&unit)
            && self.bytes.get(self.at..self.at + 2) == Some(b"\\u".as_slice())
        {
            let back = self.at;
            self.at += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            self.at = back;
        }
        Ok(char::from_u32(unit).unwrap_or('\u{fffd}'))
    }
}

fn describe(found: char) -> String {
    if found.is_ascii_graphic() {
        format!("`{found}`")
    } else {
        format!("U+{:04X}", u32::from(found))
    }
}

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

fn string_literal(text: &str) -> String {
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
    for edit in sorted {
        out.push_str(text.get(at..edit.start).unwrap_or_default());
        out.push_str(&edit.text);
        at = edit.end.max(at);
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// The indentation of the line `offset` is on.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn member_out() -> Out {
        Out::Array(vec![Out::Object(vec![(
            "hooks".into(),
            Out::Array(vec![Out::Object(vec![
                ("type".into(), Out::String("command".into())),
                ("timeout".into(), Out::Number(60)),
            ])]),
        )])])
    }

    fn round_trip(text: &str) -> String {
        let root = parse(text).unwrap();
        let layout = Layout::of(text);
        let edit = append(text, &root, Some("hooks"), &member_out(), &layout);
        let added = apply(text, &[edit]);
        let again = parse(&added).unwrap();
        let index = again.members().unwrap().len() - 1;
        assert_eq!(again.members().unwrap()[index].key, "hooks");
        let removed = apply(&added, &[remove(&again, index).unwrap()]);
        assert!(parse(&removed).is_ok());
        added
    }

    #[test]
    fn append_then_remove_gives_the_original_bytes() {
        for text in [
            "{\n  \"a\": 1\n}\n",
            "{\r\n\t\"a\": [1, 2],\r\n\t\"b\": {}\r\n}",
            "{\"a\":1}",
            "{ \"a\" : 1 , \"b\":2 }",
            "\u{feff}{\n    \"x\": \"y\"\n}",
        ] {
            let added = round_trip(text);
            let root = parse(&added).unwrap();
            let index = root.members().unwrap().len() - 1;
            let removed = apply(&added, &[remove(&root, index).unwrap()]);
            assert_eq!(removed, text);
        }
    }

    #[test]
    fn an_append_follows_the_siblings_layout() {
        assert_eq!(
            round_trip("{\n  \"a\": 1\n}\n"),
            "{\n  \"a\": 1,\n  \"hooks\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"timeout\": 60\n        }\n      ]\n    }\n  ]\n}\n"
        );
        assert_eq!(
            round_trip("{\"a\":1}"),
            "{\"a\":1,\"hooks\": [{\"hooks\": [{\"type\": \"command\", \"timeout\": 60}]}]}"
        );
        assert_eq!(
            round_trip("{}"),
            "{\n  \"hooks\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"timeout\": 60\n        }\n      ]\n    }\n  ]\n}"
        );
    }

    #[test]
    fn removing_a_middle_or_first_item_takes_its_following_separator() {
        let text = "[1, 2, 3]";
        let root = parse(text).unwrap();
        assert_eq!(apply(text, &[remove(&root, 0).unwrap()]), "[2, 3]");
        assert_eq!(apply(text, &[remove(&root, 1).unwrap()]), "[1, 3]");
        assert_eq!(apply(text, &[remove(&root, 2).unwrap()]), "[1, 2]");
        assert!(remove(&root, 3).is_none());
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let cases = [
            ("{\n  \"a\": 1,\n}", 3, 1, "`}` where a key"),
            (
                "{\n  \"a\": 1\n  \"b\": 2\n}",
                3,
                3,
                "`\"` where `,` or `}`",
            ),
            ("{\"a\": 1, \"a\": 2}", 1, 10, "written twice"),
            ("{\"a\": 01}", 1, 7, "leading zero"),
            ("{\"a\": \"x", 1, 7, "never closed"),
            ("{} x", 1, 4, "text after"),
            ("", 1, 1, "ends where a value"),
            ("// c\n{}", 1, 1, "`/` where a value"),
            ("{\"a\": \"\u{1}\"}", 1, 8, "control character"),
        ];
        for (text, line, column, problem) in cases {
            let error = parse(text).unwrap_err();
            assert_eq!(
                (error.line, error.column),
                (line, column),
                "{text:?}: {error}"
            );
            assert!(error.problem.contains(problem), "{text:?}: {error}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(parse(&deep).unwrap_err().problem.contains("nested deeper"));
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&fine).is_ok());
    }

    #[test]
    fn the_layout_is_the_files_own() {
        assert_eq!(Layout::of("{\n\t\"a\": 1\n}").unit, "\t");
        assert_eq!(Layout::of("{\r\n    \"a\": 1\r\n}").unit, "    ");
        assert_eq!(Layout::of("{\r\n    \"a\": 1\r\n}").newline, "\r\n");
        assert_eq!(
            Layout::of("{\"a\": 1}"),
            Layout {
                newline: "\n",
                unit: "  ".into()
            }
        );
        let layout = Layout::of("{}");
        let value = Out::Object(vec![
            ("a".into(), Out::Array(Vec::new())),
            ("b".into(), Out::Object(Vec::new())),
            ("c".into(), Out::Array(vec![Out::Number(1)])),
        ]);
        assert_eq!(
            render(&value, &layout, "", true),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1\n  ]\n}"
        );
        assert_eq!(
            render(&value, &layout, "", false),
            "{\"a\": [], \"b\": {}, \"c\": [1]}"
        );
    }

    #[test]
    fn every_escape_and_number_form_is_read() {
        let root = parse(r#"["\b\f\n\r\t\/\"\\", "\u00E9\u00e9\u0041", 0, -0, 10, 1.5, 1e5, 1E+5, 2e-3, -12.75E10]"#)
            .unwrap();
        let items = root.elements().unwrap();
        assert_eq!(items[0].as_str(), Some("\u{8}\u{c}\n\r\t/\"\\"));
        assert_eq!(items[1].as_str(), Some("\u{e9}\u{e9}A"));
        let numbers: Vec<&str> = items[2..]
            .iter()
            .map(|item| match &item.kind {
                Kind::Number(text) => text.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(
            numbers,
            ["0", "-0", "10", "1.5", "1e5", "1E+5", "2e-3", "-12.75E10"]
        );
        for bad in [
            "1.",
            "1e",
            "1e+",
            "-",
            ".5",
            "01",
            "1.e5",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\uZZZZ\"",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_are_decoded() {
        let root = parse(r#"{"k\u00e9y": "a\"b\\c\ud83d\ude00\ud800"}"#).unwrap();
        let member = &root.members().unwrap()[0];
        assert_eq!(member.key, "k\u{e9}y");
        assert_eq!(member.value.as_str(), Some("a\"b\\c\u{1f600}\u{fffd}"));
    }
}
