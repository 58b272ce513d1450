//! Proptest strategies for hostile text and checkers for renderers (feature `testing`).
//!
//! proptest's default `String` strategy almost never produces the characters that break renderers:
//! terminal controls, bidi overrides, invisible characters, lookalike angle brackets, or the
//! renderer's own escape syntax. These strategies produce them often, mixed with plain ASCII, so a
//! property over `hostile_string()` exercises every class the escape grammar has to neutralise.
//!
//! The classes are listed as public constants so that other suites (and readers) can see exactly
//! what is covered.

use proptest::prelude::*;

mod checks;
pub use checks::{
    check_ascii_only, check_breakout_free, check_injective, check_round_trip, Counterexample,
};

use crate::Context;

/// Single scalars that each have a known way of misleading a reader or a terminal.
///
/// Bidi overrides and isolates, implicit direction marks, zero-width characters and joiners, the
/// byte order mark, fullwidth and lookalike `<` `>` `/`, Hangul fillers and other blank letters,
/// the NBSP family, line and paragraph separators, and scalars next to the surrogate gap and at the
/// ends of the code space.
pub const HOSTILE_SCALARS: &[char] = &[
    // C0 controls that terminals act on, and DEL.
    '\u{0}',
    '\u{7}',
    '\u{8}',
    '\u{9}',
    '\u{a}',
    '\u{b}',
    '\u{c}',
    '\u{d}',
    '\u{1b}',
    '\u{7f}',
    // C1 controls: NEL, CSI, OSC, ST.
    '\u{85}',
    '\u{9b}',
    '\u{9d}',
    '\u{9c}',
    // Bidi embeddings, overrides and isolates.
    '\u{202a}',
    '\u{202b}',
    '\u{202c}',
    '\u{202d}',
    '\u{202e}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    // Implicit direction marks.
    '\u{200e}',
    '\u{200f}',
    '\u{61c}',
    // Zero-width characters, joiners, word joiner, BOM.
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{2060}',
    '\u{feff}',
    // Fullwidth and lookalike `<` `>` `/`.
    '\u{ff1c}',
    '\u{ff1e}',
    '\u{ff0f}',
    '\u{fe64}',
    '\u{fe65}',
    '\u{2039}',
    '\u{203a}',
    '\u{2329}',
    '\u{232a}',
    '\u{3008}',
    '\u{3009}',
    '\u{27e8}',
    '\u{27e9}',
    '\u{1438}',
    '\u{2215}',
    '\u{2044}',
    '\u{29f8}',
    '\u{2571}',
    // Fullwidth backslash and quotation mark.
    '\u{ff3c}',
    '\u{ff02}',
    // Hangul fillers and other blank letters.
    '\u{115f}',
    '\u{1160}',
    '\u{3164}',
    '\u{ffa0}',
    '\u{2800}',
    // NBSP family.
    '\u{a0}',
    '\u{2007}',
    '\u{202f}',
    // Line and paragraph separators.
    '\u{2028}',
    '\u{2029}',
    // Surrogate-adjacent scalars and the ends of the code space.
    '\u{d7ff}',
    '\u{e000}',
    '\u{fffd}',
    '\u{fffe}',
    '\u{ffff}',
    '\u{10ffff}',
    // Combining marks often stacked on angle brackets.
    '\u{338}',
    '\u{20d2}',
    '\u{301}',
];

/// Multi-character sequences that attack terminals, frame scanners or the escape grammar itself.
///
/// Terminal escape sequences (CSI, OSC with BEL and ST terminators), CRLF and backspace overwrite,
/// closing-tag variants a lenient reader might honour, and the renderer's own escape syntax as
/// literal text (which must itself be escaped, or decoding would not be injective).
pub const HOSTILE_SEQUENCES: &[&str] = &[
    "\u{1b}[31m",
    "\u{1b}[0m",
    "\u{1b}[2J",
    "\u{1b}]0;title\u{7}",
    "\u{1b}]8;;https://example.invalid\u{1b}\\",
    "\u{9b}31m",
    "\r\n",
    "ok\rforged",
    "abc\u{8}\u{8}\u{8}xyz",
    "</channel>",
    "<\\/channel>",
    "</CHANNEL >",
    "< /channel>",
    "\u{ff1c}/channel\u{ff1e}",
    "<channel source=\"x\" sig=\"AAAA\">",
    "</seal-alarm>",
    "</chan\u{200b}nel>",
    "\\u{3c}",
    "\\u{3C}",
    "\\u{003c}",
    "\\\\",
    "\\x{ff}",
    "\\n",
    "\\t",
    "\\",
    "\\u{",
    "\\u{110000}",
    "\\u{d800}",
    "\u{202e}txt.exe",
    "a\u{e0041}\u{e0042}\u{e007f}",
    "\u{fe0f}\u{e0100}",
    "e\u{301}",
    "\"",
    "'",
    "&lt;",
];

/// Any Unicode scalar, with hostile classes heavily weighted.
///
/// Covers printable ASCII (including the grammar's special `\` `<` `>` `"`), all C0 and C1
/// controls, DEL, the scalars of [`HOSTILE_SCALARS`], the tags block U+E0000..=U+E007F, both
/// variation selector ranges, combining diacritics, fullwidth ASCII forms U+FF01..=U+FF5E, and
/// occasionally any scalar at all.
pub fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::char::range(' ', '~'),
        2 => proptest::sample::select(vec!['\\', '<', '>', '"', '/', '{', '}', 'u', 'x']),
        2 => proptest::char::range('\u{0}', '\u{1f}'),
        1 => proptest::char::range('\u{7f}', '\u{9f}'),
        4 => proptest::sample::select(HOSTILE_SCALARS),
        1 => proptest::char::range('\u{e0000}', '\u{e007f}'),
        1 => proptest::char::range('\u{fe00}', '\u{fe0f}'),
        1 => proptest::char::range('\u{e0100}', '\u{e01ef}'),
        1 => proptest::char::range('\u{300}', '\u{36f}'),
        2 => proptest::char::range('\u{ff01}', '\u{ff5e}'),
        1 => any::<char>(),
    ]
}

/// Strings of up to 48 pieces, each piece a [`hostile_char`] or a [`HOSTILE_SEQUENCES`] entry.
///
/// Shrinks towards shorter strings and simpler pieces.
pub fn hostile_string() -> impl Strategy<Value = String> {
    proptest::collection::vec(hostile_piece(), 0..48).prop_map(|pieces| pieces.concat())
}

/// Byte strings mixing [`hostile_string`] text with bytes that are not valid UTF-8.
///
/// Includes lone continuation bytes, overlong encodings, encoded surrogates, code points beyond
/// U+10FFFF, truncated sequences, `0xFE`/`0xFF`, and arbitrary bytes.
pub fn hostile_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        3 => hostile_piece().prop_map(String::into_bytes),
        2 => proptest::sample::select(INVALID_UTF8).prop_map(<[u8]>::to_vec),
        2 => any::<u8>().prop_map(|b| vec![b]),
        1 => proptest::collection::vec(any::<u8>(), 0..6),
    ];
    proptest::collection::vec(piece, 0..32).prop_map(|pieces| pieces.concat())
}

/// Checks invariant I2 on rendered text: every byte is printable ASCII (`0x20..=0x7E`), LF
/// appears only in [`Context::Block`], and no byte the context reserves appears raw (`"` `<` `>`
/// in [`Context::Attribute`], `<` in [`Context::Block`]).
///
/// # Errors
/// A message naming the first offending byte and its offset.
pub fn check_rendered_ascii(rendered: &str, ctx: Context) -> Result<(), String> {
    for (offset, b) in rendered.bytes().enumerate() {
        let allowed = match b {
            b'\n' => ctx == Context::Block,
            b'"' | b'>' => ctx != Context::Attribute,
            b'<' => ctx == Context::Inline,
            0x20..=0x7e => true,
            _ => false,
        };
        if !allowed {
            return Err(format!(
                "byte {b:#04x} at offset {offset} is not allowed raw in {ctx:?} output"
            ));
        }
    }
    Ok(())
}

/// Byte sequences that are not valid UTF-8, or that become invalid when cut.
const INVALID_UTF8: &[&[u8]] = &[
    b"\x80",
    b"\xbf",
    b"\xc0\x80",
    b"\xc1\xbf",
    b"\xe0\x80\x80",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfe",
    b"\xff",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xc3",
    b"\xef\xbc\x9c\xef\xbc",
];

fn hostile_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => hostile_char().prop_map(String::from),
        2 => proptest::sample::select(HOSTILE_SEQUENCES).prop_map(str::to_owned),
    ]
}
