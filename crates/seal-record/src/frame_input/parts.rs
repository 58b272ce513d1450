//! The checked parts of a frame or footer signing input and the one encoder that writes them.

use sha2::{Digest, Sha256};

use super::check::{check_common, check_element};
use super::SigningInputError;
use crate::pae::{le64, piece_len, usize_to_u64};
use crate::signing_input::{count_piece, FOOTER_DOMAIN, FRAME_DOMAIN};

/// The checked parts of a frame or footer signing input, with the body (or message) already
/// hashed, borrowing the rest: writes exactly the bytes of
/// [`FrameSigningInput`](crate::FrameSigningInput) (or
/// [`FooterSigningInput`](crate::FooterSigningInput)) piece by piece into a sink, so a MAC can be
/// fed without building the bytes in memory. Both signing inputs are built by this encoder, so
/// the bytes are the same by construction.
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

impl<'a> SigningInputParts<'a> {
    /// The parts of a frame's signing input, checked as by
    /// [`FrameSigningInput::new`](crate::FrameSigningInput::new) (same arguments, same errors);
    /// the body is hashed here.
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
        check_element(element)?;
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

    /// The parts of a footer's signing input, checked as by
    /// [`FooterSigningInput::new`](crate::FooterSigningInput::new) (same arguments, same
    /// errors); the message is hashed here.
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
        let (count, pairs_len) = pairs_len(self.attributes);
        sink.write_le64(usize_to_u64(pairs_len));
        sink.write_le64(usize_to_u64(count));
        for &(name, value) in self.attributes {
            sink.write_le64(usize_to_u64(pair_len(name, value)));
            sink.write_le64(2);
            write_piece(sink, name.as_bytes());
            write_piece(sink, value.as_bytes());
        }
        write_piece(sink, &self.hash);
    }

    /// The encoded signing input in one buffer of exactly its size.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.write_to(&mut out);
        out
    }

    /// The number of bytes [`write_to`](Self::write_to) writes.
    fn encoded_len(&self) -> usize {
        8usize
            .saturating_add(piece_len(self.domain.len()))
            .saturating_add(piece_len(self.key_id.len()))
            .saturating_add(piece_len(self.algorithm.len()))
            .saturating_add(piece_len(self.tag_len.len()))
            .saturating_add(self.element.map_or(0, |element| piece_len(element.len())))
            .saturating_add(piece_len(pairs_len(self.attributes).1))
            .saturating_add(piece_len(self.hash.len()))
    }
}

#[inline]
fn write_piece(sink: &mut impl ByteSink, piece: &[u8]) {
    sink.write_le64(usize_to_u64(piece.len()));
    sink.write(piece);
}

/// The encoded size of `PAE(name, value)`.
fn pair_len(name: &str, value: &str) -> usize {
    8 + piece_len(name.len()) + piece_len(value.len())
}

/// The number of attributes and the encoded size of `PAE(PAE(name_1, value_1), ..)`.
fn pairs_len(attributes: &[(&str, &str)]) -> (usize, usize) {
    attributes
        .iter()
        .fold((0usize, 8usize), |(count, len), &(name, value)| {
            (
                count + 1,
                len.saturating_add(piece_len(pair_len(name, value))),
            )
        })
}
