//! The frame and footer signing inputs (spec/records.md, "Frame signing input").
//!
//! Both are built by one encoder, [`SigningInputParts::write_to`]: the one-buffer inputs here
//! and the piece-by-piece writes a MAC is fed from are the same bytes by construction.

mod check;
mod error;
mod parts;

use seal_parse::frame::Frame;

use crate::signing_input::SigningInput;

pub use error::SigningInputError;
pub use parts::{ByteSink, SigningInputParts};

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
        let parts =
            SigningInputParts::frame(key_id, algorithm, tag_len, element, attributes, body)?;
        Ok(FrameSigningInput {
            input: SigningInput::from_encoded(parts.to_bytes()),
        })
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
        FrameSigningInput::new(
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
        let parts = SigningInputParts::footer(key_id, algorithm, tag_len, fields, message)?;
        Ok(FooterSigningInput {
            input: SigningInput::from_encoded(parts.to_bytes()),
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

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::check::PAIRWISE_DUPLICATE_CHECK_LIMIT;
    use super::*;
    use crate::pae::{pae, unpae};
    use crate::signing_input::{FOOTER_DOMAIN, FRAME_DOMAIN};

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

    /// The parts write exactly the bytes of the one-buffer inputs (one encoder builds both), and
    /// refuse what they refuse.
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
