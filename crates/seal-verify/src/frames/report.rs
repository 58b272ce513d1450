//! What frame verification found: an outcome per finding for operators, and the alarm text to
//! append for the model.

use std::borrow::Cow;
use std::fmt;

use seal_parse::frame::{Attribute, ScanError, ScanStats, Span, SuspectReason};
use seal_record::SigningInputError;
use smallvec::SmallVec;

use crate::frame_id::FrameIdProblem;
use crate::freshness::{IssuedAtProblem, Staleness};
use crate::replay::ClaimError;
use crate::sign::FRAME_ID_ATTRIBUTE;
use crate::store::{MatchedScope, Verified, VerifyFailure};
use crate::time::UnixTime;

/// The closed vocabulary of alarm reasons (spec/frame-v1.md, "Alarms").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AlarmReason {
    /// A frame without a `sig` (or a message without a footer, in the footer lane).
    UnsignedFrame,
    /// The tag did not check (wrong length, encoding or value; or the key cannot check it).
    BadSignature,
    /// The frame names no key, or a key the trust store does not hold.
    UnknownKey,
    /// The key exists but may not verify now (window, revocation, store expiry, status).
    KeyNotValid,
    /// The key is valid but not scoped for this element and these attributes.
    OutOfScope,
    /// A tag that is not a strictly accepted frame, a stray closing tag, a frame without the
    /// required id or with an id outside the frame id grammar, or a scan stopped by a limit.
    MalformedFrame,
    /// A frame inside another frame's body: never trusted, whatever its tag.
    NestedFrame,
    /// A frame id whose claim in the replay store was not fresh (claimed before, or earlier in
    /// the same message), or that the store could not answer (the frame is then
    /// [`FrameOutcome::Unanswered`] and the message gets no verdict, [`UnansweredClaim`]).
    ReplayedFrame,
    /// The frame's tag checked, but its issue time (`iat`) is outside the freshness window, or
    /// it has none and undated frames are not accepted now.
    StaleFrame,
    /// Verification is off: nothing was verified.
    VerificationOff,
    /// The message-level alarm: something in the message alarmed, so all of it is untrusted.
    TaintedMessage,
}

impl AlarmReason {
    /// The stable snake_case code written in the alarm's `reason` attribute.
    pub const fn code(self) -> &'static str {
        match self {
            Self::UnsignedFrame => "unsigned_frame",
            Self::BadSignature => "bad_signature",
            Self::UnknownKey => "unknown_key",
            Self::KeyNotValid => "key_not_valid",
            Self::OutOfScope => "out_of_scope",
            Self::MalformedFrame => "malformed_frame",
            Self::NestedFrame => "nested_frame",
            Self::ReplayedFrame => "replayed_frame",
            Self::StaleFrame => "stale_frame",
            Self::VerificationOff => "verification_off",
            Self::TaintedMessage => "tainted_message",
        }
    }
}

impl fmt::Display for AlarmReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The detailed cause of an alarm, for the operator's report only (never in the alarm text).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameCause {
    /// The frame has no `sig` attribute.
    NoSignature,
    /// The scanner did not strictly accept the tag, for these reasons.
    Suspect {
        /// The scanner's reasons, in order of discovery.
        reasons: Vec<SuspectReason>,
    },
    /// The frame lies inside another frame's body.
    Nested {
        /// Its depth (2 or more).
        depth: usize,
    },
    /// The frame is signed but has no `kid` attribute.
    NoKeyId,
    /// The frame has no `id` attribute and the configuration requires one.
    NoFrameId,
    /// The frame's `id` attribute is outside the frame id grammar.
    InvalidFrameId(FrameIdProblem),
    /// The signing input could not be built from the frame.
    SigningInput(SigningInputError),
    /// Key resolution or the signature check failed.
    Verify(VerifyFailure),
    /// The frame's tag checked, but the claim of its id was not fresh (claimed before, or
    /// earlier in the same message).
    Replayed {
        /// The id.
        id: String,
    },
    /// The frame's `iat` attribute is not an issue time.
    InvalidIssuedAt(IssuedAtProblem),
    /// The frame's issue time is outside the freshness window.
    Stale(Staleness),
    /// The frame has no `iat` attribute and undated frames are refused.
    Undated,
    /// The frame has no `iat` attribute and the migration window for undated frames ended.
    UndatedAfter {
        /// The last second undated frames were accepted.
        until: UnixTime,
    },
    /// A footer element that is not the message's last line.
    FooterNotLast,
    /// The footer lane's message has no footer line.
    NoFooter,
    /// Verification is off.
    VerificationOff,
}

impl fmt::Display for FrameCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoSignature => f.write_str("no `sig` attribute"),
            Self::Suspect { reasons } => {
                f.write_str("not strictly accepted:")?;
                for reason in reasons {
                    write!(f, " {reason}")?;
                }
                Ok(())
            }
            Self::Nested { depth } => write!(f, "nested at depth {depth}"),
            Self::NoKeyId => f.write_str("signed without a `kid` attribute"),
            Self::NoFrameId => f.write_str("no `id` attribute"),
            Self::InvalidFrameId(problem) => write!(f, "{problem}"),
            Self::SigningInput(error) => write!(f, "signing input refused: {error}"),
            Self::Verify(failure) => write!(f, "{failure}"),
            Self::Replayed { id } => write!(f, "frame id `{}` seen before", id.escape_debug()),
            Self::InvalidIssuedAt(problem) => write!(f, "{problem}"),
            Self::Stale(staleness) => write!(f, "{staleness}"),
            Self::Undated => f.write_str("no `iat` attribute, and undated frames are refused"),
            Self::UndatedAfter { until } => write!(
                f,
                "no `iat` attribute, and undated frames were accepted until {until} only"
            ),
            Self::FooterNotLast => f.write_str("footer is not the last line of the message"),
            Self::NoFooter => f.write_str("no footer line"),
            Self::VerificationOff => f.write_str("verification is off"),
        }
    }
}

/// A frame that verified: strictly accepted, top level, signed by a key the trust store resolved
/// for this element and these attributes at the given time, with a tag that checked under the
/// conversation's subkey, and an id whose claim in the replay store was fresh.
///
/// Only this crate's verifier builds one; code that needs a trusted frame takes a
/// `VerifiedFrame`. It borrows its element name and attributes from the verified text `'t`.
#[derive(Debug, Clone)]
pub struct VerifiedFrame<'t> {
    pub(crate) verified: Verified,
    pub(crate) element: &'t str,
    pub(crate) attributes: Vec<Attribute<'t>>,
    pub(crate) header: Span,
    pub(crate) body: Span,
    pub(crate) close: Span,
}

impl<'t> VerifiedFrame<'t> {
    /// The signature check's witness: key id, algorithm, fingerprint, scope.
    pub fn verified(&self) -> &Verified {
        &self.verified
    }

    /// The id of the key that verified.
    pub fn key_id(&self) -> &str {
        self.verified.key_id()
    }

    /// The scope of the key that allowed this frame.
    pub fn scope(&self) -> MatchedScope {
        self.verified.scope()
    }

    /// The element name (a slice of the verified text; for a footer, the footer element).
    pub fn element(&self) -> &'t str {
        self.element
    }

    /// The attributes (names and decoded values) in document order, `sig` excluded.
    pub fn attributes(&self) -> &[Attribute<'t>] {
        &self.attributes
    }

    /// The decoded value of attribute `name`, if present.
    #[inline]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|attribute| attribute.name == name)
            .map(Attribute::value)
    }

    /// The frame id (`id` attribute), if present.
    pub fn frame_id(&self) -> Option<&str> {
        self.attribute(FRAME_ID_ATTRIBUTE)
    }

    /// The opening tag's span in the verified text (for a footer: the footer line's tag).
    pub fn header(&self) -> Span {
        self.header
    }

    /// The body's span in the verified text (for a footer: the message it signs).
    pub fn body(&self) -> Span {
        self.body
    }

    /// The closing tag's span in the verified text.
    pub fn close(&self) -> Span {
        self.close
    }
}

/// The outcome of one finding.
#[derive(Debug, Clone)]
pub enum FrameOutcome<'t> {
    /// The frame verified.
    Verified(VerifiedFrame<'t>),
    /// The frame is untrusted.
    Untrusted {
        /// The reason written in its alarm.
        reason: AlarmReason,
        /// The detailed cause, for the operator.
        cause: FrameCause,
    },
    /// The frame's tag checked and it is fresh, but the replay store could not answer the
    /// claim of its id: the verifier has no verdict on it, so it is not trusted, and the
    /// message it is in gets no verdict either (verification returns [`UnansweredClaim`]).
    /// In the alarm text it counts as `replayed_frame`.
    Unanswered {
        /// The id.
        id: String,
        /// The store's error.
        error: ClaimError,
    },
}

/// One finding of the scan with its outcome, borrowing from the verified text `'t`.
#[derive(Debug, Clone)]
pub struct FrameReport<'t> {
    /// The tag that starts the finding (opening tag, or a lone closing tag).
    pub tag: Span,
    /// 1 at top level, 2 and more nested, 0 for a stray closing tag.
    pub depth: usize,
    /// The decoded `source` attribute of a strictly accepted frame, if any (borrowed from the
    /// text unless its value held an escape).
    pub source: Option<Cow<'t, str>>,
    /// The decoded `id` attribute of a strictly accepted frame, if any (borrowed from the text
    /// unless its value held an escape); its alarm names it, as it names the source.
    pub frame_id: Option<Cow<'t, str>>,
    /// The decoded `kid` attribute of a strictly accepted frame, if any (for the operator: it
    /// is never written into an alarm).
    pub key_id: Option<Cow<'t, str>>,
    /// Verified, or untrusted with reason and cause.
    pub outcome: FrameOutcome<'t>,
}

impl<'t> FrameReport<'t> {
    /// The alarm reason, or `None` for a verified frame (`replayed_frame` for an unanswered
    /// claim).
    pub fn alarm_reason(&self) -> Option<AlarmReason> {
        match &self.outcome {
            FrameOutcome::Verified(_) => None,
            FrameOutcome::Untrusted { reason, .. } => Some(*reason),
            FrameOutcome::Unanswered { .. } => Some(AlarmReason::ReplayedFrame),
        }
    }

    /// The verified frame, if it verified.
    pub fn verified(&self) -> Option<&VerifiedFrame<'t>> {
        match &self.outcome {
            FrameOutcome::Verified(frame) => Some(frame),
            FrameOutcome::Untrusted { .. } | FrameOutcome::Unanswered { .. } => None,
        }
    }
}

/// The result of verifying one message: every finding's outcome (operators), the ids to record,
/// and the alarm text to append after the message (the model). The message itself is never
/// changed; the report borrows from it (`'t`), so it holds no copy of attributes or ids.
#[derive(Debug, Clone)]
pub struct InboundReport<'t> {
    /// In place while there is one (a message with one frame, the usual case).
    pub(crate) frames: SmallVec<[FrameReport<'t>; 1]>,
    pub(crate) scan_error: Option<ScanError>,
    pub(crate) verification_off: bool,
    pub(crate) tainted: bool,
    pub(crate) stats: ScanStats,
    pub(crate) signature_checks: usize,
    pub(crate) alarms_omitted: usize,
    pub(crate) alarm_text: String,
}

impl<'t> InboundReport<'t> {
    /// A report with no frame yet, room for `capacity`, and the scan's counters; the verifier
    /// fills it in and completes it.
    #[inline]
    pub(crate) fn open(stats: ScanStats, capacity: usize) -> InboundReport<'t> {
        InboundReport {
            frames: SmallVec::with_capacity(capacity),
            scan_error: None,
            verification_off: false,
            tainted: false,
            stats,
            signature_checks: 0,
            alarms_omitted: 0,
            alarm_text: String::new(),
        }
    }

    /// Every finding in document order with its outcome (and, in the footer lane, a
    /// [`FrameCause::NoFooter`] entry when the footer is missing).
    pub fn frames(&self) -> &[FrameReport<'t>] {
        self.frames.as_slice()
    }

    /// The verified frames, in document order.
    pub fn verified(&self) -> impl Iterator<Item = &VerifiedFrame<'t>> {
        self.frames().iter().filter_map(FrameReport::verified)
    }

    /// The untrusted findings with their reasons, in document order.
    pub fn alarms(&self) -> impl Iterator<Item = (&FrameReport<'t>, AlarmReason)> {
        self.frames()
            .iter()
            .filter_map(|frame| frame.alarm_reason().map(|reason| (frame, reason)))
    }

    /// The scan limit that stopped the scan, if one did (the message is then tainted).
    pub fn scan_error(&self) -> Option<ScanError> {
        self.scan_error
    }

    /// Whether verification was off.
    pub fn verification_off(&self) -> bool {
        self.verification_off
    }

    /// Whether anything alarmed: then the whole message is untrusted, verified frames included
    /// as far as the model is concerned.
    pub fn is_tainted(&self) -> bool {
        self.tainted
    }

    /// The ids of the frames that verified, in document order: each was claimed fresh in the
    /// replay store by this verification (already recorded there; nothing is left for the
    /// embedder to record). Distinct; none when verification is off.
    pub fn new_ids(&self) -> impl Iterator<Item = &str> {
        let frames: &[FrameReport<'_>] = self.frames();
        frames
            .iter()
            .filter_map(FrameReport::verified)
            .filter_map(VerifiedFrame::frame_id)
    }

    /// The scanner's work counters.
    pub fn stats(&self) -> ScanStats {
        self.stats
    }

    /// Signature checks performed (at most one per finding).
    pub fn signature_checks(&self) -> usize {
        self.signature_checks
    }

    /// Per-frame alarms left out of the alarm text by
    /// [`VerifyLimits::max_frame_alarms`](crate::VerifyLimits::max_frame_alarms).
    pub fn alarms_omitted(&self) -> usize {
        self.alarms_omitted
    }

    /// The text to append after the message: empty when nothing alarmed; otherwise an LF if the
    /// message does not end with one, then the alarms separated by LF. ASCII only.
    pub fn alarm_text(&self) -> &str {
        &self.alarm_text
    }
}

impl<'t> InboundReport<'t> {
    /// The verifier's verdict on a completed report: the report, or [`UnansweredClaim`] when
    /// the replay store could not answer the claim of one of its frames (the first such frame
    /// is named).
    pub(crate) fn into_verdict(self) -> Result<InboundReport<'t>, UnansweredClaim<'t>> {
        let first = self
            .frames
            .as_slice()
            .iter()
            .find_map(|frame| match &frame.outcome {
                FrameOutcome::Unanswered { id, error } => Some((id.clone(), error.clone())),
                _ => None,
            });
        match first {
            None => Ok(self),
            Some((frame_id, error)) => Err(UnansweredClaim {
                frame_id,
                error,
                report: Box::new(self),
            }),
        }
    }
}

/// A message the verifier gives no verdict on: the replay store could not answer the claim of a
/// frame whose tag checked (spec/frame-v1.md section 9.1, "Fail closed"). Whether that frame is
/// a replay is unknown, so neither the frame nor the message is trusted, and there is no alarm
/// text to append as if the message had been verified: the embedder refuses the message as a
/// whole (a prompt hook answers its own failure alarm). The full report stays available to
/// the operator ([`UnansweredClaim::report`]), with the frame's outcome
/// [`FrameOutcome::Unanswered`].
///
/// Detail here (the store's error) is for the operator, never for the model.
#[derive(Debug, Clone)]
pub struct UnansweredClaim<'t> {
    frame_id: String,
    error: ClaimError,
    report: Box<InboundReport<'t>>,
}

impl<'t> UnansweredClaim<'t> {
    /// The id of the first frame whose claim the store could not answer.
    pub fn frame_id(&self) -> &str {
        &self.frame_id
    }

    /// The store's error for that claim.
    pub fn error(&self) -> &ClaimError {
        &self.error
    }

    /// Every finding with its outcome, for the operator (its alarm text is no verdict).
    pub fn report(&self) -> &InboundReport<'t> {
        &self.report
    }

    /// The report, given up.
    pub fn into_report(self) -> InboundReport<'t> {
        *self.report
    }
}

impl fmt::Display for UnansweredClaim<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the replay store did not answer the claim of frame id `{}`: {}",
            self.frame_id.escape_debug(),
            self.error
        )
    }
}

impl std::error::Error for UnansweredClaim<'_> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}
