//! The concurrency experiment of the replay issue, as a test of the binary, for each replay
//! state: 4 processes at a time, each a stream of 200 `seal hook claude-code
//! user-prompt-submit` runs on one state, all four sent the same 200 frames at once; then every
//! frame replayed. Every frame must verify exactly once in the race (0 verified twice, 0
//! failed), and every replay must alarm `replayed_frame` (0 ids lost). The Redis runs use the
//! server of `SEAL_TEST_REDIS` (support/redis_server.rs) and a conversation of their own.

use std::sync::Arc;

use crate::support::race::{frames, lost_on_replay, race, PROMPTS, STREAMS};
use crate::support::redis_server;
use crate::support::TempDir;

/// Runs the race on `state` and checks it: no prompt failed, 0 verified twice, 0 never, then
/// 0 ids lost on replay.
fn race_and_replay(label: &str, state: &str, conversation: &str) {
    let frames = Arc::new(frames(conversation));
    let result = race(state, conversation, &frames, &[]);
    assert_eq!(
        result.failed,
        Vec::<(usize, String)>::new(),
        "no prompt may fail"
    );
    let (twice, never) = (result.twice(), result.never());
    println!(
        "{label}: {STREAMS} streams x {PROMPTS} prompts: {} verified once, {twice} verified \
         twice or more, {never} never",
        result.once()
    );
    assert_eq!((twice, never), (0, 0), "{:?}", result.verified);
    let lost = lost_on_replay(state, conversation, &frames);
    println!("{label}: replayed: {lost} of {PROMPTS} ids lost");
    assert_eq!(lost, 0);
}

#[test]
fn four_streams_on_one_state_verify_each_frame_once_and_lose_no_id() {
    let dir = TempDir::new("replay-race");
    let state = dir.file("replay.sqlite3");
    race_and_replay("sqlite", &state, "session-1");
}

#[test]
fn four_streams_on_one_redis_verify_each_frame_once_and_lose_no_id() {
    let state = redis_server::server();
    let conversation = redis_server::unique_conversation("race");
    race_and_replay("redis", &state, &conversation);
}

/// The negative control of the Redis race: with a claim that checks (`GET`), waits, then
/// records (`SET` without `NX`) instead of one `SET NX` (the `nonatomic-claim` fault of the
/// test-only `fault-injection` feature), the same harness sees frames verified twice.
#[cfg(feature = "fault-injection")]
#[test]
fn the_redis_race_catches_a_claim_that_is_not_atomic() {
    let state = redis_server::server();
    let conversation = redis_server::unique_conversation("race-broken");
    let frames = Arc::new(frames(&conversation));
    let result = race(
        &state,
        &conversation,
        &frames,
        &[("SEAL_FAULT", "nonatomic-claim")],
    );
    assert_eq!(result.failed, Vec::<(usize, String)>::new());
    println!(
        "non-atomic claim: {} verified once, {} twice or more",
        result.once(),
        result.twice()
    );
    assert!(result.twice() > 0, "{:?}", result.verified);
}
