//! The name grammars of frame-v1, checked where a signing input is built.

/// Longest element or attribute name, in bytes (the grammar allows a first letter and 63 more).
pub const MAX_NAME_LEN: usize = 64;

/// True for an element name: `[a-z][a-z0-9-]{0,63}`.
pub fn is_element_name(name: &str) -> bool {
    is_name(name, |b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
    })
}

/// True for an attribute (or footer field) name: `[a-z][a-z0-9_-]{0,63}`.
pub fn is_attribute_name(name: &str) -> bool {
    is_name(name, |b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'
    })
}

fn is_name(name: &str, rest: impl Fn(u8) -> bool) -> bool {
    let bytes = name.as_bytes();
    match bytes.split_first() {
        Some((first, tail)) => {
            first.is_ascii_lowercase()
                && bytes.len() <= MAX_NAME_LEN
                && tail.iter().all(|&b| rest(b))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names() {
        assert!(is_element_name("channel"));
        assert!(is_element_name("a-1"));
        assert!(!is_element_name(""));
        assert!(!is_element_name("1a"));
        assert!(!is_element_name("a_b"));
        assert!(!is_element_name("Channel"));
        assert!(is_element_name(&"a".repeat(64)));
        assert!(!is_element_name(&"a".repeat(65)));
    }

    #[test]
    fn attribute_names() {
        assert!(is_attribute_name("key_id"));
        assert!(is_attribute_name("x-y"));
        assert!(!is_attribute_name("_x"));
        assert!(!is_attribute_name("a b"));
    }
}
