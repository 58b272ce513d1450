//! ASCII-only, injective, breakout-free rendering for seal.
//!
//! Prefer the `seal` facade; this crate is usable directly but its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "testing")]
pub mod testing;
