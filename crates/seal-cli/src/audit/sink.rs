//! What the hooks record: the facade's log sink over the SQLite log, signing each checkpoint
//! with the log key.

use std::sync::Mutex;

use seal::log::tlog::Checkpoint;
use seal::log::{LogEvent, LogSigningKey, LogSink};
use seal_log_sqlite::{CheckpointSigner, SqliteLog};

use crate::cli::HookLogFlags;
use crate::failure::Failure;
use crate::fault;

/// The log key as the store's signer.
pub struct Signer<'a>(pub &'a LogSigningKey);

impl CheckpointSigner for Signer<'_> {
    fn origin(&self) -> &str {
        self.0.name()
    }

    fn sign(&self, checkpoint: &Checkpoint) -> Result<String, String> {
        self.0
            .sign_checkpoint(checkpoint)
            .map_err(|error| error.to_string())
    }
}

/// The hooks' sink: the open log, the key and the time entries claim.
pub struct HookSink {
    log: Mutex<SqliteLog>,
    key: LogSigningKey,
    time: u64,
}

impl HookSink {
    /// The sink of `flags`, when `--log` (or `SEAL_LOG`) names a log.
    pub fn of(flags: &HookLogFlags, time: u64) -> Result<Option<HookSink>, Failure> {
        HookSink::open(flags.log.as_deref(), flags.log_key.as_deref(), time)
    }

    /// The sink of the log at `log` signed with the key at `log_key` (else the default key),
    /// when `log` names one.
    pub fn open(
        log: Option<&str>,
        log_key: Option<&str>,
        time: u64,
    ) -> Result<Option<HookSink>, Failure> {
        let Some(path) = log else {
            return Ok(None);
        };
        let key = super::key::load(&super::key::key_path(log_key)?)?;
        let log = super::open(path)?.with_steps(Box::new(fault::point));
        Ok(Some(HookSink {
            log: Mutex::new(log),
            key,
            time,
        }))
    }

    /// Records each alarm of `report` as a `frame/alarm` event: the conversation, the alarm's
    /// reason code, where the text came from, and the frame's id and key when it named them. An
    /// alarm that cannot be recorded fails the message (the hook answers `verification_failed`).
    pub fn record_alarms(
        &self,
        conversation: &str,
        report: &seal::InboundReport<'_>,
    ) -> Result<(), Failure> {
        use seal::log::{LogEvent, LogEventType};
        for (frame, reason) in report.alarms() {
            let mut event = LogEvent::new(LogEventType::FrameAlarm)
                .text("conversation", conversation)
                .and_then(|event| event.text("reason", reason.code()))
                .and_then(|event| event.text("source", "prompt"));
            if let Some(id) = &frame.frame_id {
                event = event.and_then(|event| event.text("frame", id));
            }
            if let Some(key) = &frame.key_id {
                event = event.and_then(|event| event.text("key", key));
            }
            let event = event.map_err(|error| Failure::input(error.to_string()))?;
            self.append(event).map_err(|error| {
                Failure::input(format!(
                    "the decision log could not record an alarm: {error}"
                ))
            })?;
        }
        Ok(())
    }

    /// Records `event` now.
    pub fn append(&self, event: LogEvent) -> Result<(), String> {
        let mut log = self
            .log
            .lock()
            .map_err(|_| "the log's lock was poisoned".to_owned())?;
        log.append(event, self.time, &Signer(&self.key))
            .map(|_| ())
            .map_err(|error| error.to_string())
    }
}

impl LogSink for HookSink {
    fn record(&self, event: LogEvent) -> Result<(), String> {
        self.append(event)
    }
}

/// Records a disclosure event of `manifest` in the log of `flags`, if one is named. A failure
/// to record fails the command: an unrecorded disclosure is not cleared.
pub fn record_manifest(
    flags: &crate::cli::RecordLogFlags,
    kind: seal::log::LogEventType,
    manifest: &seal::Manifest,
    approval: Option<&str>,
    reason: Option<&str>,
) -> Result<(), Failure> {
    let time = crate::io::now(None)?.0;
    let Some(sink) = HookSink::open(flags.log.as_deref(), flags.log_key.as_deref(), time)? else {
        return Ok(());
    };
    let event = seal::log::manifest_event(kind, manifest, approval, reason)
        .map_err(|error| Failure::input(error.to_string()))?;
    sink.append(event)
        .map_err(|error| Failure::input(format!("the decision log could not record: {error}")))
}
