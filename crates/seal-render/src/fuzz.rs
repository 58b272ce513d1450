//! Property checks behind the fuzz targets in `fuzz/`, also replayed over the committed corpora
//! by the ordinary test suite. Each returns `Err` naming the property an input violates.

use crate::{decode, decode_bytes, escape, escape_bytes, Context};

mod structured;
pub use structured::{card_render, frame_render, render_frame_then_scan};

const CONTEXTS: [Context; 3] = [Context::Inline, Context::Attribute, Context::Block];

/// Decodes `data` (as UTF-8, invalid sequences replaced) in every context, in text and byte mode,
/// and checks strictness: whatever the decoder accepts re-escapes to exactly the input.
pub fn decode_strict(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    for ctx in CONTEXTS {
        if let Ok(decoded) = decode(&text, ctx) {
            if escape(&decoded, ctx) != text {
                return Err(format!(
                    "{ctx:?}: decoder accepted a non-canonical text form"
                ));
            }
        }
        if let Ok(decoded) = decode_bytes(&text, ctx) {
            if escape_bytes(&decoded, ctx) != text {
                return Err(format!(
                    "{ctx:?}: decoder accepted a non-canonical byte form"
                ));
            }
        }
    }
    Ok(())
}

/// Escapes `data` in every context and checks: the output is printable ASCII (plus LF in
/// `Block`); it decodes back to exactly `data`; for UTF-8 input, text and byte mode agree.
pub fn render_then_decode(data: &[u8]) -> Result<(), String> {
    for ctx in CONTEXTS {
        let escaped = escape_bytes(data, ctx);
        let allowed = |b: u8| (0x20..=0x7e).contains(&b) || (b == b'\n' && ctx == Context::Block);
        if !escaped.bytes().all(allowed) {
            return Err(format!("{ctx:?}: output is not printable ASCII"));
        }
        match decode_bytes(&escaped, ctx) {
            Ok(decoded) if decoded.as_ref() == data => {}
            other => return Err(format!("{ctx:?}: byte round trip failed: {other:?}")),
        }
        if let Ok(text) = std::str::from_utf8(data) {
            if escape(text, ctx) != escaped {
                return Err(format!("{ctx:?}: text and byte escapes differ"));
            }
            match decode(&escaped, ctx) {
                Ok(decoded) if decoded == text => {}
                other => return Err(format!("{ctx:?}: text round trip failed: {other:?}")),
            }
        }
    }
    Ok(())
}
