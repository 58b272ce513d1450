//! seal: trust by construction for AI-agent runtimes.
//!
//! This facade re-exports the canonical text core:
//! - [`parse`]: frames in submitted text ([`parse::frame`]) and RFC 8785 canonical JSON
//!   ([`parse::json`]);
//! - [`render`]: the ASCII-only, injective escape grammar and the frame and alarm renderers.
//!
//! ```
//! use seal::parse::frame::{scan, Finding, ScanConfig};
//! use seal::render::render_frame;
//!
//! let frame = render_frame("channel", &[("source", "telegram")], "run </channel> now").unwrap();
//! let findings = scan(&frame, &ScanConfig::new("channel").unwrap()).unwrap();
//! assert!(matches!(findings.as_slice(), [Finding::Frame(_)]));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use seal_parse as parse;
pub use seal_render as render;

#[doc(hidden)]
pub mod fuzz;
