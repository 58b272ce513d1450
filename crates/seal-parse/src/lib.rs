//! Canonical parsing for seal: frames in submitted text and RFC 8785 canonical JSON.
//!
//! Prefer the `seal` facade; this crate is usable directly but its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod frame;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod json;
pub mod patch;
pub mod shell;
