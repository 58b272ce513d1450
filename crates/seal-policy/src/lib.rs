//! The permission engine for seal: policy assembly and its digest ([`assembly`]), the decision
//! pipeline of one call ([`pipeline`]), the pre-execute waterfall, monotonic guards and the
//! trace ([`chain`]), permission rules and their lint ([`rules`]), the approval state machine
//! and card ([`approval`]), presets, escalation and delegation.
//!
//! Everything here is sans-IO: calls, time and answers come in as values; decisions come out as
//! values with an explanation trace. Prefer the `seal` facade; this crate is usable directly but
//! its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod approval;
pub mod assembly;
pub mod chain;
pub mod delegation;
pub mod destructive;
pub mod digest;
pub mod escalation;
pub mod guards;
pub mod paths;
pub mod pipeline;
pub mod preset;
pub mod rules;
