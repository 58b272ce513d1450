//! seal: trust by construction for AI-agent runtimes.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use seal_parse as parse;
pub use seal_render as render;
