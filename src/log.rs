//! The decision and disclosure log (spec/audit-log.md): the record types, the transparency-log
//! formats, the verifier, and the sink an embedder plugs into a [`Seal`] so every decision it
//! makes is recorded.
//!
//! The core builds the records; the sink writes them (the `seal` binary's sink is the SQLite
//! log of the `seal-log-sqlite` crate). A decision whose record the sink refuses is a deny:
//! a decision nobody can account for is not made.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use seal::log::{LogEvent, LogEventType, LogSink};
//! use seal::{Prepared, Seal};
//!
//! #[derive(Default)]
//! struct Memory(Mutex<Vec<LogEvent>>);
//!
//! impl LogSink for Memory {
//!     fn record(&self, event: LogEvent) -> Result<(), String> {
//!         self.0.lock().map_err(|_| "poisoned".to_owned())?.push(event);
//!         Ok(())
//!     }
//! }
//!
//! let sink = Arc::new(Memory::default());
//! let seal = Seal::builder()
//!     .rules_json(r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#)
//!     .log_sink(sink.clone())
//!     .build()?;
//! let session = seal.open_session("session-1")?;
//! let call = seal.call(&session, "agent-1", "call-1", "Bash", r#"{"command":"rm -rf t"}"#)?;
//! assert!(matches!(seal.prepare(&call, None), Prepared::Deny(_)));
//! let events = sink.0.lock().unwrap();
//! assert_eq!(events[0].kind(), LogEventType::Decision);
//! assert_eq!(events[0].text_of("decision"), Some("deny"));
//! assert_eq!(events[0].text_of("by"), Some("rules: Bash(rm:*)"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::dispatch::Prepared;
use crate::seal::Seal;
use crate::session::Call;

pub use seal_record::tlog;
pub use seal_record::{
    log_text, LogEvent, LogEventType, LogRecord, LogRecordError, LogValue, SentFile, LOG_DECISIONS,
    MAX_LOG_FILES, MAX_LOG_INTEGER, MAX_LOG_RECORD_BYTES, MAX_LOG_TEXT_BYTES,
};
pub use seal_verify::{
    open_checkpoint, verify_audit_log, verify_audit_log_with, AuditBreak, AuditBreakKind,
    AuditLogSource, AuditReadError, AuditRow, AuditStrength, AuditVerdict, CheckpointOpener,
    LogKeyError, LogSigningKey, LogVerifierKey, SignedCheckpointError, VerifiedCheckpoint,
    AUDIT_SPINE_STEP, LOG_PUBLIC_KEY_BYTES, LOG_SEED_BYTES,
};

/// Where a [`Seal`] records its decisions.
pub trait LogSink: Send + Sync {
    /// Records `event`. An error turns the decision it records into a deny.
    fn record(&self, event: LogEvent) -> Result<(), String>;
}

/// The `hook/decision` event of `prepared`, the decision `seal` made on `call`: the call's
/// agent, session, tool and call id, the decision, the stage (and rule) that decided, the
/// policy digest and the arguments digest. Never the arguments themselves.
pub fn decision_event(
    seal: &Seal,
    call: &Call,
    prepared: &Prepared<'_>,
    shadow: bool,
) -> Result<LogEvent, LogRecordError> {
    let (decision, trace) = match prepared {
        Prepared::Run(run) => ("allow", run.trace()),
        Prepared::Deny(deny) => ("deny", deny.trace()),
        Prepared::NeedsApproval(pending) => ("ask", pending.trace()),
    };
    let by = match trace.decided_by() {
        Some(step) => match step.because() {
            Some(because) => format!("{}: {}", step.stage().name(), because.rule_text()),
            None => step.stage().name().to_owned(),
        },
        None => "guards".to_owned(),
    };
    let event = LogEvent::new(LogEventType::Decision)
        .text("agent", call.agent().unwrap_or_default())?
        .text("session", call.session_id())?
        .text("tool", call.tool())?
        .text("call_id", call.call_id())?
        .choice("decision", decision)?
        .text("by", &by)?
        .digest("policy", seal.policy_digest())?
        .digest("arguments", call.arguments_sha256())?;
    if shadow {
        event.flag("shadow")
    } else {
        Ok(event)
    }
}

/// A disclosure event of `manifest`: `manifest/sealed` and `manifest/approved` name the
/// manifest (and the approval); `manifest/verified` adds what left the machine: provider,
/// model, payload and policy digests, and each file with its line ranges and digest;
/// `manifest/refused` adds the reason.
pub fn manifest_event(
    kind: LogEventType,
    manifest: &crate::Manifest,
    approval: Option<&str>,
    reason: Option<&str>,
) -> Result<LogEvent, LogRecordError> {
    let fields = manifest.fields();
    let mut event = LogEvent::new(kind).digest("manifest", manifest.disclosure_hash())?;
    if kind == LogEventType::ManifestVerified {
        let files = fields
            .files()
            .iter()
            .map(|file| {
                let lines: Vec<String> = file
                    .ranges()
                    .iter()
                    .map(|range| format!("{}-{}", range.start, range.end))
                    .collect();
                SentFile {
                    path: log_text(file.path().as_str()),
                    lines: log_text(&lines.join(",")),
                    sha256: file.sha256(),
                }
            })
            .collect();
        event = event
            .digest("payload", fields.payload_sha256())?
            .text("provider", fields.provider())?
            .text("model", fields.model())?
            .digest("policy", fields.policy_sha256())?
            .files("files", files)?;
    }
    if let Some(approval) = approval {
        event = event.text("approval", approval)?;
    }
    if let Some(reason) = reason {
        event = event.text("reason", reason)?;
    }
    Ok(event)
}
