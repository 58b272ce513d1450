//! WebAuthn for the approval server: an "Allow once" carries an assertion by an enrolled
//! approver's authenticator over a challenge bound to the exact pending call, and the waiting
//! hook verifies it itself (spec/webauthn-approval.md).
//!
//! Pure: bytes in, decisions out. The edge reads and writes the registry file, draws nonces and
//! talks to the browser.
//!
//! - [`approval_challenge`] and [`enrol_challenge`]: the 32-byte challenges the panel asks the
//!   authenticator to sign.
//! - [`parse_registration`]: an enrolment (`navigator.credentials.create()`) read into an
//!   [`Approver`].
//! - [`verify_assertion`]: an allow (`navigator.credentials.get()`) checked against the
//!   [`ApproverRegistry`]; success is a [`VerifiedAssertion`] witness.
//! - [`ApproverRegistry::parse`] and [`ApproverRegistry::to_json`]: the registry file.
//!
//! Every refusal names its rule ([`WebAuthnRefusal::name`]) for the operator; toward the
//! browser a refusal is bare.
//!
//! These approvers are not the trust store's [`ApproverKey`](crate::ApproverKey) (an Ed25519
//! key that signs trust store documents): they are people's authenticators.

mod assertion;
mod auth_data;
mod cbor;
mod challenge;
mod client_data;
mod cose;
#[cfg(feature = "fuzz")]
pub mod fuzz_check;
mod key;
mod refusal;
mod registration;
mod registry;

pub use assertion::{verify_assertion, Assertion, VerifiedAssertion};
pub use auth_data::{
    AUTHENTICATOR_DATA_MIN_BYTES, FLAG_ATTESTED_CREDENTIAL, FLAG_EXTENSIONS, FLAG_USER_PRESENT,
    FLAG_USER_VERIFIED,
};
pub use challenge::{
    approval_challenge, enrol_challenge, APPROVAL_CHALLENGE_DOMAIN, ENROL_CHALLENGE_DOMAIN,
};
pub use key::{
    ApproverAlgorithm, ApproverPublicKey, ED25519_PUBLIC_KEY_BYTES, ES256_PUBLIC_KEY_BYTES,
};
pub use refusal::WebAuthnRefusal;
pub use registration::{parse_registration, Approver};
pub use registry::{
    ApproverRegistry, RegisteredApprover, RegistryError, RegistryErrorKind, MAX_APPROVERS,
    MAX_APPROVER_NAME_BYTES, MAX_REGISTRY_BYTES, REGISTRY_VERSION,
};

/// Largest clientDataJSON accepted, in bytes (4 KiB; browsers send a few hundred).
pub const MAX_CLIENT_DATA_BYTES: usize = 4096;

/// Deepest JSON nesting accepted in clientDataJSON (the object is depth 1; browsers send a flat
/// object).
pub const MAX_CLIENT_DATA_DEPTH: usize = 4;

/// Largest attestation object accepted, in bytes (16 KiB).
pub const MAX_ATTESTATION_OBJECT_BYTES: usize = 16 * 1024;

/// Largest assertion authenticator data accepted, in bytes (37 fixed bytes and extensions).
pub const MAX_AUTHENTICATOR_DATA_BYTES: usize = 1024;

/// Longest credential id accepted, in bytes (WebAuthn Level 3 caps credential ids at 1023).
pub const MAX_CREDENTIAL_ID_BYTES: usize = 1023;

/// Longest signature accepted, in bytes: an ASN.1 DER ECDSA P-256 signature is at most 72, an
/// Ed25519 signature is 64.
pub const MAX_SIGNATURE_BYTES: usize = 72;

/// Deepest CBOR nesting read from an attestation object, a COSE key or an extensions map.
pub const MAX_CBOR_DEPTH: usize = 16;

/// What the ceremony must be bound to: the challenge the panel asked for, the server's origin
/// and its relying party id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected<'a> {
    /// The challenge ([`approval_challenge`] for an allow, [`enrol_challenge`] for an
    /// enrolment).
    pub challenge: [u8; 32],
    /// The server's origin, exactly as the browser writes it (`https://approve.example:8443`).
    pub origin: &'a str,
    /// The relying party id (a host name, `localhost` for the loopback server).
    pub rp_id: &'a str,
}
