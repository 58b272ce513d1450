//! Why an enrolment or an assertion was refused: one variant per rule.

use std::fmt;

/// The rule an enrolment ([`parse_registration`](super::parse_registration)) or an assertion
/// ([`verify_assertion`](super::verify_assertion)) failed, named for the operator's log
/// (spec/webauthn-approval.md lists the rules in check order). Toward the browser every refusal
/// is the same bare "refused".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WebAuthnRefusal {
    /// clientDataJSON is longer than
    /// [`MAX_CLIENT_DATA_BYTES`](super::MAX_CLIENT_DATA_BYTES).
    ClientDataTooLarge,
    /// clientDataJSON is not a strict JSON object with string `type`, `challenge` and `origin`
    /// (and, when present, a boolean `crossOrigin` and a string `topOrigin`).
    ClientDataMalformed,
    /// `type` is not `webauthn.create` (enrolment) or `webauthn.get` (assertion).
    WrongType,
    /// `challenge` is not the unpadded base64url text of the expected challenge.
    ChallengeMismatch,
    /// `origin` is not the expected origin, byte for byte.
    OriginMismatch,
    /// `crossOrigin` is `true`, or `topOrigin` is present: the ceremony ran in a frame.
    CrossOrigin,
    /// The attestation object is longer than
    /// [`MAX_ATTESTATION_OBJECT_BYTES`](super::MAX_ATTESTATION_OBJECT_BYTES).
    AttestationTooLarge,
    /// The attestation object is not one CBOR map of exactly `fmt` (text), `attStmt` (map) and
    /// `authData` (bytes).
    AttestationMalformed,
    /// `fmt` is neither `none` nor `packed`.
    AttestationFormatUnsupported,
    /// The attestation statement does not have the members its format requires (`none`: an
    /// empty map; `packed`: `alg` and `sig`).
    AttestationStatementMalformed,
    /// A `packed` statement carries a certificate chain (`x5c`): only self-attestation is read.
    AttestationCertificateUnsupported,
    /// A `packed` self-attestation names another algorithm than the credential's, or its
    /// signature does not verify with the credential's key.
    AttestationSignatureInvalid,
    /// Authenticator data longer than
    /// [`MAX_AUTHENTICATOR_DATA_BYTES`](super::MAX_AUTHENTICATOR_DATA_BYTES).
    AuthenticatorDataTooLarge,
    /// Authenticator data ends before a field it must hold (37 bytes at least, then the
    /// attested credential data when flagged).
    AuthenticatorDataTruncated,
    /// The authenticator data's rpIdHash is not SHA-256 of the expected RP ID.
    RpIdMismatch,
    /// The user-present flag (UP) is not set.
    UserNotPresent,
    /// The user-verified flag (UV) is not set.
    UserNotVerified,
    /// Enrolment: the attested-credential-data flag (AT) is not set.
    AttestedCredentialMissing,
    /// The bytes after the fixed fields are not what the flags announce: attested credential
    /// data in an assertion, extensions that are not one CBOR map, or trailing bytes.
    AuthenticatorDataMalformed,
    /// A credential id of 0 bytes or longer than
    /// [`MAX_CREDENTIAL_ID_BYTES`](super::MAX_CREDENTIAL_ID_BYTES).
    CredentialIdLength,
    /// The credential public key is not a COSE key of the shape its algorithm requires.
    CoseKeyMalformed,
    /// The credential public key's algorithm is neither ES256 (-7) nor EdDSA (-8).
    UnsupportedAlgorithm,
    /// Assertion: the credential id is not enrolled.
    UnknownCredential,
    /// Assertion: a signature longer than [`MAX_SIGNATURE_BYTES`](super::MAX_SIGNATURE_BYTES).
    SignatureTooLarge,
    /// Assertion: the signature over `authenticatorData || SHA-256(clientDataJSON)` does not
    /// verify with the enrolled key.
    SignatureInvalid,
    /// Assertion: the stored and the new signature counts are both nonzero and the new one is
    /// not greater (a cloned authenticator, or a replayed assertion).
    SignCountRegressed,
}

impl WebAuthnRefusal {
    /// Every refusal, in check order of spec/webauthn-approval.md's tables.
    pub const ALL: [WebAuthnRefusal; 26] = [
        Self::ClientDataTooLarge,
        Self::ClientDataMalformed,
        Self::WrongType,
        Self::ChallengeMismatch,
        Self::OriginMismatch,
        Self::CrossOrigin,
        Self::AttestationTooLarge,
        Self::AttestationMalformed,
        Self::AttestationFormatUnsupported,
        Self::AttestationStatementMalformed,
        Self::AttestationCertificateUnsupported,
        Self::AttestationSignatureInvalid,
        Self::AuthenticatorDataTooLarge,
        Self::AuthenticatorDataTruncated,
        Self::RpIdMismatch,
        Self::UserNotPresent,
        Self::UserNotVerified,
        Self::AttestedCredentialMissing,
        Self::AuthenticatorDataMalformed,
        Self::CredentialIdLength,
        Self::CoseKeyMalformed,
        Self::UnsupportedAlgorithm,
        Self::UnknownCredential,
        Self::SignatureTooLarge,
        Self::SignatureInvalid,
        Self::SignCountRegressed,
    ];

    /// The rule's stable kebab-case name, as in the spec, the golden vectors and the operator's
    /// log.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ClientDataTooLarge => "client-data-too-large",
            Self::ClientDataMalformed => "client-data-malformed",
            Self::WrongType => "wrong-type",
            Self::ChallengeMismatch => "challenge-mismatch",
            Self::OriginMismatch => "origin-mismatch",
            Self::CrossOrigin => "cross-origin",
            Self::AttestationTooLarge => "attestation-too-large",
            Self::AttestationMalformed => "attestation-malformed",
            Self::AttestationFormatUnsupported => "attestation-format-unsupported",
            Self::AttestationStatementMalformed => "attestation-statement-malformed",
            Self::AttestationCertificateUnsupported => "attestation-certificate-unsupported",
            Self::AttestationSignatureInvalid => "attestation-signature-invalid",
            Self::AuthenticatorDataTooLarge => "authenticator-data-too-large",
            Self::AuthenticatorDataTruncated => "authenticator-data-truncated",
            Self::RpIdMismatch => "rp-id-mismatch",
            Self::UserNotPresent => "user-not-present",
            Self::UserNotVerified => "user-not-verified",
            Self::AttestedCredentialMissing => "attested-credential-missing",
            Self::AuthenticatorDataMalformed => "authenticator-data-malformed",
            Self::CredentialIdLength => "credential-id-length",
            Self::CoseKeyMalformed => "cose-key-malformed",
            Self::UnsupportedAlgorithm => "unsupported-algorithm",
            Self::UnknownCredential => "unknown-credential",
            Self::SignatureTooLarge => "signature-too-large",
            Self::SignatureInvalid => "signature-invalid",
            Self::SignCountRegressed => "sign-count-regressed",
        }
    }

    fn description(&self) -> &'static str {
        match self {
            Self::ClientDataTooLarge => "client data is larger than its limit",
            Self::ClientDataMalformed => {
                "client data is not a strict json object of the fields read"
            }
            Self::WrongType => "client data names another ceremony type",
            Self::ChallengeMismatch => "client data carries another challenge",
            Self::OriginMismatch => "client data carries another origin",
            Self::CrossOrigin => "the ceremony ran cross-origin",
            Self::AttestationTooLarge => "attestation object is larger than its limit",
            Self::AttestationMalformed => "attestation object is not the cbor map expected",
            Self::AttestationFormatUnsupported => "attestation format is neither none nor packed",
            Self::AttestationStatementMalformed => {
                "attestation statement lacks the members its format requires"
            }
            Self::AttestationCertificateUnsupported => {
                "packed attestation with a certificate chain is not read"
            }
            Self::AttestationSignatureInvalid => "self-attestation signature does not verify",
            Self::AuthenticatorDataTooLarge => "authenticator data is larger than its limit",
            Self::AuthenticatorDataTruncated => "authenticator data ends early",
            Self::RpIdMismatch => "authenticator data is for another relying party",
            Self::UserNotPresent => "user presence flag is not set",
            Self::UserNotVerified => "user verification flag is not set",
            Self::AttestedCredentialMissing => "attested credential data flag is not set",
            Self::AuthenticatorDataMalformed => {
                "authenticator data does not match what its flags announce"
            }
            Self::CredentialIdLength => "credential id is empty or longer than its limit",
            Self::CoseKeyMalformed => "credential public key is not the cose key expected",
            Self::UnsupportedAlgorithm => "credential algorithm is neither es256 nor eddsa",
            Self::UnknownCredential => "credential is not enrolled",
            Self::SignatureTooLarge => "signature is larger than its limit",
            Self::SignatureInvalid => "signature does not verify",
            Self::SignCountRegressed => "signature count did not increase",
        }
    }
}

impl fmt::Display for WebAuthnRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.description(), self.name())
    }
}

impl std::error::Error for WebAuthnRefusal {}
