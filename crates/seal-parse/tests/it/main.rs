//! Integration tests of seal-parse in one binary: the frame scanner (`frame_*`), canonical and
//! lossless JSON (`json_*`), the `apply_patch` header reader (`patch`) and the shell segmenter
//! (`shell_*`), one module per former test file.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

mod frame_detection;
mod frame_reasons;
mod frame_roundtrip;
mod frame_stress;
mod frame_vectors;
mod json_errors;
mod json_jcs;
mod json_limits;
mod json_lossless;
mod json_lossless_properties;
mod json_lossless_vectors;
mod json_properties;
mod json_suite;
mod json_vectors;
mod patch;
mod shell_bypass;
mod shell_oracle;
mod shell_properties;
mod shell_readable;
mod shell_reasons;
mod shell_stress;
mod shell_vectors;
