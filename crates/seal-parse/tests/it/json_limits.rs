//! Size and depth limits: named errors, no stack overflow, and the bounded reordering fallback.

use seal_parse::json::{canonicalize, parse, JsonErrorKind, JsonLimits};

#[test]
fn defaults_are_documented_values() {
    let limits = JsonLimits::default();
    assert_eq!(limits.max_bytes, 16 * 1024 * 1024);
    assert_eq!(limits.max_depth, 128);
    assert_eq!(limits, JsonLimits::DEFAULT);
}

#[test]
fn hundred_thousand_open_brackets_give_the_depth_error() {
    for opener in [b'[', b'{'] {
        let input = if opener == b'[' {
            vec![b'['; 100_000]
        } else {
            b"{\"a\":".repeat(100_000)
        };
        for result in [
            parse(&input, &JsonLimits::default()).map(|_| ()),
            canonicalize(&input, &JsonLimits::default()).map(|_| ()),
        ] {
            let error = result.unwrap_err();
            assert_eq!(error.kind, JsonErrorKind::DepthExceeded { max: 128 });
            let step = if opener == b'[' { 1 } else { 5 };
            assert_eq!(error.offset, 128 * step);
        }
    }
}

#[test]
fn depth_limit_is_exact() {
    let mut limits = JsonLimits::default();
    limits.max_depth = 3;
    assert!(parse(b"[[[1]]]", &limits).is_ok());
    let error = parse(b"[[[[1]]]]", &limits).unwrap_err();
    assert_eq!(error.kind, JsonErrorKind::DepthExceeded { max: 3 });
    assert_eq!((error.offset, error.path.as_str()), (3, "$[0][0][0]"));
    limits.max_depth = 0;
    assert!(parse(b"17", &limits).is_ok());
    assert_eq!(
        parse(b"{}", &limits).unwrap_err().kind,
        JsonErrorKind::DepthExceeded { max: 0 }
    );
}

#[test]
fn a_large_depth_limit_is_safe_for_parsing() {
    let mut limits = JsonLimits::default();
    limits.max_depth = 1_000_000;
    let depth = 200_000;
    let mut input = vec![b'['; depth];
    input.extend(std::iter::repeat(b']').take(depth));
    // Parsing and writing are iterative; the streaming path never builds the tree.
    let canonical = canonicalize(&input, &limits).unwrap();
    assert_eq!(canonical.as_bytes(), &input[..]);
}

#[test]
fn size_limit_is_checked_before_reading() {
    let mut limits = JsonLimits::default();
    limits.max_bytes = 8;
    assert!(parse(b"[1,2,3]", &limits).is_ok());
    let error = parse(b"[1,2,3,4]", &limits).unwrap_err();
    assert_eq!(error.kind, JsonErrorKind::InputTooLarge { len: 9, max: 8 });
    assert_eq!(error.offset, 0);
    // Even input that is not UTF-8 gets the size error first.
    let error = parse(&[0xff; 9], &limits).unwrap_err();
    assert_eq!(error.kind.name(), "input_too_large");
}

/// Deeply nested unsorted objects around a large payload make the streaming writer move the
/// payload once per level; past its budget it falls back to the tree, with identical bytes.
#[test]
fn reordering_budget_falls_back_to_the_tree() {
    let payload = "x".repeat(100_000);
    let mut input = format!("\"{payload}\"");
    for _ in 0..100 {
        input = format!("{{\"b\":{input},\"a\":0}}");
    }
    let canonical = canonicalize(input.as_bytes(), &JsonLimits::default()).unwrap();
    let tree = parse(input.as_bytes(), &JsonLimits::default())
        .unwrap()
        .canonical_bytes();
    assert_eq!(canonical.as_bytes(), &tree[..]);
    assert!(canonical
        .as_bytes()
        .starts_with(b"{\"a\":0,\"b\":{\"a\":0,"));
}

#[test]
fn several_mebibytes_of_hostile_input_are_rejected_or_accepted_without_panic() {
    let cases: Vec<Vec<u8>> = vec![
        b"[".repeat(4 << 20),
        b"{\"a\":1,".repeat(600_000),
        [b"\"".as_slice(), &b"\\u".repeat(2 << 20)].concat(),
        b"[1e999999999999999999999999".to_vec(),
        [b"[".as_slice(), &b"9".repeat(4 << 20), b"]"].concat(),
        [b"[0.".as_slice(), &b"0".repeat(4 << 20), b"1]"].concat(),
    ];
    for input in cases {
        assert!(canonicalize(&input, &JsonLimits::default()).is_err());
    }
    // Four MiB of zeros after the point is a long but exact spelling of 0.
    let zeros = [b"[0.".as_slice(), &b"0".repeat(4 << 20), b"]"].concat();
    assert_eq!(
        canonicalize(&zeros, &JsonLimits::default())
            .unwrap()
            .as_bytes(),
        b"[0]"
    );
}
