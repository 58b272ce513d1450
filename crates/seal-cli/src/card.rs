//! The approval card: what a human is asked to approve, as ASCII behind a gutter the renderer
//! owns, with the exact byte length and digest of what would run and an explicit elision mark.

use seal_policy::chain::{Subject, ToolCall};
use seal_render::{escape, Context};

/// Width of a card line, gutter included.
pub const CARD_WIDTH: usize = 78;

/// Most characters of the escaped subject shown before the elision mark.
pub const MAX_SHOWN_CHARS: usize = 480;

const GUTTER: &str = "| ";
const LABEL_WIDTH: usize = 9;

/// The card for `call`, asked because of `reason`.
pub fn render(call: &ToolCall, reason: &str) -> String {
    let (label, subject) = match call.subject() {
        Subject::Command(command) => ("command", command.clone()),
        Subject::Path(path) => ("path", path.clone()),
        Subject::Url { url, .. } => ("url", url.clone()),
        Subject::Unreadable { field } => ("missing", (*field).to_owned()),
        Subject::Opaque => (
            "args",
            String::from_utf8_lossy(call.sealed().arguments_bytes()).into_owned(),
        ),
    };
    let digest: String = seal_record::Sha256Digest::of(subject.as_bytes())
        .to_hex()
        .chars()
        .take(16)
        .collect();
    let mut out = String::new();
    out.push_str(&rule("+- seal: approval needed "));
    field(&mut out, "tool", &escape(call.tool(), Context::Inline));
    field(&mut out, label, &shown(&subject));
    field(
        &mut out,
        "length",
        &format!("{} bytes, sha256 {digest}", subject.len()),
    );
    field(&mut out, "reason", &shown(reason));
    out.push_str(&rule("+"));
    out
}

fn shown(text: &str) -> String {
    let escaped = escape(text, Context::Inline);
    let total = escaped.len();
    if total <= MAX_SHOWN_CHARS {
        return escaped.into_owned();
    }
    let head: String = escaped.chars().take(MAX_SHOWN_CHARS).collect();
    format!(
        "{head}[... {} more characters not shown ...]",
        total - MAX_SHOWN_CHARS
    )
}

fn field(out: &mut String, label: &str, value: &str) {
    let width = CARD_WIDTH - GUTTER.len() - LABEL_WIDTH;
    let chars: Vec<char> = value.chars().collect();
    let mut chunks = chars.chunks(width.max(1));
    let first: String = chunks
        .next()
        .map(|c| c.iter().collect())
        .unwrap_or_default();
    out.push_str(&format!("{GUTTER}{label:<LABEL_WIDTH$}{first}\n"));
    for chunk in chunks {
        let line: String = chunk.iter().collect();
        out.push_str(&format!("{GUTTER}{:<LABEL_WIDTH$}{line}\n", ""));
    }
}

fn rule(start: &str) -> String {
    let mut line = String::from(start);
    while line.len() < CARD_WIDTH {
        line.push('-');
    }
    line.push('\n');
    line
}
