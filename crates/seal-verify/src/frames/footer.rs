//! The footer form: a signed footer line after a message, for lanes that cannot carry
//! attributes, verified by the same checks as frames.

use seal_parse::frame::{scan_with_stats, Frame, FrameFinding, ScanConfig, Span};
use smallvec::SmallVec;

use super::report::{
    AlarmReason, FrameCause, FrameReport, InboundReport, UnansweredClaim, VerifiedFrame,
};
use super::verify::{
    pairs_into, split_sig, suspect_outcome, untrusted, AdmittedIds, FrameVerifier, Signed,
};
use crate::sign::FOOTER_ELEMENT;
use crate::store::KeySource;

impl<S: KeySource + ?Sized> FrameVerifier<'_, S> {
    /// Verifies a message of the footer lane: `message` LF `<seal-footer a="v" .. sig="t">
    /// </seal-footer>`, optionally followed by one LF.
    ///
    /// The footer must be the text's last line, a strictly accepted top-level `seal-footer`
    /// element with an empty body; its tag covers [`FooterSigningInput`](seal_record::FooterSigningInput) over its attributes
    /// (without `sig`) and the message bytes before the LF that precedes it. Keys are resolved for
    /// the element `seal-footer`. Every other `seal-footer` tag in the text alarms (a footer that
    /// is not last is `malformed_frame`), and a text without a footer gets one `unsigned_frame`
    /// entry. The configured element's frames are not looked at: run
    /// [`FrameVerifier::verify`] on the message for those.
    ///
    /// # Errors
    /// [`UnansweredClaim`] when the replay store could not answer the footer's claim, as for
    /// [`FrameVerifier::verify`].
    pub fn verify_footer<'t>(
        &self,
        text: &'t str,
    ) -> Result<InboundReport<'t>, UnansweredClaim<'t>> {
        let scan = footer_scan(self.config.scan());
        let (scanned, stats) = scan_with_stats(text, &scan);
        let findings = match scanned {
            Ok(findings) => findings,
            Err(error) => {
                let mut report = InboundReport::open(stats, 0);
                report.scan_error = Some(error);
                self.finish(text, FOOTER_ELEMENT, &mut report);
                return Ok(report);
            }
        };
        let last = footer_position(text, &findings);
        let mut checks = 0;
        let mut admitted = AdmittedIds::default();
        let mut report = InboundReport::open(stats, findings.len().saturating_add(1));
        for (index, finding) in findings.into_iter().enumerate() {
            self.record(&mut report, finding, |finding, earlier| {
                match (finding, last) {
                    (FrameFinding::Suspect(suspect), _) => suspect_outcome(&suspect),
                    (FrameFinding::Frame(frame), Some((at, message_end))) if at == index => {
                        let checked = self.check_footer(text, frame, message_end, &mut checks);
                        self.admit(checked, earlier, &mut admitted)
                    }
                    (FrameFinding::Frame(_), _) => {
                        untrusted(AlarmReason::MalformedFrame, FrameCause::FooterNotLast)
                    }
                }
            });
        }
        if last.is_none() {
            let reason = if self.config.is_enabled() {
                AlarmReason::UnsignedFrame
            } else {
                AlarmReason::VerificationOff
            };
            report.frames.push(FrameReport {
                tag: Span {
                    start: text.len(),
                    end: text.len(),
                },
                depth: 0,
                source: None,
                frame_id: None,
                key_id: None,
                outcome: untrusted(reason, FrameCause::NoFooter),
            });
        }
        report.signature_checks = checks;
        self.finish(text, FOOTER_ELEMENT, &mut report);
        report.into_verdict()
    }

    fn check_footer<'t>(
        &self,
        text: &'t str,
        frame: Frame<'t>,
        message_end: usize,
        checks: &mut usize,
    ) -> Result<VerifiedFrame<'t>, (AlarmReason, FrameCause)> {
        let (fields, sig) = split_sig(&frame.attributes)
            .ok_or((AlarmReason::UnsignedFrame, FrameCause::NoSignature))?;
        // `footer_position` found an LF at `message_end`, so the message is a slice of `text`;
        // were it not, the footer could not be checked against its message and alarms.
        let message = text
            .get(..message_end)
            .ok_or((AlarmReason::MalformedFrame, FrameCause::FooterNotLast))?;
        let mut pairs = SmallVec::new();
        pairs_into(fields, &mut pairs);
        let verified = self.check_signed(
            FOOTER_ELEMENT,
            &pairs,
            sig,
            checks,
            Signed::Footer {
                message: message.as_bytes(),
            },
        )?;
        drop(pairs);
        let mut attributes = frame.attributes;
        // The tag checked, so the last attribute is `sig` (split_sig found it there).
        attributes.pop();
        Ok(VerifiedFrame {
            verified,
            element: FOOTER_ELEMENT,
            attributes,
            header: frame.header,
            body: Span {
                start: 0,
                end: message_end,
            },
            close: frame.close,
        })
    }
}

/// The scan of the footer element, with the frame config's limits and no rewrite.
fn footer_scan(frames: &ScanConfig) -> ScanConfig {
    match ScanConfig::new(FOOTER_ELEMENT) {
        Ok(config) => config.with_limits(*frames.limits()),
        // The footer element is a constant inside the grammar; keep the frame config's shape.
        Err(_) => frames.clone(),
    }
}

/// The index of the footer finding and the end of the message it signs: the last finding, a
/// strictly accepted top-level frame with an empty body, directly after an LF, ending the text
/// (or followed by exactly one LF).
fn footer_position(text: &str, findings: &[FrameFinding<'_>]) -> Option<(usize, usize)> {
    let index = findings.len().checked_sub(1)?;
    let Some(FrameFinding::Frame(frame)) = findings.get(index) else {
        return None;
    };
    let rest = text.get(frame.close.end..)?;
    let at_end = rest.is_empty() || rest == "\n";
    let message_end = frame.header.start.checked_sub(1)?;
    let after_lf = text.get(message_end..frame.header.start) == Some("\n");
    (frame.depth == 1 && frame.body.start == frame.body.end && at_end && after_lf)
        .then_some((index, message_end))
}
