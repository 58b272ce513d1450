//! The approval card of a call: what the approver reads, rendered by seal-render
//! (spec/cards.md).

use std::borrow::Cow;

use seal_record::Sha256Digest;
use seal_render::{
    decode, render_card, ApprovalCard, CardLimits, Context, DigestedText, SubjectKind,
};

use crate::chain::ToolCall;
use crate::preset::SandboxMode;

/// Most columns of escaped text shown on a card for a command, a path, the arguments or the
/// reason, the elision marker ` [...]` included. Longer text shows its first characters and
/// the marker, then lines with its byte length, SHA-256 prefix and the number of bytes left
/// out. (The limit counts escaped columns, so a card stays about six lines per field whatever
/// the text holds.)
pub const CARD_MAX_FIELD_CHARS: usize = 400;

/// The card for one approval request (see [`seal_render::render_card`]): printable ASCII lines
/// of at most 80 columns, every field escaped once in the inline context behind the
/// renderer-owned gutter `| `, long text wrapped onto `|       ... ` continuation lines, and
/// nothing cut without the elision marker, the byte count and the digest prefix.
///
/// `reason` is the reason as recorded (escaped to printable ASCII, possibly cut); the card
/// shows the text it stands for, so it is escaped once on the card.
pub fn approval_card(
    approval_id: &str,
    call: &ToolCall,
    reason: &str,
    standing: SandboxMode,
    target: Option<SandboxMode>,
) -> String {
    let subject = call
        .command()
        .map(|command| (SubjectKind::Command, command))
        .or_else(|| call.path().map(|path| (SubjectKind::Path, path)));
    let sandbox = match target {
        Some(target) => format!(
            "{} -> {} (escalation for this call only)",
            standing.as_str(),
            target.as_str()
        ),
        None => standing.as_str().to_owned(),
    };
    let reason = recorded_text(reason);
    render_card(
        &ApprovalCard {
            approval_id,
            tool: call.tool(),
            call_id: call.call_id(),
            session: call.session(),
            agent: call.agent().unwrap_or(""),
            subject: subject.map(|(kind, text)| (kind, digested(text))),
            arguments: digested(call.arguments_json()),
            sandbox: &sandbox,
            reason: digested(&reason),
        },
        &CardLimits {
            max_field_columns: CARD_MAX_FIELD_CHARS,
        },
    )
}

fn digested(text: &str) -> DigestedText<'_> {
    DigestedText {
        text,
        sha256: *Sha256Digest::of(text.as_bytes()).as_bytes(),
    }
}

/// The text an escaped reason stands for. A reason cut inside an escape decodes up to the cut;
/// the rest is kept as recorded (and so escaped on the card).
fn recorded_text(recorded: &str) -> Cow<'_, str> {
    match decode(recorded, Context::Inline) {
        Ok(text) => text,
        Err(error) => {
            let head = recorded.get(..error.offset).unwrap_or("");
            let rest = recorded.get(error.offset..).unwrap_or(recorded);
            match decode(head, Context::Inline) {
                Ok(head) => Cow::Owned(format!("{head}{rest}")),
                Err(_) => Cow::Borrowed(recorded),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_reason_is_decoded_once() {
        assert_eq!(
            recorded_text("review \\u{202e}this\\n"),
            "review \u{202e}this\n"
        );
        assert_eq!(
            recorded_text("ok \\u{20 [... 3 characters elided]"),
            "ok \\u{20 [... 3 characters elided]"
        );
        assert_eq!(recorded_text("a\\tb \\u{2"), "a\tb \\u{2");
    }
}
