//! Property checks behind the WebAuthn fuzz targets (`webauthn_registration`,
//! `webauthn_assertion`, `webauthn_registry`), also replayed over their corpora by the ordinary
//! tests. Each returns `Err` naming the property an input violates; none panics on any input.
//!
//! The fixed inputs are those of spec/vectors/webauthn-approval.json, so its cases seed the
//! corpora: origin `https://approve.example`, RP ID `approve.example`, the enrolment challenge
//! of nonce `[0xe0; 32]`, the approval challenge of rpc id 7, `session-1`, `approval-1`,
//! digest `[0xd1; 32]` and nonce `[0x5e; 32]`, and a registry of the vectors' two keys.

use ring::signature::{Ed25519KeyPair, KeyPair};
use sha2::{Digest, Sha256};

use super::{
    approval_challenge, enrol_challenge, parse_registration, verify_assertion, Approver,
    ApproverAlgorithm, ApproverPublicKey, ApproverRegistry, Assertion, Expected,
    RegisteredApprover, FLAG_USER_PRESENT, FLAG_USER_VERIFIED, MAX_APPROVERS,
    MAX_CREDENTIAL_ID_BYTES,
};

/// The origin of the fuzz checks.
pub const FUZZ_ORIGIN: &str = "https://approve.example";
/// The RP ID of the fuzz checks.
pub const FUZZ_RP_ID: &str = "approve.example";
/// Credential id of the ES256 approver of the fuzz registry (stored sign count 0).
pub const FUZZ_ES256_ID: &[u8] = b"es256-credential";
/// Credential id of the Ed25519 approver of the fuzz registry (stored sign count 5).
pub const FUZZ_ED25519_ID: &[u8] = b"ed25519-credential";
/// The Ed25519 approver's seed (its public key is derived).
pub const FUZZ_ED25519_SEED: [u8; 32] = [0x2a; 32];
/// The ES256 approver's public key: the point of the vectors' fixed PKCS#8.
pub const FUZZ_ES256_POINT: [u8; 65] = [
    0x04, 0x5f, 0xea, 0x38, 0x10, 0xf4, 0x66, 0x32, 0x42, 0x40, 0xd6, 0xd0, 0x1c, 0x35, 0x9f, 0xff,
    0xa9, 0x98, 0xaa, 0xea, 0x16, 0x2b, 0xde, 0x9a, 0xd3, 0x2d, 0xc0, 0x98, 0x5a, 0x60, 0xdc, 0x98,
    0xcd, 0x76, 0xf0, 0x5a, 0x63, 0xf9, 0x69, 0x7f, 0xf0, 0x38, 0x77, 0x1e, 0xef, 0xbc, 0xaa, 0x56,
    0xa3, 0xec, 0xe2, 0x2b, 0xd9, 0x04, 0x96, 0x2d, 0x54, 0xf6, 0xed, 0x44, 0x7e, 0xe7, 0x6b, 0x54,
    0x71,
];

/// Splits `data` into `N` parts, each but the last preceded by its length (u16 big-endian);
/// the last part is the rest. Missing bytes make empty parts. Inverse of [`join_parts`].
pub fn split_parts<const N: usize>(data: &[u8]) -> [&[u8]; N] {
    let mut parts = [&[][..]; N];
    let mut rest = data;
    let last = N.saturating_sub(1);
    for (index, part) in parts.iter_mut().enumerate() {
        if index == last {
            *part = rest;
            break;
        }
        let (length, tail) = match rest.split_first_chunk::<2>() {
            Some((length, tail)) => (usize::from(u16::from_be_bytes(*length)), tail),
            None => (0, &[][..]),
        };
        let (head, tail) = tail.split_at(length.min(tail.len()));
        *part = head;
        rest = tail;
    }
    parts
}

/// The bytes [`split_parts`] splits back into `parts` (each but the last at most 65535 bytes).
pub fn join_parts(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    let last = parts.len().saturating_sub(1);
    for (index, part) in parts.iter().enumerate() {
        if index != last {
            let length = u16::try_from(part.len()).unwrap_or(u16::MAX);
            out.extend_from_slice(&length.to_be_bytes());
            out.extend_from_slice(part.get(..usize::from(length)).unwrap_or(part));
        } else {
            out.extend_from_slice(part);
        }
    }
    out
}

/// The fuzz registry: the vectors' ES256 key (count 0) and Ed25519 key (count 5).
pub fn fuzz_registry() -> Result<ApproverRegistry, String> {
    let pair = Ed25519KeyPair::from_seed_unchecked(&FUZZ_ED25519_SEED)
        .map_err(|_| "the fixed seed is refused".to_owned())?;
    let keys = [
        (
            FUZZ_ES256_ID,
            ApproverPublicKey::from_bytes(ApproverAlgorithm::Es256, &FUZZ_ES256_POINT),
            0,
        ),
        (
            FUZZ_ED25519_ID,
            ApproverPublicKey::from_bytes(ApproverAlgorithm::Ed25519, pair.public_key().as_ref()),
            5,
        ),
    ];
    let mut registry = ApproverRegistry::new();
    for (id, key, sign_count) in keys {
        let public_key = key.ok_or("a fixed key is refused")?;
        let approver = Approver {
            credential_id: id.to_vec(),
            public_key,
            sign_count,
        };
        let entry = RegisteredApprover::new(approver, "fuzz", 0).map_err(|e| e.to_string())?;
        registry.insert(entry).map_err(|e| e.to_string())?;
    }
    Ok(registry)
}

/// Splits `data` into clientDataJSON and attestation object ([`split_parts`]) and reads them as
/// an enrolment, and checks: no panic; an accepted credential id is 1 to 1023 bytes, the key is
/// one the registry file accepts, and the approver survives the registry file's round trip.
pub fn webauthn_registration(data: &[u8]) -> Result<(), String> {
    let [client, attestation] = split_parts::<2>(data);
    let expected = Expected {
        challenge: enrol_challenge(&[0xe0; 32]),
        origin: FUZZ_ORIGIN,
        rp_id: FUZZ_RP_ID,
    };
    let Ok(approver) = parse_registration(client, attestation, &expected) else {
        return Ok(());
    };
    let id_length = approver.credential_id.len();
    if id_length == 0 || id_length > MAX_CREDENTIAL_ID_BYTES {
        return Err(format!("accepted a credential id of {id_length} bytes"));
    }
    let entry = RegisteredApprover::new(approver, "fuzz", 0)
        .map_err(|error| format!("an accepted approver does not enter a registry: {error}"))?;
    let mut registry = ApproverRegistry::new();
    registry.insert(entry).map_err(|error| error.to_string())?;
    round_trip(&registry)
}

/// Splits `data` into credential id, clientDataJSON, authenticator data and signature
/// ([`split_parts`]) and verifies them against the fuzz registry, and checks: no panic; the
/// same answer twice; an accepted assertion names an enrolled credential, reports the
/// authenticator data's signCount, has the RP ID's hash, UP and UV, and its signature verifies
/// over `authenticatorData || SHA-256(clientDataJSON)` with the enrolled key.
pub fn webauthn_assertion(data: &[u8]) -> Result<(), String> {
    let [credential_id, client, auth, signature] = split_parts::<4>(data);
    let registry = fuzz_registry()?;
    let expected = Expected {
        challenge: approval_challenge(7, "session-1", "approval-1", &[0xd1; 32], &[0x5e; 32]),
        origin: FUZZ_ORIGIN,
        rp_id: FUZZ_RP_ID,
    };
    let assertion = Assertion {
        credential_id,
        client_data_json: client,
        authenticator_data: auth,
        signature,
    };
    let result = verify_assertion(&registry, &assertion, &expected);
    if verify_assertion(&registry, &assertion, &expected) != result {
        return Err("two verifications of one assertion disagree".to_owned());
    }
    let Ok(verified) = result else {
        return Ok(());
    };
    let enrolled = registry
        .get(verified.credential_id())
        .ok_or("verified a credential that is not enrolled")?;
    let count = auth
        .get(33..37)
        .and_then(|bytes| <[u8; 4]>::try_from(bytes).ok())
        .map(u32::from_be_bytes);
    if count != Some(verified.sign_count()) {
        return Err("the verified sign count is not the authenticator data's".to_owned());
    }
    let rp_hash: [u8; 32] = Sha256::digest(FUZZ_RP_ID.as_bytes()).into();
    if auth.get(..32) != Some(&rp_hash[..]) {
        return Err("verified authenticator data of another RP ID".to_owned());
    }
    let flags = auth.get(32).copied().unwrap_or(0);
    if flags & (FLAG_USER_PRESENT | FLAG_USER_VERIFIED) != FLAG_USER_PRESENT | FLAG_USER_VERIFIED {
        return Err("verified authenticator data without UP and UV".to_owned());
    }
    let mut message = auth.to_vec();
    message.extend_from_slice(&Sha256::digest(client));
    if !enrolled.approver().public_key.verify(&message, signature) {
        return Err("verified a signature the enrolled key does not verify".to_owned());
    }
    Ok(())
}

/// Parses `data` as a registry file and checks: an accepted registry holds at most 64
/// approvers, its file parses back to the same registry, and writing that again gives the same
/// bytes.
pub fn webauthn_registry(data: &[u8]) -> Result<(), String> {
    let Ok(registry) = ApproverRegistry::parse(data) else {
        return Ok(());
    };
    if registry.len() > MAX_APPROVERS {
        return Err(format!("accepted {} approvers", registry.len()));
    }
    round_trip(&registry)
}

fn round_trip(registry: &ApproverRegistry) -> Result<(), String> {
    let text = registry.to_json();
    let again = ApproverRegistry::parse(text.as_bytes())
        .map_err(|error| format!("the registry file does not parse back: {error}"))?;
    if &again != registry {
        return Err("the registry file parses back to another registry".to_owned());
    }
    if again.to_json() != text {
        return Err("the registry file is not stable".to_owned());
    }
    Ok(())
}
