//! The challenges an approver's authenticator signs: one bound to a pending call, one to an
//! enrolment (spec/webauthn-approval.md, "Challenges").

use sha2::{Digest, Sha256};

/// Domain string of [`approval_challenge`]: the first bytes hashed, without a length prefix.
pub const APPROVAL_CHALLENGE_DOMAIN: &str = "seal-approval-challenge-v1";

/// Domain string of [`enrol_challenge`]: the first bytes hashed, without a length prefix.
pub const ENROL_CHALLENGE_DOMAIN: &str = "seal-approver-enrol-v1";

/// The challenge of an "Allow once" for one pending call.
///
/// SHA-256 over the ASCII domain [`APPROVAL_CHALLENGE_DOMAIN`], then each field as its length
/// (u64 big-endian) followed by its bytes, in this order: `rpc_id` (8 bytes, big-endian),
/// `session_id` (UTF-8), `approval_id` (UTF-8), `arguments_digest` (32 bytes), `nonce`
/// (32 bytes). Every field is length-prefixed, so no two different tuples hash the same input,
/// and an assertion over the challenge of one call does not verify for another (other rpc id,
/// session, approval id, arguments or nonce).
///
/// ```
/// use seal_verify::webauthn::approval_challenge;
///
/// let one = approval_challenge(1, "session-1", "approval-1", &[0; 32], &[7; 32]);
/// let other = approval_challenge(2, "session-1", "approval-1", &[0; 32], &[7; 32]);
/// assert_ne!(one, other);
/// ```
pub fn approval_challenge(
    rpc_id: u64,
    session_id: &str,
    approval_id: &str,
    arguments_digest: &[u8; 32],
    nonce: &[u8; 32],
) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(APPROVAL_CHALLENGE_DOMAIN.as_bytes());
    for field in [
        &rpc_id.to_be_bytes()[..],
        session_id.as_bytes(),
        approval_id.as_bytes(),
        &arguments_digest[..],
        &nonce[..],
    ] {
        update_prefixed(&mut hash, field);
    }
    hash.finalize().into()
}

/// The challenge of an approver's enrolment: SHA-256 over the ASCII domain
/// [`ENROL_CHALLENGE_DOMAIN`], then the nonce's length (u64 big-endian, 32) and its 32 bytes.
/// Its domain differs from [`approval_challenge`]'s, so an enrolment's challenge is never an
/// approval's.
pub fn enrol_challenge(nonce: &[u8; 32]) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(ENROL_CHALLENGE_DOMAIN.as_bytes());
    update_prefixed(&mut hash, nonce);
    hash.finalize().into()
}

fn update_prefixed(hash: &mut Sha256, field: &[u8]) {
    // A slice's length fits in u64 on every supported target.
    let length = u64::try_from(field.len()).unwrap_or(u64::MAX);
    hash.update(length.to_be_bytes());
    hash.update(field);
}
