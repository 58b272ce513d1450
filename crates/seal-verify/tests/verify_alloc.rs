// A binary of its own, outside tests/it: it installs a counting global allocator, which must not
// share a process with other tests.
#![allow(clippy::unwrap_used)]
//! Heap allocations of one frame verification, counted by `dhat`'s global allocator.
//!
//! The setup is the one `benches/verify.rs` times: one `channel` frame with `source` and `id`
//! attributes and a 280-byte body (and a 4 KiB one), signed with an HMAC key of the standard
//! tag length, verified against an in-memory store by a verifier reused across messages (its
//! conversation subkey is derived by a first, uncounted verification).
//!
//! `dhat::HeapStats` counts every call into the global allocator (`total_blocks`), so any
//! `Box`, `Vec`, `String` or `Arc` made while verifying shows up, wherever it comes from. Run
//! `cargo test -p seal-verify --test verify_alloc -- --nocapture` to see the counts printed.
//!
//! dhat's testing profiler is process-global, so this binary holds a single test.

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

use seal_test_support::verify_setup::{
    config, prose, signed_frame, store, Forgetful, CONVERSATION, NOW,
};
use seal_verify::FrameVerifier;

/// Allocations one clean verification of a one-frame message may make: the frame's attribute
/// list (a public shape of seal-parse; the scan's tag list, the report's outcomes, the signing
/// input and the decoded tag are held in place while small). This bound only goes down.
const CLEAN_VERIFY_CEILING: u64 = 1;

fn blocks_of(run: impl FnOnce()) -> u64 {
    let before = dhat::HeapStats::get().total_blocks;
    run();
    dhat::HeapStats::get().total_blocks - before
}

#[test]
fn clean_verification_allocates_at_most_the_ceiling() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let store = store();
    let config = config();
    let verifier = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &Forgetful);
    let short = signed_frame("m1", &prose(280));
    let long = signed_frame("m2", &prose(4096));
    // Warm-up: derives and keeps the conversation subkey.
    assert_eq!(verifier.verify(&short).unwrap().verified().count(), 1);

    for (name, text) in [("280 B", &short), ("4 KiB", &long)] {
        let mut verified = 0;
        let mut tainted = true;
        let blocks = blocks_of(|| {
            let report = verifier.verify(text).unwrap();
            verified = report.verified().count();
            tainted = report.is_tainted();
        });
        assert_eq!((verified, tainted), (1, false), "{name}");
        println!("clean verification, {name} body: {blocks} allocations");
        assert!(
            blocks <= CLEAN_VERIFY_CEILING,
            "{name}: {blocks} allocations, ceiling {CLEAN_VERIFY_CEILING}"
        );
    }
}
