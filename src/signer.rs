//! Signing frames with one key, outside a [`Seal`](crate::Seal): what a harness or the `seal`
//! binary does when it holds the key and writes frames for another process to verify.

use std::fmt;

use seal_parse::frame::HarnessRewrite;
use seal_verify::SigningKey;

use crate::keys::{ApproverKey, FrameKey};
use crate::seal::SignError;
use crate::UnixTime;

/// Signs frames for one conversation with one key, dated at one time: an HMAC
/// [`FrameKey`] (tagged with its per-conversation subkey, at the key's tag length) or an
/// Ed25519 [`ApproverKey`] (the full 64-byte signature).
///
/// [`FrameSigner::sign`] escapes the body as [`Seal::sign_frame`](crate::Seal::sign_frame)
/// does; [`FrameSigner::sign_raw`] signs a raw body the way harnesses that do not escape write
/// it, after the closing-tag rewrite if one is configured.
///
/// ```
/// use seal::{FrameKey, FrameSigner, UnixTime};
///
/// let key = FrameKey::from_secret(&[7; 32])?;
/// let signer = FrameSigner::hmac("ingress", &key, "conversation-1", UnixTime(1_767_225_600))?;
/// let frame = signer.sign("channel", &[("source", "telegram"), ("id", "m1")], "hello")?;
/// assert!(frame.starts_with(r#"<channel source="telegram" id="m1" iat="1767225600" kid="ingress" sig=""#));
/// assert!(signer.sign("channel", &[("kid", "other")], "hello").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FrameSigner<'a> {
    inner: seal_verify::FrameSigner<'a>,
}

impl<'a> FrameSigner<'a> {
    /// A signer with the HMAC frame key `key` under `key_id`, for `conversation`, writing
    /// `iat="now"`.
    ///
    /// # Errors
    /// [`SignError::Refused`] for a key id outside the key id grammar, or a conversation id
    /// that is empty or too long.
    pub fn hmac(
        key_id: &'a str,
        key: &'a FrameKey,
        conversation: &str,
        now: UnixTime,
    ) -> Result<FrameSigner<'a>, SignError> {
        FrameSigner::new(key_id, SigningKey::Hmac(key.bound_key()), conversation, now)
    }

    /// A signer with the Ed25519 key `key` under `key_id`, for `conversation`, writing
    /// `iat="now"`.
    ///
    /// # Errors
    /// As [`FrameSigner::hmac`].
    pub fn ed25519(
        key_id: &'a str,
        key: &'a ApproverKey,
        conversation: &str,
        now: UnixTime,
    ) -> Result<FrameSigner<'a>, SignError> {
        FrameSigner::new(
            key_id,
            SigningKey::Ed25519(key.signing_key()),
            conversation,
            now,
        )
    }

    /// The same signer, applying the harness rewrite of `element`'s closing tag
    /// (`</channel>` to `<\/channel>`) to raw bodies before signing them, as the harness will.
    ///
    /// # Errors
    /// [`SignError::Element`] when `element` is not a frame element name.
    pub fn with_closing_tag_rewrite(self, element: &str) -> Result<FrameSigner<'a>, SignError> {
        let rewrite = HarnessRewrite::closing_tag(element).map_err(SignError::Element)?;
        Ok(FrameSigner {
            inner: self.inner.with_rewrite(rewrite),
        })
    }

    /// A signed frame: `<element a="v" .. iat="now" kid="id" sig="tag">` + the body escaped in
    /// the block context + `</element>`.
    ///
    /// # Errors
    /// [`SignError::Refused`] for a `kid`, `sig` or `iat` among `attributes`, an `id` outside
    /// the frame id grammar, or names outside the grammar or duplicated.
    pub fn sign(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        body: &str,
    ) -> Result<String, SignError> {
        self.inner
            .sign(element, attributes, body)
            .map_err(SignError::Refused)
    }

    /// A signed frame around the raw `body` (after the closing-tag rewrite, when configured).
    /// A raw body may hold anything, text that looks like tags included; a verifier finds it
    /// and alarms.
    ///
    /// # Errors
    /// As [`FrameSigner::sign`].
    pub fn sign_raw(
        &self,
        element: &str,
        attributes: &[(&str, &str)],
        body: &str,
    ) -> Result<String, SignError> {
        self.inner
            .sign_raw(element, attributes, body)
            .map_err(SignError::Refused)
    }

    /// The footer line for `message`, for lanes that cannot carry attributes
    /// (spec/frame-v1.md section 11): LF, then `<seal-footer a="v" .. iat="now" kid="id"
    /// sig="tag"></seal-footer>`, to append to the message unchanged. The tag covers the fields
    /// and every byte of the message.
    ///
    /// # Errors
    /// As [`FrameSigner::sign`].
    pub fn sign_footer(&self, fields: &[(&str, &str)], message: &str) -> Result<String, SignError> {
        self.inner
            .sign_footer(fields, message)
            .map_err(SignError::Refused)
    }

    fn new(
        key_id: &'a str,
        key: SigningKey<'a>,
        conversation: &str,
        now: UnixTime,
    ) -> Result<FrameSigner<'a>, SignError> {
        let inner = seal_verify::FrameSigner::new(key_id, key, conversation, now)
            .map_err(SignError::Refused)?;
        Ok(FrameSigner { inner })
    }
}

impl fmt::Debug for FrameSigner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameSigner").finish_non_exhaustive()
    }
}
