//! SHA-256 digests as values, written as 64 lowercase hexadecimal digits.

use std::fmt;

use sha2::{Digest, Sha256};

/// A SHA-256 digest. Its text form is exactly 64 lowercase hexadecimal digits, and
/// [`Sha256Digest::from_hex`] accepts nothing else, so each digest has one spelling.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest([u8; 32]);

/// A digest in text form is not 64 lowercase hexadecimal digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestError {
    /// The text given.
    pub text: String,
}

impl Sha256Digest {
    /// The digest of all zero bytes, used as the previous hash of a log's first entry.
    pub const ZERO: Sha256Digest = Sha256Digest([0; 32]);

    /// SHA-256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256Digest {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// Wraps raw digest bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Sha256Digest {
        Sha256Digest(bytes)
    }

    /// Parses exactly 64 lowercase hexadecimal digits.
    pub fn from_hex(text: &str) -> Result<Sha256Digest, DigestError> {
        let error = || DigestError {
            text: text.to_owned(),
        };
        if text.len() != 64 {
            return Err(error());
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let mut value = 0u8;
            for &digit in pair {
                value = (value << 4) | lower_hex_value(digit).ok_or_else(error)?;
            }
            *byte = value;
        }
        Ok(Sha256Digest(out))
    }

    /// The raw 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64 lowercase hexadecimal digits.
    pub fn to_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            for nibble in [byte >> 4, byte & 0x0f] {
                // A nibble is below 16, the table's length: the fallback is never taken.
                debug_assert!(usize::from(nibble) < HEX.len());
                out.push(char::from(
                    HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                ));
            }
        }
        out
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({})", self.to_hex())
    }
}

impl fmt::Display for DigestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not 64 lowercase hexadecimal digits",
            self.text.escape_debug()
        )
    }
}

impl std::error::Error for DigestError {}

fn lower_hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip() {
        let digest = Sha256Digest::of(b"abc");
        assert_eq!(
            digest.to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(Sha256Digest::from_hex(&digest.to_hex()), Ok(digest));
    }

    #[test]
    fn rejects_other_spellings() {
        let upper = Sha256Digest::of(b"abc").to_hex().to_uppercase();
        assert!(Sha256Digest::from_hex(&upper).is_err());
        assert!(Sha256Digest::from_hex(&"0".repeat(63)).is_err());
        assert!(Sha256Digest::from_hex(&"0".repeat(65)).is_err());
        assert!(Sha256Digest::from_hex(&"g".repeat(64)).is_err());
        assert!(Sha256Digest::from_hex(&"é".repeat(32)).is_err());
    }
}
