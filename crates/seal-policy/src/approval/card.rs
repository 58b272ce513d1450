//! The approval card of a call: what the approver reads, rendered by seal-render
//! (spec/cards.md).

use seal_record::Sha256Digest;
use seal_render::{render_card, ApprovalCard, CardLimits, CardSubject, DigestedText};

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
/// `reason` is the raw reason (the text of the pipeline's reason before it was escaped): the
/// card escapes it once, like every other field, and elides it by its own limit.
pub fn approval_card(
    approval_id: &str,
    call: &ToolCall,
    reason: &str,
    standing: SandboxMode,
    target: Option<SandboxMode>,
) -> String {
    let subject = call
        .command()
        .map(|command| (CardSubject::Command, command))
        .or_else(|| call.path().map(|path| (CardSubject::Path, path)));
    let sandbox = match target {
        Some(target) => format!(
            "{} -> {} (escalation for this call only)",
            standing.as_str(),
            target.as_str()
        ),
        None => standing.as_str().to_owned(),
    };
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
            reason: digested(reason),
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
