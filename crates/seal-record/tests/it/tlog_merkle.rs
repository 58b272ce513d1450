//! RFC 6962 hashing and proofs: the published reference roots, the project's proof vectors
//! (spec/vectors/tlog-proofs.json, every case class of the transparency-dev Merkle suite with
//! its broken twins), a differential run against an independent implementation (`ct-merkle`, a
//! dev-dependency only) at every size of 100,000 appends, and the no-panic, no-hang property
//! over all of `u64`.

use ct_merkle::mem_backed_tree::MemoryBackedTree;
use ct_merkle::{ConsistencyProof, InclusionProof, RootHash};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use seal_record::tlog::{
    empty_root, leaf_hash, node_hash, root_from_inclusion, verify_consistency, verify_inclusion,
    MerkleHash, ProofError, Tree, TreeError, MAX_PROOF_HASHES,
};
use seal_record::Sha256Digest;
use serde_json::{json, Value};
use sha2::Sha256;

/// The eight leaves of the Certificate Transparency reference tests (RFC 6962's reference
/// implementation, `merkle_tree_test.cc`; the same inputs as the transparency-dev suite).
const CT_LEAVES: [&str; 8] = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
];

/// Their published roots at sizes 1 to 8 (same source).
const CT_ROOTS: [&str; 8] = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

fn h(hex_text: &str) -> MerkleHash {
    Sha256Digest::from_hex(hex_text).unwrap()
}

fn ct_tree() -> Tree {
    let mut tree = Tree::new();
    for leaf in CT_LEAVES {
        tree.push(leaf_hash(&hex::decode(leaf).unwrap()));
    }
    tree
}

#[test]
fn reference_roots_are_rfc_6962s() {
    assert_eq!(
        empty_root(),
        h("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    );
    let tree = ct_tree();
    assert_eq!(tree.root(0).unwrap(), empty_root());
    for (size, want) in (1..=8).zip(CT_ROOTS) {
        assert_eq!(tree.root(size).unwrap(), h(want), "root at size {size}");
    }
}

#[test]
fn a_leaf_never_passes_for_the_node_of_its_halves() {
    // Second preimage: the 64 bytes `left || right` hashed as a leaf differ from the node.
    let (left, right) = (leaf_hash(b"a"), leaf_hash(b"b"));
    let mut joined = left.as_bytes().to_vec();
    joined.extend_from_slice(right.as_bytes());
    assert_ne!(leaf_hash(&joined), node_hash(&left, &right));
    let mut tree = Tree::new();
    tree.push(left);
    tree.push(right);
    let proof = tree.inclusion_proof(0, 2).unwrap();
    assert_eq!(
        verify_inclusion(&leaf_hash(&joined), 0, 1, &[], &tree.root(2).unwrap()),
        Err(ProofError::RootMismatch)
    );
    assert!(verify_inclusion(&left, 0, 2, &proof, &tree.root(2).unwrap()).is_ok());
}

#[test]
fn the_tree_refuses_sizes_it_does_not_hold() {
    let tree = ct_tree();
    assert_eq!(
        tree.root(9),
        Err(TreeError::SizeBeyondTree { size: 9, leaves: 8 })
    );
    assert_eq!(
        tree.inclusion_proof(8, 8),
        Err(TreeError::IndexOutOfRange { index: 8, size: 8 })
    );
    assert_eq!(
        tree.consistency_proof(5, 4),
        Err(TreeError::SizesOutOfOrder { old: 5, new: 4 })
    );
    assert_eq!(tree.consistency_proof(0, 8), Ok(Vec::new()));
    assert_eq!(tree.consistency_proof(8, 8), Ok(Vec::new()));
}

/// Leaf data of the vector trees: the CT leaves, then `leaf-<i>`.
fn leaf_data(index: u64) -> Vec<u8> {
    match CT_LEAVES.get(index as usize) {
        Some(hex_text) => hex::decode(hex_text).unwrap(),
        None => format!("leaf-{index}").into_bytes(),
    }
}

fn tree_of(size: u64) -> Tree {
    let mut tree = Tree::new();
    for index in 0..size {
        tree.push(leaf_hash(&leaf_data(index)));
    }
    tree
}

fn flip(hash: &MerkleHash) -> MerkleHash {
    let mut bytes = *hash.as_bytes();
    bytes[0] ^= 0x08;
    MerkleHash::from_bytes(bytes)
}

fn hexes(proof: &[MerkleHash]) -> Value {
    proof.iter().map(|hash| json!(hash.to_hex())).collect()
}

fn outcome(result: Result<(), ProofError>) -> Value {
    match result {
        Ok(()) => Value::Null,
        Err(error) => json!(format!("{error:?}")
            .split([' ', '{', '('])
            .next()
            .unwrap()
            .to_owned()),
    }
}

/// Every twin of a proof: the proof itself, truncated, extended, with a hash prepended, its
/// first two hashes swapped, and one bit flipped in each hash.
fn proof_twins(proof: &[MerkleHash]) -> Vec<(String, Vec<MerkleHash>)> {
    let mut twins = vec![("valid".to_owned(), proof.to_vec())];
    if let Some((_, shorter)) = proof.split_last() {
        twins.push(("truncated".to_owned(), shorter.to_vec()));
    }
    let mut longer = proof.to_vec();
    longer.push(leaf_hash(b"extra"));
    twins.push(("extended".to_owned(), longer));
    let mut prepended = vec![leaf_hash(b"extra")];
    prepended.extend_from_slice(proof);
    twins.push(("prepended".to_owned(), prepended));
    if proof.len() >= 2 {
        let mut swapped = proof.to_vec();
        swapped.swap(0, 1);
        twins.push(("swapped".to_owned(), swapped));
    }
    for at in 0..proof.len() {
        let mut flipped = proof.to_vec();
        flipped[at] = flip(&flipped[at]);
        twins.push((format!("bit-flip-{at}"), flipped));
    }
    twins
}

const INCLUSION_CASES: [(u64, u64); 9] = [
    (0, 1),
    (0, 8),
    (5, 8),
    (6, 7),
    (3, 5),
    (2, 3),
    (100, 257),
    (255, 256),
    (256, 257),
];

const CONSISTENCY_CASES: [(u64, u64); 9] = [
    (1, 1),
    (1, 8),
    (3, 7),
    (4, 8),
    (6, 8),
    (2, 5),
    (7, 8),
    (100, 257),
    (256, 300),
];

fn inclusion_vector(
    desc: &str,
    index: u64,
    size: u64,
    leaf: &[u8],
    proof: &[MerkleHash],
    root: &MerkleHash,
) -> Value {
    let result = verify_inclusion(&leaf_hash(leaf), index, size, proof, root);
    json!({
        "kind": "inclusion",
        "desc": desc,
        "index": index,
        "size": size,
        "leaf": hex::encode(leaf),
        "proof": hexes(proof),
        "root": root.to_hex(),
        "error": outcome(result),
    })
}

fn consistency_vector(
    desc: &str,
    (old, new): (u64, u64),
    (old_root, new_root): (&MerkleHash, &MerkleHash),
    proof: &[MerkleHash],
) -> Value {
    let result = verify_consistency(old, new, old_root, new_root, proof);
    json!({
        "kind": "consistency",
        "desc": desc,
        "old_size": old,
        "new_size": new,
        "old_root": old_root.to_hex(),
        "new_root": new_root.to_hex(),
        "proof": hexes(proof),
        "error": outcome(result),
    })
}

fn generated_vectors() -> Value {
    let big = tree_of(300);
    let mut cases = Vec::new();
    for (index, size) in INCLUSION_CASES {
        let proof = big.inclusion_proof(index, size).unwrap();
        let root = big.root(size).unwrap();
        let leaf = leaf_data(index);
        let prefix = format!("index {index} of {size}");
        for (twin, proof) in proof_twins(&proof) {
            cases.push(inclusion_vector(
                &format!("{prefix}: {twin}"),
                index,
                size,
                &leaf,
                &proof,
                &root,
            ));
        }
        // Sizes one apart can share a proof's shape (the proof alone does not bind a size,
        // which is why a size is only read from a signed checkpoint with its root); doubling
        // and halving always change it.
        let mut wrong_sizes = vec![("size-doubled", size * 2)];
        if index < size / 2 {
            wrong_sizes.push(("size-halved", size / 2));
        }
        for (twin, wrong) in wrong_sizes {
            cases.push(inclusion_vector(
                &format!("{prefix}: {twin}"),
                index,
                wrong,
                &leaf,
                &proof,
                &root,
            ));
        }
        for (twin, wrong) in [
            ("index-plus-one", index + 1),
            ("index-xor-2", index ^ 2),
            ("index-is-size", size),
        ] {
            cases.push(inclusion_vector(
                &format!("{prefix}: {twin}"),
                wrong,
                size,
                &leaf,
                &proof,
                &root,
            ));
        }
        if index > 0 {
            cases.push(inclusion_vector(
                &format!("{prefix}: index-minus-one"),
                index - 1,
                size,
                &leaf,
                &proof,
                &root,
            ));
        }
        cases.push(inclusion_vector(
            &format!("{prefix}: wrong-leaf"),
            index,
            size,
            b"not this leaf",
            &proof,
            &root,
        ));
        cases.push(inclusion_vector(
            &format!("{prefix}: wrong-root"),
            index,
            size,
            &leaf,
            &proof,
            &leaf_hash(b"root"),
        ));
        cases.push(inclusion_vector(
            &format!("{prefix}: empty-root"),
            index,
            size,
            &leaf,
            &proof,
            &empty_root(),
        ));
        if !proof.is_empty() {
            cases.push(inclusion_vector(
                &format!("{prefix}: empty-proof"),
                index,
                size,
                &leaf,
                &[],
                &root,
            ));
        }
    }
    cases.push(inclusion_vector(
        "empty tree",
        0,
        0,
        b"",
        &[],
        &empty_root(),
    ));
    for (old, new) in CONSISTENCY_CASES {
        let proof = big.consistency_proof(old, new).unwrap();
        let (old_root, new_root) = (big.root(old).unwrap(), big.root(new).unwrap());
        let roots = (&old_root, &new_root);
        let prefix = format!("from {old} to {new}");
        for (twin, proof) in proof_twins(&proof) {
            cases.push(consistency_vector(
                &format!("{prefix}: {twin}"),
                (old, new),
                roots,
                &proof,
            ));
        }
        if old != new {
            cases.push(consistency_vector(
                &format!("{prefix}: sizes-swapped"),
                (new, old),
                roots,
                &proof,
            ));
            cases.push(consistency_vector(
                &format!("{prefix}: roots-swapped"),
                (old, new),
                (&new_root, &old_root),
                &proof,
            ));
        }
        cases.push(consistency_vector(
            &format!("{prefix}: wrong-old-root"),
            (old, new),
            (&flip(&old_root), &new_root),
            &proof,
        ));
        cases.push(consistency_vector(
            &format!("{prefix}: wrong-new-root"),
            (old, new),
            (&old_root, &flip(&new_root)),
            &proof,
        ));
        if old != new {
            cases.push(consistency_vector(
                &format!("{prefix}: new-size-doubled"),
                (old, new * 2),
                roots,
                &proof,
            ));
        }
        if old * 2 <= new && old != new {
            cases.push(consistency_vector(
                &format!("{prefix}: old-size-doubled"),
                (old * 2, new),
                roots,
                &proof,
            ));
        }
        if old > 1 && !old.is_power_of_two() {
            cases.push(consistency_vector(
                &format!("{prefix}: old-size-halved"),
                (old / 2, new),
                roots,
                &proof,
            ));
        }
        if old != new {
            cases.push(consistency_vector(
                &format!("{prefix}: empty-proof"),
                (old, new),
                roots,
                &[],
            ));
        }
    }
    let empty = empty_root();
    let eight = big.root(8).unwrap();
    cases.push(consistency_vector(
        "from 0 to 8: valid",
        (0, 8),
        (&empty, &eight),
        &[],
    ));
    cases.push(consistency_vector(
        "from 0 to 8: non-empty-proof",
        (0, 8),
        (&empty, &eight),
        &[eight],
    ));
    cases.push(consistency_vector(
        "from 0 to 8: old-root-not-empty",
        (0, 8),
        (&eight, &eight),
        &[],
    ));
    cases.push(consistency_vector(
        "from 8 to 8: other-root",
        (8, 8),
        (&eight, &empty),
        &[],
    ));
    cases.push(consistency_vector(
        "from 8 to 8: non-empty-proof",
        (8, 8),
        (&eight, &eight),
        &[eight],
    ));
    json!({
        "about": "RFC 6962 inclusion and consistency proofs (spec/audit-log.md section 3): each valid proof with its broken twins. Leaves are the Certificate Transparency reference leaves, then the bytes of \"leaf-<i>\". `error` is null for a proof that verifies.",
        "cases": cases,
    })
}

fn decode_proof(value: &Value) -> Vec<MerkleHash> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|hash| h(hash.as_str().unwrap()))
        .collect()
}

fn digest_of(hash: &MerkleHash) -> ct_merkle::digest::Output<Sha256> {
    (*hash.as_bytes()).into()
}

/// ct-merkle's verdict on a vector, where it can state one (it refuses the empty old tree, and
/// takes its sizes from the roots).
fn independent_verdict(case: &Value) -> Option<bool> {
    let proof = decode_proof(&case["proof"]);
    let mut bytes = Vec::new();
    for hash in &proof {
        bytes.extend_from_slice(hash.as_bytes());
    }
    match case["kind"].as_str().unwrap() {
        "inclusion" => {
            let size = case["size"].as_u64().unwrap();
            let index = case["index"].as_u64().unwrap();
            if size == 0 {
                return None;
            }
            let root = RootHash::<Sha256>::new(digest_of(&h(case["root"].as_str().unwrap())), size);
            let leaf = hex::decode(case["leaf"].as_str().unwrap()).unwrap();
            let proof = InclusionProof::<Sha256>::from_bytes(bytes);
            Some(root.verify_inclusion(&leaf, index, &proof).is_ok())
        }
        _ => {
            let old = case["old_size"].as_u64().unwrap();
            let new = case["new_size"].as_u64().unwrap();
            if old == 0 || old > new {
                return None;
            }
            let old_root =
                RootHash::<Sha256>::new(digest_of(&h(case["old_root"].as_str().unwrap())), old);
            let new_root =
                RootHash::<Sha256>::new(digest_of(&h(case["new_root"].as_str().unwrap())), new);
            let proof = ConsistencyProof::<Sha256>::try_from_bytes(bytes).ok()?;
            Some(new_root.verify_consistency(&old_root, &proof).is_ok())
        }
    }
}

#[test]
fn proof_vectors_hold_and_every_twin_fails() {
    let generated = generated_vectors();
    let path = seal_test_support::spec_vector("tlog-proofs.json");
    seal_test_support::check_json_or_regenerate(&path, &generated, seal_test_support::golden_text);
    let cases = generated["cases"].as_array().unwrap();
    let (mut valid, mut broken, mut compared) = (0, 0, 0);
    for case in cases {
        let desc = case["desc"].as_str().unwrap();
        let ok = case["error"].is_null();
        let meant_valid = desc.ends_with(": valid") || desc == "empty tree";
        // The empty tree has no leaf to include.
        let meant_valid = meant_valid && desc != "empty tree";
        assert_eq!(ok, meant_valid, "{desc}: {}", case["error"]);
        if ok {
            valid += 1;
        } else {
            broken += 1;
        }
        if let Some(verdict) = independent_verdict(case) {
            assert_eq!(verdict, ok, "{desc}: ct-merkle disagrees");
            compared += 1;
        }
    }
    assert!(
        valid >= 18 && broken >= 10 * valid,
        "{valid} valid, {broken} broken"
    );
    assert!(
        compared * 10 >= cases.len() * 9,
        "only {compared} of {} compared",
        cases.len()
    );
}

/// A small deterministic generator for the differential run (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn roots_and_proofs_equal_ct_merkles_at_every_size_of_100000_appends() {
    let mut rng = SplitMix(0x5ea1);
    let mut ours = Tree::new();
    let mut theirs = MemoryBackedTree::<Sha256, Vec<u8>>::new();
    for size in 1..=100_000u64 {
        let len = rng.below(40) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        ours.push(leaf_hash(&data));
        theirs.push(data);
        let root = ours.root(size).unwrap();
        let their_root = theirs.root();
        assert_eq!(
            root.as_bytes().as_slice(),
            their_root.as_bytes().as_slice(),
            "root at {size}"
        );
        let index = rng.below(size);
        let proof = ours.inclusion_proof(index, size).unwrap();
        let their_proof = theirs.prove_inclusion(index as usize);
        assert_eq!(
            concat(&proof),
            their_proof.as_bytes(),
            "inclusion of {index} at {size}"
        );
        let leaf = ours.leaf(index).unwrap();
        assert_eq!(verify_inclusion(leaf, index, size, &proof, &root), Ok(()));
        if size > 1 {
            let old = 1 + rng.below(size - 1);
            let proof = ours.consistency_proof(old, size).unwrap();
            let their_proof = theirs.prove_consistency((size - old) as usize);
            assert_eq!(
                concat(&proof),
                their_proof.as_bytes(),
                "consistency {old} to {size}"
            );
            let old_root = ours.root(old).unwrap();
            assert_eq!(
                verify_consistency(old, size, &old_root, &root, &proof),
                Ok(())
            );
        }
    }
}

fn concat(proof: &[MerkleHash]) -> Vec<u8> {
    proof
        .iter()
        .flat_map(|hash| hash.as_bytes().iter().copied())
        .collect()
}

/// Sizes and indexes at the edges of `u64`, including the pair that makes a popular Rust
/// Merkle crate loop for seconds.
fn edge_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        Just(0u64),
        Just(1u64),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(1u64 << 63),
        Just((1u64 << 63) - 1),
        Just(11_341_259_907_934_313_024u64),
        (0u32..64).prop_map(|bit| 1u64 << bit),
        (0u32..64).prop_map(|bit| (1u64 << bit).wrapping_sub(1)),
    ]
}

fn any_hash() -> impl Strategy<Value = MerkleHash> {
    any::<[u8; 32]>().prop_map(MerkleHash::from_bytes)
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2_000))]

    /// Verification returns an answer for any sizes and indexes, with proofs up to 70 hashes
    /// (beyond the limit too), and never panics.
    #[test]
    fn verification_answers_for_every_u64(
        index in edge_u64(),
        size in edge_u64(),
        other in edge_u64(),
        proof in proptest::collection::vec(any_hash(), 0..=70),
        leaf in any_hash(),
        root in any_hash(),
    ) {
        let inclusion = verify_inclusion(&leaf, index, size, &proof, &root);
        let consistency = verify_consistency(other, size, &leaf, &root, &proof);
        if proof.len() > MAX_PROOF_HASHES {
            let refused = matches!(
                inclusion,
                Err(ProofError::TooLong { .. }) | Err(ProofError::IndexOutOfRange { .. })
            );
            prop_assert!(refused);
        }
        // Random hashes never make a proof verify.
        prop_assert!(inclusion.is_err() || proof.is_empty() && size == 1 && leaf == root);
        prop_assert!(consistency.is_err() || proof.is_empty());
        let _ = root_from_inclusion(&leaf, index, size, &proof);
    }
}

/// An inclusion verifier: leaf, index, size, proof, root.
type InclusionVerifier =
    fn(&MerkleHash, u64, u64, &[MerkleHash], &MerkleHash) -> Result<(), ProofError>;

/// Any single change to a valid inclusion proof, its index or its size fails, in trees of up to
/// 1,024 leaves; `verify` is the verifier under test.
fn any_change_fails(
    verify: InclusionVerifier,
    runner: &mut proptest::test_runner::TestRunner,
) -> Result<(), proptest::test_runner::TestError<(u64, u64, usize, u8)>> {
    let tree = tree_of(1_024);
    let strategy = (1u64..=1_024).prop_flat_map(|size| (Just(size), 0..size, 0usize..12, 0u8..8));
    runner.run(&strategy, |(size, index, at, bit)| {
        let proof = tree.inclusion_proof(index, size).unwrap();
        let root = tree.root(size).unwrap();
        let leaf = *tree.leaf(index).unwrap();
        prop_assert_eq!(verify(&leaf, index, size, &proof, &root), Ok(()));
        if let Some(target) = proof.len().checked_sub(1).map(|last| at.min(last)) {
            let mut changed = proof.clone();
            let mut bytes = *changed[target].as_bytes();
            bytes[at % 32] ^= 1 << bit;
            changed[target] = MerkleHash::from_bytes(bytes);
            prop_assert!(
                verify(&leaf, index, size, &changed, &root).is_err(),
                "bit flip at {}",
                target
            );
            prop_assert!(
                verify(&leaf, index, size, &proof[..proof.len() - 1], &root).is_err(),
                "truncated"
            );
        }
        let mut longer = proof.clone();
        longer.push(leaf);
        prop_assert!(
            verify(&leaf, index, size, &longer, &root).is_err(),
            "extended"
        );
        prop_assert!(
            verify(&leaf, index, size * 2, &proof, &root).is_err(),
            "size doubled"
        );
        if index < size / 2 {
            prop_assert!(
                verify(&leaf, index, size / 2, &proof, &root).is_err(),
                "size halved"
            );
        }
        Ok::<(), TestCaseError>(())
    })
}

#[test]
fn any_change_to_an_inclusion_proof_fails() {
    any_change_fails(verify_inclusion, &mut seal_test_support::seeded(512)).unwrap();
    any_change_fails(verify_inclusion, &mut seal_test_support::exploring(256)).unwrap();
}

/// A verifier that checks the proof's shape but never compares the root it leads to: the
/// property must find it out.
fn accepts_any_root(
    leaf: &MerkleHash,
    index: u64,
    size: u64,
    proof: &[MerkleHash],
    _root: &MerkleHash,
) -> Result<(), ProofError> {
    root_from_inclusion(leaf, index, size, proof).map(|_| ())
}

#[test]
fn negative_control_a_verifier_that_accepts_a_wrong_root_is_caught() {
    seal_test_support::assert_finds_counterexample(
        any_change_fails(accepts_any_root, &mut seal_test_support::seeded(512)),
        "a verifier that never compares the root",
    );
}

/// Any single change to a valid consistency proof or its sizes fails.
#[test]
fn any_change_to_a_consistency_proof_fails() {
    let tree = tree_of(600);
    let mut runner = seal_test_support::seeded(512);
    let strategy = (2u64..=600).prop_flat_map(|new| (1..new, Just(new), 0usize..12, 0u8..8));
    runner
        .run(&strategy, |(old, new, at, bit)| {
            let proof = tree.consistency_proof(old, new).unwrap();
            let (old_root, new_root) = (tree.root(old).unwrap(), tree.root(new).unwrap());
            prop_assert_eq!(
                verify_consistency(old, new, &old_root, &new_root, &proof),
                Ok(())
            );
            let target = at.min(proof.len() - 1);
            let mut changed = proof.clone();
            let mut bytes = *changed[target].as_bytes();
            bytes[at % 32] ^= 1 << bit;
            changed[target] = MerkleHash::from_bytes(bytes);
            prop_assert!(verify_consistency(old, new, &old_root, &new_root, &changed).is_err());
            prop_assert!(verify_consistency(old, new * 2, &old_root, &new_root, &proof).is_err());
            if old * 2 <= new {
                prop_assert!(
                    verify_consistency(old * 2, new, &old_root, &new_root, &proof).is_err()
                );
            }
            prop_assert!(verify_consistency(old, new, &old_root, &new_root, &proof[1..]).is_err());
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_frontier_gives_the_trees_root_at_every_size() {
    let tree = tree_of(600);
    let mut frontier = seal_record::tlog::Frontier::new();
    assert_eq!(frontier.root(), empty_root());
    for size in 1..=600 {
        frontier.push(*tree.leaf(size - 1).unwrap()).unwrap();
        assert_eq!(frontier.size(), size);
        assert_eq!(frontier.hashes().len(), size.count_ones() as usize);
        assert_eq!(frontier.root(), tree.root(size).unwrap(), "root at {size}");
        let rebuilt =
            seal_record::tlog::Frontier::from_parts(size, frontier.hashes().to_vec()).unwrap();
        assert_eq!(rebuilt, frontier);
    }
    let wrong = seal_record::tlog::Frontier::from_parts(3, vec![empty_root()]);
    assert_eq!(
        wrong.unwrap_err().to_string(),
        "a tree of 3 leaves has 2 complete subtrees, not 1"
    );
}

/// At a million entries an inclusion proof is at most 20 hashes (640 bytes): `ceil(log2(10^6))`,
/// reached by every leaf of the left subtree of 2^19 leaves, fewer towards the right edge. A
/// consistency proof to that size is at most one hash more (21: an old size that is not a power
/// of two starts with its own subtree's hash). Sizes only: no time is measured.
#[test]
fn proofs_at_a_million_entries_are_at_most_640_bytes() {
    const SIZE: u64 = 1_000_000;
    let mut tree = Tree::new();
    for index in 0..SIZE {
        tree.push(leaf_hash(&index.to_be_bytes()));
    }
    let root = tree.root(SIZE).unwrap();
    let mut longest = 0;
    for index in 0..SIZE {
        let proof = tree.inclusion_proof(index, SIZE).unwrap();
        longest = longest.max(proof.len());
        if index % 9_973 == 0 || index >= SIZE - 3 {
            let leaf = tree.leaf(index).unwrap();
            assert_eq!(verify_inclusion(leaf, index, SIZE, &proof, &root), Ok(()));
        }
    }
    assert_eq!(longest, 20);
    let first = tree.inclusion_proof(0, SIZE).unwrap();
    assert_eq!(first.len(), 20);
    assert_eq!(concat(&first).len(), 640);
    for old in (1..SIZE)
        .step_by(997)
        .chain([SIZE - 1, 1 << 19, (1 << 19) + 1])
    {
        let proof = tree.consistency_proof(old, SIZE).unwrap();
        assert!(proof.len() <= 21, "consistency {old}: {}", proof.len());
        let old_root = tree.root(old).unwrap();
        assert_eq!(
            verify_consistency(old, SIZE, &old_root, &root, &proof),
            Ok(())
        );
    }
}
