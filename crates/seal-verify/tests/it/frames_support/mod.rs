//! Shared fixtures of the frame, footer and manifest tests: fixed keys, a trust store holding
//! keys in every state, and a verifier over the `channel` element with the harness rewrite.

use seal_parse::frame::ScanConfig;
use seal_verify::store::{FrameScope, KeyRecord, KeyStatus, MemoryTrustStore, Scopes, Validity};
pub use seal_verify::{Claim, ClaimOutcome, ClaimScope, MemoryReplayStore, ReplayStore};
use seal_verify::{
    Ed25519SigningKey, FrameSigner, FrameVerifier, HmacKey, HmacSecret, InboundReport, SigningKey,
    TagLength, UnixTime, VerifyConfig, VerifyingKey,
};

/// A replay store in which `ids` are already claimed (forever) in the scope of
/// [`CONVERSATION`] and in the approval scope of `approver`.
pub fn claimed(ids: &[&str]) -> MemoryReplayStore {
    let replay = MemoryReplayStore::new();
    for id in ids {
        for scope in [
            ClaimScope::Conversation(CONVERSATION),
            ClaimScope::Approval("approver"),
        ] {
            let claim = Claim {
                scope,
                id,
                now: NOW,
                expires_at: UnixTime(u64::MAX),
            };
            assert_eq!(replay.claim(&claim), Ok(ClaimOutcome::Fresh));
        }
    }
    replay
}

pub const NOW: UnixTime = UnixTime(1_800_000_000);
pub const CONVERSATION: &str = "conversation-1";
pub const ELEMENT: &str = "channel";

pub fn hmac_secret() -> Vec<u8> {
    (0u8..32).collect()
}

/// The HMAC master key of `k1` (and of every HMAC test key: same secret, different records).
pub fn master() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&hmac_secret()).unwrap(),
        TagLength::STANDARD,
    )
}

pub fn other_master() -> HmacKey {
    HmacKey::new(
        HmacSecret::from_bytes(&[0xa5; 32]).unwrap(),
        TagLength::STANDARD,
    )
}

pub fn ed_signer() -> Ed25519SigningKey {
    Ed25519SigningKey::from_seed(&[3; 32]).unwrap()
}

pub fn approver() -> Ed25519SigningKey {
    Ed25519SigningKey::from_seed(&[4; 32]).unwrap()
}

fn window(not_before: u64, not_after: u64) -> Validity {
    Validity {
        not_before: UnixTime(not_before),
        not_after: UnixTime(not_after),
    }
}

fn channel_scopes() -> Scopes {
    Scopes {
        frames: vec![
            FrameScope::new(ELEMENT, vec![]).unwrap(),
            FrameScope::new("seal-footer", vec![]).unwrap(),
        ],
        manifest_approval: false,
        store_update: false,
    }
}

fn hmac_record(
    id: &str,
    key: HmacKey,
    validity: Validity,
    status: KeyStatus,
    scopes: Scopes,
) -> KeyRecord {
    KeyRecord::new(id, VerifyingKey::Hmac(key), validity, status, scopes).unwrap()
}

/// Keys: `k1` (HMAC, active, channel and footer), `ed1` (Ed25519, same scopes), `expired`,
/// `future` (not yet valid), `revoked` (revoked before NOW), `narrow` (channel with
/// source="slack" only), `wide-other` (another secret, channel), `approver` (Ed25519,
/// manifest approval), `approver-noscope` (Ed25519, channel only).
pub fn store() -> MemoryTrustStore {
    let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
    let valid = window(1_700_000_000, 1_850_000_000);
    store
        .insert(hmac_record(
            "k1",
            master(),
            valid,
            KeyStatus::Active,
            channel_scopes(),
        ))
        .unwrap();
    store
        .insert(
            KeyRecord::new(
                "ed1",
                VerifyingKey::Ed25519(ed_signer().public_key()),
                valid,
                KeyStatus::Active,
                channel_scopes(),
            )
            .unwrap(),
        )
        .unwrap();
    store
        .insert(hmac_record(
            "expired",
            master(),
            window(1_600_000_000, 1_700_000_000),
            KeyStatus::Active,
            channel_scopes(),
        ))
        .unwrap();
    store
        .insert(hmac_record(
            "future",
            master(),
            window(1_810_000_000, 1_850_000_000),
            KeyStatus::Active,
            channel_scopes(),
        ))
        .unwrap();
    store
        .insert(hmac_record(
            "revoked",
            master(),
            valid,
            KeyStatus::Revoked {
                at: UnixTime(1_750_000_000),
            },
            channel_scopes(),
        ))
        .unwrap();
    store
        .insert(hmac_record(
            "narrow",
            master(),
            valid,
            KeyStatus::Active,
            Scopes {
                frames: vec![FrameScope::new(
                    ELEMENT,
                    vec![("source".to_owned(), vec!["slack".to_owned()])],
                )
                .unwrap()],
                ..Scopes::default()
            },
        ))
        .unwrap();
    store
        .insert(hmac_record(
            "wide-other",
            other_master(),
            valid,
            KeyStatus::Active,
            channel_scopes(),
        ))
        .unwrap();
    store
        .insert(
            KeyRecord::new(
                "approver",
                VerifyingKey::Ed25519(approver().public_key()),
                valid,
                KeyStatus::Active,
                Scopes {
                    manifest_approval: true,
                    ..Scopes::default()
                },
            )
            .unwrap(),
        )
        .unwrap();
    store
        .insert(
            KeyRecord::new(
                "approver-noscope",
                VerifyingKey::Ed25519(approver().public_key()),
                valid,
                KeyStatus::Active,
                channel_scopes(),
            )
            .unwrap(),
        )
        .unwrap();
    store
}

/// The default verifier config: `channel` with the harness rewrite.
pub fn config() -> VerifyConfig {
    VerifyConfig::new(ScanConfig::new(ELEMENT).unwrap().with_rewrite())
}

/// Signs a seal-rendered frame with `k1` in [`CONVERSATION`].
pub fn sign(attributes: &[(&str, &str)], body: &str) -> String {
    let key = master();
    FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW)
        .unwrap()
        .sign(ELEMENT, attributes, body)
        .unwrap()
}

/// Signs a raw (harness-style) frame with `k1` in [`CONVERSATION`], rewrite applied.
pub fn sign_raw(attributes: &[(&str, &str)], body: &str) -> String {
    let key = master();
    FrameSigner::new("k1", SigningKey::Hmac(&key), CONVERSATION, NOW)
        .unwrap()
        .with_rewrite(config().scan().rewrite().unwrap().clone())
        .sign_raw(ELEMENT, attributes, body)
        .unwrap()
}

/// Verifies `text` with [`config`], the test store, [`CONVERSATION`], [`NOW`] and `seen`.
pub fn verify_with<'t>(
    text: &'t str,
    config: &VerifyConfig,
    conversation: &str,
    seen: &MemoryReplayStore,
) -> InboundReport<'t> {
    let store = store();
    FrameVerifier::new(config, &store, conversation, NOW, seen)
        .verify(text)
        .unwrap()
}

pub fn verify(text: &str) -> InboundReport<'_> {
    verify_with(text, &config(), CONVERSATION, &MemoryReplayStore::new())
}

/// The alarm reasons of a report, in document order.
pub fn reasons(report: &InboundReport) -> Vec<&'static str> {
    report.alarms().map(|(_, reason)| reason.code()).collect()
}

/// Counts `<seal-alarm ` start tags in an alarm text.
pub fn alarm_count(text: &str) -> usize {
    text.matches("<seal-alarm ").count()
}
