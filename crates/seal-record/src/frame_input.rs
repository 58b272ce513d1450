//! The frame and footer signing inputs (spec/records.md, "Frame signing input").

use std::collections::BTreeSet;
use std::fmt;

use seal_parse::frame::Frame;
use sha2::{Digest, Sha256};

use crate::names::{is_attribute_name, is_element_name};
use crate::pae::{le64, piece_len, usize_to_u64};
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

/// The checked parts of a frame or footer signing input, with the body (or message) already
/// hashed, borrowing the rest: writes exactly the bytes of [`FrameSigningInput`] (or
/// [`FooterSigningInput`]) piece by piece into a sink, so a MAC can be fed without building the
/// bytes in memory.
#[derive(Debug, Clone, Copy)]
pub struct SigningInputParts<'a> {
    domain: &'static str,
    key_id: &'a str,
    algorithm: &'a str,
    tag_len: [u8; 8],
    element: Option<&'a str>,
    attributes: &'a [(&'a str, &'a str)],
    hash: [u8; 32],
}

/// Where [`SigningInputParts`] writes the encoded bytes: plain bytes, and the 8-byte
/// little-endian counts and lengths of the encoding (which a sink may store at once).
pub trait ByteSink {
    /// Appends `bytes`.
    fn write(&mut self, bytes: &[u8]);

    /// Appends `LE64(n)` ([`le64`](crate::le64): the top bit cleared).
    fn write_le64(&mut self, n: u64) {
        self.write(&le64(n));
    }
}

impl ByteSink for Vec<u8> {
    fn write(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
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
        frame_input(key_id, algorithm, tag_len, element, attributes, body)
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
        frame: &Frame<'_>,
        text: &str,
    ) -> Result<FrameSigningInput, SigningInputError> {
        let attributes = match frame.attributes.split_last() {
            Some((last, rest)) if last.name == SIG_ATTRIBUTE => rest,
            _ => frame.attributes.as_slice(),
        };
        let body = frame
            .body
            .of(text)
            .ok_or(SigningInputError::BodyOutOfRange)?;
        let pairs: Vec<(&str, &str)> = attributes
            .iter()
            .map(|attribute| (attribute.name, attribute.value()))
            .collect();
        frame_input(
            key_id,
            algorithm,
            tag_len,
            frame.element,
            &pairs,
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

impl<'a> SigningInputParts<'a> {
    /// The parts of a frame's signing input, checked as by [`FrameSigningInput::new`] (same
    /// arguments, same errors); the body is hashed here.
    #[inline]
    pub fn frame(
        key_id: &'a str,
        algorithm: &'a str,
        tag_len: usize,
        element: &'a str,
        attributes: &'a [(&'a str, &'a str)],
        body: &[u8],
    ) -> Result<SigningInputParts<'a>, SigningInputError> {
        check_common(key_id, algorithm, tag_len, attributes)?;
        if !is_element_name(element) {
            return Err(SigningInputError::InvalidElement {
                name: element.to_owned(),
            });
        }
        Ok(SigningInputParts {
            domain: FRAME_DOMAIN,
            key_id,
            algorithm,
            tag_len: count_piece(tag_len),
            element: Some(element),
            attributes,
            hash: Sha256::digest(body).into(),
        })
    }

    /// The parts of a footer's signing input, checked as by [`FooterSigningInput::new`] (same
    /// arguments, same errors); the message is hashed here.
    pub fn footer(
        key_id: &'a str,
        algorithm: &'a str,
        tag_len: usize,
        fields: &'a [(&'a str, &'a str)],
        message: &[u8],
    ) -> Result<SigningInputParts<'a>, SigningInputError> {
        check_common(key_id, algorithm, tag_len, fields)?;
        Ok(SigningInputParts {
            domain: FOOTER_DOMAIN,
            key_id,
            algorithm,
            tag_len: count_piece(tag_len),
            element: None,
            attributes: fields,
            hash: Sha256::digest(message).into(),
        })
    }

    /// Writes the encoded signing input into `sink`, in order, in pieces: the concatenation of
    /// what `sink` receives is the signing input's bytes (the piece count, the domain, the key
    /// id, the algorithm, the tag length, for a frame the element, then the attributes as a
    /// nested PAE and the body or message hash).
    #[inline]
    pub fn write_to(&self, sink: &mut impl ByteSink) {
        let element = self.element.map(str::as_bytes);
        let count = if element.is_some() { 7 } else { 6 };
        sink.write_le64(count);
        write_piece(sink, self.domain.as_bytes());
        write_piece(sink, self.key_id.as_bytes());
        write_piece(sink, self.algorithm.as_bytes());
        write_piece(sink, &self.tag_len);
        if let Some(element) = element {
            write_piece(sink, element);
        }
        encode_tail(self.attributes.iter().copied(), &self.hash, sink);
    }

    /// The encoded signing input in one buffer.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_to(&mut out);
        out
    }
}

#[inline]
fn write_piece(sink: &mut impl ByteSink, piece: &[u8]) {
    sink.write_le64(usize_to_u64(piece.len()));
    sink.write(piece);
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
        let message_hash: [u8; 32] = Sha256::digest(message).into();
        let bytes = encode(
            FOOTER_DOMAIN,
            &[
                key_id.as_bytes(),
                algorithm.as_bytes(),
                &count_piece(tag_len),
            ],
            fields.iter().copied(),
            &message_hash,
        );
        Ok(FooterSigningInput {
            input: SigningInput::from_encoded(bytes),
        })
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

/// Up to this many attributes the duplicate check compares names pairwise without allocating;
/// above it, it collects the names into a set (linear in the names' total length times log).
const PAIRWISE_DUPLICATE_CHECK_LIMIT: usize = 32;

/// The frame signing input over attributes given as an iterator of (name, value) pairs.
fn frame_input(
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
    let body_hash: [u8; 32] = Sha256::digest(body).into();
    let bytes = encode(
        FRAME_DOMAIN,
        &[
            key_id.as_bytes(),
            algorithm.as_bytes(),
            &count_piece(tag_len),
            element.as_bytes(),
        ],
        attributes.iter().copied(),
        &body_hash,
    );
    Ok(FrameSigningInput {
        input: SigningInput::from_encoded(bytes),
    })
}

/// `PAE(domain, head.., PAE(PAE(name_1, value_1), .., PAE(name_k, value_k)), hash)`, written
/// into one buffer of exactly the encoded size.
fn encode<'a>(
    domain: &str,
    head: &[&[u8]],
    attributes: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    hash: &[u8; 32],
) -> Vec<u8> {
    let pairs_len = pairs_len(attributes.clone()).1;
    let total = 8usize
        .saturating_add(piece_len(domain.len()))
        .saturating_add(
            head.iter()
                .map(|piece| piece_len(piece.len()))
                .sum::<usize>(),
        )
        .saturating_add(piece_len(pairs_len))
        .saturating_add(piece_len(hash.len()));
    let mut out = Vec::with_capacity(total);
    encode_into(domain, head, attributes, hash, &mut out);
    out
}

/// Writes `PAE(domain, head.., PAE(PAE(name_1, value_1), .., PAE(name_k, value_k)), hash)`
/// into `sink`, in order.
fn encode_into<'a>(
    domain: &str,
    head: &[&[u8]],
    attributes: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    hash: &[u8; 32],
    sink: &mut impl ByteSink,
) {
    sink.write_le64(usize_to_u64(head.len() + 3));
    write_piece(sink, domain.as_bytes());
    for piece in head {
        write_piece(sink, piece);
    }
    encode_tail(attributes, hash, sink);
}

/// Writes `PAE(PAE(name_1, value_1), .., PAE(name_k, value_k))` as a piece, then the hash as a
/// piece.
#[inline]
fn encode_tail<'a>(
    attributes: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    hash: &[u8; 32],
    sink: &mut impl ByteSink,
) {
    let (count, pairs_len) = pairs_len(attributes.clone());
    sink.write_le64(usize_to_u64(pairs_len));
    sink.write_le64(usize_to_u64(count));
    for (name, value) in attributes {
        sink.write_le64(usize_to_u64(pair_len(name, value)));
        sink.write_le64(2);
        write_piece(sink, name.as_bytes());
        write_piece(sink, value.as_bytes());
    }
    write_piece(sink, hash);
}

/// The encoded size of `PAE(name, value)`.
fn pair_len(name: &str, value: &str) -> usize {
    8 + piece_len(name.len()) + piece_len(value.len())
}

/// The number of attributes and the encoded size of `PAE(PAE(name_1, value_1), ..)`.
fn pairs_len<'a>(attributes: impl Iterator<Item = (&'a str, &'a str)>) -> (usize, usize) {
    attributes.fold((0usize, 8usize), |(count, len), (name, value)| {
        (
            count + 1,
            len.saturating_add(piece_len(pair_len(name, value))),
        )
    })
}

/// Whether two names are equal, compared byte by byte in place: names are short, and a call to
/// `memcmp` for each pair costs more than the comparison.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

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
    let pairwise = attributes.len() <= PAIRWISE_DUPLICATE_CHECK_LIMIT;
    let mut seen = (!pairwise).then(BTreeSet::new);
    for (index, &(name, _)) in attributes.iter().enumerate() {
        if name == SIG_ATTRIBUTE {
            return Err(SigningInputError::SigAttribute);
        }
        if !is_attribute_name(name) {
            return Err(SigningInputError::InvalidAttributeName {
                name: name.to_owned(),
            });
        }
        let repeated = if pairwise {
            attributes
                .get(..index)
                .unwrap_or_default()
                .iter()
                .any(|&(earlier, _)| same_name(earlier, name))
        } else {
            seen.as_mut().is_some_and(|seen| !seen.insert(name))
        };
        if repeated {
            return Err(SigningInputError::DuplicateAttribute {
                name: name.to_owned(),
            });
        }
    }
    Ok(())
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

    /// The one-buffer encoding equals the nested PAE of the documented layout, at every size.
    #[test]
    fn one_buffer_encoding_equals_nested_pae() {
        let names: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
        for count in [0, 1, 2, 5, 32, 33, 40] {
            let attributes: Vec<(&str, &str)> = names
                .iter()
                .take(count)
                .map(|name| (name.as_str(), "v\u{e9}"))
                .collect();
            let pairs: Vec<Vec<u8>> = attributes
                .iter()
                .map(|(n, v)| pae(&[n.as_bytes(), v.as_bytes()]))
                .collect();
            let pairs: Vec<&[u8]> = pairs.iter().map(Vec::as_slice).collect();
            let pairs = pae(&pairs);
            let hash = Sha256::digest(b"body");
            let frame =
                FrameSigningInput::new("k1", "hmac-sha256", 22, "channel", &attributes, b"body")
                    .unwrap();
            let expected = pae(&[
                FRAME_DOMAIN.as_bytes(),
                b"k1",
                b"hmac-sha256",
                &22u64.to_le_bytes(),
                b"channel",
                &pairs,
                &hash,
            ]);
            assert_eq!(frame.bytes(), expected.as_slice());
            assert_eq!(frame.signing_input().domain(), FRAME_DOMAIN);
            let footer =
                FooterSigningInput::new("k1", "ed25519", 86, &attributes, b"body").unwrap();
            let expected = pae(&[
                FOOTER_DOMAIN.as_bytes(),
                b"k1",
                b"ed25519",
                &86u64.to_le_bytes(),
                &pairs,
                &hash,
            ]);
            assert_eq!(footer.bytes(), expected.as_slice());
            assert_eq!(footer.signing_input().domain(), FOOTER_DOMAIN);
        }
    }

    /// The parts write exactly the bytes of the one-buffer inputs, and refuse what they refuse.
    #[test]
    fn parts_write_the_same_bytes_and_refuse_the_same_inputs() {
        let names: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
        for count in [0, 1, 4, 33, 40] {
            let attributes: Vec<(&str, &str)> = names
                .iter()
                .take(count)
                .map(|name| (name.as_str(), "v\u{e9}"))
                .collect();
            let frame =
                FrameSigningInput::new("k1", "hmac-sha256", 22, "channel", &attributes, b"body")
                    .unwrap();
            let parts =
                SigningInputParts::frame("k1", "hmac-sha256", 22, "channel", &attributes, b"body")
                    .unwrap();
            assert_eq!(parts.to_bytes(), frame.bytes());
            let footer = FooterSigningInput::new("k1", "ed25519", 86, &attributes, b"m").unwrap();
            let parts = SigningInputParts::footer("k1", "ed25519", 86, &attributes, b"m").unwrap();
            assert_eq!(parts.to_bytes(), footer.bytes());
        }
        type Case<'a> = (&'a str, &'a str, usize, &'a str, &'a [(&'a str, &'a str)]);
        let bad: [Case<'_>; 6] = [
            ("", "a", 1, "e", &[]),
            ("k", "", 1, "e", &[]),
            ("k", "a", 0, "e", &[]),
            ("k", "a", 1, "E", &[]),
            ("k", "a", 1, "e", &[("sig", "x")]),
            ("k", "a", 1, "e", &[("x", "1"), ("x", "2")]),
        ];
        for (key_id, algorithm, tag_len, element, attributes) in bad {
            let one = FrameSigningInput::new(key_id, algorithm, tag_len, element, attributes, b"")
                .unwrap_err();
            let parts =
                SigningInputParts::frame(key_id, algorithm, tag_len, element, attributes, b"")
                    .unwrap_err();
            assert_eq!(one, parts);
        }
    }

    /// The duplicate check finds the same first repeat below and above the pairwise limit.
    #[test]
    fn duplicates_found_on_both_sides_of_the_pairwise_limit() {
        for count in [
            2,
            PAIRWISE_DUPLICATE_CHECK_LIMIT,
            PAIRWISE_DUPLICATE_CHECK_LIMIT + 5,
        ] {
            let mut names: Vec<String> = (0..count - 1).map(|i| format!("a{i}")).collect();
            names.push("a0".to_owned());
            let attributes: Vec<(&str, &str)> =
                names.iter().map(|name| (name.as_str(), "")).collect();
            assert_eq!(
                FrameSigningInput::new("k", "a", 1, "e", &attributes, b"").unwrap_err(),
                SigningInputError::DuplicateAttribute { name: "a0".into() },
                "{count} attributes"
            );
            assert!(FrameSigningInput::new("k", "a", 1, "e", &attributes[1..], b"").is_ok());
        }
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
