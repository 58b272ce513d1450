//! Member order of RFC 8785: keys compared as sequences of UTF-16 code units.

use std::cmp::Ordering;

/// Compares two keys by their UTF-16 code units, as RFC 8785 §3.2.3 requires.
///
/// UTF-8 byte order equals code point order, and code point order equals UTF-16 order except when
/// a supplementary character (U+10000 and above, a surrogate pair starting at 0xD800) meets a
/// character in U+E000..=U+FFFF: UTF-16 puts the supplementary character first. The first
/// differing byte of two UTF-8 strings with a common prefix sits at a character boundary whenever
/// it is a lead byte, so that single case is decided by the two lead bytes: 0xF0..=0xF4 for a
/// supplementary character, 0xEE or 0xEF for U+E000..=U+FFFF.
pub fn compare_keys(a: &str, b: &str) -> Ordering {
    let a = a.as_bytes();
    let b = b.as_bytes();
    let common = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
    match (a.get(common), b.get(common)) {
        (Some(&x), Some(&y)) => compare_differing(x, y),
        _ => a.len().cmp(&b.len()),
    }
}

fn compare_differing(x: u8, y: u8) -> Ordering {
    let supplementary = |byte: u8| byte >= 0xF0;
    let high_bmp = |byte: u8| byte == 0xEE || byte == 0xEF;
    if supplementary(x) && high_bmp(y) {
        Ordering::Less
    } else if high_bmp(x) && supplementary(y) {
        Ordering::Greater
    } else {
        x.cmp(&y)
    }
}

#[cfg(test)]
mod tests {
    use super::compare_keys;

    fn utf16(a: &str, b: &str) -> std::cmp::Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    #[test]
    fn agrees_with_utf16_on_boundary_characters() {
        let samples = [
            "",
            "a",
            "ab",
            "\u{7f}",
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{fb33}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f602}",
            "\u{10ffff}",
            "a\u{10000}",
            "a\u{ffff}",
            "\u{20ac}",
            "\u{e000}x",
        ];
        for a in samples {
            for b in samples {
                assert_eq!(compare_keys(a, b), utf16(a, b), "{a:?} vs {b:?}");
            }
        }
    }
}
