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

use seal_parse::frame::ScanConfig;
use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
use seal_verify::{
    FrameSigner, FrameVerifier, HmacKey, HmacSecret, SigningKey, TagLength, UnixTime, VerifyConfig,
    VerifyingKey,
};

/// Allocations one clean verification of a one-frame message may make: the frame's attribute
/// list (a public shape of seal-parse; the scan's tag list, the report's outcomes, the signing
/// input and the decoded tag are held in place while small). This bound only goes down.
const CLEAN_VERIFY_CEILING: u64 = 1;

fn key() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&[7; 32]).unwrap(),
        TagLength::STANDARD,
    )
}

fn store() -> MemoryTrustStore {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let scopes = Scopes {
        frames: vec![FrameScope::new("channel", vec![]).unwrap()],
        ..Scopes::default()
    };
    let validity = Validity {
        not_before: UnixTime(1_700_000_000),
        not_after: UnixTime(1_850_000_000),
    };
    let record = KeyRecord::new(
        "k1",
        VerifyingKey::Hmac(key()),
        validity,
        KeyStatus::Active,
        scopes,
    )
    .unwrap();
    store.insert(record).unwrap();
    store
}

fn message(id: &str, len: usize) -> String {
    let body: String = "The operator asks the agent to run the tests and report back. "
        .chars()
        .cycle()
        .take(len)
        .collect();
    let master = key();
    FrameSigner::new(
        "k1",
        SigningKey::Hmac(&master),
        "conversation-1",
        UnixTime(1_800_000_000),
    )
    .unwrap()
    .sign("channel", &[("source", "telegram"), ("id", id)], &body)
    .unwrap()
}

fn blocks_of(run: impl FnOnce()) -> u64 {
    let before = dhat::HeapStats::get().total_blocks;
    run();
    dhat::HeapStats::get().total_blocks - before
}

#[test]
fn clean_verification_allocates_at_most_the_ceiling() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let store = store();
    let config = VerifyConfig::new(ScanConfig::new("channel").unwrap());
    let verifier = FrameVerifier::new(
        &config,
        &store,
        "conversation-1",
        UnixTime(1_800_000_000),
        &Forgetful,
    );
    let short = message("m1", 280);
    let long = message("m2", 4096);
    // Warm-up: derives and keeps the conversation subkey.
    assert_eq!(verifier.verify(&short).verified().count(), 1);

    for (name, text) in [("280 B", &short), ("4 KiB", &long)] {
        let mut verified = 0;
        let mut tainted = true;
        let blocks = blocks_of(|| {
            let report = verifier.verify(text);
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

/// A replay store that answers every claim fresh and records nothing: the same messages are
/// verified again and again here, and the replay check is not what is measured.
struct Forgetful;

impl seal_verify::ReplayStore for Forgetful {
    fn claim(
        &self,
        _claim: &seal_verify::Claim<'_>,
    ) -> Result<seal_verify::ClaimOutcome, seal_verify::ClaimError> {
        Ok(seal_verify::ClaimOutcome::Fresh)
    }
}
