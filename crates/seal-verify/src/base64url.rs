//! Strict, canonical base64url without padding (RFC 4648 §5), over bit strings.
//!
//! Every value has exactly one accepted text: the alphabet is `A-Z a-z 0-9 - _` only, no padding
//! and no whitespace, the length must be exactly the one the bit count implies, and the unused
//! low bits of the last character must be zero. A bit string of `bits` bits is written as
//! `ceil(bits / 6)` characters, most significant bit first; for a whole number of bytes this is
//! the ordinary unpadded base64url text.

use std::fmt;

/// Why a text is not the canonical base64url form expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Base64Error {
    /// The text has the wrong number of characters for the expected bit count.
    Length {
        /// Characters expected.
        expected: usize,
        /// Characters found.
        found: usize,
    },
    /// A character outside the base64url alphabet (padding `=` included).
    Alphabet {
        /// Character offset.
        offset: usize,
        /// The byte found there.
        found: u8,
    },
    /// The unused low bits of the last character are not zero (a non-canonical spelling).
    TrailingBits,
    /// The text length cannot be the encoding of a whole number of bytes.
    NotWholeBytes {
        /// Characters found.
        found: usize,
    },
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { expected, found } => write!(
                f,
                "base64url text has {found} characters, expected {expected}"
            ),
            Self::Alphabet { offset, found } => write!(
                f,
                "byte `{}` at offset {offset} is not in the base64url alphabet",
                char::from(*found).escape_default()
            ),
            Self::TrailingBits => f.write_str("base64url text has non-zero trailing bits"),
            Self::NotWholeBytes { found } => write!(
                f,
                "base64url text of {found} characters does not encode whole bytes"
            ),
        }
    }
}

impl std::error::Error for Base64Error {}

/// Number of characters that encode `bits` bits.
pub const fn encoded_len(bits: usize) -> usize {
    bits.div_ceil(6)
}

/// Number of bytes that hold `bits` bits.
pub const fn packed_len(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Encodes `bytes` (all their bits) as unpadded base64url.
pub fn encode(bytes: &[u8]) -> String {
    encode_bits(bytes, bytes.len().saturating_mul(8))
}

/// Decodes canonical unpadded base64url of a whole number of bytes.
pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let found = text.len();
    // 6n bits must hold 8k bits with fewer than 6 left over: n mod 4 is never 1.
    if found % 4 == 1 {
        return Err(Base64Error::NotWholeBytes { found });
    }
    decode_bits(text, found.saturating_mul(6) / 8 * 8)
}

/// Encodes the first `bits` bits of `bytes` (most significant bit first) as `ceil(bits / 6)`
/// characters; bits beyond `bits`, and beyond the end of `bytes`, are written as zero.
pub fn encode_bits(bytes: &[u8], bits: usize) -> String {
    let chars = encoded_len(bits);
    let mut out = String::with_capacity(chars);
    for index in 0..chars {
        let mut value = 0u8;
        for bit in 0..6 {
            let position = index * 6 + bit;
            value <<= 1;
            if position < bits && bit_at(bytes, position) {
                value |= 1;
            }
        }
        out.push(char::from(symbol(value)));
    }
    out
}

/// Decodes exactly `ceil(bits / 6)` characters into `ceil(bits / 8)` bytes holding `bits` bits;
/// the unused low bits of the last byte are zero. Rejects any other length, any character outside
/// the alphabet and any set bit past `bits`.
pub fn decode_bits(text: &str, bits: usize) -> Result<Vec<u8>, Base64Error> {
    let mut out = vec![0u8; packed_len(bits)];
    decode_bits_into(text, bits, &mut out)?;
    Ok(out)
}

/// [`decode_bits`] into the first `ceil(bits / 8)` bytes of `out` (same checks, same errors, in
/// the same order), without allocating; bytes of `out` past those are left as they are. An `out`
/// shorter than `ceil(bits / 8)` bytes receives only what fits.
pub fn decode_bits_into(text: &str, bits: usize, out: &mut [u8]) -> Result<(), Base64Error> {
    let expected = encoded_len(bits);
    let found = text.len();
    if found != expected {
        return Err(Base64Error::Length { expected, found });
    }
    let packed = packed_len(bits);
    let out = match out.get_mut(..packed) {
        Some(exact) => exact,
        None => out,
    };
    out.fill(0);
    // Bits of the last character past `bits` (0 to 5): they must be zero.
    let spare = expected.saturating_mul(6).saturating_sub(bits);
    let mut held: u32 = 0;
    let mut held_bits: u32 = 0;
    let mut written = 0usize;
    let mut last = 0u8;
    // Whole groups of 4 characters (3 bytes) first; a group never reaches past `packed` bytes.
    let mut groups = text.as_bytes().chunks_exact(4);
    for (group_index, group) in (&mut groups).enumerate() {
        let mut word = 0u32;
        for (index, &byte) in group.iter().enumerate() {
            let value = value_of(byte).ok_or(Base64Error::Alphabet {
                offset: group_index * 4 + index,
                found: byte,
            })?;
            last = value;
            // The shift leaves the low six bits free for the value.
            word = (word << 6) + u32::from(value);
        }
        let [_, high, middle, low] = word.to_be_bytes();
        if let Some(target) = out.get_mut(written..written + 3) {
            target.copy_from_slice(&[high, middle, low]);
        }
        written += 3;
    }
    let offset = text.len() - groups.remainder().len();
    for (index, &byte) in groups.remainder().iter().enumerate() {
        let value = value_of(byte).ok_or(Base64Error::Alphabet {
            offset: offset + index,
            found: byte,
        })?;
        last = value;
        held = (held << 6) + u32::from(value);
        held_bits += 6;
        if held_bits >= 8 {
            held_bits -= 8;
            if let Some(target) = out.get_mut(written) {
                *target = (held >> held_bits) as u8;
            }
            written += 1;
            held &= (1u32 << held_bits) - 1;
        }
    }
    // `spare` is 0 to 5: with no spare bit the mask is empty.
    if u32::from(last) & ((1u32 << spare) - 1) != 0 {
        return Err(Base64Error::TrailingBits);
    }
    // The bits still held (0 to 7) start the last byte; with none held there is no byte left
    // to write (or it is already zero).
    if let Some(target) = out.get_mut(written) {
        *target = (held << (8 - held_bits)) as u8;
    }
    Ok(())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn symbol(value: u8) -> u8 {
    ALPHABET
        .get(usize::from(value & 0x3f))
        .copied()
        .unwrap_or(b'A')
}

fn value_of(byte: u8) -> Option<u8> {
    VALUES
        .get(usize::from(byte))
        .copied()
        .filter(|&value| value != NOT_IN_ALPHABET)
}

/// Marks a byte outside the alphabet in [`VALUES`].
const NOT_IN_ALPHABET: u8 = 0xff;

/// The 6-bit value of every byte of the alphabet, [`NOT_IN_ALPHABET`] for every other byte: one
/// load per character when decoding a tag.
const VALUES: [u8; 256] = values();

// The loop index stays below the alphabet's length, and every alphabet byte below 256.
#[allow(clippy::indexing_slicing)]
const fn values() -> [u8; 256] {
    let mut table = [NOT_IN_ALPHABET; 256];
    let mut value = 0usize;
    while value < ALPHABET.len() {
        table[ALPHABET[value] as usize] = value as u8;
        value += 1;
    }
    table
}

fn bit_at(bytes: &[u8], position: usize) -> bool {
    bytes
        .get(position / 8)
        .is_some_and(|byte| byte & (0x80 >> (position % 8)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoding table gives every alphabet byte its position and refuses all 192 others.
    #[test]
    fn every_byte_decodes_to_its_alphabet_position_or_nothing() {
        let mut refused = 0;
        for byte in 0..=u8::MAX {
            let position = ALPHABET.iter().position(|&symbol| symbol == byte);
            assert_eq!(value_of(byte).map(usize::from), position, "{byte:#04x}");
            refused += usize::from(position.is_none());
        }
        assert_eq!(refused, 192);
    }

    /// The decoder reading groups of 4 characters agrees with a bit-by-bit reading: same bytes,
    /// same errors (offset of the first bad character, trailing bits, length).
    #[test]
    fn grouped_decoding_agrees_with_bit_by_bit_decoding() {
        fn naive(text: &str, bits: usize) -> Result<Vec<u8>, Base64Error> {
            let expected = encoded_len(bits);
            if text.len() != expected {
                return Err(Base64Error::Length {
                    expected,
                    found: text.len(),
                });
            }
            let mut all = Vec::new();
            for (offset, byte) in text.bytes().enumerate() {
                let value = value_of(byte).ok_or(Base64Error::Alphabet {
                    offset,
                    found: byte,
                })?;
                all.extend((0..6).rev().map(|bit| value >> bit & 1 == 1));
            }
            if all[bits..].iter().any(|&bit| bit) {
                return Err(Base64Error::TrailingBits);
            }
            let mut out = vec![0u8; packed_len(bits)];
            for (position, _) in all[..bits].iter().enumerate().filter(|(_, &bit)| bit) {
                out[position / 8] |= 0x80 >> (position % 8);
            }
            Ok(out)
        }
        let alphabet = "AZaz09-_Qw";
        let mut state = 7u32;
        for bits in 1..=200 {
            for round in 0..20 {
                let len = encoded_len(bits) + usize::from(round == 0);
                let text: String = (0..len)
                    .map(|i| {
                        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        let pick = (state >> 16) as usize;
                        if round == 1 && i == len / 2 {
                            '='
                        } else {
                            alphabet.as_bytes()[pick % alphabet.len()] as char
                        }
                    })
                    .collect();
                assert_eq!(
                    decode_bits(&text, bits),
                    naive(&text, bits),
                    "{text} {bits}"
                );
            }
        }
    }

    #[test]
    fn rfc4648_vectors_without_padding() {
        // RFC 4648 section 10, with padding removed and the URL-safe alphabet.
        let cases: [(&[u8], &str); 7] = [
            (b"", ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
        ];
        for (bytes, text) in cases {
            assert_eq!(encode(bytes), text);
            assert_eq!(decode(text).unwrap(), bytes);
        }
        assert_eq!(encode(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn rejects_non_canonical_text() {
        assert_eq!(decode("Zh"), Err(Base64Error::TrailingBits));
        assert!(matches!(
            decode("Zg=="),
            Err(Base64Error::Alphabet {
                offset: 2,
                found: b'='
            })
        ));
        assert!(matches!(
            decode("Z+8"),
            Err(Base64Error::Alphabet { offset: 1, .. })
        ));
        assert!(matches!(decode("Z/8"), Err(Base64Error::Alphabet { .. })));
        assert_eq!(
            decode("Zm9vY"),
            Err(Base64Error::NotWholeBytes { found: 5 })
        );
        assert!(matches!(
            decode("Zm 8"),
            Err(Base64Error::Alphabet { offset: 2, .. })
        ));
    }

    #[test]
    fn bit_strings_round_trip_at_six_bit_lengths() {
        let bytes = [0xa5u8; 17];
        let text = encode_bits(&bytes, 132);
        assert_eq!(text.len(), 22);
        let packed = decode_bits(&text, 132).unwrap();
        assert_eq!(packed.len(), 17);
        assert_eq!(packed.get(16), Some(&0xa0));
        assert_eq!(encode_bits(&packed, 132), text);
        assert_eq!(decode_bits(&text, 130), Err(Base64Error::TrailingBits));
        assert_eq!(
            decode_bits(&text, 126),
            Err(Base64Error::Length {
                expected: 21,
                found: 22
            })
        );
    }
}
