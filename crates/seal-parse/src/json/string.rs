//! String scanning shared by the parser and the canonical writer.

/// Length of the longest prefix of `bytes` without `"`, `\` or a C0 control character.
///
/// Eight bytes are tested at a time with word arithmetic; the first word that may hold a special
/// byte is finished byte by byte.
pub(crate) fn plain_prefix_len(bytes: &[u8]) -> usize {
    let mut done = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        if word_has_special(u64::from_le_bytes(word)) {
            break;
        }
        done += 8;
    }
    let rest = bytes.get(done..).unwrap_or(&[]);
    done + rest
        .iter()
        .position(|&byte| is_special(byte))
        .unwrap_or(rest.len())
}

/// True for the bytes a canonical string must escape and a raw JSON string cannot hold as is.
pub(crate) fn is_special(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Appends `text` as an RFC 8785 string literal: quotes, then `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, other C0 controls as `\u00xx` (lowercase hex), everything else as literal UTF-8.
pub(crate) fn write_string(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let mut rest = text.as_bytes();
    loop {
        let plain = plain_prefix_len(rest);
        let Some((literal, tail)) = rest.split_at_checked(plain) else {
            break;
        };
        out.extend_from_slice(literal);
        let Some((&special, after)) = tail.split_first() else {
            break;
        };
        write_escape(special, out);
        rest = after;
    }
    out.push(b'"');
}

/// Appends the RFC 8785 escape of `byte` (one of [`is_special`]).
pub(crate) fn write_escape(byte: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => Some(b'"'),
        b'\\' => Some(b'\\'),
        0x08 => Some(b'b'),
        0x0c => Some(b'f'),
        b'\n' => Some(b'n'),
        b'\r' => Some(b'r'),
        b'\t' => Some(b't'),
        _ => None,
    };
    match short {
        Some(letter) => out.extend_from_slice(&[b'\\', letter]),
        None => {
            let high = HEX.get(usize::from(byte >> 4)).copied().unwrap_or(b'0');
            let low = HEX.get(usize::from(byte & 0x0f)).copied().unwrap_or(b'0');
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', high, low]);
        }
    }
}

fn word_has_special(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let quote = word ^ (ONES * u64::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote & HIGH;
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash & HIGH;
    (below_space | quote | backslash) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_matches_bytewise_scan() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..50_000 {
            let mut bytes = Vec::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pick = [
                    b'a', b'"', b'\\', 0x1f, 0x20, 0x7f, 0x80, 0xff, 0x00, b'!', 0x21,
                ];
                bytes.push(pick[(state % pick.len() as u64) as usize]);
            }
            state = state.wrapping_add(1);
            let naive = bytes
                .iter()
                .position(|&b| is_special(b))
                .unwrap_or(bytes.len());
            assert_eq!(plain_prefix_len(&bytes), naive, "{bytes:?}");
        }
    }

    #[test]
    fn escapes_minimally() {
        let mut out = Vec::new();
        write_string("a\"\\\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}\u{80}/", &mut out);
        assert_eq!(
            out,
            "\"a\\\"\\\\\\b\\f\\n\\r\\t\\u0000\\u001f\u{7f}\u{80}/\"".as_bytes()
        );
    }
}
