//! A security key for the browser: a P-256 credential the test makes, loaded into the
//! browser's virtual authenticator, and an [`AllowCheck`] that verifies the panel's assertions
//! against it as a relying party does (challenge, origin, RP ID hash, user presence and
//! verification, signature). It stands in for the server's WebAuthn side, so the page's side
//! is checked end to end through the server's seam.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{
    EcdsaKeyPair, KeyPair, UnparsedPublicKey, ECDSA_P256_SHA256_ASN1,
    ECDSA_P256_SHA256_ASN1_SIGNING,
};
use seal_serve::hookwire::WireAssertion;
use seal_serve::AllowCheck;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::{Arc, OnceLock};

/// The relying party the panel asks for.
pub const RP_ID: &str = "localhost";

/// The authenticator data flags: user present, user verified.
const USER_PRESENT: u8 = 0x01;
const USER_VERIFIED: u8 = 0x04;

/// A credential: its id, its private key (PKCS#8) for the authenticator, its public key for
/// the check.
pub struct TestKey {
    /// The credential id.
    pub credential_id: Vec<u8>,
    /// The private key as PKCS#8 DER.
    pub pkcs8: Vec<u8>,
    public_key: Vec<u8>,
    /// The panel's origin, known once the server listens.
    pub origin: OnceLock<String>,
}

impl TestKey {
    /// A fresh P-256 credential.
    pub fn new() -> TestKey {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            .expect("a P-256 key")
            .as_ref()
            .to_vec();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &pkcs8, &rng)
            .expect("the key reads back");
        TestKey {
            credential_id: b"seal-panel-test-credential".to_vec(),
            public_key: pair.public_key().as_ref().to_vec(),
            pkcs8,
            origin: OnceLock::new(),
        }
    }

    /// The WebDriver "Add Credential" body for this key (a discoverable credential).
    pub fn credential_parameters(&self) -> Value {
        serde_json::json!({
            "credentialId": URL_SAFE_NO_PAD.encode(&self.credential_id),
            "isResidentCredential": true,
            "rpId": RP_ID,
            "privateKey": URL_SAFE_NO_PAD.encode(&self.pkcs8),
            "userHandle": URL_SAFE_NO_PAD.encode(b"approver"),
            "signCount": 0,
        })
    }

    /// Verifies `assertion` over `challenge`; the error names the first part that fails.
    pub fn verify(&self, challenge: &[u8; 32], assertion: &WireAssertion) -> Result<(), String> {
        let decode = |name: &str, text: &str| {
            URL_SAFE_NO_PAD
                .decode(text)
                .map_err(|error| format!("{name} is not base64url without padding: {error}"))
        };
        if decode("credential_id", &assertion.credential_id)? != self.credential_id {
            return Err("another credential".to_owned());
        }
        let client_data = decode("client_data_json", &assertion.client_data_json)?;
        let data: Value = serde_json::from_slice(&client_data)
            .map_err(|error| format!("client data is not JSON: {error}"))?;
        if data["type"] != "webauthn.get" {
            return Err(format!("client data type {}", data["type"]));
        }
        if data["challenge"] != URL_SAFE_NO_PAD.encode(challenge).as_str() {
            return Err("the challenge is another entry's".to_owned());
        }
        if Some(&data["origin"])
            != self
                .origin
                .get()
                .map(|origin| Value::from(origin.as_str()))
                .as_ref()
        {
            return Err(format!("origin {}", data["origin"]));
        }
        let authenticator_data = decode("authenticator_data", &assertion.authenticator_data)?;
        let rp_id_hash = Sha256::digest(RP_ID.as_bytes());
        if authenticator_data.get(..32) != Some(rp_id_hash.as_slice()) {
            return Err("another relying party".to_owned());
        }
        let flags = authenticator_data.get(32).copied().unwrap_or_default();
        if flags & (USER_PRESENT | USER_VERIFIED) != USER_PRESENT | USER_VERIFIED {
            return Err(format!("flags {flags:#04x}: the user was not verified"));
        }
        let mut signed = authenticator_data.clone();
        signed.extend_from_slice(&Sha256::digest(&client_data));
        let signature = decode("signature", &assertion.signature)?;
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, &self.public_key)
            .verify(&signed, &signature)
            .map_err(|_| "the signature does not verify".to_owned())
    }
}

/// One approver holding [`TestKey`].
pub struct OneKey(pub Arc<TestKey>);

impl AllowCheck for OneKey {
    fn approvers(&self) -> u64 {
        1
    }

    fn check(&self, challenge: &[u8; 32], assertion: Option<&WireAssertion>) -> Result<(), String> {
        match assertion {
            Some(assertion) => self.0.verify(challenge, assertion),
            None => Err("no assertion".to_owned()),
        }
    }
}
