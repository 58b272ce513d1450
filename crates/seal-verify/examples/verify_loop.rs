#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
//! Verifies one signed frame with a 280-byte body (or a body of the length given as the second
//! argument) as many times as the first argument says (default 1), for instruction counts under
//! `valgrind --tool=callgrind`: the difference between two counts divided by the difference in
//! iterations is the cost of one verification. A third argument `floor` runs the crypto floor of
//! the same frame instead (SHA-256 of the body, then HMAC-SHA256 over a signing input of the same
//! length with a prepared key), `scan` the scan alone. The mean wall-clock time per run is
//! printed; on a shared machine, `time`'s user seconds are steadier, and criterion
//! (`cargo bench --bench verify`) is the reference measurement.

use std::hint::black_box;

use seal_parse::frame::ScanConfig;
use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
use seal_verify::{
    FrameSigner, FrameVerifier, HmacKey, HmacSecret, SigningKey, TagLength, UnixTime, VerifyConfig,
    VerifyingKey,
};

fn key() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&[7; 32]).unwrap(),
        TagLength::STANDARD,
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(1, |n| n.parse().unwrap());
    let len: usize = args.next().map_or(280, |n| n.parse().unwrap());
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
    let body: String = "The operator asks the agent to run the tests and report back. "
        .chars()
        .cycle()
        .take(len)
        .collect();
    let master = key();
    let message = FrameSigner::new(
        "k1",
        SigningKey::Hmac(&master),
        "conversation-1",
        UnixTime(1_800_000_000),
    )
    .unwrap()
    .sign("channel", &[("source", "telegram"), ("id", "m1")], &body)
    .unwrap();
    let config = VerifyConfig::new(ScanConfig::new("channel").unwrap());
    let verifier = FrameVerifier::new(
        &config,
        &store,
        "conversation-1",
        UnixTime(1_800_000_000),
        &Forgetful,
    );
    let mode = args.next().unwrap_or_default();
    let input = seal_record::FrameSigningInput::new(
        "k1",
        "hmac-sha256",
        22,
        "channel",
        &[("source", "telegram"), ("id", "m1"), ("kid", "k1")],
        body.as_bytes(),
    )
    .unwrap();
    let mac_key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &[7; 32]);
    let mut sink = 0usize;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        sink += match mode.as_str() {
            // The crypto floor of the frame format: SHA-256 of the body, then HMAC-SHA256 over
            // a signing input of the same length (the body hash in place) with a prepared key.
            "floor" => {
                use sha2::Digest;
                let digest = sha2::Sha256::digest(black_box(body.as_bytes()));
                let mut context = ring::hmac::Context::with_key(&mac_key);
                let bytes = black_box(input.bytes());
                context.update(&bytes[..bytes.len() - 32]);
                context.update(&digest);
                usize::from(context.sign().as_ref()[0])
            }
            "scan" => seal_parse::frame::scan_findings(black_box(&message), config.scan())
                .0
                .map_or(0, Iterator::count),
            _ => usize::from(!verifier.verify(black_box(&message)).is_tainted()),
        };
    }
    let ns = start.elapsed().as_nanos() as f64 / runs as f64;
    println!("{mode:?} body {len} B: {ns:.0} ns wall per run ({sink})");
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
