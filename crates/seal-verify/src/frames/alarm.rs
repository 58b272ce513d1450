//! The alarm text: one element per untrusted finding (up to a limit), then one message-level
//! alarm. Reasons only; detailed causes stay in the report.
//!
//! Every line is true wherever the embedder puts the alarm text: Claude Code shows a prompt
//! hook's context before the prompt, Codex after it. So a line names what is untrusted (the
//! element, the frame's source and id, or "the message this alarm is attached to") and never
//! where it is (spec/frame-v1.md section 10 gives every line).

use seal_render::{render_alarm, Context, RenderError};

use super::config::ALARM_ELEMENT;
use super::report::{AlarmReason, FrameCause, FrameOutcome, FrameReport};
use crate::sign::{FRAME_ID_ATTRIBUTE, SOURCE_ATTRIBUTE};

/// Written when an alarm cannot be rendered (which the fixed names make impossible): the
/// message is still marked untrusted.
const FALLBACK_ALARM: &str =
    "<seal-alarm reason=\"tainted_message\">\nThe message this alarm is attached to is untrusted.\n</seal-alarm>";

/// Most bytes of an attribute value quoted in an alarm line. A longer value, or one holding a
/// byte that the Attribute context escapes, is named by its attribute only, so a quoted value
/// is always exactly the attribute's text and can never end the quotes early.
const MAX_QUOTED_VALUE_BYTES: usize = 64;

/// The alarm text for `frames` of `element` in `message`, and the number of per-frame alarms
/// left out: empty when nothing alarmed.
pub(crate) fn alarm_text(
    message: &str,
    element: &str,
    frames: &[FrameReport<'_>],
    scan_failed: bool,
    max_frame_alarms: usize,
) -> (String, usize) {
    let untrusted: Vec<(&FrameReport<'_>, AlarmReason)> = frames
        .iter()
        .filter_map(|frame| frame.alarm_reason().map(|reason| (frame, reason)))
        .collect();
    if untrusted.is_empty() && !scan_failed {
        return (String::new(), 0);
    }
    let mut alarms = Vec::new();
    if scan_failed {
        alarms.push(alarm(
            AlarmReason::MalformedFrame,
            element,
            None,
            None,
            &format!(
                "The {element} tags in the message this alarm is attached to exceed the scan \
                 limits; they are untrusted."
            ),
        ));
    }
    let shown = untrusted.len().min(max_frame_alarms);
    for (frame, reason) in untrusted.iter().take(shown) {
        alarms.push(alarm(
            *reason,
            element,
            frame.source.as_deref(),
            frame.frame_id.as_deref(),
            &frame_line(element, frame),
        ));
    }
    let omitted = untrusted.len().saturating_sub(shown);
    let count = untrusted.len().to_string();
    let omitted_text = omitted.to_string();
    let mut attributes = vec![
        ("reason", AlarmReason::TaintedMessage.code()),
        ("frame", element),
        ("untrusted", count.as_str()),
    ];
    if omitted > 0 {
        attributes.push(("omitted", omitted_text.as_str()));
    }
    let line = message_line(element, untrusted.len(), omitted);
    alarms.push(render_alarm(ALARM_ELEMENT, &attributes, &[&line]).unwrap_or_else(fallback));
    (join(message, &alarms), omitted)
}

/// The `verification_off` notice: the only alarm written when verification is off.
pub(crate) fn off_notice(message: &str, element: &str) -> String {
    let notice = alarm(
        AlarmReason::VerificationOff,
        element,
        None,
        None,
        &format!(
            "Frame verification is off: no {element} frame is verified in the message this \
             alarm is attached to."
        ),
    );
    join(message, &[notice])
}

/// The line of a per-frame alarm: `A channel frame from source "telegram" with id "m42" is
/// untrusted.`, each part present when the frame has that attribute; a missing footer is
/// named as missing.
fn frame_line(element: &str, frame: &FrameReport<'_>) -> String {
    if matches!(
        frame.outcome,
        FrameOutcome::Untrusted {
            cause: FrameCause::NoFooter,
            ..
        }
    ) {
        return format!(
            "The message this alarm is attached to has no {element} frame; it is untrusted."
        );
    }
    let mut line = format!("A {element} frame");
    if let Some(source) = &frame.source {
        line.push_str(&named("from", SOURCE_ATTRIBUTE, source));
    }
    if let Some(id) = &frame.frame_id {
        line.push_str(&named("with", FRAME_ID_ATTRIBUTE, id));
    }
    line.push_str(" is untrusted.");
    line
}

/// ` {lead} {name} "{value}"` when `value` can be quoted as it is, else
/// ` {lead} the {name} given in the {name} attribute`.
fn named(lead: &str, name: &str, value: &str) -> String {
    if quotable(value) {
        format!(" {lead} {name} \"{value}\"")
    } else {
        format!(" {lead} the {name} given in the {name} attribute")
    }
}

/// Whether `value` may be quoted in a line: short, and left unchanged by the Attribute
/// escaping (printable ASCII without `\`, `"`, `<`, `>`), hence also by the Block escaping of
/// the line, so the quoted text is the attribute's text byte for byte.
fn quotable(value: &str) -> bool {
    value.len() <= MAX_QUOTED_VALUE_BYTES
        && value
            .bytes()
            .all(|byte| Context::Attribute.is_literal(byte))
}

/// The line of the message-level alarm for `untrusted` findings, `omitted` of them without an
/// alarm of their own (no finding: the scan stopped at a limit).
fn message_line(element: &str, untrusted: usize, omitted: usize) -> String {
    const LEAD: &str = "The message this alarm is attached to is untrusted:";
    if untrusted == 0 {
        return format!("{LEAD} its {element} tags exceed the scan limits.");
    }
    let frames = if untrusted == 1 { "frame" } else { "frames" };
    let mut line = format!("{LEAD} it contains {untrusted} untrusted {element} {frames}");
    if omitted > 0 {
        line.push_str(&format!(" ({omitted} without a per-frame alarm)"));
    }
    line.push('.');
    line
}

fn alarm(
    reason: AlarmReason,
    element: &str,
    source: Option<&str>,
    id: Option<&str>,
    line: &str,
) -> String {
    let mut attributes = vec![("reason", reason.code()), ("frame", element)];
    if let Some(source) = source {
        attributes.push((SOURCE_ATTRIBUTE, source));
    }
    if let Some(id) = id {
        attributes.push((FRAME_ID_ATTRIBUTE, id));
    }
    render_alarm(ALARM_ELEMENT, &attributes, &[line]).unwrap_or_else(fallback)
}

/// [`FALLBACK_ALARM`], for an alarm that did not render. The element and attribute names are
/// fixed or checked by the scan config, and alarm lines hold no LF (quoted values are checked
/// in the Attribute context), so rendering cannot fail; the fallback still marks the message.
fn fallback(error: RenderError) -> String {
    debug_assert!(false, "an alarm with checked names did not render: {error}");
    FALLBACK_ALARM.to_owned()
}

fn join(message: &str, alarms: &[String]) -> String {
    let mut out = String::new();
    if !message.is_empty() && !message.ends_with('\n') {
        out.push('\n');
    }
    for (index, alarm) in alarms.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(alarm);
    }
    out
}
