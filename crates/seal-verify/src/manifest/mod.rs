//! Manifest verification before spawn, with an optional signed approval (spec/manifest-v1.md,
//! "Verification before spawn").

mod approval;
mod spawn;

pub use approval::{
    approval_signing_input, is_approval_id, verify_approval, ApprovalCheck, ApprovalError,
    ApprovedHash, SignedApproval, APPROVAL_DOMAIN, MAX_APPROVAL_ID_LEN,
};
pub use spawn::{
    verify_before_spawn, verify_signed_before_spawn, FileDigests, LivePayload, LiveState,
    SpawnClearance, SpawnError, StaleItem,
};
