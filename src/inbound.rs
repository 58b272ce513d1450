//! Inbound messages: what verifying a submitted message yields.

use std::fmt;

use seal_render::{escape, Context};

/// What the verifier found, for the operator: every finding with its outcome and detailed
/// cause, the ids claimed, the replay store's errors. It borrows the verified message (`'t`):
/// attributes and ids are slices of it, never copies. Detail here never reaches the alarm
/// text.
pub use seal_verify::InboundReport;

/// One finding of a verification ([`InboundReport::frames`]): the tag, its depth, its decoded
/// `source`, `id` and `kid`, and its outcome.
pub use seal_verify::FrameReport;

/// Whether one finding verified ([`FrameOutcome::Verified`], with the witness), not (the alarm
/// reason and the detailed cause), or got no answer from the replay store
/// ([`FrameOutcome::Unanswered`]).
pub use seal_verify::FrameOutcome;

/// A message verification gives no verdict on, because the replay store could not answer the
/// claim of a frame whose tag checked: refuse the message as a whole (fail closed). It names
/// the frame and the store's error, and holds the operator's report.
pub use seal_verify::UnansweredClaim;

/// The witness of a verified frame: only the verifier constructs it (element, attributes,
/// body, the key and scope that verified it).
pub use seal_verify::VerifiedFrame;

/// The detailed cause of an untrusted finding, for the operator.
pub use seal_verify::FrameCause;

/// The result of verifying one submitted message: the alarm text to append after it (for the
/// model) and the report (for the operator). The message itself is never changed; the result
/// borrows it.
///
/// ```
/// # use seal::{Seal, FrameKey, TrustStore, UnixTime};
/// # use seal::MemoryReplayStore;
/// # let key = FrameKey::from_secret(&[7; 32])?;
/// # let mut store = TrustStore::new(UnixTime(2_000_000_000));
/// # store.add_frame_key("k1", &key, "channel", UnixTime(0), UnixTime(2_000_000_000))?;
/// # let seal = Seal::builder().trust_store(store).signing_key("k1", key).build()?;
/// let replay = MemoryReplayStore::new();
/// let inbound = seal.verify_inbound("hi <channel source=\"x\" id=\"m1\">x</channel>", "conv-1",
///     UnixTime(1_800_000_000), &replay).expect("the memory store answers");
/// let shown = format!("{}{}", "hi <channel source=\"x\" id=\"m1\">x</channel>", inbound.alarms());
/// assert!(inbound.report().is_tainted());
/// assert!(shown.contains("unsigned_frame"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Inbound<'t> {
    report: InboundReport<'t>,
}

impl<'t> Inbound<'t> {
    pub(crate) fn from_report(report: InboundReport<'t>) -> Inbound<'t> {
        Inbound { report }
    }

    /// The alarm text to append after the message (empty when nothing alarmed): ASCII, one
    /// alarm element per untrusted finding (up to the configured limit) and one for the
    /// message as a whole.
    pub fn alarms(&self) -> &str {
        self.report.alarm_text()
    }

    /// The operator's report.
    pub fn report(&self) -> &InboundReport<'t> {
        &self.report
    }

    /// The operator's report, given up.
    pub fn into_report(self) -> InboundReport<'t> {
        self.report
    }
}

impl fmt::Display for Inbound<'_> {
    /// The operator's report as text: one line per finding (`1. bytes 0..40 depth 1 source
    /// `x`: bad_signature (cause)`), then a summary line. ASCII only: text from the message is
    /// escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        for (index, finding) in report.frames().iter().enumerate() {
            write!(
                f,
                "{}. bytes {}..{} depth {}",
                index + 1,
                finding.tag.start,
                finding.tag.end,
                finding.depth
            )?;
            if let Some(source) = &finding.source {
                write!(f, " source `{}`", escape(source, Context::Inline))?;
            }
            if let Some(key_id) = &finding.key_id {
                write!(f, " kid `{}`", escape(key_id, Context::Inline))?;
            }
            match &finding.outcome {
                FrameOutcome::Verified(_) => writeln!(f, ": verified")?,
                FrameOutcome::Untrusted { reason, cause } => {
                    let cause = cause.to_string();
                    writeln!(f, ": {reason} ({})", escape(&cause, Context::Inline))?;
                }
                FrameOutcome::Unanswered { id, error } => {
                    let cause = format!("frame id `{id}` could not be claimed: {error}");
                    writeln!(f, ": unanswered ({})", escape(&cause, Context::Inline))?;
                }
            }
        }
        if let Some(stopped) = report.scan_error() {
            let stopped = stopped.to_string();
            writeln!(f, "scan stopped: {}", escape(&stopped, Context::Inline))?;
        }
        let state = if report.verification_off() {
            "verification off"
        } else if report.is_tainted() {
            "tainted"
        } else {
            "clean"
        };
        write!(
            f,
            "{} finding(s), {} verified: {state}",
            report.frames().len(),
            report.verified().count()
        )
    }
}
