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

use seal_test_support::verify_setup::{
    config, format_floor, prose, signed_frame, signing_input, store, Forgetful, CONVERSATION, NOW,
    SECRET,
};
use seal_verify::FrameVerifier;

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(1, |n| n.parse().unwrap());
    let len: usize = args.next().map_or(280, |n| n.parse().unwrap());
    let store = store();
    let body = prose(len);
    let message = signed_frame("m1", &body);
    let config = config();
    let verifier = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &Forgetful);
    let mode = args.next().unwrap_or_default();
    let input = signing_input("m1", &body);
    let mac_key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &SECRET);
    let mut sink = 0usize;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        sink += match mode.as_str() {
            // The crypto floor of the frame format: SHA-256 of the body, then HMAC-SHA256 over
            // a signing input of the same length (the body hash in place) with a prepared key.
            "floor" => usize::from(format_floor(
                black_box(body.as_bytes()),
                black_box(input.bytes()),
                &mac_key,
            )),
            "scan" => seal_parse::frame::scan_findings(black_box(&message), config.scan())
                .0
                .map_or(0, Iterator::count),
            _ => usize::from(!verifier.verify(black_box(&message)).unwrap().is_tainted()),
        };
    }
    let ns = start.elapsed().as_nanos() as f64 / runs as f64;
    println!("{mode:?} body {len} B: {ns:.0} ns wall per run ({sink})");
}
