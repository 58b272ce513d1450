//! Property checks behind the fuzz targets in `fuzz/`, also replayed over the committed corpora
//! by the ordinary test suite. Each returns `Err` naming the property an input violates.

use crate::frame::{agrees_with_lenient, scan_with_stats, FrameFinding, ScanConfig, Span};
use crate::json::{canonicalize, canonicalize_lossless, parse, parse_lossless, JsonLimits};
use crate::patch::{Operation, Patch, PatchLimits, ADD_FILE, DELETE_FILE, MOVE_TO, UPDATE_FILE};

/// Scan work allowed per input byte (search hits, candidates and characters read).
pub const SCAN_STEPS_PER_BYTE: usize = 4;

/// Scans `data` (as UTF-8, invalid sequences replaced) for `channel` frames with and without the
/// harness rewrite and checks: work linear in the length; spans in bounds, on character
/// boundaries and ordered; findings in document order; strict frames carry the configured
/// element, distinct attribute names and `sig` last; wherever the strict acceptance path takes a
/// tag, lenient detection finds the same tag with no reason.
pub fn scan_frames(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let base = ScanConfig::new("channel").map_err(|e| format!("config: {e}"))?;
    for config in [base.clone(), base.with_rewrite()] {
        let (result, stats) = scan_with_stats(&text, &config);
        agrees_with_lenient(&text, &config)?;
        if stats.steps() > SCAN_STEPS_PER_BYTE * (text.len() + 1) {
            return Err(format!(
                "scan took {} steps for {} bytes",
                stats.steps(),
                text.len()
            ));
        }
        let Ok(findings) = result else { continue };
        let mut previous = None;
        for finding in &findings {
            let tag = finding.tag();
            if previous.is_some_and(|p: Span| p.start >= tag.start) {
                return Err(format!("findings out of order at {}", tag.start));
            }
            previous = Some(tag);
            check_finding(&text, finding, config.element())?;
        }
    }
    Ok(())
}

/// Parses and canonicalizes `data` and checks: the streaming canonicalizer and the tree agree
/// (same acceptance, same bytes); canonicalizing canonical bytes is the identity; the digest is
/// the digest of the bytes.
pub fn canonical_json(data: &[u8]) -> Result<(), String> {
    let limits = JsonLimits::default();
    let streamed = canonicalize(data, &limits);
    let tree = parse(data, &limits).map(|value| value.canonical_bytes());
    let canonical = match (streamed, tree) {
        (Err(_), Err(_)) => return Ok(()),
        (Ok(streamed), Ok(tree)) if streamed.as_bytes() == tree.as_slice() => streamed,
        (streamed, tree) => {
            return Err(format!(
                "stream and tree disagree: {:?} vs {:?}",
                streamed.map(|c| c.into_bytes()),
                tree
            ))
        }
    };
    let again = canonicalize(canonical.as_bytes(), &limits)
        .map_err(|e| format!("canonical bytes rejected: {e}"))?;
    if again != canonical {
        return Err("canonicalization is not idempotent".into());
    }
    Ok(())
}

/// Parses and canonicalizes `data` under the lossless profile and checks: the streaming
/// canonicalizer and the parsed tree agree (same acceptance, same bytes); the canonical bytes
/// canonicalize to themselves and parse back to the same value (so two different documents never
/// share canonical bytes); every document the strict profile accepts is accepted, and its strict
/// canonical bytes are a lossless fixed point that parses to the strict value.
pub fn lossless_json(data: &[u8]) -> Result<(), String> {
    let limits = JsonLimits::default();
    let streamed = canonicalize_lossless(data, &limits);
    let tree = parse_lossless(data, &limits);
    let strict = canonicalize(data, &limits);
    let (canonical, value) = match (streamed, tree) {
        (Err(_), Err(_)) if strict.is_err() => return Ok(()),
        (Err(error), Err(_)) => {
            return Err(format!("strict accepts what lossless rejects ({error})"))
        }
        (Ok(streamed), Ok(tree)) if streamed.as_bytes() == tree.canonical_bytes().as_slice() => {
            (streamed, tree)
        }
        (streamed, tree) => {
            return Err(format!(
                "lossless stream and tree disagree: {:?} vs {:?}",
                streamed.map(|c| c.into_bytes()),
                tree.map(|value| value.canonical_bytes())
            ))
        }
    };
    let again = canonicalize_lossless(canonical.as_bytes(), &limits)
        .map_err(|e| format!("lossless canonical bytes rejected: {e}"))?;
    if again != canonical {
        return Err("lossless canonicalization is not idempotent".into());
    }
    let reparsed = parse_lossless(canonical.as_bytes(), &limits)
        .map_err(|e| format!("lossless canonical bytes do not parse: {e}"))?;
    if reparsed != value {
        return Err("lossless canonical bytes parse to another value".into());
    }
    if let Ok(strict) = strict {
        let fixed = canonicalize_lossless(strict.as_bytes(), &limits)
            .map_err(|e| format!("strict canonical bytes rejected by lossless: {e}"))?;
        if fixed != strict {
            return Err("strict canonical bytes are not a lossless fixed point".into());
        }
        let strict_value = parse(strict.as_bytes(), &limits).map_err(|e| e.to_string())?;
        if parse_lossless(strict.as_bytes(), &limits).ok() != Some(strict_value) {
            return Err("strict canonical bytes parse to another lossless value".into());
        }
    }
    Ok(())
}

/// Reads `data` as a Codex `apply_patch` patch (spec/apply-patch.md) and checks, when it is
/// accepted: the touched paths are exactly the lines that start with a header marker (one CR
/// before the LF dropped), in order, each at its line number and with its bytes; a move
/// destination directly follows its source; every path is non-empty, free of control
/// characters and unpadded.
pub fn apply_patch(data: &[u8]) -> Result<(), String> {
    let Ok(patch) = Patch::parse(data, &PatchLimits::DEFAULT) else {
        return Ok(());
    };
    let lines: Vec<&[u8]> = data
        .split(|b| *b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect();
    let mut expected = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let moves = lines
            .get(index + 1)
            .is_some_and(|next| next.starts_with(MOVE_TO.as_bytes()));
        let found = [
            (ADD_FILE, Operation::Add),
            (DELETE_FILE, Operation::Delete),
            (MOVE_TO, Operation::MoveDestination),
            (UPDATE_FILE, Operation::Update),
        ]
        .into_iter()
        .find_map(|(marker, operation)| {
            line.strip_prefix(marker.as_bytes())
                .map(|path| (operation, path))
        });
        if let Some((operation, path)) = found {
            let operation = match operation {
                Operation::Update if moves => Operation::MoveSource,
                other => other,
            };
            expected.push((operation, path, index + 1));
        }
    }
    let paths = patch.paths();
    if paths.len() != expected.len() {
        return Err(format!(
            "{} paths read, {} header lines",
            paths.len(),
            expected.len()
        ));
    }
    for (touched, (operation, path, line)) in paths.iter().zip(expected) {
        if touched.operation != operation || touched.path.as_bytes() != path || touched.line != line
        {
            return Err(format!("header at line {line} read as {touched:?}"));
        }
        let text = touched.path;
        if text.is_empty() || text.chars().any(char::is_control) || text.trim() != text {
            return Err(format!("path at line {line} accepted: {text:?}"));
        }
    }
    if paths
        .last()
        .is_some_and(|last| last.operation == Operation::MoveSource)
    {
        return Err("a move source without its destination".into());
    }
    for pair in paths.windows(2) {
        if let [first, second] = pair {
            let destination = second.operation == Operation::MoveDestination;
            if destination != (first.operation == Operation::MoveSource) {
                return Err(format!("move out of pair at line {}", second.line));
            }
        }
    }
    Ok(())
}

fn check_finding(text: &str, finding: &FrameFinding, element: &str) -> Result<(), String> {
    match finding {
        FrameFinding::Frame(frame) => {
            let spans = [frame.header, frame.body, frame.close];
            for span in spans {
                in_bounds(text, span)?;
            }
            if !(frame.header.end <= frame.body.start
                && frame.body.start <= frame.body.end
                && frame.body.end <= frame.close.start)
            {
                return Err(format!("frame spans overlap at {}", frame.header.start));
            }
            if frame.element != element || frame.depth == 0 {
                return Err(format!("bad frame at {}", frame.header.start));
            }
            for (i, attribute) in frame.attributes.iter().enumerate() {
                let later = frame.attributes.iter().skip(i + 1);
                if later.clone().any(|other| other.name == attribute.name) {
                    return Err(format!("duplicate attribute `{}`", attribute.name));
                }
                if attribute.name == "sig" && i + 1 != frame.attributes.len() {
                    return Err("`sig` accepted before the last attribute".into());
                }
            }
        }
        FrameFinding::Suspect(suspect) => {
            in_bounds(text, suspect.tag)?;
            for span in suspect.body.iter().chain(suspect.close.iter()) {
                in_bounds(text, *span)?;
            }
            if suspect.reasons.is_empty() {
                return Err(format!("suspect without a reason at {}", suspect.tag.start));
            }
        }
    }
    Ok(())
}

fn in_bounds(text: &str, span: Span) -> Result<(), String> {
    if span.start <= span.end && span.of(text).is_some() {
        Ok(())
    } else {
        Err(format!("span {}..{} out of bounds", span.start, span.end))
    }
}
