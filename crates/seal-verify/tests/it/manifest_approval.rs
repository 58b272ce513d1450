//! Signed approval of a disclosure hash: approver key scoped to manifest approval, single-use
//! approval id, not-after time, PAE signing input with its own domain.

use crate::frames_support::{approver, claimed, ed_signer, store, MemoryReplayStore, NOW};
use seal_record::{unpae, LineRange, Manifest, ManifestLimits, Sha256Digest};
use seal_verify::store::{ResolveError, VerifyFailure};
use seal_verify::{
    approval_signing_input, verify_approval, verify_signed_before_spawn, ApprovalCheck,
    ApprovalError, LivePayload, LiveState, SignedApproval, SpawnError, UnixTime, APPROVAL_DOMAIN,
};

fn manifest() -> Manifest {
    Manifest::builder()
        .run_id("run-1")
        .provider("p")
        .model("m")
        .purpose("review")
        .file(
            "a/b.rs",
            Sha256Digest::of(b"file"),
            &[LineRange {
                start: 1,
                end: 2,
                sha256: Sha256Digest::of(b"lines"),
            }],
        )
        .estimated_tokens(10)
        .payload_sha256(Sha256Digest::of(b"payload"))
        .policy_sha256(Sha256Digest::of(b"policy"))
        .build(&ManifestLimits::default())
        .unwrap()
}

const NOT_AFTER: UnixTime = UnixTime(NOW.0 + 600);

fn approve(key_id: &str, approval_id: &str) -> SignedApproval {
    SignedApproval::sign(
        &approver(),
        key_id,
        approval_id,
        NOT_AFTER,
        manifest().disclosure_hash(),
    )
    .unwrap()
}

fn check(
    approval: &SignedApproval,
    now: UnixTime,
    used: &MemoryReplayStore,
) -> Result<String, ApprovalError> {
    let store = store();
    verify_approval(
        approval,
        &ApprovalCheck {
            store: &store,
            now,
            replay: used,
        },
    )
    .map(|approved| approved.approval_id().to_owned())
}

#[test]
fn a_signed_approval_clears_the_spawn_and_names_the_id_to_record() {
    let store = store();
    let manifest = manifest();
    let files = |_: &seal_record::CanonicalPath| Some(Sha256Digest::of(b"file"));
    let live = LiveState {
        policy_sha256: Sha256Digest::of(b"policy"),
        model: "m",
        payload: LivePayload::Bytes(b"payload"),
        files: &files,
    };
    let used = MemoryReplayStore::new();
    let check = ApprovalCheck {
        store: &store,
        now: NOW,
        replay: &used,
    };
    let clearance =
        verify_signed_before_spawn(&manifest, &approve("approver", "appr-1"), &check, &live)
            .unwrap();
    assert_eq!(clearance.approval_id(), Some("appr-1"));
    assert_eq!(clearance.approver_key_id(), Some("approver"));
    assert_eq!(clearance.disclosure_hash(), manifest.disclosure_hash());
    // An approval of another manifest's hash does not clear this one.
    let other = SignedApproval::sign(
        &approver(),
        "approver",
        "appr-2",
        NOT_AFTER,
        Sha256Digest::of(b"x"),
    )
    .unwrap();
    assert!(matches!(
        verify_signed_before_spawn(&manifest, &other, &check, &live),
        Err(SpawnError::NotApproved { .. })
    ));
    // A stale live state still fails after a good approval.
    let stale = LiveState {
        model: "m2",
        ..live
    };
    assert!(matches!(
        verify_signed_before_spawn(&manifest, &approve("approver", "appr-3"), &check, &stale),
        Err(SpawnError::StaleModel { .. })
    ));
    // One approval clears one spawn: the same approval again is refused as reused.
    assert_eq!(
        verify_signed_before_spawn(&manifest, &approve("approver", "appr-1"), &check, &live),
        Err(SpawnError::Approval(ApprovalError::Reused {
            approval_id: "appr-1".to_owned()
        }))
    );
    // A refusal for a stale state does not spend the approval: with the live state fixed,
    // appr-3 clears once.
    assert!(
        verify_signed_before_spawn(&manifest, &approve("approver", "appr-3"), &check, &live)
            .is_ok()
    );
    assert!(
        verify_signed_before_spawn(&manifest, &approve("approver", "appr-3"), &check, &live)
            .is_err()
    );
    // The claims live until the approvals' not-after time.
    let live_claims = used.live(NOW);
    assert_eq!(live_claims.len(), 2);
    assert!(live_claims
        .iter()
        .all(|(kind, name, _, expires)| *kind == "approval"
            && name == "approver"
            && *expires == NOT_AFTER));
}

#[test]
fn an_approval_whose_claim_cannot_be_answered_is_refused() {
    struct Down;
    impl seal_verify::ReplayStore for Down {
        fn claim(
            &self,
            _claim: &seal_verify::Claim<'_>,
        ) -> Result<seal_verify::ClaimOutcome, seal_verify::ClaimError> {
            Err(seal_verify::ClaimError::Unavailable {
                detail: "down".to_owned(),
            })
        }
    }
    let store = store();
    let result = verify_approval(
        &approve("approver", "appr-1"),
        &ApprovalCheck {
            store: &store,
            now: NOW,
            replay: &Down,
        },
    );
    assert!(matches!(result, Err(ApprovalError::ClaimFailed(_))));
}

#[test]
fn wrong_scope_is_refused() {
    // Same Ed25519 key bytes, but the record is scoped to frames only.
    assert_eq!(
        check(
            &approve("approver-noscope", "a1"),
            NOW,
            &MemoryReplayStore::new()
        ),
        Err(ApprovalError::WrongScope)
    );
    // An HMAC frame key never has the approval scope.
    let forged =
        SignedApproval::from_parts("k1", "a1", NOT_AFTER, manifest().disclosure_hash(), "AAAA");
    assert_eq!(
        check(&forged, NOW, &MemoryReplayStore::new()),
        Err(ApprovalError::WrongScope)
    );
    assert!(matches!(
        check(&approve("nobody", "a1"), NOW, &MemoryReplayStore::new()),
        Err(ApprovalError::Key(ResolveError::UnknownKey { .. }))
    ));
}

#[test]
fn a_reused_approval_id_is_refused() {
    let approval = approve("approver", "appr-1");
    let used = claimed(&["appr-1"]);
    assert_eq!(
        check(&approval, NOW, &used),
        Err(ApprovalError::Reused {
            approval_id: "appr-1".to_owned()
        })
    );
    assert_eq!(
        check(&approval, NOW, &MemoryReplayStore::new()),
        Ok("appr-1".to_owned())
    );
}

#[test]
fn an_expired_approval_is_refused_from_the_second_after_not_after() {
    let approval = approve("approver", "appr-1");
    assert!(check(&approval, NOT_AFTER, &MemoryReplayStore::new()).is_ok());
    assert_eq!(
        check(
            &approval,
            UnixTime(NOT_AFTER.0 + 1),
            &MemoryReplayStore::new()
        ),
        Err(ApprovalError::Expired {
            not_after: NOT_AFTER,
            now: UnixTime(NOT_AFTER.0 + 1)
        })
    );
}

#[test]
fn a_bad_signature_is_refused() {
    let good = approve("approver", "appr-1");
    let hash = manifest().disclosure_hash();
    let mut twins = vec![
        // Another signer.
        SignedApproval::sign(&ed_signer(), "approver", "appr-1", NOT_AFTER, hash).unwrap(),
        // Each signed field changed after signing.
        SignedApproval::from_parts("approver", "appr-2", NOT_AFTER, hash, good.signature()),
        SignedApproval::from_parts(
            "approver",
            "appr-1",
            UnixTime(NOT_AFTER.0 + 1),
            hash,
            good.signature(),
        ),
        SignedApproval::from_parts(
            "approver",
            "appr-1",
            NOT_AFTER,
            Sha256Digest::of(b"other"),
            good.signature(),
        ),
        // Truncated signature.
        SignedApproval::from_parts(
            "approver",
            "appr-1",
            NOT_AFTER,
            hash,
            &good.signature()[1..],
        ),
    ];
    // One-bit flips of the signature text.
    for at in 0..good.signature().len() {
        let mut bytes = good.signature().as_bytes().to_vec();
        bytes[at] ^= 1;
        if let Ok(text) = String::from_utf8(bytes) {
            twins.push(SignedApproval::from_parts(
                "approver", "appr-1", NOT_AFTER, hash, &text,
            ));
        }
    }
    for twin in &twins {
        assert!(
            matches!(
                check(twin, NOW, &MemoryReplayStore::new()),
                Err(ApprovalError::BadSignature(VerifyFailure::Signature(_)))
            ),
            "{twin:?}"
        );
    }
    assert!(check(&good, NOW, &MemoryReplayStore::new()).is_ok());
}

#[test]
fn the_signing_input_is_pae_with_its_own_domain() {
    let hash = Sha256Digest::of(b"h");
    let input = approval_signing_input("approver", "appr-1", UnixTime(7), &hash);
    let pieces = unpae(input.bytes()).unwrap();
    assert_eq!(pieces.len(), 5);
    assert_eq!(pieces[0], APPROVAL_DOMAIN.as_bytes());
    assert_eq!(pieces[1], b"approver");
    assert_eq!(pieces[2], b"appr-1");
    assert_eq!(pieces[3], 7u64.to_le_bytes());
    assert_eq!(pieces[4], hash.as_bytes());
    assert_eq!(input.domain(), "seal/manifest-approval/v1");
    assert!(matches!(
        SignedApproval::sign(&approver(), "approver", "bad id", NOT_AFTER, hash),
        Err(ApprovalError::InvalidApprovalId { .. })
    ));
}
