//! I4: every signing input is injective. Pairs of near-colliding inputs (a character moved
//! between adjacent fields, an attribute split in two, one field changed) must give distinct
//! bytes. The same property run against plain concatenation of the fields must find a collision.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestError, TestRunner};
use seal_record::{pae, unpae, FooterSigningInput, FrameSigningInput};

#[derive(Debug, Clone, PartialEq, Eq)]
struct Fields {
    key_id: String,
    algorithm: String,
    tag_len: usize,
    element: String,
    attributes: Vec<(String, String)>,
    body: Vec<u8>,
}

type Encoder = fn(&Fields) -> Option<Vec<u8>>;

fn frame_input(f: &Fields) -> Option<Vec<u8>> {
    let attributes: Vec<(&str, &str)> = f
        .attributes
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    FrameSigningInput::new(
        &f.key_id,
        &f.algorithm,
        f.tag_len,
        &f.element,
        &attributes,
        &f.body,
    )
    .ok()
    .map(|input| input.bytes().to_vec())
}

fn footer_input(f: &Fields) -> Option<Vec<u8>> {
    // The footer has no element: fold it into the key id position's neighbour so the same
    // generator exercises it.
    let attributes: Vec<(&str, &str)> = f
        .attributes
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    FooterSigningInput::new(&f.key_id, &f.algorithm, f.tag_len, &attributes, &f.body)
        .ok()
        .map(|input| {
            let mut bytes = input.bytes().to_vec();
            // Keep the element in the comparison so pairs differing only there stay distinct.
            bytes.extend_from_slice(&pae(&[f.element.as_bytes()]));
            bytes
        })
}

/// The broken implementation: the fields concatenated with no lengths.
fn concatenation(f: &Fields) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    out.extend_from_slice(b"seal/frame/v1");
    out.extend_from_slice(f.key_id.as_bytes());
    out.extend_from_slice(f.algorithm.as_bytes());
    out.extend_from_slice(f.tag_len.to_string().as_bytes());
    out.extend_from_slice(f.element.as_bytes());
    for (name, value) in &f.attributes {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(value.as_bytes());
    }
    out.extend_from_slice(&f.body);
    Some(out)
}

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range('a', 'z'),
        1 => prop::char::range('0', '9'),
        2 => prop::sample::select(vec![
            '\0', '\n', '\r', '\t', '"', '<', '>', '\\', '=', ' ', '-', '_', '\u{7f}', '\u{85}',
            '\u{200b}', '\u{202e}', '\u{2066}', '\u{feff}', '\u{e0041}', '\u{fe0f}', '\u{d7ff}',
            '\u{e000}', '\u{ff1c}', 'é', '\u{1f600}',
        ]),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_char(), 0..max).prop_map(|chars| chars.into_iter().collect())
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        text(6).prop_map(|s| format!("k{s}")),
        text(6).prop_map(|s| format!("{s}a")),
        prop_oneof![Just(5usize), Just(22), 1usize..200],
        "[a-z][a-z0-9-]{0,6}",
        prop::collection::vec(("[a-z][a-z0-9_-]{0,4}", text(6)), 0..4),
        prop::collection::vec(any::<u8>(), 0..12),
    )
        .prop_map(|(key_id, algorithm, tag_len, element, attributes, body)| {
            let mut seen = Vec::new();
            let attributes = attributes
                .into_iter()
                .filter(|(name, _)| {
                    let keep = name != "sig" && !seen.contains(name);
                    seen.push(name.clone());
                    keep
                })
                .collect();
            Fields {
                key_id,
                algorithm,
                tag_len,
                element,
                attributes,
                body,
            }
        })
}

fn pop_char(s: &mut String) -> Option<char> {
    s.pop()
}

fn push_front(s: &mut String, c: char) {
    s.insert(0, c);
}

/// A near-colliding neighbour of `f`: the same concatenated content, fields cut differently.
fn neighbour(f: &Fields, how: usize, pick: usize) -> Fields {
    let mut g = f.clone();
    match how % 9 {
        0 => {
            if let Some(c) = pop_char(&mut g.key_id) {
                push_front(&mut g.algorithm, c);
            }
        }
        1 => {
            if !g.algorithm.is_empty() {
                let c = g.algorithm.remove(0);
                g.key_id.push(c);
            }
        }
        2 => {
            if let Some(c) = pop_char(&mut g.algorithm) {
                push_front(&mut g.element, c);
            }
        }
        3 => {
            if !g.attributes.is_empty() {
                let i = pick % g.attributes.len();
                let (name, value) = &mut g.attributes[i];
                if let Some(c) = name.pop() {
                    value.insert(0, c);
                }
            }
        }
        4 => {
            if g.attributes.len() >= 2 {
                let i = pick % (g.attributes.len() - 1);
                if let Some(c) = g.attributes[i].1.pop() {
                    g.attributes[i + 1].0.insert(0, c);
                }
            }
        }
        5 => {
            if let Some((_, value)) = g.attributes.last_mut() {
                if let Some(c) = value.pop() {
                    let mut bytes = c.to_string().into_bytes();
                    bytes.extend_from_slice(&g.body);
                    g.body = bytes;
                }
            } else if let Some(c) = g.element.pop() {
                let mut bytes = c.to_string().into_bytes();
                bytes.extend_from_slice(&g.body);
                g.body = bytes;
            }
        }
        6 => {
            // Merge two adjacent attributes into one: (n1, v1), (n2, v2) -> (n1, v1 n2 v2).
            if g.attributes.len() >= 2 {
                let i = pick % (g.attributes.len() - 1);
                let (n2, v2) = g.attributes.remove(i + 1);
                g.attributes[i].1.push_str(&n2);
                g.attributes[i].1.push_str(&v2);
            }
        }
        7 => {
            // Move the last digit of the key id into the tag length, or the reverse.
            let digits = g.tag_len.to_string();
            g.key_id.push_str(&digits[..1]);
            g.tag_len = digits[1..].parse().unwrap_or(0);
        }
        _ => {
            if g.body.pop().is_none() {
                g.body.push(pick as u8);
            }
        }
    }
    g
}

fn injective_property(
    encode: Encoder,
    (f, how, pick): (Fields, usize, usize),
) -> Result<(), TestCaseError> {
    let g = neighbour(&f, how, pick);
    if f == g {
        return Ok(());
    }
    if let (Some(a), Some(b)) = (encode(&f), encode(&g)) {
        prop_assert_ne!(a, b, "distinct inputs {:?} and {:?} collide", f, g);
    }
    Ok(())
}

fn pairs() -> impl Strategy<Value = (Fields, usize, usize)> {
    (fields(), any::<usize>(), any::<usize>())
}

fn runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

#[test]
fn frame_signing_input_is_injective() {
    runner(2048)
        .run(&pairs(), |pair| injective_property(frame_input, pair))
        .unwrap();
}

#[test]
fn footer_signing_input_is_injective() {
    runner(1024)
        .run(&pairs(), |pair| injective_property(footer_input, pair))
        .unwrap();
}

#[test]
fn negative_control_concatenation_collides() {
    let result = runner(2048).run(&pairs(), |pair| injective_property(concatenation, pair));
    match result {
        Err(TestError::Fail(_, (f, how, pick))) => {
            let g = neighbour(&f, how, pick);
            assert_ne!(f, g);
            assert_eq!(concatenation(&f), concatenation(&g));
            // The real encoding tells the same pair apart.
            if let (Some(a), Some(b)) = (frame_input(&f), frame_input(&g)) {
                assert_ne!(a, b);
            }
        }
        other => panic!("plain concatenation was not caught: {other:?}"),
    }
}

#[test]
fn some_pairs_are_valid_for_both() {
    // The property is not vacuous: most neighbours are valid inputs.
    let mut runner = runner(1);
    let mut both = 0;
    for _ in 0..500 {
        let (f, how, pick) = pairs().new_tree(&mut runner).unwrap().current();
        let g = neighbour(&f, how, pick);
        if f != g && frame_input(&f).is_some() && frame_input(&g).is_some() {
            both += 1;
        }
    }
    assert!(
        both > 250,
        "only {both} of 500 pairs were valid and distinct"
    );
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn unpae_inverts_pae(pieces in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 0..6)) {
        let refs: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
        let bytes = pae(&refs);
        prop_assert_eq!(unpae(&bytes), Some(refs));
    }

    #[test]
    fn frame_pieces_read_back(f in fields()) {
        if let Some(bytes) = frame_input(&f) {
            let pieces = unpae(&bytes).unwrap();
            prop_assert_eq!(pieces.len(), 7);
            prop_assert_eq!(pieces[1], f.key_id.as_bytes());
            prop_assert_eq!(pieces[2], f.algorithm.as_bytes());
            prop_assert_eq!(pieces[4], f.element.as_bytes());
            let pairs = unpae(pieces[5]).unwrap();
            prop_assert_eq!(pairs.len(), f.attributes.len());
            for (pair, (name, value)) in pairs.iter().zip(&f.attributes) {
                prop_assert_eq!(unpae(pair).unwrap(), vec![name.as_bytes(), value.as_bytes()]);
            }
        }
    }
}
