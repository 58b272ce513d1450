//! The C2SP tlog-tiles layout (spec/audit-tiles.md): tile paths (the spec's examples, the
//! refused spellings, and the format/parse round trip), entry bundles (round trip and strict
//! decoding), which tiles cover a size, and the tree rebuilt from its tiles: the same root, and
//! any changed tile byte either changes the root or is refused. Each property has a negative
//! control: a broken implementation it must catch.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError, TestRunner};
use seal_record::tlog::{
    decode_entry_bundle, encode_entry_bundle, entry_bundle_paths, hash_tile, hash_tile_paths,
    leaf_hash, BundleError, MerkleHash, TileError, TileKind, TilePath, TilePathError, TileRebuild,
    Tree, TILE_WIDTH,
};

fn tree_of(size: u64) -> Tree {
    let mut tree = Tree::new();
    for n in 0..size {
        tree.push(leaf_hash(&n.to_be_bytes()));
    }
    tree
}

fn texts(paths: &[TilePath]) -> Vec<String> {
    paths.iter().map(TilePath::to_text).collect()
}

#[test]
fn paths_are_written_in_three_digit_groups() {
    let cases = [
        (TilePath::hashes(0, 0, 256), "tile/0/000"),
        (TilePath::hashes(0, 1_234_067, 256), "tile/0/x001/x234/067"),
        (TilePath::hashes(1, 999, 256), "tile/1/999"),
        (TilePath::hashes(2, 1000, 256), "tile/2/x001/000"),
        (TilePath::hashes(63, 5, 255), "tile/63/005.p/255"),
        (TilePath::entries(1_234, 1), "tile/entries/x001/234.p/1"),
        (TilePath::entries(0, 44), "tile/entries/000.p/44"),
        (
            TilePath::hashes(0, u64::MAX, 256),
            "tile/0/x018/x446/x744/x073/x709/x551/615",
        ),
    ];
    for (tile, text) in cases {
        let tile = tile.unwrap();
        assert_eq!(tile.to_text(), text);
        assert_eq!(TilePath::parse(text), Ok(tile), "{text}");
    }
}

#[test]
fn every_other_spelling_is_refused() {
    let refused = [
        ("", TilePathError::NotATile),
        ("tiles/0/000", TilePathError::NotATile),
        ("/tile/0/000", TilePathError::NotATile),
        ("tile/0", TilePathError::Index),
        ("tile/00/000", TilePathError::Level),
        ("tile/01/000", TilePathError::Level),
        ("tile/64/000", TilePathError::Level),
        ("tile/-1/000", TilePathError::Level),
        ("tile//000", TilePathError::Level),
        ("tile/Entries/000", TilePathError::Level),
        ("tile/0/00", TilePathError::Index),
        ("tile/0/0000", TilePathError::Index),
        ("tile/0/1234", TilePathError::Index),
        ("tile/0/x000/001", TilePathError::Index),
        ("tile/0/001/234", TilePathError::Index),
        ("tile/0/x001/x234", TilePathError::Index),
        ("tile/0/X001/234", TilePathError::Index),
        ("tile/0/x001/234/", TilePathError::Index),
        ("tile/0/x001//234", TilePathError::Index),
        ("tile/0/+01", TilePathError::Index),
        (
            "tile/0/x018/x446/x744/x073/x709/x551/616",
            TilePathError::Index,
        ),
        ("tile/0/000.p/0", TilePathError::Width),
        ("tile/0/000.p/256", TilePathError::Width),
        ("tile/0/000.p/05", TilePathError::Width),
        ("tile/0/000.p/", TilePathError::Width),
        ("tile/0/000.p/5/", TilePathError::Width),
        ("tile/0/000.p/1.p/1", TilePathError::Width),
        ("tile/0/000.P/5", TilePathError::Index),
        ("tile/0/000.p", TilePathError::Index),
        ("tile/entries/000.p/256", TilePathError::Width),
        ("tile/0/000 ", TilePathError::Index),
    ];
    for (text, error) in refused {
        assert_eq!(TilePath::parse(text), Err(error), "{text:?}");
    }
    let long = format!("tile/0/{}000", "x000/".repeat(12));
    assert_eq!(TilePath::parse(&long), Err(TilePathError::NotATile));
    assert_eq!(TilePath::hashes(64, 0, 1), Err(TilePathError::Level));
    assert_eq!(TilePath::hashes(0, 0, 0), Err(TilePathError::Width));
    assert_eq!(TilePath::entries(0, 257), Err(TilePathError::Width));
}

#[test]
fn the_tiles_of_a_size() {
    assert_eq!(hash_tile_paths(0).next(), None);
    assert_eq!(entry_bundle_paths(0).next(), None);
    assert_eq!(
        texts(&hash_tile_paths(1).collect::<Vec<_>>()),
        ["tile/0/000.p/1"]
    );
    assert_eq!(
        texts(&hash_tile_paths(256).collect::<Vec<_>>()),
        ["tile/0/000", "tile/1/000.p/1"]
    );
    assert_eq!(
        texts(&hash_tile_paths(300).collect::<Vec<_>>()),
        ["tile/0/000", "tile/0/001.p/44", "tile/1/000.p/1"]
    );
    assert_eq!(
        texts(&entry_bundle_paths(300).collect::<Vec<_>>()),
        ["tile/entries/000", "tile/entries/001.p/44"]
    );
    let big: Vec<TilePath> = hash_tile_paths(65_536 + 513).collect();
    assert_eq!(big.len(), 259 + 2 + 1);
    assert_eq!(
        texts(&big[256..]),
        [
            "tile/0/256",
            "tile/0/257",
            "tile/0/258.p/1",
            "tile/1/000",
            "tile/1/001.p/2",
            "tile/2/000.p/1"
        ]
    );
    // The walk is lazy: a size anywhere in u64 costs nothing until walked.
    let mut huge = hash_tile_paths(u64::MAX);
    assert_eq!(huge.next().unwrap().to_text(), "tile/0/000");
}

fn any_tile() -> impl Strategy<Value = TilePath> {
    (
        prop_oneof![
            (0u8..=63).prop_map(|level| TileKind::Hashes { level }),
            Just(TileKind::Entries)
        ],
        prop_oneof![0u64..2_000, 0u64..1_000_000_000, any::<u64>()],
        prop_oneof![Just(256u16), 1u16..=256],
    )
        .prop_map(|(kind, index, width)| match kind {
            TileKind::Hashes { level } => TilePath::hashes(level, index, width).unwrap(),
            _ => TilePath::entries(index, width).unwrap(),
        })
}

/// An edit of a path text: where, how (insert, remove, add a zero group) and which byte.
type Edit = (usize, u8, u8);

/// An edit of a path text: a character inserted, a character removed, or a zero group added.
fn any_edit() -> impl Strategy<Value = Edit> {
    (
        0usize..64,
        0u8..3,
        prop::sample::select(b"x0123456789/.pe".to_vec()),
    )
}

fn apply(text: &str, (at, how, byte): Edit) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = at % (bytes.len() + 1);
    match how {
        0 => bytes.insert(at, byte),
        1 if at < bytes.len() => {
            bytes.remove(at);
        }
        _ => {
            if let Some(slash) = text.rfind('/').filter(|slash| *slash > 6) {
                bytes.splice(slash + 1..slash + 1, b"x000/".iter().copied());
            }
        }
    }
    String::from_utf8(bytes).unwrap()
}

type Parser = fn(&str) -> Result<TilePath, TilePathError>;

/// Formatting then parsing gives the tile back, and an edited text parses only to a tile that
/// formats to exactly that text.
fn paths_round_trip(
    parse: Parser,
    runner: &mut TestRunner,
) -> Result<(), TestError<(TilePath, Edit)>> {
    runner.run(&(any_tile(), any_edit()), |(tile, edit)| {
        let text = tile.to_text();
        prop_assert_eq!(parse(&text), Ok(tile));
        let edited = apply(&text, edit);
        if let Ok(parsed) = parse(&edited) {
            prop_assert_eq!(parsed.to_text(), edited);
        }
        Ok::<(), TestCaseError>(())
    })
}

#[test]
fn paths_round_trip_and_parse_only_the_formatters_spelling() {
    paths_round_trip(TilePath::parse, &mut seal_test_support::seeded(2_048)).unwrap();
    paths_round_trip(TilePath::parse, &mut seal_test_support::exploring(1_024)).unwrap();
}

/// A parser that also takes an index with a leading `x000/` group.
fn lenient_parse(text: &str) -> Result<TilePath, TilePathError> {
    TilePath::parse(text).or_else(|error| match text.find("/x000/") {
        Some(at) => TilePath::parse(&format!("{}/{}", &text[..at], &text[at + 6..])),
        None => Err(error),
    })
}

#[test]
fn negative_control_a_lenient_parser_is_caught() {
    seal_test_support::assert_finds_counterexample(
        paths_round_trip(lenient_parse, &mut seal_test_support::seeded(2_048)),
        "a parser that accepts a leading zero group",
    );
}

type Encoder = fn(&[Vec<u8>]) -> Result<Vec<u8>, BundleError>;

fn any_entries() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..40),
            prop::collection::vec(any::<u8>(), 200..700),
        ],
        1..=256,
    )
}

/// Decoding a bundle gives its entries back, and a bundle one byte shorter or longer, or read
/// at another width, is refused.
fn bundles_round_trip(
    encode: Encoder,
    runner: &mut TestRunner,
) -> Result<(), TestError<Vec<Vec<u8>>>> {
    runner.run(&any_entries(), |entries| {
        let bundle = encode(&entries).unwrap();
        let width = u16::try_from(entries.len()).unwrap();
        let decoded = decode_entry_bundle(&bundle, width).unwrap_or_default();
        prop_assert_eq!(
            decoded,
            entries.iter().map(Vec::as_slice).collect::<Vec<_>>()
        );
        prop_assert!(decode_entry_bundle(&bundle[..bundle.len() - 1], width).is_err());
        let mut longer = bundle.clone();
        longer.push(0);
        prop_assert!(decode_entry_bundle(&longer, width).is_err());
        if width > 1 {
            prop_assert!(decode_entry_bundle(&bundle, width - 1).is_err());
        }
        if width < TILE_WIDTH {
            prop_assert!(decode_entry_bundle(&bundle, width + 1).is_err());
        }
        Ok::<(), TestCaseError>(())
    })
}

fn encode(entries: &[Vec<u8>]) -> Result<Vec<u8>, BundleError> {
    encode_entry_bundle(entries)
}

/// An encoder that writes each length little-endian.
fn little_endian(entries: &[Vec<u8>]) -> Result<Vec<u8>, BundleError> {
    let mut bundle = Vec::new();
    for entry in entries {
        bundle.extend_from_slice(&u16::try_from(entry.len()).unwrap().to_le_bytes());
        bundle.extend_from_slice(entry);
    }
    Ok(bundle)
}

#[test]
fn bundles_round_trip_and_refuse_any_other_width_or_length() {
    bundles_round_trip(encode, &mut seal_test_support::seeded(256)).unwrap();
    bundles_round_trip(encode, &mut seal_test_support::exploring(128)).unwrap();
}

#[test]
fn negative_control_a_little_endian_encoder_is_caught() {
    seal_test_support::assert_finds_counterexample(
        bundles_round_trip(little_endian, &mut seal_test_support::seeded(256)),
        "an encoder with little-endian lengths",
    );
}

#[test]
fn bundle_refusals_name_the_entry() {
    assert_eq!(
        encode_entry_bundle(&[vec![0u8; 3], vec![0u8; 65_536]]),
        Err(BundleError::EntryTooLarge {
            entry: 1,
            bytes: 65_536
        })
    );
    assert!(encode_entry_bundle(&[vec![0u8; 65_535]]).is_ok());
    assert_eq!(
        encode_entry_bundle::<Vec<u8>>(&[]),
        Err(BundleError::Width { entries: 0 })
    );
    assert_eq!(
        encode_entry_bundle(&vec![vec![1u8]; 257]),
        Err(BundleError::Width { entries: 257 })
    );
    let bundle = encode_entry_bundle(&[b"abc".as_slice(), b"de"]).unwrap();
    assert_eq!(
        decode_entry_bundle(&bundle[..6], 2),
        Err(BundleError::Truncated { entry: 1 })
    );
    assert_eq!(
        decode_entry_bundle(&bundle[..4], 2),
        Err(BundleError::Truncated { entry: 0 })
    );
    assert_eq!(
        decode_entry_bundle(&bundle, 1),
        Err(BundleError::TrailingBytes { bytes: 4 })
    );
    assert_eq!(
        decode_entry_bundle(&bundle, 0),
        Err(BundleError::Width { entries: 0 })
    );
}

/// The tiles of `tree` at `size`, with their bytes.
fn tiles_of(tree: &Tree, size: u64) -> Vec<(TilePath, Vec<u8>)> {
    hash_tile_paths(size)
        .map(|tile| {
            let bytes = hash_tile(tree, &tile).unwrap();
            (tile, bytes)
        })
        .collect()
}

type Rebuilder = fn(u64, &[(TilePath, Vec<u8>)]) -> Result<MerkleHash, TileError>;

fn rebuild(size: u64, tiles: &[(TilePath, Vec<u8>)]) -> Result<MerkleHash, TileError> {
    let mut rebuild = TileRebuild::new(size);
    for (tile, bytes) in tiles {
        rebuild.add(tile, bytes)?;
    }
    Ok(rebuild.finish()?.root(size).unwrap())
}

/// A rebuild that reads the leaves and never looks at the upper tiles.
fn leaves_only(size: u64, tiles: &[(TilePath, Vec<u8>)]) -> Result<MerkleHash, TileError> {
    let mut tree = Tree::new();
    for (tile, bytes) in tiles {
        if tile.kind() == (TileKind::Hashes { level: 0 }) {
            for chunk in bytes.chunks_exact(32) {
                tree.push(MerkleHash::from_bytes(chunk.try_into().unwrap()));
            }
        }
    }
    Ok(tree.root(size).unwrap())
}

const MOST: u64 = 1_200;

/// The tree rebuilt from its tiles has the tree's root, and a bit flipped anywhere in any tile
/// changes the rebuilt root or is refused.
fn tiles_commit_to_the_root(
    rebuild: Rebuilder,
    tree: &Tree,
    runner: &mut TestRunner,
) -> Result<(), TestError<(u64, usize, usize, u8)>> {
    let sizes = prop_oneof![1u64..=MOST, 256u64..=MOST];
    let strategy = (sizes, any::<usize>(), any::<usize>(), 0u8..8);
    runner.run(&strategy, |(size, which, at, bit)| {
        let tiles = tiles_of(tree, size);
        let root = tree.root(size).unwrap();
        prop_assert_eq!(rebuild(size, &tiles), Ok(root));
        let mut changed = tiles.clone();
        // Half of the runs change an upper tile when there is one.
        let upper = tiles
            .iter()
            .position(|(tile, _)| tile.kind() != (TileKind::Hashes { level: 0 }));
        let which = match upper {
            Some(first) if which % 2 == 0 => first + which / 2 % (tiles.len() - first),
            _ => which % tiles.len(),
        };
        let bytes = &mut changed[which].1;
        let at = at % bytes.len();
        bytes[at] ^= 1 << bit;
        match rebuild(size, &changed) {
            Err(_) => {}
            Ok(other) => prop_assert_ne!(other, root, "{} byte {}", tiles[which].0, at),
        }
        Ok::<(), TestCaseError>(())
    })
}

#[test]
fn a_tree_rebuilt_from_its_tiles_has_its_root_and_any_change_shows() {
    let tree = tree_of(MOST);
    tiles_commit_to_the_root(rebuild, &tree, &mut seal_test_support::seeded(256)).unwrap();
    tiles_commit_to_the_root(rebuild, &tree, &mut seal_test_support::exploring(128)).unwrap();
}

#[test]
fn negative_control_a_rebuild_that_skips_the_upper_tiles_is_caught() {
    let tree = tree_of(MOST);
    seal_test_support::assert_finds_counterexample(
        tiles_commit_to_the_root(leaves_only, &tree, &mut seal_test_support::seeded(256)),
        "a rebuild that never checks the upper tiles",
    );
}

/// Three levels of tiles (from 65,536 leaves): the root rebuilt, and a change in each upper
/// level refused.
#[test]
fn a_three_level_tree_rebuilds_and_refuses_changed_upper_tiles() {
    let size = 65_536 + 300;
    let tree = tree_of(size);
    let tiles = tiles_of(&tree, size);
    assert_eq!(
        texts(&tiles.iter().map(|(tile, _)| *tile).collect::<Vec<_>>()[257..]),
        [
            "tile/0/257.p/44",
            "tile/1/000",
            "tile/1/001.p/1",
            "tile/2/000.p/1"
        ]
    );
    assert_eq!(rebuild(size, &tiles), Ok(tree.root(size).unwrap()));
    for which in [258, 259, 260] {
        let mut changed = tiles.clone();
        let last = changed[which].1.len() - 1;
        changed[which].1[last] ^= 0x40;
        assert!(
            matches!(rebuild(size, &changed), Err(TileError::Mismatch { .. })),
            "{}",
            tiles[which].0
        );
    }
}

#[test]
fn a_rebuild_refuses_a_missing_short_or_misplaced_tile() {
    let tree = tree_of(300);
    let tiles = tiles_of(&tree, 300);
    let (first, first_bytes) = &tiles[0];
    let (partial, partial_bytes) = &tiles[1];
    let (upper, upper_bytes) = &tiles[2];

    let mut short = TileRebuild::new(300);
    short.add(first, first_bytes).unwrap();
    assert_eq!(
        short.clone().finish().unwrap_err(),
        TileError::Missing { tile: *partial }
    );
    assert_eq!(
        short.add(upper, upper_bytes),
        Err(TileError::Unexpected { tile: *upper })
    );
    assert_eq!(
        short.add(partial, &partial_bytes[..partial_bytes.len() - 32]),
        Err(TileError::Length {
            tile: *partial,
            expected: 44 * 32,
            found: 43 * 32
        })
    );
    short.add(partial, partial_bytes).unwrap();
    let mut wrong = upper_bytes.clone();
    wrong[31] ^= 1;
    assert_eq!(
        short.add(upper, &wrong),
        Err(TileError::Mismatch {
            tile: *upper,
            hash: 0
        })
    );
    short.add(upper, upper_bytes).unwrap();
    assert_eq!(short.finish().unwrap().root(300), tree.root(300));

    // Tiles of the tree at another size are not this size's tiles.
    assert_eq!(
        hash_tile(&tree, &TilePath::hashes(0, 1, 256).unwrap()),
        Err(TileError::BeyondTree {
            tile: TilePath::hashes(0, 1, 256).unwrap()
        })
    );
    let bundle = TilePath::entries(0, 256).unwrap();
    assert_eq!(
        hash_tile(&tree, &bundle),
        Err(TileError::NotHashes { tile: bundle })
    );
}
