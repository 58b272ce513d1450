//! HMAC-SHA256 keys bound to a tag length, and their per-conversation subkeys.

use std::fmt;

use arrayvec::ArrayVec;
use ring::{hkdf, hmac};
use seal_record::{ByteSink, SigningInputParts};
use smallvec::SmallVec;
use subtle::ConstantTimeEq;

use crate::base64url::{self, Base64Error};
use crate::error::SignatureError;
use crate::fingerprint::Fingerprint;
use crate::secret::HmacSecret;
use crate::tag::{truncate, Tag, TagLength};

/// HKDF-SHA256 salt for every key derived from an HMAC secret: ASCII `seal/subkey/v1`.
pub const SUBKEY_SALT: &[u8] = b"seal/subkey/v1";

/// HKDF info prefix of a per-conversation subkey: ASCII `conversation:`, followed by the
/// conversation id's UTF-8 bytes.
pub const CONVERSATION_INFO_PREFIX: &[u8] = b"conversation:";

/// Longest accepted conversation id, in bytes: 1024.
pub const MAX_CONVERSATION_ID_BYTES: usize = 1024;

/// An HMAC-SHA256 key bound to the tag length its tags have.
///
/// The length is fixed when the key is built; [`HmacKey::verify`] and [`HmacKey::verify_text`]
/// refuse a tag of any other length before comparing anything, and compare the tag bytes in
/// constant time (`subtle::ConstantTimeEq`: the time does not depend on where they differ).
/// `Debug` shows the fingerprint and the length, never the secret.
pub struct HmacKey {
    keys: Box<RingKeys>,
    fingerprint: Fingerprint,
    tag_length: TagLength,
}

/// The ring state of one key, boxed so that keys stay small to move.
struct RingKeys {
    key: hmac::Key,
    prk: hkdf::Prk,
}

/// The MAC key of one conversation subkey, and nothing else: what a verifier keeps to check the
/// tags of one master key in the conversation it is verifying. Derived exactly as
/// [`HmacKey::conversation_subkey`] derives its secret; it checks tags of the master key's length.
pub(crate) struct ConversationKey {
    key: hmac::Key,
}

/// Why a conversation subkey could not be derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubkeyError {
    /// The conversation id is empty.
    EmptyConversationId,
    /// The conversation id is longer than [`MAX_CONVERSATION_ID_BYTES`].
    ConversationIdTooLong {
        /// Bytes given.
        len: usize,
        /// The maximum.
        max: usize,
    },
}

impl fmt::Display for SubkeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyConversationId => f.write_str("conversation id is empty"),
            Self::ConversationIdTooLong { len, max } => {
                write!(f, "conversation id of {len} bytes is longer than {max}")
            }
        }
    }
}

impl std::error::Error for SubkeyError {}

impl HmacKey {
    /// Binds `secret` to `tag_length`.
    pub fn new(secret: HmacSecret, tag_length: TagLength) -> HmacKey {
        let bytes = secret.expose();
        let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, SUBKEY_SALT).extract(bytes);
        HmacKey {
            keys: Box::new(RingKeys {
                key: hmac::Key::new(hmac::HMAC_SHA256, bytes),
                prk,
            }),
            fingerprint: secret.fingerprint(),
            tag_length,
        }
    }

    /// The tag length every tag of this key has.
    pub fn tag_length(&self) -> TagLength {
        self.tag_length
    }

    /// SHA-256 of the secret.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The tag of `message`: the first `tag_length` bits of HMAC-SHA256(secret, message).
    pub fn sign(&self, message: &[u8]) -> Tag {
        let full = hmac::sign(&self.keys.key, message);
        let bits = self.tag_length.bits();
        Tag::from_packed(truncate(full.as_ref(), bits), bits)
    }

    /// Checks the binary form of a tag: exactly [`TagLength::byte_len`] bytes (else
    /// [`SignatureError::Length`] before any comparison), unused low bits zero, then a
    /// constant-time comparison with the expected tag.
    pub fn verify(&self, message: &[u8], tag: &[u8]) -> Result<(), SignatureError> {
        check_tag(&self.keys.key, self.tag_length, message, tag)
    }

    /// Checks the text form of a tag (a frame's `sig`): exactly [`TagLength::text_len`]
    /// base64url characters (else [`SignatureError::Length`] before any comparison), canonical,
    /// then as [`HmacKey::verify`].
    pub fn verify_text(&self, message: &[u8], sig: &str) -> Result<(), SignatureError> {
        let packed = decode_sig(sig, usize::from(self.tag_length.bits()))?;
        self.verify(message, packed.as_slice())
    }

    /// The per-conversation subkey: HKDF-SHA256 with salt [`SUBKEY_SALT`], this key's secret as
    /// input keying material, info [`CONVERSATION_INFO_PREFIX`] followed by `conversation_id`,
    /// and 32 bytes of output. It keeps this key's tag length, so a tag copied from another
    /// conversation fails.
    pub fn conversation_subkey(&self, conversation_id: &str) -> Result<HmacKey, SubkeyError> {
        check_conversation_id(conversation_id)?;
        let okm = expand(
            &self.keys.prk,
            &[CONVERSATION_INFO_PREFIX, conversation_id.as_bytes()],
        );
        Ok(HmacKey::new(HmacSecret::from_derived(okm), self.tag_length))
    }

    /// The MAC key of the subkey for `conversation_id`, derived as by
    /// [`HmacKey::conversation_subkey`] but without the fingerprint and derivation state a full
    /// key carries (one HKDF expansion and one ring key).
    pub(crate) fn conversation_key(
        &self,
        conversation_id: &str,
    ) -> Result<ConversationKey, SubkeyError> {
        check_conversation_id(conversation_id)?;
        let okm = expand(
            &self.keys.prk,
            &[CONVERSATION_INFO_PREFIX, conversation_id.as_bytes()],
        );
        Ok(ConversationKey {
            key: hmac::Key::new(hmac::HMAC_SHA256, &okm),
        })
    }
}

impl ConversationKey {
    /// Checks the text form of a tag of `tag_length` (the master key's) as
    /// [`HmacKey::verify_text`] does with the subkey.
    pub(crate) fn verify_text(
        &self,
        tag_length: TagLength,
        message: &[u8],
        sig: &str,
    ) -> Result<(), SignatureError> {
        let packed = decode_sig(sig, usize::from(tag_length.bits()))?;
        check_tag(&self.key, tag_length, message, packed.as_slice())
    }

    /// As [`ConversationKey::verify_text`] over the signing input `parts` writes, fed to the MAC
    /// piece by piece.
    pub(crate) fn verify_parts(
        &self,
        tag_length: TagLength,
        parts: &SigningInputParts<'_>,
        sig: &str,
    ) -> Result<(), SignatureError> {
        let packed = decode_sig(sig, usize::from(tag_length.bits()))?;
        check_mac(tag_length, packed.as_slice(), || {
            let mut gathered = InPlace(Some(ArrayVec::new()));
            parts.write_to(&mut gathered);
            match &gathered.0 {
                Some(input) => hmac::sign(&self.key, input),
                None => hmac::sign(&self.key, &parts.to_bytes()),
            }
        })
    }
}

/// Bytes of a signing input gathered on the stack: a frame with a few short attributes takes
/// about 250.
const IN_PLACE_INPUT_BYTES: usize = 512;

/// A signing input being gathered on the stack, so that it is MACed in one call; `None` once it
/// outgrows [`IN_PLACE_INPUT_BYTES`] (the caller then writes it into a `Vec`).
struct InPlace(Option<ArrayVec<u8, IN_PLACE_INPUT_BYTES>>);

impl ByteSink for InPlace {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        if let Some(input) = &mut self.0 {
            if input.try_extend_from_slice(bytes).is_err() {
                self.0 = None;
            }
        }
    }
}

impl fmt::Debug for HmacKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HmacKey")
            .field("secret", &"<redacted>")
            .field("fingerprint", &self.fingerprint)
            .field("tag_bits", &self.tag_length.bits())
            .finish()
    }
}

/// Checks that a conversation id is 1 to [`MAX_CONVERSATION_ID_BYTES`] bytes.
pub(crate) fn check_conversation_id(conversation_id: &str) -> Result<(), SubkeyError> {
    if conversation_id.is_empty() {
        return Err(SubkeyError::EmptyConversationId);
    }
    if conversation_id.len() > MAX_CONVERSATION_ID_BYTES {
        return Err(SubkeyError::ConversationIdTooLong {
            len: conversation_id.len(),
            max: MAX_CONVERSATION_ID_BYTES,
        });
    }
    Ok(())
}

/// The check behind every HMAC verification: the length first (public, so it may fail fast),
/// then the unused low bits of the presented tag, then the expected tag's first
/// `tag_length` bits against the presented bytes with `subtle`'s constant-time equality.
fn check_tag(
    key: &hmac::Key,
    tag_length: TagLength,
    message: &[u8],
    tag: &[u8],
) -> Result<(), SignatureError> {
    check_mac(tag_length, tag, || hmac::sign(key, message))
}

/// [`check_tag`] with the full MAC computed by `mac`, called only once the presented tag has
/// the right length and canonical trailing bits.
fn check_mac(
    tag_length: TagLength,
    tag: &[u8],
    mac: impl FnOnce() -> hmac::Tag,
) -> Result<(), SignatureError> {
    let expected_len = tag_length.byte_len();
    if tag.len() != expected_len {
        return Err(SignatureError::Length {
            expected: expected_len,
            found: tag.len(),
        });
    }
    let spare = unused_bits(tag_length);
    if tag
        .last()
        .is_some_and(|last| last & !(0xffu8 << spare) != 0)
    {
        return Err(SignatureError::TrailingBits);
    }
    let full = mac();
    // The expected tag is the MAC's first `expected_len` bytes, the unused bits of the last one
    // cleared; compared in place. Lengths are public and equal here; a tag that cannot be split
    // (none is empty) compares unequal.
    let expected = full
        .as_ref()
        .get(..expected_len)
        .and_then(<[u8]>::split_last);
    match (expected, tag.split_last()) {
        (Some((last, head)), Some((tag_last, tag_head)))
            if bool::from(head.ct_eq(tag_head) & (last & (0xffu8 << spare)).ct_eq(tag_last)) =>
        {
            Ok(())
        }
        _ => Err(SignatureError::Mismatch),
    }
}

/// Bits of the last tag byte past the tag length (0 to 7).
fn unused_bits(tag_length: TagLength) -> u32 {
    let bits = u32::from(tag_length.bits());
    (8 - bits % 8) % 8
}

/// Decodes a `sig` of `bits` bits, mapping a wrong length to [`SignatureError::Length`]; in
/// place up to 64 bytes (every HMAC tag and Ed25519 signature).
pub(crate) fn decode_sig(sig: &str, bits: usize) -> Result<SmallVec<[u8; 64]>, SignatureError> {
    let mut packed = SmallVec::from_elem(0, base64url::packed_len(bits));
    match base64url::decode_bits_into(sig, bits, &mut packed) {
        Ok(()) => Ok(packed),
        Err(Base64Error::Length { expected, found }) => {
            Err(SignatureError::Length { expected, found })
        }
        Err(other) => Err(SignatureError::Encoding(other)),
    }
}

struct OutputLen;

impl hkdf::KeyType for OutputLen {
    fn len(&self) -> usize {
        32
    }
}

fn expand(prk: &hkdf::Prk, info: &[&[u8]]) -> [u8; 32] {
    let mut out = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 8160-byte output limit, so expansion cannot fail.
    if let Ok(okm) = prk.expand(info, OutputLen) {
        let _ = okm.fill(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A signing input gathered on the stack and one too long for it (written into a `Vec`)
    /// are checked over exactly the bytes `to_bytes` gives: both tags verify, and neither
    /// verifies over other attributes.
    #[test]
    fn signing_inputs_in_place_and_past_it_check_the_same_bytes() {
        let master = HmacKey::new(
            HmacSecret::from_bytes(&[9; 32]).unwrap(),
            TagLength::STANDARD,
        );
        let subkey = master.conversation_subkey("c").unwrap();
        let key = master.conversation_key("c").unwrap();
        for len in [
            0,
            100,
            IN_PLACE_INPUT_BYTES - 140,
            IN_PLACE_INPUT_BYTES,
            4000,
        ] {
            let value = "v".repeat(len);
            let attributes = [("id", "m1"), ("note", value.as_str())];
            let parts =
                SigningInputParts::frame("k1", "hmac-sha256", 22, "channel", &attributes, b"hi")
                    .unwrap();
            let bytes = parts.to_bytes();
            let sig = subkey.sign(&bytes).to_text();
            assert!(key.verify_parts(TagLength::STANDARD, &parts, &sig).is_ok());
            let other = [("id", "m2"), ("note", value.as_str())];
            let other = SigningInputParts::frame("k1", "hmac-sha256", 22, "channel", &other, b"hi")
                .unwrap();
            assert_eq!(
                key.verify_parts(TagLength::STANDARD, &other, &sig),
                Err(SignatureError::Mismatch)
            );
        }
    }

    /// The MAC key of a conversation subkey checks exactly the tags of the full subkey: over
    /// the same bytes, and no longer once the last byte changes.
    #[test]
    fn a_conversation_key_checks_the_tags_of_its_subkey() {
        let master = HmacKey::new(
            HmacSecret::from_bytes(&[9; 32]).unwrap(),
            TagLength::STANDARD,
        );
        let subkey = master.conversation_subkey("c").unwrap();
        let key = master.conversation_key("c").unwrap();
        for len in [0, 1, 63, 64, 65, 128, 300] {
            let input: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let sig = subkey.sign(&input).to_text();
            assert!(key.verify_text(TagLength::STANDARD, &input, &sig).is_ok());
            let mut changed = input.clone();
            if let Some(last) = changed.last_mut() {
                *last ^= 1;
            } else {
                changed.push(0);
            }
            assert_eq!(
                key.verify_text(TagLength::STANDARD, &changed, &sig),
                Err(SignatureError::Mismatch)
            );
        }
    }
}
