//! What preparing a tool call yields: run (with the sandbox stamp and the trace), deny (with
//! the reason and the trace), or needs approval.

use std::fmt;

use seal_policy::approval::Action;
use seal_policy::pipeline;
use seal_record::{ApprovalAsked, ApprovalDecided, Record};

use crate::approval::PendingApproval;
use crate::session::Call;
use crate::SandboxMode;

/// The result of [`Seal::prepare`](crate::Seal::prepare): exactly one of run, deny or needs
/// approval (the facade's form of the pipeline's
/// [`seal_policy::pipeline::Prepared`], with the call id and the approval card). Every failure on the way (a listener error, a guard panic, an invalid escalation,
/// a refused approval) is a deny.
#[derive(Debug)]
#[must_use = "a prepared call is dispatched only on `Run`"]
pub enum Prepared<'a> {
    /// Dispatch the call, confined as the stamp says.
    Run(Run),
    /// Do not dispatch the call.
    Deny(Deny),
    /// Ask first: show the card, log the `approval/asked` event, then settle the pending value.
    /// Dropping it dispatches nothing.
    NeedsApproval(PendingApproval<'a>),
}

/// The final word on a call after approval: run or deny.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a settled call is dispatched only on `Run`"]
pub enum Dispatch {
    /// Dispatch the call, confined as the stamp says.
    Run(Run),
    /// Do not dispatch the call.
    Deny(Deny),
}

/// Permission to dispatch one call. Only seal constructs it: the waterfall (or an
/// `allowed-once` approval) allowed the call, no stage failed, and every guard passed. Made
/// from the pipeline's [`seal_policy::pipeline::Run`], with the call id and the audit events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub(crate) call_id: String,
    pub(crate) stamp: Stamp,
    pub(crate) trace: Trace,
    pub(crate) audit: Vec<AuditEvent>,
}

/// A refused call: the pipeline's refusal ([`seal_policy::pipeline::Deny`]: its escaped
/// reason, the stage that refused and the trace, read with this value's accessors), with the
/// call id and the approval's audit events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deny {
    pub(crate) call_id: String,
    pub(crate) refused: pipeline::Deny,
    pub(crate) audit: Vec<AuditEvent>,
}

/// Which stage refused a call: a rule, listener or the fallback (`Decided`), a guard, a stage
/// that failed, the approval outcome, or an invalid escalation request.
pub use seal_policy::chain::DenyCause;

/// How a call runs: its sandbox mode, and whether it runs confined (the core's
/// [`seal_policy::escalation::Stamp`]), and whether the mode comes from an escalation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// The mode for this one call (the standing mode, or a granted escalation's mode).
    pub mode: SandboxMode,
    /// True when the call runs inside the sandbox (the executor confines and the mode is not
    /// `danger-full-access`).
    pub sandboxed: bool,
    /// True when the mode comes from an escalation granted for this call only.
    pub escalated: bool,
}

/// Which stages ran, what each returned, and which one decided: the core's trace (names and
/// reasons as the stages gave them; escape them for display, as `Display` does), with the
/// rules listener's reading when the call was prepared with
/// [`Seal::prepare_explaining`](crate::Seal::prepare_explaining).
pub use seal_policy::chain::{Returned, Stage, StageKind, Step, Trace, Via};

/// An audit event to append to the session log: `approval/asked` or `approval/decided`, as
/// RFC 8785 canonical JSON (never the call's arguments: the call id links to them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEvent {
    kind: &'static str,
    approval_id: String,
    json: String,
}

impl Run {
    /// The call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The sandbox stamp for this call.
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// The explanation trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The audit events of the approval, if one was asked (`approval/asked`, then
    /// `approval/decided`).
    pub fn audit_events(&self) -> &[AuditEvent] {
        &self.audit
    }
}

impl Deny {
    /// The call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The audit events of the approval, if one was asked (`approval/asked`, then
    /// `approval/decided`).
    pub fn audit_events(&self) -> &[AuditEvent] {
        &self.audit
    }
}

impl Deny {
    /// Why the call was refused, escaped once for display (escape-v1, inline context).
    pub fn reason(&self) -> &crate::render::Escaped {
        self.refused.reason()
    }

    /// Which stage refused it.
    pub fn cause(&self) -> DenyCause {
        self.refused.cause()
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        self.refused.trace()
    }
}

impl Dispatch {
    /// True for [`Dispatch::Run`] only.
    pub fn is_run(&self) -> bool {
        matches!(self, Dispatch::Run(_))
    }

    /// The audit events of the approval: `approval/asked`, then `approval/decided`.
    pub fn audit_events(&self) -> &[AuditEvent] {
        match self {
            Dispatch::Run(run) => run.audit_events(),
            Dispatch::Deny(deny) => deny.audit_events(),
        }
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        match self {
            Dispatch::Run(run) => run.trace(),
            Dispatch::Deny(deny) => deny.trace(),
        }
    }
}

impl Run {
    /// The run the pipeline cleared for `call`.
    pub(crate) fn cleared(call: &Call, cleared: &pipeline::Run) -> Run {
        Run {
            call_id: call.call_id().to_owned(),
            stamp: Stamp {
                mode: cleared.stamp().mode,
                sandboxed: cleared.stamp().sandboxed,
                escalated: cleared.escalated(),
            },
            trace: cleared.trace().clone(),
            audit: audit_events(cleared.audit()),
        }
    }
}

impl Deny {
    /// The denial of `call` the pipeline gave.
    pub(crate) fn refused(call: &Call, refused: pipeline::Deny) -> Deny {
        let audit = audit_events(refused.audit());
        let call_id = call.call_id().to_owned();
        Deny {
            call_id,
            refused,
            audit,
        }
    }
}

/// The audit events of the approval records among `effects`.
fn audit_events(effects: &[Action]) -> Vec<AuditEvent> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Action::Asked(record) => Some(AuditEvent::asked(record)),
            Action::Decided(record) => Some(AuditEvent::decided(record)),
            _ => None,
        })
        .collect()
}

impl AuditEvent {
    pub(crate) fn asked(record: &ApprovalAsked) -> AuditEvent {
        AuditEvent {
            kind: seal_record::APPROVAL_ASKED_TYPE,
            approval_id: record.id().to_owned(),
            json: canonical_text(record),
        }
    }

    pub(crate) fn decided(record: &ApprovalDecided) -> AuditEvent {
        AuditEvent {
            kind: seal_record::APPROVAL_DECIDED_TYPE,
            approval_id: record.id().to_owned(),
            json: canonical_text(record),
        }
    }

    /// The record type: `approval/asked` or `approval/decided`.
    pub fn kind(&self) -> &str {
        self.kind
    }

    /// The approval id.
    pub fn approval_id(&self) -> &str {
        &self.approval_id
    }

    /// The record as RFC 8785 canonical JSON (UTF-8; record text never holds a control, bidi
    /// or invisible character).
    pub fn json(&self) -> &str {
        &self.json
    }
}

impl fmt::Display for AuditEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.json)
    }
}

fn canonical_text(record: &impl Record) -> String {
    let canonical = record.canonical();
    String::from_utf8_lossy(canonical.as_bytes()).into_owned()
}
