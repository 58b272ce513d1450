//! One test per decoder rejection kind, with the offset it reports.

use std::borrow::Cow;

use seal_render::{decode, decode_bytes, Context, DecodeError, DecodeErrorKind};

fn err(escaped: &str, ctx: Context) -> DecodeError {
    decode(escaped, ctx).expect_err(escaped)
}

fn err_bytes(escaped: &str, ctx: Context) -> DecodeError {
    decode_bytes(escaped, ctx).expect_err(escaped)
}

fn at(offset: usize, kind: DecodeErrorKind) -> DecodeError {
    DecodeError { offset, kind }
}

#[test]
fn raw_character() {
    use DecodeErrorKind::RawCharacter;
    assert_eq!(
        err("ab\rc", Context::Inline),
        at(2, RawCharacter { character: '\r' })
    );
    assert_eq!(
        err("a\tb", Context::Block),
        at(1, RawCharacter { character: '\t' })
    );
    assert_eq!(
        err("x\u{202e}", Context::Inline),
        at(
            1,
            RawCharacter {
                character: '\u{202e}'
            }
        )
    );
    assert_eq!(
        err("a\"b", Context::Attribute),
        at(1, RawCharacter { character: '"' })
    );
    assert_eq!(
        err("<", Context::Attribute),
        at(0, RawCharacter { character: '<' })
    );
    assert_eq!(
        err(">", Context::Attribute),
        at(0, RawCharacter { character: '>' })
    );
    assert_eq!(
        err("a</x>", Context::Block),
        at(1, RawCharacter { character: '<' })
    );
    assert_eq!(
        err("a\nb", Context::Inline),
        at(1, RawCharacter { character: '\n' })
    );
    assert_eq!(
        err("a\nb", Context::Attribute),
        at(1, RawCharacter { character: '\n' })
    );
    assert_eq!(
        err("\u{7f}", Context::Block),
        at(
            0,
            RawCharacter {
                character: '\u{7f}'
            }
        )
    );
    assert_eq!(
        err_bytes("\u{ff1c}", Context::Block),
        at(
            0,
            RawCharacter {
                character: '\u{ff1c}'
            }
        )
    );
    // The same characters are fine where they are literal.
    assert_eq!(decode("a\"<>b", Context::Inline).unwrap(), "a\"<>b");
    assert_eq!(decode("a\nb", Context::Block).unwrap(), "a\nb");
}

#[test]
fn unknown_escape() {
    use DecodeErrorKind::UnknownEscape;
    assert_eq!(
        err("ab\\r", Context::Inline),
        at(2, UnknownEscape { character: 'r' })
    );
    assert_eq!(
        err("\\U{41}", Context::Inline),
        at(0, UnknownEscape { character: 'U' })
    );
    assert_eq!(
        err("\\\"", Context::Attribute),
        at(0, UnknownEscape { character: '"' })
    );
    assert_eq!(
        err("\\/", Context::Block),
        at(0, UnknownEscape { character: '/' })
    );
    assert_eq!(
        err("\\\u{e9}", Context::Block),
        at(
            0,
            UnknownEscape {
                character: '\u{e9}'
            }
        )
    );
    assert_eq!(
        err("\\ ", Context::Block),
        at(0, UnknownEscape { character: ' ' })
    );
}

#[test]
fn trailing_backslash() {
    assert_eq!(
        err("abc\\", Context::Inline),
        at(3, DecodeErrorKind::TrailingBackslash)
    );
    assert_eq!(
        err("\\", Context::Block),
        at(0, DecodeErrorKind::TrailingBackslash)
    );
    assert_eq!(
        err_bytes("\\\\\\", Context::Attribute),
        at(2, DecodeErrorKind::TrailingBackslash)
    );
}

#[test]
fn unterminated_escape() {
    use DecodeErrorKind::UnterminatedEscape;
    assert_eq!(err("\\u", Context::Inline), at(0, UnterminatedEscape));
    assert_eq!(err("\\u3c", Context::Inline), at(0, UnterminatedEscape));
    assert_eq!(err("a\\u{3c", Context::Inline), at(1, UnterminatedEscape));
    assert_eq!(
        err_bytes("\\x{ff", Context::Inline),
        at(0, UnterminatedEscape)
    );
    assert_eq!(
        err_bytes("\\xff", Context::Inline),
        at(0, UnterminatedEscape)
    );
}

#[test]
fn empty_braces() {
    assert_eq!(
        err("\\u{}", Context::Inline),
        at(0, DecodeErrorKind::EmptyBraces)
    );
    assert_eq!(
        err_bytes("\\x{}", Context::Inline),
        at(0, DecodeErrorKind::EmptyBraces)
    );
}

#[test]
fn too_many_digits() {
    assert_eq!(
        err("\\u{1000000}", Context::Inline),
        at(0, DecodeErrorKind::TooManyDigits)
    );
    assert_eq!(
        err("\\u{10ffff0}", Context::Block),
        at(0, DecodeErrorKind::TooManyDigits)
    );
}

#[test]
fn byte_escape_length() {
    assert_eq!(
        err_bytes("\\x{f}", Context::Inline),
        at(0, DecodeErrorKind::ByteEscapeLength)
    );
    assert_eq!(
        err_bytes("\\x{0ff}", Context::Inline),
        at(0, DecodeErrorKind::ByteEscapeLength)
    );
}

#[test]
fn bad_hex() {
    use DecodeErrorKind::BadHex;
    assert_eq!(
        err("\\u{3C}", Context::Block),
        at(0, BadHex { character: 'C' })
    );
    assert_eq!(
        err("\\u{FEFF}", Context::Block),
        at(0, BadHex { character: 'F' })
    );
    assert_eq!(
        err("\\u{g}", Context::Block),
        at(0, BadHex { character: 'g' })
    );
    assert_eq!(
        err("\\u{ 3c}", Context::Block),
        at(0, BadHex { character: ' ' })
    );
    assert_eq!(
        err("\\u{+3c}", Context::Block),
        at(0, BadHex { character: '+' })
    );
    assert_eq!(
        err("\\u{\u{ff11}}", Context::Block),
        at(
            0,
            BadHex {
                character: '\u{ff11}'
            }
        )
    );
    assert_eq!(
        err_bytes("\\x{FF}", Context::Block),
        at(0, BadHex { character: 'F' })
    );
}

#[test]
fn leading_zero() {
    assert_eq!(
        err("\\u{03c}", Context::Block),
        at(0, DecodeErrorKind::LeadingZero)
    );
    assert_eq!(
        err("\\u{00}", Context::Block),
        at(0, DecodeErrorKind::LeadingZero)
    );
    assert_eq!(
        err("\\u{0202e}", Context::Inline),
        at(0, DecodeErrorKind::LeadingZero)
    );
    assert_eq!(decode("\\u{0}", Context::Inline).unwrap(), "\0");
}

#[test]
fn non_canonical_escape() {
    use DecodeErrorKind::NonCanonicalEscape;
    assert_eq!(
        err("\\u{41}", Context::Inline),
        at(0, NonCanonicalEscape { scalar: 'A' })
    );
    assert_eq!(
        err("\\u{5c}", Context::Inline),
        at(0, NonCanonicalEscape { scalar: '\\' })
    );
    assert_eq!(
        err("\\u{9}", Context::Block),
        at(0, NonCanonicalEscape { scalar: '\t' })
    );
    assert_eq!(
        err("\\u{a}", Context::Inline),
        at(0, NonCanonicalEscape { scalar: '\n' })
    );
    assert_eq!(
        err("\\u{a}", Context::Block),
        at(0, NonCanonicalEscape { scalar: '\n' })
    );
    assert_eq!(
        err("x\\n", Context::Block),
        at(1, NonCanonicalEscape { scalar: '\n' })
    );
    assert_eq!(
        err("\\u{3c}", Context::Inline),
        at(0, NonCanonicalEscape { scalar: '<' })
    );
    assert_eq!(
        err("\\u{22}", Context::Block),
        at(0, NonCanonicalEscape { scalar: '"' })
    );
    // The same escapes are canonical where the scalar is not literal.
    assert_eq!(decode("\\u{3c}", Context::Block).unwrap(), "<");
    assert_eq!(decode("\\u{22}", Context::Attribute).unwrap(), "\"");
}

#[test]
fn surrogate() {
    use DecodeErrorKind::Surrogate;
    assert_eq!(
        err("\\u{d800}", Context::Inline),
        at(0, Surrogate { value: 0xd800 })
    );
    assert_eq!(
        err("ok\\u{dfff}", Context::Inline),
        at(2, Surrogate { value: 0xdfff })
    );
    assert_eq!(
        decode("\\u{d7ff}\\u{e000}", Context::Inline).unwrap(),
        "\u{d7ff}\u{e000}"
    );
}

#[test]
fn out_of_range() {
    use DecodeErrorKind::OutOfRange;
    assert_eq!(
        err("\\u{110000}", Context::Inline),
        at(0, OutOfRange { value: 0x11_0000 })
    );
    assert_eq!(
        err("\\u{ffffff}", Context::Inline),
        at(0, OutOfRange { value: 0xff_ffff })
    );
    assert_eq!(
        decode("\\u{10ffff}", Context::Inline).unwrap(),
        "\u{10ffff}"
    );
}

#[test]
fn byte_escape_in_text() {
    assert_eq!(
        err("ab\\x{ff}", Context::Inline),
        at(2, DecodeErrorKind::ByteEscapeInText)
    );
    assert_eq!(
        err("\\x{zz}", Context::Block),
        at(0, DecodeErrorKind::ByteEscapeInText)
    );
}

#[test]
fn byte_escape_of_valid_utf8() {
    use DecodeErrorKind::ByteEscapeOfValidUtf8;
    assert_eq!(
        err_bytes("\\x{41}", Context::Inline),
        at(0, ByteEscapeOfValidUtf8)
    );
    // A complete euro sign spelled as bytes.
    assert_eq!(
        err_bytes("a\\x{e2}\\x{82}\\x{ac}", Context::Inline),
        at(1, ByteEscapeOfValidUtf8)
    );
    // A truncated sequence is invalid on its own, so its bytes are canonical...
    assert_eq!(
        decode_bytes("\\x{e2}\\x{82}", Context::Inline)
            .unwrap()
            .as_ref(),
        b"\xe2\x82"
    );
    // ...and a following scalar can never complete it.
    assert_eq!(
        decode_bytes("\\x{e2}\\u{82}", Context::Inline)
            .unwrap()
            .as_ref(),
        b"\xe2\xc2\x82"
    );
    // Only the escaped byte that joins valid UTF-8 is reported.
    assert_eq!(
        err_bytes("\\x{ff}\\x{7f}", Context::Inline),
        at(6, ByteEscapeOfValidUtf8)
    );
}

#[test]
fn borrowed_when_nothing_to_decode() {
    assert!(matches!(
        decode("plain text", Context::Attribute),
        Ok(Cow::Borrowed(_))
    ));
    assert!(matches!(
        decode("a\nb", Context::Block),
        Ok(Cow::Borrowed(_))
    ));
    assert!(matches!(
        decode_bytes("plain", Context::Inline),
        Ok(Cow::Borrowed(_))
    ));
    assert!(matches!(
        decode("a\\\\", Context::Inline),
        Ok(Cow::Owned(_))
    ));
}

#[test]
fn messages_are_lowercase_ascii_without_trailing_period() {
    let errors = [
        err("\\u{41}", Context::Inline),
        err("\u{202e}", Context::Inline),
        err("\\q", Context::Inline),
        err("\\u{D800}", Context::Inline),
        err_bytes("\\x{41}", Context::Inline),
    ];
    for e in errors {
        let message = e.to_string();
        assert!(message.is_ascii(), "{message}");
        assert!(!message.ends_with('.'), "{message}");
        assert!(!message.chars().next().unwrap().is_uppercase(), "{message}");
    }
    assert_eq!(
        err("\u{202e}", Context::Inline).to_string(),
        "raw character `\\u{202e}` is not literal in this context at byte 0"
    );
}
