//! Property checks for fuzz targets, also run by the ordinary test suite. Each returns `Err`
//! naming the property an input violates; none panics on any input.

use crate::base64url;
use crate::error::SignatureError;
use crate::frames::{ConversationKeys, FrameVerifier, VerifyConfig};
use crate::hmac_key::HmacKey;
use crate::key::VerifyingKey;
use crate::manifest::{verify_before_spawn, LivePayload, LiveState, SpawnError};
use crate::secret::HmacSecret;
use crate::sign::{FrameSigner, SigningKey};
use crate::store::{accept_initial, SignedStoreDocument, StoreDocument, StoreLimits};
use crate::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
use crate::tag::TagLength;
use crate::time::UnixTime;
use seal_parse::frame::ScanConfig;
use seal_record::{CanonicalPath, Manifest, ManifestLimits, Sha256Digest};

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

/// Verifies `data` (as lossy UTF-8) as a message of the `channel` element, with and without the
/// harness rewrite, against a fixed trust store, and checks: no panic; the alarm text is ASCII
/// and empty exactly when the message is not tainted; every finding of the scan has an outcome;
/// every verified frame is a top-level strictly accepted frame whose header re-renders to its
/// bytes; a verifier over kept conversation keys gives the same report, twice; the input is
/// unchanged. Then signs the text as a body and checks the signed frame
/// verifies alone.
pub fn frame_verification(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data).into_owned();
    let before = text.clone();
    let store = fuzz_store()?;
    // Every claim fresh, so the same text verifies the same way each time; the real store's
    // replay check is exercised below.
    let seen = EveryClaimFresh;
    let plain = ScanConfig::new("channel").map_err(|e| e.to_string())?;
    for scan in [plain.clone(), plain.with_rewrite()] {
        let config = VerifyConfig::new(scan.clone());
        let verifier = FrameVerifier::new(&config, &store, "fuzz", UnixTime(FUZZ_NOW), &seen);
        for report in [
            verifier.verify(&text).map_err(|e| e.to_string())?,
            verifier.verify_footer(&text).map_err(|e| e.to_string())?,
        ] {
            check_report(&text, &report)?;
        }
        let report = verifier.verify(&text).map_err(|e| e.to_string())?;
        let keys = ConversationKeys::new("fuzz");
        let kept = FrameVerifier::with_keys(&config, &store, &keys, UnixTime(FUZZ_NOW), &seen);
        for _ in 0..2 {
            if format!("{:?}", kept.verify(&text).map_err(|e| e.to_string())?)
                != format!("{report:?}")
            {
                return Err(
                    "a verifier over kept conversation keys disagrees with a fresh one".into(),
                );
            }
        }
        let replay = crate::replay::MemoryReplayStore::new();
        let first = FrameVerifier::new(&config, &store, "fuzz", UnixTime(FUZZ_NOW), &replay);
        if first
            .verify(&text)
            .map_err(|e| e.to_string())?
            .new_ids()
            .ne(report.new_ids())
        {
            return Err(
                "a fresh replay store verifies other frames than an answer of fresh".into(),
            );
        }
        if first
            .verify(&text)
            .map_err(|e| e.to_string())?
            .new_ids()
            .next()
            .is_some()
        {
            return Err("a frame id verified twice in one replay store".into());
        }
        let findings = seal_parse::frame::scan(&text, &scan).map(|f| f.len()).ok();
        if let Some(count) = findings {
            if report.frames().len() != count {
                return Err(format!(
                    "{count} findings but {} outcomes",
                    report.frames().len()
                ));
            }
        }
        for (frame, verified) in report
            .frames()
            .iter()
            .filter_map(|f| f.verified().map(|v| (f, v)))
        {
            if frame.depth != 1 {
                return Err(format!("verified frame at depth {}", frame.depth));
            }
            let header = verified
                .header()
                .of(&text)
                .ok_or("verified header outside the text")?;
            let sig = header
                .rsplit_once(" sig=\"")
                .and_then(|(_, rest)| rest.strip_suffix("\">"))
                .ok_or("verified header without a trailing sig")?;
            let mut attributes: Vec<(&str, &str)> = verified
                .attributes()
                .iter()
                .map(|attribute| (attribute.name, attribute.value()))
                .collect();
            attributes.push(("sig", sig));
            let rendered = seal_render::render_frame(verified.element(), &attributes, "")
                .map_err(|e| e.to_string())?;
            if !rendered.starts_with(header) {
                return Err(format!("verified header `{header}` does not re-render"));
            }
        }
        let key = fuzz_key()?;
        let signed = FrameSigner::new("k1", SigningKey::Hmac(&key), "fuzz", UnixTime(FUZZ_NOW))
            .map_err(|e| e.to_string())?
            .sign("channel", &[("id", "fuzz-1")], &text)
            .map_err(|e| e.to_string())?;
        let report = verifier.verify(&signed).map_err(|e| e.to_string())?;
        if report.verified().count() != 1 || report.is_tainted() {
            return Err(format!(
                "a signed frame around `{text:?}` did not verify alone"
            ));
        }
    }
    if text != before {
        return Err("input changed".to_owned());
    }
    Ok(())
}

/// Reads `data` as a manifest (strict JSON reader); an accepted manifest must clear against live
/// state equal to its own fields and fail with the named error when the policy, the model or the
/// payload changes. Other data is used as a payload against a fixed manifest: it clears exactly
/// when its digest is the manifest's. Never panics.
pub fn manifest_verification(data: &[u8]) -> Result<(), String> {
    let limits = ManifestLimits::default();
    if let Ok(manifest) = Manifest::from_json(data, &limits) {
        let digests: std::collections::BTreeMap<CanonicalPath, Sha256Digest> = manifest
            .files()
            .iter()
            .map(|file| (file.path().clone(), file.sha256()))
            .collect();
        let live = LiveState {
            policy_sha256: manifest.policy_sha256(),
            model: manifest.model(),
            payload: LivePayload::Digest(manifest.payload_sha256()),
            files: &digests,
        };
        let approved = manifest.disclosure_hash();
        verify_before_spawn(&manifest, &approved, &live)
            .map_err(|e| format!("own live state refused: {e}"))?;
        let other = Sha256Digest::of(manifest.policy_sha256().as_bytes());
        let stale = LiveState {
            policy_sha256: other,
            ..live
        };
        if !matches!(
            verify_before_spawn(&manifest, &approved, &stale),
            Err(SpawnError::StalePolicy { .. })
        ) {
            return Err("changed policy not reported as stale policy".to_owned());
        }
        let model = format!("{}x", manifest.model());
        let stale = LiveState {
            model: &model,
            ..live
        };
        if !matches!(
            verify_before_spawn(&manifest, &approved, &stale),
            Err(SpawnError::StaleModel { .. })
        ) {
            return Err("changed model not reported as stale model".to_owned());
        }
        return Ok(());
    }
    let manifest = Manifest::builder()
        .run_id("fuzz")
        .provider("p")
        .model("m")
        .purpose("fuzz")
        .estimated_tokens(0)
        .payload_sha256(Sha256Digest::of(b"payload"))
        .policy_sha256(Sha256Digest::of(b"policy"))
        .build(&limits)
        .map_err(|e| e.to_string())?;
    let none = |_: &CanonicalPath| None;
    let live = LiveState {
        policy_sha256: Sha256Digest::of(b"policy"),
        model: "m",
        payload: LivePayload::Bytes(data),
        files: &none,
    };
    let result = verify_before_spawn(&manifest, &manifest.disclosure_hash(), &live);
    if result.is_ok() != (data == b"payload") {
        return Err(format!("payload `{data:?}` cleared: {}", result.is_ok()));
    }
    Ok(())
}

const FUZZ_NOW: u64 = 1_800_000_000;

fn fuzz_key() -> Result<HmacKey, String> {
    let secret =
        HmacSecret::from_bytes(b"fuzz-frame-secret-fuzz-frame-sec").map_err(|e| e.to_string())?;
    Ok(HmacKey::new(secret, TagLength::STANDARD))
}

fn fuzz_store() -> Result<MemoryTrustStore, String> {
    let mut store = MemoryTrustStore::new(UnixTime(u64::MAX));
    let scopes = Scopes {
        frames: vec![
            FrameScope::new("channel", vec![]).map_err(|e| e.to_string())?,
            FrameScope::new(crate::sign::FOOTER_ELEMENT, vec![]).map_err(|e| e.to_string())?,
        ],
        ..Scopes::default()
    };
    let record = KeyRecord::new(
        "k1",
        VerifyingKey::Hmac(fuzz_key()?),
        Validity {
            not_before: UnixTime(0),
            not_after: UnixTime(u64::MAX),
        },
        KeyStatus::Active,
        scopes,
    )
    .map_err(|e| e.to_string())?;
    store.insert(record).map_err(|e| e.to_string())?;
    Ok(store)
}

fn check_report(text: &str, report: &crate::frames::InboundReport) -> Result<(), String> {
    let alarm = report.alarm_text();
    if !alarm.is_ascii() {
        return Err("alarm text is not ASCII".to_owned());
    }
    if alarm.is_empty() == report.is_tainted() {
        return Err(format!(
            "tainted is {} but the alarm text is `{alarm}`",
            report.is_tainted()
        ));
    }
    if report.is_tainted() && !alarm.contains("reason=\"tainted_message\"") {
        return Err("a tainted message has no message-level alarm".to_owned());
    }
    if report.verified().count() > 0 && report.verified().any(|v| v.header().of(text).is_none()) {
        return Err("verified span outside the text".to_owned());
    }
    Ok(())
}

/// A replay store that answers every claim fresh and records nothing: only for checks that
/// must see the same report twice.
struct EveryClaimFresh;

impl crate::replay::ReplayStore for EveryClaimFresh {
    fn claim(
        &self,
        _claim: &crate::replay::Claim<'_>,
    ) -> Result<crate::replay::ClaimOutcome, crate::replay::ClaimError> {
        Ok(crate::replay::ClaimOutcome::Fresh)
    }
}
