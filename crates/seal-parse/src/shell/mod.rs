//! Shell segmentation: a strict reading of a shell command line into simple commands, for
//! matching permission rules per command.
//!
//! [`segment`] splits a command on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, removes quotes
//! and escapes, unwraps `bash -c '...'` (and `sh`, `dash`, `zsh`, `ksh`, `mksh`, `ash`)
//! payloads in place, and gives each [`Segment`] its [`NormalizedForms`]: env-assignments
//! stripped, wrappers (`sudo`, `env`, `timeout`, `nice`, ...) stripped, program basename.
//!
//! Whatever it does not fully understand (substitutions, expansions, redirections other than the
//! harmless ones to `/dev/null` and between standard output and error, subshells, heredocs,
//! control or invisible characters, unknown wrapper options...) makes the whole command
//! [`Unanalysable`] with a [`UnanalysableReason`] and a byte offset. A rule engine must never
//! allow an unanalysable command, must allow a command only if every segment's canonical form is
//! allowed, and must deny it if any form of any segment is denied (spec/shell-segments.md).
//!
//! [`readable`] reads what can be read of an unanalysable command (the texts in it that segment,
//! the files its redirections name), for deny rules and deny-only guards, never for an allow.
//!
//! ```
//! use seal_parse::shell::{segment, ShellLimits};
//!
//! let segments = segment("bash -c 'git status; rm -rf t'", &ShellLimits::default())?;
//! let words: Vec<_> = segments.iter().map(|s| s.forms().normalized().to_string()).collect();
//! assert_eq!(words, ["git status", "rm -rf t"]);
//! assert!(segments.iter().all(|s| s.payload_depth() == 1));
//!
//! let unicode = segment("r\u{217f} -rf t", &ShellLimits::default()).unwrap_err();
//! assert_eq!(unicode.reason.code(), "non_ascii_program");
//! # Ok::<(), seal_parse::shell::Unanalysable>(())
//! ```

mod buffer;
mod chars;
mod code;
mod expansion;
mod forms;
#[cfg(feature = "fuzz")]
pub mod fuzz_check;
mod lexer;
mod limits;
mod models;
mod program;
mod quote;
mod readable;
mod reason;
mod redirection;
mod segment;
mod skeleton;
mod skip;
mod wrappers;

pub use crate::frame::Span;
pub use buffer::{LauncherRef, SegmentBuffer, SegmentRef, SegmentsRef};
pub use code::{carried_code, carried_code_in, CarriedCode};
pub use forms::{Form, NormalizedForms, Words};
pub use limits::ShellLimits;
pub use models::{model, model_names, ModelOption, Modelled, MAX_OPERANDS, MAX_OPTIONS};
pub use quote::quote_word;
pub use readable::{
    readable, Piece, Readable, Redirect, Unread, UnreadReason, MAX_READABLE_DEPTH, SUBSTITUTED,
};
pub use reason::{Unanalysable, UnanalysableReason};
pub use segment::{
    segment, segment_into, segment_with_stats, Operator, Segment, Segments, ShellStats,
};

/// The wrapper names of the documented table, in table order (spec/shell-segments.md).
pub fn wrapper_names() -> impl Iterator<Item = &'static str> {
    wrappers::WRAPPERS.iter().map(|w| w.name)
}
