//! Signed envelopes for seal: the key material an embedder loads ([`FrameKey`],
//! [`ApproverKey`]), HMAC-SHA256 and Ed25519 keys bound to their algorithm and tag length,
//! strict base64url tags, per-conversation subkeys, a fail-closed trust store with versioned,
//! threshold-signed documents and their rotation, frame signing and verification over submitted text
//! (with the footer form), manifest verification before spawn with optional signed approval, and
//! the Ed25519 keys that sign and open the decision log's checkpoints ([`LogSigningKey`],
//! [`LogVerifierKey`], [`open_checkpoint`]). The [`webauthn`] module holds the approval
//! server's WebAuthn checks: approval challenges, approver enrolment, assertion verification and
//! the approver registry file.
//!
//! Prefer the `seal` facade; this crate is usable directly but its API may move faster.
//!
//! ```
//! use seal_verify::{HmacKey, HmacSecret, TagLength};
//!
//! let key = HmacKey::new(HmacSecret::from_bytes(&[7; 32])?, TagLength::STANDARD);
//! let sig = key.sign(b"message").to_text();
//! assert_eq!(sig.len(), 22);
//! assert!(key.verify_text(b"message", &sig).is_ok());
//! assert!(key.verify_text(b"massage", &sig).is_err());
//! assert!(key.verify_text(b"message", &sig[..21]).is_err());
//! # Ok::<(), seal_verify::KeyError>(())
//! ```
//!
//! Frames are signed with [`FrameSigner`] and verified over submitted text with
//! [`FrameVerifier`], which returns a [`InboundReport`] (an outcome per frame for the operator) and the
//! alarm text to append, or [`UnansweredClaim`] when the replay store could not answer a claim
//! (no verdict: fail closed); the message itself is never changed (spec/frame-v1.md):
//!
//! ```
//! use seal_parse::frame::ScanConfig;
//! use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
//! use seal_verify::{
//!     FrameSigner, FrameVerifier, HmacKey, HmacSecret, MemoryReplayStore, SigningKey, TagLength,
//!     UnixTime, VerifyConfig, VerifyingKey,
//! };
//!
//! let key = || HmacKey::new(HmacSecret::from_bytes(&[7; 32]).unwrap(), TagLength::STANDARD);
//! let mut store = MemoryTrustStore::new(UnixTime(2_000_000_000));
//! let scopes = Scopes { frames: vec![FrameScope::new("channel", vec![])?], ..Scopes::default() };
//! let window = Validity { not_before: UnixTime(0), not_after: UnixTime(2_000_000_000) };
//! store.insert(KeyRecord::new("k1", VerifyingKey::Hmac(key()), window, KeyStatus::Active, scopes)?)?;
//!
//! let master = key();
//! let signer = FrameSigner::new("k1", SigningKey::Hmac(&master), "conversation-1", UnixTime(1_800_000_000))?;
//! let frame = signer.sign("channel", &[("source", "telegram"), ("id", "m1")], "hi")?;
//!
//! let config = VerifyConfig::new(ScanConfig::new("channel")?.with_rewrite());
//! let replay = MemoryReplayStore::new();
//! let verifier = FrameVerifier::new(&config, &store, "conversation-1", UnixTime(1_800_000_000), &replay);
//! // A store that cannot answer a claim leaves the message without a verdict (`Err`).
//! let report = verifier.verify(&frame).expect("the memory store answers");
//! assert_eq!(report.verified().count(), 1);
//! assert_eq!(report.alarm_text(), "");
//!
//! // The same frame again: its id's claim is not fresh.
//! assert!(verifier.verify(&frame).unwrap().alarm_text().contains("reason=\"replayed_frame\""));
//!
//! let forged = frame.replace("telegram", "slack");
//! let report = verifier.verify(&forged).unwrap();
//! assert!(report.is_tainted());
//! assert!(report.alarm_text().contains("reason=\"bad_signature\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod audit_log;
pub mod base64url;
mod checkpoint;
mod ed25519;
mod error;
mod fingerprint;
mod frame_id;
mod frames;
mod freshness;
#[cfg(feature = "fuzz")]
pub mod fuzz;
mod hmac_key;
mod key;
mod manifest;
mod material;
mod replay;
mod secret;
mod sign;
pub mod store;
mod tag;
mod time;
pub mod webauthn;

pub use audit_log::{
    verify_audit_log, verify_audit_log_with, AuditBreak, AuditBreakKind, AuditLogSource,
    AuditReadError, AuditRow, AuditStrength, AuditVerdict, CheckpointOpener, AUDIT_SPINE_STEP,
};
pub use checkpoint::{
    open_checkpoint, LogKeyError, LogSigningKey, LogVerifierKey, SignedCheckpointError,
    VerifiedCheckpoint, LOG_PUBLIC_KEY_BYTES, LOG_SEED_BYTES,
};
pub use ed25519::{Ed25519PublicKey, Ed25519SigningKey, ED25519_SIGNATURE_BYTES};
pub use error::{KeyError, SignatureError};
pub use fingerprint::Fingerprint;
pub use frame_id::{
    check_frame_id, is_frame_id, FrameIdProblem, FRAME_ID_PUNCTUATION, MAX_FRAME_ID_BYTES,
};
pub use frames::{
    AlarmReason, ConversationKeys, FrameCause, FrameOutcome, FrameReport, FrameVerifier,
    InboundReport, UnansweredClaim, VerifiedFrame, VerifyConfig, VerifyConfigError, VerifyLimits,
    ALARM_ELEMENT, SUBKEY_CACHE_CAPACITY,
};
pub use freshness::{
    parse_issued_at, Freshness, IssuedAtProblem, Staleness, Undated, DEFAULT_MAX_AGE_SECONDS,
    DEFAULT_MAX_SKEW_SECONDS, ISSUED_AT_ATTRIBUTE, MAX_ISSUED_AT_DIGITS,
};
pub use hmac_key::{
    HmacKey, SubkeyError, CONVERSATION_INFO_PREFIX, MAX_CONVERSATION_ID_BYTES, SUBKEY_SALT,
};
pub use key::{Algorithm, VerifyingKey};
pub use manifest::{
    approval_signing_input, is_approval_id, verify_approval, verify_before_spawn,
    verify_signed_before_spawn, ApprovalCheck, ApprovalError, ApprovedHash, FileDigests,
    LivePayload, LiveState, SignedApproval, SpawnClearance, SpawnError, StaleItem, APPROVAL_DOMAIN,
    MAX_APPROVAL_ID_LEN,
};
pub use material::{ApproverKey, FrameKey, COMPACT_TAG_CHARS};
pub use replay::{
    Claim, ClaimError, ClaimOutcome, ClaimScope, MemoryReplayStore, ReplayStore,
    DEFAULT_MEMORY_REPLAY_CAPACITY,
};
pub use secret::{HmacSecret, MAX_SECRET_BYTES};
pub use sign::{
    BodyHashing, FrameRefusal, FrameSigner, SigningKey, FOOTER_ELEMENT, FRAME_ID_ATTRIBUTE,
    KEY_ID_ATTRIBUTE, SOURCE_ATTRIBUTE,
};
pub use tag::{
    CompensatingControls, Tag, TagConfig, TagLength, TagLengthError, TagProfile, COMPACT_TAG_BITS,
    ED25519_SIGNATURE_BITS, MAX_TAG_BITS, MAX_TAG_CHARS, MIN_TAG_BITS, MIN_TAG_CHARS,
    STANDARD_TAG_BITS,
};
pub use time::UnixTime;
