//! The fast escaper (SWAR scan, bulk copies) against a naive one written from the spec text,
//! one character at a time. Inputs mix long clean runs with hostile characters so that every
//! position within a 16-byte block is exercised.

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_render::testing::{hostile_bytes, hostile_char};
use seal_render::{escape, escape_bytes, Context};

/// escape-v1 straight from the spec: one codeword per scalar.
fn naive_escape(text: &str, ctx: Context) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let literal = match ctx {
            Context::Inline => (' '..='~').contains(&c) && c != '\\',
            Context::Attribute => (' '..='~').contains(&c) && !matches!(c, '\\' | '"' | '<' | '>'),
            Context::Block => ((' '..='~').contains(&c) && !matches!(c, '\\' | '<')) || c == '\n',
        };
        match c {
            _ if literal => out.push(c),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    out
}

fn naive_escape_bytes(bytes: &[u8], ctx: Context) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&naive_escape(chunk.valid(), ctx));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{{{b:02x}}}"));
        }
    }
    out
}

fn long_mixed() -> impl Strategy<Value = String> {
    let run = prop::collection::vec(prop::char::range(' ', '~'), 0..40)
        .prop_map(|v| v.into_iter().collect::<String>());
    prop::collection::vec((run, hostile_char()), 0..12)
        .prop_map(|parts| parts.into_iter().map(|(r, c)| format!("{r}{c}")).collect())
}

fn context() -> impl Strategy<Value = Context> {
    prop::sample::select(Context::ALL.to_vec())
}

fn fast_equals_naive(
    runner: &mut TestRunner,
    escape_fn: fn(&str, Context) -> String,
) -> Result<(), String> {
    runner
        .run(&(long_mixed(), context()), |(text, ctx)| {
            prop_assert_eq!(escape_fn(&text, ctx), naive_escape(&text, ctx));
            Ok(())
        })
        .map_err(|e| e.to_string())
}

#[test]
fn fast_escape_equals_naive() {
    let mut runner = seal_test_support::exploring(1024);
    fast_equals_naive(&mut runner, |s, ctx| escape(s, ctx).into_owned()).unwrap();
}

#[test]
fn fast_escape_bytes_equals_naive() {
    let mut runner = seal_test_support::exploring(1024);
    runner
        .run(&(hostile_bytes(), context()), |(bytes, ctx)| {
            prop_assert_eq!(
                escape_bytes(&bytes, ctx).into_owned(),
                naive_escape_bytes(&bytes, ctx)
            );
            Ok(())
        })
        .unwrap();
}

/// Negative control: a fast path that skips whole 16-byte blocks when their first byte is clean.
#[test]
fn control_sloppy_block_skip_is_caught() {
    fn sloppy(text: &str, ctx: Context) -> String {
        let mut out = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            let cut = (0..=16.min(rest.len()))
                .rev()
                .find(|&i| rest.is_char_boundary(i))
                .unwrap();
            let cut = if cut == 0 {
                rest.chars().next().unwrap().len_utf8()
            } else {
                cut
            };
            let (block, tail) = rest.split_at(cut);
            if block.len() == 16 && block.as_bytes()[0].is_ascii_alphanumeric() {
                out.push_str(block);
            } else {
                out.push_str(&escape(block, ctx));
            }
            rest = tail;
        }
        out
    }
    let mut runner = seal_test_support::seeded(1024);
    assert!(fast_equals_naive(&mut runner, sloppy).is_err());
}
