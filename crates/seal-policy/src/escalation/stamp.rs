//! What a call runs with (its mode, sandboxed or not) and, separately, whether it needs a prompt.

use crate::approval::ApprovalPolicy;
use crate::preset::{Executor, SandboxMode, Session};

use super::fields::{
    check_escalation, Escalation, EscalationError, EscalationFields, EscalationLimits,
};

/// How a call runs: its sandbox mode and whether it runs inside a sandbox. Whether it needs a
/// prompt is a separate output ([`CallPlan::needs_prompt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// The mode the call runs in.
    pub mode: SandboxMode,
    /// True when the call runs confined: the executor can sandbox and the mode is not
    /// `danger-full-access`.
    pub sandboxed: bool,
}

/// The plan for one call before any prompt: the stamp it runs with unless an escalation is
/// granted, and the validated escalation it asks for, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPlan {
    /// The stamp of the standing mode.
    pub standing: Stamp,
    /// The escalation to ask for, if the call carries one.
    pub escalation: Option<Escalation>,
    /// The approval policy the plan was made under.
    pub approval: ApprovalPolicy,
}

impl Stamp {
    /// The stamp of `mode` on `executor`.
    pub fn new(mode: SandboxMode, executor: Executor) -> Stamp {
        Stamp {
            mode,
            sandboxed: executor.can_sandbox && mode.is_confined(),
        }
    }
}

/// Plans one call: checks its escalation fields against the standing mode (refusing a
/// same-level or narrowing request before any prompt) and stamps the standing mode.
pub fn plan_call(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    approval: ApprovalPolicy,
    executor: Executor,
    limits: EscalationLimits,
) -> Result<CallPlan, EscalationError> {
    let escalation = check_escalation(fields, standing, executor, limits)?;
    Ok(CallPlan {
        standing: Stamp::new(standing, executor),
        escalation,
        approval,
    })
}

/// Plans one call of `session`: [`plan_call`] with the session's standing mode and approval
/// policy, and, for a delegated child, an escalation above its ceiling (the parent's standing
/// mode) is refused with [`EscalationError::AboveCeiling`] before any prompt, so no answer can
/// lift a child above its parent.
pub fn plan_session_call(
    session: &Session,
    fields: &EscalationFields<'_>,
    executor: Executor,
    limits: EscalationLimits,
) -> Result<CallPlan, EscalationError> {
    let plan = plan_call(
        fields,
        session.standing_mode(),
        session.approval_policy(),
        executor,
        limits,
    )?;
    if let (Some(escalation), Some(ceiling)) = (&plan.escalation, session.ceiling()) {
        if escalation.target() > ceiling {
            return Err(EscalationError::AboveCeiling {
                requested: escalation.target(),
                ceiling,
            });
        }
    }
    Ok(plan)
}

impl CallPlan {
    /// True when the call needs an approval decision (it carries a valid escalation).
    pub fn needs_approval(&self) -> bool {
        self.escalation.is_some()
    }

    /// True when a person or answerer will be asked: an approval is needed and the policy is
    /// `on-request`. Under `never` the escalation is rejected without a prompt.
    pub fn needs_prompt(&self) -> bool {
        self.needs_approval() && self.approval == ApprovalPolicy::OnRequest
    }
}
