//! Canonicalize + SHA-256 of realistic documents (tool-call arguments, file manifests):
//! seal-parse against serde_json + serde_jcs + SHA-256, and against serde_json's parse into
//! `Value` alone, on the same bytes in the same run.
#![allow(missing_docs, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use seal_parse::json::{canonicalize, JsonLimits};
use sha2::{Digest, Sha256};

/// A pretty-printed, unsorted document of about `target` bytes: a tool call with arguments and
/// a disclosure-style file manifest (paths, line ranges, digests, sizes, flags).
fn document(target: usize) -> String {
    let mut out = String::with_capacity(target + 512);
    out.push_str("{\n  \"tool\": \"bash\",\n  \"call_id\": \"call_01HZX3Q9\",\n");
    out.push_str(
        "  \"arguments\": {\n    \"command\": \"cargo test --workspace -- --nocapture\",\n",
    );
    out.push_str("    \"timeout_ms\": 120000,\n    \"cwd\": \"/home/dev/project\",\n");
    out.push_str(
        "    \"env\": {\"RUST_LOG\": \"debug\", \"CI\": \"1\", \"LANG\": \"en_US.UTF-8\"},\n",
    );
    out.push_str(
        "    \"description\": \"Run the test suite \\u00e9 \\\"quoted\\\" and report\"\n  },\n",
    );
    out.push_str("  \"model\": \"provider/model-large\",\n  \"estimated_tokens\": 18234,\n");
    out.push_str("  \"temperature\": 0.25,\n  \"files\": [\n");
    let mut i = 0u64;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while out.len() < target.saturating_sub(200) {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        if i > 0 {
            out.push_str(",\n");
        }
        let start = state % 900 + 1;
        write!(
            out,
            "    {{\"sha256\": \"{:016x}{:016x}{:016x}{:016x}\", \"path\": \"src/module_{}/file_{}.rs\", \
             \"ranges\": [[{}, {}], [{}, {}]], \"size\": {}, \"binary\": false, \"ratio\": {}.{:02}}}",
            state,
            state.rotate_left(17),
            state.rotate_left(31),
            state.rotate_left(47),
            i % 13,
            i,
            start,
            start + 40,
            start + 100,
            start + 160,
            state % 100_000,
            state % 10,
            state % 100,
        )
        .unwrap();
        i += 1;
    }
    out.push_str("\n  ],\n  \"redactions\": [{\"type\": \"api_key\", \"count\": 2}],\n");
    out.push_str("  \"policy_hash\": \"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\"\n}\n");
    out
}

fn seal_canonical_hash(input: &[u8], limits: &JsonLimits) -> [u8; 32] {
    canonicalize(input, limits).unwrap().sha256()
}

fn serde_jcs_hash(input: &[u8]) -> [u8; 32] {
    let value: serde_json::Value = serde_json::from_slice(input).unwrap();
    let bytes = serde_jcs::to_vec(&value).unwrap();
    Sha256::digest(&bytes).into()
}

fn serde_json_parse(input: &[u8]) -> usize {
    let value: serde_json::Value = serde_json::from_slice(input).unwrap();
    value.as_object().map_or(0, |o| o.len())
}

fn bench_canonical(c: &mut Criterion) {
    let limits = JsonLimits::default();
    let cases = [("4KiB", document(4 << 10)), ("256KiB", document(256 << 10))];
    for (name, doc) in &cases {
        let input = doc.as_bytes();
        // Same bytes, same digest: the peers compute the same thing.
        assert_eq!(seal_canonical_hash(input, &limits), serde_jcs_hash(input));
        let mut group = c.benchmark_group(format!("canonical_json/{name}"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("seal_canonicalize_sha256", name),
            input,
            |b, s| b.iter(|| seal_canonical_hash(black_box(s), &limits)),
        );
        group.bench_with_input(
            BenchmarkId::new("serde_json+serde_jcs+sha256", name),
            input,
            |b, s| b.iter(|| serde_jcs_hash(black_box(s))),
        );
        group.bench_with_input(
            BenchmarkId::new("serde_json_parse_only", name),
            input,
            |b, s| b.iter(|| serde_json_parse(black_box(s))),
        );
        group.finish();
    }
}

criterion_group!(benches, bench_canonical);
criterion_main!(benches);
