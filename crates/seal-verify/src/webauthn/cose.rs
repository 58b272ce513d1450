//! COSE_Key (RFC 9052 §7, RFC 9053) of a credential: ES256 on P-256 or EdDSA on Ed25519.

use ciborium::Value;

use super::cbor::{integer_keyed_map, member};
use super::key::{ApproverAlgorithm, ApproverPublicKey};
use super::refusal::WebAuthnRefusal;

/// COSE key label `kty`.
const LABEL_KTY: i128 = 1;
/// COSE key label `alg`.
const LABEL_ALG: i128 = 3;
/// COSE key label `crv` (EC2 and OKP).
const LABEL_CRV: i128 = -1;
/// COSE key label `x` (EC2 and OKP).
const LABEL_X: i128 = -2;
/// COSE key label `y` (EC2).
const LABEL_Y: i128 = -3;
/// COSE key type EC2.
const KTY_EC2: i128 = 2;
/// COSE key type OKP.
const KTY_OKP: i128 = 1;
/// COSE curve P-256.
const CRV_P256: i128 = 1;
/// COSE curve Ed25519.
const CRV_ED25519: i128 = 6;
/// Bytes of one P-256 coordinate or of an Ed25519 key.
const COORDINATE_BYTES: usize = 32;

/// The public key a COSE_Key describes.
///
/// Order: a map with distinct integer labels (`cose-key-malformed`); `alg` present and an
/// integer (`cose-key-malformed`), -7 or -8 (`unsupported-algorithm`); then exactly the labels
/// of that algorithm with their values: ES256 is `kty` 2, `crv` 1, `x` and `y` of 32 bytes;
/// EdDSA is `kty` 1, `crv` 6, `x` of 32 bytes (`cose-key-malformed`).
pub(super) fn parse_cose_key(value: &Value) -> Result<ApproverPublicKey, WebAuthnRefusal> {
    let members = integer_keyed_map(value).ok_or(WebAuthnRefusal::CoseKeyMalformed)?;
    let alg = member(&members, LABEL_ALG)
        .and_then(integer)
        .ok_or(WebAuthnRefusal::CoseKeyMalformed)?;
    let algorithm = if alg == i128::from(ApproverAlgorithm::Es256.cose_algorithm()) {
        ApproverAlgorithm::Es256
    } else if alg == i128::from(ApproverAlgorithm::Ed25519.cose_algorithm()) {
        ApproverAlgorithm::Ed25519
    } else {
        return Err(WebAuthnRefusal::UnsupportedAlgorithm);
    };
    let (kty, crv, labels): (i128, i128, &[i128]) = match algorithm {
        ApproverAlgorithm::Es256 => (
            KTY_EC2,
            CRV_P256,
            &[LABEL_KTY, LABEL_ALG, LABEL_CRV, LABEL_X, LABEL_Y],
        ),
        ApproverAlgorithm::Ed25519 => (
            KTY_OKP,
            CRV_ED25519,
            &[LABEL_KTY, LABEL_ALG, LABEL_CRV, LABEL_X],
        ),
    };
    let shaped = members.len() == labels.len()
        && members.iter().all(|(label, _)| labels.contains(label))
        && member(&members, LABEL_KTY).and_then(integer) == Some(kty)
        && member(&members, LABEL_CRV).and_then(integer) == Some(crv);
    if !shaped {
        return Err(WebAuthnRefusal::CoseKeyMalformed);
    }
    let coordinate = |label| {
        member(&members, label)
            .and_then(Value::as_bytes)
            .filter(|bytes| bytes.len() == COORDINATE_BYTES)
            .ok_or(WebAuthnRefusal::CoseKeyMalformed)
    };
    let mut key = Vec::with_capacity(algorithm.public_key_bytes());
    if algorithm == ApproverAlgorithm::Es256 {
        key.push(0x04);
        key.extend_from_slice(coordinate(LABEL_X)?);
        key.extend_from_slice(coordinate(LABEL_Y)?);
    } else {
        key.extend_from_slice(coordinate(LABEL_X)?);
    }
    ApproverPublicKey::from_bytes(algorithm, &key).ok_or(WebAuthnRefusal::CoseKeyMalformed)
}

fn integer(value: &Value) -> Option<i128> {
    value.as_integer().map(i128::from)
}
