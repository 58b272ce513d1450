//! The approval card: what the approver reads, rendered ASCII-only by seal.

use seal_record::Sha256Digest;
use seal_render::{escape, Context};

use crate::session::Call;
use crate::SandboxMode;

/// Most characters of a command, path or argument text shown on a card before the rest is
/// elided with an explicit marker naming how many bytes were left out.
pub const CARD_MAX_FIELD_CHARS: usize = 400;

const RULE: &str =
    "+------------------------------------------------------------------------------";

/// The card for one approval request. Every field is escaped in the inline context (one line,
/// printable ASCII; `reason` arrives escaped), every line starts with the renderer-owned gutter
/// `| `, and nothing is truncated without the elision marker.
pub(crate) fn approval_card(
    approval_id: &str,
    call: &Call,
    reason: &str,
    standing: SandboxMode,
    target: Option<SandboxMode>,
) -> String {
    let mut card = String::new();
    card.push_str("+- approval needed ");
    card.push_str(RULE.get(19..).unwrap_or(""));
    card.push('\n');
    line(&mut card, "approval", approval_id);
    line(&mut card, "tool", call.tool());
    line(&mut card, "call", call.call_id());
    line(&mut card, "session", call.session());
    line(&mut card, "agent", call.agent());
    if let Some(command) = call.command() {
        subject(&mut card, "command", command);
    } else if let Some(path) = call.path() {
        subject(&mut card, "path", path);
    }
    subject(&mut card, "arguments", call.arguments_json());
    let sandbox = match target {
        Some(target) => format!(
            "{} -> {} (escalation for this call only)",
            standing.as_str(),
            target.as_str()
        ),
        None => standing.as_str().to_owned(),
    };
    line(&mut card, "sandbox", &sandbox);
    // The reason is already escaped to printable ASCII.
    line_ascii(&mut card, "reason", reason);
    card.push_str(RULE);
    card.push('\n');
    card
}

/// `| label     value`, the value escaped.
fn line(card: &mut String, label: &str, value: &str) {
    line_ascii(card, label, &escape(value, Context::Inline));
}

/// `| label     text`, the text already ASCII.
fn line_ascii(card: &mut String, label: &str, text: &str) {
    card.push_str("| ");
    card.push_str(label);
    for _ in label.len()..10 {
        card.push(' ');
    }
    card.push_str(text);
    card.push('\n');
}

/// A subject line (elided past [`CARD_MAX_FIELD_CHARS`], marked ` [...]`) and a line with its
/// byte length, digest prefix and the number of bytes elided, so two subjects that look alike
/// are told apart.
fn subject(card: &mut String, label: &str, value: &str) {
    let (head, left) = elide(value);
    let mut text = escape(head, Context::Inline).into_owned();
    if left > 0 {
        text.push_str(" [...]");
    }
    line_ascii(card, label, &text);
    let mut facts = format!(
        "{} bytes, sha256 {}",
        value.len(),
        Sha256Digest::of(value.as_bytes())
            .to_hex()
            .get(..16)
            .unwrap_or("")
    );
    if left > 0 {
        facts.push_str(&format!(", {left} bytes elided"));
    }
    line_ascii(card, "", &facts);
}

/// The first [`CARD_MAX_FIELD_CHARS`] characters and the number of bytes left out.
pub(crate) fn elide(value: &str) -> (&str, usize) {
    match value.char_indices().nth(CARD_MAX_FIELD_CHARS) {
        Some((cut, _)) => (value.get(..cut).unwrap_or(""), value.len() - cut),
        None => (value, 0),
    }
}
