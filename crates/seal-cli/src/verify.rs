//! Frame verification as the binary runs it (`scan`, the prompt hooks): the trust store file and
//! the key file's HMAC secrets given to the facade's [`Verifier`] (no policy is assembled for
//! these lanes), the submitted text verified with [`Verifier::verify_inbound`], and the
//! operator's report as JSON.

use seal::{CompactTags, FrameOutcome, Inbound, TrustStore, UnixTime, Verifier};

use crate::cli::FrameFlags;
use crate::failure::{quoted, Failure};
use crate::io::{read_file, MAX_FILE_BYTES};
use crate::json_out::J;
use crate::keys::SecretKeys;
use crate::scan::verification_off;
use crate::state::{self, ReplayState};

/// The frame element verified when none is configured.
pub const DEFAULT_ELEMENT: &str = "channel";

/// Longest conversation id, in bytes (as the per-conversation subkeys allow).
pub const MAX_CONVERSATION_BYTES: usize = 1024;

/// How frames are verified.
#[derive(Debug, Clone)]
pub struct FrameOptions {
    /// The frame element (`channel` by default).
    pub element: String,
    /// Verification off: the message gets the visible `verification_off` notice.
    pub off: bool,
    /// Oldest issue time accepted, in seconds before the time of verification.
    pub max_age: u64,
    /// Furthest issue time accepted in the future, in seconds.
    pub max_skew: u64,
    /// Frames without `iat` are accepted until this time, if given.
    pub undated_until: Option<UnixTime>,
    /// The footer lane: the text ends with a `seal-footer` line signing all of it.
    pub footer: bool,
}

impl FrameOptions {
    /// The options of the frame flags, verification off when `SEAL_VERIFY=off`.
    pub fn of(flags: &FrameFlags) -> FrameOptions {
        FrameOptions {
            element: flags.element.clone(),
            off: verification_off(),
            max_age: flags.max_age,
            max_skew: flags.max_skew,
            undated_until: flags.accept_undated_until.map(UnixTime),
            footer: flags.footer,
        }
    }

    /// The defaults: element `channel`, verification on, the default freshness window,
    /// undated frames refused.
    pub fn defaults() -> FrameOptions {
        FrameOptions {
            element: DEFAULT_ELEMENT.to_owned(),
            off: false,
            max_age: seal::DEFAULT_MAX_AGE_SECONDS,
            max_skew: seal::DEFAULT_MAX_SKEW_SECONDS,
            undated_until: None,
            footer: false,
        }
    }
}

/// The verifier of frames: the signed store at `store_path`, accepted at `now`, with the HMAC
/// secrets of `keys` bound, for `options`.
pub fn inbound_verifier(
    store_path: &str,
    keys: Option<&SecretKeys>,
    options: &FrameOptions,
    now: UnixTime,
) -> Result<Verifier, Failure> {
    let envelope = read_file(store_path, MAX_FILE_BYTES, "trust store")?;
    let secrets = keys.map(SecretKeys::frame_keys).unwrap_or_default();
    // Every frame the binary verifies is checked with per-conversation subkeys and claimed in a
    // replay state: the controls under which compact-profile keys are sound.
    let store =
        TrustStore::from_signed_document_with(&envelope, &secrets, now, CompactTags::Accepted)
            .map_err(|error| {
                Failure::keys(format!("trust store {}: {error}", quoted(store_path)))
            })?;
    let mut builder = Verifier::builder()
        .trust_store(store)
        .frame_element(&options.element)
        .frame_freshness(options.max_age, options.max_skew);
    if let Some(until) = options.undated_until {
        builder = builder.accept_undated_frames_until(until);
    }
    if options.off {
        builder = builder.verification_off();
    }
    builder
        .build()
        .map_err(|error| Failure::usage(format!("cannot verify frames: {error}")))
}

/// Verifies `text` in `conversation` at `now`, claiming frame ids in `replay`: its frames, or
/// with `footer` the footer line that must end it. A claim the replay state did not answer
/// leaves the message without a verdict: a failure naming the state.
pub fn verify_text<'t>(
    verifier: &Verifier,
    conversation: &str,
    now: UnixTime,
    replay: &ReplayState,
    text: &'t str,
    footer: bool,
) -> Result<Inbound<'t>, Failure> {
    if conversation.is_empty() || conversation.len() > MAX_CONVERSATION_BYTES {
        return Err(Failure::usage(format!(
            "conversation id {} must be 1 to {MAX_CONVERSATION_BYTES} bytes",
            quoted(conversation)
        )));
    }
    let verified = if footer {
        verifier.verify_footer(text, conversation, now, replay)
    } else {
        verifier.verify_inbound(text, conversation, now, replay)
    };
    verified.map_err(|unanswered| state::unanswered(&unanswered, replay))
}

/// The operator's report as JSON (fields documented in spec/cli.md, "scan --json").
pub fn report_json(inbound: &Inbound) -> J {
    let report = inbound.report();
    let frames = report
        .frames()
        .iter()
        .map(|finding| {
            let (outcome, reason, cause, frame_id) = match &finding.outcome {
                FrameOutcome::Verified(verified) => (
                    "verified",
                    J::Null,
                    J::Null,
                    J::opt(verified.frame_id().map(str::to_owned)),
                ),
                FrameOutcome::Untrusted { reason, cause } => (
                    "untrusted",
                    J::str(reason.code()),
                    J::str(cause.to_string()),
                    J::Null,
                ),
                // Not reached: a message with an unanswered claim gets no report (`verify_text`
                // fails); shown as the alarm text counts it.
                FrameOutcome::Unanswered { id, error } => (
                    "untrusted",
                    J::str(seal::AlarmReason::ReplayedFrame.code()),
                    J::str(format!(
                        "frame id `{}` could not be claimed: {error}",
                        id.escape_debug()
                    )),
                    J::Null,
                ),
            };
            J::Obj(vec![
                ("start", J::Num(finding.tag.start as u64)),
                ("end", J::Num(finding.tag.end as u64)),
                ("depth", J::Num(finding.depth as u64)),
                ("source", J::opt(finding.source.clone())),
                ("key_id", J::opt(finding.key_id.clone())),
                ("outcome", J::str(outcome)),
                ("reason", reason),
                ("cause", cause),
                ("frame_id", frame_id),
            ])
        })
        .collect();
    J::Obj(vec![
        ("tainted", J::Bool(report.is_tainted())),
        ("verification_off", J::Bool(report.verification_off())),
        ("verified", J::Num(report.verified().count() as u64)),
        ("alarms", J::Num(report.alarms().count() as u64)),
        (
            "scan_error",
            J::opt(report.scan_error().map(|error| error.to_string())),
        ),
        ("frames", J::Arr(frames)),
        ("new_ids", J::Arr(report.new_ids().map(J::str).collect())),
        ("alarm_text", J::str(inbound.alarms())),
    ])
}
