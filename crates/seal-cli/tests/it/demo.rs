//! `seal demo`: deterministic, ASCII, 80 columns.

use crate::support::seal;

#[test]
fn demo_output() {
    let run = seal(&["demo"], b"", &[]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.is_empty());
    assert!(run.stdout.is_ascii());
    for line in run.stdout.lines() {
        assert!(line.len() <= 80, "line over 80 columns: {line}");
        assert!(!line.chars().any(|c| c.is_control()), "control in {line:?}");
    }
    for needle in [
        "1 frame verified",
        "reason=\"nested_frame\"",
        "reason=\"replayed_frame\"",
        "-> DENY",
        "-> ASK",
        "approval needed",
        "\\u{202e}",
        "REFUSED (stale_manifest",
    ] {
        assert!(run.stdout.contains(needle), "missing {needle}");
    }
    // Same output on every run.
    assert_eq!(seal(&["demo"], b"", &[]).stdout, run.stdout);
    insta::assert_snapshot!("demo", run.stdout);
}
