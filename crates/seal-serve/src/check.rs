//! The seam where an approver's WebAuthn assertion is checked before an `allowed-once` is
//! accepted from a panel.
//!
//! The server asks an [`AllowCheck`] two things: how many approvers are enrolled (sent to hooks
//! in `registered` and to panels in `hello`), and whether an allow's assertion passes for the
//! entry's challenge. While [`AllowCheck::approvers`] is 0, the bearer token alone answers (and
//! panels are warned); once it is above 0, an `allowed-once` whose check fails gets the receipt
//! `unauthenticated` and the entry stays pending. A rejection never needs an assertion: a forged
//! refusal can only deny. The hook verifies the assertion again itself, so a check here is a
//! courtesy to the panel, not the last line.

use crate::hookwire::WireAssertion;

/// Checks the assertion that comes with a panel's `allowed-once`.
///
/// An implementation holds what the check needs besides the entry: the enrolled approvers'
/// public keys, the panel's origin (`http://localhost:PORT`, or `https://HOST[:PORT]` over TLS)
/// and RP ID (`localhost`, or the first trusted host), and the sign counters it keeps. The server gives it the entry's challenge
/// (`seal_verify::webauthn::approval_challenge` over the rpc id, session id, approval id,
/// arguments digest and the hook's nonce), so an assertion made for one entry fails for any
/// other.
pub trait AllowCheck: Send + Sync {
    /// How many approvers are enrolled. 0 means no assertion is asked for.
    fn approvers(&self) -> u64;

    /// `Ok` when `assertion` is a valid assertion of an enrolled approver over
    /// `entry_challenge`; the error is a sentence for the operator's log (the panel only learns
    /// `unauthenticated`).
    ///
    /// # Errors
    /// The assertion is missing or does not verify.
    fn check(
        &self,
        entry_challenge: &[u8; 32],
        assertion: Option<&WireAssertion>,
    ) -> Result<(), String>;

    /// The enrolled credential ids (base64url), which the panel passes as `allowCredentials`
    /// (a security key finds a credential that is not discoverable only by its id).
    fn credentials(&self) -> Vec<String> {
        Vec::new()
    }

    /// The enrolment of new approvers this check offers the panel, if any.
    fn enrolment(&self) -> Option<&crate::approvers::Approvers> {
        None
    }
}

/// No approver enrolled: an allow is accepted on the bearer token alone, and every panel is
/// told that a process running as the same user could answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoApprovers;

impl AllowCheck for NoApprovers {
    fn approvers(&self) -> u64 {
        0
    }

    fn check(&self, _: &[u8; 32], _: Option<&WireAssertion>) -> Result<(), String> {
        Ok(())
    }
}
