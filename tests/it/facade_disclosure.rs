//! Disclosure through the facade: a sealed manifest, its summary, and verification before
//! spawn with a distinct error for each stale item.

use std::collections::BTreeMap;

use seal::{
    ApprovalContext, ApproverKey, LivePayload, LiveState, Manifest, ManifestError,
    MemoryReplayStore, Seal, Sha256Digest, SignedApproval, SpawnError, StaleItem, TrustStore,
    UnixTime,
};

struct Fixture {
    files: BTreeMap<String, String>,
    policy: Sha256Digest,
    manifest: Manifest,
}

fn fixture() -> Fixture {
    let seal = Seal::builder()
        .rules_json(r#"{"permissions": {"allow": ["Read"]}}"#)
        .build()
        .unwrap();
    let mut files = BTreeMap::new();
    files.insert(
        "src/lib.rs".to_owned(),
        "line one\nline two\nline three\n".to_owned(),
    );
    files.insert("./README.md".to_owned(), "# readme\n".to_owned());
    let manifest = Manifest::builder()
        .run_id("run-1")
        .provider("example")
        .model("model-1")
        .purpose("review the parser")
        .file_contents(
            "src/lib.rs",
            files["src/lib.rs"].as_bytes(),
            &[(1, 2), (3, 3)],
        )
        .file_contents("README.md", files["./README.md"].as_bytes(), &[(1, 1)])
        .redaction("api-key", 2)
        .external_tool("web-search")
        .estimated_tokens(1200)
        .payload(b"the prompt")
        .policy_sha256(seal.policy_digest())
        .build()
        .unwrap();
    Fixture {
        files,
        policy: seal.policy_digest(),
        manifest,
    }
}

fn check(
    fixture: &Fixture,
    files: &BTreeMap<String, String>,
    model: &str,
    payload: &[u8],
    policy: Sha256Digest,
) -> Result<(), SpawnError> {
    let approved = fixture.manifest.disclosure_hash();
    let live = LiveState {
        policy_sha256: policy,
        model,
        payload: LivePayload::Bytes(payload),
        files,
    };
    fixture
        .manifest
        .verify_before_spawn(&approved, &live)
        .map(|clearance| {
            assert_eq!(clearance.disclosure_hash(), approved);
        })
}

#[test]
fn an_unchanged_run_may_spawn() {
    let fixture = fixture();
    check(
        &fixture,
        &fixture.files,
        "model-1",
        b"the prompt",
        fixture.policy,
    )
    .unwrap();
}

#[test]
fn each_stale_item_is_its_own_error() {
    let fixture = fixture();
    let files = &fixture.files;
    assert!(matches!(
        check(
            &fixture,
            files,
            "model-1",
            b"the prompt",
            Sha256Digest::of(b"other rules")
        ),
        Err(SpawnError::StalePolicy { .. })
    ));
    assert!(matches!(
        check(&fixture, files, "model-2", b"the prompt", fixture.policy),
        Err(SpawnError::StaleModel { ref live, .. }) if live == "model-2"
    ));
    assert!(matches!(
        check(&fixture, files, "model-1", b"the prompt!", fixture.policy),
        Err(SpawnError::StaleManifest {
            item: StaleItem::Payload
        })
    ));
    // One byte of one file changes.
    let mut changed = files.clone();
    changed.insert(
        "src/lib.rs".to_owned(),
        "line one\nline twO\nline three\n".to_owned(),
    );
    assert!(matches!(
        check(&fixture, &changed, "model-1", b"the prompt", fixture.policy),
        Err(SpawnError::StaleManifest { item: StaleItem::File { ref path } }) if path.as_str() == "src/lib.rs"
    ));
    let mut missing = files.clone();
    missing.remove("./README.md");
    assert!(matches!(
        check(&fixture, &missing, "model-1", b"the prompt", fixture.policy),
        Err(SpawnError::StaleManifest { item: StaleItem::MissingFile { ref path } }) if path.as_str() == "README.md"
    ));
    // A different manifest than the approved one.
    let other = Manifest::from_json(&fixture.manifest.to_json().replace("run-1", "run-2")).unwrap();
    let live = LiveState {
        policy_sha256: fixture.policy,
        model: "model-1",
        payload: LivePayload::Bytes(b"the prompt"),
        files,
    };
    assert!(matches!(
        other.verify_before_spawn(&fixture.manifest.disclosure_hash(), &live),
        Err(SpawnError::NotApproved { .. })
    ));
    for (error, says) in [
        (
            SpawnError::StaleManifest {
                item: StaleItem::Payload,
            },
            "payload changed since approval",
        ),
        (
            SpawnError::StaleManifest {
                item: StaleItem::File {
                    path: seal::canonical_path("a").unwrap(),
                },
            },
            "file `a` changed since approval",
        ),
    ] {
        assert_eq!(error.to_string(), says);
    }
}

#[test]
fn the_policy_digest_follows_the_rules() {
    let a = Seal::builder()
        .rules_json(r#"{"permissions": {"allow": ["Read"]}}"#)
        .build()
        .unwrap();
    let same = Seal::builder()
        .rules_json(r#"{ "permissions" : { "allow" : [ "Read" ] } }"#)
        .build()
        .unwrap();
    let other = Seal::builder()
        .rules_json(r#"{"permissions": {"allow": ["Write"]}}"#)
        .build()
        .unwrap();
    assert_eq!(a.policy_digest(), same.policy_digest());
    assert_ne!(a.policy_digest(), other.policy_digest());
}

#[test]
fn the_summary_is_ascii_and_names_every_item() {
    let fixture = fixture();
    let summary = fixture.manifest.summary();
    assert!(summary.is_ascii());
    for needle in [
        fixture.manifest.disclosure_hash().to_hex().as_str(),
        "src/lib.rs lines 1-2,3-3",
        "README.md lines 1-1",
        "api-key x2",
        "web-search",
        "1200",
    ] {
        assert!(summary.contains(needle), "{needle} in\n{summary}");
    }
    // Text that could mislead the reader never gets into a manifest.
    let hostile = Manifest::builder()
        .run_id("run-1")
        .provider("example")
        .model("model-1")
        .purpose("review \u{202e}txt.exe")
        .payload(b"")
        .policy_sha256(Sha256Digest::of(b""))
        .build();
    assert!(
        matches!(hostile, Err(ManifestError::ForbiddenCharacter { .. })),
        "{hostile:?}"
    );
}

#[test]
fn the_json_form_round_trips_and_the_builder_checks_ranges() {
    let fixture = fixture();
    let again = Manifest::from_json(&fixture.manifest.to_json()).unwrap();
    assert_eq!(again, fixture.manifest);
    assert_eq!(again.fields().run_id(), "run-1");
    assert_eq!(again.fields().model(), "model-1");
    let error = Manifest::builder()
        .file_contents("a.txt", b"one\ntwo\n", &[(2, 3)])
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        ManifestError::LineRange {
            path: "a.txt".into(),
            start: 2,
            end: 3,
            lines: 2
        }
    );
    assert!(matches!(
        Manifest::builder().run_id("run-1").build(),
        Err(ManifestError::MissingField { .. })
    ));
    assert!(Manifest::from_json("{}").is_err());
}

#[test]
fn a_signed_approval_is_checked_before_spawn() {
    let fixture = fixture();
    let alice = ApproverKey::from_seed(&[5; 32]).unwrap();
    let mallory = ApproverKey::from_seed(&[6; 32]).unwrap();
    let mut store = TrustStore::new(UnixTime(2_000_000_000));
    store
        .add_approver_key("alice", &alice, UnixTime(0), UnixTime(2_000_000_000))
        .unwrap();
    let now = UnixTime(1_800_000_000);
    let live = LiveState {
        policy_sha256: fixture.policy,
        model: "model-1",
        payload: LivePayload::Bytes(b"the prompt"),
        files: &fixture.files,
    };
    let used = MemoryReplayStore::new();
    let approval = alice
        .sign_approval(
            "alice",
            "approval-1",
            UnixTime(now.0 + 60),
            fixture.manifest.disclosure_hash(),
        )
        .unwrap();
    assert_eq!(
        approval.disclosure_hash(),
        fixture.manifest.disclosure_hash()
    );
    let context = ApprovalContext {
        store: &store,
        now,
        replay: &used,
    };
    let clearance = fixture
        .manifest
        .verify_approved_before_spawn(&approval, &context, &live)
        .unwrap();
    assert_eq!(clearance.approver_key_id(), Some("alice"));
    assert_eq!(clearance.approval_id(), Some("approval-1"));
    // The clearance claimed approval-1: the same approval again is refused.

    let refused = |approval: &SignedApproval, now: UnixTime, used: &MemoryReplayStore| {
        let context = ApprovalContext {
            store: &store,
            now,
            replay: used,
        };
        fixture
            .manifest
            .verify_approved_before_spawn(approval, &context, &live)
            .unwrap_err()
    };
    // Reused, expired, unknown approver, forged signature.
    assert!(matches!(
        refused(&approval, now, &used),
        SpawnError::Approval(_)
    ));
    assert!(matches!(
        refused(&approval, UnixTime(now.0 + 61), &MemoryReplayStore::new()),
        SpawnError::Approval(_)
    ));
    let by_mallory = mallory
        .sign_approval(
            "alice",
            "approval-2",
            UnixTime(now.0 + 60),
            fixture.manifest.disclosure_hash(),
        )
        .unwrap();
    assert!(matches!(
        refused(&by_mallory, now, &MemoryReplayStore::new()),
        SpawnError::Approval(_)
    ));
    let unknown = mallory
        .sign_approval(
            "mallory",
            "approval-3",
            UnixTime(now.0 + 60),
            fixture.manifest.disclosure_hash(),
        )
        .unwrap();
    assert!(matches!(
        refused(&unknown, now, &MemoryReplayStore::new()),
        SpawnError::Approval(_)
    ));
    let forged = SignedApproval::from_parts(
        "alice",
        "approval-4",
        UnixTime(now.0 + 60),
        fixture.manifest.disclosure_hash(),
        by_mallory.signature(),
    );
    assert!(matches!(
        refused(&forged, now, &MemoryReplayStore::new()),
        SpawnError::Approval(_)
    ));
    // An approval of another manifest does not clear this one.
    let other = Manifest::from_json(&fixture.manifest.to_json().replace("run-1", "run-2")).unwrap();
    let elsewhere = alice
        .sign_approval(
            "alice",
            "approval-5",
            UnixTime(now.0 + 60),
            other.disclosure_hash(),
        )
        .unwrap();
    assert!(matches!(
        refused(&elsewhere, now, &MemoryReplayStore::new()),
        SpawnError::NotApproved { .. }
    ));
    // A stale file still refuses with a valid approval.
    let mut changed = fixture.files.clone();
    changed.insert("src/lib.rs".to_owned(), "changed\n".to_owned());
    let live = LiveState {
        files: &changed,
        ..live
    };
    let context = ApprovalContext {
        store: &store,
        now,
        replay: &MemoryReplayStore::new(),
    };
    let fresh = alice
        .sign_approval(
            "alice",
            "approval-6",
            UnixTime(now.0 + 60),
            fixture.manifest.disclosure_hash(),
        )
        .unwrap();
    assert!(matches!(
        fixture
            .manifest
            .verify_approved_before_spawn(&fresh, &context, &live),
        Err(SpawnError::StaleManifest {
            item: StaleItem::File { .. }
        })
    ));
    assert!(alice
        .sign_approval("alice", "bad id!", now, fixture.manifest.disclosure_hash())
        .is_err());
}
