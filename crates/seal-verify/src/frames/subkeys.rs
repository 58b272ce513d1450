//! The verifier's conversation subkeys: derived at most once per master key and verifier, with
//! MAC states kept after the leading blocks of the signing inputs they checked.

use std::cell::RefCell;
use std::fmt;

use ring::hmac;
use seal_record::{ByteSink, SigningInputParts};

use crate::fingerprint::Fingerprint;
use crate::hmac_key::{ConversationKey, HmacKey};
use crate::key::VerifyingKey;
use crate::store::VerifyFailure;

/// Most conversation subkeys one [`FrameVerifier`](crate::FrameVerifier) keeps: 8. A verifier
/// that meets more distinct HMAC master keys derives the subkeys of the others for every tag
/// it checks (correct, only slower).
pub const SUBKEY_CACHE_CAPACITY: usize = 8;

/// SHA-256 block size: a MAC state is kept only after whole blocks, where it holds no pending
/// bytes.
const BLOCK: usize = 64;

/// Bytes after the head that depend only on the number and lengths of the attributes (the
/// length of the attribute piece, the attribute count, the first pair's length, its count and
/// its name's length): the "shape" prefix ends here.
const SHAPE_BYTES: usize = 40;

/// Bytes at the end of every input that are never part of a kept prefix: the body (or message)
/// hash piece.
const HASH_PIECE_BYTES: usize = 40;

/// Signing inputs up to this many bytes are gathered on the stack; longer ones on the heap.
const INLINE_INPUT_BYTES: usize = 384;

/// Conversation subkeys of one verifier, keyed by the master key's fingerprint (SHA-256 of its
/// secret). The verifier's conversation id is fixed, so a fingerprint names exactly one subkey;
/// the tag length is always taken from the master key in hand.
///
/// With each subkey the cache keeps two MAC states, each with the exact bytes it absorbed,
/// always a whole number of SHA-256 blocks:
/// - after the leading whole blocks of the head (count, domain, key id, algorithm, tag length,
///   element), the same for every input of that key id and element;
/// - after the leading whole blocks of the head and the "shape" bytes that follow it (lengths
///   and counts of the attributes), the same for every input whose attributes have the same
///   number and lengths; replaced when an input of another shape is checked.
///
/// A state is used only for an input whose leading bytes are exactly the bytes it absorbed, so
/// the MAC is the MAC over the input's bytes whatever the cache holds.
#[derive(Default)]
pub(crate) struct SubkeyCache {
    entries: RefCell<Vec<Entry>>,
}

struct Entry {
    fingerprint: Fingerprint,
    subkey: ConversationKey,
    head: Prefix,
    shape: Prefix,
}

/// A MAC state and the bytes it absorbed.
struct Prefix {
    bytes: Vec<u8>,
    state: hmac::Context,
}

impl Prefix {
    /// The state of `subkey` after `bytes`.
    fn new(subkey: &ConversationKey, bytes: &[u8]) -> Prefix {
        let mut state = subkey.start();
        state.update(bytes);
        Prefix {
            bytes: bytes.to_vec(),
            state,
        }
    }

    /// Makes `target` the state after the first `end` bytes of `input` (which starts with this
    /// state's bytes), continued from this state rather than from the key, reusing `target`'s
    /// buffer. False, and `target` unchanged, when `end` lies before this state's end.
    fn extend_into(&self, input: &[u8], end: usize, target: &mut Prefix) -> bool {
        let Some(between) = input.get(self.bytes.len()..end) else {
            return false;
        };
        let mut state = self.state.clone();
        state.update(between);
        target.state = state;
        target.bytes.clear();
        target
            .bytes
            .extend_from_slice(input.get(..end).unwrap_or_default());
        true
    }

    /// Whether `input` starts with exactly the bytes this state absorbed.
    fn starts(&self, input: &[u8]) -> bool {
        input.get(..self.bytes.len()) == Some(self.bytes.as_slice())
    }
}

impl SubkeyCache {
    /// Checks the text form `sig` over the signing input `parts` writes, with `key`: an HMAC
    /// key through its subkey for `conversation_id` (derived on first use, then kept), starting
    /// from the longest kept MAC state whose bytes begin the input; an Ed25519 key directly
    /// over the input's bytes.
    pub(crate) fn verify_parts(
        &self,
        key: &VerifyingKey,
        conversation_id: &str,
        parts: &SigningInputParts<'_>,
        sig: &str,
    ) -> Result<(), VerifyFailure> {
        let mut gathered = Gathered::default();
        parts.write_to(&mut gathered);
        let input = gathered.as_slice();
        let master = match key {
            VerifyingKey::Hmac(master) => master,
            other => {
                return other
                    .verify_text(input, sig)
                    .map_err(VerifyFailure::Signature)
            }
        };
        let fingerprint = master.fingerprint();
        let head_end = whole_blocks(parts.head_len(), input.len());
        let shape_end = whole_blocks(parts.head_len().saturating_add(SHAPE_BYTES), input.len());
        let mut entries = self.entries.try_borrow_mut().ok();
        let held = entries.as_mut().and_then(|entries| {
            entries
                .iter_mut()
                .find(|held| held.fingerprint == fingerprint)
        });
        if let Some(entry) = held {
            return entry.verify(master, input, shape_end, sig);
        }
        let subkey = derive(master, conversation_id)?;
        let Some(mut entries) = entries.filter(|entries| entries.len() < SUBKEY_CACHE_CAPACITY)
        else {
            // Not kept: no prefix state is worth computing.
            return subkey
                .verify_from(master.tag_length(), &subkey.start(), input, sig)
                .map_err(VerifyFailure::Signature);
        };
        let head = Prefix::new(&subkey, input.get(..head_end).unwrap_or_default());
        // The shape prefix of one input never ends before its head prefix; were it to, the
        // shape would stay the empty prefix, which begins every input and is still correct.
        let mut shape = Prefix::new(&subkey, &[]);
        head.extend_into(input, shape_end, &mut shape);
        let rest = input.get(shape.bytes.len()..).unwrap_or_default();
        let result = subkey
            .verify_from(master.tag_length(), &shape.state, rest, sig)
            .map_err(VerifyFailure::Signature);
        entries.push(Entry {
            fingerprint,
            subkey,
            head,
            shape,
        });
        result
    }

    /// How many master keys' subkeys are held (0 while a check holds the cache).
    pub(crate) fn held(&self) -> usize {
        self.entries.try_borrow().map_or(0, |entries| entries.len())
    }
}

/// The conversation subkeys of one conversation, with their kept MAC states, held across
/// verifiers: [`FrameVerifier::with_keys`](crate::FrameVerifier::with_keys) checks HMAC tags
/// with these instead of deriving them again, so an embedder that builds a verifier per message
/// (its time and seen set change) derives each subkey once per conversation. Holds at most
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

/// Where a check continues from: which kept state, or the key itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// The shape state (kept, or just refreshed from the head state).
    Shape,
    /// The head state (the input's shape prefix ends before the head's blocks).
    Head,
    /// The key: the input does not begin with the head's bytes.
    Key,
}

impl Entry {
    /// Checks `sig` over `input` with this entry's subkey, continuing from the longest kept
    /// state whose bytes begin `input` ([`Entry::start`]).
    fn verify(
        &mut self,
        master: &HmacKey,
        input: &[u8],
        shape_end: usize,
        sig: &str,
    ) -> Result<(), VerifyFailure> {
        let (state, absorbed) = match self.start(input, shape_end) {
            Start::Shape => (&self.shape.state, self.shape.bytes.len()),
            Start::Head => (&self.head.state, self.head.bytes.len()),
            Start::Key => {
                return self
                    .subkey
                    .verify_from(master.tag_length(), &self.subkey.start(), input, sig)
                    .map_err(VerifyFailure::Signature)
            }
        };
        let rest = input.get(absorbed..).unwrap_or_default();
        self.subkey
            .verify_from(master.tag_length(), state, rest, sig)
            .map_err(VerifyFailure::Signature)
    }

    /// The state a check of `input` continues from. The shape state when its bytes begin
    /// `input`; else, when the head state's bytes begin `input`, the shape state replaced by
    /// the one after `input`'s first `shape_end` bytes (computed from the head state), unless
    /// those end before the head's bytes (then the head state); else the key.
    fn start(&mut self, input: &[u8], shape_end: usize) -> Start {
        if self.shape.starts(input) {
            return Start::Shape;
        }
        if !self.head.starts(input) {
            return Start::Key;
        }
        if self.head.extend_into(input, shape_end, &mut self.shape) {
            Start::Shape
        } else {
            Start::Head
        }
    }
}

/// `end` rounded down to whole blocks, and never into the last [`HASH_PIECE_BYTES`] of an input
/// of `len` bytes.
fn whole_blocks(end: usize, len: usize) -> usize {
    let end = end.min(len.saturating_sub(HASH_PIECE_BYTES));
    end - end % BLOCK
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

/// A signing input gathered in one buffer: on the stack up to [`INLINE_INPUT_BYTES`], on the
/// heap beyond.
struct Gathered {
    inline: [u8; INLINE_INPUT_BYTES],
    len: usize,
    heap: Vec<u8>,
}

impl Default for Gathered {
    fn default() -> Self {
        Gathered {
            inline: [0; INLINE_INPUT_BYTES],
            len: 0,
            heap: Vec::new(),
        }
    }
}

impl Gathered {
    fn as_slice(&self) -> &[u8] {
        if self.heap.is_empty() {
            self.inline.get(..self.len).unwrap_or_default()
        } else {
            &self.heap
        }
    }
}

impl Gathered {
    /// Appends `bytes` once they no longer fit on the stack (moving what is there first).
    #[cold]
    fn spill(&mut self, bytes: &[u8]) {
        if self.heap.is_empty() {
            self.heap
                .extend_from_slice(self.inline.get(..self.len).unwrap_or_default());
        }
        self.heap.extend_from_slice(bytes);
    }
}

impl ByteSink for Gathered {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        match self.inline.get_mut(self.len..end) {
            Some(slot) if self.heap.is_empty() => {
                slot.copy_from_slice(bytes);
                self.len = end;
            }
            _ => self.spill(bytes),
        }
    }

    #[inline]
    fn write_le64(&mut self, n: u64) {
        self.write(&seal_record::le64(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hmac_key::HmacKey;
    use crate::secret::HmacSecret;
    use crate::tag::TagLength;

    #[test]
    fn gathered_bytes_are_the_bytes_written_on_the_stack_and_on_the_heap() {
        for sizes in [&[][..], &[3, 380, 9], &[384], &[383, 2], &[2000, 1]] {
            let mut gathered = Gathered::default();
            let mut expected = Vec::new();
            for (index, size) in sizes.iter().enumerate() {
                let piece: Vec<u8> = (0..*size).map(|i| (i * 3 + index) as u8).collect();
                gathered.write(&piece);
                expected.extend_from_slice(&piece);
            }
            assert_eq!(gathered.as_slice(), expected.as_slice(), "{sizes:?}");
        }
    }

    /// An entry after checking `first`, as [`SubkeyCache::verify_parts`] makes it.
    fn entry_after(first: &[u8], head_end: usize, shape_end: usize) -> Entry {
        let master = HmacKey::new(
            HmacSecret::from_bytes(&[6; 32]).unwrap(),
            TagLength::STANDARD,
        );
        let subkey = master.conversation_key("c").unwrap();
        Entry {
            fingerprint: master.fingerprint(),
            head: Prefix::new(&subkey, &first[..head_end]),
            shape: Prefix::new(&subkey, &first[..shape_end]),
            subkey,
        }
    }

    /// The state each input starts from, and what the entry keeps afterwards: the shape state
    /// when it fits; a shape refreshed from the head state when only the head fits; the key
    /// (and nothing changed) when the head does not fit; the head state when the new shape
    /// prefix would end before the head's bytes.
    #[test]
    fn checks_start_from_the_longest_fitting_state_and_refresh_the_shape() {
        let first: Vec<u8> = (0..300u16).map(|i| (i % 251) as u8).collect();
        let mut entry = entry_after(&first, 64, 128);
        let mut same_shape = first.clone();
        same_shape[200] ^= 1;
        assert_eq!(entry.start(&same_shape, 128), Start::Shape);
        assert_eq!(entry.shape.bytes, first[..128]);

        let mut new_shape = first.clone();
        new_shape[100] ^= 1;
        assert_eq!(entry.start(&new_shape, 128), Start::Shape);
        assert_eq!(entry.shape.bytes, new_shape[..128]);
        let mut expected = entry.subkey.start();
        expected.update(&new_shape[..128]);
        expected.update(b"tail");
        let mut kept = entry.shape.state.clone();
        kept.update(b"tail");
        assert_eq!(kept.sign().as_ref(), expected.sign().as_ref());
        assert_eq!(entry.start(&first, 128), Start::Shape);
        assert_eq!(entry.shape.bytes, first[..128]);

        let mut new_head = first.clone();
        new_head[10] ^= 1;
        assert_eq!(entry.start(&new_head, 128), Start::Key);
        assert_eq!(entry.shape.bytes, first[..128]);
        assert_eq!(entry.head.bytes, first[..64]);

        let mut short_shape = first.clone();
        short_shape[100] ^= 1;
        assert_eq!(entry.start(&short_shape, 0), Start::Head);
        assert_eq!(entry.shape.bytes, first[..128]);
    }

    /// The cache keeps the subkeys of the first [`SUBKEY_CACHE_CAPACITY`] master keys and
    /// still checks tags of every further key (deriving its subkey each time); its `Debug`
    /// shows how many it holds and nothing of them.
    #[test]
    fn the_cache_holds_at_most_its_capacity_and_checks_every_key() {
        let cache = SubkeyCache::default();
        assert_eq!(format!("{cache:?}"), "SubkeyCache { held: Some(0) }");
        for round in 0..2 {
            for n in 0..SUBKEY_CACHE_CAPACITY as u8 + 3 {
                let master = HmacKey::new(
                    HmacSecret::from_bytes(&[n; 32]).unwrap(),
                    TagLength::STANDARD,
                );
                let parts = SigningInputParts::frame(
                    "k1",
                    "hmac-sha256",
                    22,
                    "channel",
                    &[("id", "m1"), ("kid", "k1")],
                    b"body",
                )
                .unwrap();
                let sig = master
                    .conversation_subkey("c")
                    .unwrap()
                    .sign(&parts.to_bytes())
                    .to_text();
                let key = VerifyingKey::Hmac(master);
                assert!(
                    cache.verify_parts(&key, "c", &parts, &sig).is_ok(),
                    "{round} {n}"
                );
            }
        }
        assert_eq!(cache.entries.borrow().len(), SUBKEY_CACHE_CAPACITY);
        assert_eq!(
            format!("{cache:?}"),
            format!("SubkeyCache {{ held: Some({SUBKEY_CACHE_CAPACITY}) }}")
        );
    }

    #[test]
    fn kept_states_end_on_whole_blocks_before_the_hash_piece() {
        assert_eq!(whole_blocks(89, 264), 64);
        assert_eq!(whole_blocks(129, 264), 128);
        assert_eq!(whole_blocks(129, 150), 64);
        assert_eq!(whole_blocks(200, 30), 0);
        assert_eq!(whole_blocks(63, 1000), 0);
    }

    /// A sequence of inputs of changing heads and shapes, each checked through one cache
    /// against its own tag and against a tag over other bytes: the cache never changes an
    /// answer, and it did start from kept states.
    #[test]
    fn kept_states_never_change_an_answer() {
        let master = HmacKey::new(
            HmacSecret::from_bytes(&[5; 32]).unwrap(),
            TagLength::STANDARD,
        );
        let subkey = master.conversation_subkey("c").unwrap();
        let key = VerifyingKey::Hmac(master);
        let cache = SubkeyCache::default();
        let ids = ["m1", "m2", "m10", "m3", "a-much-longer-frame-id", "m4"];
        let kids = ["k1", "k1", "k1", "key-two", "k1", "k1"];
        for round in 0..3 {
            for (index, (id, kid)) in ids.iter().zip(kids).enumerate() {
                let attributes = [("source", "telegram"), ("id", *id), ("kid", kid)];
                let body = format!("body {round} {index}");
                let parts = SigningInputParts::frame(
                    kid,
                    "hmac-sha256",
                    22,
                    "channel",
                    &attributes,
                    body.as_bytes(),
                )
                .unwrap();
                let sig = subkey.sign(&parts.to_bytes()).to_text();
                assert!(cache.verify_parts(&key, "c", &parts, &sig).is_ok());
                let other = SigningInputParts::frame(
                    kid,
                    "hmac-sha256",
                    22,
                    "channel",
                    &attributes,
                    b"other",
                )
                .unwrap();
                assert!(cache.verify_parts(&key, "c", &other, &sig).is_err());
            }
        }
        let entries = cache.entries.borrow();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].head.bytes.len(), 64);
        assert_eq!(entries[0].shape.bytes.len(), 128);
    }
}
