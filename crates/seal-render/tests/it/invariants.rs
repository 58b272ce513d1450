//! I1 (injective, round trip, strict decoder) and I2 (ASCII only, no breakout byte) over hostile
//! text, per context. Every suite also runs against deliberately broken escapers and decoders with
//! a fixed seed, and must find a counterexample: a suite that cannot fail proves nothing.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{TestCaseError, TestRunner};
use seal_render::testing::{check_rendered_ascii, hostile_bytes, hostile_char, hostile_string};
use seal_render::{decode, decode_bytes, escape, escape_bytes, Context};

// ---------------------------------------------------------------------------------------------
// Implementations under test: the real one, and broken ones built by replacing one function.

#[derive(Clone, Copy)]
struct Imp {
    escape: fn(&str, Context) -> String,
    decode: fn(&str, Context) -> Option<String>,
    escape_bytes: fn(&[u8], Context) -> String,
    decode_bytes: fn(&str, Context) -> Option<Vec<u8>>,
}

const REAL: Imp = Imp {
    escape: |s, ctx| escape(s, ctx).into_owned(),
    decode: |s, ctx| decode(s, ctx).ok().map(|c| c.into_owned()),
    escape_bytes: |b, ctx| escape_bytes(b, ctx).into_owned(),
    decode_bytes: |s, ctx| decode_bytes(s, ctx).ok().map(|c| c.into_owned()),
};

/// Broken: drops C0 and C1 controls before escaping.
const STRIPS_CONTROLS: Imp = Imp {
    escape: |s, ctx| {
        let kept: String = s.chars().filter(|c| !c.is_control()).collect();
        escape(&kept, ctx).into_owned()
    },
    ..REAL
};

/// Broken: escapes `<` (and the rest) but copies `\` as is.
const BACKSLASH_NOT_ESCAPED: Imp = Imp {
    escape: |s, ctx| {
        let mut out = String::new();
        for c in s.chars() {
            if c == '\\' {
                out.push('\\');
            } else {
                out.push_str(&escape(c.encode_utf8(&mut [0; 4]), ctx));
            }
        }
        out
    },
    ..REAL
};

/// Broken: NFKC-like fold of fullwidth forms U+FF01..=U+FF5E to ASCII before escaping.
const FOLDS_FULLWIDTH: Imp = Imp {
    escape: |s, ctx| escape(&fold_fullwidth(s), ctx).into_owned(),
    ..REAL
};

/// Broken: byte mode through `String::from_utf8_lossy`.
const LOSSY_BYTES: Imp = Imp {
    escape_bytes: |b, ctx| escape(&String::from_utf8_lossy(b), ctx).into_owned(),
    ..REAL
};

/// Broken: decoder lowercases hex digits inside braces, so uppercase hex is accepted.
const ACCEPTS_UPPERCASE_HEX: Imp = Imp {
    decode: |s, ctx| {
        decode(&lowercase_braces(s), ctx)
            .ok()
            .map(|c| c.into_owned())
    },
    decode_bytes: |s, ctx| {
        decode_bytes(&lowercase_braces(s), ctx)
            .ok()
            .map(|c| c.into_owned())
    },
    ..REAL
};

/// Broken: `str::escape_debug` as the escaper, in every context.
const ESCAPE_DEBUG: Imp = Imp {
    escape: |s, _| s.escape_debug().to_string(),
    ..REAL
};

/// Broken: carriage return copied raw.
const KEEPS_CR: Imp = Imp {
    escape: |s, ctx| {
        s.split('\r')
            .map(|part| escape(part, ctx).into_owned())
            .collect::<Vec<_>>()
            .join("\r")
    },
    ..REAL
};

/// Broken: attribute escaper that leaves `"` raw (escapes as Inline does).
const ATTRIBUTE_QUOTE_RAW: Imp = Imp {
    escape: |s, ctx| {
        let ctx = if ctx == Context::Attribute {
            Context::Inline
        } else {
            ctx
        };
        escape(s, ctx).into_owned()
    },
    ..REAL
};

/// Broken: decoder that accepts leading zeros in `\u{..}`.
const ACCEPTS_LEADING_ZERO: Imp = Imp {
    decode: |s, ctx| {
        decode(&s.replace("\\u{0", "\\u{"), ctx)
            .ok()
            .map(|c| c.into_owned())
    },
    ..REAL
};

fn fold_fullwidth(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xff01 + 0x21).unwrap(),
            _ => c,
        })
        .collect()
}

fn lowercase_braces(s: &str) -> String {
    let mut out = String::new();
    let mut in_braces = false;
    for c in s.chars() {
        match c {
            '{' => in_braces = true,
            '}' => in_braces = false,
            _ => {}
        }
        out.push(if in_braces { c.to_ascii_lowercase() } else { c });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Strategies.

fn context() -> impl Strategy<Value = Context> {
    prop::sample::select(Context::ALL.to_vec())
}

/// A pair (x, y) where y is a small edit of x chosen to collide under plausible escaper bugs:
/// a deleted, inserted or replaced character, a fullwidth/ASCII twin, or a character replaced by
/// its own escape written as literal text. Some pairs are independent.
fn near_pair() -> impl Strategy<Value = (String, String, Context)> {
    (
        hostile_string(),
        any::<Index>(),
        0..6u8,
        hostile_char(),
        context(),
    )
        .prop_map(|(x, at, edit, c, ctx)| {
            let mut chars: Vec<char> = x.chars().collect();
            let i = if chars.is_empty() {
                0
            } else {
                at.index(chars.len())
            };
            let y = match (edit, chars.get(i).copied()) {
                (0, Some(_)) => {
                    chars.remove(i);
                    chars.into_iter().collect()
                }
                (1, _) => {
                    chars.insert(i, c);
                    chars.into_iter().collect()
                }
                (2, Some(_)) => {
                    chars[i] = c;
                    chars.into_iter().collect()
                }
                (3, Some(old)) => {
                    chars[i] = fullwidth_twin(old);
                    chars.into_iter().collect()
                }
                (4, Some(old)) => {
                    let mut s: String = chars[..i].iter().collect();
                    s.push_str(&escape(old.encode_utf8(&mut [0; 4]), ctx));
                    s.extend(&chars[i + 1..]);
                    s
                }
                _ => c.to_string(),
            };
            (x, y, ctx)
        })
}

fn fullwidth_twin(c: char) -> char {
    match c {
        '!'..='~' => char::from_u32(u32::from(c) - 0x21 + 0xff01).unwrap(),
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xff01 + 0x21).unwrap(),
        _ => c,
    }
}

/// Byte pairs: y is x with one byte deleted, inserted or replaced.
fn near_byte_pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, Context)> {
    (
        hostile_bytes(),
        any::<Index>(),
        0..3u8,
        any::<u8>(),
        context(),
    )
        .prop_map(|(x, at, edit, b, ctx)| {
            let mut y = x.clone();
            let i = if y.is_empty() { 0 } else { at.index(y.len()) };
            match edit {
                0 if !y.is_empty() => {
                    y.remove(i);
                }
                1 => y.insert(i, b),
                _ if !y.is_empty() => y[i] = b,
                _ => y.push(b),
            }
            (x, y, ctx)
        })
}

/// Text over the escape grammar's own alphabet, so random strings often look like escapes.
fn escape_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "\\",
            "u",
            "x",
            "{",
            "}",
            "0",
            "1",
            "3",
            "9",
            "a",
            "c",
            "f",
            "A",
            "C",
            "F",
            "g",
            "n",
            "t",
            "<",
            ">",
            "\"",
            " ",
            "\n",
            "\t",
            "\r",
            "\\u{",
            "\\x{",
            "\\\\",
            "10ffff",
            "d800",
            "110000",
            "\u{e9}",
            "\u{202e}",
            "\\u{1f}",
            "\\u{1F}",
            "\\u{7f}",
            "\\u{202E}",
            "\\u{e9}",
            "\\u{0}",
            "\\u{00}",
            "\\u{41}",
            "\\x{ff}",
            "\\x{FF}",
            "\\x{e2}",
            "\\x{82}",
            "\\x{ac}",
            "\\u{d800}",
            "\\u{110000}",
        ])
        .prop_map(str::to_owned),
        hostile_char().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|p| p.concat())
}

// ---------------------------------------------------------------------------------------------
// Suites. Each takes an implementation and runs one property with the given runner.

type Suite = fn(&Imp, &mut TestRunner) -> Result<(), String>;

fn check<S: Strategy>(
    runner: &mut TestRunner,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> Result<(), String> {
    runner.run(&strategy, test).map_err(|e| e.to_string())
}

/// I1: decode(escape(x)) == x for text.
fn roundtrip_text(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(runner, (hostile_string(), context()), move |(x, ctx)| {
        let escaped = (imp.escape)(&x, ctx);
        prop_assert_eq!((imp.decode)(&escaped, ctx), Some(x));
        Ok(())
    })
}

/// I1: decode_bytes(escape_bytes(x)) == x.
fn roundtrip_bytes(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(runner, (hostile_bytes(), context()), move |(x, ctx)| {
        let escaped = (imp.escape_bytes)(&x, ctx);
        prop_assert_eq!((imp.decode_bytes)(&escaped, ctx), Some(x));
        Ok(())
    })
}

/// I1: escape(x) == escape(y) implies x == y.
fn injective_text(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(runner, near_pair(), move |(x, y, ctx)| {
        if x != y {
            prop_assert_ne!(
                (imp.escape)(&x, ctx),
                (imp.escape)(&y, ctx),
                "{:?} vs {:?}",
                x,
                y
            );
        }
        Ok(())
    })
}

/// I1: escape_bytes(x) == escape_bytes(y) implies x == y.
fn injective_bytes(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(runner, near_byte_pair(), move |(x, y, ctx)| {
        if x != y {
            prop_assert_ne!((imp.escape_bytes)(&x, ctx), (imp.escape_bytes)(&y, ctx));
        }
        Ok(())
    })
}

/// I1: every non-canonical mutation of a canonical escape is rejected.
fn rejects_mutations(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(runner, (hostile_string(), context()), move |(x, ctx)| {
        let escaped = escape(&x, ctx).into_owned();
        for mutated in non_canonical_mutations(&escaped, ctx) {
            prop_assert_eq!((imp.decode)(&mutated, ctx), None, "accepted `{}`", mutated);
        }
        Ok(())
    })
}

/// I1: the decoder accepts exactly the escaper's image: decode(e) == Some(x) implies
/// escape(x) == e, for arbitrary escape-like or hostile text e (which also must not panic).
fn decoder_image(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    let text = prop_oneof![3 => escape_like(), 1 => hostile_string()];
    check(runner, (text, context()), move |(e, ctx)| {
        if let Some(x) = (imp.decode)(&e, ctx) {
            prop_assert_eq!((imp.escape)(&x, ctx), e.clone());
        }
        if let Some(b) = (imp.decode_bytes)(&e, ctx) {
            prop_assert_eq!((imp.escape_bytes)(&b, ctx), e);
        }
        Ok(())
    })
}

/// I2: every output byte is printable ASCII, LF only in Block, and no raw byte a context
/// reserves (`"` `<` `>` in Attribute, `<` in Block).
fn ascii_only(imp: &Imp, runner: &mut TestRunner) -> Result<(), String> {
    let imp = *imp;
    check(
        runner,
        (hostile_string(), hostile_bytes(), context()),
        move |(text, bytes, ctx)| {
            for out in [(imp.escape)(&text, ctx), (imp.escape_bytes)(&bytes, ctx)] {
                if let Err(e) = check_rendered_ascii(&out, ctx) {
                    return Err(TestCaseError::fail(format!("{e}: {out:?}")));
                }
            }
            Ok(())
        },
    )
}

/// Variants of a canonical escape that the strict decoder must reject.
fn non_canonical_mutations(escaped: &str, ctx: Context) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = escaped.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let end = codeword_end(escaped, i);
            let codeword = &escaped[i..end];
            let scalar = decode(codeword, ctx).unwrap().chars().next().unwrap();
            if let Some(digits) = codeword
                .strip_prefix("\\u{")
                .and_then(|r| r.strip_suffix('}'))
            {
                // Uppercase hex.
                if digits.bytes().any(|d| d.is_ascii_lowercase()) {
                    out.push(splice(
                        escaped,
                        i,
                        end,
                        &format!("\\u{{{}}}", digits.to_uppercase()),
                    ));
                }
                // Leading zero.
                out.push(splice(escaped, i, end, &format!("\\u{{0{digits}}}")));
            }
            // The scalar written raw (it is not literal, or it would not be escaped). A raw `\`
            // is excluded: it would start another, valid, escape.
            if scalar != '\\' {
                out.push(splice(escaped, i, end, &scalar.to_string()));
            }
            // A short escape written long.
            if codeword.len() == 2 {
                out.push(splice(
                    escaped,
                    i,
                    end,
                    &format!("\\u{{{:x}}}", u32::from(scalar)),
                ));
            }
            i = end;
        } else {
            // A literal written as `\u{..}`.
            let c = char::from(bytes[i]);
            out.push(splice(
                escaped,
                i,
                i + 1,
                &format!("\\u{{{:x}}}", u32::from(c)),
            ));
            i += 1;
        }
        if out.len() > 64 {
            break;
        }
    }
    out
}

fn codeword_end(escaped: &str, start: usize) -> usize {
    let rest = &escaped[start..];
    if rest.starts_with("\\u{") || rest.starts_with("\\x{") {
        start + rest.find('}').unwrap() + 1
    } else {
        start + 2
    }
}

fn splice(s: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{}{}", &s[..start], with, &s[end..])
}

// ---------------------------------------------------------------------------------------------
// Runners.

fn random_runner(cases: u32) -> TestRunner {
    seal_test_support::exploring(cases)
}

fn seeded_runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn passes(suite: Suite) {
    if let Err(e) = suite(&REAL, &mut random_runner(512)) {
        panic!("{e}");
    }
}

fn finds_counterexample(suite: Suite, broken: &Imp) {
    let result = suite(broken, &mut seeded_runner(1024));
    assert!(
        result.is_err(),
        "suite found no counterexample against the broken implementation"
    );
}

// ---------------------------------------------------------------------------------------------
// The real implementation satisfies every suite.

#[test]
fn i1_roundtrip_text() {
    passes(roundtrip_text);
}

#[test]
fn i1_roundtrip_bytes() {
    passes(roundtrip_bytes);
}

#[test]
fn i1_injective_text() {
    passes(injective_text);
}

#[test]
fn i1_injective_bytes() {
    passes(injective_bytes);
}

#[test]
fn i1_decoder_rejects_non_canonical_mutations() {
    passes(rejects_mutations);
}

#[test]
fn i1_decoder_accepts_exactly_the_image() {
    passes(decoder_image);
}

#[test]
fn i2_ascii_only() {
    passes(ascii_only);
}

// ---------------------------------------------------------------------------------------------
// Negative controls: each broken implementation is caught by the named suite.

#[test]
fn control_strips_controls_fails_roundtrip_and_injectivity() {
    finds_counterexample(roundtrip_text, &STRIPS_CONTROLS);
    finds_counterexample(injective_text, &STRIPS_CONTROLS);
}

#[test]
fn control_backslash_not_escaped_fails_roundtrip_and_injectivity() {
    finds_counterexample(roundtrip_text, &BACKSLASH_NOT_ESCAPED);
    finds_counterexample(injective_text, &BACKSLASH_NOT_ESCAPED);
}

#[test]
fn control_fullwidth_fold_fails_roundtrip_and_injectivity() {
    finds_counterexample(roundtrip_text, &FOLDS_FULLWIDTH);
    finds_counterexample(injective_text, &FOLDS_FULLWIDTH);
}

#[test]
fn control_lossy_utf8_fails_byte_roundtrip_and_injectivity() {
    finds_counterexample(roundtrip_bytes, &LOSSY_BYTES);
    finds_counterexample(injective_bytes, &LOSSY_BYTES);
}

#[test]
fn control_uppercase_hex_decoder_fails_strictness() {
    finds_counterexample(rejects_mutations, &ACCEPTS_UPPERCASE_HEX);
    finds_counterexample(decoder_image, &ACCEPTS_UPPERCASE_HEX);
}

#[test]
fn control_leading_zero_decoder_fails_strictness() {
    finds_counterexample(rejects_mutations, &ACCEPTS_LEADING_ZERO);
}

#[test]
fn control_escape_debug_fails_ascii_and_roundtrip() {
    finds_counterexample(ascii_only, &ESCAPE_DEBUG);
    finds_counterexample(roundtrip_text, &ESCAPE_DEBUG);
}

#[test]
fn control_raw_cr_fails_ascii() {
    finds_counterexample(ascii_only, &KEEPS_CR);
}

#[test]
fn control_attribute_quote_raw_fails_ascii() {
    finds_counterexample(ascii_only, &ATTRIBUTE_QUOTE_RAW);
}
