//! Approval cards: what a human reads before allowing a tool call, as printable ASCII lines of at
//! most [`LINE_WIDTH`] columns behind a renderer-owned gutter (spec/cards.md).

use crate::card_layout::{elide, hex_prefix, Layout};

pub use crate::card_layout::LINE_WIDTH;

/// Default for [`CardLimits::max_field_columns`]: 400 columns, about six lines of text.
pub const DEFAULT_MAX_FIELD_COLUMNS: usize = 400;

/// The first line of every card (79 columns).
pub const CARD_TOP: &str =
    "+- approval needed ------------------------------------------------------------";

/// The last line of every card (79 columns).
pub const CARD_BOTTOM: &str =
    "+------------------------------------------------------------------------------";

/// Limits of a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardLimits {
    /// Most columns of escaped text shown for a subject, the arguments or the reason, elision
    /// marker included (default [`DEFAULT_MAX_FIELD_COLUMNS`]). Longer text is elided: its
    /// first characters are shown, then the marker ` [...]`, and the lines after it give the
    /// full byte length, the digest prefix and the number of bytes left out. Values below 6
    /// show the marker alone.
    pub max_field_columns: usize,
}

impl Default for CardLimits {
    fn default() -> CardLimits {
        CardLimits {
            max_field_columns: DEFAULT_MAX_FIELD_COLUMNS,
        }
    }
}

/// What the subject shown on an approval card is: a shell command or a file path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardSubject {
    /// A shell command, labelled `command`.
    Command,
    /// A file path, labelled `path`.
    Path,
}

impl CardSubject {
    /// The label of the subject's field.
    pub fn label(self) -> &'static str {
        match self {
            CardSubject::Command => "command",
            CardSubject::Path => "path",
        }
    }
}

/// Text that may be long, with the SHA-256 of its UTF-8 bytes (computed by the caller: this
/// crate does no hashing). The digest prefix is what binds text left out by elision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DigestedText<'a> {
    /// The text, shown escaped.
    pub text: &'a str,
    /// SHA-256 of `text`'s UTF-8 bytes.
    pub sha256: [u8; 32],
}

/// The fields of an approval card. Every text is shown escaped in the inline context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApprovalCard<'a> {
    /// The approval request's id.
    pub approval_id: &'a str,
    /// The tool called.
    pub tool: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The session.
    pub session: &'a str,
    /// The agent.
    pub agent: &'a str,
    /// The command or path the call acts on, if it has one.
    pub subject: Option<(CardSubject, DigestedText<'a>)>,
    /// The call's arguments as the caller shows them (for example canonical JSON).
    pub arguments: DigestedText<'a>,
    /// The sandbox the call runs in, as the caller words it.
    pub sandbox: &'a str,
    /// Why approval is asked.
    pub reason: DigestedText<'a>,
}

/// Renders an approval card (spec/cards.md).
///
/// ```
/// use seal_render::{render_card, ApprovalCard, CardLimits, DigestedText, CardSubject};
/// let command = DigestedText { text: "git push \u{202e}origin", sha256: [0xab; 32] };
/// let card = render_card(
///     &ApprovalCard {
///         approval_id: "approval-1", tool: "Bash", call_id: "c1", session: "s1", agent: "a1",
///         subject: Some((CardSubject::Command, command)),
///         arguments: DigestedText { text: "{}", sha256: [0xcd; 32] },
///         sandbox: "workspace-write",
///         reason: DigestedText { text: "rule asks", sha256: [0; 32] },
///     },
///     &CardLimits::default(),
/// );
/// assert!(card.contains("| command   git push \\u{202e}origin\n|           18 bytes, sha256 abababababababab\n"));
/// assert!(card.lines().all(|line| line.len() <= 80));
/// ```
///
/// Guarantees:
/// - printable ASCII and LF only, every line at most [`LINE_WIDTH`] columns;
/// - the first line is [`CARD_TOP`], the last [`CARD_BOTTOM`], every other line starts with
///   `|` and a 12-column gutter owned by the renderer, so no field text can start a line, fake
///   a field or the border; field text that does not fit wraps onto continuation lines whose
///   gutter `|       ... ` is used by nothing else;
/// - injective on what it shows: the card determines every field, except that the bytes of an
///   elided text left out are bound only by the digest prefix shown;
/// - nothing is cut without the marker ` [...]`, the full byte length, the digest prefix and
///   the count of bytes left out.
pub fn render_card(card: &ApprovalCard<'_>, limits: &CardLimits) -> String {
    let mut out = String::with_capacity(1024);
    out.push_str(CARD_TOP);
    out.push('\n');
    CARD.text_field(&mut out, "approval", card.approval_id);
    CARD.text_field(&mut out, "tool", card.tool);
    CARD.text_field(&mut out, "call", card.call_id);
    CARD.text_field(&mut out, "session", card.session);
    CARD.text_field(&mut out, "agent", card.agent);
    if let Some((kind, subject)) = &card.subject {
        digested(&mut out, kind.label(), subject, limits, Facts::Always);
    }
    digested(
        &mut out,
        "arguments",
        &card.arguments,
        limits,
        Facts::Always,
    );
    CARD.text_field(&mut out, "sandbox", card.sandbox);
    digested(&mut out, "reason", &card.reason, limits, Facts::WhenElided);
    out.push_str(CARD_BOTTOM);
    out.push('\n');
    out
}

/// The card's gutters: `| ` and a label padded to 10 columns; continuation `|       ... `.
const CARD: Layout = Layout {
    lead: "| ",
    text_column: 12,
    continuation: "|       ... ",
};

/// When the length-and-digest line follows a digested field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Facts {
    Always,
    WhenElided,
}

/// The field, then `N bytes, sha256 H` (always or only when elided), then `N bytes elided`
/// when elided, both behind the blank-label gutter.
fn digested(
    out: &mut String,
    label: &str,
    field: &DigestedText<'_>,
    limits: &CardLimits,
    facts: Facts,
) {
    let (shown, left) = elide(field.text, limits.max_field_columns);
    CARD.field(out, label, &shown);
    if facts == Facts::Always || left > 0 {
        let line = format!(
            "{} bytes, sha256 {}",
            field.text.len(),
            hex_prefix(&field.sha256)
        );
        CARD.field(out, "", &line);
    }
    if left > 0 {
        CARD.field(out, "", &format!("{left} bytes elided"));
    }
}
