//! Alarms: an element appended after a message, naming why a frame in it is untrusted.

use crate::context::Context;
use crate::escape::escape_into;
use crate::render_error::RenderError;
use crate::tag::StartTag;

/// Renders an alarm element: the start tag, then each line followed by LF, then the end tag.
///
/// The body is LF, then every line and an LF after it, all escaped in [`Context::Block`]:
///
/// ```
/// use seal_render::render_alarm;
/// let alarm = render_alarm(
///     "seal-alarm",
///     &[("reason", "unsigned_frame"), ("frame", "channel"), ("source", "telegram")],
///     &["A channel frame from source \"telegram\" is untrusted."],
/// ).unwrap();
/// assert_eq!(alarm, "<seal-alarm reason=\"unsigned_frame\" frame=\"channel\" source=\"telegram\">\n\
///                    A channel frame from source \"telegram\" is untrusted.\n</seal-alarm>");
/// ```
///
/// Guarantees: ASCII only (printable plus LF); attribute values are escaped in
/// [`Context::Attribute`], lines in [`Context::Block`], so nothing in them can close the alarm or
/// reach a terminal as a control; different line lists give different bodies.
///
/// # Errors
/// The tag errors of [`StartTag::new`], or [`RenderError::LineFeedInLine`] for a line
/// containing LF.
pub fn render_alarm(
    element: &str,
    attributes: &[(&str, &str)],
    lines: &[&str],
) -> Result<String, RenderError> {
    let mut out = String::new();
    write_alarm(&mut out, element, attributes, lines)?;
    Ok(out)
}

/// Appends an alarm after `message`: an LF if the message does not end with one, then
/// [`render_alarm`]'s output. The message itself is never changed.
///
/// # Errors
/// As [`render_alarm`]; on error `message` is left as it was.
pub fn append_alarm(
    message: &mut String,
    element: &str,
    attributes: &[(&str, &str)],
    lines: &[&str],
) -> Result<(), RenderError> {
    let mut alarm = String::new();
    write_alarm(&mut alarm, element, attributes, lines)?;
    if !message.is_empty() && !message.ends_with('\n') {
        message.push('\n');
    }
    message.push_str(&alarm);
    Ok(())
}

fn write_alarm(
    out: &mut String,
    element: &str,
    attributes: &[(&str, &str)],
    lines: &[&str],
) -> Result<(), RenderError> {
    let tag = StartTag::new(element, attributes)?;
    if let Some(index) = lines.iter().position(|line| line.contains('\n')) {
        return Err(RenderError::LineFeedInLine { index });
    }
    let body: usize = lines.iter().map(|l| l.len() + 1).sum();
    out.reserve(tag.plain_len() * 2 + body + 16);
    tag.write(out);
    out.push('\n');
    for line in lines {
        escape_into(out, line, Context::Block);
        out.push('\n');
    }
    tag.write_end(out);
    Ok(())
}
