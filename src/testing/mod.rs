//! Property checks for renderers (feature `testing`): the hostile-text strategies seal tests
//! itself with, and checkers you run against your own renderer.
//!
//! Each checker takes your renderer (any `Fn(&str) -> String`) and one input, and returns
//! `Err(Counterexample)` naming the property, the input (escaped) and what went wrong:
//!
//! - [`check_injective`]: no neighbour of the input (one character removed, one character
//!   replaced by its escape-v1 spelling, a fullwidth character folded to ASCII, a backslash
//!   doubled, a line break changed) renders the same, so two different texts never look alike;
//! - [`check_ascii_only`]: every rendered byte is printable ASCII (LF only where allowed);
//! - [`check_breakout_free`]: a rendered body placed in a frame cannot close it or open
//!   another: seal's own lenient scanner finds exactly that one frame, with that body;
//! - [`check_round_trip`]: your decoder gives back the input.
//!
//! ```
//! use proptest::prelude::*;
//! use seal::testing::{check_ascii_only, check_breakout_free, check_injective, check_round_trip, hostile_string};
//!
//! // Your renderer: here, seal's own escape in the block context.
//! fn render(text: &str) -> String {
//!     seal::render::escape(text, seal::render::Context::Block).into_owned()
//! }
//! fn decode(text: &str) -> Option<String> {
//!     seal::render::decode(text, seal::render::Context::Block).ok().map(|t| t.into_owned())
//! }
//!
//! proptest!(ProptestConfig::with_cases(64), |(input in hostile_string())| {
//!     check_injective(render, &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_ascii_only(render, &input, true).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_breakout_free(render, "channel", &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_round_trip(render, decode, &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//! });
//!
//! // A renderer that only drops control characters is caught at once.
//! let lossy = |text: &str| text.chars().filter(|c| !c.is_control()).collect::<String>();
//! assert!(check_injective(lossy, "a\u{7}b").is_err());
//! ```

use std::fmt;

use seal_parse::frame::{scan, Finding, ScanConfig};
use seal_render::{push_codeword, Context};

pub use seal_render::testing::{
    hostile_bytes, hostile_char, hostile_string, HOSTILE_SCALARS, HOSTILE_SEQUENCES,
};

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
        [Finding::Frame(frame)] => {
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
    seal_render::escape(text, Context::Inline).into_owned()
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
