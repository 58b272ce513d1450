//! The verifier's conversation subkeys: each derived at most once per master key and verifier
//! (or per [`ConversationKeys`]), then kept.

use std::cell::RefCell;
use std::fmt;

use seal_record::SigningInputParts;

use crate::fingerprint::Fingerprint;
use crate::hmac_key::{ConversationKey, HmacKey};
use crate::key::VerifyingKey;
use crate::store::VerifyFailure;

/// Most conversation subkeys one [`FrameVerifier`](crate::FrameVerifier) keeps: 8. A verifier
/// that meets more distinct HMAC master keys derives the subkeys of the others for every tag
/// it checks (correct, only slower).
pub const SUBKEY_CACHE_CAPACITY: usize = 8;

/// Conversation subkeys of one verifier, keyed by the master key's fingerprint (SHA-256 of its
/// secret). The verifier's conversation id is fixed, so a fingerprint names exactly one subkey;
/// the tag length is always taken from the master key in hand.
#[derive(Default)]
pub(crate) struct SubkeyCache {
    subkeys: RefCell<Vec<(Fingerprint, ConversationKey)>>,
}

impl SubkeyCache {
    /// Checks the text form `sig` over the signing input `parts` writes, with `key`: an HMAC
    /// key through its subkey for `conversation_id` (derived on first use, then kept), an
    /// Ed25519 key directly.
    pub(crate) fn verify_parts(
        &self,
        key: &VerifyingKey,
        conversation_id: &str,
        parts: &SigningInputParts<'_>,
        sig: &str,
    ) -> Result<(), VerifyFailure> {
        let VerifyingKey::Hmac(master) = key else {
            return key
                .verify_text(&parts.to_bytes(), sig)
                .map_err(VerifyFailure::Signature);
        };
        let check = |subkey: &ConversationKey| {
            subkey
                .verify_parts(master.tag_length(), parts, sig)
                .map_err(VerifyFailure::Signature)
        };
        let fingerprint = master.fingerprint();
        // Not held by anyone else: a check never calls back into the cache.
        let Ok(mut subkeys) = self.subkeys.try_borrow_mut() else {
            return check(&derive(master, conversation_id)?);
        };
        if let Some((_, subkey)) = subkeys.iter().find(|(held, _)| *held == fingerprint) {
            return check(subkey);
        }
        let subkey = derive(master, conversation_id)?;
        let result = check(&subkey);
        if subkeys.len() < SUBKEY_CACHE_CAPACITY {
            subkeys.push((fingerprint, subkey));
        }
        result
    }

    /// How many master keys' subkeys are held.
    pub(crate) fn held(&self) -> usize {
        self.subkeys.try_borrow().map_or(0, |subkeys| subkeys.len())
    }
}

/// The conversation subkeys of one conversation, held across verifiers:
/// [`FrameVerifier::with_keys`](crate::FrameVerifier::with_keys) checks HMAC tags with these
/// instead of deriving them again, so an embedder that builds a verifier per message (its time
/// and seen set change) derives each subkey once per conversation. Holds at most
/// [`SUBKEY_CACHE_CAPACITY`] master keys' subkeys, like one verifier.
///
/// Not shared between threads (one conversation's messages are verified in turn); move it
/// where it is needed.
pub struct ConversationKeys {
    conversation_id: String,
    cache: SubkeyCache,
}

impl ConversationKeys {
    /// Subkeys for `conversation_id` (the conversation the embedder is in, never one named by a
    /// message), none derived yet.
    pub fn new(conversation_id: &str) -> ConversationKeys {
        ConversationKeys {
            conversation_id: conversation_id.to_owned(),
            cache: SubkeyCache::default(),
        }
    }

    /// The conversation the subkeys are for.
    pub fn conversation_id(&self) -> &str {
        &self.conversation_id
    }

    /// How many master keys' subkeys are held.
    pub fn held(&self) -> usize {
        self.cache.held()
    }

    pub(crate) fn cache(&self) -> &SubkeyCache {
        &self.cache
    }
}

impl fmt::Debug for ConversationKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConversationKeys")
            .field("conversation_id", &self.conversation_id)
            .field("held", &self.held())
            .finish()
    }
}

fn derive(master: &HmacKey, conversation_id: &str) -> Result<ConversationKey, VerifyFailure> {
    master
        .conversation_key(conversation_id)
        .map_err(VerifyFailure::Conversation)
}
