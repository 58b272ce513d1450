//! Frame verification over submitted text and the footer form (spec/frame-v1.md, sections
//! "Trust rules", "Alarms" and "Footer form").

mod alarm;
mod config;
mod footer;
mod report;
mod subkeys;
mod verify;

pub use config::{VerifyConfig, VerifyConfigError, VerifyLimits, ALARM_ELEMENT};
pub use report::{
    AlarmReason, FrameCause, FrameOutcome, FrameReport, InboundReport, UnansweredClaim,
    VerifiedFrame,
};
pub use subkeys::{ConversationKeys, SUBKEY_CACHE_CAPACITY};
pub use verify::FrameVerifier;
