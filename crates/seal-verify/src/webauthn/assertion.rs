//! The check of an "Allow once": a `navigator.credentials.get()` response against the enrolled
//! approvers.

use sha2::{Digest, Sha256};

use super::auth_data::check_assertion_data;
use super::client_data::{check_client_data, Ceremony};
use super::refusal::WebAuthnRefusal;
use super::registry::ApproverRegistry;
use super::{
    Expected, MAX_AUTHENTICATOR_DATA_BYTES, MAX_CLIENT_DATA_BYTES, MAX_CREDENTIAL_ID_BYTES,
    MAX_SIGNATURE_BYTES,
};

/// The parts of a WebAuthn assertion, as the browser returned them (already decoded from the
/// panel's base64url into bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assertion<'a> {
    /// The credential's id (`rawId`).
    pub credential_id: &'a [u8],
    /// `response.clientDataJSON`.
    pub client_data_json: &'a [u8],
    /// `response.authenticatorData`.
    pub authenticator_data: &'a [u8],
    /// `response.signature` (ASN.1 DER for ES256, 64 bytes for Ed25519).
    pub signature: &'a [u8],
}

/// An assertion that passed every rule: only [`verify_assertion`] makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedAssertion {
    credential_id: Vec<u8>,
    sign_count: u32,
}

impl VerifiedAssertion {
    /// The enrolled credential that signed.
    pub fn credential_id(&self) -> &[u8] {
        &self.credential_id
    }

    /// The signature count the authenticator reported; record it with
    /// [`ApproverRegistry::record`] so that a replay or a clone is refused next time.
    pub fn sign_count(&self) -> u32 {
        self.sign_count
    }
}

/// Verifies an assertion against the enrolled approvers and what the waiting call expects.
///
/// Check order (spec/webauthn-approval.md, "Assertion"), the first failure refusing with its
/// [`WebAuthnRefusal`]: sizes (credential id, client data, authenticator data, signature);
/// the credential is enrolled; the client data (strict JSON, `type` is `webauthn.get`, the
/// challenge is exactly the expected one in unpadded base64url, the origin is exact, not
/// cross-origin); the authenticator data (at least 37 bytes, rpIdHash is SHA-256 of the RP ID,
/// UP and UV set, no attested credential data, extensions only as flagged); the signature over
/// `authenticatorData || SHA-256(clientDataJSON)` with the enrolled key; and the signature
/// count (when either the stored or the new count is nonzero, the new one is greater: WebAuthn
/// §7.2 step 22; two zeros are an authenticator that keeps no count).
pub fn verify_assertion(
    approvers: &ApproverRegistry,
    assertion: &Assertion<'_>,
    expected: &Expected<'_>,
) -> Result<VerifiedAssertion, WebAuthnRefusal> {
    if assertion.credential_id.is_empty() || assertion.credential_id.len() > MAX_CREDENTIAL_ID_BYTES
    {
        return Err(WebAuthnRefusal::CredentialIdLength);
    }
    if assertion.client_data_json.len() > MAX_CLIENT_DATA_BYTES {
        return Err(WebAuthnRefusal::ClientDataTooLarge);
    }
    if assertion.authenticator_data.len() > MAX_AUTHENTICATOR_DATA_BYTES {
        return Err(WebAuthnRefusal::AuthenticatorDataTooLarge);
    }
    if assertion.signature.len() > MAX_SIGNATURE_BYTES {
        return Err(WebAuthnRefusal::SignatureTooLarge);
    }
    let approver = approvers
        .get(assertion.credential_id)
        .ok_or(WebAuthnRefusal::UnknownCredential)?
        .approver();
    check_client_data(assertion.client_data_json, Ceremony::Get, expected)?;
    let sign_count = check_assertion_data(assertion.authenticator_data, expected)?;
    let mut signed = Vec::with_capacity(assertion.authenticator_data.len() + 32);
    signed.extend_from_slice(assertion.authenticator_data);
    signed.extend_from_slice(&Sha256::digest(assertion.client_data_json));
    if !approver.public_key.verify(&signed, assertion.signature) {
        return Err(WebAuthnRefusal::SignatureInvalid);
    }
    if (approver.sign_count != 0 || sign_count != 0) && sign_count <= approver.sign_count {
        return Err(WebAuthnRefusal::SignCountRegressed);
    }
    Ok(VerifiedAssertion {
        credential_id: approver.credential_id.clone(),
        sign_count,
    })
}
