//! The values the reader gives: each with the byte range it was read from.

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
