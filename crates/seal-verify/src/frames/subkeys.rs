//! The verifier's conversation subkeys: derived at most once per master key and verifier.

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
    entries: RefCell<Vec<(Fingerprint, ConversationKey)>>,
}

impl SubkeyCache {
    /// Checks the text form `sig` over the signing input `parts` writes, with `key`: an HMAC
    /// key through its subkey for `conversation_id` (derived on first use, then kept), the
    /// input fed to the MAC piece by piece; an Ed25519 key directly over the input's bytes.
    pub(crate) fn verify_parts(
        &self,
        key: &VerifyingKey,
        conversation_id: &str,
        parts: &SigningInputParts<'_>,
        sig: &str,
    ) -> Result<(), VerifyFailure> {
        let master = match key {
            VerifyingKey::Hmac(master) => master,
            other => {
                return other
                    .verify_text(&parts.to_bytes(), sig)
                    .map_err(VerifyFailure::Signature)
            }
        };
        let fingerprint = master.fingerprint();
        if let Ok(entries) = self.entries.try_borrow() {
            if let Some((_, subkey)) = entries.iter().find(|(held, _)| *held == fingerprint) {
                return subkey
                    .verify_parts(master.tag_length(), parts, sig)
                    .map_err(VerifyFailure::Signature);
            }
        }
        let subkey = derive(master, conversation_id)?;
        let result = subkey
            .verify_parts(master.tag_length(), parts, sig)
            .map_err(VerifyFailure::Signature);
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            if entries.len() < SUBKEY_CACHE_CAPACITY {
                entries.push((fingerprint, subkey));
            }
        }
        result
    }
}

impl fmt::Debug for SubkeyCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = self.entries.try_borrow().map(|entries| entries.len()).ok();
        f.debug_struct("SubkeyCache").field("held", &held).finish()
    }
}

fn derive(master: &HmacKey, conversation_id: &str) -> Result<ConversationKey, VerifyFailure> {
    master
        .conversation_key(conversation_id)
        .map_err(VerifyFailure::Conversation)
}
