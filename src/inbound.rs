//! Inbound messages: what verifying a submitted message yields.

use std::fmt;
use std::ops::Range;

use seal_render::{escape, Context};
use seal_verify::{Outcome as CoreOutcome, Report};

use crate::AlarmReason;

/// The result of verifying one submitted message: the alarm text to append after it (for the
/// model) and the report (for the operator). The message itself is never changed.
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
///     UnixTime(1_800_000_000), &replay);
/// let shown = format!("{}{}", "hi <channel source=\"x\" id=\"m1\">x</channel>", inbound.alarms());
/// assert!(inbound.report().is_tainted());
/// assert!(shown.contains("unsigned_frame"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbound {
    alarms: String,
    report: InboundReport,
}

/// What the verifier found, for the operator: every finding with its verdict and detailed
/// cause, and the ids claimed. Detail here never reaches the alarm text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundReport {
    findings: Vec<FrameFinding>,
    tainted: bool,
    verification_off: bool,
    scan_stopped: Option<String>,
    new_ids: Vec<String>,
    replay_store_errors: Vec<String>,
}

/// One tag found in the message, with its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameFinding {
    /// Byte range of the tag that starts the finding in the submitted text.
    pub tag: Range<usize>,
    /// 1 at top level, 2 and more nested, 0 for a stray closing tag.
    pub depth: usize,
    /// The decoded `source` attribute, if the tag was strictly accepted and has one.
    pub source: Option<String>,
    /// The decoded `kid` attribute, if the tag was strictly accepted and has one.
    pub key_id: Option<String>,
    /// Verified or untrusted.
    pub verdict: FrameVerdict,
}

/// The verdict on one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameVerdict {
    /// Strictly accepted, top level, signed by a key the store resolved for it now, tag
    /// checked under this conversation's subkey, id claimed fresh in the replay store.
    Verified {
        /// The element name.
        element: String,
        /// The attributes (decoded), `sig` excluded, in document order.
        attributes: Vec<(String, String)>,
        /// Byte range of the body in the submitted text (raw, as submitted).
        body: Range<usize>,
    },
    /// Untrusted: an alarm with `reason` was appended.
    Untrusted {
        /// The reason written in the alarm.
        reason: AlarmReason,
        /// The detailed cause (operator only).
        cause: String,
    },
}

impl Inbound {
    pub(crate) fn from_report(report: &Report) -> Inbound {
        let findings = report
            .frames()
            .iter()
            .map(|frame| FrameFinding {
                tag: frame.tag.range(),
                depth: frame.depth,
                source: frame.source.as_deref().map(str::to_owned),
                key_id: frame.key_id.as_deref().map(str::to_owned),
                verdict: match &frame.outcome {
                    CoreOutcome::Verified(verified) => FrameVerdict::Verified {
                        element: verified.element().to_owned(),
                        attributes: verified
                            .attributes()
                            .iter()
                            .map(|a| (a.name.to_owned(), a.value().to_owned()))
                            .collect(),
                        body: verified.body().range(),
                    },
                    CoreOutcome::Untrusted { reason, cause } => FrameVerdict::Untrusted {
                        reason: *reason,
                        cause: cause.to_string(),
                    },
                },
            })
            .collect();
        Inbound {
            alarms: report.alarm_text().to_owned(),
            report: InboundReport {
                findings,
                tainted: report.is_tainted(),
                verification_off: report.verification_off(),
                scan_stopped: report.scan_error().map(|error| error.to_string()),
                new_ids: report.new_ids().map(str::to_owned).collect(),
                replay_store_errors: report.claim_errors().map(ToString::to_string).collect(),
            },
        }
    }

    /// The text to append after the message: empty when nothing alarmed; otherwise an LF if the
    /// message does not end with one, then one `<seal-alarm ..>` element per untrusted finding
    /// and a message-level alarm, separated by LF. ASCII only.
    pub fn alarms(&self) -> &str {
        &self.alarms
    }

    /// The operator report.
    pub fn report(&self) -> &InboundReport {
        &self.report
    }

    /// Splits into the alarm text and the report.
    pub fn into_parts(self) -> (String, InboundReport) {
        (self.alarms, self.report)
    }
}

impl InboundReport {
    /// Every finding in document order.
    pub fn findings(&self) -> &[FrameFinding] {
        &self.findings
    }

    /// The findings that verified.
    pub fn verified(&self) -> impl Iterator<Item = &FrameFinding> {
        self.findings
            .iter()
            .filter(|finding| matches!(finding.verdict, FrameVerdict::Verified { .. }))
    }

    /// The alarm reasons of the untrusted findings, in document order.
    pub fn alarm_reasons(&self) -> impl Iterator<Item = AlarmReason> + '_ {
        self.findings
            .iter()
            .filter_map(|finding| match finding.verdict {
                FrameVerdict::Untrusted { reason, .. } => Some(reason),
                FrameVerdict::Verified { .. } => None,
            })
    }

    /// Whether anything alarmed: then the whole message is untrusted, verified frames included.
    pub fn is_tainted(&self) -> bool {
        self.tainted
    }

    /// Whether verification was off (every finding is then `verification_off`).
    pub fn verification_off(&self) -> bool {
        self.verification_off
    }

    /// The scan limit that stopped the scan, if one did (the message is then tainted).
    pub fn scan_stopped(&self) -> Option<&str> {
        self.scan_stopped.as_deref()
    }

    /// The ids of the frames that verified, each claimed fresh in the replay store by this
    /// verification (already recorded: nothing is left to record).
    pub fn new_ids(&self) -> &[String] {
        &self.new_ids
    }

    /// The replay store's errors, one per frame whose claim it could not answer (those frames
    /// are untrusted, with reason `replayed_frame`). An edge that must fail closed as a whole
    /// refuses the message when this is not empty.
    pub fn replay_store_errors(&self) -> &[String] {
        &self.replay_store_errors
    }
}

impl fmt::Display for InboundReport {
    /// One line per finding (`1. bytes 0..40 depth 1 source `x`: bad_signature (cause)`), then a
    /// summary line. ASCII only: text from the message is escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, finding) in self.findings.iter().enumerate() {
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
            match &finding.verdict {
                FrameVerdict::Verified { .. } => writeln!(f, ": verified")?,
                FrameVerdict::Untrusted { reason, cause } => {
                    writeln!(f, ": {reason} ({})", escape(cause, Context::Inline))?;
                }
            }
        }
        if let Some(stopped) = &self.scan_stopped {
            writeln!(f, "scan stopped: {}", escape(stopped, Context::Inline))?;
        }
        let state = if self.verification_off {
            "verification off"
        } else if self.tainted {
            "tainted"
        } else {
            "clean"
        };
        write!(
            f,
            "{} finding(s), {} verified: {state}",
            self.findings.len(),
            self.verified().count()
        )
    }
}
