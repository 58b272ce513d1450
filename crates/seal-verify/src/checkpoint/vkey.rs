//! Verifier keys of a log: the C2SP signed-note `vkey` text of an Ed25519 key.
//!
//! ```text
//! <name>+<key id, 8 lowercase hex digits>+<standard base64 of 0x01 || 32-byte public key>
//! ```

use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use seal_record::tlog::{is_log_name, key_id, ED25519_KEY_TYPE};

use crate::ed25519::Ed25519PublicKey;

/// Bytes of the key a verifier key encodes: the type byte `0x01` and the 32-byte Ed25519
/// public key.
pub const LOG_PUBLIC_KEY_BYTES: usize = 33;

/// Digits of the key id in a verifier key: 8 lowercase hex digits (4 bytes).
const KEY_ID_DIGITS: usize = 8;

/// A log's verifier key: the key name, its key id and the Ed25519 public key, bound together
/// when parsed. The key id is always the one computed from the name and the key, so a
/// verifier key matches a signature line only by both.
///
/// ```
/// use seal_verify::{LogSigningKey, LogVerifierKey};
///
/// let key = LogSigningKey::from_seed("seal.example/decisions", &[7; 32])?;
/// let text = key.verifier_key().to_text();
/// let parsed = LogVerifierKey::parse(&text)?;
/// assert_eq!(parsed.to_text(), text);
/// assert_eq!(parsed.name(), "seal.example/decisions");
/// assert!(LogVerifierKey::parse(&text.replacen('+', "+0", 1)).is_err());
/// # Ok::<(), seal_verify::LogKeyError>(())
/// ```
#[derive(Clone)]
pub struct LogVerifierKey {
    name: String,
    key_id: [u8; 4],
    public_key: Ed25519PublicKey,
}

/// Why a log key or its verifier key text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogKeyError {
    /// The key name is not 1 to 256 printable ASCII characters without space or `+`.
    Name,
    /// The seed is not 32 bytes.
    Seed {
        /// Bytes given.
        len: usize,
    },
    /// The text is not three parts joined by `+`.
    Form,
    /// The key id part is not exactly 8 lowercase hex digits.
    KeyIdForm,
    /// The key part is not canonical standard base64.
    KeyEncoding,
    /// The key part does not decode to 33 bytes.
    KeyLength {
        /// Bytes decoded.
        len: usize,
    },
    /// The key's type byte is not `0x01` (Ed25519).
    KeyType {
        /// The type byte found.
        found: u8,
    },
    /// The key id is not the one computed from the name and the key.
    KeyIdMismatch {
        /// The key id the text states.
        stated: [u8; 4],
        /// The key id of the name and key.
        computed: [u8; 4],
    },
}

impl LogKeyError {
    /// A stable snake_case name of the error, as used in the golden vectors.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Seed { .. } => "seed",
            Self::Form => "form",
            Self::KeyIdForm => "key_id_form",
            Self::KeyEncoding => "key_encoding",
            Self::KeyLength { .. } => "key_length",
            Self::KeyType { .. } => "key_type",
            Self::KeyIdMismatch { .. } => "key_id_mismatch",
        }
    }
}

impl fmt::Display for LogKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name => f.write_str(
                "log key name must be 1 to 256 printable ASCII characters without space or '+'",
            ),
            Self::Seed { len } => write!(f, "log key seed is {len} bytes, expected 32"),
            Self::Form => f.write_str("verifier key must be `<name>+<key id>+<key>`"),
            Self::KeyIdForm => {
                f.write_str("verifier key id must be exactly 8 lowercase hex digits")
            }
            Self::KeyEncoding => f.write_str("verifier key is not canonical standard base64"),
            Self::KeyLength { len } => write!(
                f,
                "verifier key decodes to {len} bytes, expected {LOG_PUBLIC_KEY_BYTES} (a type byte and a 32-byte public key)"
            ),
            Self::KeyType { found } => write!(
                f,
                "verifier key type is 0x{found:02x}, only 0x01 (ed25519) is accepted"
            ),
            Self::KeyIdMismatch { stated, computed } => write!(
                f,
                "verifier key id {} is not {}, the id of its name and key",
                hex4(stated),
                hex4(computed)
            ),
        }
    }
}

impl std::error::Error for LogKeyError {}

impl LogVerifierKey {
    /// Parses a verifier key strictly: a valid key name, `+`, exactly 8 lowercase hex digits,
    /// `+`, and canonical standard base64 of the type byte `0x01` and a 32-byte public key;
    /// the key id must equal the one computed from the name and the key. Whatever this accepts,
    /// [`LogVerifierKey::to_text`] gives back byte for byte.
    ///
    /// Whether the 32 bytes encode a curve point is decided when verifying: a key that is not a
    /// point verifies no signature.
    ///
    /// # Errors
    /// A [`LogKeyError`] naming the first part that is refused.
    pub fn parse(text: &str) -> Result<LogVerifierKey, LogKeyError> {
        let mut parts = text.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(LogKeyError::Form);
        };
        if !is_log_name(name) {
            return Err(LogKeyError::Name);
        }
        let stated = parse_key_id(id).ok_or(LogKeyError::KeyIdForm)?;
        let bytes = STANDARD.decode(key).map_err(|_| LogKeyError::KeyEncoding)?;
        let Some((&key_type, public_key)) = bytes.split_first() else {
            return Err(LogKeyError::KeyLength { len: 0 });
        };
        if bytes.len() != LOG_PUBLIC_KEY_BYTES {
            return Err(LogKeyError::KeyLength { len: bytes.len() });
        }
        if key_type != ED25519_KEY_TYPE {
            return Err(LogKeyError::KeyType { found: key_type });
        }
        let computed = key_id(name, &bytes);
        if stated != computed {
            return Err(LogKeyError::KeyIdMismatch { stated, computed });
        }
        let public_key = Ed25519PublicKey::from_bytes(public_key)
            .map_err(|_| LogKeyError::KeyLength { len: bytes.len() })?;
        Ok(LogVerifierKey {
            name: name.to_owned(),
            key_id: computed,
            public_key,
        })
    }

    /// The verifier key of `public_key` under `name`, with its computed key id.
    ///
    /// # Errors
    /// [`LogKeyError::Name`].
    pub fn new(name: &str, public_key: &Ed25519PublicKey) -> Result<LogVerifierKey, LogKeyError> {
        if !is_log_name(name) {
            return Err(LogKeyError::Name);
        }
        Ok(LogVerifierKey {
            name: name.to_owned(),
            key_id: key_id(name, &typed_key(public_key)),
            public_key: public_key.clone(),
        })
    }

    /// The text form, `<name>+<key id>+<base64 key>`.
    pub fn to_text(&self) -> String {
        format!(
            "{}+{}+{}",
            self.name,
            hex4(&self.key_id),
            STANDARD.encode(typed_key(&self.public_key))
        )
    }

    /// The key name (the origin of the log it signs for).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id: the first four bytes of `SHA-256(name || 0x0A || 0x01 || public key)`.
    pub fn key_id(&self) -> [u8; 4] {
        self.key_id
    }

    /// The Ed25519 public key.
    pub fn public_key(&self) -> &Ed25519PublicKey {
        &self.public_key
    }
}

impl fmt::Debug for LogVerifierKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LogVerifierKey({})", self.to_text())
    }
}

/// The type byte followed by the public key: what the key id and the verifier key encode.
pub(crate) fn typed_key(public_key: &Ed25519PublicKey) -> [u8; LOG_PUBLIC_KEY_BYTES] {
    let mut bytes = [ED25519_KEY_TYPE; LOG_PUBLIC_KEY_BYTES];
    for (slot, byte) in bytes.iter_mut().skip(1).zip(public_key.as_bytes()) {
        *slot = *byte;
    }
    bytes
}

/// Lowercase hex of a key id.
pub(crate) fn hex4(id: &[u8; 4]) -> String {
    id.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn parse_key_id(text: &str) -> Option<[u8; 4]> {
    let lowercase_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if text.len() != KEY_ID_DIGITS || !text.bytes().all(lowercase_hex) {
        return None;
    }
    u32::from_str_radix(text, 16).ok().map(u32::to_be_bytes)
}
