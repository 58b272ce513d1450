#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! The concurrency experiment of the replay issue, as a test of the binary: 4 processes at a
//! time, each a stream of 200 `seal hook claude-code user-prompt-submit` runs on one replay
//! state, all four sent the same 200 frames at once; then every frame replayed. Every frame
//! must verify exactly once in the race (0 verified twice, 0 failed), and every replay must
//! alarm `replayed_frame` (0 ids lost).

mod support;

use std::sync::{Arc, Barrier};

use support::{fixture, prompt_input, seal, TempDir, NOW};

const STREAMS: usize = 4;
const PROMPTS: usize = 200;

/// The hook's answer for `prompt` on the state file `state`: `Verified`, `Replayed`, or the
/// context it gave otherwise.
fn hook(state: &str, prompt: &str) -> Result<bool, String> {
    let store = fixture("store.json");
    let keys = fixture("keys.json");
    let run = seal(
        &[
            "hook",
            "claude-code",
            "user-prompt-submit",
            "--store",
            &store,
            "--keys",
            &keys,
            "--state",
            state,
            "--now",
            NOW,
        ],
        &prompt_input(prompt),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let answer = run.json();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    if context.is_empty() {
        Ok(true)
    } else if context.contains("reason=\"replayed_frame\"")
        && !context.contains("verification_failed")
    {
        Ok(false)
    } else {
        Err(context)
    }
}

/// `PROMPTS` frames with distinct ids, signed for the fixtures' conversation at `NOW`.
fn frames() -> Vec<String> {
    let keys = fixture("keys.json");
    (0..PROMPTS)
        .map(|n| {
            let attr = format!("id=race-{n}");
            let run = seal(
                &[
                    "sign",
                    "--keys",
                    &keys,
                    "--key-id",
                    "test-frames",
                    "--conversation",
                    "session-1",
                    "--attr",
                    "source=telegram",
                    "--attr",
                    &attr,
                    "--now",
                    NOW,
                ],
                format!("prompt {n}").as_bytes(),
                &[],
            );
            assert_eq!(run.code, 0, "{}", run.snapshot());
            run.stdout.trim_end().to_owned()
        })
        .collect()
}

#[test]
fn four_streams_on_one_state_verify_each_frame_once_and_lose_no_id() {
    let dir = TempDir::new("replay-race");
    let state = dir.file("replay.sqlite3");
    let frames = Arc::new(frames());
    let start = Arc::new(Barrier::new(STREAMS));
    let streams: Vec<_> = (0..STREAMS)
        .map(|_| {
            let (frames, start, state) = (Arc::clone(&frames), Arc::clone(&start), state.clone());
            std::thread::spawn(move || {
                start.wait();
                frames
                    .iter()
                    .map(|frame| hook(&state, frame))
                    .collect::<Vec<Result<bool, String>>>()
            })
        })
        .collect();
    let mut verified = vec![0usize; PROMPTS];
    let mut failed = Vec::new();
    for stream in streams {
        for (n, answer) in stream.join().unwrap().into_iter().enumerate() {
            match answer {
                Ok(true) => verified[n] += 1,
                Ok(false) => {}
                Err(context) => failed.push((n, context)),
            }
        }
    }
    assert_eq!(failed, Vec::<(usize, String)>::new(), "no prompt may fail");
    let twice = verified.iter().filter(|count| **count > 1).count();
    let never = verified.iter().filter(|count| **count == 0).count();
    println!(
        "{STREAMS} streams x {PROMPTS} prompts: {} verified once, {twice} verified twice or more, \
         {never} never",
        verified.iter().filter(|count| **count == 1).count()
    );
    assert_eq!((twice, never), (0, 0), "{verified:?}");
    // Every frame replayed: every id was kept.
    let lost = frames
        .iter()
        .filter(|frame| hook(&state, frame) != Ok(false))
        .count();
    println!("replayed: {lost} of {PROMPTS} ids lost");
    assert_eq!(lost, 0);
}
