//! Frame verification over submitted text: an outcome for every finding of the scan.

use std::borrow::Cow;
use std::cmp::Ordering;

use seal_parse::frame::{
    scan_findings, Attribute, Findings, Frame, FrameFinding, Suspect, TagKind,
};
use seal_record::{SigningInputParts, SIG_ATTRIBUTE};
use smallvec::SmallVec;

use super::alarm::{alarm_text, off_notice};
use super::config::VerifyConfig;
use super::report::{
    AlarmReason, FrameCause, FrameOutcome, FrameReport, InboundReport, UnansweredClaim,
    VerifiedFrame,
};
use super::subkeys::{ConversationKeys, SubkeyCache};
use crate::frame_id::check_frame_id;
use crate::freshness::{parse_issued_at, Undated, ISSUED_AT_ATTRIBUTE};
use crate::key::Algorithm;
use crate::replay::{Claim, ClaimOutcome, ClaimScope, ReplayStore};
use crate::sign::{BodyHashing, FRAME_ID_ATTRIBUTE, KEY_ID_ATTRIBUTE, SOURCE_ATTRIBUTE};
use crate::store::{
    IntendedUse, KeySource, Purpose, ResolveError, StoreOperation, Verified, VerifyFailure,
};
use crate::time::UnixTime;

/// Verifies the frames of submitted messages for one conversation at one time.
///
/// The verifier reads the message and never changes it: [`FrameVerifier::verify`] returns a
/// [`InboundReport`] with the outcome of every finding and the alarm text to append.
///
/// Every key is resolved in the store for every frame (once per frame); the conversation
/// subkey of an HMAC master key is derived the first time the verifier checks a tag of that key
/// and kept for the verifier's life (up to [`SUBKEY_CACHE_CAPACITY`](crate::SUBKEY_CACHE_CAPACITY)
/// keys), so a verifier reused for many messages of its conversation derives each subkey once.
/// Reuse the verifier, or build each one with [`FrameVerifier::with_keys`] over one
/// [`ConversationKeys`] per conversation: a fresh verifier of its own pays the derivation again.
pub struct FrameVerifier<'a, S: KeySource + ?Sized> {
    pub(crate) config: &'a VerifyConfig,
    pub(crate) store: &'a S,
    pub(crate) conversation_id: &'a str,
    pub(crate) now: UnixTime,
    pub(crate) replay: &'a dyn ReplayStore,
    subkeys: Subkeys<'a>,
}

/// The subkeys a verifier checks HMAC tags with: its own, or a conversation's held across
/// verifiers.
enum Subkeys<'a> {
    Own(SubkeyCache),
    Kept(&'a SubkeyCache),
}

impl<S: KeySource + ?Sized> std::fmt::Debug for FrameVerifier<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameVerifier")
            .field("config", self.config)
            .field("conversation_id", &self.conversation_id)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<'a, S: KeySource + ?Sized> FrameVerifier<'a, S> {
    /// A verifier with `config`, resolving keys in `store` at `now`, checking HMAC tags with the
    /// subkeys of `conversation_id` (the conversation the embedder is in, never one named by a
    /// message), and claiming the id of every frame whose tag checks in `replay` (a frame
    /// verifies only if its claim is fresh).
    pub fn new(
        config: &'a VerifyConfig,
        store: &'a S,
        conversation_id: &'a str,
        now: UnixTime,
        replay: &'a dyn ReplayStore,
    ) -> FrameVerifier<'a, S> {
        FrameVerifier {
            config,
            store,
            conversation_id,
            now,
            replay,
            subkeys: Subkeys::Own(SubkeyCache::default()),
        }
    }

    /// A verifier as [`FrameVerifier::new`] for the conversation of `keys`, checking HMAC tags
    /// with the subkeys `keys` holds (deriving and adding those it lacks), so verifiers built in
    /// turn for the messages of one conversation derive each subkey once.
    pub fn with_keys(
        config: &'a VerifyConfig,
        store: &'a S,
        keys: &'a ConversationKeys,
        now: UnixTime,
        replay: &'a dyn ReplayStore,
    ) -> FrameVerifier<'a, S> {
        FrameVerifier {
            config,
            store,
            conversation_id: keys.conversation_id(),
            now,
            replay,
            subkeys: Subkeys::Kept(keys.cache()),
        }
    }

    /// Scans `text` for frames of the configured element and gives each finding an outcome:
    ///
    /// - a strictly accepted frame at top level, with `sig` last, a `kid` that resolves for
    ///   verifying this element and these attributes now, a tag that checks over its signing
    ///   input, an issue time (`iat`) inside the freshness window (or none, inside the
    ///   configured migration window for undated frames), an `id` (unless allowed missing)
    ///   whose claim in the replay store is fresh and that no frame verified earlier in the
    ///   message carries: verified;
    /// - otherwise untrusted, with the first reason that applies: `nested_frame` (depth 2 and
    ///   more, whatever the tag), `malformed_frame` (not strictly accepted, stray close, no id),
    ///   `unsigned_frame`, `unknown_key`, `key_not_valid`, `out_of_scope`, `bad_signature`,
    ///   `malformed_frame` (an `iat` that is not an issue time), `stale_frame`,
    ///   `replayed_frame`;
    /// - unanswered ([`FrameOutcome::Unanswered`]) when its tag checked and it is fresh but the
    ///   replay store could not answer the claim of its id.
    ///
    /// Any untrusted finding, and a scan stopped by a limit, taints the message: the alarm text
    /// then holds an alarm per untrusted finding (up to the limit) and one message-level alarm.
    /// With verification off the alarm text is one `verification_off` notice.
    ///
    /// The report borrows element names, attribute values and ids from `text` instead of
    /// copying them.
    ///
    /// # Errors
    /// [`UnansweredClaim`] when a claim went unanswered: the message gets no verdict (fail
    /// closed, spec/frame-v1.md section 9.1), and the report goes to the operator inside it.
    pub fn verify<'t>(&self, text: &'t str) -> Result<InboundReport<'t>, UnansweredClaim<'t>> {
        let element = self.config.scan().element();
        let mut checks = 0;
        let mut admitted = AdmittedIds::default();
        // Borrowed where the scan returned them: each move of the findings is a copy.
        let (scanned, stats) = &mut scan_findings(text, self.config.scan());
        let mut report = InboundReport::open(*stats, scanned.as_ref().map_or(0, Findings::len));
        match scanned {
            Ok(findings) => {
                for finding in findings {
                    self.record(&mut report, finding, |finding, earlier| match finding {
                        FrameFinding::Suspect(suspect) => suspect_outcome(&suspect),
                        FrameFinding::Frame(frame) if frame.is_nested() => untrusted(
                            AlarmReason::NestedFrame,
                            FrameCause::Nested { depth: frame.depth },
                        ),
                        FrameFinding::Frame(frame) => self.admit(
                            self.check_frame(text, frame, &mut checks),
                            earlier,
                            &mut admitted,
                        ),
                    });
                }
            }
            Err(error) => report.scan_error = Some(*error),
        }
        report.signature_checks = checks;
        self.finish(text, element, &mut report);
        report.into_verdict()
    }

    /// Appends `finding` to `report` with the outcome `decide` gives it from the findings
    /// recorded before it (with verification off: `verification_off`).
    pub(crate) fn record<'t>(
        &self,
        report: &mut InboundReport<'t>,
        finding: FrameFinding<'t>,
        decide: impl FnOnce(FrameFinding<'t>, &[FrameReport<'t>]) -> FrameOutcome<'t>,
    ) {
        let tag = finding.tag();
        let depth = finding.depth();
        let source = attribute_of(&finding, SOURCE_ATTRIBUTE);
        let frame_id = attribute_of(&finding, FRAME_ID_ATTRIBUTE);
        let key_id = attribute_of(&finding, KEY_ID_ATTRIBUTE);
        let outcome = if self.config.is_enabled() {
            decide(finding, report.frames.as_slice())
        } else {
            untrusted(AlarmReason::VerificationOff, FrameCause::VerificationOff)
        };
        report.frames.push(FrameReport {
            tag,
            depth,
            source,
            frame_id,
            key_id,
            outcome,
        });
    }

    /// Completes a report whose frames (or scan error) are in: taint and alarm text.
    pub(crate) fn finish(&self, text: &str, element: &str, report: &mut InboundReport<'_>) {
        let off = !self.config.is_enabled();
        report.tainted = off
            || report.scan_error.is_some()
            || report
                .frames
                .as_slice()
                .iter()
                .any(|frame| frame.alarm_reason().is_some());
        report.verification_off = off;
        // An untainted message has no alarm text (the report opened with an empty one).
        if off {
            report.alarm_text = off_notice(text, element);
        } else if report.tainted {
            (report.alarm_text, report.alarms_omitted) = alarm_text(
                text,
                element,
                report.frames.as_slice(),
                report.scan_error.is_some(),
                self.config.limits().max_frame_alarms,
            );
        }
    }

    /// The freshness check, after the signature: the last second at which the frame is fresh
    /// (its claim lives until then), or why it is not.
    fn fresh_until(
        &self,
        verified: &VerifiedFrame<'_>,
    ) -> Result<UnixTime, (AlarmReason, FrameCause)> {
        match verified.attribute(ISSUED_AT_ATTRIBUTE) {
            Some(text) => {
                let issued_at = parse_issued_at(text).map_err(|problem| {
                    (
                        AlarmReason::MalformedFrame,
                        FrameCause::InvalidIssuedAt(problem),
                    )
                })?;
                self.config
                    .freshness()
                    .check(issued_at, self.now)
                    .map_err(|staleness| (AlarmReason::StaleFrame, FrameCause::Stale(staleness)))
            }
            None => match self.config.undated() {
                Undated::AcceptedUntil(until) if self.now <= until => Ok(until),
                Undated::AcceptedUntil(until) => {
                    Err((AlarmReason::StaleFrame, FrameCause::UndatedAfter { until }))
                }
                Undated::Refused => Err((AlarmReason::StaleFrame, FrameCause::Undated)),
            },
        }
    }

    /// The outcome of a checked frame (`checked`: the signature check's result): untrusted when
    /// the check failed; else the freshness check, then the replay check: the frame id is claimed
    /// in the replay store (in the conversation's scope for an HMAC key, the key's for an Ed25519
    /// key); a replayed claim, a store that cannot answer, or an id verified earlier in this
    /// message (among `earlier`, in another scope) alarms; a fresh claim is admitted.
    pub(crate) fn admit<'t>(
        &self,
        checked: Result<VerifiedFrame<'t>, (AlarmReason, FrameCause)>,
        earlier: &[FrameReport<'t>],
        admitted: &mut AdmittedIds,
    ) -> FrameOutcome<'t> {
        let verified = match checked {
            Ok(verified) => verified,
            Err((reason, cause)) => return untrusted(reason, cause),
        };
        let expires_at = match self.fresh_until(&verified) {
            Ok(expires_at) => expires_at,
            Err((reason, cause)) => return untrusted(reason, cause),
        };
        if let Some(id) = verified.frame_id() {
            let scope = match verified.verified().algorithm() {
                Algorithm::HmacSha256 => ClaimScope::Conversation(self.conversation_id),
                Algorithm::Ed25519 => ClaimScope::Key(verified.key_id()),
            };
            let claim = Claim {
                scope,
                id,
                now: self.now,
                expires_at,
            };
            let replayed = || {
                untrusted(
                    AlarmReason::ReplayedFrame,
                    FrameCause::Replayed { id: id.to_owned() },
                )
            };
            match self.replay.claim(&claim) {
                Ok(ClaimOutcome::Fresh) => {}
                Ok(ClaimOutcome::Replayed) => return replayed(),
                Err(error) => {
                    return FrameOutcome::Unanswered {
                        id: id.to_owned(),
                        error,
                    }
                }
            }
            if !admitted.insert(earlier, id) {
                return replayed();
            }
        }
        FrameOutcome::Verified(verified)
    }

    /// Checks a frame and, when it verifies, moves its element and attributes (without `sig`)
    /// into the witness instead of copying them.
    fn check_frame<'t>(
        &self,
        text: &'t str,
        frame: Frame<'t>,
        checks: &mut usize,
    ) -> Result<VerifiedFrame<'t>, (AlarmReason, FrameCause)> {
        let verified = self.check_frame_tag(text, &frame, checks)?;
        let Frame {
            element,
            mut attributes,
            header,
            body,
            close,
            ..
        } = frame;
        // The tag checked, so the last attribute is `sig` (split_sig found it there).
        attributes.pop();
        Ok(VerifiedFrame {
            verified,
            element,
            attributes,
            header,
            body,
            close,
        })
    }

    fn check_frame_tag(
        &self,
        text: &str,
        frame: &Frame<'_>,
        checks: &mut usize,
    ) -> Result<Verified, (AlarmReason, FrameCause)> {
        // Errors are built only when returned (an error built and dropped costs a call).
        let Some((attributes, sig)) = split_sig(&frame.attributes) else {
            return Err((AlarmReason::UnsignedFrame, FrameCause::NoSignature));
        };
        let Some(body) = frame.body.of(text) else {
            let cause = FrameCause::Suspect {
                reasons: Vec::new(),
            };
            return Err((AlarmReason::MalformedFrame, cause));
        };
        let hashed: Cow<'_, str> = match (self.config.hashing(), self.config.scan().rewrite()) {
            (BodyHashing::BeforeRewrite, Some(rewrite)) => rewrite.undo(body),
            _ => Cow::Borrowed(body),
        };
        let mut pairs = SmallVec::new();
        pairs_into(attributes, &mut pairs);
        self.check_signed(
            frame.element,
            &pairs,
            sig,
            checks,
            Signed::Frame {
                body: hashed.as_bytes(),
            },
        )
    }

    /// The check shared by frames and footers: key id present, frame id present when required,
    /// key resolved for verifying this element and these attributes now, signing input built
    /// with the key's algorithm and tag length, tag checked with the conversation subkey.
    pub(crate) fn check_signed(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        sig: &str,
        checks: &mut usize,
        signed: Signed<'_>,
    ) -> Result<Verified, (AlarmReason, FrameCause)> {
        let Some(key_id) = attribute(attributes, KEY_ID_ATTRIBUTE) else {
            return Err((AlarmReason::UnknownKey, FrameCause::NoKeyId));
        };
        match attribute(attributes, FRAME_ID_ATTRIBUTE) {
            None if self.config.requires_frame_id() => {
                return Err((AlarmReason::MalformedFrame, FrameCause::NoFrameId));
            }
            Some(id) => check_frame_id(id).map_err(|problem| {
                (
                    AlarmReason::MalformedFrame,
                    FrameCause::InvalidFrameId(problem),
                )
            })?,
            None => {}
        }
        let purpose = Purpose::Frame {
            element,
            attributes,
        };
        let intended = IntendedUse {
            operation: StoreOperation::Verify,
            purpose,
        };
        let resolved = self
            .store
            .resolve(key_id, &intended, self.now)
            .map_err(|error| failure(VerifyFailure::Key(error)))?;
        let key = resolved.record.key();
        let (algorithm, tag_len) = (key.algorithm().name(), key.tag_text_len());
        let parts = match signed {
            Signed::Frame { body } => {
                SigningInputParts::frame(key_id, algorithm, tag_len, element, attributes, body)
            }
            Signed::Footer { message } => {
                SigningInputParts::footer(key_id, algorithm, tag_len, attributes, message)
            }
        }
        .map_err(|error| (AlarmReason::MalformedFrame, FrameCause::SigningInput(error)))?;
        *checks = checks.saturating_add(1);
        let subkeys = match &self.subkeys {
            Subkeys::Own(own) => own,
            Subkeys::Kept(kept) => kept,
        };
        subkeys
            .verify_parts(key, self.conversation_id, &parts, sig)
            .map_err(failure)?;
        Ok(Verified::new(&resolved))
    }
}

/// What a tag covers besides the key, the element and the attributes.
pub(crate) enum Signed<'b> {
    /// A frame: its body, exactly as hashed.
    Frame {
        /// The body bytes.
        body: &'b [u8],
    },
    /// A footer: the message before it, exactly as hashed.
    Footer {
        /// The message bytes.
        message: &'b [u8],
    },
}

/// The frame ids admitted so far in one message, held as the positions of their frames in the
/// report being built (so no id is copied), sorted by id: a message with many frames is checked
/// in `O(n log n)` comparisons, and one with a few frames needs no allocation.
#[derive(Default)]
pub(crate) struct AdmittedIds(SmallVec<[usize; 8]>);

impl AdmittedIds {
    /// Admits `id`, the id of the frame about to be pushed after `earlier`: `false` when a
    /// frame admitted earlier has the same id.
    ///
    /// Every position held is that of a verified frame with an id in `earlier` (its outcome was
    /// pushed right after it was admitted). Should a position hold none, the id is refused (its
    /// frame alarms as replayed) rather than compared against a stand-in.
    pub(crate) fn insert(&mut self, earlier: &[FrameReport<'_>], id: &str) -> bool {
        let mut unresolved = false;
        let found = self.0.binary_search_by(|at| {
            let admitted = earlier
                .get(*at)
                .and_then(FrameReport::verified)
                .and_then(VerifiedFrame::frame_id);
            admitted.map_or_else(
                || {
                    unresolved = true;
                    Ordering::Equal
                },
                |admitted| admitted.cmp(id),
            )
        });
        debug_assert!(
            !unresolved,
            "an admitted position holds no verified frame with an id"
        );
        match found {
            Ok(_) => false,
            Err(slot) => {
                self.0.insert(slot, earlier.len());
                true
            }
        }
    }
}

/// The attributes without a trailing `sig`, and the `sig` value; `None` when unsigned.
pub(crate) fn split_sig<'a, 't>(
    all: &'a [Attribute<'t>],
) -> Option<(&'a [Attribute<'t>], &'a str)> {
    match all.split_last() {
        Some((last, rest)) if last.name == SIG_ATTRIBUTE => Some((rest, last.value())),
        _ => None,
    }
}

/// Fills `pairs` with `attributes` as (name, decoded value) pairs: in place for a usual frame,
/// and where the caller holds it (returned, the list would be copied).
pub(crate) fn pairs_into<'a>(
    attributes: &'a [Attribute<'_>],
    pairs: &mut SmallVec<[(&'a str, &'a str); 8]>,
) {
    pairs.extend(
        attributes
            .iter()
            .map(|attribute| (attribute.name, attribute.value())),
    );
}

#[inline]
pub(crate) fn attribute<'t>(attributes: &[(&'t str, &'t str)], name: &str) -> Option<&'t str> {
    attributes
        .iter()
        .find(|(present, _)| *present == name)
        .map(|(_, value)| *value)
}

pub(crate) fn untrusted<'t>(reason: AlarmReason, cause: FrameCause) -> FrameOutcome<'t> {
    FrameOutcome::Untrusted { reason, cause }
}

pub(crate) fn suspect_outcome<'t>(suspect: &Suspect) -> FrameOutcome<'t> {
    let reason = if suspect.depth > 1 && suspect.kind == TagKind::Open {
        AlarmReason::NestedFrame
    } else {
        AlarmReason::MalformedFrame
    };
    untrusted(
        reason,
        FrameCause::Suspect {
            reasons: suspect.reasons.clone(),
        },
    )
}

/// The decoded value of attribute `name` of a strictly accepted frame (borrowed from the text
/// unless the value held an escape).
#[inline]
pub(crate) fn attribute_of<'t>(finding: &FrameFinding<'t>, name: &str) -> Option<Cow<'t, str>> {
    match finding {
        FrameFinding::Frame(frame) => frame
            .attributes
            .iter()
            .find(|attribute| attribute.name == name)
            .map(|attribute| attribute.value.clone()),
        FrameFinding::Suspect(_) => None,
    }
}

/// The alarm reason of a failed resolution or check.
fn failure(failure: VerifyFailure) -> (AlarmReason, FrameCause) {
    let reason = match &failure {
        VerifyFailure::Key(
            ResolveError::UnknownKey { .. } | ResolveError::SecretNotSupplied { .. },
        ) => AlarmReason::UnknownKey,
        VerifyFailure::Key(ResolveError::OutOfScope) => AlarmReason::OutOfScope,
        VerifyFailure::Key(_) => AlarmReason::KeyNotValid,
        _ => AlarmReason::BadSignature,
    };
    (reason, FrameCause::Verify(failure))
}
