//! The WebAuthn challenge of a pending approval: what an approver's authenticator signs, so an
//! assertion is bound to one entry, one call and the hook's nonce.
//!
//! Placeholder: the canonical definition is `seal_verify::webauthn::approval_challenge`, with the
//! same layout; this copy goes away when that function lands.

use sha2::{Digest, Sha256};

/// The domain every challenge hash starts with.
pub const CHALLENGE_DOMAIN: &[u8] = b"seal-approval-challenge-v1";

/// SHA-256 over [`CHALLENGE_DOMAIN`], then each field as its length (u64, big-endian) and its
/// bytes: the rpc id (8 big-endian bytes), the session id, the approval id, the arguments
/// digest (32 bytes) and the hook's nonce (32 bytes).
#[must_use]
pub fn challenge_of(
    rpc_id: u64,
    session_id: &str,
    approval_id: &str,
    arguments_digest: &[u8; 32],
    nonce: &[u8; 32],
) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(CHALLENGE_DOMAIN);
    let rpc = rpc_id.to_be_bytes();
    let fields: [&[u8]; 5] = [
        &rpc,
        session_id.as_bytes(),
        approval_id.as_bytes(),
        arguments_digest,
        nonce,
    ];
    for field in fields {
        hash.update((field.len() as u64).to_be_bytes());
        hash.update(field);
    }
    hash.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::challenge_of;

    #[test]
    fn every_field_is_bound() {
        let base = challenge_of(1, "s", "a", &[1; 32], &[2; 32]);
        assert_ne!(base, challenge_of(2, "s", "a", &[1; 32], &[2; 32]));
        assert_ne!(base, challenge_of(1, "t", "a", &[1; 32], &[2; 32]));
        assert_ne!(base, challenge_of(1, "s", "b", &[1; 32], &[2; 32]));
        assert_ne!(base, challenge_of(1, "s", "a", &[3; 32], &[2; 32]));
        assert_ne!(base, challenge_of(1, "s", "a", &[1; 32], &[3; 32]));
        // Lengths keep the boundary between session and approval ids.
        assert_ne!(
            challenge_of(1, "sa", "b", &[1; 32], &[2; 32]),
            challenge_of(1, "s", "ab", &[1; 32], &[2; 32])
        );
    }
}
