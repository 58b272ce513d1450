//! The lossless profile as properties (spec/canonical-json.md, "Lossless profile"): canonical
//! bytes agree with a naive reference canonicalizer, round-trip, are idempotent and injective,
//! do not depend on spelling, and leave the strict profile's documents as they were. Generated
//! documents hold integers beyond 2^53, long decimals, exponents of every spelling, lone high and
//! low surrogates (paired, unpaired, adjacent to pairs) and every escape. Each property also runs
//! against a deliberately broken canonicalizer through a fixed-seed `TestRunner`, which must find
//! a counterexample.

use std::borrow::Cow;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_parse::json::{
    canonicalize, canonicalize_lossless, parse, parse_lossless, JsonLimits, Number, Value,
};

// ---------------------------------------------------------------------------------------------
// A model of lossless documents: numbers are their literal text, strings are UTF-16 code units.

#[derive(Debug, Clone, PartialEq)]
enum L {
    Null,
    Bool(bool),
    /// A literal of the RFC 8259 number grammar; the literal is the value.
    Num(String),
    /// Code units; lone surrogates allowed.
    Str(Vec<u16>),
    Arr(Vec<L>),
    /// Members in document order; keys are text.
    Obj(Vec<(String, L)>),
}

impl L {
    /// The same value with every object's members in key order (for value equality).
    fn normalized(&self) -> L {
        match self {
            L::Arr(items) => L::Arr(items.iter().map(L::normalized).collect()),
            L::Obj(members) => {
                let mut members: Vec<_> = members
                    .iter()
                    .map(|(key, value)| (key.clone(), value.normalized()))
                    .collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                L::Obj(members)
            }
            other => other.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The naive reference: a recursive-descent reader of the lossless profile into the model, and a
// writer of the model's canonical bytes straight from the spec.

#[derive(Clone, Copy, Default)]
struct Rules {
    /// Broken on purpose: a repeated key replaces the earlier member.
    last_duplicate_wins: bool,
    /// Broken on purpose: a key with a lone surrogate is repaired with U+FFFD.
    repairs_keys: bool,
}

fn naive(input: &[u8]) -> Result<Vec<u8>, String> {
    naive_with(input, Rules::default())
}

fn naive_with(input: &[u8], rules: Rules) -> Result<Vec<u8>, String> {
    let model = naive_parse(input, rules)?;
    let mut out = String::new();
    naive_write(&model, &mut out);
    Ok(out.into_bytes())
}

fn naive_parse(input: &[u8], rules: Rules) -> Result<L, String> {
    let text = std::str::from_utf8(input).map_err(|_| "invalid_utf8".to_owned())?;
    if text.starts_with('\u{feff}') {
        return Err("byte_order_mark".into());
    }
    let mut reader = Naive {
        text,
        pos: 0,
        rules,
    };
    reader.space();
    let value = reader.value(1)?;
    reader.space();
    if reader.pos != text.len() {
        return Err("trailing_characters".into());
    }
    Ok(value)
}

struct Naive<'t> {
    text: &'t str,
    pos: usize,
    rules: Rules,
}

impl Naive<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn expect(&mut self, expected: char) -> Result<(), String> {
        match self.bump() {
            Some(c) if c == expected => Ok(()),
            other => Err(format!("expected {expected:?}, found {other:?}")),
        }
    }

    fn space(&mut self) {
        while let Some(' ' | '\t' | '\n' | '\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<L, String> {
        match self.peek() {
            Some('{' | '[') if depth > 128 => Err("depth_exceeded".into()),
            Some('{') => {
                self.pos += 1;
                self.space();
                let mut members: Vec<(String, L)> = Vec::new();
                if self.peek() == Some('}') {
                    self.pos += 1;
                    return Ok(L::Obj(members));
                }
                loop {
                    self.space();
                    let units = self.string()?;
                    let key = if self.rules.repairs_keys {
                        String::from_utf16_lossy(&units)
                    } else {
                        String::from_utf16(&units).map_err(|_| "lone_surrogate".to_owned())?
                    };
                    self.space();
                    self.expect(':')?;
                    self.space();
                    let value = self.value(depth + 1)?;
                    match members.iter().position(|(existing, _)| *existing == key) {
                        Some(at) if self.rules.last_duplicate_wins => members[at].1 = value,
                        Some(_) => return Err("duplicate_key".into()),
                        None => members.push((key, value)),
                    }
                    self.space();
                    match self.bump() {
                        Some(',') => {}
                        Some('}') => return Ok(L::Obj(members)),
                        other => return Err(format!("in object: {other:?}")),
                    }
                }
            }
            Some('[') => {
                self.pos += 1;
                self.space();
                let mut items = Vec::new();
                if self.peek() == Some(']') {
                    self.pos += 1;
                    return Ok(L::Arr(items));
                }
                loop {
                    self.space();
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.bump() {
                        Some(',') => {}
                        Some(']') => return Ok(L::Arr(items)),
                        other => return Err(format!("in array: {other:?}")),
                    }
                }
            }
            Some('"') => Ok(L::Str(self.string()?)),
            Some('-' | '0'..='9') => self.number(),
            Some('t') => self.word("true", L::Bool(true)),
            Some('f') => self.word("false", L::Bool(false)),
            Some('n') => self.word("null", L::Null),
            other => Err(format!("no value at {other:?}")),
        }
    }

    fn word(&mut self, word: &str, value: L) -> Result<L, String> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(format!("not {word}"))
        }
    }

    fn string(&mut self) -> Result<Vec<u16>, String> {
        self.expect('"')?;
        let mut units = Vec::new();
        loop {
            match self.bump() {
                None => return Err("unexpected_end".into()),
                Some('"') => return Ok(units),
                Some('\\') => {
                    let unit = match self.bump() {
                        Some('"') => 0x22,
                        Some('\\') => 0x5c,
                        Some('/') => 0x2f,
                        Some('b') => 0x08,
                        Some('f') => 0x0c,
                        Some('n') => 0x0a,
                        Some('r') => 0x0d,
                        Some('t') => 0x09,
                        Some('u') => {
                            let hex = self
                                .text
                                .get(self.pos..self.pos + 4)
                                .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                                .ok_or("invalid_unicode_escape")?;
                            self.pos += 4;
                            u16::from_str_radix(hex, 16).unwrap()
                        }
                        other => return Err(format!("invalid escape {other:?}")),
                    };
                    units.push(unit);
                }
                Some(c) if (c as u32) < 0x20 => return Err("control_character_in_string".into()),
                Some(c) => units.extend_from_slice(c.encode_utf16(&mut [0; 2])),
            }
        }
    }

    fn number(&mut self) -> Result<L, String> {
        let start = self.pos;
        let digits = |reader: &mut Self| {
            let from = reader.pos;
            while let Some('0'..='9') = reader.peek() {
                reader.pos += 1;
            }
            reader.pos > from
        };
        if self.peek() == Some('-') {
            self.pos += 1;
        }
        match self.peek() {
            Some('0') => self.pos += 1,
            Some('1'..='9') => {
                digits(self);
            }
            _ => return Err("invalid_number".into()),
        }
        if self.peek() == Some('.') {
            self.pos += 1;
            if !digits(self) {
                return Err("invalid_number".into());
            }
        }
        if let Some('e' | 'E') = self.peek() {
            self.pos += 1;
            if let Some('+' | '-') = self.peek() {
                self.pos += 1;
            }
            if !digits(self) {
                return Err("invalid_number".into());
            }
        }
        Ok(L::Num(self.text[start..self.pos].to_owned()))
    }
}

/// The spec's canonical form of a model value, written directly.
fn naive_write(value: &L, out: &mut String) {
    match value {
        L::Null => out.push_str("null"),
        L::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        L::Num(literal) => out.push_str(literal),
        L::Str(units) => write_units(units, false, out),
        L::Arr(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                naive_write(item, out);
            }
            out.push(']');
        }
        L::Obj(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (index, (key, item)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_units(&key.encode_utf16().collect::<Vec<_>>(), false, out);
                out.push(':');
                naive_write(item, out);
            }
            out.push('}');
        }
    }
}

/// A string literal of code units: RFC 8785 escaping, lone surrogates as `\udxxx` (or, broken on
/// purpose with `upper`, `\uDXXX`).
fn write_units(units: &[u16], upper: bool, out: &mut String) {
    out.push('"');
    for item in char::decode_utf16(units.iter().copied()) {
        match item {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(lone) if upper => out.push_str(&format!("\\u{:04X}", lone.unpaired_surrogate())),
            Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Rendering one model value in many equivalent spellings (numbers are never respelled: under
// the lossless profile the literal is the value).

struct Style(u64);

impl Style {
    fn pick(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }

    fn space(&mut self, out: &mut String) {
        out.push_str(["", "", " ", "\n", "\t", "\r\n  "][self.pick(6) as usize]);
    }
}

fn render(value: &L, seed: u64) -> String {
    let mut out = String::new();
    let mut style = Style(seed | 1);
    style.space(&mut out);
    render_into(value, &mut style, &mut out);
    style.space(&mut out);
    out
}

fn render_into(value: &L, style: &mut Style, out: &mut String) {
    match value {
        L::Null => out.push_str("null"),
        L::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        L::Num(literal) => out.push_str(literal),
        L::Str(units) => render_units(units, style, out),
        L::Arr(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                style.space(out);
                render_into(item, style, out);
                style.space(out);
            }
            style.space(out);
            out.push(']');
        }
        L::Obj(members) => {
            let mut order: Vec<usize> = (0..members.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, style.pick(i as u64 + 1) as usize);
            }
            out.push('{');
            for (index, &at) in order.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                style.space(out);
                let key: Vec<u16> = members[at].0.encode_utf16().collect();
                render_units(&key, style, out);
                style.space(out);
                out.push(':');
                style.space(out);
                render_into(&members[at].1, style, out);
            }
            style.space(out);
            out.push('}');
        }
    }
}

fn render_units(units: &[u16], style: &mut Style, out: &mut String) {
    let escape = |unit: u16, style: &mut Style, out: &mut String| {
        if style.pick(2) == 0 {
            out.push_str(&format!("\\u{unit:04x}"));
        } else {
            out.push_str(&format!("\\u{unit:04X}"));
        }
    };
    out.push('"');
    for item in char::decode_utf16(units.iter().copied()) {
        let c = match item {
            Ok(c) => c,
            Err(lone) => {
                escape(lone.unpaired_surrogate(), style, out);
                continue;
            }
        };
        let must_escape = (c as u32) < 0x20 || c == '"' || c == '\\';
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        match style.pick(4) {
            0 | 1 if !must_escape => out.push(c),
            2 if short.is_some() => out.push_str(short.unwrap()),
            _ => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    escape(*unit, style, out);
                }
            }
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------------------------
// Generators, including the hostile corpus.

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range('a', 'e'),
        3 => prop::sample::select(vec![
            '"', '\\', '/', ' ', '\u{0}', '\u{1f}', '\n', '\r', '\t', '\u{8}', '\u{c}', '\u{7f}',
            '\u{80}', '\u{e9}', '\u{301}', '\u{2028}', '\u{202e}', '\u{200b}', '\u{feff}',
            '\u{d7ff}', '\u{e000}', '\u{fb33}', '\u{fffd}', '\u{ffff}', '\u{10000}', '\u{1f602}',
            '\u{e0041}', '\u{10ffff}', '\u{ff1c}',
        ]),
        1 => any::<char>(),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_char(), 0..4).prop_map(|chars| chars.into_iter().collect())
}

/// Code units of text, with lone high and low surrogates, pairs, and surrogates next to pairs.
fn units(lone: bool) -> BoxedStrategy<Vec<u16>> {
    let text = hostile_char().prop_map(|c| c.encode_utf16(&mut [0; 2]).to_vec());
    let piece = if lone {
        prop_oneof![
            5 => text,
            1 => (0xd800_u16..=0xdbff).prop_map(|unit| vec![unit]),
            1 => (0xdc00_u16..=0xdfff).prop_map(|unit| vec![unit]),
            1 => prop::sample::select(vec![
                vec![0xd800_u16],
                vec![0xdfff],
                vec![0xd83d, 0xde00],
                vec![0xde00, 0xd83d],
                vec![0xd800, 0xd800, 0xdc00],
            ]),
        ]
        .boxed()
    } else {
        text.boxed()
    };
    prop::collection::vec(piece, 0..8)
        .prop_map(|pieces| pieces.concat())
        .boxed()
}

/// Number literals of the RFC 8259 grammar that the strict profile rejects or respells, and
/// plain ones.
fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        // Integers beyond 2^53 (beyond i64 and u64 too).
        "-?[1-9][0-9]{16,40}",
        // Small integers.
        "-?(0|[1-9][0-9]{0,5})",
        // Long decimals.
        "-?(0|[1-9][0-9]{0,5})\\.[0-9]{15,40}",
        // Exponents of every spelling, overflow and underflow included.
        "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,20})?[eE][+-]?[0-9]{1,4}",
        // Exact doubles in their shortest form.
        strict_literal(),
        prop::sample::select(vec![
            "12345678901234567000",
            "9007199254740993",
            "-9007199254740993",
            "18014398509481984",
            "1.0",
            "-0",
            "-0.0",
            "1E2",
            "1e+2",
            "0.10",
            "0.10000000000000001",
            "1e400",
            "-1e-400",
            "5e-324",
            "1e+21",
            "1e21",
        ])
        .prop_map(str::to_owned),
    ]
}

/// Literals the strict profile accepts: the shortest form of an exact double, or that form with
/// a zero fraction or an uppercase exponent.
fn strict_literal() -> impl Strategy<Value = String> {
    let double = prop_oneof![
        (-1000_i64..1000).prop_map(|v| v as f64),
        (-(1_i64 << 53)..=(1_i64 << 53)).prop_map(|v| v as f64),
        (any::<i32>(), -40_i32..40).prop_map(|(m, e)| format!("{m}e{e}").parse().unwrap()),
        any::<f64>(),
    ]
    .prop_filter("a number of the strict profile", |v| {
        Number::from_f64(*v).is_ok()
    });
    (double, 0_u8..3).prop_map(|(value, variant)| {
        let shortest = ryu_js::Buffer::new().format_finite(value).to_owned();
        match variant {
            1 if !shortest.contains(['.', 'e']) => format!("{shortest}.0"),
            2 => shortest.replace('e', "E"),
            _ => shortest,
        }
    })
}

fn leaf(lossless: bool) -> BoxedStrategy<L> {
    if lossless {
        prop_oneof![
            1 => Just(L::Null),
            1 => any::<bool>().prop_map(L::Bool),
            2 => literal().prop_map(L::Num),
            2 => units(true).prop_map(L::Str),
        ]
        .boxed()
    } else {
        prop_oneof![
            1 => Just(L::Null),
            1 => any::<bool>().prop_map(L::Bool),
            2 => strict_literal().prop_map(L::Num),
            2 => units(false).prop_map(L::Str),
        ]
        .boxed()
    }
}

fn unique(members: Vec<(String, L)>) -> Vec<(String, L)> {
    let mut seen = std::collections::BTreeSet::new();
    members
        .into_iter()
        .filter(|(key, _)| seen.insert(key.clone()))
        .collect()
}

/// A document; with `lossless`, its leaves include what only the lossless profile keeps.
fn document(lossless: bool) -> impl Strategy<Value = L> {
    leaf(lossless).prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(L::Arr),
            prop::collection::vec((key(), inner), 0..7).prop_map(|m| L::Obj(unique(m))),
        ]
    })
}

/// Two leaves that are different values but that a lossy canonicalizer may confuse.
fn near_pair() -> impl Strategy<Value = (L, L)> {
    let bump_last = |literal: String| {
        let mut other = literal.clone();
        let last = other.pop().unwrap();
        other.push(if last == '9' {
            '8'
        } else {
            char::from(last as u8 + 1)
        });
        (L::Num(literal), L::Num(other))
    };
    let shortest_of = |literal: String| {
        let value: f64 = literal.parse().unwrap();
        let shortest = ryu_js::Buffer::new().format_finite(value).to_owned();
        (L::Num(literal), L::Num(shortest))
    };
    let text = |text: &str| L::Str(text.encode_utf16().collect());
    prop_oneof![
        // The last digit of a big integer, of a long decimal.
        "[1-9][0-9]{17,30}".prop_map(bump_last),
        "-?0\\.[0-9]{17,30}".prop_map(bump_last),
        // A literal and the shortest form of its double.
        prop_oneof![
            "[1-9][0-9]{16,30}",
            "0\\.[0-9]{17,30}[1-9]",
            "[1-9]\\.[0-9]{17,25}e[0-9]{1,2}"
        ]
        .prop_filter("finite, not already shortest", |literal: &String| {
            let value: f64 = literal.parse().unwrap();
            value.is_finite() && ryu_js::Buffer::new().format_finite(value) != literal.as_str()
        })
        .prop_map(shortest_of),
        // Spelling is value under the lossless profile.
        prop::sample::select(vec![
            ("1.0", "1"),
            ("-0", "0"),
            ("1E2", "1e2"),
            ("1e2", "100"),
            ("1e+2", "1e2"),
            ("0.10", "0.1")
        ])
        .prop_map(|(a, b)| (L::Num(a.into()), L::Num(b.into()))),
        // A lone surrogate and U+FFFD; a high and a low one; an escape and text spelling it.
        units(true)
            .prop_filter("holds a lone surrogate", |units| {
                char::decode_utf16(units.iter().copied()).any(|unit| unit.is_err())
            })
            .prop_map(|units| {
                let repaired: Vec<u16> = char::decode_utf16(units.iter().copied())
                    .flat_map(|unit| {
                        let c = unit.unwrap_or(char::REPLACEMENT_CHARACTER);
                        c.encode_utf16(&mut [0; 2]).to_vec()
                    })
                    .collect();
                (L::Str(units), L::Str(repaired))
            }),
        (0xd800_u16..=0xdbff).prop_map(|high| (L::Str(vec![high]), L::Str(vec![high + 0x400]))),
        (0xd800_u16..=0xdfff)
            .prop_map(move |unit| (L::Str(vec![unit]), text(&format!("\\u{unit:04x}")))),
        // Two lone halves apart and the pair they would make together.
        Just((
            L::Str(vec![0xd83d, u16::from(b'x'), 0xde00]),
            L::Str(vec![0xd83d, 0xde00, u16::from(b'x')]),
        )),
    ]
}

/// A context shared by both halves of a pair: arrays and objects around the leaf, with siblings.
fn paired_documents() -> impl Strategy<Value = (L, L, u64)> {
    let layer = (
        any::<bool>(),
        key(),
        prop::collection::vec(document(true), 0..3),
    );
    (
        near_pair(),
        prop::collection::vec(layer, 0..3),
        any::<u64>(),
    )
        .prop_map(|((mut a, mut b), layers, seed)| {
            for (array, key, siblings) in layers {
                let wrap = |value: L| {
                    if array {
                        let mut items = siblings.clone();
                        items.push(value);
                        L::Arr(items)
                    } else {
                        let mut members: Vec<(String, L)> = siblings
                            .iter()
                            .enumerate()
                            .map(|(index, sibling)| (format!("{key}{index}"), sibling.clone()))
                            .collect();
                        members.push((key.clone(), value));
                        L::Obj(members)
                    }
                };
                a = wrap(a);
                b = wrap(b);
            }
            (a, b, seed)
        })
}

fn wrap_text(inner: String, layers: &[(bool, String)]) -> String {
    let mut text = inner;
    for (array, key) in layers {
        let mut quoted = String::new();
        write_units(&key.encode_utf16().collect::<Vec<_>>(), false, &mut quoted);
        text = if *array {
            format!("[1.0, {text}]")
        } else {
            format!("{{{quoted}: {text}, \"\\ud800\": 0}}")
        };
    }
    text
}

/// An object with one key repeated (spelled independently each time), inside a document whose
/// other leaves hold lossless-only values.
fn duplicate_key_document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((key(), document(true)), 1..5),
        any::<prop::sample::Index>(),
        document(true),
        any::<prop::sample::Index>(),
        prop::collection::vec(any::<bool>(), 0..3),
        any::<u64>(),
    )
        .prop_map(|(members, which, value, at, layers, seed)| {
            let mut members = unique(members);
            let key = members[which.index(members.len())].0.clone();
            let at = at.index(members.len() + 1);
            members.insert(at, (key, value));
            let mut doc = L::Obj(members);
            for array in layers {
                doc = if array {
                    L::Arr(vec![L::Num("12345678901234567000".into()), doc])
                } else {
                    L::Obj(vec![("k".into(), doc), ("s".into(), L::Str(vec![0xd800]))])
                };
            }
            render(&doc, seed)
        })
}

/// A key holding a lone surrogate somewhere in a document.
fn lone_surrogate_key_document() -> impl Strategy<Value = String> {
    (
        0xd800_u32..=0xdfff,
        "[a-z]{0,3}",
        prop_oneof![
            Just(""),
            Just("x"),
            Just("\\n"),
            Just("\\u0041"),
            Just("\\ud800")
        ],
        document(true),
        prop::collection::vec((any::<bool>(), key()), 0..3),
        any::<u64>(),
    )
        .prop_map(|(unit, prefix, suffix, value, layers, seed)| {
            let inner = format!(
                "{{\"{prefix}\\u{unit:04x}{suffix}\": {}}}",
                render(&value, seed)
            );
            wrap_text(inner, &layers)
        })
}

// ---------------------------------------------------------------------------------------------
// Canonicalizers under test: the real one (stream and tree) and deliberately broken ones.

type Canonicalizer = fn(&[u8]) -> Result<Vec<u8>, String>;

fn ours(input: &[u8]) -> Result<Vec<u8>, String> {
    canonicalize_lossless(input, &JsonLimits::default())
        .map(|canonical| canonical.into_bytes())
        .map_err(|error| error.kind.name().to_owned())
}

fn ours_tree(input: &[u8]) -> Result<Vec<u8>, String> {
    parse_lossless(input, &JsonLimits::default())
        .map(|value| value.canonical_bytes())
        .map_err(|error| error.kind.name().to_owned())
}

/// How a broken writer goes wrong.
#[derive(Clone, Copy, PartialEq)]
enum Broken {
    /// Every number through f64 and back (big integers and long decimals rounded).
    RoundsNumbers,
    /// Lone surrogates replaced by U+FFFD.
    RepairsSurrogates,
    /// Lone surrogates as `\uDXXX` (uppercase hex).
    UppercaseEscapes,
    /// Arrays written back to front.
    ReversesArrays,
    /// Members sorted by UTF-8 bytes instead of UTF-16 code units.
    SortsByUtf8,
}

fn broken(input: &[u8], how: Broken) -> Result<Vec<u8>, String> {
    let value = parse_lossless(input, &JsonLimits::default()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    write_broken(&value, how, &mut out);
    Ok(out)
}

fn write_broken(value: &Value<'_>, how: Broken, out: &mut Vec<u8>) {
    match value {
        Value::Array(items) => {
            out.push(b'[');
            let mut items: Vec<_> = items.iter().collect();
            if how == Broken::ReversesArrays {
                items.reverse();
            }
            for (index, item) in items.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_broken(item, how, out);
            }
            out.push(b']');
        }
        Value::Object(object) => {
            let mut members: Vec<_> = object.iter().collect();
            if how == Broken::SortsByUtf8 {
                members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            }
            out.push(b'{');
            for (index, (key, item)) in members.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                Value::String(Cow::Borrowed(key)).write_canonical(out);
                out.push(b':');
                write_broken(item, how, out);
            }
            out.push(b'}');
        }
        Value::NumberLiteral(literal) if how == Broken::RoundsNumbers => {
            match literal.text().parse::<f64>() {
                Ok(double) if double.is_finite() => {
                    out.extend_from_slice(ryu_js::Buffer::new().format_finite(double).as_bytes());
                }
                _ => out.extend_from_slice(literal.text().as_bytes()),
            }
        }
        Value::IllFormedString(string) if how == Broken::RepairsSurrogates => {
            Value::String(Cow::Owned(string.to_string_lossy())).write_canonical(out);
        }
        Value::IllFormedString(string) if how == Broken::UppercaseEscapes => {
            let mut text = String::new();
            write_units(&string.code_units(), true, &mut text);
            out.extend_from_slice(text.as_bytes());
        }
        scalar => scalar.write_canonical(out),
    }
}

fn rounds_numbers(input: &[u8]) -> Result<Vec<u8>, String> {
    broken(input, Broken::RoundsNumbers)
}

fn repairs_surrogates(input: &[u8]) -> Result<Vec<u8>, String> {
    broken(input, Broken::RepairsSurrogates)
}

fn uppercase_escapes(input: &[u8]) -> Result<Vec<u8>, String> {
    broken(input, Broken::UppercaseEscapes)
}

fn reverses_arrays(input: &[u8]) -> Result<Vec<u8>, String> {
    broken(input, Broken::ReversesArrays)
}

fn sorts_by_utf8(input: &[u8]) -> Result<Vec<u8>, String> {
    broken(input, Broken::SortsByUtf8)
}

/// Whitespace outside strings dropped, everything else as written (no member order, no escape
/// normalization).
fn minifies(input: &[u8]) -> Result<Vec<u8>, String> {
    parse_lossless(input, &JsonLimits::default()).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for &byte in input {
        if in_string {
            in_string = escaped || byte != b'"';
            escaped = !escaped && byte == b'\\';
        } else if matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
            continue;
        } else {
            in_string = byte == b'"';
        }
        out.push(byte);
    }
    Ok(out)
}

fn accepts_repeated_keys(input: &[u8]) -> Result<Vec<u8>, String> {
    naive_with(
        input,
        Rules {
            last_duplicate_wins: true,
            ..Rules::default()
        },
    )
}

fn repairs_keys(input: &[u8]) -> Result<Vec<u8>, String> {
    naive_with(
        input,
        Rules {
            repairs_keys: true,
            ..Rules::default()
        },
    )
}

// ---------------------------------------------------------------------------------------------
// The properties, written once and run against any canonicalizer.

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The canonicalizer gives exactly the naive reference's bytes.
fn agrees_with_naive(canon: Canonicalizer, (doc, seed): (L, u64)) -> Result<(), TestCaseError> {
    let input = render(&doc, seed);
    let expected =
        naive(input.as_bytes()).map_err(|e| TestCaseError::fail(format!("naive: {input}: {e}")))?;
    let got = canon(input.as_bytes()).map_err(|e| TestCaseError::fail(format!("{input}: {e}")))?;
    prop_assert_eq!(text_of(&got), text_of(&expected), "input {}", input);
    Ok(())
}

/// Canonical bytes canonicalize to themselves and parse back to the value of the input.
fn round_trips(canon: Canonicalizer, (doc, seed): (L, u64)) -> Result<(), TestCaseError> {
    let input = render(&doc, seed);
    let once = canon(input.as_bytes()).map_err(|e| TestCaseError::fail(format!("{input}: {e}")))?;
    let twice =
        canon(&once).map_err(|e| TestCaseError::fail(format!("{}: {e}", text_of(&once))))?;
    prop_assert_eq!(text_of(&twice), text_of(&once), "not idempotent");
    let limits = JsonLimits::default();
    let value = parse_lossless(input.as_bytes(), &limits).unwrap();
    let back = parse_lossless(&once, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        back,
        value,
        "canonical bytes {} mean another value",
        text_of(&once)
    );
    Ok(())
}

/// Two different values never share canonical bytes.
fn injective(canon: Canonicalizer, (a, b, seed): (L, L, u64)) -> Result<(), TestCaseError> {
    prop_assume!(a.normalized() != b.normalized());
    let first = render(&a, seed);
    let second = render(&b, seed.rotate_left(17));
    let x = canon(first.as_bytes()).map_err(|e| TestCaseError::fail(format!("{first}: {e}")))?;
    let y = canon(second.as_bytes()).map_err(|e| TestCaseError::fail(format!("{second}: {e}")))?;
    prop_assert_ne!(text_of(&x), text_of(&y), "{} and {} collide", first, second);
    Ok(())
}

/// Every spelling of one value gives the same bytes.
fn spelling_free(canon: Canonicalizer, (doc, a, b): (L, u64, u64)) -> Result<(), TestCaseError> {
    let first = render(&doc, a);
    let second = render(&doc, b);
    let x = canon(first.as_bytes()).map_err(|e| TestCaseError::fail(format!("{first}: {e}")))?;
    let y = canon(second.as_bytes()).map_err(|e| TestCaseError::fail(format!("{second}: {e}")))?;
    prop_assert_eq!(text_of(&x), text_of(&y));
    Ok(())
}

/// On a document of the strict profile: its strict canonical bytes are a lossless fixed point
/// with the strict value, and the strict canonical bytes of the lossless ones are the strict
/// canonical bytes of the document.
fn strict_unchanged(canon: Canonicalizer, (doc, seed): (L, u64)) -> Result<(), TestCaseError> {
    let limits = JsonLimits::default();
    let input = render(&doc, seed);
    let strict = canonicalize(input.as_bytes(), &limits)
        .map_err(|e| TestCaseError::fail(format!("strict: {input}: {e}")))?;
    let fixed = canon(strict.as_bytes()).map_err(TestCaseError::fail)?;
    prop_assert_eq!(text_of(&fixed), text_of(strict.as_bytes()));
    prop_assert_eq!(
        parse_lossless(strict.as_bytes(), &limits).ok(),
        parse(strict.as_bytes(), &limits).ok()
    );
    let kept = canon(input.as_bytes()).map_err(TestCaseError::fail)?;
    let restricted =
        canonicalize(&kept, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(text_of(restricted.as_bytes()), text_of(strict.as_bytes()));
    Ok(())
}

fn rejects(canon: Canonicalizer, input: &str, kind: &str) -> Result<(), TestCaseError> {
    match canon(input.as_bytes()) {
        Err(found) if found == kind => Ok(()),
        Err(found) => Err(TestCaseError::fail(format!(
            "{input}: rejected as {found}, not {kind}"
        ))),
        Ok(out) => Err(TestCaseError::fail(format!(
            "{input}: accepted as {}",
            text_of(&out)
        ))),
    }
}

fn config() -> ProptestConfig {
    seal_test_support::no_persistence(256)
}

fn damage() -> impl Strategy<Value = Vec<(prop::sample::Index, u8)>> {
    prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            prop::sample::select(b"{}[],:\"\\0123456789eE.+- \nudDAF\xff\xc3\xed".to_vec()),
        ),
        1..4,
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn stream_agrees_with_the_naive_canonicalizer(case in (document(true), any::<u64>())) {
        agrees_with_naive(ours, case)?;
    }

    #[test]
    fn tree_agrees_with_the_naive_canonicalizer(case in (document(true), any::<u64>())) {
        agrees_with_naive(ours_tree, case)?;
    }

    #[test]
    fn canonical_bytes_round_trip_and_are_idempotent(case in (document(true), any::<u64>())) {
        round_trips(ours, case)?;
    }

    #[test]
    fn different_values_give_different_bytes(case in paired_documents()) {
        injective(ours, case)?;
    }

    #[test]
    fn equal_values_give_equal_bytes(case in (document(true), any::<u64>(), any::<u64>())) {
        spelling_free(ours, case)?;
    }

    #[test]
    fn strict_documents_are_unchanged(case in (document(false), any::<u64>())) {
        strict_unchanged(ours, case)?;
    }

    #[test]
    fn duplicate_keys_are_rejected(input in duplicate_key_document()) {
        rejects(ours, &input, "duplicate_key")?;
    }

    #[test]
    fn lone_surrogates_in_keys_are_rejected(input in lone_surrogate_key_document()) {
        rejects(ours, &input, "lone_surrogate")?;
    }

    /// On damaged input, stream, tree and the naive reference accept the same documents with the
    /// same bytes; where the strict profile fails for a reason the lossless profile shares, both
    /// give the same error.
    #[test]
    fn damaged_input_is_decided_alike(case in (document(true), any::<u64>()), damage in damage()) {
        let mut input = render(&case.0, case.1).into_bytes();
        for (at, byte) in damage {
            let at = at.index(input.len());
            input[at] = byte;
        }
        let limits = JsonLimits::default();
        let stream = canonicalize_lossless(&input, &limits).map(|c| c.into_bytes());
        let tree = parse_lossless(&input, &limits).map(|value| value.canonical_bytes());
        prop_assert_eq!(&stream, &tree);
        let reference = naive(&input);
        prop_assert_eq!(stream.as_ref().ok(), reference.as_ref().ok());
        if let Err(strict) = canonicalize(&input, &limits) {
            let only_strict = ["integer_out_of_range", "number_not_exact", "number_out_of_range", "lone_surrogate"];
            if !only_strict.contains(&strict.kind.name()) {
                prop_assert_eq!(stream.err(), Some(strict));
            }
        } else {
            prop_assert!(stream.is_ok(), "strict accepts what lossless rejects");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Negative controls: each property must find a counterexample in a broken canonicalizer.

fn finds_counterexample<S: Strategy>(
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> bool {
    let mut runner = seal_test_support::seeded(512);
    runner.run(&strategy, property).is_err()
}

#[test]
fn control_naive_agreement_catches_rounding_through_f64() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { agrees_with_naive(rounds_numbers, case) }
    ));
}

#[test]
fn control_naive_agreement_catches_repaired_surrogates() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { agrees_with_naive(repairs_surrogates, case) }
    ));
}

#[test]
fn control_naive_agreement_catches_uppercase_escapes() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { agrees_with_naive(uppercase_escapes, case) }
    ));
}

#[test]
fn control_round_trip_catches_repaired_surrogates() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { round_trips(repairs_surrogates, case) }
    ));
}

#[test]
fn control_round_trip_catches_rounding_through_f64() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { round_trips(rounds_numbers, case) }
    ));
}

#[test]
fn control_idempotence_catches_reversed_arrays() {
    assert!(finds_counterexample(
        (document(true), any::<u64>()),
        |case| { round_trips(reverses_arrays, case) }
    ));
}

#[test]
fn control_injectivity_catches_rounding_through_f64() {
    assert!(finds_counterexample(paired_documents(), |case| {
        injective(rounds_numbers, case)
    }));
}

#[test]
fn control_injectivity_catches_repaired_surrogates() {
    assert!(finds_counterexample(paired_documents(), |case| {
        injective(repairs_surrogates, case)
    }));
}

#[test]
fn control_equal_bytes_catches_minified_input() {
    assert!(finds_counterexample(
        (document(true), any::<u64>(), any::<u64>()),
        |case| spelling_free(minifies, case)
    ));
}

#[test]
fn control_strict_agreement_catches_utf8_key_order() {
    assert!(finds_counterexample(
        (document(false), any::<u64>()),
        |case| { strict_unchanged(sorts_by_utf8, case) }
    ));
}

#[test]
fn control_duplicate_keys_catch_last_duplicate_wins() {
    assert!(finds_counterexample(duplicate_key_document(), |input| {
        rejects(accepts_repeated_keys, &input, "duplicate_key")
    }));
}

#[test]
fn control_key_surrogates_catch_a_repairing_reader() {
    assert!(finds_counterexample(
        lone_surrogate_key_document(),
        |input| { rejects(repairs_keys, &input, "lone_surrogate") }
    ));
}

#[test]
fn the_naive_reference_rejects_what_it_should() {
    // The reference is itself checked on the shapes the properties lean on.
    for (input, ok) in [
        (&br#"{"a":1,"a":2}"#[..], false),
        (br#"{"\ud800":1}"#, false),
        (br#"["\ud800"]"#, true),
        (b"[01]", false),
        (b"[1.]", false),
        (b"[\"\\u12\"]", false),
        (b"[\"\\u+123\"]", false),
        (b"[1e400,-0,1.0]", true),
    ] {
        assert_eq!(
            naive(input).is_ok(),
            ok,
            "{}",
            String::from_utf8_lossy(input)
        );
    }
    let deep = "[".repeat(128) + &"]".repeat(128);
    assert!(naive(deep.as_bytes()).is_ok());
    let deeper = "[".repeat(129) + &"]".repeat(129);
    assert!(naive(deeper.as_bytes()).is_err());
}
