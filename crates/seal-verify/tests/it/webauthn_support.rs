//! A test-only authenticator: real key pairs (ring), authenticator data, attestation objects
//! (CBOR written with ciborium) and assertions built as an authenticator and a browser build
//! them (WebAuthn §6.1, §6.5, §5.8.1), so the verifier meets bytes it did not write itself.

use ciborium::Value;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use seal_verify::base64url;
use seal_verify::webauthn::{
    approval_challenge, enrol_challenge, Approver, ApproverPublicKey, ApproverRegistry, Assertion,
    Expected, RegisteredApprover, FLAG_ATTESTED_CREDENTIAL, FLAG_USER_PRESENT, FLAG_USER_VERIFIED,
};
use sha2::{Digest, Sha256};

pub const ORIGIN: &str = "https://approve.example";
pub const RP_ID: &str = "approve.example";
pub const SESSION: &str = "session-1";
pub const APPROVAL: &str = "approval-1";
pub const RPC_ID: u64 = 7;
pub const DIGEST: [u8; 32] = [0xd1; 32];
pub const NONCE: [u8; 32] = [0x5e; 32];
pub const ENROL_NONCE: [u8; 32] = [0xe0; 32];
/// UP and UV: what an "Allow once" with a PIN or biometric sets.
pub const FLAGS: u8 = FLAG_USER_PRESENT | FLAG_USER_VERIFIED;
/// A fixed P-256 key in PKCS#8 (v1, with its public key), for reproducible vectors.
pub const P256_PKCS8_HEX: &str = "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420af6e25e61156037db9a02d8e18271f5a2574835e44f4771f38fd3d2ce01c5a25a144034200045fea3810f466324240d6d01c359fffa998aaea162bde9ad32dc0985a60dc98cd76f05a63f9697ff038771eefbcaa56a3ece22bd904962d54f6ed447ee76b5471";
/// A fixed Ed25519 seed, for reproducible vectors.
pub const ED25519_SEED: [u8; 32] = [0x2a; 32];

pub fn approval() -> [u8; 32] {
    approval_challenge(RPC_ID, SESSION, APPROVAL, &DIGEST, &NONCE)
}

pub fn expected(challenge: [u8; 32]) -> Expected<'static> {
    Expected {
        challenge,
        origin: ORIGIN,
        rp_id: RP_ID,
    }
}

pub fn approval_expected() -> Expected<'static> {
    expected(approval())
}

pub fn enrol_expected() -> Expected<'static> {
    expected(enrol_challenge(&ENROL_NONCE))
}

/// A credential's key pair.
pub enum Signer {
    Es256(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

impl Signer {
    pub fn fixed_es256() -> Signer {
        let pkcs8 = hex::decode(P256_PKCS8_HEX).unwrap();
        Signer::Es256(
            EcdsaKeyPair::from_pkcs8(
                &ECDSA_P256_SHA256_ASN1_SIGNING,
                &pkcs8,
                &SystemRandom::new(),
            )
            .unwrap(),
        )
    }

    pub fn fixed_ed25519() -> Signer {
        Signer::Ed25519(Ed25519KeyPair::from_seed_unchecked(&ED25519_SEED).unwrap())
    }

    pub fn fresh_es256() -> Signer {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        Signer::Es256(
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap(),
        )
    }

    pub fn fresh_ed25519() -> Signer {
        let rng = SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        Signer::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap())
    }

    pub fn cose_alg(&self) -> i64 {
        match self {
            Signer::Es256(_) => -7,
            Signer::Ed25519(_) => -8,
        }
    }

    pub fn public_bytes(&self) -> Vec<u8> {
        match self {
            Signer::Es256(pair) => pair.public_key().as_ref().to_vec(),
            Signer::Ed25519(pair) => pair.public_key().as_ref().to_vec(),
        }
    }

    pub fn public_key(&self) -> ApproverPublicKey {
        let algorithm = match self {
            Signer::Es256(_) => seal_verify::webauthn::ApproverAlgorithm::Es256,
            Signer::Ed25519(_) => seal_verify::webauthn::ApproverAlgorithm::Ed25519,
        };
        ApproverPublicKey::from_bytes(algorithm, &self.public_bytes()).unwrap()
    }

    /// The COSE_Key an authenticator puts in the attested credential data.
    pub fn cose_key(&self) -> Value {
        let public = self.public_bytes();
        match self {
            Signer::Es256(_) => cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, Value::Bytes(public[1..33].to_vec())),
                (-3, Value::Bytes(public[33..65].to_vec())),
            ]),
            Signer::Ed25519(_) => cose_map(vec![
                (1, Value::from(1)),
                (3, Value::from(-8)),
                (-1, Value::from(6)),
                (-2, Value::Bytes(public)),
            ]),
        }
    }

    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        match self {
            Signer::Es256(pair) => pair
                .sign(&SystemRandom::new(), message)
                .unwrap()
                .as_ref()
                .to_vec(),
            Signer::Ed25519(pair) => pair.sign(message).as_ref().to_vec(),
        }
    }
}

pub fn cose_map(entries: Vec<(i64, Value)>) -> Value {
    Value::Map(
        entries
            .into_iter()
            .map(|(label, value)| (Value::from(label), value))
            .collect(),
    )
}

pub fn cbor(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::ser::into_writer(value, &mut out).unwrap();
    out
}

/// clientDataJSON as browsers write it: `type`, `challenge`, `origin`, `crossOrigin`, in that
/// order, then any extra members (already JSON text, without the leading comma).
pub fn client_data(kind: &str, challenge: &[u8; 32], origin: &str, extra: &str) -> Vec<u8> {
    let mut text = format!(
        r#"{{"type":"{kind}","challenge":"{}","origin":"{origin}","crossOrigin":false"#,
        base64url::encode(challenge)
    );
    if !extra.is_empty() {
        text.push(',');
        text.push_str(extra);
    }
    text.push('}');
    text.into_bytes()
}

/// Authenticator data: rpIdHash, flags, signCount, then `rest` (attested credential data,
/// extensions) as given.
pub fn auth_data(rp_id: &str, flags: u8, sign_count: u32, rest: &[u8]) -> Vec<u8> {
    let mut out = Sha256::digest(rp_id.as_bytes()).to_vec();
    out.push(flags);
    out.extend_from_slice(&sign_count.to_be_bytes());
    out.extend_from_slice(rest);
    out
}

/// Attested credential data: AAGUID, credential id length, credential id, COSE key bytes.
pub fn attested(credential_id: &[u8], cose_key: &[u8]) -> Vec<u8> {
    let mut out = vec![0xaa; 16];
    out.extend_from_slice(&u16::try_from(credential_id.len()).unwrap().to_be_bytes());
    out.extend_from_slice(credential_id);
    out.extend_from_slice(cose_key);
    out
}

pub fn attestation_object(fmt: &str, statement: Value, auth_data: &[u8]) -> Vec<u8> {
    cbor(&Value::Map(vec![
        (Value::from("fmt"), Value::from(fmt)),
        (Value::from("attStmt"), statement),
        (Value::from("authData"), Value::Bytes(auth_data.to_vec())),
    ]))
}

/// An enrolment as a browser returns it: clientDataJSON and attestation object.
pub struct Registration {
    pub client_data: Vec<u8>,
    pub attestation: Vec<u8>,
}

/// A `none` enrolment of `signer` under `credential_id`, with UP, UV and AT set.
pub fn registration(signer: &Signer, credential_id: &[u8]) -> Registration {
    let client = client_data("webauthn.create", &enrol_expected().challenge, ORIGIN, "");
    let data = auth_data(
        RP_ID,
        FLAGS | FLAG_ATTESTED_CREDENTIAL,
        0,
        &attested(credential_id, &cbor(&signer.cose_key())),
    );
    Registration {
        attestation: attestation_object("none", Value::Map(vec![]), &data),
        client_data: client,
    }
}

/// A `packed` self-attestation enrolment of `signer`.
pub fn packed_registration(signer: &Signer, credential_id: &[u8]) -> Registration {
    let client = client_data("webauthn.create", &enrol_expected().challenge, ORIGIN, "");
    let data = auth_data(
        RP_ID,
        FLAGS | FLAG_ATTESTED_CREDENTIAL,
        0,
        &attested(credential_id, &cbor(&signer.cose_key())),
    );
    let mut signed = data.clone();
    signed.extend_from_slice(&Sha256::digest(&client));
    let statement = Value::Map(vec![
        (Value::from("alg"), Value::from(signer.cose_alg())),
        (Value::from("sig"), Value::Bytes(signer.sign(&signed))),
    ]);
    Registration {
        attestation: attestation_object("packed", statement, &data),
        client_data: client,
    }
}

/// An assertion's owned parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    pub credential_id: Vec<u8>,
    pub client_data: Vec<u8>,
    pub auth_data: Vec<u8>,
    pub signature: Vec<u8>,
}

impl Parts {
    pub fn assertion(&self) -> Assertion<'_> {
        Assertion {
            credential_id: &self.credential_id,
            client_data_json: &self.client_data,
            authenticator_data: &self.auth_data,
            signature: &self.signature,
        }
    }

    /// Signs (again) over the current authenticator data and client data.
    pub fn signed_by(mut self, signer: &Signer) -> Parts {
        let mut message = self.auth_data.clone();
        message.extend_from_slice(&Sha256::digest(&self.client_data));
        self.signature = signer.sign(&message);
        self
    }
}

/// An assertion as an authenticator returns it for `client_data` and `auth_data`.
pub fn signed(
    signer: &Signer,
    credential_id: &[u8],
    client_data: Vec<u8>,
    auth_data: Vec<u8>,
) -> Parts {
    Parts {
        credential_id: credential_id.to_vec(),
        client_data,
        auth_data,
        signature: Vec::new(),
    }
    .signed_by(signer)
}

/// The honest "Allow once" for the fixture's pending call.
pub fn allow(signer: &Signer, credential_id: &[u8], sign_count: u32) -> Parts {
    signed(
        signer,
        credential_id,
        client_data("webauthn.get", &approval(), ORIGIN, ""),
        auth_data(RP_ID, FLAGS, sign_count, &[]),
    )
}

/// A registry holding `signer` under `credential_id` with `sign_count`.
pub fn registry_of(entries: &[(&Signer, &[u8], u32)]) -> ApproverRegistry {
    let mut registry = ApproverRegistry::new();
    for (signer, credential_id, sign_count) in entries {
        let approver = Approver {
            credential_id: credential_id.to_vec(),
            public_key: signer.public_key(),
            sign_count: *sign_count,
        };
        registry
            .insert(
                RegisteredApprover::new(approver, &name_of(credential_id), 1_800_000_000_000)
                    .unwrap(),
            )
            .unwrap();
    }
    registry
}

/// A display name made from (the start of) a credential id.
pub fn name_of(credential_id: &[u8]) -> String {
    format!(
        "key {}",
        hex::encode(&credential_id[..credential_id.len().min(20)])
    )
}
