//! The Redis key of one claim: an injective encoding of (prefix, scope kind, scope name, id).

use seal_verify::ClaimScope;

/// The key under which the claim of `id` in `scope` is kept, after `prefix`:
///
/// ```text
/// key = prefix kind ":" len(name) ":" name ":" len(id) ":" id
/// ```
///
/// `kind` is the scope's stable word (`conversation`, `key`, `approval`: no `:` in any), and
/// each length is the decimal byte length of the part after it. The encoding is injective for
/// a given prefix: read the kind up to the first `:`, then each length up to its `:`, then
/// exactly that many bytes; so two different `(scope, id)` never share a key, whatever bytes
/// (`:` included) the name and the id hold (spec/frame-v1.md section 9.4).
///
/// ```
/// use seal_store_redis::claim_key;
/// use seal_verify::ClaimScope;
///
/// let key = claim_key("seal:replay:v1:", &ClaimScope::Conversation("c:1"), "m1");
/// assert_eq!(key, b"seal:replay:v1:conversation:3:c:1:2:m1".to_vec());
/// ```
pub fn claim_key(prefix: &str, scope: &ClaimScope<'_>, id: &str) -> Vec<u8> {
    let kind = scope.kind();
    let name = scope.name();
    let name_len = name.len().to_string();
    let id_len = id.len().to_string();
    let mut key = Vec::with_capacity(
        prefix.len() + kind.len() + name_len.len() + name.len() + id_len.len() + id.len() + 4,
    );
    key.extend_from_slice(prefix.as_bytes());
    key.extend_from_slice(kind.as_bytes());
    key.push(b':');
    key.extend_from_slice(name_len.as_bytes());
    key.push(b':');
    key.extend_from_slice(name.as_bytes());
    key.push(b':');
    key.extend_from_slice(id_len.as_bytes());
    key.push(b':');
    key.extend_from_slice(id.as_bytes());
    key
}

/// A `SCAN .. MATCH` pattern for every key that starts with `prefix`: the prefix with Redis's
/// glob characters (`*`, `?`, `[`, `]`, `\`) escaped, then `*`.
pub(crate) fn prefix_pattern(prefix: &str) -> Vec<u8> {
    let mut pattern = Vec::with_capacity(prefix.len() * 2 + 1);
    for byte in prefix.bytes() {
        if matches!(byte, b'*' | b'?' | b'[' | b']' | b'\\') {
            pattern.push(b'\\');
        }
        pattern.push(byte);
    }
    pattern.push(b'*');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_escapes_glob_characters() {
        assert_eq!(
            prefix_pattern("a*b?[c]\\:"),
            b"a\\*b\\?\\[c\\]\\\\:*".to_vec()
        );
        assert_eq!(prefix_pattern("seal:"), b"seal:*".to_vec());
    }
}
