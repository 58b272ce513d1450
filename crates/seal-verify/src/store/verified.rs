//! The witness of a successful verification.

use std::fmt;

use super::resolve::{IntendedUse, MatchedScope, Operation, Purpose, ResolveError, TrustStore};
use crate::error::SignatureError;
use crate::fingerprint::Fingerprint;
use crate::key::Algorithm;
use crate::time::UnixTime;

/// Proof that a signature was checked: only [`verify_signature`] builds one.
///
/// Code that needs verified data should take a `Verified`, not a boolean.
#[derive(Debug, Clone)]
pub struct Verified {
    key_id: String,
    algorithm: Algorithm,
    fingerprint: Fingerprint,
    scope: MatchedScope,
}

/// Why a signature was not accepted: the key did not resolve, or the signature did not check.
/// For the operator's report; toward the sender both are one "bad signature".
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyFailure {
    /// The key id did not resolve for this use at this time.
    Key(ResolveError),
    /// The signature did not check.
    Signature(SignatureError),
}

impl fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Key(error) => write!(f, "key refused: {error}"),
            Self::Signature(error) => write!(f, "signature refused: {error}"),
        }
    }
}

impl std::error::Error for VerifyFailure {}

impl Verified {
    /// The id of the key that verified.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The key's bound algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The key's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The scope that allowed the use.
    pub fn scope(&self) -> MatchedScope {
        self.scope
    }
}

/// Resolves `key_id` in `store` for verifying `purpose` at `now`, then checks the text form
/// `sig` over `message` with the resolved key's bound algorithm and tag length.
pub fn verify_signature<S: TrustStore + ?Sized>(
    store: &S,
    key_id: &str,
    purpose: Purpose<'_>,
    now: UnixTime,
    message: &[u8],
    sig: &str,
) -> Result<Verified, VerifyFailure> {
    let intended = IntendedUse {
        operation: Operation::Verify,
        purpose,
    };
    let resolved = store
        .resolve(key_id, &intended, now)
        .map_err(VerifyFailure::Key)?;
    let key = resolved.record.key();
    key.verify_text(message, sig)
        .map_err(VerifyFailure::Signature)?;
    Ok(Verified {
        key_id: resolved.record.id().to_owned(),
        algorithm: key.algorithm(),
        fingerprint: key.fingerprint(),
        scope: resolved.scope,
    })
}
