//! The frame verification that `benches/verify.rs` times, `seal-verify`'s `verify_alloc` test
//! counts the allocations of and its `verify_loop` example runs under an instruction counter:
//! one `channel` frame with `source` and `id` attributes, signed with the HMAC key `k1` of the
//! standard tag length, verified against an in-memory store holding that key.
//!
//! One setup for the three measurements, so that their numbers describe the same work.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use seal_parse::frame::ScanConfig;
use seal_record::FrameSigningInput;
use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
use seal_verify::{
    Claim, ClaimError, ClaimOutcome, FrameSigner, HmacKey, HmacSecret, ReplayStore, SigningKey,
    TagLength, UnixTime, VerifyConfig, VerifyingKey,
};
use sha2::{Digest, Sha256};

/// The time of signing and verification, inside the validity of `k1`.
pub const NOW: UnixTime = UnixTime(1_800_000_000);

/// The conversation the frames are signed for and verified in.
pub const CONVERSATION: &str = "conversation-1";

/// The key id of the one key in [`store`].
pub const KEY_ID: &str = "k1";

/// The frame element, the one the store's key is scoped to.
pub const ELEMENT: &str = "channel";

/// The HMAC secret of `k1`, for peers that need the same secret (a JWT, a bare HMAC).
pub const SECRET: [u8; 32] = [7; 32];

/// The HMAC key `k1`: [`SECRET`] at the standard tag length.
pub fn master() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&SECRET).unwrap(),
        TagLength::STANDARD,
    )
}

/// A record for the HMAC key `key` under `id` with `status`, valid around [`NOW`] (from
/// 1,700,000,000 to 1,850,000,000) and scoped to [`ELEMENT`] frames.
pub fn record(id: &str, key: HmacKey, status: KeyStatus) -> KeyRecord {
    let scopes = Scopes {
        frames: vec![FrameScope::new(ELEMENT, vec![]).unwrap()],
        ..Scopes::default()
    };
    let validity = Validity {
        not_before: UnixTime(1_700_000_000),
        not_after: UnixTime(1_850_000_000),
    };
    KeyRecord::new(id, VerifyingKey::Hmac(key), validity, status, scopes).unwrap()
}

/// A trust store holding `k1` ([`master`]), active, valid around [`NOW`] and scoped to
/// [`ELEMENT`] frames ([`record`]).
pub fn store() -> MemoryTrustStore {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    store
        .insert(record(KEY_ID, master(), KeyStatus::Active))
        .unwrap();
    store
}

/// The verifier configuration: frames of [`ELEMENT`], every other setting the default.
pub fn config() -> VerifyConfig {
    VerifyConfig::new(ScanConfig::new(ELEMENT).unwrap())
}

/// Printable prose of exactly `len` bytes (nothing the Block escape rewrites).
pub fn prose(len: usize) -> String {
    "The operator asks the agent to run the tests and report back. "
        .chars()
        .cycle()
        .take(len)
        .collect()
}

/// An [`ELEMENT`] frame with the frame id `id` and `body`, signed with `k1` for
/// [`CONVERSATION`] at [`NOW`].
pub fn signed_frame(id: &str, body: &str) -> String {
    let key = master();
    FrameSigner::new(KEY_ID, SigningKey::Hmac(&key), CONVERSATION, NOW)
        .unwrap()
        .sign(ELEMENT, &[("source", "telegram"), ("id", id)], body)
        .unwrap()
}

/// The signing input of [`signed_frame`]`(id, body)`: what the crypto floor of the frame format
/// ([`format_floor`]) authenticates.
pub fn signing_input(id: &str, body: &str) -> FrameSigningInput {
    FrameSigningInput::new(
        KEY_ID,
        "hmac-sha256",
        22,
        ELEMENT,
        &[("source", "telegram"), ("id", id), ("kid", KEY_ID)],
        body.as_bytes(),
    )
    .unwrap()
}

/// The crypto floor of the frame format: SHA-256 of `body`, then HMAC-SHA256 with `mac_key`
/// over `input` (a signing input of the frame's length, [`signing_input`]) with the body hash
/// in its last 32 bytes. Returns the first tag byte, so the work cannot be optimized away.
pub fn format_floor(body: &[u8], input: &[u8], mac_key: &ring::hmac::Key) -> u8 {
    let digest = Sha256::digest(body);
    let mut context = ring::hmac::Context::with_key(mac_key);
    context.update(&input[..input.len() - 32]);
    context.update(&digest);
    context.sign().as_ref()[0]
}

/// A replay store that answers every claim fresh and records nothing, for measurements and
/// tests that verify the same messages again and again and do not look at replay (never a
/// store to trust).
#[derive(Debug, Clone, Copy, Default)]
pub struct Forgetful;

impl ReplayStore for Forgetful {
    fn claim(&self, _claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        Ok(ClaimOutcome::Fresh)
    }
}
