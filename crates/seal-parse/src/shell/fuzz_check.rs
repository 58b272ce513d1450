//! The properties behind the `shell_segments` and `shell_readable` fuzz targets, also replayed
//! over their committed corpora by the ordinary test suite.

use super::{
    readable, segment, segment_into, segment_with_stats, Segment, SegmentBuffer, Segments,
    ShellLimits, MAX_READABLE_DEPTH,
};

/// Steps allowed per input byte and per payload level (see [`ShellStats`](super::ShellStats)).
pub const STEPS_PER_BYTE_PER_LEVEL: usize = 4;

/// Segments `data` (as UTF-8, invalid sequences replaced) and checks: no panic; work within
/// [`STEPS_PER_BYTE_PER_LEVEL`] per byte and payload level; an analysable command has at least
/// one segment, each with words, a span in bounds on character boundaries, spans in order,
/// forms running from the canonical to the normalized form; every segment's
/// [`Segment::quoted`] segments back to one segment with the same words and forms; and
/// segmenting into a [`SegmentBuffer`] left full by another command gives the same result.
///
/// # Errors
///
/// A description of the violated property.
pub fn shell_segments(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let limits = ShellLimits::default();
    let (result, stats) = segment_with_stats(&text, &limits);
    let levels = limits.max_payload_depth + 1;
    if stats.steps() > STEPS_PER_BYTE_PER_LEVEL * levels * (text.len() + 1) {
        return Err(format!("{} steps for {} bytes", stats.steps(), text.len()));
    }
    reused(&text, &limits, &result)?;
    let Ok(segments) = result else {
        return Ok(());
    };
    check_segments(&text, &segments)?;
    for one in &segments {
        requote(one)?;
        for form in one.forms().all() {
            modelled(&form.to_words())?;
        }
    }
    Ok(())
}

/// A program model of the words keeps within its limits, and every operand it reports is one
/// of the words after the program.
fn modelled(words: &[String]) -> Result<(), String> {
    let Some(read) = super::model(words.iter().map(String::as_str)) else {
        return Ok(());
    };
    if read.options().len() > super::MAX_OPTIONS || read.operands().len() > super::MAX_OPERANDS {
        return Err(format!("model of {words:?} over its limits"));
    }
    let rest = words.get(1..).unwrap_or_default();
    if let Some(stray) = read.operands().find(|op| !rest.iter().any(|w| w == op)) {
        return Err(format!(
            "model of {words:?} reports operand `{stray}` it was not given"
        ));
    }
    Ok(())
}

/// A command that leaves every part of a buffer in use (decoded words, a nested payload,
/// assignments, wrappers, forms).
const USED: &str =
    "A='x y' sudo bash -c 'ls -l; sh -c \"git log\"' && env B=1 /bin/echo \"q\\\"\" | tee o";

fn reused(
    text: &str,
    limits: &ShellLimits,
    owned: &Result<Segments, super::Unanalysable>,
) -> Result<(), String> {
    let mut buffer = SegmentBuffer::new();
    if segment_into(USED, limits, &mut buffer).map(|s| s.len()) != Ok(4) {
        return Err(format!("`{USED}` does not give 4 segments"));
    }
    let again = segment_into(text, limits, &mut buffer).map(|view| view.to_segments());
    if again != *owned {
        return Err(format!("a reused buffer gives {again:?}, not {owned:?}"));
    }
    Ok(())
}

fn check_segments(text: &str, segments: &Segments) -> Result<(), String> {
    if segments.is_empty() {
        return Err("analysable command without segments".into());
    }
    let mut previous_end = 0;
    let mut previous_start = 0;
    for one in segments {
        let span = one.span();
        if span.of(text).is_none() || span.start > span.end {
            return Err(format!("span {span:?} out of bounds"));
        }
        if span.start < previous_start {
            return Err(format!("span {span:?} before the previous one"));
        }
        if one.payload_depth() == 0 && span.start < previous_end {
            return Err(format!("span {span:?} overlaps the previous one"));
        }
        previous_start = span.start;
        previous_end = span.end;
        if one.words().is_empty() {
            return Err(format!("segment at {} has no words", span.start));
        }
        let forms = one.forms();
        let all: Vec<_> = forms.all().collect();
        if all.first() != Some(&forms.canonical()) || all.last() != Some(&forms.normalized()) {
            return Err(format!("forms of {:?} out of order", one.words()));
        }
        if forms.canonical().to_words() != one.words() {
            return Err(format!("canonical form of {:?} differs", one.words()));
        }
        if !forms.normalized().program().is_ascii() {
            return Err(format!("non-ASCII program in {:?}", one.words()));
        }
    }
    Ok(())
}

fn requote(one: &Segment) -> Result<(), String> {
    let quoted = one.quoted();
    let limits = ShellLimits::DEFAULT.with_max_bytes(usize::MAX);
    let again = segment(&quoted, &limits).map_err(|e| format!("`{quoted}` rejected: {e}"))?;
    let [back] = again.as_slice() else {
        return Err(format!("`{quoted}` gives {} segments", again.len()));
    };
    let forms =
        |s: &Segment| -> Vec<Vec<String>> { s.forms().all().map(|f| f.to_words()).collect() };
    if back.words() != one.words()
        || back.assignments() != one.assignments()
        || forms(back) != forms(one)
        || back.payload_depth() != 0
    {
        return Err(format!("`{quoted}` segments to {:?}, not {:?}", back, one));
    }
    Ok(())
}

/// Steps [`readable`] may take per byte of its command and per level of shell payload the
/// limits allow: at most `READABLE_STEPS_PER_BYTE_PER_LEVEL * (max_payload_depth + 2) * (len + 1)`
/// (see [`Readable::steps`](super::Readable::steps)). Each text is read once at its depth and
/// skipped once by each construct around it, its skeleton (a placeholder is at most 6 times the
/// 2 bytes it replaces) segmented at most twice plus the launchers of its payloads, each at most
/// [`STEPS_PER_BYTE_PER_LEVEL`] per byte and payload level; a payload or `eval` text is read
/// again one depth lower, and depths stop at [`MAX_READABLE_DEPTH`]. The hostile inputs of
/// `tests/it/shell_readable.rs` stay below a quarter of this bound.
pub const READABLE_STEPS_PER_BYTE_PER_LEVEL: usize = 64;

/// Reads `data` (as UTF-8, invalid sequences replaced) with [`readable`] and checks: no panic;
/// work within [`READABLE_STEPS_PER_BYTE_PER_LEVEL`]; every piece segments to exactly its
/// segments, at a depth within [`MAX_READABLE_DEPTH`]; every offset is within the command;
/// every redirection reads or writes; reading twice gives the same result; and a command that
/// segments reads as itself: one piece at depth 0 with the same words in each segment, and
/// nothing unread.
///
/// # Errors
///
/// A description of the violated property.
pub fn shell_readable(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let limits = ShellLimits::default();
    let read = readable(&text, &limits);
    let levels = limits.max_payload_depth + 2;
    if read.steps() > READABLE_STEPS_PER_BYTE_PER_LEVEL * levels * (text.len() + 1) {
        return Err(format!("{} steps for {} bytes", read.steps(), text.len()));
    }
    for piece in read.pieces() {
        let again = segment(piece.text(), &limits);
        if again.as_ref() != Ok(piece.segments()) {
            return Err(format!("piece `{}` segments to {again:?}", piece.text()));
        }
        if piece.offset() > text.len() || piece.depth() > MAX_READABLE_DEPTH {
            return Err(format!(
                "piece `{}` at {}/{}",
                piece.text(),
                piece.offset(),
                piece.depth()
            ));
        }
    }
    for redirect in read.redirects() {
        if redirect.offset() > text.len() || !(redirect.reads() || redirect.writes()) {
            return Err(format!("redirection {redirect:?}"));
        }
    }
    if let Some(unread) = read.unread().iter().find(|u| u.offset() > text.len()) {
        return Err(format!("unread {unread:?} out of bounds"));
    }
    if readable(&text, &limits) != read {
        return Err("two reads differ".into());
    }
    let Ok(segments) = segment(&text, &limits) else {
        return Ok(());
    };
    let words = |segments: &Segments| -> Vec<Vec<String>> {
        segments.iter().map(|s| s.words().to_vec()).collect()
    };
    match read.pieces() {
        [piece]
            if piece.depth() == 0
                && words(piece.segments()) == words(&segments)
                && read.unread().is_empty() =>
        {
            Ok(())
        }
        _ => Err(format!("analysable command reads as {read:?}")),
    }
}
