//! Creating a delegated child session from its parent.

use crate::approval::ApprovalPolicy;
use crate::preset::{Knobs, PermissionState, SandboxMode, Session};

/// What a child asks for at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChildRequest {
    /// The sandbox mode the child asks for, if any. It is met with the parent's standing mode:
    /// asking wider than the parent gets the parent's mode.
    pub sandbox: Option<SandboxMode>,
    /// True when an approval service exists for the child. The child's approval policy is then
    /// pinned to `never`: it cannot prompt, and anything that needs approval is rejected.
    pub approval_exists: bool,
}

/// Creates a child session of `parent`, with fresh facts from `settings`.
///
/// - The child captures only the parent's explicit session sandbox override
///   ([`Session::sandbox_override`]); never the deployment default the parent was pinned to,
///   and never a one-shot grant (a grant is a value of one call and no session holds one).
/// - Its approval policy is `never` when approval exists.
/// - Its standing mode is the meet of the parent's standing mode and its own request (or, with
///   no request, the captured override, else the fresh default), and stays within the parent's
///   standing mode for the child's whole life, whatever it selects later.
pub fn spawn_child(parent: &Session, request: ChildRequest, settings: &PermissionState) -> Session {
    let approval = if request.approval_exists {
        ApprovalPolicy::Never
    } else {
        settings.knobs.approval
    };
    let pinned = PermissionState {
        selection: settings.selection.clone(),
        knobs: Knobs {
            sandbox: settings.knobs.sandbox,
            approval,
        },
    };
    let captured = request.sandbox.or(parent.sandbox_override());
    Session::delegated(
        pinned,
        captured,
        parent.standing_mode(),
        request.approval_exists,
    )
}

/// The text a child's model is told about approval when its policy is pinned to `never`.
pub const CHILD_APPROVAL_NOTICE: &str =
    "approval is not available to this delegated task: operations that need approval are rejected";
