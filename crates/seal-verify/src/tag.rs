//! Tag lengths, profiles and the tag value.

use std::fmt;

use crate::base64url;

/// Fewest bits any non-compact tag may have: 96 (16 base64url characters).
pub const MIN_TAG_BITS: u16 = 96;

/// Most bits an HMAC-SHA256 tag can have: the whole output, 256.
pub const MAX_TAG_BITS: u16 = 256;

/// Bits of the `standard` profile: 132, written as 22 base64url characters.
pub const STANDARD_TAG_BITS: u16 = 132;

/// Bits of the `compact` profile: 30, written as 5 base64url characters.
pub const COMPACT_TAG_BITS: u16 = 30;

/// Fewest characters of a whole-character tag length outside the compact profile: 16 (96 bits).
pub const MIN_TAG_CHARS: u8 = 16;

/// Most characters of a whole-character tag length: 42 (252 bits, the most that fit in 256).
pub const MAX_TAG_CHARS: u8 = 42;

/// Bits of an Ed25519 signature: 512, written as 86 base64url characters.
pub const ED25519_SIGNATURE_BITS: u16 = 512;

/// How many leading bits of HMAC-SHA256 output a key's tags keep.
///
/// Bound to the key when it is loaded; never read from a message. Only three kinds of value
/// exist: the `standard` 132 bits, the `compact` 30 bits (built only through [`TagConfig`] with
/// both compensating controls on), and any length from [`MIN_TAG_BITS`] to [`MAX_TAG_BITS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TagLength {
    bits: u16,
}

/// A named choice of tag length, as configured by an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TagProfile {
    /// 132 bits, 22 base64url characters. The default.
    #[default]
    Standard,
    /// 30 bits, 5 base64url characters (about one chance in a billion per forgery attempt).
    /// Refused unless per-conversation subkeys and a replay set are both on.
    Compact,
    /// Any length from [`MIN_TAG_BITS`] to [`MAX_TAG_BITS`] bits.
    Bits(u16),
    /// A whole-character length from [`MIN_TAG_CHARS`] to [`MAX_TAG_CHARS`] characters.
    Chars(u8),
}

/// The controls that must be on before the `compact` profile is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompensatingControls {
    /// Tags are made with per-conversation subkeys, so a tag copied across conversations fails.
    pub per_conversation_subkeys: bool,
    /// The embedder supplies a seen-id set, so a replayed frame alarms.
    pub replay_set: bool,
}

/// A tag profile together with the compensating controls in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TagConfig {
    /// The profile asked for.
    pub profile: TagProfile,
    /// The controls in force.
    pub controls: CompensatingControls,
}

/// Why a tag length or profile was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TagLengthError {
    /// Fewer bits than [`MIN_TAG_BITS`] outside the compact profile.
    BelowFloor {
        /// Bits asked for.
        bits: u16,
        /// The floor.
        floor: u16,
    },
    /// More bits than [`MAX_TAG_BITS`].
    AboveMaximum {
        /// Bits asked for.
        bits: u16,
        /// The maximum.
        max: u16,
    },
    /// The compact profile without per-conversation subkeys.
    CompactWithoutSubkeys,
    /// The compact profile without a replay set.
    CompactWithoutReplaySet,
}

impl fmt::Display for TagLengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BelowFloor { bits, floor } => {
                write!(f, "tag length of {bits} bits is below the floor of {floor}")
            }
            Self::AboveMaximum { bits, max } => {
                write!(f, "tag length of {bits} bits is above the maximum of {max}")
            }
            Self::CompactWithoutSubkeys => {
                f.write_str("compact tags need per-conversation subkeys turned on")
            }
            Self::CompactWithoutReplaySet => {
                f.write_str("compact tags need a replay set turned on")
            }
        }
    }
}

impl std::error::Error for TagLengthError {}

impl TagLength {
    /// The `standard` profile: 132 bits.
    pub const STANDARD: TagLength = TagLength {
        bits: STANDARD_TAG_BITS,
    };

    /// The whole HMAC-SHA256 output: 256 bits.
    pub const FULL: TagLength = TagLength { bits: MAX_TAG_BITS };

    /// A length of `bits` bits, from [`MIN_TAG_BITS`] to [`MAX_TAG_BITS`].
    pub fn from_bits(bits: u16) -> Result<TagLength, TagLengthError> {
        if bits < MIN_TAG_BITS {
            return Err(TagLengthError::BelowFloor {
                bits,
                floor: MIN_TAG_BITS,
            });
        }
        if bits > MAX_TAG_BITS {
            return Err(TagLengthError::AboveMaximum {
                bits,
                max: MAX_TAG_BITS,
            });
        }
        Ok(TagLength { bits })
    }

    /// A whole-character length of `chars` base64url characters (`6 * chars` bits), from
    /// [`MIN_TAG_CHARS`] to [`MAX_TAG_CHARS`]. Frame tags and store keys use whole-character
    /// lengths only, so that two different lengths never share a character count.
    pub fn from_chars(chars: u8) -> Result<TagLength, TagLengthError> {
        // 43 characters would be 258 bits, above the maximum: from_bits refuses it.
        TagLength::from_bits(u16::from(chars) * 6)
    }

    /// True when every character of the text form carries six tag bits (no padding bits), so
    /// that no two such lengths are written with the same number of characters: true for the
    /// `standard` and `compact` profiles and every length built by [`TagLength::from_chars`],
    /// and for a [`TagLength::from_bits`] length exactly when the bits are a multiple of 6.
    /// spec/trust-store.md (section 2) has frames and store keys use such lengths only.
    pub const fn is_whole_chars(self) -> bool {
        self.bits % 6 == 0
    }

    /// Bits kept.
    pub const fn bits(self) -> u16 {
        self.bits
    }

    /// Bytes of the binary form: `ceil(bits / 8)`.
    pub const fn byte_len(self) -> usize {
        base64url::packed_len(self.bits as usize)
    }

    /// Characters of the text form: `ceil(bits / 6)`.
    pub const fn text_len(self) -> usize {
        base64url::encoded_len(self.bits as usize)
    }

    /// True for the `compact` profile.
    pub const fn is_compact(self) -> bool {
        self.bits == COMPACT_TAG_BITS
    }
}

impl TagConfig {
    /// The configured length, or why it is refused: `compact` needs both compensating controls,
    /// `Bits` must lie within the floor and the maximum.
    pub fn tag_length(&self) -> Result<TagLength, TagLengthError> {
        match self.profile {
            TagProfile::Standard => Ok(TagLength::STANDARD),
            TagProfile::Compact => {
                if !self.controls.per_conversation_subkeys {
                    return Err(TagLengthError::CompactWithoutSubkeys);
                }
                if !self.controls.replay_set {
                    return Err(TagLengthError::CompactWithoutReplaySet);
                }
                Ok(TagLength {
                    bits: COMPACT_TAG_BITS,
                })
            }
            TagProfile::Bits(bits) => TagLength::from_bits(bits),
            TagProfile::Chars(chars) => TagLength::from_chars(chars),
        }
    }
}

/// A tag or signature: a bit string made by a signing key.
///
/// Deliberately has no `PartialEq`: tags are checked only by a key's constant-time `verify`,
/// never with `==`.
///
/// ```compile_fail
/// use seal_verify::{HmacKey, HmacSecret, TagLength};
/// let key = HmacKey::new(HmacSecret::from_bytes(&[7; 32]).unwrap(), TagLength::STANDARD);
/// let same = key.sign(b"m") == key.sign(b"m");
/// ```
#[derive(Clone)]
pub struct Tag {
    bytes: Vec<u8>,
    bits: u16,
}

impl Tag {
    /// Builds a tag from its packed bytes; callers guarantee `bytes.len() == ceil(bits / 8)`
    /// and zero unused bits.
    pub(crate) fn from_packed(bytes: Vec<u8>, bits: u16) -> Tag {
        Tag { bytes, bits }
    }

    /// The binary form: `ceil(bits / 8)` bytes, unused low bits of the last byte zero.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Bits in the tag.
    pub fn bits(&self) -> u16 {
        self.bits
    }

    /// The text form carried in a frame's `sig`: `ceil(bits / 6)` base64url characters.
    pub fn to_text(&self) -> String {
        base64url::encode_bits(&self.bytes, usize::from(self.bits))
    }
}

/// Shows the bit count only: a tag computed over bytes someone else chose (the expected tag of
/// a failed check) is a working forgery for them once it reaches a log, so `Debug` never writes
/// a tag's bytes or text.
impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag(<redacted>, {} bits)", self.bits)
    }
}

/// Keeps the first `bits` bits of `full`, zeroing the rest of the last kept byte.
pub(crate) fn truncate(full: &[u8], bits: u16) -> Vec<u8> {
    let len = base64url::packed_len(usize::from(bits));
    let mut out: Vec<u8> = full.iter().take(len).copied().collect();
    let spare = len * 8 - usize::from(bits);
    if let Some(last) = out.last_mut() {
        *last &= 0xffu8 << spare;
    }
    out
}
