//! Verification alone: a [`Verifier`] holds the trust store and the frame settings, and no
//! policy, signing key or answerer. A [`Seal`](crate::Seal) holds one and verifies through it,
//! so both verify by the same code.

use std::fmt;

use seal_parse::frame::{HarnessRewrite, ScanConfig, ScanLimits};
use seal_verify::{ConversationKeys, FrameVerifier, Freshness, VerifyConfig, VerifyLimits};

use crate::builder::BuildError;
use crate::inbound::{Inbound, UnansweredClaim};
use crate::trust::TrustStore;
use crate::{ReplayStore, UnixTime};

/// A frame verifier: the trust store, the frame element, the harness rewrite, the freshness
/// window, the migration window for undated frames and the limits, checked at build time. It
/// verifies inbound messages exactly as a [`Seal`](crate::Seal) built with the same settings
/// does (a seal verifies through its own `Verifier`), and holds nothing else: no policy is
/// assembled, no rule is read, no key can sign. Use it where text is only verified (a prompt
/// hook, a scanner); build a [`Seal`](crate::Seal) where tool calls are decided too.
///
/// `Verifier` is `Send + Sync`; every method takes `&self`. Nothing here reads a clock, a
/// file or the environment.
///
/// ```
/// use seal::{FrameKey, FrameSigner, MemoryReplayStore, SigningKey, TrustStore, UnixTime, Verifier};
///
/// let key = FrameKey::from_secret(&[7; 32])?;
/// let mut store = TrustStore::new(UnixTime(2_000_000_000));
/// store.add_frame_key("ingress", &key, "channel", UnixTime(0), UnixTime(2_000_000_000))?;
/// let verifier = Verifier::builder().trust_store(store).build()?;
///
/// let now = UnixTime(1_800_000_000);
/// let frame = FrameSigner::new("ingress", key.as_signing_key(), "conv-1", now)?
///     .sign("channel", &[("source", "telegram"), ("id", "m1")], "hi")?;
/// let replay = MemoryReplayStore::new();
/// let inbound = match verifier.verify_inbound(&frame, "conv-1", now, &replay) {
///     Ok(inbound) => inbound,
///     // The replay store did not answer: no verdict, refuse the message as a whole.
///     Err(unanswered) => return Err(unanswered.to_string().into()),
/// };
/// assert_eq!(inbound.alarms(), "");
/// let again = verifier.verify_inbound(&frame, "conv-1", now, &replay).unwrap();
/// assert!(again.alarms().contains("replayed_frame"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Verifier {
    pub(crate) store: TrustStore,
    pub(crate) config: VerifyConfig,
    pub(crate) rewrite: Option<HarnessRewrite>,
}

/// Assembles a [`Verifier`], and the verification half of a
/// [`SealBuilder`](crate::SealBuilder), which takes the same settings under the same names.
/// Defaults:
///
/// - an empty trust store that has already expired (every signed frame alarms);
/// - frames of element `channel`, the harness rewrite of `</channel>` recognized, frame ids
///   required, verification on;
/// - frames dated by a signed `iat` fresh for 900 seconds with 60 seconds of clock skew
///   allowed, undated frames alarmed `stale_frame`;
/// - the default [`ScanLimits`] and [`VerifyLimits`].
///
/// ```
/// use seal::{BuildError, Verifier};
///
/// let error = Verifier::builder().frame_element("Channel").build();
/// assert!(matches!(error, Err(BuildError::Element { .. })));
/// ```
#[must_use]
pub struct VerifierBuilder {
    store: Option<TrustStore>,
    element: String,
    rewrite: bool,
    verification: bool,
    freshness: Freshness,
    undated_until: Option<UnixTime>,
    scan_limits: ScanLimits,
    verify_limits: VerifyLimits,
}

impl Default for VerifierBuilder {
    fn default() -> Self {
        VerifierBuilder::new()
    }
}

impl VerifierBuilder {
    /// A builder with the defaults above.
    pub fn new() -> VerifierBuilder {
        VerifierBuilder {
            store: None,
            element: "channel".to_owned(),
            rewrite: true,
            verification: true,
            freshness: Freshness::default(),
            undated_until: None,
            scan_limits: ScanLimits::default(),
            verify_limits: VerifyLimits::default(),
        }
    }

    /// The keys frames are verified with.
    pub fn trust_store(mut self, store: TrustStore) -> VerifierBuilder {
        self.store = Some(store);
        self
    }

    /// The element of the frames verified (default `channel`).
    pub fn frame_element(mut self, element: &str) -> VerifierBuilder {
        element.clone_into(&mut self.element);
        self
    }

    /// Bodies are not rewritten by the harness (by default the rewrite of `</element>` into
    /// `<\/element>` is recognized by the scanner).
    pub fn without_harness_rewrite(mut self) -> VerifierBuilder {
        self.rewrite = false;
        self
    }

    /// Turns frame verification off, visibly: every message gets one `verification_off`
    /// notice, and [`Verifier::verification_on`] reports it.
    pub fn verification_off(mut self) -> VerifierBuilder {
        self.verification = false;
        self
    }

    /// The freshness window of inbound frames: a frame whose signed issue time (`iat`) is more
    /// than `max_age_seconds` in the past or more than `max_skew_seconds` in the future alarms
    /// `stale_frame` (defaults 900 and 60; spec/frame-v1.md section 9.2). The window also
    /// bounds how long a replay store keeps each id.
    pub fn frame_freshness(
        mut self,
        max_age_seconds: u64,
        max_skew_seconds: u64,
    ) -> VerifierBuilder {
        self.freshness = Freshness::new(max_age_seconds, max_skew_seconds);
        self
    }

    /// Accepts inbound frames without an `iat` (signed before issue times existed) until
    /// `until`, inclusive: the migration window of spec/frame-v1.md section 9.2. Without it, or
    /// after it, an undated frame alarms `stale_frame`.
    pub fn accept_undated_frames_until(mut self, until: UnixTime) -> VerifierBuilder {
        self.undated_until = Some(until);
        self
    }

    /// The scan limits of inbound frames (most findings, attributes per tag, tag bytes, depth;
    /// defaults of [`ScanLimits`]) and the verifier's output limits ([`VerifyLimits`]). Past a
    /// limit nothing is dropped silently: the scan stops with an alarm, or the alarm text counts
    /// what it left out.
    pub fn frame_limits(mut self, scan: ScanLimits, verify: VerifyLimits) -> VerifierBuilder {
        self.scan_limits = scan;
        self.verify_limits = verify;
        self
    }

    /// Checks the settings and builds the verifier.
    ///
    /// # Errors
    /// [`BuildError::Element`] for a frame element outside the frame grammar
    /// (`[a-z][a-z0-9-]{0,63}`).
    pub fn build(self) -> Result<Verifier, BuildError> {
        let element_error = || BuildError::Element {
            element: self.element.clone(),
        };
        let mut scan = ScanConfig::new(&self.element)
            .map_err(|_| element_error())?
            .with_limits(self.scan_limits);
        let rewrite = if self.rewrite {
            scan = scan.with_rewrite();
            Some(HarnessRewrite::closing_tag(&self.element).map_err(|_| element_error())?)
        } else {
            None
        };
        let mut config = VerifyConfig::new(scan)
            .with_freshness(self.freshness)
            .with_limits(self.verify_limits);
        if let Some(until) = self.undated_until {
            config = config.accept_undated_until(until);
        }
        if !self.verification {
            config = config.verification_off();
        }
        Ok(Verifier {
            store: self.store.unwrap_or_else(|| TrustStore::new(UnixTime(0))),
            config,
            rewrite,
        })
    }
}

impl fmt::Debug for VerifierBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifierBuilder")
            .field("element", &self.element)
            .field("rewrite", &self.rewrite)
            .field("verification", &self.verification)
            .field("freshness", &self.freshness)
            .field("undated_until", &self.undated_until)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// A builder with the defaults listed on [`VerifierBuilder`].
    pub fn builder() -> VerifierBuilder {
        VerifierBuilder::new()
    }

    /// Verifies every frame in a submitted message of `conversation` at `now`, claiming the id
    /// of every frame whose tag checks in `replay` (check and record in one step: a frame
    /// verifies only if its claim is fresh, so two verifiers racing on one frame never both
    /// verify it). Returns the alarm text to append after the message (empty when nothing
    /// alarmed) and the operator report; the message is never changed, dropped or blocked.
    ///
    /// Fail-closed: a frame that is unsigned, forged, replayed, nested, malformed, signed by
    /// an unknown, expired, revoked or out-of-scope key, or signed for another conversation
    /// alarms, and any alarm taints the whole message.
    ///
    /// Each call derives the conversation's subkeys anew; for the messages of a conversation
    /// in turn, keep one [`Verifier::inbound`] verifier instead (same checks, same result, each
    /// subkey derived once).
    ///
    /// # Errors
    /// [`UnansweredClaim`] when `replay` could not answer the claim of a frame whose tag
    /// checked: the message gets no verdict and no alarm text to append as if verified; refuse
    /// it as a whole (spec/frame-v1.md section 9.1).
    pub fn verify_inbound<'t>(
        &self,
        text: &'t str,
        conversation: &str,
        now: UnixTime,
        replay: &dyn ReplayStore,
    ) -> Result<Inbound<'t>, UnansweredClaim<'t>> {
        self.inbound(conversation).verify(text, now, replay)
    }

    /// Verifies a message of the footer lane: `text` must end with one signed `seal-footer`
    /// line over everything before it (spec/frame-v1.md section 11), checked and claimed as
    /// [`Verifier::verify_inbound`] checks and claims a frame. A text without a footer alarms
    /// `unsigned_frame`; frames of other elements inside the message are not looked at.
    ///
    /// # Errors
    /// [`UnansweredClaim`], as for [`Verifier::verify_inbound`].
    pub fn verify_footer<'t>(
        &self,
        text: &'t str,
        conversation: &str,
        now: UnixTime,
        replay: &dyn ReplayStore,
    ) -> Result<Inbound<'t>, UnansweredClaim<'t>> {
        self.inbound(conversation).verify_footer(text, now, replay)
    }

    /// A verifier of the inbound messages of `conversation`, to keep while the conversation
    /// lasts: [`InboundVerifier::verify`] does what [`Verifier::verify_inbound`] does, and
    /// derives the conversation's HMAC subkeys (with the MAC states kept after their leading
    /// blocks) once, on first use, instead of for every message.
    pub fn inbound(&self, conversation: &str) -> InboundVerifier<'_> {
        InboundVerifier {
            verifier: self,
            keys: ConversationKeys::new(conversation),
        }
    }

    /// The trust store.
    pub fn trust_store(&self) -> &TrustStore {
        &self.store
    }

    /// Whether frame verification is on. When off, every message gets one `verification_off`
    /// notice.
    pub fn verification_on(&self) -> bool {
        self.config.is_enabled()
    }
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier")
            .field("store", &self.store)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The verifier of one conversation's inbound messages ([`Verifier::inbound`],
/// [`Seal::inbound`](crate::Seal::inbound)). It holds the conversation's subkeys; use it for
/// one conversation's messages in turn (it is not shared between threads).
pub struct InboundVerifier<'s> {
    verifier: &'s Verifier,
    keys: ConversationKeys,
}

impl InboundVerifier<'_> {
    /// The conversation this verifier is for.
    pub fn conversation(&self) -> &str {
        self.keys.conversation_id()
    }

    /// Verifies every frame in a submitted message of this conversation at `now`, claiming ids
    /// in `replay`: [`Verifier::verify_inbound`] for this conversation.
    ///
    /// # Errors
    /// [`UnansweredClaim`], as for [`Verifier::verify_inbound`].
    pub fn verify<'t>(
        &self,
        text: &'t str,
        now: UnixTime,
        replay: &dyn ReplayStore,
    ) -> Result<Inbound<'t>, UnansweredClaim<'t>> {
        self.core(now, replay)
            .verify(text)
            .map(Inbound::from_report)
    }

    /// Verifies a message of the footer lane of this conversation at `now`, claiming its id in
    /// `replay`: [`Verifier::verify_footer`] for this conversation.
    ///
    /// # Errors
    /// [`UnansweredClaim`], as for [`Verifier::verify_inbound`].
    pub fn verify_footer<'t>(
        &self,
        text: &'t str,
        now: UnixTime,
        replay: &dyn ReplayStore,
    ) -> Result<Inbound<'t>, UnansweredClaim<'t>> {
        self.core(now, replay)
            .verify_footer(text)
            .map(Inbound::from_report)
    }

    /// The core verifier of this conversation at `now`, claiming in `replay`.
    fn core<'v>(
        &'v self,
        now: UnixTime,
        replay: &'v dyn ReplayStore,
    ) -> FrameVerifier<'v, seal_verify::store::MemoryTrustStore> {
        FrameVerifier::with_keys(
            &self.verifier.config,
            &self.verifier.store.inner,
            &self.keys,
            now,
            replay,
        )
    }
}

impl fmt::Debug for InboundVerifier<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InboundVerifier")
            .field("conversation", &self.conversation())
            .field("subkeys_held", &self.keys.held())
            .finish_non_exhaustive()
    }
}
