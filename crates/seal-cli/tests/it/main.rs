//! Integration tests of the `seal` binary in one test binary, each running the built executable:
//! the commands (`render`, `policy`, `doctor`, `sign`, `scan`, `keygen`, `store`, `manifest`,
//! `install`, `demo`, `audit`), the tamper matrix of the decision log (`audit_tamper`), the
//! client hooks (`hooks_*`), the replay state under races and faults, and the recorded
//! end-to-end sessions (`e2e_*`, `friction`), one module per former test file, with
//! the shared runner in `support`.
#![allow(clippy::expect_used, clippy::indexing_slicing, clippy::unwrap_used)]

mod approval_hooks;
mod audit_cli;
mod audit_fleet;
mod audit_tamper;
mod audit_tiles;
mod commands;
mod demo;
mod e2e_approval_claude;
mod e2e_approval_codex;
mod e2e_audit;
mod e2e_install;
mod e2e_record;
mod errors;
mod escape_once;
mod footer;
mod freshness;
mod friction;
mod hooks_claude_code;
mod hooks_codex;
mod hooks_codex_patch;
mod hooks_faults;
mod hooks_path_guards;
mod hooks_payloads;
mod hooks_skill_lines;
mod install;
mod manifest;
mod policy_explain;
mod replay_concurrency;
mod replay_faults;
mod round_trip;
mod serve;
mod store_rotate;
mod support;
