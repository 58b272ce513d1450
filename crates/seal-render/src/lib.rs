//! ASCII-only, injective, breakout-free rendering for seal.
//!
//! Everything seal shows to a human or a model goes through one escape grammar, escape-v1
//! (`spec/escape-v1.md`): printable ASCII is copied, everything else becomes a self-delimiting
//! escape (`\\`, `\n`, `\t`, `\u{hex}`, and in byte mode `\x{hh}`). The grammar is a prefix code,
//! so escaping is injective, and the strict decoder accepts exactly what the escaper produces.
//!
//! - [`escape`], [`escape_bytes`], [`decode`], [`decode_bytes`] in three [`Context`]s.
//! - [`render_frame`] and [`render_alarm`] build elements from a validated [`StartTag`].
//! - [`render_card`] and [`render_summary`] lay out approval cards and manifest summaries in
//!   lines of at most [`LINE_WIDTH`] columns behind a renderer-owned gutter (`spec/cards.md`).
//! - With feature `testing`, the module `testing` exports proptest strategies for hostile text
//!   and checkers a renderer author runs against their own renderer.
//!
//! Prefer the `seal` facade; this crate is usable directly but its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod alarm;
mod card;
mod card_layout;
mod context;
mod decode;
mod decode_error;
mod escape;
mod escaped;
mod frame;
#[cfg(feature = "fuzz")]
pub mod fuzz;
mod name;
mod render_error;
mod scan;
mod summary;
mod tag;

#[cfg(feature = "testing")]
pub mod testing;

pub use alarm::{append_alarm, render_alarm};
pub use card::{
    render_card, ApprovalCard, CardLimits, CardSubject, DigestedText, CARD_BOTTOM, CARD_TOP,
    DEFAULT_MAX_FIELD_COLUMNS, LINE_WIDTH,
};
pub use context::Context;
pub use decode::{decode, decode_bytes};
pub use decode_error::{DecodeError, DecodeErrorKind};
pub use escape::{escape, escape_bytes, escape_into, push_codeword};
pub use escaped::Escaped;
pub use frame::render_frame;
pub use name::{AttributeName, ElementName, MAX_NAME_LEN};
pub use render_error::RenderError;
pub use summary::{render_summary, ManifestSummary, SummaryFile, SummaryRedaction};
pub use tag::{StartTag, SIGNATURE_ATTRIBUTE};
