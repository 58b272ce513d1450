//! Resolving a key id for an intended use at a time, fail-closed.

use std::fmt;

use super::record::{FrameScope, KeyRecord, KeyStatus};
use crate::time::UnixTime;

/// Whether the caller wants to make a tag or check one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOperation {
    /// Make a new tag or signature: needs an [`KeyStatus::Active`] key.
    Sign,
    /// Check a tag or signature: an active or verify-only key.
    Verify,
}

/// What the key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose<'a> {
    /// A frame with this element name and these attributes (the `sig` attribute excluded).
    Frame {
        /// Element name.
        element: &'a str,
        /// Attributes in document order.
        attributes: &'a [(&'a str, &'a str)],
    },
    /// Approving a disclosure manifest.
    ManifestApproval,
    /// Signing the next trust store document.
    StoreUpdate,
}

/// An operation and a purpose, the second argument of every resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntendedUse<'a> {
    /// Sign or verify.
    pub operation: StoreOperation,
    /// What for.
    pub purpose: Purpose<'a>,
}

/// Which scope allowed a resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedScope {
    /// The frame scope at this index of the key's frame scopes.
    Frame(usize),
    /// The manifest approval scope.
    ManifestApproval,
    /// The store update scope.
    StoreUpdate,
}

/// A key record that may be used for the intended use at the given time.
#[derive(Debug, Clone, Copy)]
pub struct Resolved<'s> {
    /// The record.
    pub record: &'s KeyRecord,
    /// The scope that allowed it.
    pub scope: MatchedScope,
}

/// Why a key id did not resolve. Every failure refuses the key; there is no fallback.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResolveError {
    /// The store itself has expired: nothing resolves.
    StoreExpired {
        /// The store's expiry.
        expires: UnixTime,
        /// The time asked about.
        now: UnixTime,
    },
    /// No key has this id.
    UnknownKey {
        /// The id asked for.
        key_id: String,
    },
    /// The key is an HMAC key whose secret the embedder did not supply.
    SecretNotSupplied {
        /// The id.
        key_id: String,
    },
    /// The key's window has not started.
    NotYetValid {
        /// The window start.
        not_before: UnixTime,
    },
    /// The key's window has ended.
    KeyExpired {
        /// The window end.
        not_after: UnixTime,
    },
    /// The key is revoked at or before the time asked about.
    Revoked {
        /// The revocation time.
        at: UnixTime,
    },
    /// Signing was asked of a key that may only verify.
    VerifyOnly,
    /// The key's scopes do not cover the purpose.
    OutOfScope,
}

impl ResolveError {
    /// A stable snake_case name of the error, as used in the golden vectors and reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::StoreExpired { .. } => "store_expired",
            Self::UnknownKey { .. } => "unknown_key",
            Self::SecretNotSupplied { .. } => "secret_not_supplied",
            Self::NotYetValid { .. } => "not_yet_valid",
            Self::KeyExpired { .. } => "key_expired",
            Self::Revoked { .. } => "revoked",
            Self::VerifyOnly => "verify_only",
            Self::OutOfScope => "out_of_scope",
        }
    }
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StoreExpired { expires, now } => {
                write!(f, "trust store expired at {expires}, it is now {now}")
            }
            Self::UnknownKey { key_id } => write!(f, "no key `{}`", key_id.escape_debug()),
            Self::SecretNotSupplied { key_id } => write!(
                f,
                "the secret of key `{}` was not supplied",
                key_id.escape_debug()
            ),
            Self::NotYetValid { not_before } => write!(f, "key is not valid before {not_before}"),
            Self::KeyExpired { not_after } => write!(f, "key is not valid after {not_after}"),
            Self::Revoked { at } => write!(f, "key is revoked since {at}"),
            Self::VerifyOnly => f.write_str("key may verify but not sign"),
            Self::OutOfScope => f.write_str("key is not scoped for this use"),
        }
    }
}

impl std::error::Error for ResolveError {}

/// A source of keys. Resolution takes the key id (never key material from a message), the
/// intended use and the time, and fails closed: any doubt is an error.
pub trait KeySource {
    /// The record for `key_id` if it may be used as `intended` at `now`.
    fn resolve(
        &self,
        key_id: &str,
        intended: &IntendedUse<'_>,
        now: UnixTime,
    ) -> Result<Resolved<'_>, ResolveError>;
}

/// Decides whether `record` may be used as `intended` at `now`: window, status, then scope.
///
/// Every [`KeySource`] implementation should call this after finding the record, so the rules
/// are the same everywhere.
pub fn check_record<'s>(
    record: &'s KeyRecord,
    intended: &IntendedUse<'_>,
    now: UnixTime,
) -> Result<Resolved<'s>, ResolveError> {
    let validity = record.validity();
    if now < validity.not_before {
        return Err(ResolveError::NotYetValid {
            not_before: validity.not_before,
        });
    }
    if now > validity.not_after {
        return Err(ResolveError::KeyExpired {
            not_after: validity.not_after,
        });
    }
    match (record.status(), intended.operation) {
        (KeyStatus::Revoked { at }, _) if now >= at => return Err(ResolveError::Revoked { at }),
        (KeyStatus::Active, _) | (_, StoreOperation::Verify) => {}
        (KeyStatus::VerifyOnly | KeyStatus::Revoked { .. }, StoreOperation::Sign) => {
            return Err(ResolveError::VerifyOnly)
        }
    }
    let scopes = record.scopes();
    let scope = match intended.purpose {
        Purpose::Frame {
            element,
            attributes,
        } => scopes
            .frames
            .iter()
            .position(|scope: &FrameScope| scope.matches(element, attributes))
            .map(MatchedScope::Frame),
        Purpose::ManifestApproval => scopes
            .manifest_approval
            .then_some(MatchedScope::ManifestApproval),
        Purpose::StoreUpdate => scopes.store_update.then_some(MatchedScope::StoreUpdate),
    };
    let Some(scope) = scope else {
        return Err(ResolveError::OutOfScope);
    };
    Ok(Resolved { record, scope })
}
