//! WebAuthn approvals (spec/webauthn-approval.md): enrolment and assertion accept paths with a
//! negative twin for every rule, the challenge's binding to one pending call, the registry
//! file, and a property that no byte flip in any part of an assertion verifies (negative
//! control: a verifier that skips the signature check is caught).

use ciborium::Value;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_test_support::seeded;
use seal_verify::webauthn::{
    approval_challenge, enrol_challenge, parse_registration, verify_assertion, Approver,
    ApproverAlgorithm, ApproverPublicKey, ApproverRegistry, Expected, RegisteredApprover,
    RegistryErrorKind, WebAuthnRefusal, FLAG_ATTESTED_CREDENTIAL, FLAG_EXTENSIONS,
    FLAG_USER_PRESENT, FLAG_USER_VERIFIED, MAX_APPROVERS, MAX_ATTESTATION_OBJECT_BYTES,
    MAX_AUTHENTICATOR_DATA_BYTES, MAX_CLIENT_DATA_BYTES, MAX_CREDENTIAL_ID_BYTES,
    MAX_SIGNATURE_BYTES,
};
use sha2::{Digest, Sha256};

use crate::webauthn_support::*;

use WebAuthnRefusal as R;

const CRED: &[u8] = b"credential-1";

fn signers() -> [Signer; 2] {
    [Signer::fresh_es256(), Signer::fresh_ed25519()]
}

fn verify(registry: &ApproverRegistry, parts: &Parts) -> Result<u32, WebAuthnRefusal> {
    verify_assertion(registry, &parts.assertion(), &approval_expected()).map(|v| v.sign_count())
}

/// Builds, for each algorithm, an assertion whose client data and authenticator data are what
/// `edit` makes of the honest ones, signed by the enrolled key, and checks the refusal.
fn refused_when_signed(
    stored_count: u32,
    build: impl Fn(&Signer) -> Parts,
    refusal: WebAuthnRefusal,
) {
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, stored_count)]);
        let parts = build(&signer);
        assert_eq!(verify(&registry, &parts), Err(refusal), "{parts:?}");
    }
}

fn get_data(challenge: &[u8; 32], origin: &str, extra: &str) -> Vec<u8> {
    client_data("webauthn.get", challenge, origin, extra)
}

// ---- challenges ----

#[test]
fn the_approval_challenge_is_sha256_of_the_documented_layout() {
    let mut preimage = b"seal-approval-challenge-v1".to_vec();
    for field in [
        &RPC_ID.to_be_bytes()[..],
        SESSION.as_bytes(),
        APPROVAL.as_bytes(),
        &DIGEST,
        &NONCE,
    ] {
        preimage.extend_from_slice(&(field.len() as u64).to_be_bytes());
        preimage.extend_from_slice(field);
    }
    assert_eq!(approval(), <[u8; 32]>::from(Sha256::digest(&preimage)));
    let mut enrol = b"seal-approver-enrol-v1".to_vec();
    enrol.extend_from_slice(&32u64.to_be_bytes());
    enrol.extend_from_slice(&ENROL_NONCE);
    assert_eq!(
        enrol_challenge(&ENROL_NONCE),
        <[u8; 32]>::from(Sha256::digest(&enrol))
    );
}

#[test]
fn length_prefixes_keep_shifted_fields_apart() {
    // Plain concatenation would make these two equal.
    let a = approval_challenge(1, "ab", "c", &DIGEST, &NONCE);
    let b = approval_challenge(1, "a", "bc", &DIGEST, &NONCE);
    assert_ne!(a, b);
    assert_ne!(
        approval_challenge(1, "", "", &[0; 32], &[0; 32]),
        enrol_challenge(&[0; 32])
    );
}

// ---- assertion: accept paths ----

#[test]
fn an_honest_allow_verifies_for_both_algorithms() {
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, 0)]);
        let parts = allow(&signer, CRED, 0);
        let verified =
            verify_assertion(&registry, &parts.assertion(), &approval_expected()).unwrap();
        assert_eq!(verified.credential_id(), CRED);
        assert_eq!(verified.sign_count(), 0);
    }
}

#[test]
fn extra_client_data_members_and_a_flagged_extensions_map_are_accepted() {
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, 0)]);
        let extensions = cbor(&Value::Map(vec![(
            Value::from("credProtect"),
            Value::from(2),
        )]));
        let parts = signed(
            &signer,
            CRED,
            get_data(&approval(), ORIGIN, r#""other_keys_can_be_added_here":"x""#),
            auth_data(RP_ID, FLAGS | FLAG_EXTENSIONS, 3, &extensions),
        );
        assert_eq!(verify(&registry, &parts), Ok(3));
    }
}

#[test]
fn the_right_approver_is_picked_among_several() {
    let [a, b] = signers();
    let registry = registry_of(&[(&a, b"a", 0), (&b, b"b", 0)]);
    assert_eq!(verify(&registry, &allow(&b, b"b", 0)), Ok(0));
    // b's assertion presented under a's credential id: a's key does not verify it.
    let mut swapped = allow(&b, b"b", 0);
    swapped.credential_id = b"a".to_vec();
    assert_eq!(verify(&registry, &swapped), Err(R::SignatureInvalid));
}

// ---- assertion: negative twins, in check order ----

#[test]
fn oversize_parts_are_refused_before_anything_is_read() {
    let signer = Signer::fresh_ed25519();
    let registry = registry_of(&[(&signer, CRED, 0)]);
    let honest = allow(&signer, CRED, 0);
    let mut long_id = honest.clone();
    long_id.credential_id = vec![1; MAX_CREDENTIAL_ID_BYTES + 1];
    assert_eq!(verify(&registry, &long_id), Err(R::CredentialIdLength));
    let mut empty_id = honest.clone();
    empty_id.credential_id.clear();
    assert_eq!(verify(&registry, &empty_id), Err(R::CredentialIdLength));
    let mut big_client = honest.clone();
    big_client.client_data = vec![b' '; MAX_CLIENT_DATA_BYTES + 1];
    assert_eq!(verify(&registry, &big_client), Err(R::ClientDataTooLarge));
    let mut big_data = honest.clone();
    big_data.auth_data = vec![0; MAX_AUTHENTICATOR_DATA_BYTES + 1];
    assert_eq!(
        verify(&registry, &big_data),
        Err(R::AuthenticatorDataTooLarge)
    );
    let mut big_signature = honest.clone();
    big_signature.signature = vec![0; MAX_SIGNATURE_BYTES + 1];
    assert_eq!(verify(&registry, &big_signature), Err(R::SignatureTooLarge));
}

#[test]
fn an_unknown_credential_is_refused() {
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, 0)]);
        let parts = allow(&signer, b"credential-2", 0);
        assert_eq!(verify(&registry, &parts), Err(R::UnknownCredential));
        assert_eq!(
            verify(&ApproverRegistry::new(), &allow(&signer, CRED, 0)),
            Err(R::UnknownCredential)
        );
    }
}

#[test]
fn client_data_that_is_not_strict_json_is_refused() {
    let cases: [&[u8]; 8] = [
        b"",
        b"[]",
        b"{\"type\":\"webauthn.get\"",
        br#"{"type":"webauthn.get","type":"webauthn.get","challenge":"x","origin":"y"}"#,
        br#"{"type":1,"challenge":"x","origin":"y"}"#,
        br#"{"type":"webauthn.get","origin":"y"}"#,
        br#"{"type":"webauthn.get","challenge":"x","origin":"y","crossOrigin":"false"}"#,
        b"{\"type\":\"webauthn.get\",\"challenge\":\"\xff\",\"origin\":\"y\"}",
    ];
    for case in cases {
        refused_when_signed(
            0,
            |signer| signed(signer, CRED, case.to_vec(), auth_data(RP_ID, FLAGS, 0, &[])),
            R::ClientDataMalformed,
        );
    }
    // A repeated challenge member, the second one honest: refused, not last-wins.
    let challenge = seal_verify::base64url::encode(&approval());
    let repeated = format!(
        r#"{{"type":"webauthn.get","challenge":"x","origin":"{ORIGIN}","challenge":"{challenge}"}}"#
    );
    refused_when_signed(
        0,
        |signer| {
            signed(
                signer,
                CRED,
                repeated.clone().into_bytes(),
                auth_data(RP_ID, FLAGS, 0, &[]),
            )
        },
        R::ClientDataMalformed,
    );
}

#[test]
fn the_wrong_ceremony_type_is_refused() {
    for kind in ["webauthn.create", "payment.get", "WEBAUTHN.GET", ""] {
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    client_data(kind, &approval(), ORIGIN, ""),
                    auth_data(RP_ID, FLAGS, 0, &[]),
                )
            },
            R::WrongType,
        );
    }
}

#[test]
fn the_challenge_of_another_pending_call_is_refused() {
    let others = [
        approval_challenge(RPC_ID, SESSION, "approval-2", &DIGEST, &NONCE),
        approval_challenge(RPC_ID, SESSION, APPROVAL, &[0xd2; 32], &NONCE),
        approval_challenge(RPC_ID + 1, SESSION, APPROVAL, &DIGEST, &NONCE),
        approval_challenge(RPC_ID, "session-2", APPROVAL, &DIGEST, &NONCE),
        approval_challenge(RPC_ID, SESSION, APPROVAL, &DIGEST, &[0x5f; 32]),
        enrol_challenge(&NONCE),
    ];
    for other in others {
        assert_ne!(other, approval());
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    get_data(&other, ORIGIN, ""),
                    auth_data(RP_ID, FLAGS, 0, &[]),
                )
            },
            R::ChallengeMismatch,
        );
    }
}

#[test]
fn a_challenge_in_another_spelling_is_refused() {
    let canonical = seal_verify::base64url::encode(&approval());
    let padded = format!("{canonical}=");
    let standard = canonical.replace('-', "+").replace('_', "/");
    let spellings = [
        padded,
        format!("{canonical}A"),
        canonical[1..].to_owned(),
        canonical[..42].to_owned(),
        String::new(),
        standard,
    ];
    for spelling in spellings.iter().filter(|s| **s != canonical) {
        let text =
            format!(r#"{{"type":"webauthn.get","challenge":"{spelling}","origin":"{ORIGIN}"}}"#);
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    text.clone().into_bytes(),
                    auth_data(RP_ID, FLAGS, 0, &[]),
                )
            },
            R::ChallengeMismatch,
        );
    }
}

#[test]
fn another_origin_is_refused() {
    for origin in [
        "https://approve.example.evil",
        "http://approve.example",
        "https://approve.example/",
        "https://APPROVE.example",
        "https://approve.example:443",
        "https://approve.exampl",
        "https://approve",
        "",
        "null",
    ] {
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    get_data(&approval(), origin, ""),
                    auth_data(RP_ID, FLAGS, 0, &[]),
                )
            },
            R::OriginMismatch,
        );
    }
}

#[test]
fn a_cross_origin_ceremony_is_refused() {
    let challenge = seal_verify::base64url::encode(&approval());
    let cross = format!(
        r#"{{"type":"webauthn.get","challenge":"{challenge}","origin":"{ORIGIN}","crossOrigin":true}}"#
    );
    refused_when_signed(
        0,
        |signer| {
            signed(
                signer,
                CRED,
                cross.clone().into_bytes(),
                auth_data(RP_ID, FLAGS, 0, &[]),
            )
        },
        R::CrossOrigin,
    );
    refused_when_signed(
        0,
        |signer| {
            signed(
                signer,
                CRED,
                get_data(&approval(), ORIGIN, r#""topOrigin":"https://evil.example""#),
                auth_data(RP_ID, FLAGS, 0, &[]),
            )
        },
        R::CrossOrigin,
    );
    // Absent is same-origin.
    let absent =
        format!(r#"{{"type":"webauthn.get","challenge":"{challenge}","origin":"{ORIGIN}"}}"#);
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, 0)]);
        let parts = signed(
            &signer,
            CRED,
            absent.clone().into_bytes(),
            auth_data(RP_ID, FLAGS, 0, &[]),
        );
        assert_eq!(verify(&registry, &parts), Ok(0));
    }
}

#[test]
fn truncated_authenticator_data_is_refused() {
    for length in [0, 1, 32, 33, 36] {
        refused_when_signed(
            0,
            |signer| {
                let mut parts = allow(signer, CRED, 0);
                parts.auth_data.truncate(length);
                parts.signed_by(signer)
            },
            R::AuthenticatorDataTruncated,
        );
    }
}

#[test]
fn another_relying_party_is_refused() {
    for rp_id in ["approve.example.evil", "example", "localhost", ""] {
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    get_data(&approval(), ORIGIN, ""),
                    auth_data(rp_id, FLAGS, 0, &[]),
                )
            },
            R::RpIdMismatch,
        );
    }
}

#[test]
fn an_rp_id_hash_differing_only_in_its_last_bit_is_refused() {
    refused_when_signed(
        0,
        |signer| {
            let mut data = auth_data(RP_ID, FLAGS, 0, &[]);
            data[31] ^= 0x01;
            signed(signer, CRED, get_data(&approval(), ORIGIN, ""), data)
        },
        R::RpIdMismatch,
    );
}

#[test]
fn presence_and_verification_flags_are_both_required() {
    let cases = [
        (FLAG_USER_VERIFIED, R::UserNotPresent),
        (0, R::UserNotPresent),
        (FLAG_USER_PRESENT, R::UserNotVerified),
        // Every other flag set, UV alone missing.
        (!FLAG_USER_VERIFIED, R::UserNotVerified),
    ];
    for (flags, refusal) in cases {
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    get_data(&approval(), ORIGIN, ""),
                    auth_data(RP_ID, flags, 0, &[]),
                )
            },
            refusal,
        );
    }
}

#[test]
fn bytes_the_flags_do_not_announce_are_refused() {
    let map = cbor(&Value::Map(vec![]));
    let cases: Vec<(u8, Vec<u8>)> = vec![
        (FLAGS, vec![0]),
        (FLAGS | FLAG_ATTESTED_CREDENTIAL, vec![]),
        (FLAGS | FLAG_EXTENSIONS, vec![]),
        (FLAGS | FLAG_EXTENSIONS, cbor(&Value::from(1))),
        (FLAGS | FLAG_EXTENSIONS, [map.clone(), vec![0]].concat()),
        (FLAGS | FLAG_EXTENSIONS, vec![0xa1]),
        (FLAGS, map),
    ];
    for (flags, rest) in cases {
        refused_when_signed(
            0,
            |signer| {
                signed(
                    signer,
                    CRED,
                    get_data(&approval(), ORIGIN, ""),
                    auth_data(RP_ID, flags, 0, &rest),
                )
            },
            R::AuthenticatorDataMalformed,
        );
    }
}

#[test]
fn a_flipped_bit_in_any_signed_part_is_refused() {
    for signer in signers() {
        let registry = registry_of(&[(&signer, CRED, 0)]);
        // Client data with a member the verifier does not read: a flip there passes every
        // rule but the signature.
        let honest = signed(
            &signer,
            CRED,
            get_data(&approval(), ORIGIN, r#""note":"abcdefgh""#),
            auth_data(RP_ID, FLAGS, 9, &[]),
        );
        assert_eq!(verify(&registry, &honest), Ok(9));
        let mut client = honest.clone();
        let at = client.client_data.len() - 4;
        client.client_data[at] ^= 0x01;
        assert_eq!(verify(&registry, &client), Err(R::SignatureInvalid));
        let mut data = honest.clone();
        data.auth_data[36] ^= 0x01; // signCount's last byte
        assert_eq!(verify(&registry, &data), Err(R::SignatureInvalid));
        for byte in [0, honest.signature.len() / 2, honest.signature.len() - 1] {
            let mut signature = honest.clone();
            signature.signature[byte] ^= 0x80;
            assert_eq!(verify(&registry, &signature), Err(R::SignatureInvalid));
        }
        let mut truncated = honest.clone();
        truncated.signature.pop();
        assert_eq!(verify(&registry, &truncated), Err(R::SignatureInvalid));
        let mut empty = honest.clone();
        empty.signature.clear();
        assert_eq!(verify(&registry, &empty), Err(R::SignatureInvalid));
    }
}

#[test]
fn a_signature_by_another_key_is_refused() {
    for (enrolled, other) in [
        (Signer::fresh_es256(), Signer::fresh_es256()),
        (Signer::fresh_ed25519(), Signer::fresh_ed25519()),
        (Signer::fresh_es256(), Signer::fresh_ed25519()),
        (Signer::fresh_ed25519(), Signer::fresh_es256()),
    ] {
        let registry = registry_of(&[(&enrolled, CRED, 0)]);
        assert_eq!(
            verify(&registry, &allow(&other, CRED, 0)),
            Err(R::SignatureInvalid)
        );
    }
}

#[test]
fn the_sign_count_must_increase_when_either_side_counts() {
    let cases = [
        (0, 0, Ok(0)),
        (0, 1, Ok(1)),
        (5, 6, Ok(6)),
        (5, u32::MAX, Ok(u32::MAX)),
        (5, 5, Err(R::SignCountRegressed)),
        (5, 4, Err(R::SignCountRegressed)),
        (5, 0, Err(R::SignCountRegressed)),
        (u32::MAX, u32::MAX, Err(R::SignCountRegressed)),
    ];
    for signer in signers() {
        for (stored, new, outcome) in cases {
            let registry = registry_of(&[(&signer, CRED, stored)]);
            assert_eq!(
                verify(&registry, &allow(&signer, CRED, new)),
                outcome,
                "{stored} {new}"
            );
        }
    }
}

#[test]
fn a_recorded_count_refuses_the_same_assertion_again() {
    for signer in signers() {
        let mut registry = registry_of(&[(&signer, CRED, 0)]);
        let parts = allow(&signer, CRED, 1);
        let verified =
            verify_assertion(&registry, &parts.assertion(), &approval_expected()).unwrap();
        assert!(registry.record(&verified));
        assert_eq!(registry.get(CRED).unwrap().approver().sign_count, 1);
        assert_eq!(verify(&registry, &parts), Err(R::SignCountRegressed));
        assert_eq!(verify(&registry, &allow(&signer, CRED, 2)), Ok(2));
        // A record never lowers the count, and reports a removed approver.
        let mut higher = registry_of(&[(&signer, CRED, 9)]);
        assert!(higher.record(&verified));
        assert_eq!(higher.get(CRED).unwrap().approver().sign_count, 9);
        higher.remove(CRED).unwrap();
        assert!(!higher.record(&verified));
    }
}

#[test]
fn every_refusal_has_a_distinct_kebab_case_name() {
    let mut names: Vec<&str> = R::ALL.iter().map(|refusal| refusal.name()).collect();
    for name in &names {
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{name}"
        );
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), R::ALL.len());
    assert!(R::SignCountRegressed
        .to_string()
        .ends_with("(sign-count-regressed)"));
}

// ---- the property: no byte flip verifies ----

/// Which part of an assertion a flip lands in.
#[derive(Debug, Clone, Copy)]
enum Part {
    CredentialId,
    ClientData,
    AuthData,
    Signature,
}

type Verifier = fn(&ApproverRegistry, &Parts, &Signer) -> bool;

fn real(registry: &ApproverRegistry, parts: &Parts, _: &Signer) -> bool {
    verify(registry, parts).is_ok()
}

/// The negative control: a verifier that skips the signature check, modelled as the real one
/// given a signature made afresh over whatever bytes it receives (so it accepts exactly when
/// every rule but the signature passes).
fn skips_signature(registry: &ApproverRegistry, parts: &Parts, signer: &Signer) -> bool {
    verify(registry, &parts.clone().signed_by(signer)).is_ok()
}

fn flip_property(verifier: Verifier, runner: &mut TestRunner) -> Result<(), String> {
    let signers = signers();
    let registries: Vec<ApproverRegistry> = signers
        .iter()
        .map(|signer| registry_of(&[(signer, CRED, 4)]))
        .collect();
    let part = prop_oneof![
        Just(Part::CredentialId),
        Just(Part::ClientData),
        Just(Part::AuthData),
        Just(Part::Signature),
    ];
    runner
        .run(
            &(
                0..2usize,
                part,
                any::<prop::sample::Index>(),
                1..=255u8,
                5..40u32,
            ),
            |(which, part, at, mask, count)| {
                let signer = &signers[which];
                let registry = &registries[which];
                let honest = signed(
                    signer,
                    CRED,
                    get_data(&approval(), ORIGIN, r#""note":"free text""#),
                    auth_data(RP_ID, FLAGS, count, &[]),
                );
                prop_assert!(verifier(registry, &honest, signer));
                let mut edited = honest.clone();
                let bytes = match part {
                    Part::CredentialId => &mut edited.credential_id,
                    Part::ClientData => &mut edited.client_data,
                    Part::AuthData => &mut edited.auth_data,
                    Part::Signature => &mut edited.signature,
                };
                let index = at.index(bytes.len());
                bytes[index] ^= mask;
                prop_assert!(
                    !verifier(registry, &edited, signer),
                    "flipped {:?} byte {} by {:#04x}: accepted",
                    part,
                    index,
                    mask
                );
                Ok(())
            },
        )
        .map_err(|error| error.to_string())
}

#[test]
fn no_byte_flip_in_any_part_verifies() {
    flip_property(real, &mut seeded(512)).unwrap();
}

#[test]
fn negative_control_a_verifier_that_skips_the_signature_is_caught() {
    let error = flip_property(skips_signature, &mut seeded(512)).unwrap_err();
    assert!(error.contains("accepted"), "{error}");
}

// ---- enrolment ----

fn enrol(registration: &Registration) -> Result<Approver, WebAuthnRefusal> {
    parse_registration(
        &registration.client_data,
        &registration.attestation,
        &enrol_expected(),
    )
}

/// An enrolment whose authenticator data is `data`, attested as `none`.
fn none_with(client: Vec<u8>, data: &[u8]) -> Registration {
    Registration {
        client_data: client,
        attestation: attestation_object("none", Value::Map(vec![]), data),
    }
}

fn create_data() -> Vec<u8> {
    client_data("webauthn.create", &enrol_expected().challenge, ORIGIN, "")
}

fn with_key(signer: &Signer, flags: u8, cose_key: &[u8]) -> Registration {
    let _ = signer;
    none_with(
        create_data(),
        &auth_data(RP_ID, flags, 0, &attested(CRED, cose_key)),
    )
}

#[test]
fn enrolment_reads_the_credential_for_both_algorithms_and_both_formats() {
    for signer in signers() {
        for registration in [
            registration(&signer, CRED),
            packed_registration(&signer, CRED),
        ] {
            let approver = enrol(&registration).unwrap();
            assert_eq!(approver.credential_id, CRED);
            assert_eq!(approver.public_key, signer.public_key());
            assert_eq!(approver.sign_count, 0);
        }
    }
}

#[test]
fn an_enrolled_credential_then_verifies_an_allow() {
    for signer in signers() {
        let approver = enrol(&registration(&signer, CRED)).unwrap();
        let mut registry = ApproverRegistry::new();
        registry
            .insert(RegisteredApprover::new(approver, "desk key", 1).unwrap())
            .unwrap();
        let reread = ApproverRegistry::parse(registry.to_json().as_bytes()).unwrap();
        assert_eq!(verify(&reread, &allow(&signer, CRED, 0)), Ok(0));
    }
}

#[test]
fn enrolment_client_data_twins_are_refused() {
    let signer = Signer::fresh_es256();
    let honest = registration(&signer, CRED);
    let twins = [
        (
            client_data("webauthn.get", &enrol_expected().challenge, ORIGIN, ""),
            R::WrongType,
        ),
        (
            client_data("webauthn.create", &approval(), ORIGIN, ""),
            R::ChallengeMismatch,
        ),
        (
            client_data("webauthn.create", &enrol_challenge(&[0; 32]), ORIGIN, ""),
            R::ChallengeMismatch,
        ),
        (
            client_data(
                "webauthn.create",
                &enrol_expected().challenge,
                "https://evil.example",
                "",
            ),
            R::OriginMismatch,
        ),
        (
            client_data(
                "webauthn.create",
                &enrol_expected().challenge,
                ORIGIN,
                r#""topOrigin":"https://evil.example""#,
            ),
            R::CrossOrigin,
        ),
        (b"{}".to_vec(), R::ClientDataMalformed),
        (vec![b' '; MAX_CLIENT_DATA_BYTES + 1], R::ClientDataTooLarge),
    ];
    for (client, refusal) in twins {
        let twin = Registration {
            client_data: client,
            attestation: honest.attestation.clone(),
        };
        assert_eq!(enrol(&twin), Err(refusal));
    }
}

#[test]
fn malformed_attestation_objects_are_refused() {
    let signer = Signer::fresh_ed25519();
    let honest = registration(&signer, CRED);
    let data = auth_data(
        RP_ID,
        FLAGS | FLAG_ATTESTED_CREDENTIAL,
        0,
        &attested(CRED, &cbor(&signer.cose_key())),
    );
    let entry = |key: &str, value: Value| (Value::from(key), value);
    let fmt = || entry("fmt", Value::from("none"));
    let statement = || entry("attStmt", Value::Map(vec![]));
    let auth = || entry("authData", Value::Bytes(data.clone()));
    let mut cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0xff],
        honest.attestation[..honest.attestation.len() - 1].to_vec(),
        [honest.attestation.clone(), vec![0]].concat(),
        cbor(&Value::Array(vec![])),
        cbor(&Value::Map(vec![fmt(), statement()])),
        cbor(&Value::Map(vec![
            fmt(),
            statement(),
            auth(),
            entry("extra", Value::Null),
        ])),
        cbor(&Value::Map(vec![fmt(), fmt(), statement(), auth()])),
        cbor(&Value::Map(vec![
            fmt(),
            statement(),
            entry("authData", Value::from("text")),
        ])),
        cbor(&Value::Map(vec![
            entry("fmt", Value::from(1)),
            statement(),
            auth(),
        ])),
        cbor(&Value::Map(vec![
            fmt(),
            entry("attStmt", Value::Array(vec![])),
            auth(),
        ])),
        cbor(&Value::Map(vec![
            (Value::from(1), Value::from(1)),
            statement(),
            auth(),
        ])),
        // A byte string that claims 2^63 bytes: refused, nothing allocated for it.
        [
            vec![0xa1, 0x63],
            b"fmt".to_vec(),
            vec![0x5b, 0x80, 0, 0, 0, 0, 0, 0, 0],
        ]
        .concat(),
        // An array that claims 2^32 items.
        vec![0x9a, 0xff, 0xff, 0xff, 0xff],
    ];
    // Nesting far past the depth limit.
    let mut deep = vec![0x81; 10_000];
    deep.push(0x00);
    cases.push(deep);
    for attestation in cases {
        let twin = Registration {
            client_data: honest.client_data.clone(),
            attestation,
        };
        assert_eq!(
            enrol(&twin),
            Err(R::AttestationMalformed),
            "{:02x?}",
            twin.attestation
        );
    }
    let big = Registration {
        client_data: honest.client_data.clone(),
        attestation: vec![0; MAX_ATTESTATION_OBJECT_BYTES + 1],
    };
    assert_eq!(enrol(&big), Err(R::AttestationTooLarge));
}

#[test]
fn attestation_formats_and_statements_are_checked() {
    let signer = Signer::fresh_es256();
    let honest = packed_registration(&signer, CRED);
    let client = honest.client_data.clone();
    let data = auth_data(
        RP_ID,
        FLAGS | FLAG_ATTESTED_CREDENTIAL,
        0,
        &attested(CRED, &cbor(&signer.cose_key())),
    );
    let mut signed_bytes = data.clone();
    signed_bytes.extend_from_slice(&Sha256::digest(&client));
    let sig = signer.sign(&signed_bytes);
    let member = |key: &str, value: Value| (Value::from(key), value);
    let cases = [
        (
            "fido-u2f",
            Value::Map(vec![]),
            R::AttestationFormatUnsupported,
        ),
        ("tpm", Value::Map(vec![]), R::AttestationFormatUnsupported),
        ("None", Value::Map(vec![]), R::AttestationFormatUnsupported),
        (
            "none",
            Value::Map(vec![member("alg", Value::from(-7))]),
            R::AttestationStatementMalformed,
        ),
        (
            "packed",
            Value::Map(vec![
                member("alg", Value::from(-7)),
                member("sig", Value::Bytes(sig.clone())),
                member("x5c", Value::Array(vec![Value::Bytes(vec![0x30])])),
            ]),
            R::AttestationCertificateUnsupported,
        ),
        (
            "packed",
            Value::Map(vec![member("alg", Value::from(-7))]),
            R::AttestationStatementMalformed,
        ),
        (
            "packed",
            Value::Map(vec![
                member("alg", Value::from(-7)),
                member("sig", Value::from("x")),
            ]),
            R::AttestationStatementMalformed,
        ),
        (
            "packed",
            Value::Map(vec![
                member("alg", Value::from(-7)),
                member("sig", Value::Bytes(sig.clone())),
                member("ecdaaKeyId", Value::Bytes(vec![1])),
            ]),
            R::AttestationStatementMalformed,
        ),
        (
            "packed",
            Value::Map(vec![
                member("alg", Value::from(-8)),
                member("sig", Value::Bytes(sig.clone())),
            ]),
            R::AttestationSignatureInvalid,
        ),
        (
            "packed",
            Value::Map(vec![
                member("alg", Value::from(-7)),
                member(
                    "sig",
                    Value::Bytes({
                        let mut bad = sig.clone();
                        *bad.last_mut().unwrap() ^= 1;
                        bad
                    }),
                ),
            ]),
            R::AttestationSignatureInvalid,
        ),
    ];
    for (fmt, statement, refusal) in cases {
        let twin = Registration {
            client_data: client.clone(),
            attestation: attestation_object(fmt, statement, &data),
        };
        assert_eq!(enrol(&twin), Err(refusal), "{fmt}");
    }
    // The self-attestation signs the client data hash: another client data does not verify.
    let other_client = client_data(
        "webauthn.create",
        &enrol_expected().challenge,
        ORIGIN,
        r#""x":"y""#,
    );
    let twin = Registration {
        client_data: other_client,
        attestation: honest.attestation.clone(),
    };
    assert_eq!(enrol(&twin), Err(R::AttestationSignatureInvalid));
}

#[test]
fn enrolment_authenticator_data_twins_are_refused() {
    let signer = Signer::fresh_es256();
    let key = cbor(&signer.cose_key());
    let at = FLAGS | FLAG_ATTESTED_CREDENTIAL;
    let with = |rp: &str, flags: u8, rest: Vec<u8>| {
        none_with(create_data(), &auth_data(rp, flags, 0, &rest))
    };
    let honest_rest = attested(CRED, &key);
    let mut long_id_rest = vec![0xaa; 16];
    long_id_rest.extend_from_slice(&((MAX_CREDENTIAL_ID_BYTES + 1) as u16).to_be_bytes());
    long_id_rest.extend_from_slice(&vec![7; MAX_CREDENTIAL_ID_BYTES + 1]);
    long_id_rest.extend_from_slice(&key);
    let mut overlong_length = vec![0xaa; 16];
    overlong_length.extend_from_slice(&40u16.to_be_bytes());
    overlong_length.extend_from_slice(&[7; 20]);
    let cases = [
        with(RP_ID, at, honest_rest[..0].to_vec()),
        with("evil.example", at, honest_rest.clone()),
        with(RP_ID, at & !FLAG_USER_PRESENT, honest_rest.clone()),
        with(RP_ID, at & !FLAG_USER_VERIFIED, honest_rest.clone()),
        with(RP_ID, FLAGS, honest_rest.clone()),
        with(RP_ID, at, honest_rest[..17].to_vec()),
        with(RP_ID, at, attested(b"", &key)),
        with(RP_ID, at, long_id_rest),
        with(RP_ID, at, overlong_length),
        with(RP_ID, at, attested(CRED, &[])),
        with(RP_ID, at, [honest_rest.clone(), vec![0]].concat()),
        with(RP_ID, at | FLAG_EXTENSIONS, honest_rest.clone()),
    ];
    let refusals = [
        R::AuthenticatorDataTruncated,
        R::RpIdMismatch,
        R::UserNotPresent,
        R::UserNotVerified,
        R::AttestedCredentialMissing,
        R::AuthenticatorDataTruncated,
        R::CredentialIdLength,
        R::CredentialIdLength,
        R::AuthenticatorDataTruncated,
        R::AuthenticatorDataTruncated,
        R::AuthenticatorDataMalformed,
        R::AuthenticatorDataMalformed,
    ];
    for (index, (case, refusal)) in cases.iter().zip(refusals).enumerate() {
        assert_eq!(enrol(case), Err(refusal), "case {index}");
    }
    // Truncated below the fixed 37 bytes.
    let short = none_with(create_data(), &auth_data(RP_ID, at, 0, &[])[..36]);
    assert_eq!(enrol(&short), Err(R::AuthenticatorDataTruncated));
    // An extensions map after the key, flagged: accepted.
    let extensions = cbor(&Value::Map(vec![(
        Value::from("credProtect"),
        Value::from(2),
    )]));
    let flagged = with(
        RP_ID,
        at | FLAG_EXTENSIONS,
        [honest_rest, extensions].concat(),
    );
    assert_eq!(enrol(&flagged).unwrap().public_key, signer.public_key());
}

#[test]
fn cose_key_twins_are_refused() {
    let es = Signer::fresh_es256();
    let ed = Signer::fresh_ed25519();
    let at = FLAGS | FLAG_ATTESTED_CREDENTIAL;
    let b32 = || Value::Bytes(vec![9; 32]);
    let cases: Vec<(Value, WebAuthnRefusal)> = vec![
        // Unsupported algorithms: RS256, PS256, ES384, and a made-up one.
        (
            cose_map(vec![
                (1, Value::from(3)),
                (3, Value::from(-257)),
                (-1, Value::Bytes(vec![1])),
                (-2, Value::Bytes(vec![1, 0, 1])),
            ]),
            R::UnsupportedAlgorithm,
        ),
        (
            cose_map(vec![(1, Value::from(3)), (3, Value::from(-37))]),
            R::UnsupportedAlgorithm,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-35)),
                (-1, Value::from(2)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::UnsupportedAlgorithm,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(7)),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::UnsupportedAlgorithm,
        ),
        // Malformed shapes.
        (Value::Array(vec![]), R::CoseKeyMalformed),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from("ES256")),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(1)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (-1, Value::from(2)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, Value::Bytes(vec![9; 31])),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
                (-4, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (3, Value::from(-7)),
                (3, Value::from(-7)),
                (-1, Value::from(1)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(2)),
                (1, Value::from(1)),
                (3, Value::from(-8)),
                (-1, Value::from(6)),
                (-2, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(1)),
                (3, Value::from(-8)),
                (-1, Value::from(4)),
                (-2, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(1)),
                (3, Value::from(-8)),
                (-1, Value::from(6)),
                (-2, Value::Bytes(vec![9; 33])),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            cose_map(vec![
                (1, Value::from(1)),
                (3, Value::from(-8)),
                (-1, Value::from(6)),
                (-2, b32()),
                (-3, b32()),
            ]),
            R::CoseKeyMalformed,
        ),
        (
            Value::Map(vec![(Value::from("kty"), Value::from(2))]),
            R::CoseKeyMalformed,
        ),
    ];
    for (index, (key, refusal)) in cases.into_iter().enumerate() {
        let twin = with_key(&es, at, &cbor(&key));
        assert_eq!(enrol(&twin), Err(refusal), "case {index}");
    }
    // The honest keys, with labels in another order: accepted.
    let mut reordered = match ed.cose_key() {
        Value::Map(entries) => entries,
        _ => unreachable!(),
    };
    reordered.reverse();
    let twin = with_key(&ed, at, &cbor(&Value::Map(reordered)));
    assert_eq!(enrol(&twin).unwrap().public_key, ed.public_key());
}

// ---- registry file ----

fn sample_registry() -> (ApproverRegistry, [Signer; 2]) {
    let signers = [Signer::fixed_es256(), Signer::fixed_ed25519()];
    let registry = registry_of(&[(&signers[0], b"zeta", 3), (&signers[1], b"alpha", 0)]);
    (registry, signers)
}

#[test]
fn the_registry_file_round_trips_canonically() {
    let (registry, signers) = sample_registry();
    let text = registry.to_json();
    assert!(
        text.starts_with(
            r#"{"approvers":[{"alg":"ed25519","enrolled_ms":1800000000000,"id":"YWxwaGE""#
        ),
        "{text}"
    );
    let reread = ApproverRegistry::parse(text.as_bytes()).unwrap();
    assert_eq!(reread, registry);
    assert_eq!(reread.to_json(), text);
    // Insertion order does not change the bytes.
    let other = registry_of(&[(&signers[1], b"alpha", 0), (&signers[0], b"zeta", 3)]);
    assert_eq!(other.to_json(), text);
    assert_eq!(registry.len(), 2);
    assert!(!registry.is_empty());
    assert!(ApproverRegistry::new().is_empty());
    assert_eq!(
        ApproverRegistry::new().to_json(),
        r#"{"approvers":[],"version":1}"#
    );
    // Members in any order, with whitespace, read the same.
    let spaced = r#" { "version" : 1 , "approvers" : [ ] } "#;
    assert_eq!(
        ApproverRegistry::parse(spaced.as_bytes()).unwrap(),
        ApproverRegistry::new()
    );
}

fn entry_json(fields: &[(&str, &str)]) -> String {
    let ed = Signer::fixed_ed25519();
    let key = seal_verify::base64url::encode(&ed.public_bytes());
    let mut members = vec![
        ("id".to_owned(), r#""AQID""#.to_owned()),
        ("name".to_owned(), r#""desk key""#.to_owned()),
        ("alg".to_owned(), r#""ed25519""#.to_owned()),
        ("public_key".to_owned(), format!(r#""{key}""#)),
        ("enrolled_ms".to_owned(), "1".to_owned()),
        ("sign_count".to_owned(), "0".to_owned()),
    ];
    for (name, value) in fields {
        match members.iter_mut().find(|(n, _)| n == name) {
            Some(member) if value.is_empty() => member.1.clear(),
            Some(member) => member.1 = (*value).to_owned(),
            None => members.push(((*name).to_owned(), (*value).to_owned())),
        }
    }
    let inner: Vec<String> = members
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!(r#""{name}":{value}"#))
        .collect();
    format!("{{{}}}", inner.join(","))
}

fn document(entries: &[String]) -> String {
    format!(r#"{{"version":1,"approvers":[{}]}}"#, entries.join(","))
}

/// Whether a refusal is of the kind a case expects.
type KindCheck = fn(&RegistryErrorKind) -> bool;

#[test]
fn registry_files_outside_the_format_are_refused() {
    let ok = document(&[entry_json(&[])]);
    assert_eq!(ApproverRegistry::parse(ok.as_bytes()).unwrap().len(), 1);
    let es_key = seal_verify::base64url::encode(&Signer::fixed_es256().public_bytes());
    let mut not_point = Signer::fixed_es256().public_bytes();
    not_point[0] = 0x02;
    let not_point = seal_verify::base64url::encode(&not_point);
    let long_name = format!(r#""{}""#, "n".repeat(65));
    let cases: Vec<(String, KindCheck)> = vec![
        (r#"{"version":2,"approvers":[]}"#.to_owned(), |k| {
            matches!(k, RegistryErrorKind::Version { found: 2 })
        }),
        (
            r#"{"version":1,"approvers":[],"extra":0}"#.to_owned(),
            |k| matches!(k, RegistryErrorKind::Field(_)),
        ),
        (
            r#"{"version":1,"version":1,"approvers":[]}"#.to_owned(),
            |k| matches!(k, RegistryErrorKind::Json(_)),
        ),
        (r#"{"approvers":[]}"#.to_owned(), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (r#"[]"#.to_owned(), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (document(&[entry_json(&[("extra", "1")])]), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (document(&[entry_json(&[("sign_count", "")])]), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (document(&[entry_json(&[("id", r#""AQID=""#)])]), |k| {
            *k == RegistryErrorKind::CredentialId
        }),
        (document(&[entry_json(&[("id", r#""""#)])]), |k| {
            *k == RegistryErrorKind::CredentialId
        }),
        (document(&[entry_json(&[("name", r#""""#)])]), |k| {
            *k == RegistryErrorKind::Name
        }),
        (document(&[entry_json(&[("name", &long_name)])]), |k| {
            *k == RegistryErrorKind::Name
        }),
        (
            document(&[entry_json(&[("name", r#""caf\u00e9""#)])]),
            |k| *k == RegistryErrorKind::Name,
        ),
        (
            document(&[entry_json(&[("name", r#""tab\there""#)])]),
            |k| *k == RegistryErrorKind::Name,
        ),
        (document(&[entry_json(&[("alg", r#""rs256""#)])]), |k| {
            matches!(k, RegistryErrorKind::Algorithm { .. })
        }),
        (document(&[entry_json(&[("alg", r#""ES256""#)])]), |k| {
            matches!(k, RegistryErrorKind::Algorithm { .. })
        }),
        // An es256 entry with an Ed25519-sized key, and a point without the 0x04 prefix.
        (document(&[entry_json(&[("alg", r#""es256""#)])]), |k| {
            *k == RegistryErrorKind::PublicKey
        }),
        (
            document(&[entry_json(&[
                ("alg", r#""es256""#),
                ("public_key", &format!(r#""{not_point}""#)),
            ])]),
            |k| *k == RegistryErrorKind::PublicKey,
        ),
        (
            document(&[entry_json(&[("public_key", &format!(r#""{es_key}""#))])]),
            |k| *k == RegistryErrorKind::PublicKey,
        ),
        (
            document(&[entry_json(&[("sign_count", "4294967296")])]),
            |k| *k == RegistryErrorKind::OutOfRange,
        ),
        (document(&[entry_json(&[("enrolled_ms", "-1")])]), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (document(&[entry_json(&[("enrolled_ms", "1.5")])]), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (
            document(&[entry_json(&[]), entry_json(&[("name", r#""other""#)])]),
            |k| *k == RegistryErrorKind::DuplicateCredential,
        ),
        (document(&vec![entry_json(&[]); MAX_APPROVERS + 1]), |k| {
            matches!(k, RegistryErrorKind::Field(_))
        }),
        (
            " ".repeat(seal_verify::webauthn::MAX_REGISTRY_BYTES + 1),
            |k| matches!(k, RegistryErrorKind::TooLarge { .. }),
        ),
    ];
    for (text, check) in cases {
        let error = ApproverRegistry::parse(text.as_bytes()).unwrap_err();
        assert!(check(&error.kind), "{text}: {error:?}");
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn the_registry_holds_at_most_its_limit_and_refuses_duplicates() {
    let signer = Signer::fixed_ed25519();
    let mut registry = ApproverRegistry::new();
    let approver = |id: usize| Approver {
        credential_id: id.to_be_bytes().to_vec(),
        public_key: signer.public_key(),
        sign_count: 0,
    };
    for id in 0..MAX_APPROVERS {
        registry
            .insert(RegisteredApprover::new(approver(id), "k", 0).unwrap())
            .unwrap();
    }
    let full = registry
        .insert(RegisteredApprover::new(approver(MAX_APPROVERS), "k", 0).unwrap())
        .unwrap_err();
    assert_eq!(full.kind, RegistryErrorKind::TooManyApprovers);
    let twice = registry
        .insert(RegisteredApprover::new(approver(0), "k", 0).unwrap())
        .unwrap_err();
    assert_eq!(twice.kind, RegistryErrorKind::DuplicateCredential);
    assert_eq!(
        ApproverRegistry::parse(registry.to_json().as_bytes()).unwrap(),
        registry
    );
    assert!(registry.remove(&approver(0).credential_id).is_some());
    assert!(registry.remove(&approver(0).credential_id).is_none());
    assert_eq!(registry.len(), MAX_APPROVERS - 1);
    // Names and ids outside the limits never enter.
    for name in ["", "\u{7f}", "é"] {
        assert_eq!(
            RegisteredApprover::new(approver(1), name, 0)
                .unwrap_err()
                .kind,
            RegistryErrorKind::Name
        );
    }
    let mut compressed = [2u8; 65];
    compressed[0] = 0x02;
    let not_uncompressed = Approver {
        public_key: ApproverPublicKey::Es256(compressed),
        ..approver(1)
    };
    assert_eq!(
        RegisteredApprover::new(not_uncompressed, "k", 0)
            .unwrap_err()
            .kind,
        RegistryErrorKind::PublicKey
    );
    let mut no_id = approver(1);
    no_id.credential_id.clear();
    assert_eq!(
        RegisteredApprover::new(no_id, "k", 0).unwrap_err().kind,
        RegistryErrorKind::CredentialId
    );
    assert_eq!(
        RegisteredApprover::new(approver(1), "k", (1 << 53) + 1)
            .unwrap_err()
            .kind,
        RegistryErrorKind::OutOfRange
    );
}

fn arbitrary_registry() -> impl Strategy<Value = ApproverRegistry> {
    let entry = (
        prop::collection::vec(any::<u8>(), 1..40),
        "[ -~]{1,64}",
        any::<bool>(),
        prop::array::uniform32(any::<u8>()),
        0..=(1u64 << 53),
        any::<u32>(),
    );
    prop::collection::vec(entry, 0..8).prop_map(|entries| {
        let mut registry = ApproverRegistry::new();
        for (id, name, es, bytes, enrolled_ms, sign_count) in entries {
            let public_key = if es {
                let mut point = vec![4u8];
                point.extend_from_slice(&bytes);
                point.extend_from_slice(&bytes);
                ApproverPublicKey::from_bytes(ApproverAlgorithm::Es256, &point).unwrap()
            } else {
                ApproverPublicKey::from_bytes(ApproverAlgorithm::Ed25519, &bytes).unwrap()
            };
            let approver = Approver {
                credential_id: id,
                public_key,
                sign_count,
            };
            let _ = registry.insert(RegisteredApprover::new(approver, &name, enrolled_ms).unwrap());
        }
        registry
    })
}

#[test]
fn any_registry_reads_back_from_its_file() {
    seeded(256)
        .run(&arbitrary_registry(), |registry| {
            let text = registry.to_json();
            let reread = ApproverRegistry::parse(text.as_bytes()).unwrap();
            prop_assert_eq!(&reread, &registry);
            prop_assert_eq!(reread.to_json(), text);
            Ok(())
        })
        .unwrap();
}

// ---- a third party's bytes ----

/// W3C Web Authentication Level 3, §16 "Test Vectors", "ES256 Credential with No Attestation"
/// (https://www.w3.org/TR/webauthn-3/#sctn-test-vectors-none-es256): a registration and an
/// assertion made by the specification's generator, not by this code. The vector's flags have
/// UP without UV, which an approval refuses; every rule before UV passes, and its assertion
/// signature verifies under the key seal reads from its attestation object.
mod w3c {
    use super::*;

    pub const RP: &str = "example.org";
    pub const ORIGIN: &str = "https://example.org";
    pub const REGISTRATION_CHALLENGE: &str =
        "00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130";
    pub const REGISTRATION_CLIENT_DATA: &str = "7b2274797065223a22776562617574686e2e637265617465222c226368616c6c656e6765223a22414d4d507434557878475453746e63647134313759447742466938767049612d7077386f4f755657345441222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f726967696e223a66616c73652c22657874726144617461223a22636c69656e74446174614a534f4e206d617920626520657874656e6465642077697468206164646974696f6e616c206669656c647320696e20746865206675747572652c207375636820617320746869733a20426b5165446a646354427258426941774a544c453551227d";
    pub const ATTESTATION_OBJECT: &str = "a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220";
    pub const CREDENTIAL_ID: &str =
        "f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4";
    pub const ASSERTION_CHALLENGE: &str =
        "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408";
    pub const ASSERTION_AUTH_DATA: &str =
        "bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b51900000000";
    pub const ASSERTION_CLIENT_DATA: &str = "7b2274797065223a22776562617574686e2e676574222c226368616c6c656e6765223a224f63446e55685158756c5455506f334a5558543049393770767a7a59425039745a63685879617630314167222c226f726967696e223a2268747470733a2f2f6578616d706c652e6f7267222c2263726f73734f726967696e223a66616c73657d";
    pub const ASSERTION_SIGNATURE: &str = "3046022100f50a4e2e4409249c4a853ba361282f09841df4dd4547a13a87780218deffcd380221008480ac0f0b93538174f575bf11a1dd5d78c6e486013f937295ea13653e331e87";
    /// The credential public key the specification lists: the COSE key's x and y.
    pub const X: &str = "afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61";
    pub const Y: &str = "930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220";

    pub fn bytes(text: &str) -> Vec<u8> {
        hex::decode(text).unwrap()
    }

    pub fn challenge(text: &str) -> [u8; 32] {
        bytes(text).try_into().unwrap()
    }

    pub fn expected(challenge_hex: &str) -> Expected<'static> {
        Expected {
            challenge: challenge(challenge_hex),
            origin: ORIGIN,
            rp_id: RP,
        }
    }
}

#[test]
fn the_w3c_registration_passes_every_rule_before_user_verification() {
    let client = w3c::bytes(w3c::REGISTRATION_CLIENT_DATA);
    let attestation = w3c::bytes(w3c::ATTESTATION_OBJECT);
    assert_eq!(
        parse_registration(
            &client,
            &attestation,
            &w3c::expected(w3c::REGISTRATION_CHALLENGE)
        ),
        Err(R::UserNotVerified)
    );
    // Its twins fail earlier, at their own rule.
    assert_eq!(
        parse_registration(
            &client,
            &attestation,
            &w3c::expected(w3c::ASSERTION_CHALLENGE)
        ),
        Err(R::ChallengeMismatch)
    );
    let other_rp = Expected {
        rp_id: "example.com",
        ..w3c::expected(w3c::REGISTRATION_CHALLENGE)
    };
    assert_eq!(
        parse_registration(&client, &attestation, &other_rp),
        Err(R::RpIdMismatch)
    );
    // With the UV flag set (the byte after the 32-byte rpIdHash in authData, which starts at
    // offset 30 of the object), the same bytes enrol the credential the specification lists.
    let mut verified_flag = attestation.clone();
    let flags_at = 30 + 32;
    assert_eq!(verified_flag[flags_at], 0x59); // UP, BE, BS, AT
    verified_flag[flags_at] |= FLAG_USER_VERIFIED;
    let approver = parse_registration(
        &client,
        &verified_flag,
        &w3c::expected(w3c::REGISTRATION_CHALLENGE),
    )
    .unwrap();
    assert_eq!(approver.credential_id, w3c::bytes(w3c::CREDENTIAL_ID));
    let point = [vec![4], w3c::bytes(w3c::X), w3c::bytes(w3c::Y)].concat();
    assert_eq!(approver.public_key.as_bytes(), point.as_slice());
    assert_eq!(approver.public_key.algorithm(), ApproverAlgorithm::Es256);
}

#[test]
fn the_w3c_assertion_signature_verifies_and_the_assertion_stops_at_user_verification() {
    let point = [vec![4], w3c::bytes(w3c::X), w3c::bytes(w3c::Y)].concat();
    let public_key = ApproverPublicKey::from_bytes(ApproverAlgorithm::Es256, &point).unwrap();
    let auth = w3c::bytes(w3c::ASSERTION_AUTH_DATA);
    let client = w3c::bytes(w3c::ASSERTION_CLIENT_DATA);
    let signature = w3c::bytes(w3c::ASSERTION_SIGNATURE);
    let mut message = auth.clone();
    message.extend_from_slice(&Sha256::digest(&client));
    assert!(public_key.verify(&message, &signature));
    let mut flipped = message.clone();
    flipped[40] ^= 1;
    assert!(!public_key.verify(&flipped, &signature));

    let mut registry = ApproverRegistry::new();
    let approver = Approver {
        credential_id: w3c::bytes(w3c::CREDENTIAL_ID),
        public_key,
        sign_count: 0,
    };
    registry
        .insert(RegisteredApprover::new(approver, "w3c", 0).unwrap())
        .unwrap();
    let credential_id = w3c::bytes(w3c::CREDENTIAL_ID);
    let assertion = seal_verify::webauthn::Assertion {
        credential_id: &credential_id,
        client_data_json: &client,
        authenticator_data: &auth,
        signature: &signature,
    };
    // Flags 0x19: UP, BE, BS, no UV.
    assert_eq!(auth[32], 0x19);
    assert_eq!(
        verify_assertion(
            &registry,
            &assertion,
            &w3c::expected(w3c::ASSERTION_CHALLENGE)
        ),
        Err(R::UserNotVerified)
    );
    assert_eq!(
        verify_assertion(
            &registry,
            &assertion,
            &w3c::expected(w3c::REGISTRATION_CHALLENGE)
        ),
        Err(R::ChallengeMismatch)
    );
}

// ---- hostile bytes reach the CBOR and COSE readers ----

#[test]
fn random_and_mutated_attestation_objects_never_panic() {
    let signer = Signer::fixed_ed25519();
    let honest = registration(&signer, CRED);
    let prefix = auth_data(
        RP_ID,
        FLAGS | FLAG_ATTESTED_CREDENTIAL,
        0,
        &attested(CRED, &[]),
    );
    seeded(1024)
        .run(
            &(
                prop::collection::vec(any::<u8>(), 0..300),
                prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
            ),
            |(noise, edits)| {
                // Noise as the whole object, as the COSE key, and edits of an honest object:
                // each reaches ciborium with the client data rules already passed.
                let _ = parse_registration(&honest.client_data, &noise, &enrol_expected());
                let keyed = attestation_object(
                    "none",
                    Value::Map(vec![]),
                    &[prefix.clone(), noise.clone()].concat(),
                );
                let _ = parse_registration(&honest.client_data, &keyed, &enrol_expected());
                let mut edited = honest.attestation.clone();
                for (at, byte) in &edits {
                    let index = at.index(edited.len());
                    edited[index] = *byte;
                }
                if let Ok(approver) =
                    parse_registration(&honest.client_data, &edited, &enrol_expected())
                {
                    prop_assert!(!approver.credential_id.is_empty());
                    prop_assert!(approver.credential_id.len() <= MAX_CREDENTIAL_ID_BYTES);
                }
                Ok(())
            },
        )
        .unwrap();
}
