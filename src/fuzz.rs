//! Cross-crate property checks behind the `frame_render` fuzz target, also replayed over its
//! committed corpus by the ordinary test suite. Not part of the stable API.

use arbitrary::{Arbitrary, Unstructured};
use seal_parse::frame::{scan, Finding, Reason, ScanConfig};
use seal_render::{decode, escape, render_frame, Context};

/// Builds attributes and a body from fuzzer bytes (through `arbitrary`) and runs
/// [`render_frame_then_scan`]; bytes that do not make an input pass.
pub fn frame_render(data: &[u8]) -> Result<(), String> {
    let input = <(Vec<(String, String)>, String)>::arbitrary_take_rest(Unstructured::new(data));
    match input {
        Ok((attributes, body)) => render_frame_then_scan(&attributes, &body),
        Err(_) => Ok(()),
    }
}

/// Renders a `channel` frame from arbitrary attributes and body (invalid names are skipped,
/// duplicates keep their first occurrence, `sig` goes last) and checks breakout-freedom: with and
/// without the harness rewrite, the scanner finds exactly one finding, a strictly accepted
/// top-level frame with the same attributes whose body decodes to `body`; a frame beyond the
/// scanner's attribute or header limits is instead exactly one suspect naming that limit.
pub fn render_frame_then_scan(attributes: &[(String, String)], body: &str) -> Result<(), String> {
    let mut kept: Vec<(&str, &str)> = Vec::new();
    let mut sig = None;
    for (name, value) in attributes {
        let valid = name.len() <= 64
            && name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
        if !valid || kept.iter().any(|(n, _)| n == name) || (name == "sig" && sig.is_some()) {
            continue;
        }
        if name == "sig" {
            sig = Some(("sig", value.as_str()));
        } else {
            kept.push((name, value));
        }
    }
    kept.extend(sig);
    let rendered = render_frame("channel", &kept, body).map_err(|e| format!("render: {e}"))?;
    let base = ScanConfig::new("channel").map_err(|e| format!("config: {e}"))?;
    let header_len = rendered.len() - escape(body, Context::Block).len() - "</channel>".len();
    for config in [base.clone(), base.with_rewrite()] {
        let findings = scan(&rendered, &config).map_err(|e| format!("scan: {e}"))?;
        let limits = config.limits();
        if kept.len() > limits.max_attributes || header_len > limits.max_header_bytes {
            let at_limit = matches!(findings.as_slice(), [Finding::Suspect(suspect)]
            if suspect.reasons.iter().any(|r| {
                matches!(r, Reason::TooManyAttributes | Reason::HeaderTooLong)
            }));
            if !at_limit {
                return Err(format!(
                    "frame beyond the limits not reported: {findings:?}"
                ));
            }
            continue;
        }
        let [Finding::Frame(frame)] = findings.as_slice() else {
            return Err(format!("expected one strict frame, found {findings:?}"));
        };
        let same_attributes = frame.attributes.len() == kept.len()
            && frame
                .attributes
                .iter()
                .zip(&kept)
                .all(|(a, (n, v))| a.name == *n && a.value == *v);
        if frame.depth != 1 || !same_attributes {
            return Err(format!("frame changed in the round trip: {frame:?}"));
        }
        let body_text = frame.body.of(&rendered).ok_or("body span out of bounds")?;
        match decode(body_text, Context::Block) {
            Ok(decoded) if decoded == body => {}
            other => return Err(format!("body round trip failed: {other:?}")),
        }
    }
    Ok(())
}
