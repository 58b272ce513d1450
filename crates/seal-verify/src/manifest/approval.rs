//! Signed approval of a disclosure hash: an Ed25519 approver key scoped to manifest approval,
//! a single-use approval id and a not-after time.

use std::fmt;

use seal_record::{count_piece_u64, Sha256Digest, SigningInput};

use crate::ed25519::Ed25519SigningKey;
use crate::replay::{Claim, ClaimError, ClaimOutcome, ClaimScope, ReplayStore};
use crate::store::{is_key_id, verify_signature, KeySource, Purpose, ResolveError, VerifyFailure};
use crate::time::UnixTime;

/// Domain string of the approval signing input.
pub const APPROVAL_DOMAIN: &str = "seal/manifest-approval/v1";

/// Longest approval id, in bytes: 64 (the key id limit).
pub const MAX_APPROVAL_ID_LEN: usize = crate::store::MAX_KEY_ID_LEN;

/// An approval id: the key id grammar ([`is_key_id`]), 1 to [`MAX_APPROVAL_ID_LEN`] characters
/// from `A-Z a-z 0-9 . _ -`.
pub fn is_approval_id(id: &str) -> bool {
    is_key_id(id)
}

/// The bytes an approver signs:
/// `PAE("seal/manifest-approval/v1", key id, approval id, LE64(not after), disclosure hash)`,
/// the hash as its 32 raw bytes.
pub fn approval_signing_input(
    key_id: &str,
    approval_id: &str,
    not_after: UnixTime,
    disclosure_hash: &Sha256Digest,
) -> SigningInput {
    SigningInput::new(
        APPROVAL_DOMAIN,
        &[
            key_id.as_bytes(),
            approval_id.as_bytes(),
            &count_piece_u64(not_after.seconds()),
            disclosure_hash.as_bytes(),
        ],
    )
}

/// An approver's signature over a disclosure hash, as it travels: key id, approval id, not-after
/// time, the hash, and the signature text (86 base64url characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedApproval {
    key_id: String,
    approval_id: String,
    not_after: UnixTime,
    disclosure_hash: Sha256Digest,
    signature: String,
}

/// What a checked approval approves. Only [`verify_approval`] builds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovedHash {
    disclosure_hash: Sha256Digest,
    key_id: String,
    approval_id: String,
}

/// Where and when an approval is checked: the trust store, the time, and the replay store in
/// which the approval id is claimed (scope [`ClaimScope::Approval`] of the approver key, until
/// the approval's not-after time), so one approval clears one spawn.
pub struct ApprovalCheck<'a, S: KeySource + ?Sized> {
    /// The trust store holding approver keys.
    pub store: &'a S,
    /// The time of the check.
    pub now: UnixTime,
    /// The replay store approval ids are claimed in.
    pub replay: &'a dyn ReplayStore,
}

impl<S: KeySource + ?Sized> fmt::Debug for ApprovalCheck<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalCheck")
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

/// Why an approval was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalError {
    /// The key id is outside the key id grammar.
    InvalidKeyId {
        /// The id.
        key_id: String,
    },
    /// The approval id is outside [`is_approval_id`].
    InvalidApprovalId {
        /// The id.
        approval_id: String,
    },
    /// The key is not scoped for manifest approval.
    WrongScope,
    /// The key did not resolve (unknown, not valid now, revoked, store expired).
    Key(ResolveError),
    /// The signature did not check.
    BadSignature(VerifyFailure),
    /// The approval's not-after time has passed.
    Expired {
        /// The approval's last valid second.
        not_after: UnixTime,
        /// The time of the check.
        now: UnixTime,
    },
    /// The approval id was already used (its claim was not fresh).
    Reused {
        /// The id.
        approval_id: String,
    },
    /// The replay store could not answer the claim of the approval id: the approval is not
    /// accepted (fail closed).
    ClaimFailed(ClaimError),
}

impl fmt::Display for ApprovalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidKeyId { key_id } => {
                write!(f, "`{}` is not a key id", key_id.escape_debug())
            }
            Self::InvalidApprovalId { approval_id } => {
                write!(f, "`{}` is not an approval id", approval_id.escape_debug())
            }
            Self::WrongScope => f.write_str("key is not scoped for manifest approval"),
            Self::Key(error) => write!(f, "approver key refused: {error}"),
            Self::BadSignature(failure) => write!(f, "approval signature refused: {failure}"),
            Self::Expired { not_after, now } => {
                write!(f, "approval expired at {not_after}, it is now {now}")
            }
            Self::Reused { approval_id } => write!(
                f,
                "approval id `{}` was already used",
                approval_id.escape_debug()
            ),
            Self::ClaimFailed(error) => write!(f, "approval id not claimed: {error}"),
        }
    }
}

impl std::error::Error for ApprovalError {}

impl SignedApproval {
    /// Signs `disclosure_hash` with `key` under `key_id`, valid until `not_after` (inclusive)
    /// and usable once as `approval_id`.
    ///
    /// # Errors
    /// [`ApprovalError::InvalidKeyId`] or [`ApprovalError::InvalidApprovalId`].
    pub fn sign(
        key: &Ed25519SigningKey,
        key_id: &str,
        approval_id: &str,
        not_after: UnixTime,
        disclosure_hash: Sha256Digest,
    ) -> Result<SignedApproval, ApprovalError> {
        check_ids(key_id, approval_id)?;
        let input = approval_signing_input(key_id, approval_id, not_after, &disclosure_hash);
        Ok(SignedApproval {
            key_id: key_id.to_owned(),
            approval_id: approval_id.to_owned(),
            not_after,
            disclosure_hash,
            signature: key.sign(input.bytes()).to_text(),
        })
    }

    /// An approval received from elsewhere, to be checked by [`verify_approval`].
    pub fn from_parts(
        key_id: &str,
        approval_id: &str,
        not_after: UnixTime,
        disclosure_hash: Sha256Digest,
        signature: &str,
    ) -> SignedApproval {
        SignedApproval {
            key_id: key_id.to_owned(),
            approval_id: approval_id.to_owned(),
            not_after,
            disclosure_hash,
            signature: signature.to_owned(),
        }
    }

    /// The approver's key id.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The single-use approval id.
    pub fn approval_id(&self) -> &str {
        &self.approval_id
    }

    /// The last second the approval is valid.
    pub fn not_after(&self) -> UnixTime {
        self.not_after
    }

    /// The approved disclosure hash.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.disclosure_hash
    }

    /// The signature text.
    pub fn signature(&self) -> &str {
        &self.signature
    }

    /// The signing input this approval's signature covers.
    pub fn signing_input(&self) -> SigningInput {
        approval_signing_input(
            &self.key_id,
            &self.approval_id,
            self.not_after,
            &self.disclosure_hash,
        )
    }
}

impl ApprovedHash {
    /// The approved disclosure hash.
    pub fn disclosure_hash(&self) -> Sha256Digest {
        self.disclosure_hash
    }

    /// The approver's key id.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The approval id, to record as used.
    pub fn approval_id(&self) -> &str {
        &self.approval_id
    }
}

/// Checks an approval: ids in their grammar, the key resolved for manifest approval at `now`
/// (an Ed25519 key: the store refuses that scope on HMAC keys), the signature over
/// [`approval_signing_input`], then `now <= not_after`, then claims the approval id in the
/// replay store (scope [`ClaimScope::Approval`] of the key, living until `not_after`): only a
/// fresh claim approves.
///
/// # Errors
/// The first check that fails, as an [`ApprovalError`] ([`ApprovalError::Reused`] for a
/// claim that was not fresh, [`ApprovalError::ClaimFailed`] when the store cannot answer).
pub fn verify_approval<S: KeySource + ?Sized>(
    approval: &SignedApproval,
    check: &ApprovalCheck<'_, S>,
) -> Result<ApprovedHash, ApprovalError> {
    let approved = check_approval(approval, check)?;
    claim_approval(&approved, approval.not_after, check)?;
    Ok(approved)
}

/// Every check of [`verify_approval`] but the claim.
pub(crate) fn check_approval<S: KeySource + ?Sized>(
    approval: &SignedApproval,
    check: &ApprovalCheck<'_, S>,
) -> Result<ApprovedHash, ApprovalError> {
    check_ids(&approval.key_id, &approval.approval_id)?;
    let input = approval.signing_input();
    verify_signature(
        check.store,
        &approval.key_id,
        Purpose::ManifestApproval,
        check.now,
        input.bytes(),
        &approval.signature,
    )
    .map_err(|failure| match failure {
        VerifyFailure::Key(ResolveError::OutOfScope) => ApprovalError::WrongScope,
        VerifyFailure::Key(error) => ApprovalError::Key(error),
        other => ApprovalError::BadSignature(other),
    })?;
    if check.now > approval.not_after {
        return Err(ApprovalError::Expired {
            not_after: approval.not_after,
            now: check.now,
        });
    }
    Ok(ApprovedHash {
        disclosure_hash: approval.disclosure_hash,
        key_id: approval.key_id.clone(),
        approval_id: approval.approval_id.clone(),
    })
}

/// Claims the id of a checked approval, to live until `not_after` (after which the approval is
/// expired anyway).
pub(crate) fn claim_approval<S: KeySource + ?Sized>(
    approved: &ApprovedHash,
    not_after: UnixTime,
    check: &ApprovalCheck<'_, S>,
) -> Result<(), ApprovalError> {
    let claim = Claim {
        scope: ClaimScope::Approval(&approved.key_id),
        id: &approved.approval_id,
        now: check.now,
        expires_at: not_after,
    };
    match check.replay.claim(&claim) {
        Ok(ClaimOutcome::Fresh) => Ok(()),
        Ok(ClaimOutcome::Replayed) => Err(ApprovalError::Reused {
            approval_id: approved.approval_id.clone(),
        }),
        Err(error) => Err(ApprovalError::ClaimFailed(error)),
    }
}

fn check_ids(key_id: &str, approval_id: &str) -> Result<(), ApprovalError> {
    if !is_key_id(key_id) {
        return Err(ApprovalError::InvalidKeyId {
            key_id: key_id.to_owned(),
        });
    }
    if !is_approval_id(approval_id) {
        return Err(ApprovalError::InvalidApprovalId {
            approval_id: approval_id.to_owned(),
        });
    }
    Ok(())
}
