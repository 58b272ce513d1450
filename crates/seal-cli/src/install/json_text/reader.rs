//! The span-keeping reader: strict RFC 8259 JSON into [`Node`]s, with errors that name the line
//! and column.

use super::{Kind, Member, Node, SyntaxError, MAX_DEPTH};

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
        // The number's bytes are ASCII read from `start`: the range lies in the text, and an
        // impossible one is an error rather than an empty number.
        let number = self
            .text
            .get(start..self.at)
            .ok_or_else(|| self.error_at(start, "a number outside the text"))?;
        Ok(Kind::Number(number.to_owned()))
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
