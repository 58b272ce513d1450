//! clientDataJSON: the browser's statement of the ceremony, origin and challenge.

use seal_parse::json::{self, JsonLimits, Value};

use super::refusal::WebAuthnRefusal;
use super::{Expected, MAX_CLIENT_DATA_BYTES, MAX_CLIENT_DATA_DEPTH};
use crate::base64url;

/// The ceremony a clientDataJSON must name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ceremony {
    /// `webauthn.create`: an enrolment.
    Create,
    /// `webauthn.get`: an assertion.
    Get,
}

impl Ceremony {
    fn type_name(self) -> &'static str {
        match self {
            Self::Create => "webauthn.create",
            Self::Get => "webauthn.get",
        }
    }
}

/// Checks clientDataJSON in the spec's order: size, strict JSON object with the members read
/// well typed, `type`, `challenge`, `origin`, then `crossOrigin` / `topOrigin`. Members not read
/// are allowed (browsers add some), duplicate keys are not.
pub(super) fn check_client_data(
    bytes: &[u8],
    ceremony: Ceremony,
    expected: &Expected<'_>,
) -> Result<(), WebAuthnRefusal> {
    if bytes.len() > MAX_CLIENT_DATA_BYTES {
        return Err(WebAuthnRefusal::ClientDataTooLarge);
    }
    let mut limits = JsonLimits::default();
    limits.max_bytes = MAX_CLIENT_DATA_BYTES;
    limits.max_depth = MAX_CLIENT_DATA_DEPTH;
    let value = json::parse(bytes, &limits).map_err(|_| WebAuthnRefusal::ClientDataMalformed)?;
    let object = value
        .as_object()
        .ok_or(WebAuthnRefusal::ClientDataMalformed)?;
    let text = |name: &str| {
        object
            .get(name)
            .and_then(Value::as_str)
            .ok_or(WebAuthnRefusal::ClientDataMalformed)
    };
    let kind = text("type")?;
    let challenge = text("challenge")?;
    let origin = text("origin")?;
    let cross_origin = match object.get("crossOrigin") {
        None => false,
        Some(value) => value
            .as_bool()
            .ok_or(WebAuthnRefusal::ClientDataMalformed)?,
    };
    let top_origin = match object.get("topOrigin") {
        None => false,
        Some(value) => {
            value.as_str().ok_or(WebAuthnRefusal::ClientDataMalformed)?;
            true
        }
    };
    if kind != ceremony.type_name() {
        return Err(WebAuthnRefusal::WrongType);
    }
    if challenge != base64url::encode(&expected.challenge) {
        return Err(WebAuthnRefusal::ChallengeMismatch);
    }
    if origin != expected.origin {
        return Err(WebAuthnRefusal::OriginMismatch);
    }
    if cross_origin || top_origin {
        return Err(WebAuthnRefusal::CrossOrigin);
    }
    Ok(())
}
