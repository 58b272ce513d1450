//! Integration tests of seal-policy in one binary: the rules engine (`rules_*`, `paths_*`, the
//! reference engine, the command corpus and Claude Code conformance), the guards, delegation,
//! escalation and presets, the decision chain (`chain_*`, `pipeline_ask`), policy assembly and
//! the approval service (`approval_*`), one module per former test file.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

mod approval_book_model;
mod approval_cancellation;
mod approval_fail_closed;
mod approval_never;
mod approval_one_driver;
mod approval_registry_model;
mod approval_service;
mod approval_trust;
mod approval_web_flow;
mod assembly;
mod chain_approval;
mod chain_properties;
mod chain_rules;
mod chain_spec_examples;
mod chain_subject;
mod chain_trace;
mod chain_waterfall;
mod conformance;
mod corpus;
mod decision_values;
mod delegation_properties;
mod delegation_rules;
mod destructive_guard;
mod engine_reference;
mod escalation_properties;
mod escalation_rules;
mod guards_secrets;
mod guards_self_protection;
mod paths_properties;
mod paths_rules;
mod pipeline_ask;
mod preset_properties;
mod preset_rules;
mod preset_spec_examples;
mod rules_broad_allows;
mod rules_bypass;
mod rules_client_default;
mod rules_explain;
mod rules_lint;
mod rules_load;
mod rules_models;
mod rules_path_properties;
mod rules_properties;
mod rules_spec_examples;
mod rules_stress;
mod rules_vectors;
