//! Checkers a renderer author runs against their own renderer (any `Fn(&str) -> String`), one
//! input at a time; each returns `Err(Counterexample)` naming the property, the input (escaped)
//! and what went wrong. Breakout-freedom is judged by seal's own lenient frame scanner.

use std::fmt;

use crate::{push_codeword, Context};
use seal_parse::frame::{scan, FrameFinding, ScanConfig};

/// A failed check: which property, on which input, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// `injective`, `ascii-only`, `breakout-free` or `round-trip`.
    pub property: &'static str,
    /// The input, escaped (escape-v1, inline context) so the message itself is ASCII.
    pub input: String,
    /// What went wrong, escaped likewise.
    pub detail: String,
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} fails on `{}`: {}",
            self.property, self.input, self.detail
        )
    }
}

impl std::error::Error for Counterexample {}

/// Injectivity around `input`: every neighbour that differs from `input` must render
/// differently. Neighbours: each character removed; each character written instead as the
/// text of its escape-v1 codeword (`\u{7}` as six characters, `\\` as two); each fullwidth
/// form U+FF01..=U+FF5E folded to its ASCII character; CR and LF swapped.
///
/// # Errors
/// The first neighbour that renders like `input`.
pub fn check_injective<R: Fn(&str) -> String>(
    render: R,
    input: &str,
) -> Result<(), Counterexample> {
    let rendered = render(input);
    for neighbour in neighbours(input) {
        if neighbour != input && render(&neighbour) == rendered {
            return Err(counterexample(
                "injective",
                input,
                &format!("`{}` renders the same", show(&neighbour)),
            ));
        }
    }
    Ok(())
}

/// Every byte of `render(input)` is printable ASCII (0x20..=0x7E), or LF when `allow_lf`.
///
/// # Errors
/// The first other byte and its offset.
pub fn check_ascii_only<R: Fn(&str) -> String>(
    render: R,
    input: &str,
    allow_lf: bool,
) -> Result<(), Counterexample> {
    let rendered = render(input);
    match rendered
        .bytes()
        .enumerate()
        .find(|(_, byte)| !((0x20..=0x7e).contains(byte) || (allow_lf && *byte == b'\n')))
    {
        Some((offset, byte)) => Err(counterexample(
            "ascii-only",
            input,
            &format!("byte {byte:#04x} at offset {offset}"),
        )),
        None => Ok(()),
    }
}

/// Breakout-freedom of a body renderer: `<element>` + `render_body(body)` + `</element>` is
/// exactly one frame for seal's scanner (which detects tags leniently: any case, whitespace,
/// fullwidth and lookalike brackets, the harness rewrite), at top level, whose body is exactly
/// the rendered body. `element` must be a frame element name (`[a-z][a-z0-9-]{0,63}`).
///
/// # Errors
/// When the scanner sees anything else (a second frame, a suspect tag, a shorter body), or
/// when `element` is not an element name.
pub fn check_breakout_free<R: Fn(&str) -> String>(
    render_body: R,
    element: &str,
    body: &str,
) -> Result<(), Counterexample> {
    let fail = |detail: &str| Err(counterexample("breakout-free", body, detail));
    let Ok(config) = ScanConfig::new(element).map(ScanConfig::with_rewrite) else {
        return fail("the element is not a frame element name");
    };
    let rendered = render_body(body);
    let open = format!("<{element}>");
    let text = format!("{open}{rendered}</{element}>");
    let findings = match scan(&text, &config) {
        Ok(findings) => findings,
        Err(error) => return fail(&format!("the scan stopped: {error}")),
    };
    match findings.as_slice() {
        [FrameFinding::Frame(frame)] => {
            let expected = open.len()..open.len() + rendered.len();
            if frame.depth == 1 && frame.body.range() == expected {
                Ok(())
            } else {
                fail(&format!(
                    "the frame's body is bytes {:?}, not {expected:?}",
                    frame.body.range()
                ))
            }
        }
        findings => fail(&format!(
            "the scanner found {} findings, not one frame",
            findings.len()
        )),
    }
}

/// Round trip: `decode(render(input)) == Some(input)`.
///
/// # Errors
/// When the decoder refuses the rendered text or gives back something else.
pub fn check_round_trip<R, D>(render: R, decode: D, input: &str) -> Result<(), Counterexample>
where
    R: Fn(&str) -> String,
    D: Fn(&str) -> Option<String>,
{
    let rendered = render(input);
    match decode(&rendered) {
        Some(decoded) if decoded == input => Ok(()),
        Some(decoded) => Err(counterexample(
            "round-trip",
            input,
            &format!("decodes to `{}`", show(&decoded)),
        )),
        None => Err(counterexample(
            "round-trip",
            input,
            &format!("the decoder refuses `{}`", show(&rendered)),
        )),
    }
}

fn counterexample(property: &'static str, input: &str, detail: &str) -> Counterexample {
    Counterexample {
        property,
        input: show(input),
        detail: detail.to_owned(),
    }
}

fn show(text: &str) -> String {
    crate::escape(text, Context::Inline).into_owned()
}

/// The neighbours [`check_injective`] compares with.
fn neighbours(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (index, c) in input.char_indices() {
        let (head, tail) = (
            input.get(..index).unwrap_or(""),
            input.get(index + c.len_utf8()..).unwrap_or(""),
        );
        out.push(format!("{head}{tail}"));
        for ctx in [Context::Inline, Context::Attribute, Context::Block] {
            let mut spelled = String::new();
            push_codeword(&mut spelled, c, ctx);
            out.push(format!("{head}{spelled}{tail}"));
        }
        if ('\u{ff01}'..='\u{ff5e}').contains(&c) {
            if let Some(ascii) = char::from_u32(u32::from(c) - 0xff01 + 0x21) {
                out.push(format!("{head}{ascii}{tail}"));
            }
        }
        match c {
            '\r' => out.push(format!("{head}\n{tail}")),
            '\n' => out.push(format!("{head}\r{tail}")),
            _ => {}
        }
    }
    out
}
