//! The alarm text: one element per untrusted finding (up to a limit), then one message-level
//! alarm. Reasons only; detailed causes stay in the report.

use seal_render::render_alarm;

use super::config::ALARM_ELEMENT;
use super::report::{AlarmReason, FrameReport};

/// Written when an alarm cannot be rendered (which the fixed names make impossible): the
/// message is still marked untrusted.
const FALLBACK_ALARM: &str =
    "<seal-alarm reason=\"tainted_message\">\nThe message above is untrusted.\n</seal-alarm>";

/// The alarm text for `frames` of `element` in `message`: empty when nothing alarmed.
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
            &format!("The {element} tags in the message above exceed the scan limits; they are untrusted."),
        ));
    }
    let shown = untrusted.len().min(max_frame_alarms);
    for (frame, reason) in untrusted.iter().take(shown) {
        alarms.push(alarm(
            *reason,
            element,
            frame.source.as_deref(),
            &format!("This {element} frame is untrusted."),
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
    let line = format!("The message above is untrusted: it contains untrusted {element} frames.");
    alarms.push(
        render_alarm(ALARM_ELEMENT, &attributes, &[&line])
            .unwrap_or_else(|_| FALLBACK_ALARM.to_owned()),
    );
    (join(message, &alarms), omitted)
}

/// The `verification_off` notice: the only alarm written when verification is off.
pub(crate) fn off_notice(message: &str, element: &str) -> String {
    let notice = alarm(
        AlarmReason::VerificationOff,
        element,
        None,
        &format!("Frame verification is off: no {element} frame in the message above is verified."),
    );
    join(message, &[notice])
}

fn alarm(reason: AlarmReason, element: &str, source: Option<&str>, line: &str) -> String {
    let mut attributes = vec![("reason", reason.code()), ("frame", element)];
    if let Some(source) = source {
        attributes.push(("source", source));
    }
    render_alarm(ALARM_ELEMENT, &attributes, &[line]).unwrap_or_else(|_| FALLBACK_ALARM.to_owned())
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
