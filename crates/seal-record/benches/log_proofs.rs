//! Proofs of the decision log at 1,000,000 entries: verifying an inclusion proof (20 hashes,
//! 640 bytes) and a consistency proof (from 999,000 and from 2^19 + 1 entries), next to their
//! floor, 20 bare interior-node hashes, and to making the inclusion proof from the in-memory
//! tree, in the same run. The proof sizes are asserted by `tests/it/tlog_merkle.rs`
//! (`proofs_at_a_million_entries_are_at_most_640_bytes`).
//!
//! Run with `cargo bench -p seal-record --bench log_proofs`; the targets are at most 640 bytes and a
//! verification in microseconds.
//!
//! Measured (2 cores shared with other builds, Linux, release build; criterion medians):
//!
//! | bench                                  | median  |
//! |----------------------------------------|---------|
//! | `node_hash_x20_floor`                  | 2.94 µs |
//! | `verify_inclusion_1m`                  | 3.01 µs |
//! | `verify_consistency_999000_to_1m`      | 5.65 µs |
//! | `verify_consistency_524289_to_1m`      | 4.29 µs |
//! | `inclusion_proof_from_tree_1m`         | 1.51 µs |
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use seal_record::tlog::{leaf_hash, node_hash, verify_consistency, verify_inclusion, Tree};

const SIZE: u64 = 1_000_000;

fn proofs(c: &mut Criterion) {
    let mut tree = Tree::new();
    for index in 0..SIZE {
        tree.push(leaf_hash(format!("entry-{index}").as_bytes()));
    }
    let root = tree.root(SIZE).unwrap();
    let index = 123_456;
    let leaf = *tree.leaf(index).unwrap();
    let inclusion = tree.inclusion_proof(index, SIZE).unwrap();
    assert_eq!(inclusion.len() * 32, 640);
    assert_eq!(
        verify_inclusion(&leaf, index, SIZE, &inclusion, &root),
        Ok(())
    );
    let consistency: Vec<_> = [999_000, (1 << 19) + 1]
        .into_iter()
        .map(|old| {
            let proof = tree.consistency_proof(old, SIZE).unwrap();
            let old_root = tree.root(old).unwrap();
            assert_eq!(
                verify_consistency(old, SIZE, &old_root, &root, &proof),
                Ok(())
            );
            (old, old_root, proof)
        })
        .collect();

    let mut group = c.benchmark_group("log_proofs");
    group.bench_function("node_hash_x20_floor", |b| {
        b.iter(|| {
            let mut hash = black_box(leaf);
            for sibling in black_box(&inclusion) {
                hash = node_hash(&hash, sibling);
            }
            hash
        })
    });
    group.bench_function("verify_inclusion_1m", |b| {
        b.iter(|| {
            verify_inclusion(
                black_box(&leaf),
                black_box(index),
                black_box(SIZE),
                black_box(&inclusion),
                black_box(&root),
            )
        })
    });
    for (old, old_root, proof) in &consistency {
        group.bench_function(format!("verify_consistency_{old}_to_1m"), |b| {
            b.iter(|| {
                verify_consistency(
                    black_box(*old),
                    black_box(SIZE),
                    black_box(old_root),
                    black_box(&root),
                    black_box(proof),
                )
            })
        });
    }
    group.bench_function("inclusion_proof_from_tree_1m", |b| {
        b.iter(|| tree.inclusion_proof(black_box(index), black_box(SIZE)))
    });
    group.finish();
}

criterion_group!(benches, proofs);
criterion_main!(benches);
