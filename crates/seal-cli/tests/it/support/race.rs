//! The concurrency experiment of the replay issue, shared by the tests of every replay state:
//! `STREAMS` processes at a time, each a stream of `PROMPTS` runs of `seal hook claude-code
//! user-prompt-submit` on one state, all sent the same frames at once; then every frame
//! replayed.

use std::sync::{Arc, Barrier};

use super::{fixture, prompt_input, seal, sign_args, NOW};

/// Streams racing at once.
pub const STREAMS: usize = 4;

/// Prompts in each stream (one frame each, the same frames in every stream).
pub const PROMPTS: usize = 200;

/// The hook's answer for `prompt` in `conversation` on the replay state `state` (a path or a
/// URL), with `env` set: `Ok(true)` verified, `Ok(false)` replayed, `Err(context)` otherwise.
pub fn hook(
    state: &str,
    conversation: &str,
    prompt: &str,
    env: &[(&str, &str)],
) -> Result<bool, String> {
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
            "--conversation",
            conversation,
            "--now",
            NOW,
        ],
        &prompt_input(prompt),
        env,
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let answer = run.json();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_owned();
    if context.is_empty() {
        Ok(true)
    } else if context.contains("reason=\"replayed_frame\"")
        && !context.contains("verification_failed")
    {
        Ok(false)
    } else {
        Err(format!("{context}\n--- stderr\n{}", run.stderr))
    }
}

/// `PROMPTS` frames with distinct ids, signed for `conversation` at `NOW`.
pub fn frames(conversation: &str) -> Vec<String> {
    let keys = fixture("keys.json");
    (0..PROMPTS)
        .map(|n| {
            let attr = format!("id=race-{n}");
            let run = seal(
                &sign_args(
                    &keys,
                    "test-frames",
                    conversation,
                    &["--attr", "source=telegram", "--attr", &attr, "--now", NOW],
                ),
                format!("prompt {n}").as_bytes(),
                &[],
            );
            assert_eq!(run.code, 0, "{}", run.snapshot());
            run.stdout.trim_end().to_owned()
        })
        .collect()
}

/// What a race gave.
#[derive(Debug)]
pub struct Race {
    /// How many streams verified each frame.
    pub verified: Vec<usize>,
    /// The prompts whose answer was neither verified nor replayed, with the context.
    pub failed: Vec<(usize, String)>,
}

impl Race {
    /// Frames verified by more than one stream.
    pub fn twice(&self) -> usize {
        self.verified.iter().filter(|count| **count > 1).count()
    }

    /// Frames verified by no stream.
    pub fn never(&self) -> usize {
        self.verified.iter().filter(|count| **count == 0).count()
    }

    /// Frames verified by exactly one stream.
    pub fn once(&self) -> usize {
        self.verified.iter().filter(|count| **count == 1).count()
    }
}

/// Releases `STREAMS` streams at once, each sending every frame of `frames` in order to the
/// hook on `state`, with `env` set.
pub fn race(
    state: &str,
    conversation: &str,
    frames: &Arc<Vec<String>>,
    env: &[(&'static str, &'static str)],
) -> Race {
    let start = Arc::new(Barrier::new(STREAMS));
    let streams: Vec<_> = (0..STREAMS)
        .map(|_| {
            let (frames, start) = (Arc::clone(frames), Arc::clone(&start));
            let (state, conversation, env) =
                (state.to_owned(), conversation.to_owned(), env.to_vec());
            std::thread::spawn(move || {
                start.wait();
                frames
                    .iter()
                    .map(|frame| hook(&state, &conversation, frame, &env))
                    .collect::<Vec<Result<bool, String>>>()
            })
        })
        .collect();
    let mut verified = vec![0usize; frames.len()];
    let mut failed = Vec::new();
    for stream in streams {
        for (n, answer) in stream.join().expect("stream").into_iter().enumerate() {
            match answer {
                Ok(true) => verified[n] += 1,
                Ok(false) => {}
                Err(context) => failed.push((n, context)),
            }
        }
    }
    Race { verified, failed }
}

/// Replays every frame once more: how many were not answered `replayed_frame` (ids lost).
pub fn lost_on_replay(state: &str, conversation: &str, frames: &[String]) -> usize {
    frames
        .iter()
        .filter(|frame| hook(state, conversation, frame, &[]) != Ok(false))
        .count()
}
