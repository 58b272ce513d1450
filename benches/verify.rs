//! Frame verification and manifest sealing: seal against jsonwebtoken 12 (pure-Rust backend)
//! HS256 decode + verify, and against the floor of SHA-256 of the body plus one HMAC-SHA256 of
//! 64 bytes (ring), on the same inputs in the same run. At 280 bytes the crypto floor of the
//! frame format itself is measured too: SHA-256 of the body, then HMAC-SHA256 (ring, prepared
//! key) over a signing input of the frame's actual length. The facade's inbound verification is
//! measured with a fresh verifier per message and with a kept conversation verifier.
#![allow(missing_docs, clippy::unwrap_used, clippy::indexing_slicing)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use seal_record::{LineRange, Manifest, ManifestLimits, Sha256Digest};
use seal_test_support::verify_setup::{
    config, format_floor, prose, signed_frame, signing_input, store, Forgetful, CONVERSATION, NOW,
    SECRET,
};
use seal_verify::{FrameVerifier, UnixTime};
use sha2::{Digest, Sha256};

/// Sixteen signed frames with `body` and the frame ids `m00` to `m15`.
fn distinct_frames(body: &str) -> Vec<String> {
    (0..16)
        .map(|n| signed_frame(&format!("m{n:02}"), body))
        .collect()
}

fn jwt_token(payload_len: usize) -> (String, jsonwebtoken::DecodingKey, jsonwebtoken::Validation) {
    use jsonwebtoken::{encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
    // `{"body":"..."}` of exactly `payload_len` bytes.
    let claims = serde_json::json!({ "body": prose(payload_len - 11) });
    assert_eq!(serde_json::to_vec(&claims).unwrap().len(), payload_len);
    let token = encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(&SECRET).unwrap(),
    )
    .unwrap();
    let mut validation = Validation::new(Algorithm::HS256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    (
        token,
        DecodingKey::from_secret(&SECRET).unwrap(),
        validation,
    )
}

fn floor(body: &[u8], mac_key: &ring::hmac::Key) -> usize {
    let digest = Sha256::digest(body);
    let mut input = [0u8; 64];
    input[..32].copy_from_slice(&digest);
    ring::hmac::sign(mac_key, &input).as_ref().len()
}

fn bench_verify(c: &mut Criterion) {
    let config = config();
    let store = store();
    let verifier = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &Forgetful);

    // One frame, 280-byte body, against jsonwebtoken HS256 with a 280-byte payload. The
    // messages carry distinct frame ids (as real traffic does), taken in turn.
    let messages = distinct_frames(&prose(280));
    for message in &messages {
        assert_eq!(verifier.verify(message).unwrap().verified().count(), 1);
    }
    let (token, decoding_key, validation) = jwt_token(280);
    let body_280 = prose(280);
    let input_280 = signing_input("m00", &body_280);
    let mac_key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &SECRET);
    let mut group = c.benchmark_group("verify/one_frame_280B");
    group.bench_function("seal", |b| {
        let mut turn = messages.iter().cycle();
        b.iter(|| {
            verifier
                .verify(black_box(turn.next().unwrap()))
                .unwrap()
                .is_tainted()
        })
    });
    group.bench_function("jsonwebtoken_12_hs256", |b| {
        b.iter(|| {
            jsonwebtoken::decode::<serde_json::Value>(black_box(&token), &decoding_key, &validation)
                .unwrap()
                .claims
                .is_object()
        })
    });
    group.bench_function("floor_sha256_plus_hmac_signing_input", |b| {
        b.iter(|| {
            format_floor(
                black_box(body_280.as_bytes()),
                black_box(input_280.bytes()),
                &mac_key,
            )
        })
    });
    group.finish();

    // One frame, 4 KiB body, against SHA-256 of the body plus one HMAC of 64 bytes.
    let body_4k = prose(4096);
    let messages = distinct_frames(&body_4k);
    for message in &messages {
        assert_eq!(verifier.verify(message).unwrap().verified().count(), 1);
    }
    let mut group = c.benchmark_group("verify/one_frame_4KiB");
    group.throughput(Throughput::Bytes(4096));
    group.bench_function("seal", |b| {
        let mut turn = messages.iter().cycle();
        b.iter(|| {
            verifier
                .verify(black_box(turn.next().unwrap()))
                .unwrap()
                .is_tainted()
        })
    });
    group.bench_function("floor_sha256_plus_hmac64", |b| {
        b.iter(|| floor(black_box(body_4k.as_bytes()), &mac_key))
    });
    group.finish();

    // Scan + verify 1 MiB with a signed frame every 4 KiB.
    let filler = prose(4096 - 200);
    let mut text = String::new();
    let mut n = 0;
    while text.len() < (1 << 20) {
        text.push_str(&signed_frame(&format!("m{n}"), "hello from the operator"));
        text.push_str(&filler);
        n += 1;
    }
    let verifier_1m = FrameVerifier::new(&config, &store, CONVERSATION, NOW, &Forgetful);
    assert!(!verifier_1m.verify(&text).unwrap().is_tainted());
    let mut group = c.benchmark_group("verify/scan_verify_1MiB_frame_every_4KiB");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_with_input(BenchmarkId::new("seal", n), &text, |b, t| {
        b.iter(|| verifier_1m.verify(black_box(t)).unwrap().is_tainted())
    });
    group.finish();

    // The facade, one frame with a 280-byte body: `Seal::verify_inbound` (a fresh verifier per
    // message, the conversation subkey derived each time) against a kept `Seal::inbound`
    // conversation verifier (derived once); both copy the report into the facade's owned one.
    let ingress = seal::FrameKey::from_secret(&SECRET).unwrap();
    let mut facade_store = seal::TrustStore::new(UnixTime(1_900_000_000));
    facade_store
        .add_frame_key(
            "k1",
            &ingress,
            "channel",
            UnixTime(1_700_000_000),
            UnixTime(1_850_000_000),
        )
        .unwrap();
    let facade = seal::Seal::builder()
        .trust_store(facade_store)
        .signing_key("k1", ingress)
        .build()
        .unwrap();
    let body_280 = prose(280);
    let facade_messages: Vec<String> = (0..16)
        .map(|n| {
            let id = format!("m{n:02}");
            facade
                .sign_frame(
                    CONVERSATION,
                    NOW,
                    "channel",
                    &[("source", "telegram"), ("id", &id)],
                    &body_280,
                )
                .unwrap()
        })
        .collect();
    let kept = facade.inbound(CONVERSATION);
    for message in &facade_messages {
        assert!(!kept
            .verify(message, NOW, &Forgetful)
            .unwrap()
            .report()
            .is_tainted());
    }
    let mut group = c.benchmark_group("verify/facade_one_frame_280B");
    group.bench_function("verify_inbound", |b| {
        let mut turn = facade_messages.iter().cycle();
        b.iter(|| {
            facade
                .verify_inbound(
                    black_box(turn.next().unwrap()),
                    CONVERSATION,
                    NOW,
                    &Forgetful,
                )
                .unwrap()
                .report()
                .is_tainted()
        })
    });
    group.bench_function("kept_inbound_verifier", |b| {
        let mut turn = facade_messages.iter().cycle();
        b.iter(|| {
            kept.verify(black_box(turn.next().unwrap()), NOW, &Forgetful)
                .unwrap()
                .report()
                .is_tainted()
        })
    });
    group.finish();

    // Manifest build + disclosure hash for 10 files.
    let limits = ManifestLimits::default();
    let files: Vec<(String, Sha256Digest, Vec<LineRange>)> = (0..10)
        .map(|i| {
            let path = format!("src/module_{i}/file_{i}.rs");
            let range = LineRange {
                start: 1,
                end: 40 + i,
                sha256: Sha256Digest::of(path.as_bytes()),
            };
            (path.clone(), Sha256Digest::of(&[i as u8; 64]), vec![range])
        })
        .collect();
    let build = || {
        let mut builder = Manifest::builder()
            .run_id("run-42")
            .provider("provider")
            .model("model-large")
            .purpose("Summarize the parser changes for review")
            .estimated_tokens(5120)
            .redaction("api_key", 2)
            .external_tool("web-search")
            .payload_sha256(Sha256Digest::of(b"payload"))
            .policy_sha256(Sha256Digest::of(b"policy"));
        for (path, digest, ranges) in &files {
            builder = builder.file(path, *digest, ranges);
        }
        builder.build(&limits).unwrap().disclosure_hash()
    };
    build();
    c.bench_function("verify/manifest_build_hash_10_files/seal", |b| {
        b.iter(|| black_box(build()))
    });
}

/// The replay claim a verified frame costs with the in-memory store, holding 0 and 1,000,000
/// live ids: one fresh id per iteration (the seen-id file this replaced read and rewrote every
/// id on each prompt: about 200 ms at 1,000,000 ids).
fn bench_replay_claim(c: &mut Criterion) {
    use seal_verify::{Claim, ClaimOutcome, ClaimScope, MemoryReplayStore, ReplayStore};
    let mut group = c.benchmark_group("verify/replay_claim_memory");
    for live in [0usize, 1_000_000] {
        let store = MemoryReplayStore::with_capacity(live + 20_000_000);
        fn claim(id: &str) -> Claim<'_> {
            Claim {
                scope: ClaimScope::Conversation(CONVERSATION),
                id,
                now: NOW,
                expires_at: UnixTime(NOW.seconds() + 900),
            }
        }
        for n in 0..live {
            let id = format!("filler-{n:07}");
            assert_eq!(store.claim(&claim(&id)), Ok(ClaimOutcome::Fresh));
        }
        let mut next = 0u64;
        let mut id = String::with_capacity(32);
        group.bench_function(format!("fresh_claim_{live}_live_ids"), |b| {
            b.iter(|| {
                next += 1;
                id.clear();
                std::fmt::Write::write_fmt(&mut id, format_args!("m{next}")).unwrap();
                black_box(store.claim(&claim(&id)))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_verify, bench_replay_claim);
criterion_main!(benches);
