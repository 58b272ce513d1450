//! `seal keygen`: a new trust store (a store-update root key, an HMAC frame key and optionally an
//! Ed25519 approver key) and the secret key file that goes with it.

use ring::rand::{SecureRandom, SystemRandom};
use seal::base64url;
use seal::store_document::{MAX_TAG_CHARS, MIN_TAG_CHARS, STORE_DOCUMENT_TYPE};
use seal::UnixTime;
use seal::{sign_store_document, ApproverKey, FrameKey, COMPACT_TAG_CHARS};

use crate::cli::KeygenArgs;
use crate::failure::{Exit, Failure};
use crate::io::{check_absent, now, write_atomic};
use crate::json_out::J;
use crate::keys::{key_file_json, Secret64};

/// Default validity of a new store and its keys, in days.
pub const DEFAULT_DAYS: u64 = 365;

/// Most days a new store may be valid for (ten years).
pub const MAX_DAYS: u64 = 3650;

/// Runs `seal keygen`.
pub fn run(args: &KeygenArgs) -> Result<u8, Failure> {
    let store_path = args.store.as_str();
    let keys_path = args.keys.as_str();
    check_absent(store_path, args.force)?;
    check_absent(keys_path, args.force)?;
    let now = now(args.now.as_deref())?;
    let days = args.days;
    let tag_chars = if args.compact {
        COMPACT_TAG_CHARS
    } else {
        args.tag_chars
    };
    if !args.compact && !(MIN_TAG_CHARS..=MAX_TAG_CHARS).contains(&tag_chars) {
        return Err(Failure::usage(format!(
            "`--tag-chars` wants {MIN_TAG_CHARS} to {MAX_TAG_CHARS}, not `{tag_chars}`"
        )));
    }
    let element = args.element.as_str();
    let sources: Vec<&str> = args.source.iter().map(String::as_str).collect();
    let root_id = args.root_key_id.as_str();
    let frame_id = args.frame_key_id.as_str();
    let approver_id = args.approver.then_some(args.approver_key_id.as_str());

    let random = SystemRandom::new();
    let root_seed = random_bytes(&random)?;
    let frame_secret = random_bytes(&random)?;
    let approver_seed = random_bytes(&random)?;
    let spec = StoreSpec {
        now,
        days,
        element,
        sources: &sources,
        tag_chars,
        root: (root_id, &root_seed),
        frame: (frame_id, &frame_secret),
        approver: approver_id.map(|id| (id, approver_seed.as_slice())),
    };
    let envelope = build_store(&spec)?;
    let mut secrets = vec![
        (
            root_id,
            Secret64::Ed25519 {
                seed: base64url::encode(&root_seed),
            },
        ),
        (
            frame_id,
            Secret64::Hmac {
                secret: base64url::encode(&frame_secret),
                tag_chars,
            },
        ),
    ];
    if let Some(id) = approver_id {
        secrets.push((
            id,
            Secret64::Ed25519 {
                seed: base64url::encode(&approver_seed),
            },
        ));
    }
    write_atomic(keys_path, key_file_json(&secrets).as_bytes(), Some(0o600))?;
    write_atomic(store_path, &envelope, Some(0o644))?;
    outln!("wrote trust store {store_path} and secret key file {keys_path} (mode 0600)");
    outln!("frame key {frame_id}: hmac-sha256, {tag_chars} characters, element {element}");
    outln!("store key {root_id}: ed25519, signs store updates");
    if let Some(id) = approver_id {
        outln!("approver key {id}: ed25519, approves manifests");
    }
    outln!(
        "valid until {} ({days} days)",
        now.seconds().saturating_add(days * 86_400)
    );
    Ok(Exit::Ok.code())
}

/// What a new store holds.
pub struct StoreSpec<'a> {
    /// Issue time.
    pub now: UnixTime,
    /// Validity in days.
    pub days: u64,
    /// The frame element the frame key may sign.
    pub element: &'a str,
    /// Allowed `source` values (none: any source).
    pub sources: &'a [&'a str],
    /// Tag length of the frame key, in characters.
    pub tag_chars: u8,
    /// The store-update key: id and 32-byte seed.
    pub root: (&'a str, &'a [u8]),
    /// The frame key: id and secret.
    pub frame: (&'a str, &'a [u8]),
    /// The approver key, if any: id and seed.
    pub approver: Option<(&'a str, &'a [u8])>,
}

/// The signed store envelope for `spec`, signed by the root key with the facade's
/// [`sign_store_document`], which parses the document with the strict store parser first (so
/// what is written is what `scan` will read).
pub fn build_store(spec: &StoreSpec<'_>) -> Result<Vec<u8>, Failure> {
    let not_after = spec
        .now
        .seconds()
        .saturating_add(spec.days.saturating_mul(86_400));
    let root = ApproverKey::from_seed(spec.root.1)
        .map_err(|error| Failure::new(Exit::Internal, format!("root key: {error}")))?;
    let frame_key = FrameKey::from_secret(spec.frame.1)
        .map_err(|error| Failure::new(Exit::Internal, format!("frame key: {error}")))?;
    let window = |entry: Vec<(&'static str, J)>| {
        let mut entry = entry;
        entry.push(("not_before", J::Num(spec.now.seconds())));
        entry.push(("not_after", J::Num(not_after)));
        entry.push(("status", J::str("active")));
        entry
    };
    let scopes = |frames: Vec<J>, approval: bool, update: bool| {
        J::Obj(vec![
            ("frames", J::Arr(frames)),
            ("manifest_approval", J::Bool(approval)),
            ("store_update", J::Bool(update)),
        ])
    };
    let attributes = if spec.sources.is_empty() {
        J::Obj(vec![])
    } else {
        J::Obj(vec![(
            "source",
            J::Arr(spec.sources.iter().map(|source| J::str(*source)).collect()),
        )])
    };
    let mut root_entry = window(vec![
        ("id", J::str(spec.root.0)),
        ("algorithm", J::str("ed25519")),
        ("public_key", J::str(root.public_key())),
    ]);
    root_entry.push(("scopes", scopes(vec![], false, true)));
    let mut frame_entry = window(vec![
        ("id", J::str(spec.frame.0)),
        ("algorithm", J::str("hmac-sha256")),
        ("secret_sha256", J::str(frame_key.secret_sha256())),
        ("tag_chars", J::Num(u64::from(spec.tag_chars))),
    ]);
    frame_entry.push((
        "scopes",
        scopes(
            vec![J::Obj(vec![
                ("element", J::str(spec.element)),
                ("attributes", attributes),
            ])],
            false,
            false,
        ),
    ));
    let mut keys = vec![J::Obj(root_entry), J::Obj(frame_entry)];
    if let Some((id, seed)) = spec.approver {
        let approver = ApproverKey::from_seed(seed)
            .map_err(|error| Failure::new(Exit::Internal, format!("approver key: {error}")))?;
        let mut entry = window(vec![
            ("id", J::str(id)),
            ("algorithm", J::str("ed25519")),
            ("public_key", J::str(approver.public_key())),
        ]);
        entry.push(("scopes", scopes(vec![], true, false)));
        keys.push(J::Obj(entry));
    }
    let document = J::Obj(vec![
        ("type", J::str(STORE_DOCUMENT_TYPE)),
        ("version", J::Num(1)),
        ("expires", J::Num(not_after)),
        ("threshold", J::Num(1)),
        ("keys", J::Arr(keys)),
    ])
    .to_text();
    let mut envelope = sign_store_document(document.as_bytes(), &[(spec.root.0, &root)])
        .map_err(|error| Failure::usage(format!("the store asked for is refused: {error}")))?;
    envelope.push(b'\n');
    Ok(envelope)
}

fn random_bytes(random: &SystemRandom) -> Result<[u8; 32], Failure> {
    let mut bytes = [0u8; 32];
    random
        .fill(&mut bytes)
        .map_err(|_| Failure::new(Exit::Internal, "the system random generator failed"))?;
    Ok(bytes)
}
