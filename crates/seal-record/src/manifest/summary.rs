//! The summary a human reads before approving a manifest, rendered by seal-render.

use seal_render::{render_summary, ManifestSummary, SummaryFile, SummaryRedaction};

use super::Manifest;

impl Manifest {
    /// The summary the human reads before approving (see [`seal_render::render_summary`]):
    /// printable ASCII lines of at most 80 columns, every field escaped, the disclosure hash
    /// first, one file, redaction or external tool per line, long text wrapped onto
    /// continuation lines behind a gutter no field line uses.
    pub fn summary(&self) -> String {
        let ranges: Vec<Vec<(u64, u64)>> = (self.files().iter())
            .map(|file| file.ranges().iter().map(|r| (r.start, r.end)).collect())
            .collect();
        let files: Vec<SummaryFile<'_>> = (self.files().iter().zip(&ranges))
            .map(|(file, ranges)| SummaryFile {
                path: file.path().as_str(),
                ranges,
                sha256: *file.sha256().as_bytes(),
            })
            .collect();
        let redactions: Vec<SummaryRedaction<'_>> = (self.redactions().iter())
            .map(|r| SummaryRedaction {
                kind: r.kind(),
                count: r.count(),
            })
            .collect();
        let tools: Vec<&str> = self.external_tools().iter().map(String::as_str).collect();
        render_summary(&ManifestSummary {
            disclosure_hash: *self.disclosure_hash().as_bytes(),
            run_id: self.run_id(),
            provider: self.provider(),
            model: self.model(),
            purpose: self.purpose(),
            files: &files,
            redactions: &redactions,
            external_tools: &tools,
            estimated_tokens: self.estimated_tokens(),
            payload_sha256: *self.payload_sha256().as_bytes(),
            policy_sha256: *self.policy_sha256().as_bytes(),
        })
    }
}
