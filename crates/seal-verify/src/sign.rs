//! Frame signing: a rendered frame whose `sig` attribute, last, is the tag over its
//! [`FrameSigningInput`] (spec/frame-v1.md, "Signing input").

use std::fmt;

use seal_parse::frame::HarnessRewrite;
use seal_record::{FooterSigningInput, FrameSigningInput, SigningInputError, SIG_ATTRIBUTE};
use seal_render::{escape, Context, RenderError, StartTag};

use crate::ed25519::Ed25519SigningKey;
use crate::frame_id::{check_frame_id, FrameIdProblem};
use crate::freshness::ISSUED_AT_ATTRIBUTE;
use crate::hmac_key::{HmacKey, SubkeyError};
use crate::key::Algorithm;
use crate::store::is_key_id;
use crate::tag::{Tag, ED25519_SIGNATURE_BITS};
use crate::time::UnixTime;

/// The attribute naming the key a frame (or footer) is signed with.
pub const KEY_ID_ATTRIBUTE: &str = "kid";

/// The attribute carrying a frame's id ([`check_frame_id`] gives its grammar), claimed in the
/// embedder's replay store.
pub const FRAME_ID_ATTRIBUTE: &str = "id";

/// The attribute an alarm names as the frame's source.
pub const SOURCE_ATTRIBUTE: &str = "source";

/// The element of the footer form (spec/frame-v1.md, "Footer form").
pub const FOOTER_ELEMENT: &str = "seal-footer";

/// Key material a [`FrameSigner`] signs with.
#[derive(Debug, Clone, Copy)]
pub enum SigningKey<'a> {
    /// An HMAC master key: frames are tagged with its per-conversation subkey.
    Hmac(&'a HmacKey),
    /// An Ed25519 signing key: frames carry the full 64-byte signature (86 characters).
    Ed25519(&'a Ed25519SigningKey),
}

/// Which body bytes a tag covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyHashing {
    /// The default: the body exactly as it stands in the submitted text, after the configured
    /// harness rewrite. The signer applies the rewrite before hashing, so the verifier hashes the
    /// body span it sees and undoes nothing.
    #[default]
    AsSubmitted,
    /// Compatibility with signers that hashed the body before the harness rewrite: the verifier
    /// undoes the rewrite before hashing. A body that truly contained the rewritten closing tag
    /// (`<\/name>`) then fails verification and alarms, because the rewrite is not injective.
    BeforeRewrite,
}

/// Signs frames for one key id in one conversation, dated with an issue time.
///
/// The tag is computed over [`FrameSigningInput`]: key id, algorithm, tag length (from the key,
/// in base64url characters), element, the attributes in document order (the caller's, then
/// `iat`, the issue time in decimal seconds, then `kid`), and SHA-256 of the body bytes chosen by [`BodyHashing`]. HMAC keys tag with the
/// conversation subkey (HKDF-SHA256, spec/trust-store.md section 4), so a frame copied into
/// another conversation fails. Ed25519 signatures are not bound to a conversation: the frame id
/// and the seen-id set stop their replay.
#[derive(Debug)]
pub struct FrameSigner<'a> {
    key_id: &'a str,
    key: BoundKey<'a>,
    issued_at: Option<String>,
    rewrite: Option<HarnessRewrite>,
    hashing: BodyHashing,
}

/// Why the signer refused a frame: its key id, tag length or conversation id when it was
/// built, or the frame's element, attributes or id when signing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameRefusal {
    /// The key id is outside the key id grammar.
    InvalidKeyId {
        /// The id given.
        key_id: String,
    },
    /// The conversation id cannot derive a subkey.
    Conversation(SubkeyError),
    /// The caller passed an attribute the signer writes itself (`kid`, `sig`, or `iat` when
    /// the signer dates its frames).
    ReservedAttribute {
        /// The name.
        name: String,
    },
    /// The `id` attribute is outside the frame id grammar ([`check_frame_id`]).
    InvalidFrameId {
        /// The id given.
        id: String,
        /// What is wrong with it.
        problem: FrameIdProblem,
    },
    /// The element or an attribute is outside the frame grammar.
    Render(RenderError),
    /// The signing input could not be built.
    SigningInput(SigningInputError),
    /// An HMAC key whose tag length is not a whole number of base64url characters (not a
    /// multiple of 6 bits); frames use whole-character lengths only.
    TagLengthNotWholeChars {
        /// The key's tag length in bits.
        bits: u16,
    },
}

impl fmt::Display for FrameRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidKeyId { key_id } => {
                write!(f, "`{}` is not a key id", key_id.escape_debug())
            }
            Self::Conversation(error) => write!(f, "conversation refused: {error}"),
            Self::ReservedAttribute { name } => write!(
                f,
                "attribute `{}` is written by the signer",
                name.escape_debug()
            ),
            Self::InvalidFrameId { id, problem } => {
                write!(f, "frame id `{}` refused: {problem}", id.escape_debug())
            }
            Self::Render(error) => write!(f, "frame cannot be rendered: {error}"),
            Self::SigningInput(error) => write!(f, "signing input refused: {error}"),
            Self::TagLengthNotWholeChars { bits } => write!(
                f,
                "a frame tag length of {bits} bits is not a whole number of base64url \
                 characters (a multiple of 6 bits)"
            ),
        }
    }
}

impl std::error::Error for FrameRefusal {}

impl<'a> FrameSigner<'a> {
    /// A signer for `key_id` with `key` in the conversation `conversation_id`, dating every
    /// frame with `issued_at` (the `iat` attribute, signed like every attribute; give the time
    /// of signing: the crate reads no clock), with no harness rewrite and
    /// [`BodyHashing::AsSubmitted`].
    ///
    /// # Errors
    /// [`FrameRefusal::InvalidKeyId`], [`FrameRefusal::TagLengthNotWholeChars`] for an HMAC key whose
    /// tag length is not a multiple of 6 bits, or [`FrameRefusal::Conversation`] for an empty or too
    /// long conversation id (checked for both algorithms, so a signer is always usable for HMAC).
    pub fn new(
        key_id: &'a str,
        key: SigningKey<'a>,
        conversation_id: &str,
        issued_at: UnixTime,
    ) -> Result<FrameSigner<'a>, FrameRefusal> {
        if !is_key_id(key_id) {
            return Err(FrameRefusal::InvalidKeyId {
                key_id: key_id.to_owned(),
            });
        }
        let key = match key {
            SigningKey::Hmac(master) if !master.tag_length().is_whole_chars() => {
                return Err(FrameRefusal::TagLengthNotWholeChars {
                    bits: master.tag_length().bits(),
                })
            }
            SigningKey::Hmac(master) => BoundKey::Hmac(
                master
                    .conversation_subkey(conversation_id)
                    .map_err(FrameRefusal::Conversation)?,
            ),
            SigningKey::Ed25519(pair) => {
                crate::hmac_key::check_conversation_id(conversation_id)
                    .map_err(FrameRefusal::Conversation)?;
                BoundKey::Ed25519(pair)
            }
        };
        Ok(FrameSigner {
            key_id,
            key,
            issued_at: Some(issued_at.to_string()),
            rewrite: None,
            hashing: BodyHashing::AsSubmitted,
        })
    }

    /// The same signer, dating its frames with `issued_at` from now on (a signer kept across
    /// messages is given each message's time).
    #[must_use]
    pub fn at(mut self, issued_at: UnixTime) -> Self {
        self.issued_at = Some(issued_at.to_string());
        self
    }

    /// The same signer, writing no `iat`: undated frames as signed before issue times existed,
    /// which a verifier accepts only within an explicit migration window
    /// ([`Undated::AcceptedUntil`](crate::Undated::AcceptedUntil)). The caller may then pass an
    /// `iat` attribute of its own.
    #[must_use]
    pub fn without_issued_at(mut self) -> Self {
        self.issued_at = None;
        self
    }

    /// The same signer, for a lane whose harness applies `rewrite` to bodies.
    #[must_use]
    pub fn with_rewrite(mut self, rewrite: HarnessRewrite) -> Self {
        self.rewrite = Some(rewrite);
        self
    }

    /// The same signer, hashing bodies as `hashing` says (the compatibility mode is for tests
    /// and for interoperating with older signers).
    #[must_use]
    pub fn with_hashing(mut self, hashing: BodyHashing) -> Self {
        self.hashing = hashing;
        self
    }

    /// The key's algorithm.
    pub fn algorithm(&self) -> Algorithm {
        match self.key {
            BoundKey::Hmac(_) => Algorithm::HmacSha256,
            BoundKey::Ed25519(_) => Algorithm::Ed25519,
        }
    }

    /// Characters of every `sig` this signer writes (the tag length of the signing input).
    pub fn tag_text_len(&self) -> usize {
        match &self.key {
            BoundKey::Hmac(key) => key.tag_length().text_len(),
            BoundKey::Ed25519(_) => usize::from(ED25519_SIGNATURE_BITS).div_ceil(6),
        }
    }

    /// A seal-rendered signed frame: `<element a="v" .. iat="t" kid="id" sig="tag">` + the body
    /// escaped in the Block context + `</element>`.
    ///
    /// The escaped body contains no `<`, so the harness rewrite leaves it unchanged and both
    /// [`BodyHashing`] modes hash the same bytes: the body span as it stands in the frame. The
    /// verifier therefore needs no decoding.
    ///
    /// # Errors
    /// [`FrameRefusal::ReservedAttribute`] for a `kid` or `sig` among `attributes` (or `iat`,
    /// unless the signer writes no issue time),
    /// [`FrameRefusal::InvalidFrameId`] for an `id` outside the frame id grammar,
    /// [`FrameRefusal::Render`] for names outside the grammar or duplicates.
    pub fn sign(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        body: &str,
    ) -> Result<String, FrameRefusal> {
        let escaped = escape(body, Context::Block);
        self.sign_body(element, attributes, &escaped)
    }

    /// A signed frame around a raw body, as harnesses that do not escape bodies write it: the
    /// configured harness rewrite is applied to `body`, and the tag covers the rewritten body
    /// ([`BodyHashing::AsSubmitted`]) or `body` itself ([`BodyHashing::BeforeRewrite`]).
    ///
    /// A raw body may contain anything, including text that looks like tags; the verifier's
    /// scanner finds it and alarms on it.
    ///
    /// # Errors
    /// As [`FrameSigner::sign`].
    pub fn sign_raw(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        body: &str,
    ) -> Result<String, FrameRefusal> {
        self.sign_body(element, attributes, body)
    }

    /// The footer line for `message` (spec/frame-v1.md, "Footer form"): LF, then
    /// `<seal-footer a="v" .. iat="t" kid="id" sig="tag"></seal-footer>`, to be appended to the
    /// message unchanged. The tag covers [`FooterSigningInput`] over the fields (the caller's,
    /// then `iat`, then `kid`) and the message bytes.
    ///
    /// # Errors
    /// As [`FrameSigner::sign`].
    pub fn sign_footer(
        &self,
        fields: &[(&str, &str)],
        message: &str,
    ) -> Result<String, FrameRefusal> {
        let fields = self.with_key_id(fields)?;
        let input = FooterSigningInput::new(
            self.key_id,
            self.algorithm().name(),
            self.tag_text_len(),
            &fields,
            message.as_bytes(),
        )
        .map_err(FrameRefusal::SigningInput)?;
        let sig = self.tag(input.bytes()).to_text();
        let mut all = fields;
        all.push((SIG_ATTRIBUTE, sig.as_str()));
        let tag = StartTag::new(FOOTER_ELEMENT, &all).map_err(FrameRefusal::Render)?;
        let mut out = String::from("\n");
        tag.write(&mut out);
        tag.write_end(&mut out);
        Ok(out)
    }

    fn sign_body(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        body: &str,
    ) -> Result<String, FrameRefusal> {
        let attributes = self.with_key_id(attributes)?;
        // Check names before hashing so grammar errors are render errors.
        StartTag::new(element, &attributes).map_err(FrameRefusal::Render)?;
        let submitted = match &self.rewrite {
            Some(rewrite) => rewrite.apply(body),
            None => body.into(),
        };
        let hashed: &str = match self.hashing {
            BodyHashing::AsSubmitted => &submitted,
            BodyHashing::BeforeRewrite => body,
        };
        let input = FrameSigningInput::new(
            self.key_id,
            self.algorithm().name(),
            self.tag_text_len(),
            element,
            &attributes,
            hashed.as_bytes(),
        )
        .map_err(FrameRefusal::SigningInput)?;
        let sig = self.tag(input.bytes()).to_text();
        let mut all = attributes;
        all.push((SIG_ATTRIBUTE, sig.as_str()));
        let tag = StartTag::new(element, &all).map_err(FrameRefusal::Render)?;
        let mut out = String::with_capacity(tag.plain_len() + submitted.len() + element.len() + 3);
        tag.write(&mut out);
        out.push_str(&submitted);
        tag.write_end(&mut out);
        Ok(out)
    }

    fn with_key_id<'b>(
        &'b self,
        attributes: &[(&'b str, &'b str)],
    ) -> Result<Vec<(&'b str, &'b str)>, FrameRefusal> {
        let dated = self.issued_at.is_some();
        if let Some((name, _)) = attributes.iter().find(|(name, _)| {
            *name == KEY_ID_ATTRIBUTE
                || *name == SIG_ATTRIBUTE
                || (dated && *name == ISSUED_AT_ATTRIBUTE)
        }) {
            return Err(FrameRefusal::ReservedAttribute {
                name: (*name).to_owned(),
            });
        }
        for (_, id) in attributes
            .iter()
            .filter(|(name, _)| *name == FRAME_ID_ATTRIBUTE)
        {
            check_frame_id(id).map_err(|problem| FrameRefusal::InvalidFrameId {
                id: (*id).to_owned(),
                problem,
            })?;
        }
        let mut all = attributes.to_vec();
        if let Some(issued_at) = &self.issued_at {
            all.push((ISSUED_AT_ATTRIBUTE, issued_at.as_str()));
        }
        all.push((KEY_ID_ATTRIBUTE, self.key_id));
        Ok(all)
    }

    fn tag(&self, message: &[u8]) -> Tag {
        match &self.key {
            BoundKey::Hmac(key) => key.sign(message),
            BoundKey::Ed25519(pair) => pair.sign(message),
        }
    }
}

/// The key a signer holds: an HMAC conversation subkey, or an Ed25519 pair.
#[derive(Debug)]
enum BoundKey<'a> {
    Hmac(HmacKey),
    Ed25519(&'a Ed25519SigningKey),
}
