//! Frame verification as the binary runs it (`scan`, the prompt hooks, `demo`), and the report
//! as JSON for machines.

use std::collections::BTreeSet;

use seal_parse::frame::ScanConfig;
use seal_verify::store::MemoryTrustStore;
use seal_verify::{FrameVerifier, Outcome, Report, UnixTime, VerifyConfig};

use crate::failure::{quoted, Failure};
use crate::json_out::J;

/// The frame element verified when none is configured.
pub const DEFAULT_ELEMENT: &str = "channel";

/// How frames are verified.
#[derive(Debug, Clone)]
pub struct FrameOptions {
    /// The frame element (`channel` by default).
    pub element: String,
    /// Compatibility mode: bodies hashed before the harness rewrite.
    pub compat: bool,
    /// Verification off: every frame gets the `verification_off` notice.
    pub off: bool,
}

impl FrameOptions {
    /// The verifier configuration these options describe.
    pub fn config(&self) -> Result<VerifyConfig, Failure> {
        let scan = ScanConfig::new(&self.element)
            .map_err(|error| Failure::usage(format!("`--element`: {error}")))?
            .with_rewrite();
        let mut config = VerifyConfig::new(scan);
        if self.compat {
            config = config
                .compatibility()
                .map_err(|error| Failure::usage(format!("`--compat`: {error}")))?;
        }
        if self.off {
            config = config.verification_off();
        }
        Ok(config)
    }
}

/// Verifies `text` in `conversation` at `now` against `store`, with `seen` as the ids already
/// accepted, and hands the report to `use_report`.
pub fn verify_text<T>(
    store: &MemoryTrustStore,
    options: &FrameOptions,
    conversation: &str,
    now: UnixTime,
    seen: &BTreeSet<String>,
    text: &str,
    use_report: impl FnOnce(&Report) -> T,
) -> Result<T, Failure> {
    if conversation.is_empty() || conversation.len() > seal_verify::MAX_CONVERSATION_ID_BYTES {
        return Err(Failure::usage(format!(
            "conversation id {} must be 1 to {} bytes",
            quoted(conversation),
            seal_verify::MAX_CONVERSATION_ID_BYTES
        )));
    }
    let config = options.config()?;
    let verifier = FrameVerifier::new(&config, store, conversation, now, seen);
    let report = verifier.verify(text);
    Ok(use_report(&report))
}

/// The operator's report as JSON (fields documented in spec/cli.md, "scan --json").
pub fn report_json(report: &Report) -> J {
    let frames = report
        .frames()
        .iter()
        .map(|frame| {
            let (outcome, reason, cause, frame_id) = match &frame.outcome {
                Outcome::Verified(verified) => {
                    ("verified", J::Null, J::Null, J::opt(verified.frame_id()))
                }
                Outcome::Untrusted { reason, cause } => (
                    "untrusted",
                    J::str(reason.code()),
                    J::str(cause.to_string()),
                    J::Null,
                ),
            };
            J::Obj(vec![
                ("start", J::Num(frame.tag.start as u64)),
                ("end", J::Num(frame.tag.end as u64)),
                ("depth", J::Num(frame.depth as u64)),
                ("source", J::opt(frame.source.as_deref())),
                ("key_id", J::opt(frame.key_id.as_deref())),
                ("outcome", J::str(outcome)),
                ("reason", reason),
                ("cause", cause),
                ("frame_id", frame_id),
            ])
        })
        .collect();
    J::Obj(vec![
        ("tainted", J::Bool(report.is_tainted())),
        ("verification_off", J::Bool(report.verification_off())),
        ("verified", J::Num(report.verified().count() as u64)),
        ("alarms", J::Num(report.alarms().count() as u64)),
        ("alarms_omitted", J::Num(report.alarms_omitted() as u64)),
        (
            "scan_error",
            J::opt(report.scan_error().map(|error| error.to_string())),
        ),
        ("frames", J::Arr(frames)),
        ("new_ids", J::Arr(report.new_ids().map(J::str).collect())),
        ("alarm_text", J::str(report.alarm_text())),
    ])
}
