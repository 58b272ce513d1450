//! Property checks for fuzz targets, also run by the ordinary test suite. Each returns `Err`
//! naming the property an input violates; none panics on any input.

use crate::base64url;
use crate::error::SignatureError;
use crate::hmac_key::HmacKey;
use crate::secret::HmacSecret;
use crate::store::{accept_initial, SignedStoreDocument, StoreDocument, StoreLimits};
use crate::tag::TagLength;
use crate::time::UnixTime;

/// Parses `data` as a store document and checks: an accepted document's canonical bytes parse
/// again, to the same canonical bytes, version, expiry, threshold and keys.
pub fn store_document(data: &[u8]) -> Result<(), String> {
    let limits = StoreLimits::default();
    let Ok(document) = StoreDocument::parse(data, &limits) else {
        return Ok(());
    };
    let again = StoreDocument::parse(document.canonical_bytes(), &limits)
        .map_err(|error| format!("canonical bytes do not parse again: {error}"))?;
    if again.canonical_bytes() != document.canonical_bytes() {
        return Err("canonical bytes are not idempotent".to_owned());
    }
    let same = again.version() == document.version()
        && again.expires() == document.expires()
        && again.threshold() == document.threshold()
        && again.keys().len() == document.keys().len()
        && again
            .keys()
            .iter()
            .zip(document.keys())
            .all(|(a, b)| a.id() == b.id() && a.fingerprint() == b.fingerprint());
    if !same {
        return Err("canonical bytes parse to a different document".to_owned());
    }
    Ok(())
}

/// Parses `data` as a signed envelope and checks: an accepted envelope's JSON form parses again
/// to the same JSON form, and first acceptance decides without panicking at any time.
pub fn store_envelope(data: &[u8]) -> Result<(), String> {
    let limits = StoreLimits::default();
    let Ok(signed) = SignedStoreDocument::parse(data, &limits) else {
        return Ok(());
    };
    let json = signed.to_json();
    let again = SignedStoreDocument::parse(&json, &limits)
        .map_err(|error| format!("envelope json does not parse again: {error}"))?;
    if again.to_json() != json {
        return Err("envelope json is not idempotent".to_owned());
    }
    for now in [0, 1_800_000_000, u64::MAX] {
        let _ = accept_initial(&signed, UnixTime(now));
    }
    Ok(())
}

/// Treats the first byte of `data` as a tag length in characters and the rest as a `sig` text,
/// and checks: a decoded text re-encodes to itself; a fixed key accepts the text only if it is
/// the genuine tag, and refuses any other length on length.
pub fn tag_text(data: &[u8]) -> Result<(), String> {
    let (first, rest) = data.split_first().unwrap_or((&22, &[]));
    let text = String::from_utf8_lossy(rest);
    let bits = usize::from(*first) * 6 / 4;
    if let Ok(bytes) = base64url::decode_bits(&text, bits) {
        if base64url::encode_bits(&bytes, bits) != text {
            return Err(format!("`{text}` decodes but does not re-encode to itself"));
        }
    }
    let length = TagLength::from_chars(first % 27 + 16).map_err(|error| error.to_string())?;
    let secret =
        HmacSecret::from_bytes(b"fuzz-secret-fuzz-secret-fuzz-sec").map_err(|e| e.to_string())?;
    let key = HmacKey::new(secret, length);
    let genuine = key.sign(b"message").to_text();
    let result = key.verify_text(b"message", &text);
    if result.is_ok() && text != genuine {
        return Err(format!("`{text}` verified but is not the genuine tag"));
    }
    let on_length = matches!(result, Err(SignatureError::Length { .. }));
    if on_length != (text.len() != length.text_len()) {
        return Err(format!(
            "`{text}` of {} bytes against a length of {}: refused on length is {on_length}",
            text.len(),
            length.text_len()
        ));
    }
    Ok(())
}
