//! The disclosure manifest: each builder rule with its named error, the strict JSON reader, path
//! canonicalization, and "one byte changed in any field changes the disclosure hash".

use proptest::prelude::*;
use proptest::test_runner::{TestError, TestRunner};
use seal_record::{
    canonical_path, LineRange, Manifest, ManifestBuilder, ManifestError, ManifestLimits, PathError,
    Sha256Digest, PURPOSE_MAX_CHARS,
};

fn d(tag: &str) -> Sha256Digest {
    Sha256Digest::of(tag.as_bytes())
}

fn range(start: u64, end: u64) -> LineRange {
    LineRange {
        start,
        end,
        sha256: d(&format!("{start}-{end}")),
    }
}

fn base() -> ManifestBuilder {
    Manifest::builder()
        .run_id("run-42")
        .provider("example-provider")
        .model("model-7")
        .purpose("summarize the parser module for review")
        .file("src/lib.rs", d("lib"), &[range(1, 20), range(30, 40)])
        .file("src/./json//mod.rs", d("mod"), &[range(5, 5)])
        .redaction("api-key", 2)
        .redaction("email", 1)
        .external_tool("web-search")
        .estimated_tokens(1800)
        .payload_sha256(d("payload"))
        .policy_sha256(d("policy"))
}

fn build(builder: ManifestBuilder) -> Result<Manifest, ManifestError> {
    builder.build(&ManifestLimits::default())
}

#[test]
fn a_valid_manifest() {
    let m = build(base()).unwrap();
    assert_eq!(m.files().len(), 2);
    assert_eq!(m.files()[0].path().as_str(), "src/json/mod.rs");
    assert_eq!(m.files()[1].path().as_str(), "src/lib.rs");
    assert_eq!(m.redactions()[0].kind(), "api-key");
    assert_eq!(m.disclosure_hash(), Sha256Digest::of(&m.canonical_bytes()));
}

#[test]
fn insertion_order_does_not_matter() {
    let a = build(base()).unwrap();
    let b = build(
        Manifest::builder()
            .policy_sha256(d("policy"))
            .payload_sha256(d("payload"))
            .estimated_tokens(1800)
            .external_tool("web-search")
            .redaction("email", 1)
            .redaction("api-key", 2)
            .file("src/json/mod.rs", d("mod"), &[range(5, 5)])
            .file("./src/lib.rs", d("lib"), &[range(1, 20), range(30, 40)])
            .purpose("summarize the parser module for review")
            .model("model-7")
            .provider("example-provider")
            .run_id("run-42"),
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.disclosure_hash(), b.disclosure_hash());
}

#[test]
fn missing_fields() {
    let cases: Vec<(&str, ManifestBuilder)> = vec![
        ("run_id", Manifest::builder()),
        ("provider", Manifest::builder().run_id("r")),
        ("model", Manifest::builder().run_id("r").provider("p")),
        (
            "purpose",
            Manifest::builder().run_id("r").provider("p").model("m"),
        ),
        (
            "estimated_tokens",
            Manifest::builder()
                .run_id("r")
                .provider("p")
                .model("m")
                .purpose("x"),
        ),
        (
            "payload_sha256",
            Manifest::builder()
                .run_id("r")
                .provider("p")
                .model("m")
                .purpose("x")
                .estimated_tokens(1),
        ),
        (
            "policy_sha256",
            Manifest::builder()
                .run_id("r")
                .provider("p")
                .model("m")
                .purpose("x")
                .estimated_tokens(1)
                .payload_sha256(d("p")),
        ),
    ];
    for (field, builder) in cases {
        assert_eq!(
            build(builder).unwrap_err(),
            ManifestError::MissingField {
                field: field.into()
            }
        );
    }
}

#[test]
fn purpose_rule() {
    let exactly = "é".repeat(PURPOSE_MAX_CHARS);
    assert!(
        build(base().purpose(&exactly)).is_ok(),
        "240 scalar values, 480 bytes"
    );
    let over = "a".repeat(PURPOSE_MAX_CHARS + 1);
    assert_eq!(
        build(base().purpose(&over)).unwrap_err(),
        ManifestError::TooLong {
            field: "purpose".into(),
            len: 241,
            max: 240
        }
    );
    for bad in [
        '\n',
        '\u{1b}',
        '\u{85}',
        '\u{202e}',
        '\u{2066}',
        '\u{200b}',
        '\u{feff}',
        '\u{e0069}',
    ] {
        assert_eq!(
            build(base().purpose(&format!("read {bad} this"))).unwrap_err(),
            ManifestError::ForbiddenCharacter {
                field: "purpose".into(),
                character: bad
            },
            "{bad:?}"
        );
    }
    assert_eq!(
        build(base().purpose("   ")).unwrap_err(),
        ManifestError::BlankField {
            field: "purpose".into()
        }
    );
}

#[test]
fn text_and_identifier_rules() {
    assert!(matches!(
        build(base().run_id("run 1")).unwrap_err(),
        ManifestError::InvalidIdentifier { .. }
    ));
    assert!(matches!(
        build(base().run_id("")).unwrap_err(),
        ManifestError::InvalidIdentifier { .. }
    ));
    assert!(matches!(
        build(base().run_id(&"r".repeat(257))).unwrap_err(),
        ManifestError::TooLong { .. }
    ));
    assert_eq!(
        build(base().model("")).unwrap_err(),
        ManifestError::BlankField {
            field: "model".into()
        }
    );
    assert!(matches!(
        build(base().provider("a\u{202e}b")).unwrap_err(),
        ManifestError::ForbiddenCharacter { .. }
    ));
}

#[test]
fn file_rules() {
    let err = |b: ManifestBuilder| build(b).unwrap_err();
    assert_eq!(
        err(base().file("../etc/passwd", d("x"), &[range(1, 1)])),
        ManifestError::InvalidPath {
            field: "files[2].path".into(),
            error: PathError::EscapesRoot {
                path: "../etc/passwd".into()
            }
        }
    );
    assert!(matches!(
        err(base().file("/etc/passwd", d("x"), &[range(1, 1)])),
        ManifestError::InvalidPath {
            error: PathError::Absolute { .. },
            ..
        }
    ));
    assert!(matches!(
        err(base().file("src\\lib.rs", d("x"), &[range(1, 1)])),
        ManifestError::InvalidPath {
            error: PathError::Backslash { .. },
            ..
        }
    ));
    assert_eq!(
        err(base().file("src//lib.rs", d("x"), &[range(1, 1)])),
        ManifestError::DuplicateFile {
            path: "src/lib.rs".into()
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[])),
        ManifestError::NoRanges {
            path: "a.rs".into()
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[range(0, 3)])),
        ManifestError::InvalidRange {
            path: "a.rs".into(),
            start: 0,
            end: 3
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[range(4, 3)])),
        ManifestError::InvalidRange {
            path: "a.rs".into(),
            start: 4,
            end: 3
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[range(1, (1 << 53) + 1)])),
        ManifestError::InvalidRange {
            path: "a.rs".into(),
            start: 1,
            end: (1 << 53) + 1
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[range(10, 12), range(2, 3)])),
        ManifestError::UnorderedRanges {
            path: "a.rs".into(),
            previous_start: 10,
            start: 2
        }
    );
    assert_eq!(
        err(base().file("a.rs", d("x"), &[range(1, 5), range(5, 8)])),
        ManifestError::OverlappingRanges {
            path: "a.rs".into(),
            previous_end: 5,
            start: 5
        }
    );
    assert!(build(base().file("a.rs", d("x"), &[range(1, 5), range(6, 8)])).is_ok());
}

#[test]
fn redaction_and_tool_rules() {
    let err = |b: ManifestBuilder| build(b).unwrap_err();
    assert_eq!(
        err(base().redaction("api-key", 3)),
        ManifestError::DuplicateRedaction {
            kind: "api-key".into()
        }
    );
    assert_eq!(
        err(base().redaction("token", 0)),
        ManifestError::ZeroRedactionCount {
            kind: "token".into()
        }
    );
    assert!(matches!(
        err(base().redaction("the secret value", 1)),
        ManifestError::InvalidIdentifier { .. }
    ));
    assert_eq!(
        err(base().external_tool("web-search")),
        ManifestError::DuplicateExternalTool {
            name: "web-search".into()
        }
    );
    assert_eq!(
        err(base().estimated_tokens((1 << 53) + 1)),
        ManifestError::NumberOutOfRange {
            field: "estimated_tokens".into(),
            value: (1 << 53) + 1
        }
    );
}

#[test]
fn limits_are_named() {
    let mut limits = ManifestLimits::default();
    limits.max_files = 1;
    limits.max_redactions = 1;
    assert_eq!(
        base().build(&limits).unwrap_err(),
        ManifestError::TooMany {
            field: "files".into(),
            count: 2,
            max: 1
        }
    );
    let mut limits = ManifestLimits::default();
    limits.max_ranges_per_file = 1;
    assert!(matches!(
        base().build(&limits).unwrap_err(),
        ManifestError::TooMany { .. }
    ));
    let mut limits = ManifestLimits::default();
    limits.max_external_tools = 0;
    assert!(matches!(
        base().build(&limits).unwrap_err(),
        ManifestError::TooMany { .. }
    ));
}

#[test]
fn json_round_trip() {
    let m = build(base()).unwrap();
    let bytes = m.canonical_bytes();
    let back = Manifest::from_json(&bytes, &ManifestLimits::default()).unwrap();
    assert_eq!(back, m);
    assert_eq!(back.disclosure_hash(), m.disclosure_hash());
    // Whitespace is allowed; the hash is over the canonical form.
    let pretty =
        serde_json::to_vec_pretty(&serde_json::from_slice::<serde_json::Value>(&bytes).unwrap())
            .unwrap();
    let back = Manifest::from_json(&pretty, &ManifestLimits::default()).unwrap();
    assert_eq!(back.disclosure_hash(), m.disclosure_hash());
}

fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> Result<Manifest, ManifestError> {
    let m = build(base()).unwrap();
    let mut value: serde_json::Value = serde_json::from_slice(&m.canonical_bytes()).unwrap();
    edit(&mut value);
    Manifest::from_json(
        &serde_json::to_vec(&value).unwrap(),
        &ManifestLimits::default(),
    )
}

#[test]
fn json_reader_is_strict() {
    use serde_json::json;
    assert_eq!(
        edited(|v| {
            v["extra"] = json!(1);
        })
        .unwrap_err(),
        ManifestError::UnknownField {
            field: "extra".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["files"][0]["mode"] = json!("r");
        })
        .unwrap_err(),
        ManifestError::UnknownField {
            field: "files[0].mode".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["files"][0]["ranges"][0]["text"] = json!("secret");
        })
        .unwrap_err(),
        ManifestError::UnknownField {
            field: "files[0].ranges[0].text".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["redactions"][0]["value"] = json!("sk-123");
        })
        .unwrap_err(),
        ManifestError::UnknownField {
            field: "redactions[0].value".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v.as_object_mut().unwrap().remove("policy_sha256");
        })
        .unwrap_err(),
        ManifestError::MissingField {
            field: "policy_sha256".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["_type"] = json!("seal/manifest/v2");
        })
        .unwrap_err(),
        ManifestError::WrongRecordType {
            found: "seal/manifest/v2".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["version"] = json!(2);
        })
        .unwrap_err(),
        ManifestError::UnsupportedVersion { found: "2".into() }
    );
    assert_eq!(
        edited(|v| {
            v["estimated_tokens"] = json!("12");
        })
        .unwrap_err(),
        ManifestError::WrongType {
            field: "estimated_tokens".into(),
            expected: "a non-negative integer"
        }
    );
    assert_eq!(
        edited(|v| {
            v["estimated_tokens"] = json!(-1);
        })
        .unwrap_err(),
        ManifestError::WrongType {
            field: "estimated_tokens".into(),
            expected: "a non-negative integer"
        }
    );
    assert_eq!(
        edited(|v| {
            v["estimated_tokens"] = json!(1.5);
        })
        .unwrap_err(),
        ManifestError::WrongType {
            field: "estimated_tokens".into(),
            expected: "a non-negative integer"
        }
    );
    let upper = d("payload").to_hex().to_uppercase();
    assert_eq!(
        edited(|v| {
            v["payload_sha256"] = json!(upper);
        })
        .unwrap_err(),
        ManifestError::InvalidDigest {
            field: "payload_sha256".into(),
            text: upper.clone()
        }
    );
    assert!(matches!(
        edited(|v| {
            v["files"][1]["ranges"][0]["sha256"] = json!("00");
        })
        .unwrap_err(),
        ManifestError::InvalidDigest { .. }
    ));
    assert_eq!(
        edited(|v| {
            v["files"][1]["path"] = json!("src/./lib.rs");
        })
        .unwrap_err(),
        ManifestError::NonCanonicalPath {
            path: "src/./lib.rs".into(),
            canonical: "src/lib.rs".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["files"].as_array_mut().unwrap().reverse();
        })
        .unwrap_err(),
        ManifestError::NotInCanonicalOrder {
            field: "files".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["redactions"].as_array_mut().unwrap().reverse();
        })
        .unwrap_err(),
        ManifestError::NotInCanonicalOrder {
            field: "redactions".into()
        }
    );
    assert_eq!(
        edited(|v| {
            v["external_tools"] = json!(["z", "a"]);
        })
        .unwrap_err(),
        ManifestError::NotInCanonicalOrder {
            field: "external_tools".into()
        }
    );
    // Builder rules are re-checked on read.
    assert_eq!(
        edited(|v| {
            v["purpose"] = json!("x".repeat(241));
        })
        .unwrap_err(),
        ManifestError::TooLong {
            field: "purpose".into(),
            len: 241,
            max: 240
        }
    );
    assert!(matches!(
        edited(|v| {
            v["files"][1]["ranges"] = json!([]);
        })
        .unwrap_err(),
        ManifestError::NoRanges { .. }
    ));
    assert!(matches!(
        edited(|v| {
            v["files"][0]["path"] = json!("../x");
        })
        .unwrap_err(),
        ManifestError::InvalidPath { .. }
    ));
    // Duplicate keys are never resolved silently.
    let m = build(base()).unwrap();
    let mut bytes = m.canonical_bytes();
    bytes.pop();
    bytes.extend_from_slice(br#","model":"other"}"#);
    assert!(matches!(
        Manifest::from_json(&bytes, &ManifestLimits::default()).unwrap_err(),
        ManifestError::Json(_)
    ));
}

/// A manifest seen as its fields, for "one byte changed in any field changes the hash".
#[derive(Debug, Clone)]
struct Spec {
    run_id: String,
    provider: String,
    model: String,
    purpose: String,
    path: String,
    file_sha: [u8; 32],
    start: u64,
    len: u64,
    range_sha: [u8; 32],
    redaction: String,
    count: u64,
    tool: String,
    tokens: u64,
    payload: [u8; 32],
    policy: [u8; 32],
}

fn spec_build(s: &Spec) -> Option<Manifest> {
    Manifest::builder()
        .run_id(&s.run_id)
        .provider(&s.provider)
        .model(&s.model)
        .purpose(&s.purpose)
        .file(
            &s.path,
            Sha256Digest::from_bytes(s.file_sha),
            &[LineRange {
                start: s.start,
                end: s.start + s.len,
                sha256: Sha256Digest::from_bytes(s.range_sha),
            }],
        )
        .redaction(&s.redaction, s.count)
        .external_tool(&s.tool)
        .estimated_tokens(s.tokens)
        .payload_sha256(Sha256Digest::from_bytes(s.payload))
        .policy_sha256(Sha256Digest::from_bytes(s.policy))
        .build(&ManifestLimits::default())
        .ok()
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z0-9_.-]{1,12}"
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (
            ident(),
            "[A-Za-z é]{1,12}",
            "[A-Za-z0-9 .-]{1,12}",
            "[a-z é\u{4e2d}]{1,40}",
        ),
        (
            "[a-z]{1,6}(/[a-z]{1,6}){0,2}",
            any::<[u8; 32]>(),
            1u64..1000,
            0u64..100,
            any::<[u8; 32]>(),
        ),
        (
            ident(),
            1u64..100,
            ident(),
            0u64..100_000,
            any::<[u8; 32]>(),
            any::<[u8; 32]>(),
        ),
    )
        .prop_map(
            |(
                (run_id, provider, model, purpose),
                (path, file_sha, start, len, range_sha),
                (redaction, count, tool, tokens, payload, policy),
            )| Spec {
                run_id,
                provider,
                model,
                purpose,
                path,
                file_sha,
                start,
                len,
                range_sha,
                redaction,
                count,
                tool,
                tokens,
                payload,
                policy,
            },
        )
}

fn bump_char(s: &mut String, at: usize) {
    let chars: Vec<char> = s.chars().collect();
    let i = at % chars.len();
    let c = chars[i];
    let replaced = if c == 'a' { 'b' } else { 'a' };
    *s = chars
        .iter()
        .enumerate()
        .map(|(j, &x)| if j == i { replaced } else { x })
        .collect();
}

/// Changes one field a little (one character, one bit, one unit).
fn mutate(s: &Spec, field: usize, at: usize) -> Spec {
    let mut t = s.clone();
    match field % 15 {
        0 => bump_char(&mut t.run_id, at),
        1 => bump_char(&mut t.provider, at),
        2 => bump_char(&mut t.model, at),
        3 => bump_char(&mut t.purpose, at),
        4 => bump_char(&mut t.path, at),
        5 => t.file_sha[at % 32] ^= 1 << (at % 8),
        6 => t.start += 1,
        7 => t.len += 1,
        8 => t.range_sha[at % 32] ^= 1 << (at % 8),
        9 => bump_char(&mut t.redaction, at),
        10 => t.count += 1,
        11 => bump_char(&mut t.tool, at),
        12 => t.tokens += 1,
        13 => t.payload[at % 32] ^= 1 << (at % 8),
        _ => t.policy[at % 32] ^= 1 << (at % 8),
    }
    t
}

fn hash_changes(
    hash: fn(&Manifest) -> Sha256Digest,
    (s, field, at): (Spec, usize, usize),
) -> Result<(), TestCaseError> {
    let t = mutate(&s, field, at);
    if let (Some(a), Some(b)) = (spec_build(&s), spec_build(&t)) {
        prop_assert_ne!(
            hash(&a),
            hash(&b),
            "field {} changed, hash did not",
            field % 15
        );
    }
    Ok(())
}

fn runner() -> TestRunner {
    seal_test_support::seeded(1024)
}

#[test]
fn one_change_in_any_field_changes_the_disclosure_hash() {
    runner()
        .run(&(spec(), any::<usize>(), any::<usize>()), |case| {
            hash_changes(Manifest::disclosure_hash, case)
        })
        .unwrap();
}

/// Negative control: a hash that forgets the ranges' digests (hashing the manifest without them)
/// must be caught by the same property.
fn hash_without_range_digests(m: &Manifest) -> Sha256Digest {
    let mut value: serde_json::Value = serde_json::from_slice(&m.canonical_bytes()).unwrap();
    for file in value["files"].as_array_mut().unwrap() {
        for range in file["ranges"].as_array_mut().unwrap() {
            range.as_object_mut().unwrap().remove("sha256");
        }
    }
    Sha256Digest::of(&serde_json::to_vec(&value).unwrap())
}

#[test]
fn negative_control_hash_missing_a_field_is_caught() {
    let result = runner().run(&(spec(), any::<usize>(), any::<usize>()), |case| {
        hash_changes(hash_without_range_digests, case)
    });
    match result {
        Err(TestError::Fail(_, (_, field, _))) => assert_eq!(field % 15, 8),
        other => panic!("a hash blind to range digests was not caught: {other:?}"),
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(512))]

    #[test]
    fn json_round_trips(s in spec()) {
        if let Some(m) = spec_build(&s) {
            let back = Manifest::from_json(&m.canonical_bytes(), &ManifestLimits::default()).unwrap();
            prop_assert_eq!(back, m);
        }
    }

    #[test]
    fn canonical_path_is_idempotent_and_clean(path in "(\\.{1,3}|[a-z]{1,3}|)(/(\\.{1,3}|[a-z]{1,3}|)){0,6}") {
        if let Ok(p) = canonical_path(&path) {
            let again = canonical_path(p.as_str()).unwrap();
            prop_assert_eq!(&again, &p);
            for segment in p.as_str().split('/') {
                prop_assert!(!segment.is_empty() && segment != "." && segment != "..");
            }
            // Inserting `./` or doubling a slash never changes the place.
            let dotted = p.as_str().replace('/', "/./");
            prop_assert_eq!(canonical_path(&dotted).unwrap(), p.clone());
            let doubled = p.as_str().replace('/', "//");
            prop_assert_eq!(canonical_path(&doubled).unwrap(), p);
        }
    }
}

#[test]
fn lookup_by_canonical_path() {
    let m = build(base()).unwrap();
    let path = canonical_path("src//json/./mod.rs").unwrap();
    assert_eq!(m.file(&path).unwrap().sha256(), d("mod"));
    assert!(m.file(&canonical_path("src/json").unwrap()).is_none());
}
