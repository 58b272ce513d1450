//! Every one of the 1,112,064 Unicode scalars and every one of the 256 bytes, in every context:
//! the codeword round-trips, is ASCII (I2), is unique, and no codeword is a prefix of another.
//! Together with "the escaper concatenates codewords" (checked by the oracle suite) this is the
//! prefix-code proof of injectivity made concrete.

use seal_render::{decode, decode_bytes, escape_bytes, escape_into, Context};

fn scalars() -> impl Iterator<Item = char> {
    ('\0'..=char::MAX).filter(|c| !(0xd800..=0xdfff).contains(&u32::from(*c)))
}

fn is_ascii_for(codeword: &str, ctx: Context) -> bool {
    codeword
        .bytes()
        .all(|b| (0x20..=0x7e).contains(&b) || (b == b'\n' && ctx == Context::Block))
}

/// Sorted, a set is prefix-free iff no element is a prefix of its successor (anything between a
/// word and a longer word it prefixes shares that prefix). Also checks uniqueness.
fn assert_prefix_free(mut words: Vec<String>, ctx: Context) {
    words.sort_unstable();
    for pair in words.windows(2) {
        assert!(
            !pair[1].starts_with(pair[0].as_str()),
            "{ctx:?}: `{}` is a prefix of `{}`",
            pair[0],
            pair[1]
        );
    }
}

#[test]
fn scalar_count() {
    assert_eq!(scalars().count(), 1_112_064);
}

#[test]
fn every_scalar_inline() {
    every_scalar(Context::Inline);
}

#[test]
fn every_scalar_attribute() {
    every_scalar(Context::Attribute);
}

#[test]
fn every_scalar_block() {
    every_scalar(Context::Block);
}

fn every_scalar(ctx: Context) {
    let mut codewords = Vec::with_capacity(1_112_064 + 128);
    let mut buf = [0u8; 4];
    let mut probe = String::new();
    for c in scalars() {
        let mut codeword = String::new();
        escape_into(&mut codeword, c.encode_utf8(&mut buf), ctx);
        assert!(
            is_ascii_for(&codeword, ctx),
            "{ctx:?} {c:?} -> {codeword:?}"
        );
        // Shape of the prefix code: a literal is one non-`\` character standing for itself;
        // anything else starts with `\`.
        if codeword.len() == 1 {
            assert_eq!(codeword.chars().next(), Some(c));
            assert!(ctx.is_literal_char(c));
        } else {
            assert!(codeword.starts_with('\\'), "{ctx:?} {c:?} -> {codeword:?}");
            assert!(!ctx.is_literal_char(c));
        }
        // The decoder consumes exactly the codeword: followed by a literal it yields c then it.
        probe.clear();
        probe.push_str(&codeword);
        probe.push('z');
        let decoded = decode(&probe, ctx).unwrap();
        let mut chars = decoded.chars();
        assert_eq!(
            (chars.next(), chars.next(), chars.next()),
            (Some(c), Some('z'), None),
            "{ctx:?} {codeword}"
        );
        codewords.push(codeword);
    }
    // Byte mode adds one codeword per byte that is never valid UTF-8 on its own.
    for b in 0x80..=0xffu8 {
        let codeword = escape_bytes(&[b], ctx).into_owned();
        assert_eq!(codeword, format!("\\x{{{b:02x}}}"));
        assert_eq!(decode_bytes(&codeword, ctx).unwrap().as_ref(), &[b]);
        codewords.push(codeword);
    }
    let count = codewords.len();
    assert_eq!(count, 1_112_064 + 128);
    assert_prefix_free(codewords, ctx);
}

#[test]
fn every_single_byte_in_every_context() {
    for ctx in Context::ALL {
        let mut seen = std::collections::HashSet::new();
        for b in 0..=255u8 {
            let escaped = escape_bytes(&[b], ctx).into_owned();
            assert!(is_ascii_for(&escaped, ctx), "{ctx:?} {b:#x} -> {escaped:?}");
            assert_eq!(
                decode_bytes(&escaped, ctx).unwrap().as_ref(),
                &[b],
                "{ctx:?} {b:#x}"
            );
            assert!(seen.insert(escaped), "{ctx:?} {b:#x} collides");
        }
        assert_eq!(seen.len(), 256);
    }
}

#[test]
fn prefix_check_catches_a_prefix() {
    // Negative control for `assert_prefix_free`: `\u{1}` would be a prefix of `\u{1}0` if `}`
    // did not terminate escapes.
    let result = std::panic::catch_unwind(|| {
        assert_prefix_free(
            vec!["a".into(), "\\u{1".into(), "\\u{10".into()],
            Context::Inline,
        );
    });
    assert!(result.is_err());
}
