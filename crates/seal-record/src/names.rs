//! The name grammars of frame-v1, checked where a signing input is built.

/// Longest element or attribute name, in bytes (the grammar allows a first letter and 63 more).
pub const MAX_NAME_LEN: usize = 64;

/// True for an element name: `[a-z][a-z0-9-]{0,63}`.
pub fn is_element_name(name: &str) -> bool {
    is_name(name, &ELEMENT_NAME_REST)
}

/// True for an attribute (or footer field) name: `[a-z][a-z0-9_-]{0,63}`.
pub fn is_attribute_name(name: &str) -> bool {
    is_name(name, &ATTRIBUTE_NAME_REST)
}

/// The bytes that may follow the first letter of an element name: `[a-z0-9-]`.
static ELEMENT_NAME_REST: [bool; 256] = name_rest(false);

/// The bytes that may follow the first letter of an attribute name: `[a-z0-9_-]`.
static ATTRIBUTE_NAME_REST: [bool; 256] = name_rest(true);

/// A table of `[a-z0-9-]`, with `_` when `underscore`, indexed by the byte.
// The index stays below 256.
#[allow(clippy::indexing_slicing)]
const fn name_rest(underscore: bool) -> [bool; 256] {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] =
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || (underscore && b == b'_');
        byte += 1;
    }
    table
}

fn is_name(name: &str, rest: &[bool; 256]) -> bool {
    let bytes = name.as_bytes();
    match bytes.split_first() {
        Some((first, tail)) => {
            first.is_ascii_lowercase()
                && bytes.len() <= MAX_NAME_LEN
                && tail
                    .iter()
                    .all(|&b| rest.get(usize::from(b)).is_some_and(|&allowed| allowed))
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
