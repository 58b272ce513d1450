//! A security key for the browser: a P-256 credential the test makes and loads into the
//! browser's virtual authenticator, and an [`AllowCheck`] that verifies the panel's assertions
//! with seal's WebAuthn verifier (challenge, origin, RP ID hash, user presence and
//! verification, signature). It stands in for the server's enrolment, so the page's side is
//! checked end to end through the server's assertion seam.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use seal_serve::hookwire::WireAssertion;
use seal_serve::AllowCheck;
use seal_verify::webauthn::{
    verify_assertion, Approver, ApproverAlgorithm, ApproverPublicKey, ApproverRegistry, Assertion,
    Expected, RegisteredApprover,
};
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// The relying party the panel asks for.
pub const RP_ID: &str = "localhost";

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

    /// Verifies `assertion` over `challenge` with seal's own WebAuthn verifier
    /// (`seal_verify::webauthn::verify_assertion`), the key enrolled in a registry of one.
    pub fn verify(&self, challenge: &[u8; 32], assertion: &WireAssertion) -> Result<(), String> {
        let decode = |name: &str, text: &str| {
            URL_SAFE_NO_PAD
                .decode(text)
                .map_err(|error| format!("{name} is not base64url without padding: {error}"))
        };
        let credential_id = decode("credential_id", &assertion.credential_id)?;
        let client_data_json = decode("client_data_json", &assertion.client_data_json)?;
        let authenticator_data = decode("authenticator_data", &assertion.authenticator_data)?;
        let signature = decode("signature", &assertion.signature)?;
        let public_key = ApproverPublicKey::from_bytes(ApproverAlgorithm::Es256, &self.public_key)
            .ok_or("the test key is not a P-256 point")?;
        let approver = Approver {
            credential_id: self.credential_id.clone(),
            public_key,
            sign_count: 0,
        };
        let mut registry = ApproverRegistry::new();
        registry
            .insert(
                RegisteredApprover::new(approver, "browser test key", 1_800_000_000_000)
                    .map_err(|error| format!("the test key: {error}"))?,
            )
            .map_err(|error| format!("the test key: {error}"))?;
        let origin = self.origin.get().ok_or("the origin is not known yet")?;
        verify_assertion(
            &registry,
            &Assertion {
                credential_id: &credential_id,
                client_data_json: &client_data_json,
                authenticator_data: &authenticator_data,
                signature: &signature,
            },
            &Expected {
                challenge: *challenge,
                origin,
                rp_id: RP_ID,
            },
        )
        .map(|_| ())
        .map_err(|refusal| format!("refused: {}", refusal.name()))
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
