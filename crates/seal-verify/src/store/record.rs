//! Key records: a verifying key with its id, validity window, status and scopes.

use std::fmt;

use arrayvec::ArrayString;

use crate::key::VerifyingKey;
use crate::time::UnixTime;

/// Longest key id, in bytes: 64.
pub const MAX_KEY_ID_LEN: usize = 64;

/// A key id: 1 to [`MAX_KEY_ID_LEN`] characters from `A-Z a-z 0-9 . _ -`.
pub fn is_key_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_KEY_ID_LEN
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'))
}

/// The closed time window in which a key may be used: `not_before <= t <= not_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    /// First second of validity.
    pub not_before: UnixTime,
    /// Last second of validity.
    pub not_after: UnixTime,
}

impl Validity {
    /// True when `now` lies in the window.
    pub fn contains(&self, now: UnixTime) -> bool {
        self.not_before <= now && now <= self.not_after
    }
}

/// Where a key is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStatus {
    /// May sign and verify.
    Active,
    /// May verify what it signed before, may not sign anything new.
    VerifyOnly,
    /// Revoked from this time on: nothing at or after `at` resolves. Before `at` it behaves as
    /// [`KeyStatus::VerifyOnly`] (a scheduled revocation never allows new signing).
    Revoked {
        /// First second at which the key is revoked.
        at: UnixTime,
    },
}

/// Which frames a key may sign: an element name and, for some attribute names, the values
/// allowed. A frame matches when its element is `element` and, for every constrained attribute,
/// it carries that attribute with one of the allowed values. Attributes not named are free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameScope {
    element: String,
    attributes: Vec<(String, Vec<String>)>,
}

/// Why a frame scope was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScopeError {
    /// The element name is outside the frame grammar.
    ElementName {
        /// The name.
        name: String,
    },
    /// An attribute name is outside the frame grammar, or is `sig`.
    AttributeName {
        /// The name.
        name: String,
    },
    /// The same attribute is constrained twice.
    DuplicateAttribute {
        /// The name.
        name: String,
    },
    /// An attribute constraint allows no value.
    NoValues {
        /// The attribute name.
        name: String,
    },
}

impl fmt::Display for ScopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ElementName { name } => {
                write!(f, "`{}` is not an element name", name.escape_debug())
            }
            Self::AttributeName { name } => {
                write!(
                    f,
                    "`{}` is not a scopable attribute name",
                    name.escape_debug()
                )
            }
            Self::DuplicateAttribute { name } => {
                write!(
                    f,
                    "attribute `{}` is constrained twice",
                    name.escape_debug()
                )
            }
            Self::NoValues { name } => {
                write!(f, "attribute `{}` allows no value", name.escape_debug())
            }
        }
    }
}

impl std::error::Error for ScopeError {}

impl FrameScope {
    /// A scope for `element` with the given attribute constraints. Names follow the frame
    /// grammar; `sig` cannot be constrained; each constrained attribute allows at least one value.
    pub fn new(
        element: &str,
        attributes: Vec<(String, Vec<String>)>,
    ) -> Result<FrameScope, ScopeError> {
        if !seal_record::is_element_name(element) {
            return Err(ScopeError::ElementName {
                name: element.to_owned(),
            });
        }
        for (index, (name, values)) in attributes.iter().enumerate() {
            if !seal_record::is_attribute_name(name) || name == seal_record::SIG_ATTRIBUTE {
                return Err(ScopeError::AttributeName { name: name.clone() });
            }
            if attributes
                .iter()
                .take(index)
                .any(|(earlier, _)| earlier == name)
            {
                return Err(ScopeError::DuplicateAttribute { name: name.clone() });
            }
            if values.is_empty() {
                return Err(ScopeError::NoValues { name: name.clone() });
            }
        }
        Ok(FrameScope {
            element: element.to_owned(),
            attributes,
        })
    }

    /// The element name.
    pub fn element(&self) -> &str {
        &self.element
    }

    /// The attribute constraints: name and allowed values.
    pub fn attributes(&self) -> &[(String, Vec<String>)] {
        &self.attributes
    }

    /// True when a frame with this element and these attributes is inside the scope.
    pub fn matches(&self, element: &str, attributes: &[(&str, &str)]) -> bool {
        element == self.element
            && self.attributes.iter().all(|(name, allowed)| {
                attributes
                    .iter()
                    .find(|(present, _)| present == name)
                    .is_some_and(|(_, value)| allowed.iter().any(|candidate| candidate == value))
            })
    }
}

/// What a key may be used for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes {
    /// Frames the key may sign (none: no frame).
    pub frames: Vec<FrameScope>,
    /// May approve disclosure manifests.
    pub manifest_approval: bool,
    /// May sign the next trust store document (Ed25519 keys only).
    pub store_update: bool,
}

/// A key with everything needed to decide whether it may be used: id, bound key (algorithm and
/// tag length), validity window, status and scopes.
#[derive(Debug)]
pub struct KeyRecord {
    id: KeyIdText,
    key: VerifyingKey,
    validity: Validity,
    status: KeyStatus,
    scopes: Scopes,
}

/// Why a key record was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyRecordError {
    /// The id is outside the key id grammar ([`is_key_id`]).
    KeyId {
        /// The id.
        id: String,
    },
    /// `not_before` is after `not_after`.
    Window {
        /// The window start.
        not_before: UnixTime,
        /// The window end.
        not_after: UnixTime,
    },
    /// A store-update scope on a key that is not Ed25519.
    StoreUpdateNeedsEd25519,
    /// A manifest-approval scope on a key that is not Ed25519.
    ManifestApprovalNeedsEd25519,
    /// An HMAC key whose tag length is not a whole number of base64url characters (not a
    /// multiple of 6 bits): its text form would share a character count, and a signing input,
    /// with a whole-character length over the same secret.
    TagLengthNotWholeChars {
        /// The key's tag length in bits.
        bits: u16,
    },
}

impl fmt::Display for KeyRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KeyId { id } => write!(f, "`{}` is not a key id", id.escape_debug()),
            Self::Window {
                not_before,
                not_after,
            } => write!(
                f,
                "validity starts at {not_before}, after it ends at {not_after}"
            ),
            Self::StoreUpdateNeedsEd25519 => {
                f.write_str("only ed25519 keys may have the store update scope")
            }
            Self::ManifestApprovalNeedsEd25519 => {
                f.write_str("only ed25519 keys may have the manifest approval scope")
            }
            Self::TagLengthNotWholeChars { bits } => write!(
                f,
                "an hmac key's tag length of {bits} bits is not a whole number of base64url \
                 characters (a multiple of 6 bits)"
            ),
        }
    }
}

impl std::error::Error for KeyRecordError {}

impl KeyRecord {
    /// A record; refuses a bad id, an inverted window, a store-update or manifest-approval
    /// scope on an HMAC key (a shared secret would let every verifier forge them), and an HMAC
    /// key whose tag length is not a whole number of characters
    /// ([`TagLength::is_whole_chars`](crate::TagLength::is_whole_chars)).
    pub fn new(
        id: &str,
        key: VerifyingKey,
        validity: Validity,
        status: KeyStatus,
        scopes: Scopes,
    ) -> Result<KeyRecord, KeyRecordError> {
        check_rules(
            id,
            matches!(key, VerifyingKey::Ed25519(_)),
            validity,
            &scopes,
        )?;
        if let VerifyingKey::Hmac(hmac) = &key {
            let length = hmac.tag_length();
            if !length.is_whole_chars() {
                return Err(KeyRecordError::TagLengthNotWholeChars {
                    bits: length.bits(),
                });
            }
        }
        Ok(KeyRecord {
            id: key_id_text(id)?,
            key,
            validity,
            status,
            scopes,
        })
    }

    /// The key id.
    pub fn id(&self) -> &str {
        self.id.as_str()
    }

    /// The key id, inline, for a witness to copy.
    pub(crate) fn id_text(&self) -> KeyIdText {
        self.id
    }

    /// The bound key.
    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    /// The validity window.
    pub fn validity(&self) -> Validity {
        self.validity
    }

    /// The status.
    pub fn status(&self) -> KeyStatus {
        self.status
    }

    /// The scopes.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }
}

/// A key id as a record and a verification witness hold it: at most [`MAX_KEY_ID_LEN`] bytes,
/// inline.
pub(crate) type KeyIdText = ArrayString<MAX_KEY_ID_LEN>;

/// `id` held inline; refused when outside the key id grammar.
pub(crate) fn key_id_text(id: &str) -> Result<KeyIdText, KeyRecordError> {
    match ArrayString::from(id) {
        Ok(text) if is_key_id(id) => Ok(text),
        _ => Err(KeyRecordError::KeyId { id: id.to_owned() }),
    }
}

/// The rules every record obeys, shared by [`KeyRecord::new`] and the document parser.
pub(crate) fn check_rules(
    id: &str,
    is_ed25519: bool,
    validity: Validity,
    scopes: &Scopes,
) -> Result<(), KeyRecordError> {
    if !is_key_id(id) {
        return Err(KeyRecordError::KeyId { id: id.to_owned() });
    }
    if validity.not_before > validity.not_after {
        return Err(KeyRecordError::Window {
            not_before: validity.not_before,
            not_after: validity.not_after,
        });
    }
    if scopes.store_update && !is_ed25519 {
        return Err(KeyRecordError::StoreUpdateNeedsEd25519);
    }
    if scopes.manifest_approval && !is_ed25519 {
        return Err(KeyRecordError::ManifestApprovalNeedsEd25519);
    }
    Ok(())
}
