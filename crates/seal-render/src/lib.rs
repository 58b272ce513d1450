//! ASCII-only, injective, breakout-free rendering for seal.
//!
//! Everything seal shows to a human or a model goes through one escape grammar, escape-v1
//! (`spec/escape-v1.md`): printable ASCII is copied, everything else becomes a self-delimiting
//! escape (`\\`, `\n`, `\t`, `\u{hex}`, and in byte mode `\x{hh}`). The grammar is a prefix code,
//! so escaping is injective, and the strict decoder accepts exactly what the escaper produces.
//!
//! - [`escape`], [`escape_bytes`], [`decode`], [`decode_bytes`] in three [`Context`]s.
//! - [`render_frame`] and [`render_alarm`] build elements from a validated [`StartTag`].
//! - With feature `testing`, the module `testing` exports proptest strategies for hostile text.
//!
//! Prefer the `seal` facade; this crate is usable directly but its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod alarm;
mod context;
mod decode;
mod decode_error;
mod escape;
mod frame;
pub mod fuzz;
mod name;
mod render_error;
mod scan;
mod tag;

#[cfg(feature = "testing")]
pub mod testing;

pub use alarm::{append_alarm, render_alarm};
pub use context::Context;
pub use decode::{decode, decode_bytes};
pub use decode_error::{DecodeError, DecodeErrorKind};
pub use escape::{escape, escape_bytes, escape_into, push_codeword};
pub use frame::render_frame;
pub use name::{AttributeName, ElementName, MAX_NAME_LEN};
pub use render_error::RenderError;
pub use tag::{StartTag, SIGNATURE_ATTRIBUTE};
