//! Frame scanning throughput: seal-parse's scanner against `memchr::memmem::Finder` searching
//! for the element name (the floor: any scanner must at least find the name), same input, same run.
#![allow(missing_docs, clippy::unwrap_used, clippy::indexing_slicing)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use memchr::memmem::Finder;
use seal::render::render_frame;
use seal_parse::frame::{scan, ScanConfig};

const MIB: usize = 1 << 20;

/// Deterministic English-like ASCII prose with punctuation and digits, and no tag.
fn prose(len: usize) -> String {
    prose_from(
        &[
            "the", "operator", "asked", "whether", "a", "channel", "message", "arrived", "before",
            "the", "tool", "call", "returned", "42", "results,", "then",
        ],
        len,
    )
}

/// Prose with a comparison `x < y` about every 100 bytes: every `<` is a candidate tag.
fn prose_with_comparisons(len: usize) -> String {
    prose_from(
        &[
            "the", "operator", "asked", "whether", "a", "channel", "message", "arrived", "before",
            "x < y", "tool", "call", "returned", "42", "results,", "then",
        ],
        len,
    )
}

/// Typographic prose: em dashes, curly quotes and accents, whose UTF-8 lead bytes are shared
/// with lookalike brackets.
fn typographic_prose(len: usize) -> String {
    prose_from(
        &[
            "the",
            "op\u{e9}rateur",
            "asked",
            "\u{201c}whether\u{201d}",
            "a",
            "channel",
            "message",
            "arrived",
            "\u{2014}",
            "before",
            "tool",
            "call",
            "returned",
            "42",
            "r\u{e9}sum\u{e9},",
            "then",
        ],
        len,
    )
}

fn prose_from(words: &[&str; 16], len: usize) -> String {
    let mut out = String::with_capacity(len + 32);
    let mut state = 7u64;
    while out.len() < len {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        out.push_str(words[(state >> 60) as usize]);
        out.push(if state & 0x1f == 0 { '\n' } else { ' ' });
    }
    while !out.is_char_boundary(len.min(out.len())) {
        out.pop();
    }
    out.truncate(len);
    out
}

/// The same prose with one signed-looking frame every 4 KiB.
fn prose_with_frames(len: usize) -> String {
    let filler = prose(4096);
    let mut out = String::with_capacity(len + 4096);
    let mut n = 0;
    while out.len() < len {
        let id = format!("m{n}");
        let frame = render_frame(
            "channel",
            &[
                ("source", "telegram"),
                ("id", &id),
                ("sig", "AAAAAAAAAAAAAAAAAAAAAA"),
            ],
            "hello from the operator\nplease run the tests",
        )
        .unwrap();
        out.push_str(&frame);
        out.push_str(&filler[..4096 - frame.len().min(4096)]);
        n += 1;
    }
    out
}

fn bench_scan(c: &mut Criterion) {
    let config = ScanConfig::new("channel").unwrap();
    let finder = Finder::new("channel");
    let cases = [
        ("prose_1MiB_no_frames", prose(MIB)),
        ("prose_1MiB_frame_every_4KiB", prose_with_frames(MIB)),
        ("prose_1MiB_lt_every_100B", prose_with_comparisons(MIB)),
        ("typographic_prose_1MiB", typographic_prose(MIB)),
    ];
    for (name, input) in &cases {
        let mut group = c.benchmark_group(format!("scan/{name}"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("seal", name), input, |b, s| {
            b.iter(|| scan(black_box(s), &config).unwrap().len())
        });
        group.bench_with_input(BenchmarkId::new("memmem_floor", name), input, |b, s| {
            b.iter(|| finder.find_iter(black_box(s.as_bytes())).count())
        });
        group.finish();
    }
}

criterion_group!(benches, bench_scan);
criterion_main!(benches);
