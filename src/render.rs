//! The escape grammar (spec/escape-v1.md) and the frame and alarm renderers: everything seal
//! shows is printable ASCII, and two different inputs never render the same.
//!
//! These are the core renderer's own items, re-exported as they are, for code that writes or
//! reads seal's text formats directly. [`escape`] and [`decode`] are inverse in each
//! [`Context`]; the decoder accepts exactly what the escaper produces.
//!
//! ```
//! use seal::render::{decode, escape, Context};
//!
//! let shown = escape("rm -rf /\u{202e}", Context::Inline);
//! assert_eq!(shown, "rm -rf /\\u{202e}");
//! assert_eq!(decode(&shown, Context::Inline)?, "rm -rf /\u{202e}");
//! # Ok::<(), seal::render::DecodeError>(())
//! ```

pub use seal_render::{
    append_alarm, decode, decode_bytes, escape, escape_bytes, render_alarm, render_frame, Context,
    DecodeError, DecodeErrorKind, Escaped, RenderError,
};
