//! Frame scanning: strict acceptance and lenient detection of frames in submitted text.
//!
//! A frame is `<name a="v" ...>body</name>` (spec/frame-v1.md). [`scan`] finds every tag of one
//! configured element name, and tells apart:
//!
//! - [`Frame`]: the opening tag is exactly frame-v1 (lowercase name, one space before each
//!   attribute, `name="value"` with canonical escape-v1 values, distinct names, `sig` last) and
//!   the closing tag is exact, so re-rendering the header gives the same bytes;
//! - [`Suspect`]: anything a reader would take for such a tag but that is not strictly accepted
//!   (other case, lookalike brackets, invisible characters in the name, loose attributes,
//!   unterminated or unclosed tags, stray closing tags...), each with its [`SuspectReason`]s.
//!
//! Every finding has a depth: a frame whose header lies in another frame's body is nested and is
//! never to be trusted. Scanning is one linear pass whose frame-free fast path is a byte search.
//!
//! ```
//! use seal_parse::frame::{scan, FrameFinding, ScanConfig};
//!
//! let config = ScanConfig::new("channel")?;
//! let text = "<channel source=\"tg\">hi</channel>";
//! let findings = scan(text, &config)?;
//! let [FrameFinding::Frame(frame)] = findings.as_slice() else { panic!("one frame") };
//! assert_eq!(frame.attributes[0].value, "tg");
//! assert_eq!(frame.body.of(text), Some("hi"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod chars;
mod config;
mod finding;
mod scan;
mod search;
mod strict;
mod tag;
mod value;

pub use config::{ElementError, HarnessRewrite, ScanConfig, ScanLimits};
pub use finding::{
    Attribute, CloseForm, Frame, FrameFinding, ScanError, ScanStats, Span, Suspect, SuspectReason,
    TagKind,
};
pub use scan::{scan, scan_findings, scan_with_stats, Findings};
pub use value::{decode_attribute_value, ValueError};

#[cfg(any(test, feature = "fuzz"))]
pub(crate) use strict::agrees_with_lenient;
