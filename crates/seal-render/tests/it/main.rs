//! Integration tests of seal-render in one binary: escape-v1 (exhaustive, oracle, invariants,
//! decoder errors, golden vectors, snapshots), frame and alarm rendering, and approval cards and
//! manifest summaries, one module per former test file.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

mod card_golden;
mod card_properties;
mod decode_errors;
mod exhaustive;
mod invariants;
mod oracle;
mod render;
mod snapshots;
mod vectors;
