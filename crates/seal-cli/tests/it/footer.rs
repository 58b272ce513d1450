//! The footer lane end to end: `seal sign --footer` prints the message unchanged and a
//! `seal-footer` line signing it; `scan --footer` and the prompt hook with `--footer` verify it
//! (a replay, a changed message and a message without a footer alarm).

use crate::support::{prompt_hook, seal, sign_args, TempDir, NOW};

#[test]
fn footer_messages_are_signed_verified_and_replays_alarm() {
    let dir = TempDir::new("footer");
    let store = dir.file("store.json");
    let keys = dir.file("keys.json");
    let made = seal(
        &[
            "keygen",
            "--store",
            &store,
            "--keys",
            &keys,
            "--element",
            "seal-footer",
            "--now",
            NOW,
        ],
        b"",
        &[],
    );
    assert_eq!(made.code, 0, "{}", made.snapshot());
    let message = "deploy the docs\nwhen CI is green";
    let signed = seal(
        &sign_args(
            &keys,
            "frames-1",
            "session-1",
            &["--footer", "--attr", "id=m1", "--now", NOW],
        ),
        message.as_bytes(),
        &[],
    );
    assert_eq!(signed.code, 0, "{}", signed.snapshot());
    let text = signed.stdout.trim_end().to_owned();
    assert!(
        text.starts_with(&format!("{message}\n<seal-footer id=\"m1\" ")),
        "{text}"
    );
    assert!(text.ends_with("></seal-footer>"), "{text}");
    let raw_and_footer = seal(
        &sign_args(&keys, "frames-1", "session-1", &["--footer", "--raw"]),
        message.as_bytes(),
        &[],
    );
    assert_eq!(raw_and_footer.code, 2, "{}", raw_and_footer.snapshot());

    let state = dir.file("replay.sqlite3");
    let hook = |prompt: &str| prompt_hook(&store, &keys, &state, &["--footer"], prompt).stdout;
    assert!(hook(&text).contains("\"additionalContext\":\"\""), "{text}");
    assert!(hook(&text).contains("replayed_frame"));
    let changed = text.replacen("deploy", "delete", 1);
    assert!(hook(&changed).contains("bad_signature"));
    assert!(hook(message).contains("unsigned_frame"));

    // `scan --footer`: exit 10 when the text has no valid footer.
    let scan = |input: &str| {
        seal(
            &[
                "scan",
                "--store",
                &store,
                "--keys",
                &keys,
                "--conversation",
                "session-1",
                "--state",
                &dir.file("scan.sqlite3"),
                "--footer",
                "--now",
                NOW,
            ],
            input.as_bytes(),
            &[],
        )
    };
    let clean = scan(&text);
    assert_eq!(clean.code, 0, "{}", clean.snapshot());
    assert_eq!(clean.stdout.trim_end(), text);
    assert_eq!(scan(message).code, 10);
}
