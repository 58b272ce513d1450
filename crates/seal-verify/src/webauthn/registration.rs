//! Enrolment: an approver's `navigator.credentials.create()` response, read into an
//! [`Approver`].

use ciborium::Value;
use sha2::{Digest, Sha256};

use super::auth_data::parse_registration_data;
use super::cbor::{member, read_whole, text_keyed_map};
use super::client_data::{check_client_data, Ceremony};
use super::key::ApproverPublicKey;
use super::refusal::WebAuthnRefusal;
use super::{Expected, MAX_ATTESTATION_OBJECT_BYTES};

/// An enrolled approver's credential: what an assertion is verified against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approver {
    /// The credential id the authenticator chose (1 to
    /// [`MAX_CREDENTIAL_ID_BYTES`](super::MAX_CREDENTIAL_ID_BYTES) bytes).
    pub credential_id: Vec<u8>,
    /// The credential public key, bound to its algorithm.
    pub public_key: ApproverPublicKey,
    /// The last signature count seen (0: the authenticator keeps no count).
    pub sign_count: u32,
}

/// Reads an enrolment: checks the clientDataJSON and the attestation object of a
/// `navigator.credentials.create()` response against `expected`, and returns the credential
/// to enrol.
///
/// Check order (spec/webauthn-approval.md, "Enrolment"): the client data (size, strict JSON,
/// `type` is `webauthn.create`, challenge, origin, not cross-origin); the attestation object's
/// size, then its shape (one CBOR map of exactly `fmt`, `attStmt`, `authData`); `fmt` is
/// `none` or `packed`; the statement's shape (`none`: empty; `packed`: `alg` and `sig`, no
/// `x5c`); the authenticator data (rpIdHash, UP, UV, AT, credential id, COSE key, extensions);
/// and for `packed`, the self-attestation signature with the credential's own key. Attestation
/// proves nothing about who the approver is and is not relied on: the enrolment's challenge and
/// the person enrolling are what bind the credential.
pub fn parse_registration(
    client_data_json: &[u8],
    attestation_object: &[u8],
    expected: &Expected<'_>,
) -> Result<Approver, WebAuthnRefusal> {
    check_client_data(client_data_json, Ceremony::Create, expected)?;
    if attestation_object.len() > MAX_ATTESTATION_OBJECT_BYTES {
        return Err(WebAuthnRefusal::AttestationTooLarge);
    }
    let object = read_whole(attestation_object).ok_or(WebAuthnRefusal::AttestationMalformed)?;
    let members = text_keyed_map(&object).ok_or(WebAuthnRefusal::AttestationMalformed)?;
    if members.len() != 3 {
        return Err(WebAuthnRefusal::AttestationMalformed);
    }
    let fmt = member(&members, "fmt").and_then(Value::as_text);
    let statement = member(&members, "attStmt").filter(|value| value.is_map());
    let auth_data = member(&members, "authData").and_then(Value::as_bytes);
    let (Some(fmt), Some(statement), Some(auth_data)) = (fmt, statement, auth_data) else {
        return Err(WebAuthnRefusal::AttestationMalformed);
    };
    let format = match fmt {
        "none" => Format::None,
        "packed" => Format::Packed,
        _ => return Err(WebAuthnRefusal::AttestationFormatUnsupported),
    };
    let statement =
        text_keyed_map(statement).ok_or(WebAuthnRefusal::AttestationStatementMalformed)?;
    let self_attestation = match format {
        Format::None if statement.is_empty() => None,
        Format::None => return Err(WebAuthnRefusal::AttestationStatementMalformed),
        Format::Packed => Some(packed_statement(&statement)?),
    };
    let credential = parse_registration_data(auth_data, expected)?;
    if let Some((alg, signature)) = self_attestation {
        if alg != i128::from(credential.public_key.algorithm().cose_algorithm()) {
            return Err(WebAuthnRefusal::AttestationSignatureInvalid);
        }
        let mut signed = auth_data.to_vec();
        signed.extend_from_slice(&Sha256::digest(client_data_json));
        if !credential.public_key.verify(&signed, signature) {
            return Err(WebAuthnRefusal::AttestationSignatureInvalid);
        }
    }
    Ok(Approver {
        credential_id: credential.credential_id,
        public_key: credential.public_key,
        sign_count: credential.sign_count,
    })
}

/// The attestation formats read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// `none`: no statement.
    None,
    /// `packed`, self-attestation only.
    Packed,
}

/// A `packed` statement without a certificate chain: exactly `alg` (integer) and `sig`
/// (bytes).
fn packed_statement<'v>(
    statement: &[(&str, &'v Value)],
) -> Result<(i128, &'v [u8]), WebAuthnRefusal> {
    if member(statement, "x5c").is_some() {
        return Err(WebAuthnRefusal::AttestationCertificateUnsupported);
    }
    let alg = member(statement, "alg")
        .and_then(Value::as_integer)
        .map(i128::from);
    let sig = member(statement, "sig").and_then(Value::as_bytes);
    match (alg, sig, statement.len()) {
        (Some(alg), Some(sig), 2) => Ok((alg, sig.as_slice())),
        _ => Err(WebAuthnRefusal::AttestationStatementMalformed),
    }
}
