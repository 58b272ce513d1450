//! Reading CBOR items with ciborium, bounded in depth, one item at a time.

use ciborium::Value;

use super::MAX_CBOR_DEPTH;

/// Reads one CBOR data item from the front of `bytes` and advances `bytes` past it. `None` if
/// the bytes do not start with a well-formed item of at most [`MAX_CBOR_DEPTH`] levels.
///
/// ciborium's decoder reads exactly the bytes of the item (it keeps no read-ahead buffer), and
/// every length it allocates for is backed by bytes of the input, which every caller has bounded.
pub(super) fn read_item(bytes: &mut &[u8]) -> Option<Value> {
    ciborium::de::from_reader_with_recursion_limit::<Value, _>(&mut *bytes, MAX_CBOR_DEPTH).ok()
}

/// Reads exactly one CBOR item that fills `bytes`.
pub(super) fn read_whole(mut bytes: &[u8]) -> Option<Value> {
    let item = read_item(&mut bytes)?;
    bytes.is_empty().then_some(item)
}

/// The members of a map whose keys are all distinct text strings, in document order.
pub(super) fn text_keyed_map(value: &Value) -> Option<Vec<(&str, &Value)>> {
    let entries = value.as_map()?;
    let mut members: Vec<(&str, &Value)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let key = key.as_text()?;
        if members.iter().any(|(earlier, _)| *earlier == key) {
            return None;
        }
        members.push((key, value));
    }
    Some(members)
}

/// The members of a map whose keys are all distinct integers, in document order.
pub(super) fn integer_keyed_map(value: &Value) -> Option<Vec<(i128, &Value)>> {
    let entries = value.as_map()?;
    let mut members: Vec<(i128, &Value)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let key = i128::from(key.as_integer()?);
        if members.iter().any(|(earlier, _)| *earlier == key) {
            return None;
        }
        members.push((key, value));
    }
    Some(members)
}

/// The value of member `key`.
pub(super) fn member<'v, K: PartialEq>(members: &[(K, &'v Value)], key: K) -> Option<&'v Value> {
    members
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, value)| *value)
}
