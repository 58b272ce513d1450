//! JSON output: values built in a fixed member order and written as ASCII (every non-ASCII
//! character as a `\u` escape), so output never depends on a map's order or the terminal.

/// A JSON value to write.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A non-negative integer.
    Num(u64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<J>),
    /// An object, members in the order given.
    Obj(Vec<(&'static str, J)>),
}

impl J {
    /// A string value.
    pub fn str(text: impl Into<String>) -> J {
        J::Str(text.into())
    }

    /// An optional string: `null` when absent.
    pub fn opt(text: Option<impl Into<String>>) -> J {
        text.map_or(J::Null, |text| J::Str(text.into()))
    }

    /// The compact JSON text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            J::Num(value) => out.push_str(&value.to_string()),
            J::Str(text) => write_string(out, text),
            J::Arr(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (index, (key, value)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::J;

    #[test]
    fn ascii_and_order() {
        let value = J::Obj(vec![
            ("z", J::str("a\"b\\c\n\u{202e}\u{1f600}")),
            ("a", J::Arr(vec![J::Num(1), J::Null, J::Bool(true)])),
        ]);
        assert_eq!(
            value.to_text(),
            r#"{"z":"a\"b\\c\n\u202e\ud83d\ude00","a":[1,null,true]}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&value.to_text()).unwrap();
        assert_eq!(parsed["z"], "a\"b\\c\n\u{202e}\u{1f600}");
    }
}
