//! `manifest seal` -> change the world -> `manifest verify`, with the distinct exit codes.

use crate::support::{self, seal, seal_in, TempDir};

const DESCRIPTION: &str = r#"{
  "run_id": "run-42",
  "provider": "example-provider",
  "model": "example-model-1",
  "purpose": "summarize the handler for the release notes",
  "files": [
    {"path": "src/app.py", "ranges": [{"start": 1, "end": 2}]},
    {"path": "./docs//notes.md", "ranges": [{"start": 2, "end": 3}]}
  ],
  "redactions": [{"type": "api_key", "count": 1}],
  "external_tools": ["web_search"],
  "estimated_tokens": 420,
  "payload": "payload.txt",
  "policy": "rules.json"
}"#;

fn workspace() -> TempDir {
    let dir = TempDir::new("manifest");
    std::fs::create_dir_all(dir.path.join("src")).unwrap();
    std::fs::create_dir_all(dir.path.join("docs")).unwrap();
    std::fs::write(
        dir.path.join("src/app.py"),
        "def handler(event):\n    return {'ok': True}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path.join("docs/notes.md"),
        "# Notes\nline two\nline three\n",
    )
    .unwrap();
    std::fs::write(dir.path.join("payload.txt"), "Summarize src/app.py.").unwrap();
    std::fs::write(dir.path.join("rules.json"), "{\"permissions\": {}}").unwrap();
    std::fs::write(dir.path.join("description.json"), DESCRIPTION).unwrap();
    dir
}

/// `manifest verify` in `dir`, approving the hash `sealed` printed unless `extra` names the
/// approval itself.
fn verify(dir: &TempDir, extra: &[&str]) -> support::Run {
    let approved = std::fs::read_to_string(dir.path.join("approved.txt")).unwrap_or_default();
    let mut args = vec![
        "manifest",
        "verify",
        "--description",
        "description.json",
        "--manifest",
        "manifest.json",
    ];
    if !extra.iter().any(|arg| arg.starts_with("--approv")) {
        args.extend(["--approved", approved.trim()]);
    }
    args.extend_from_slice(extra);
    seal_in(Some(&dir.path), &args, b"", &[])
}

fn sealed() -> TempDir {
    let dir = workspace();
    let run = seal_in(
        Some(&dir.path),
        &[
            "manifest",
            "seal",
            "--description",
            "description.json",
            "--out",
            "manifest.json",
            "--json",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    // The hash the human approves, kept as they would keep it: apart from the manifest file.
    let hash = run.json()["disclosure_hash"].as_str().unwrap().to_owned();
    std::fs::write(dir.path.join("approved.txt"), hash).unwrap();
    dir
}

#[test]
fn seal_then_verify_clear() {
    let dir = sealed();
    let run = seal_in(
        Some(&dir.path),
        &[
            "manifest",
            "seal",
            "--description",
            "description.json",
            "--out",
            "again.json",
        ],
        b"",
        &[],
    );
    insta::assert_snapshot!("manifest_seal", run.snapshot());
    assert_eq!(verify(&dir, &[]).code, 0);
    let json = verify(&dir, &["--json"]);
    assert_eq!(json.json()["outcome"], "clear");
}

#[test]
fn one_byte_changed_is_a_stale_manifest() {
    let dir = sealed();
    std::fs::write(
        dir.path.join("src/app.py"),
        "def handler(event):\n    return {'ok': Frue}\n",
    )
    .unwrap();
    let run = verify(&dir, &[]);
    assert_eq!(run.code, 21);
    insta::assert_snapshot!("manifest_stale_file", run.snapshot());
}

#[test]
fn each_change_has_its_exit_code() {
    // Payload changed: stale manifest.
    let dir = sealed();
    std::fs::write(dir.path.join("payload.txt"), "Summarize everything.").unwrap();
    assert_eq!(verify(&dir, &[]).code, 21);

    // A disclosed file deleted: stale manifest.
    let dir = sealed();
    std::fs::remove_file(dir.path.join("docs/notes.md")).unwrap();
    let run = verify(&dir, &["--json"]);
    assert_eq!(run.code, 21);
    assert_eq!(run.json()["outcome"], "stale_manifest");

    // Policy changed: stale policy.
    let dir = sealed();
    std::fs::write(
        dir.path.join("rules.json"),
        "{\"permissions\": {\"allow\": [\"Bash\"]}}",
    )
    .unwrap();
    assert_eq!(verify(&dir, &[]).code, 20);

    // Model changed: stale model.
    let dir = sealed();
    std::fs::write(
        dir.path.join("description.json"),
        DESCRIPTION.replace("example-model-1", "example-model-2"),
    )
    .unwrap();
    assert_eq!(verify(&dir, &[]).code, 22);

    // Another manifest than the approved one: not approved.
    let dir = sealed();
    let run = verify(&dir, &["--approved", &"0".repeat(64)]);
    assert_eq!(run.code, 23);

    // A manifest file edited into another valid manifest is not its own approval.
    let dir = sealed();
    std::fs::write(dir.path.join("payload.txt"), "Summarize everything.").unwrap();
    let resealed = seal_in(
        Some(&dir.path),
        &[
            "manifest",
            "seal",
            "--description",
            "description.json",
            "--out",
            "manifest.json",
        ],
        b"",
        &[],
    );
    assert_eq!(resealed.code, 0);
    let run = verify(&dir, &["--json"]);
    assert_eq!(run.code, 23, "{}", run.snapshot());
    assert_eq!(run.json()["outcome"], "not_approved");

    // A field of the description with no check of its own changed after approval (the purpose,
    // or one more file to disclose): the manifest rebuilt from the description differs.
    for changed in [
        DESCRIPTION.replace("summarize the handler", "exfiltrate the handler"),
        DESCRIPTION.replace(
            "\"files\": [",
            "\"files\": [{\"path\": \"payload.txt\", \"ranges\": [{\"start\": 1, \"end\": 1}]}, ",
        ),
    ] {
        let dir = sealed();
        std::fs::write(dir.path.join("description.json"), changed).unwrap();
        let run = verify(&dir, &["--json"]);
        assert_eq!(run.code, 24, "{}", run.snapshot());
        assert_eq!(run.json()["outcome"], "recomputed");
    }

    // Without an approval there is nothing to verify against: a usage error.
    let dir = sealed();
    let run = seal_in(
        Some(&dir.path),
        &[
            "manifest",
            "verify",
            "--description",
            "description.json",
            "--manifest",
            "manifest.json",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.snapshot());
}

#[test]
fn bad_descriptions() {
    let dir = workspace();
    let seal_with = |description: &str| {
        std::fs::write(dir.path.join("bad.json"), description).unwrap();
        seal_in(
            Some(&dir.path),
            &[
                "manifest",
                "seal",
                "--description",
                "bad.json",
                "--out",
                "m.json",
            ],
            b"",
            &[],
        )
    };
    // Unknown member, a range past the end, a path escaping the root, a purpose too long.
    let unknown = seal_with(&DESCRIPTION.replace("\"run_id\"", "\"secret\": \"x\", \"run_id\""));
    let past_end = seal_with(&DESCRIPTION.replace("\"end\": 3", "\"end\": 9"));
    let escapes = seal_with(&DESCRIPTION.replace("src/app.py", "../outside.py"));
    let long = seal_with(&DESCRIPTION.replace("summarize the handler", &"x".repeat(300)));
    for run in [&unknown, &past_end, &escapes, &long] {
        assert_eq!(run.code, 3, "{}", run.snapshot());
        assert!(!dir.path.join("m.json").exists());
    }
    insta::assert_snapshot!(
        "manifest_bad_descriptions",
        format!(
            "{}{}{}{}",
            unknown.stderr, past_end.stderr, escapes.stderr, long.stderr
        )
    );
    let missing = seal(
        &[
            "manifest",
            "verify",
            "--description",
            "/nonexistent.json",
            "--manifest",
            "m",
            "--approved",
            &"0".repeat(64),
        ],
        b"",
        &[],
    );
    assert_eq!(missing.code, 3);
}

#[test]
fn signed_approval_is_checked_and_used_once() {
    let dir = sealed();
    let keys = |args: &[&str]| seal_in(Some(&dir.path), args, b"", &[]);
    let made = keys(&[
        "keygen",
        "--store",
        "store.json",
        "--keys",
        "keys.json",
        "--approver",
        "--now",
        "1767225600",
    ]);
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let approve = |key_id: &str, approval_id: &str, out: &str| {
        keys(&[
            "manifest",
            "approve",
            "--manifest",
            "manifest.json",
            "--keys",
            "keys.json",
            "--key-id",
            key_id,
            "--approval-id",
            approval_id,
            "--out",
            out,
            "--now",
            "1767225600",
            "--valid-for",
            "600",
        ])
    };
    let approved = approve("approver-1", "approval-1", "approval.json");
    assert_eq!(approved.code, 0, "{}", approved.snapshot());
    let with_approval = |approval: &str, now: &str| {
        verify(
            &dir,
            &[
                "--approval",
                approval,
                "--store",
                "store.json",
                "--state",
                "state.sqlite3",
                "--used",
                "used.txt",
                "--now",
                now,
            ],
        )
    };
    // An old used-id file is imported once: its ids are spent.
    std::fs::write(dir.path.join("used.txt"), "approval-7\n").unwrap();
    assert_eq!(approve("approver-1", "approval-7", "old.json").code, 0);
    let old = with_approval("old.json", "1767225700");
    assert_eq!(old.code, 25, "{}", old.snapshot());
    let first = with_approval("approval.json", "1767225700");
    assert_eq!(first.code, 0, "{}", first.snapshot());
    // The used-id file is left alone: the approval was claimed in the replay state.
    assert_eq!(
        std::fs::read_to_string(dir.path.join("used.txt")).unwrap(),
        "approval-7\n"
    );
    // The same approval again: used.
    let again = with_approval("approval.json", "1767225700");
    assert_eq!(again.code, 25, "{}", again.snapshot());
    // A fresh approval after its window: expired.
    assert_eq!(approve("approver-1", "approval-2", "late.json").code, 0);
    assert_eq!(with_approval("late.json", "1767230000").code, 25);
    // The store root key may not approve manifests; an HMAC key cannot sign at all.
    assert_eq!(approve("root-1", "approval-3", "root.json").code, 0);
    let root = with_approval("root.json", "1767225700");
    assert_eq!(root.code, 25);
    assert_eq!(approve("frames-1", "approval-4", "hmac.json").code, 4);
    // A valid approval, but a file changed: stale manifest.
    assert_eq!(approve("approver-1", "approval-5", "fresh.json").code, 0);
    std::fs::write(dir.path.join("src/app.py"), "changed\n").unwrap();
    assert_eq!(with_approval("fresh.json", "1767225700").code, 21);
    // A tampered approval file: refused.
    let text = std::fs::read_to_string(dir.path.join("fresh.json")).unwrap();
    std::fs::write(
        dir.path.join("forged.json"),
        text.replace("approval-5", "approval-6"),
    )
    .unwrap();
    assert_eq!(with_approval("forged.json", "1767225700").code, 25);
    insta::assert_snapshot!(
        "manifest_approval",
        format!("{}{}{}", first.stdout, again.stdout, root.stdout)
    );
}

/// The database of the test server that `a_signed_approval_is_used_once_in_a_redis_state`
/// claims in (emptied first, so a rerun within the approval's window starts clean; no other
/// test uses it).
const MANIFEST_REDIS_DB: u32 = 8;

#[test]
fn a_signed_approval_is_used_once_in_a_redis_state() {
    let state = support::redis_server::database(MANIFEST_REDIS_DB);
    let dir = sealed();
    let run = |args: &[&str]| seal_in(Some(&dir.path), args, b"", &[]);
    let made = run(&[
        "keygen",
        "--store",
        "store.json",
        "--keys",
        "keys.json",
        "--approver",
        "--now",
        "1767225600",
    ]);
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let approved = run(&[
        "manifest",
        "approve",
        "--manifest",
        "manifest.json",
        "--keys",
        "keys.json",
        "--key-id",
        "approver-1",
        "--approval-id",
        "approval-1",
        "--out",
        "approval.json",
        "--now",
        "1767225600",
        "--valid-for",
        "600",
    ]);
    assert_eq!(approved.code, 0, "{}", approved.snapshot());
    let with_approval = |extra: &[&str]| {
        let mut args = vec![
            "--approval",
            "approval.json",
            "--store",
            "store.json",
            "--state",
            &state,
            "--now",
            "1767225700",
        ];
        args.extend_from_slice(extra);
        verify(&dir, &args)
    };
    let first = with_approval(&[]);
    assert_eq!(first.code, 0, "{}", first.snapshot());
    let again = with_approval(&[]);
    assert_eq!(again.code, 25, "{}", again.snapshot());
    // An old used-id file cannot be imported into Redis.
    std::fs::write(dir.path.join("used.txt"), "approval-7\n").unwrap();
    let used = with_approval(&["--used", "used.txt"]);
    assert_eq!(used.code, 2, "{}", used.snapshot());
    assert!(
        used.stderr.contains("SQLite replay state only"),
        "{}",
        used.stderr
    );
}
