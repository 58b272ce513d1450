//! Manifest summaries: what a human reads before approving a disclosure manifest, as printable
//! ASCII lines of at most [`LINE_WIDTH`](crate::LINE_WIDTH) columns (spec/cards.md).

use crate::card_layout::{hex_full, hex_prefix, Layout};

/// One file of a manifest: its path, the line ranges sent and the SHA-256 of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SummaryFile<'a> {
    /// The file's path, shown escaped.
    pub path: &'a str,
    /// The line ranges sent, first and last line of each, shown as `start-end` joined by `,`.
    pub ranges: &'a [(u64, u64)],
    /// SHA-256 of the file, shown as its first 16 hex digits.
    pub sha256: [u8; 32],
}

/// One kind of redaction and how many times it was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SummaryRedaction<'a> {
    /// The kind, shown escaped.
    pub kind: &'a str,
    /// How many.
    pub count: u64,
}

/// The fields of a manifest summary. Every text is shown escaped in the inline context; the
/// digests are computed by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ManifestSummary<'a> {
    /// SHA-256 of the manifest's canonical form: what the human approves. Shown in full.
    pub disclosure_hash: [u8; 32],
    /// The run id.
    pub run_id: &'a str,
    /// The provider.
    pub provider: &'a str,
    /// The model.
    pub model: &'a str,
    /// The purpose.
    pub purpose: &'a str,
    /// The files sent, in the caller's order.
    pub files: &'a [SummaryFile<'a>],
    /// The redactions applied, in the caller's order.
    pub redactions: &'a [SummaryRedaction<'a>],
    /// The external tools the run may call, in the caller's order.
    pub external_tools: &'a [&'a str],
    /// The estimated number of tokens.
    pub estimated_tokens: u64,
    /// SHA-256 of the payload, shown in full.
    pub payload_sha256: [u8; 32],
    /// SHA-256 of the policy, shown in full.
    pub policy_sha256: [u8; 32],
}

/// Renders a manifest summary (spec/cards.md): the disclosure hash first, one item per field,
/// a label in 16 columns before each.
///
/// ```
/// use seal_render::{render_summary, ManifestSummary, SummaryFile};
/// let files = [SummaryFile { path: "src/lib.rs", ranges: &[(1, 2), (5, 5)], sha256: [0x11; 32] }];
/// let summary = render_summary(&ManifestSummary {
///     disclosure_hash: [0xaa; 32], run_id: "run-1", provider: "p", model: "m",
///     purpose: "review \u{202e}txt", files: &files, redactions: &[], external_tools: &[],
///     estimated_tokens: 40, payload_sha256: [0; 32], policy_sha256: [1; 32],
/// });
/// assert!(summary.contains("\npurpose         review \\u{202e}txt\n"));
/// assert!(summary.contains("\n  file          src/lib.rs lines 1-2,5-5 sha256 1111111111111111\n"));
/// assert!(summary.contains("\nredactions      none\n"));
/// ```
///
/// Guarantees:
/// - printable ASCII and LF only, every line at most [`LINE_WIDTH`](crate::LINE_WIDTH)
///   columns;
/// - every line starts with a 16-column gutter owned by the renderer (a label, or the
///   continuation gutter `            ... ` used by nothing else), so no field text can start a
///   line or fake a field; text that does not fit wraps onto continuation lines;
/// - injective: each line holds at most one free text, at its end or before a suffix of fixed
///   grammar (` lines R sha256 H` of a file, ` xN` of a redaction), so the summary determines
///   every field (file digests by their first 16 hex digits).
pub fn render_summary(summary: &ManifestSummary<'_>) -> String {
    let mut out = String::with_capacity(1024);
    SUMMARY.field(
        &mut out,
        "disclosure hash",
        &hex_full(&summary.disclosure_hash),
    );
    SUMMARY.text_field(&mut out, "run", summary.run_id);
    SUMMARY.text_field(&mut out, "provider", summary.provider);
    SUMMARY.text_field(&mut out, "model", summary.model);
    SUMMARY.text_field(&mut out, "purpose", summary.purpose);
    SUMMARY.field(&mut out, "files", &summary.files.len().to_string());
    for file in summary.files {
        let mut line = crate::escape(file.path, crate::Context::Inline).into_owned();
        line.push_str(" lines ");
        for (index, (start, end)) in file.ranges.iter().enumerate() {
            if index > 0 {
                line.push(',');
            }
            line.push_str(&format!("{start}-{end}"));
        }
        line.push_str(" sha256 ");
        line.push_str(&hex_prefix(&file.sha256));
        SUMMARY.field(&mut out, "  file", &line);
    }
    if summary.redactions.is_empty() {
        SUMMARY.field(&mut out, "redactions", "none");
    }
    for redaction in summary.redactions {
        let mut line = crate::escape(redaction.kind, crate::Context::Inline).into_owned();
        line.push_str(&format!(" x{}", redaction.count));
        SUMMARY.field(&mut out, "redaction", &line);
    }
    if summary.external_tools.is_empty() {
        SUMMARY.field(&mut out, "external tools", "none");
    }
    for tool in summary.external_tools {
        SUMMARY.text_field(&mut out, "external tool", tool);
    }
    SUMMARY.field(
        &mut out,
        "est. tokens",
        &summary.estimated_tokens.to_string(),
    );
    SUMMARY.field(
        &mut out,
        "payload sha256",
        &hex_full(&summary.payload_sha256),
    );
    SUMMARY.field(&mut out, "policy sha256", &hex_full(&summary.policy_sha256));
    out
}

/// The summary's gutters: a label padded to 16 columns; continuation `            ... `.
const SUMMARY: Layout = Layout {
    lead: "",
    text_column: 16,
    continuation: "            ... ",
};
