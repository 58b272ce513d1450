//! The witness of a successful verification.

use std::fmt;

use super::record::KeyIdText;
use super::resolve::{
    IntendedUse, KeySource, MatchedScope, Purpose, ResolveError, Resolved, StoreOperation,
};
use crate::error::SignatureError;
use crate::fingerprint::Fingerprint;
use crate::hmac_key::SubkeyError;
use crate::key::Algorithm;
use crate::key::VerifyingKey;
use crate::time::UnixTime;

/// Proof that a signature was checked: only this crate's verification functions build one
/// ([`verify_signature`], [`verify_signature_in_conversation`]).
///
/// Code that needs verified data should take a `Verified`, not a boolean.
#[derive(Debug, Clone)]
pub struct Verified {
    key_id: KeyIdText,
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
    /// A compact-length key was used outside a conversation.
    CompactNeedsConversation,
    /// The conversation id cannot derive a subkey.
    Conversation(SubkeyError),
}

impl fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Key(error) => write!(f, "key refused: {error}"),
            Self::Signature(error) => write!(f, "signature refused: {error}"),
            Self::CompactNeedsConversation => {
                f.write_str("compact tags are checked only with a conversation subkey")
            }
            Self::Conversation(error) => write!(f, "conversation refused: {error}"),
        }
    }
}

impl std::error::Error for VerifyFailure {}

impl Verified {
    /// The id of the key that verified.
    pub fn key_id(&self) -> &str {
        self.key_id.as_str()
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
///
/// A key with the `compact` tag length is refused here ([`VerifyFailure::CompactNeedsConversation`]):
/// compact tags are allowed only with per-conversation subkeys, so they are checked only by
/// [`verify_signature_in_conversation`].
pub fn verify_signature<S: KeySource + ?Sized>(
    store: &S,
    key_id: &str,
    purpose: Purpose<'_>,
    now: UnixTime,
    message: &[u8],
    sig: &str,
) -> Result<Verified, VerifyFailure> {
    let resolved = resolve_for_verify(store, key_id, purpose, now)?;
    let key = resolved.record.key();
    if let VerifyingKey::Hmac(hmac) = key {
        if hmac.tag_length().is_compact() {
            return Err(VerifyFailure::CompactNeedsConversation);
        }
    }
    key.verify_text(message, sig)
        .map_err(VerifyFailure::Signature)?;
    Ok(Verified::new(&resolved))
}

/// As [`verify_signature`], but an HMAC key checks with its per-conversation subkey for
/// `conversation_id` (the conversation the verifier is in, never one named by the message).
/// Ed25519 keys check as in [`verify_signature`]: their signatures need no shared secret.
pub fn verify_signature_in_conversation<S: KeySource + ?Sized>(
    store: &S,
    key_id: &str,
    purpose: Purpose<'_>,
    now: UnixTime,
    conversation_id: &str,
    message: &[u8],
    sig: &str,
) -> Result<Verified, VerifyFailure> {
    let resolved = resolve_for_verify(store, key_id, purpose, now)?;
    match resolved.record.key() {
        VerifyingKey::Hmac(master) => master
            .conversation_key(conversation_id)
            .map_err(VerifyFailure::Conversation)?
            .verify_text(master.tag_length(), message, sig),
        other => other.verify_text(message, sig),
    }
    .map_err(VerifyFailure::Signature)?;
    Ok(Verified::new(&resolved))
}

impl Verified {
    /// The witness of a check that passed against `resolved`.
    #[inline]
    pub(crate) fn new(resolved: &Resolved<'_>) -> Verified {
        let key = resolved.record.key();
        Verified {
            key_id: resolved.record.id_text(),
            algorithm: key.algorithm(),
            fingerprint: key.fingerprint(),
            scope: resolved.scope,
        }
    }
}

fn resolve_for_verify<'s, S: KeySource + ?Sized>(
    store: &'s S,
    key_id: &str,
    purpose: Purpose<'_>,
    now: UnixTime,
) -> Result<Resolved<'s>, VerifyFailure> {
    let intended = IntendedUse {
        operation: StoreOperation::Verify,
        purpose,
    };
    store
        .resolve(key_id, &intended, now)
        .map_err(VerifyFailure::Key)
}
