//! The verifier's conversation subkeys: derived at most once per master key and verifier.

use std::cell::RefCell;
use std::fmt;

use ring::hmac;
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
/// the tag length is always taken from the master key in hand. With each subkey the cache keeps
/// the MAC state after the head of the first signing input it checked (key id, algorithm, tag
/// length, element: the same for every frame of that key and element), and the head's bytes; a
/// later input whose head is exactly those bytes starts from that state.
#[derive(Default)]
pub(crate) struct SubkeyCache {
    entries: RefCell<Vec<Entry>>,
}

struct Entry {
    fingerprint: Fingerprint,
    subkey: ConversationKey,
    head: Vec<u8>,
    after_head: hmac::Context,
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
            if let Some(entry) = entries.iter().find(|held| held.fingerprint == fingerprint) {
                let head = parts.head_is(&entry.head).then_some(&entry.after_head);
                return entry
                    .subkey
                    .verify_parts(master.tag_length(), parts, head, sig)
                    .map_err(VerifyFailure::Signature);
            }
        }
        let subkey = derive(master, conversation_id)?;
        let (after_head, head) = subkey.after_head(parts);
        let result = subkey
            .verify_parts(master.tag_length(), parts, Some(&after_head), sig)
            .map_err(VerifyFailure::Signature);
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            if entries.len() < SUBKEY_CACHE_CAPACITY {
                entries.push(Entry {
                    fingerprint,
                    subkey,
                    head,
                    after_head,
                });
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
