//! Freshness through the binary: `seal sign --now` dates a frame; `scan` and the prompt hook
//! accept it at both edges of the window and alarm `stale_frame` one second outside;
//! `--max-age` and `--max-skew` move the edges; an undated frame (signed before issue times
//! existed) alarms unless `--accept-undated-until` covers the time of verification.

use crate::support::{self, fixture, prompt_input, seal, sign_args, NOW, SIGNED_FRAME};

/// The fixture frame as it was signed before issue times existed (no `iat`).
const UNDATED_FRAME: &str = "<channel source=\"telegram\" id=\"m1\" kid=\"test-frames\" sig=\"40lz_p4y51BeWQnghb35e5\">hello from telegram \\u{3c}/channel> still the body</channel>";

fn now_plus(seconds: i64) -> String {
    (NOW.parse::<i64>().unwrap() + seconds).to_string()
}

fn scan(text: &str, now: &str, extra: &[&str]) -> support::Run {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let mut args = vec![
        "scan",
        "--store",
        &store,
        "--keys",
        &keys,
        "--conversation",
        "session-1",
        "--now",
        now,
    ];
    args.extend_from_slice(extra);
    seal(&args, text.as_bytes(), &[])
}

#[test]
fn seal_sign_dates_the_frame_with_now() {
    let keys = fixture("keys.json");
    let signed = seal(
        &sign_args(
            &keys,
            "test-frames",
            "session-1",
            &["--attr", "source=telegram", "--attr", "id=m1", "--now", NOW],
        ),
        b"hello from telegram </channel> still the body",
        &[],
    );
    assert_eq!(signed.code, 0, "{}", signed.snapshot());
    assert_eq!(signed.stdout, format!("{SIGNED_FRAME}\n"));
}

#[test]
fn scan_accepts_the_window_edges_and_alarms_stale_frame_outside() {
    for offset in [-60, 0, 900] {
        let run = scan(SIGNED_FRAME, &now_plus(offset), &[]);
        assert_eq!(run.code, 0, "at {offset}: {}", run.snapshot());
    }
    for offset in [-61, 901] {
        let run = scan(SIGNED_FRAME, &now_plus(offset), &[]);
        assert_eq!(run.code, 10, "at {offset}: {}", run.snapshot());
        assert!(
            run.stdout.contains("reason=\"stale_frame\""),
            "at {offset}: {}",
            run.stdout
        );
    }
    // Configured edges, by flag and by environment.
    assert_eq!(
        scan(SIGNED_FRAME, &now_plus(1000), &["--max-age", "1000"]).code,
        0
    );
    assert_eq!(
        scan(SIGNED_FRAME, &now_plus(1001), &["--max-age", "1000"]).code,
        10
    );
    assert_eq!(
        scan(SIGNED_FRAME, &now_plus(-120), &["--max-skew", "120"]).code,
        0
    );
    assert_eq!(
        scan(SIGNED_FRAME, &now_plus(-121), &["--max-skew", "120"]).code,
        10
    );
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let later = now_plus(1000);
    let by_env = seal(
        &[
            "scan",
            "--store",
            &store,
            "--keys",
            &keys,
            "--conversation",
            "session-1",
            "--now",
            &later,
        ],
        SIGNED_FRAME.as_bytes(),
        &[("SEAL_MAX_AGE", "1000")],
    );
    assert_eq!(by_env.code, 0, "{}", by_env.snapshot());
    // The JSON report names the cause for the operator.
    let json = scan(SIGNED_FRAME, &now_plus(901), &["--json"]).json();
    assert_eq!(json["frames"][0]["reason"], "stale_frame");
}

#[test]
fn an_undated_frame_alarms_unless_the_migration_window_covers_now() {
    let run = scan(UNDATED_FRAME, NOW, &[]);
    assert_eq!(run.code, 10, "{}", run.snapshot());
    assert!(run.stdout.contains("reason=\"stale_frame\""));
    let until = now_plus(3600);
    assert_eq!(
        scan(UNDATED_FRAME, &until, &["--accept-undated-until", &until]).code,
        0
    );
    let after = now_plus(3601);
    assert_eq!(
        scan(UNDATED_FRAME, &after, &["--accept-undated-until", &until]).code,
        10
    );
}

#[test]
fn the_prompt_hook_alarms_a_stale_frame() {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let hook = |now: &str| {
        seal(
            &[
                "hook",
                "claude-code",
                "user-prompt-submit",
                "--store",
                &store,
                "--keys",
                &keys,
                "--now",
                now,
            ],
            &prompt_input(SIGNED_FRAME),
            &[],
        )
    };
    let fresh = hook(&now_plus(900));
    assert_eq!(fresh.code, 0, "{}", fresh.snapshot());
    assert!(!fresh.stdout.contains("seal-alarm"), "{}", fresh.stdout);
    let stale = hook(&now_plus(901));
    assert_eq!(stale.code, 0, "{}", stale.snapshot());
    assert!(stale.stdout.contains("stale_frame"), "{}", stale.stdout);
}
