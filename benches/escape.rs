//! Escape throughput: seal-render against v_htmlescape 0.15 (SIMD scan) and a naive
//! `char::escape_debug` loop, on the same bytes in the same run.
#![allow(missing_docs, clippy::unwrap_used, clippy::indexing_slicing)]

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use seal::render::{escape, Context};

const MIB: usize = 1 << 20;

/// Deterministic prose-like printable ASCII (no byte that either escaper rewrites).
fn clean_ascii(len: usize) -> String {
    const WORDS: [&str; 12] = [
        "the", "agent", "reads", "a", "message", "from", "channel", "and", "runs", "tool", "calls",
        "safely",
    ];
    let mut out = String::with_capacity(len + 16);
    let mut i = 0usize;
    while out.len() < len {
        out.push_str(WORDS[i % WORDS.len()]);
        out.push(if i % 17 == 16 { '.' } else { ' ' });
        i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345) % 1_000_003;
    }
    out.truncate(len);
    out
}

/// The same prose with every tenth byte replaced by `<`, `>` or `"`: characters that both
/// v_htmlescape and seal's Attribute context rewrite.
fn ten_percent_hostile(len: usize) -> String {
    let base = clean_ascii(len).into_bytes();
    let specials = [b'<', b'>', b'"'];
    let bytes: Vec<u8> = base
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if i % 10 == 5 {
                specials[(i / 10) % 3]
            } else {
                b
            }
        })
        .collect();
    String::from_utf8(bytes).unwrap()
}

fn seal_escape(input: &str) -> usize {
    escape(input, Context::Attribute).len()
}

/// The same escape, forced into an owned `String` so the copy is counted as for the peers.
fn seal_escape_owned(input: &str) -> usize {
    escape(input, Context::Attribute).into_owned().len()
}

fn htmlescape(input: &str) -> usize {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    write!(out, "{}", v_htmlescape::escape(input)).unwrap();
    out.len()
}

fn naive_escape_debug(input: &str) -> usize {
    let mut out = String::with_capacity(input.len() + input.len() / 8);
    for c in input.chars() {
        out.extend(c.escape_debug());
    }
    out.len()
}

fn bench_escape(c: &mut Criterion) {
    let cases = [
        ("clean_ascii_1MiB", clean_ascii(MIB)),
        ("hostile_10pct_1MiB", ten_percent_hostile(MIB)),
        ("clean_ascii_64B", clean_ascii(64)),
        ("hostile_10pct_64B", ten_percent_hostile(64)),
    ];
    for (name, input) in &cases {
        let mut group = c.benchmark_group(format!("escape/{name}"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("seal", name), input, |b, s| {
            b.iter(|| seal_escape(black_box(s)))
        });
        group.bench_with_input(BenchmarkId::new("seal_owned", name), input, |b, s| {
            b.iter(|| seal_escape_owned(black_box(s)))
        });
        group.bench_with_input(
            BenchmarkId::new("v_htmlescape_0.15", name),
            input,
            |b, s| b.iter(|| htmlescape(black_box(s))),
        );
        group.bench_with_input(BenchmarkId::new("escape_debug", name), input, |b, s| {
            b.iter(|| naive_escape_debug(black_box(s)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench_escape);
criterion_main!(benches);
