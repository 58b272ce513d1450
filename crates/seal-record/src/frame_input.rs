//! The frame and footer signing inputs (spec/records.md, "Frame signing input").

use std::collections::BTreeSet;
use std::fmt;

use seal_parse::frame::Frame;
use sha2::{Digest, Sha256};

use crate::names::{is_attribute_name, is_element_name};
use crate::pae::append_pae;
use crate::signing_input::{count_piece, SigningInput, FOOTER_DOMAIN, FRAME_DOMAIN};

/// The attribute that carries the tag; it is never part of what the tag covers.
pub const SIG_ATTRIBUTE: &str = "sig";

/// The signing input of a frame:
/// `PAE("seal/frame/v1", key id, algorithm, LE64(tag length), element,
/// PAE(PAE(name_1, value_1), .., PAE(name_k, value_k)), SHA-256(body))`.
///
/// Attributes are the decoded attribute values in document order, `sig` excluded. The key id and
/// the algorithm are pieces of the input, so a tag made under one key id or algorithm never
/// verifies under another. Distinct inputs give distinct bytes (invariant I4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameSigningInput {
    input: SigningInput,
}

/// The signing input of the footer form (lanes that cannot carry attributes):
/// `PAE("seal/footer/v1", key id, algorithm, LE64(tag length),
/// PAE(PAE(name_1, value_1), .., PAE(name_k, value_k)), SHA-256(message))`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterSigningInput {
    input: SigningInput,
}

/// Why a frame or footer signing input cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigningInputError {
    /// The key id is empty.
    EmptyKeyId,
    /// The algorithm name is empty.
    EmptyAlgorithm,
    /// The tag length is zero.
    ZeroTagLength,
    /// The element name is outside `[a-z][a-z0-9-]{0,63}`.
    InvalidElement {
        /// The name given.
        name: String,
    },
    /// An attribute or field name is outside `[a-z][a-z0-9_-]{0,63}`.
    InvalidAttributeName {
        /// The name given.
        name: String,
    },
    /// Two attributes or fields have the same name.
    DuplicateAttribute {
        /// The repeated name.
        name: String,
    },
    /// A `sig` attribute was passed in: the tag never covers itself.
    SigAttribute,
    /// A scanned frame's body span does not lie in the text given.
    BodyOutOfRange,
}

impl FrameSigningInput {
    /// Builds the signing input of a frame.
    ///
    /// `tag_len` is the tag length bound to the key (the number of base64url characters of the
    /// `sig` value). `attributes` are (name, decoded value) pairs in document order without
    /// `sig`; `body` is the body exactly as hashed (for rendered frames, the escaped body bytes
    /// between the tags).
    pub fn new(
        key_id: &str,
        algorithm: &str,
        tag_len: usize,
        element: &str,
        attributes: &[(&str, &str)],
        body: &[u8],
    ) -> Result<FrameSigningInput, SigningInputError> {
        check_common(key_id, algorithm, tag_len, attributes)?;
        if !is_element_name(element) {
            return Err(SigningInputError::InvalidElement {
                name: element.to_owned(),
            });
        }
        let tag_len = count_piece(tag_len);
        let pairs = attribute_pairs(attributes);
        let body_hash: [u8; 32] = Sha256::digest(body).into();
        let input = SigningInput::new(
            FRAME_DOMAIN,
            &[
                key_id.as_bytes(),
                algorithm.as_bytes(),
                &tag_len,
                element.as_bytes(),
                &pairs,
                &body_hash,
            ],
        );
        Ok(FrameSigningInput { input })
    }

    /// Builds the signing input of a frame that the scanner accepted in `text`: its element,
    /// its attributes in document order without the trailing `sig`, and the bytes of its body
    /// span in `text`, hashed as they stand.
    ///
    /// `text` must be the text that was scanned; a body span that does not lie in it is
    /// [`SigningInputError::BodyOutOfRange`].
    pub fn for_scanned_frame(
        key_id: &str,
        algorithm: &str,
        tag_len: usize,
        frame: &Frame,
        text: &str,
    ) -> Result<FrameSigningInput, SigningInputError> {
        let attributes: Vec<(&str, &str)> = frame
            .attributes
            .iter()
            .map(|attribute| (attribute.name.as_str(), attribute.value.as_str()))
            .collect();
        let attributes = match attributes.split_last() {
            Some(((name, _), rest)) if *name == SIG_ATTRIBUTE => rest,
            _ => attributes.as_slice(),
        };
        let body = frame
            .body
            .of(text)
            .ok_or(SigningInputError::BodyOutOfRange)?;
        FrameSigningInput::new(
            key_id,
            algorithm,
            tag_len,
            &frame.element,
            attributes,
            body.as_bytes(),
        )
    }

    /// The bytes the tag is computed over.
    pub fn bytes(&self) -> &[u8] {
        self.input.bytes()
    }

    /// The underlying domain-separated signing input.
    pub fn signing_input(&self) -> &SigningInput {
        &self.input
    }
}

impl FooterSigningInput {
    /// Builds the signing input of a footer line: the same rules as a frame without an element;
    /// `fields` are (name, value) pairs in footer order without `sig`, `message` is the message
    /// the footer follows, exactly as hashed.
    pub fn new(
        key_id: &str,
        algorithm: &str,
        tag_len: usize,
        fields: &[(&str, &str)],
        message: &[u8],
    ) -> Result<FooterSigningInput, SigningInputError> {
        check_common(key_id, algorithm, tag_len, fields)?;
        let tag_len = count_piece(tag_len);
        let pairs = attribute_pairs(fields);
        let message_hash: [u8; 32] = Sha256::digest(message).into();
        let input = SigningInput::new(
            FOOTER_DOMAIN,
            &[
                key_id.as_bytes(),
                algorithm.as_bytes(),
                &tag_len,
                &pairs,
                &message_hash,
            ],
        );
        Ok(FooterSigningInput { input })
    }

    /// The bytes the tag is computed over.
    pub fn bytes(&self) -> &[u8] {
        self.input.bytes()
    }

    /// The underlying domain-separated signing input.
    pub fn signing_input(&self) -> &SigningInput {
        &self.input
    }
}

impl fmt::Display for SigningInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SigningInputError::EmptyKeyId => f.write_str("empty key id"),
            SigningInputError::EmptyAlgorithm => f.write_str("empty algorithm name"),
            SigningInputError::ZeroTagLength => f.write_str("tag length is zero"),
            SigningInputError::InvalidElement { name } => {
                write!(f, "invalid element name `{}`", name.escape_debug())
            }
            SigningInputError::InvalidAttributeName { name } => {
                write!(f, "invalid attribute name `{}`", name.escape_debug())
            }
            SigningInputError::DuplicateAttribute { name } => {
                write!(f, "duplicate attribute `{}`", name.escape_debug())
            }
            SigningInputError::SigAttribute => {
                f.write_str("the `sig` attribute is not part of the signing input")
            }
            SigningInputError::BodyOutOfRange => {
                f.write_str("the frame's body span does not lie in the text")
            }
        }
    }
}

impl std::error::Error for SigningInputError {}

fn check_common(
    key_id: &str,
    algorithm: &str,
    tag_len: usize,
    attributes: &[(&str, &str)],
) -> Result<(), SigningInputError> {
    if key_id.is_empty() {
        return Err(SigningInputError::EmptyKeyId);
    }
    if algorithm.is_empty() {
        return Err(SigningInputError::EmptyAlgorithm);
    }
    if tag_len == 0 {
        return Err(SigningInputError::ZeroTagLength);
    }
    let mut seen = BTreeSet::new();
    for (name, _) in attributes {
        if *name == SIG_ATTRIBUTE {
            return Err(SigningInputError::SigAttribute);
        }
        if !is_attribute_name(name) {
            return Err(SigningInputError::InvalidAttributeName {
                name: (*name).to_owned(),
            });
        }
        if !seen.insert(*name) {
            return Err(SigningInputError::DuplicateAttribute {
                name: (*name).to_owned(),
            });
        }
    }
    Ok(())
}

/// `PAE(PAE(name_1, value_1), .., PAE(name_k, value_k))`.
fn attribute_pairs(attributes: &[(&str, &str)]) -> Vec<u8> {
    let encoded: Vec<Vec<u8>> = attributes
        .iter()
        .map(|(name, value)| {
            let mut pair = Vec::with_capacity(16 + name.len() + value.len());
            append_pae(&mut pair, &[name.as_bytes(), value.as_bytes()]);
            pair
        })
        .collect();
    let pieces: Vec<&[u8]> = encoded.iter().map(Vec::as_slice).collect();
    let mut out = Vec::new();
    append_pae(&mut out, &pieces);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pae::{pae, unpae};

    #[test]
    fn layout_is_the_documented_one() {
        let input =
            FrameSigningInput::new("k1", "hmac-sha256", 22, "channel", &[("id", "7")], b"hi")
                .unwrap();
        let pieces = unpae(input.bytes()).unwrap();
        assert_eq!(pieces.len(), 7);
        assert_eq!(pieces[0], b"seal/frame/v1");
        assert_eq!(pieces[1], b"k1");
        assert_eq!(pieces[2], b"hmac-sha256");
        assert_eq!(pieces[3], 22u64.to_le_bytes());
        assert_eq!(pieces[4], b"channel");
        assert_eq!(pieces[5], pae(&[&pae(&[b"id", b"7"])]));
        assert_eq!(pieces[6], Sha256::digest(b"hi").as_slice());
    }

    #[test]
    fn footer_layout() {
        let input = FooterSigningInput::new("k1", "ed25519", 86, &[], b"msg").unwrap();
        let pieces = unpae(input.bytes()).unwrap();
        assert_eq!(pieces.len(), 6);
        assert_eq!(pieces[0], b"seal/footer/v1");
        assert_eq!(pieces[4], pae(&[]));
    }

    #[test]
    fn rejects() {
        let frame = |k, a, t, e, attrs: &[(&str, &str)]| {
            FrameSigningInput::new(k, a, t, e, attrs, b"").unwrap_err()
        };
        assert_eq!(frame("", "a", 1, "e", &[]), SigningInputError::EmptyKeyId);
        assert_eq!(
            frame("k", "", 1, "e", &[]),
            SigningInputError::EmptyAlgorithm
        );
        assert_eq!(
            frame("k", "a", 0, "e", &[]),
            SigningInputError::ZeroTagLength
        );
        assert!(matches!(
            frame("k", "a", 1, "E", &[]),
            SigningInputError::InvalidElement { .. }
        ));
        assert_eq!(
            frame("k", "a", 1, "e", &[("sig", "x")]),
            SigningInputError::SigAttribute
        );
        assert!(matches!(
            frame("k", "a", 1, "e", &[("A", "x")]),
            SigningInputError::InvalidAttributeName { .. }
        ));
        assert_eq!(
            frame("k", "a", 1, "e", &[("x", "1"), ("x", "2")]),
            SigningInputError::DuplicateAttribute { name: "x".into() }
        );
        assert_eq!(
            FooterSigningInput::new("k", "a", 1, &[("sig", "")], b"").unwrap_err(),
            SigningInputError::SigAttribute
        );
    }
}
