//! Integration tests of seal-verify in one binary: keys and published vectors, the trust and
//! replay stores, frame and footer verification, manifest approval and spawn checks, the decision
//! log's keys and signed checkpoints, golden vectors and operator diagnostics, one module per
//! former test file, with the shared fixtures in `frames_support`. The allocation bound
//! (`tests/verify_alloc.rs`) stays a binary of its own.
#![allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unreachable,
    clippy::unwrap_used
)]

mod audit_log_workers;
mod base64_properties;
mod diagnostics;
mod footer_form;
mod frames_alarm_lines;
mod frames_freshness;
mod frames_fuzz;
mod frames_golden;
mod frames_id_grammar;
mod frames_properties;
mod frames_subkey_cache;
mod frames_support;
mod frames_trust;
mod frames_twins;
mod golden;
mod keys;
mod log_checkpoint_properties;
mod log_checkpoints;
mod manifest_approval;
mod manifest_spawn;
mod replay_store_model;
mod rfc_vectors;
mod store_operator;
mod store_properties;
mod tag_properties;
mod trust_store;
mod webauthn;
mod webauthn_fuzz;
mod webauthn_golden;
mod webauthn_support;
mod wycheproof;
