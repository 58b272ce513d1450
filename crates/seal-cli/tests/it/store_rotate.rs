//! `seal store sign` and `seal store rotate` end to end: the next version signed by the current
//! root rotates in place; a rollback, a skipped version, an expired offer and a takeover signed
//! only by a new root are each refused with exit 4 and leave the pinned store as it was; the
//! rotated store is the one the prompt hook then verifies with.

use crate::support::{self, fixture, prompt_hook, seal, TempDir, NOW, SIGNED_FRAME};
use serde_json::{json, Value};

/// The fixture store's document (version 1, root `test-root`).
fn fixture_document() -> Value {
    let envelope: Value =
        serde_json::from_slice(&std::fs::read(fixture("store.json")).unwrap()).unwrap();
    envelope["document"].clone()
}

/// Writes `document` to `dir` and returns the envelope `seal store sign` made with `key_ids`
/// of `keys`, or the failed run.
fn signed(dir: &TempDir, name: &str, document: &Value, keys: &str, key_ids: &[&str]) -> String {
    signed_from(dir, name, document, keys, key_ids, None)
}

/// As [`signed`], with `--current` naming the store the document rotates from.
fn signed_from(
    dir: &TempDir,
    name: &str,
    document: &Value,
    keys: &str,
    key_ids: &[&str],
    current: Option<&str>,
) -> String {
    let document_path = dir.file(&format!("{name}.document.json"));
    std::fs::write(&document_path, serde_json::to_vec(document).unwrap()).unwrap();
    let out = dir.file(&format!("{name}.json"));
    let mut args = vec![
        "store",
        "sign",
        "--document",
        &document_path,
        "--keys",
        keys,
        "--out",
        &out,
    ];
    for id in key_ids {
        args.extend(["--key-id", id]);
    }
    if let Some(current) = current {
        args.extend(["--current", current]);
    }
    let run = seal(&args, b"", &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    out
}

fn rotate(store: &str, next: &str, check: bool) -> support::Run {
    let mut args = vec![
        "store", "rotate", "--store", store, "--next", next, "--now", NOW,
    ];
    if check {
        args.push("--check");
    }
    seal(&args, b"", &[])
}

/// A copy of the fixture store to rotate.
fn pinned(dir: &TempDir) -> String {
    let path = dir.file("store.json");
    std::fs::copy(fixture("store.json"), &path).unwrap();
    path
}

fn with_version(version: u64) -> Value {
    let mut document = fixture_document();
    document["version"] = json!(version);
    document
}

#[test]
fn the_next_version_signed_by_the_current_root_rotates_in_place() {
    let dir = TempDir::new("rotate-ok");
    let store = pinned(&dir);
    let keys = fixture("keys.json");
    let next = signed(&dir, "v2", &with_version(2), &keys, &["test-root"]);

    let checked = rotate(&store, &next, true);
    assert_eq!(checked.code, 0, "{}", checked.snapshot());
    assert!(checked
        .stdout
        .contains("may rotate from version 1 to version 2"));
    assert_eq!(
        std::fs::read(&store).unwrap(),
        std::fs::read(fixture("store.json")).unwrap(),
        "--check leaves the pinned store as it was"
    );

    let rotated = rotate(&store, &next, false);
    assert_eq!(rotated.code, 0, "{}", rotated.snapshot());
    assert!(rotated
        .stdout
        .contains("rotated from version 1 to version 2"));
    assert_eq!(
        std::fs::read(&store).unwrap(),
        std::fs::read(&next).unwrap()
    );

    // The prompt hook verifies with the rotated store.
    let state = dir.file("replay.sqlite3");
    let answer = prompt_hook(&store, &keys, &state, &[], SIGNED_FRAME);
    assert!(
        answer.stdout.contains("\"additionalContext\":\"\""),
        "{}",
        answer.snapshot()
    );

    // Rotating to the same version again is a rollback.
    let again = rotate(&store, &next, false);
    assert_eq!(again.code, 4, "{}", again.snapshot());
    assert!(again.stderr.contains("is not above the current version 2"));
}

#[test]
fn refused_rotations_exit_4_and_leave_the_pinned_store() {
    let dir = TempDir::new("rotate-refused");
    let keys = fixture("keys.json");

    // A fresh root from `seal keygen`, merged into one key file with the fixture's keys.
    let generated_store = dir.file("generated-store.json");
    let generated_keys = dir.file("generated-keys.json");
    let made = seal(
        &[
            "keygen",
            "--store",
            &generated_store,
            "--keys",
            &generated_keys,
            "--root-key-id",
            "root-2",
            "--now",
            NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let generated: Value =
        serde_json::from_slice(&std::fs::read(&generated_store).unwrap()).unwrap();
    let new_root = generated["document"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|key| key["id"] == "root-2")
        .unwrap()
        .clone();
    let mut all_keys: Value = serde_json::from_slice(&std::fs::read(&keys).unwrap()).unwrap();
    let generated_secrets: Value =
        serde_json::from_slice(&std::fs::read(&generated_keys).unwrap()).unwrap();
    for key in generated_secrets["keys"].as_array().unwrap() {
        if key["id"] == "root-2" {
            all_keys["keys"].as_array_mut().unwrap().push(key.clone());
        }
    }
    let both_keys = dir.file("both-keys.json");
    std::fs::write(&both_keys, serde_json::to_vec(&all_keys).unwrap()).unwrap();

    // The next version with the old root replaced by the new one.
    let mut takeover = with_version(2);
    let listed = takeover["keys"].as_array_mut().unwrap();
    listed.retain(|key| key["id"] != "test-root");
    listed.insert(0, new_root);

    let cases: Vec<(&str, String, &str)> = vec![
        (
            "a rollback to the same version",
            signed(&dir, "v1", &with_version(1), &keys, &["test-root"]),
            "is not above the current version 1",
        ),
        (
            "a skipped version",
            signed(&dir, "v3", &with_version(3), &keys, &["test-root"]),
            "skips past the next version after 1",
        ),
        (
            "an offer that has expired",
            signed(
                &dir,
                "expired",
                &{
                    let mut document = with_version(2);
                    document["expires"] = json!(1_700_000_000u64);
                    document
                },
                &keys,
                &["test-root"],
            ),
            "document expired at",
        ),
        (
            "a takeover signed by the new root alone",
            signed(&dir, "takeover", &takeover, &both_keys, &["root-2"]),
            "distinct current keys signed, the current threshold is 1",
        ),
    ];
    for (what, next, says) in &cases {
        let store = pinned(&dir);
        for check in [true, false] {
            let run = rotate(&store, next, check);
            assert_eq!(run.code, 4, "{what}: {}", run.snapshot());
            assert!(run.stderr.contains(says), "{what}: {}", run.snapshot());
            assert_eq!(
                std::fs::read(&store).unwrap(),
                std::fs::read(fixture("store.json")).unwrap(),
                "{what}: the pinned store changed"
            );
        }
    }

    // The same takeover signed by the current root as well is a rotation. The document no
    // longer lists the old root, so signing with it names the store it rotates from.
    let store = pinned(&dir);
    let document = dir.file("handed-over.document.json");
    std::fs::write(&document, serde_json::to_vec(&takeover).unwrap()).unwrap();
    let unlisted = seal(
        &[
            "store",
            "sign",
            "--document",
            &document,
            "--keys",
            &both_keys,
            "--key-id",
            "test-root",
        ],
        b"",
        &[],
    );
    assert_eq!(unlisted.code, 4, "{}", unlisted.snapshot());
    let handed_over = signed_from(
        &dir,
        "handed-over",
        &takeover,
        &both_keys,
        &["test-root", "root-2"],
        Some(&store),
    );
    let run = rotate(&store, &handed_over, false);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert_eq!(
        std::fs::read(&store).unwrap(),
        std::fs::read(&handed_over).unwrap()
    );
}

#[test]
fn signing_with_a_key_the_document_does_not_list_is_refused() {
    let dir = TempDir::new("store-sign");
    let document = dir.file("document.json");
    std::fs::write(&document, serde_json::to_vec(&with_version(2)).unwrap()).unwrap();
    let keys = fixture("keys.json");
    let run = seal(
        &[
            "store",
            "sign",
            "--document",
            &document,
            "--keys",
            &keys,
            "--key-id",
            "missing",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 4, "{}", run.snapshot());
    assert!(run.stdout.is_empty());
    let broken = dir.file("broken.json");
    std::fs::write(&broken, br#"{"type":"seal/trust-store/v1"}"#).unwrap();
    let run = seal(
        &[
            "store",
            "sign",
            "--document",
            &broken,
            "--keys",
            &keys,
            "--key-id",
            "test-root",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 4, "{}", run.snapshot());
    assert!(run.stderr.contains("store document"), "{}", run.snapshot());
}
