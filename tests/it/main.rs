//! Integration tests of the `seal` facade in one binary: inbound frames and signing, tool-call
//! decisions, dispatch and failure closure, disclosure, the policy digest, the `testing`
//! checkers, the verifier alone (`facade_*`), the replay of the committed fuzz corpora
//! (`fuzz_corpus`) and the vocabulary check (`vocabulary`), one module per file. The allocation bound
//! (`tests/policy_alloc.rs`) stays a binary of its own.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

mod facade_destructive_guard;
mod facade_disclosure;
mod facade_dispatch;
mod facade_explain;
mod facade_fail_closed;
mod facade_foreign_call;
mod facade_inbound;
mod facade_log_sink;
mod facade_policy_digest;
mod facade_signer;
mod facade_testing;
mod facade_verifier;
mod fuzz_corpus;
mod vocabulary;
