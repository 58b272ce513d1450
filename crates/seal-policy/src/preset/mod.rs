//! Presets and sessions: the two permission knobs, the preset table over them, and sessions
//! that pin their permission facts at creation.
//!
//! - [`SandboxMode`] is a total order: `read-only < workspace-write < danger-full-access`.
//!   The other knob is the approval policy ([`ApprovalPolicy`](crate::approval::ApprovalPolicy)).
//! - A [`PresetTable`] holds rows (key, knobs, label). `custom` is the derived value for knobs
//!   that match no row; it is never a row ([`PresetKey`] refuses it) and never selectable.
//!   Loading fails on an executor that cannot sandbox, an unresolved default, or default knobs
//!   matching no row without an explicit default.
//! - The current preset is derived from the knobs ([`PresetTable::current`]): a recorded
//!   selection wins a tie while it still matches, else the first matching row, else `custom`.
//! - Selecting returns the ordered [`Write`]s: the intent first, then only changed knobs.
//! - [`Settings`] are the default for future sessions; a [`Session`] pins its facts when it is
//!   created, so later settings changes reach only later sessions.
//!
//! ```
//! use seal_policy::approval::ApprovalPolicy;
//! use seal_policy::preset::{
//!     Current, Executor, Knobs, PresetConfig, PresetTable, SandboxMode, Settings, Write,
//! };
//!
//! let config = PresetConfig {
//!     rows: vec![
//!         ("read-only", Knobs::new(SandboxMode::ReadOnly, ApprovalPolicy::OnRequest), None),
//!         ("auto", Knobs::new(SandboxMode::WorkspaceWrite, ApprovalPolicy::OnRequest), None),
//!     ],
//!     default: Some("auto"),
//!     composed_defaults: Knobs::new(SandboxMode::ReadOnly, ApprovalPolicy::OnRequest),
//!     executor: Executor::CONFINING,
//! };
//! let table = PresetTable::load(&config).expect("valid table");
//! let mut settings = Settings::new(&table);
//! let session = settings.open_session();
//! let writes = settings.select(&table, "read-only").expect("a row");
//! assert_eq!(writes.len(), 2); // the intent, then the one knob that changes
//! assert!(matches!(writes.first(), Some(Write::Intent(_))));
//! // The open session keeps what it pinned.
//! assert_eq!(session.standing_mode(), SandboxMode::WorkspaceWrite);
//! assert_eq!(table.current(&session.state()).as_str(), "auto");
//! assert_eq!(table.current(settings.state()).as_str(), "read-only");
//! # let _ = Current::Custom;
//! ```

mod executor;
mod key;
mod knobs;
mod mode;
mod session;
mod table;

pub use executor::Executor;
pub use key::{PresetKey, PresetKeyError, CUSTOM, MAX_KEY_BYTES};
pub use knobs::{Knobs, PermissionState, Write};
pub use mode::SandboxMode;
pub use session::{SeededFacts, Session, Settings};
pub use table::{
    Current, Preset, PresetConfig, PresetLimits, PresetLoadError, PresetTable, SelectError,
};
