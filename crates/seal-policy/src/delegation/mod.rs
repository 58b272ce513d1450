//! Delegation: a child session never holds more than its parent.
//!
//! [`spawn_child`] captures only the parent's explicit session sandbox override, pins the
//! child's approval policy to `never` where approval exists, and bounds the child's standing
//! mode by the meet of the parent's standing mode and the child's own request. A one-shot
//! grant of the parent is a value of one call ([`Grant`](crate::escalation::Grant)); it is
//! never stored in the parent session, so nothing of it reaches the child.
//!
//! ```
//! use seal_policy::approval::ApprovalPolicy;
//! use seal_policy::delegation::{spawn_child, ChildRequest};
//! use seal_policy::preset::{Knobs, PermissionState, SandboxMode, Session};
//!
//! let settings = PermissionState::from_knobs(
//!     Knobs::new(SandboxMode::WorkspaceWrite, ApprovalPolicy::OnRequest));
//! let parent = Session::fresh(&settings);
//! let child = spawn_child(&parent, ChildRequest {
//!     sandbox: Some(SandboxMode::DangerFullAccess),
//!     approval_exists: true,
//! }, &settings);
//! assert_eq!(child.standing_mode(), SandboxMode::WorkspaceWrite);
//! assert_eq!(child.approval_policy(), ApprovalPolicy::Never);
//! ```

mod child;

pub use child::{spawn_child, ChildRequest, CHILD_APPROVAL_NOTICE};
