//! Log keys and signed checkpoints (spec/audit-log.md, "Keys, notes and checkpoints"): the
//! round trip, the golden vectors spec/vectors/log-checkpoints.json (a fixed-seed key's
//! verifier key and signed checkpoints, each with its negative twins and the exact error that
//! refuses it), and a check of the same notes and keys by `signed_note`, an independent
//! implementation of C2SP signed-note (a dev-dependency only).
//!
//! Run with `SEAL_REGENERATE=1` to rewrite the vectors after an intended change, then review
//! the diff.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use seal_record::tlog::{
    empty_root, key_id, leaf_hash, Checkpoint, MerkleHash, Tree, ED25519_KEY_TYPE,
};
use seal_test_support::{check_json_or_regenerate, golden_text, spec_vector};
use seal_verify::{
    open_checkpoint, Ed25519SigningKey, LogKeyError, LogSigningKey, LogVerifierKey,
    SignedCheckpointError,
};
use serde_json::{json, Value};
use signed_note::{StandardVerifier, Verifier as _, VerifierList};

const VECTORS: &str = "log-checkpoints.json";

/// The log's name: the key name and the origin of its checkpoints.
pub const LOG: &str = "seal.example/decisions";

/// Another log's name.
const OTHER: &str = "other.example/log";

/// The fixed seed of the log key: bytes 0 to 31.
pub fn log_seed() -> Vec<u8> {
    (0u8..32).collect()
}

/// The keys of the vectors, by label: the log key, another log's key, and a second key under
/// the log's own name (a rotation, or an impostor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Log,
    Other,
    SameName,
}

impl Label {
    const ALL: [Label; 3] = [Label::Log, Label::Other, Label::SameName];

    fn text(self) -> &'static str {
        match self {
            Label::Log => "log",
            Label::Other => "other",
            Label::SameName => "same_name",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Label::Log | Label::SameName => LOG,
            Label::Other => OTHER,
        }
    }

    fn seed(self) -> Vec<u8> {
        match self {
            Label::Log => log_seed(),
            Label::Other => vec![0x11; 32],
            Label::SameName => vec![0x22; 32],
        }
    }

    fn signing(self) -> LogSigningKey {
        LogSigningKey::from_seed(self.name(), &self.seed()).unwrap()
    }

    fn raw(self) -> Ed25519SigningKey {
        Ed25519SigningKey::from_seed(&self.seed()).unwrap()
    }

    fn verifier(self) -> LogVerifierKey {
        self.signing().verifier_key()
    }

    fn key_id(self) -> [u8; 4] {
        self.signing().key_id()
    }
}

/// The log key.
pub fn log_key() -> LogSigningKey {
    Label::Log.signing()
}

/// The root of a tree of `size` leaves `decision <i>`.
pub fn root_of(size: u64) -> MerkleHash {
    let mut tree = Tree::new();
    for i in 0..size {
        tree.push(leaf_hash(format!("decision {i}").as_bytes()));
    }
    tree.root(size).unwrap()
}

/// The checkpoint body of the log at `size`.
pub fn body(size: u64) -> String {
    Checkpoint::new(LOG, size, root_of(size)).unwrap().to_text()
}

/// One signature line: key name, key id and signature bytes.
struct Line {
    name: String,
    key_id: [u8; 4],
    signature: Vec<u8>,
}

impl Line {
    /// The line of `label`'s key over `text`, as its signer writes it.
    fn by(label: Label, text: &str) -> Line {
        Line {
            name: label.name().to_owned(),
            key_id: label.key_id(),
            signature: label.raw().sign(text.as_bytes()).as_bytes().to_vec(),
        }
    }

    fn render(&self, dash: &str) -> String {
        let mut bytes = self.key_id.to_vec();
        bytes.extend_from_slice(&self.signature);
        format!("{dash} {} {}\n", self.name, STANDARD.encode(bytes))
    }
}

/// A note assembled by hand (so that it may break the grammar): `text`, a blank line and the
/// lines.
fn assemble(text: &str, lines: &[Line]) -> String {
    let mut note = format!("{text}\n");
    for line in lines {
        note.push_str(&line.render("\u{2014}"));
    }
    note
}

/// The note `label`'s key writes over `text` (which need not be a valid checkpoint).
fn signed_by(label: Label, text: &str) -> String {
    assemble(text, &[Line::by(label, text)])
}

/// What a vector case expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Opened, signed by this key.
    Opens(Label),
    /// Refused with the error of this name.
    Refused(&'static str),
}

/// What `signed_note` makes of the same note and keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Independent {
    /// It agrees: it accepts what seal opens and refuses what seal refuses.
    Agrees,
    /// It accepts the note, because what seal refuses is a checkpoint rule above the note
    /// grammar, or a rule seal adds (one signature per known key).
    AcceptsNote,
    /// Not compared (the key set is one `signed_note` cannot express the same way).
    NotCompared,
}

struct Case {
    desc: &'static str,
    keys: Vec<Label>,
    note: String,
    expect: Expect,
    independent: Independent,
}

fn case(
    desc: &'static str,
    keys: &[Label],
    note: String,
    expect: Expect,
    independent: Independent,
) -> Case {
    Case {
        desc,
        keys: keys.to_vec(),
        note,
        expect,
        independent,
    }
}

/// Flips bit 0 of the signature byte at `index` (0 is the first byte after the key id) of the
/// only signature line.
fn flip_signature_bit(text: &str, label: Label, index: usize) -> String {
    let mut line = Line::by(label, text);
    line.signature[index] ^= 1;
    assemble(text, &[line])
}

fn cases() -> Vec<Case> {
    use Expect::{Opens, Refused};
    use Independent::{AcceptsNote, Agrees, NotCompared};
    use Label::{Log, Other, SameName};

    let text = body(7);
    let good = signed_by(Log, &text);
    let root7 = STANDARD.encode(root_of(7).as_bytes());
    let root8 = STANDARD.encode(root_of(8).as_bytes());
    let sixteen_unknown: Vec<Line> = (0u8..16)
        .map(|i| Line {
            name: format!("witness-{i}.example"),
            key_id: [i, 1, 2, 3],
            signature: vec![i; 64],
        })
        .collect();
    let mut seventeen = sixteen_unknown;
    seventeen.push(Line::by(Log, &text));
    let impostor = Line {
        name: LOG.to_owned(),
        key_id: Log.key_id(),
        signature: SameName.raw().sign(text.as_bytes()).as_bytes().to_vec(),
    };
    let with_extension = format!("{text}extension: seal writes none\n");
    let leading_zero = text.replacen("\n7\n", "\n07\n", 1);
    let control = text.replacen("decisions", "deci\u{1b}sions", 1);
    let origin_newline = text.replacen(LOG, &format!("{LOG}\nevil"), 1);

    vec![
        case("valid", &[Log], good.clone(), Opens(Log), Agrees),
        case(
            "valid: empty log",
            &[Log],
            signed_by(
                Log,
                &Checkpoint::new(LOG, 0, empty_root()).unwrap().to_text(),
            ),
            Opens(Log),
            Agrees,
        ),
        case(
            "valid: one of several known keys",
            &[Other, Log],
            good.clone(),
            Opens(Log),
            Agrees,
        ),
        case(
            "changed size",
            &[Log],
            good.replacen("\n7\n", "\n8\n", 1),
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "changed root",
            &[Log],
            good.replacen(&root7, &root8, 1),
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "changed origin",
            &[Log],
            good.replacen(LOG, "seal.example/decision", 1),
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "signature bit flip",
            &[Log],
            flip_signature_bit(&text, Log, 10),
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "signature of 63 bytes",
            &[Log],
            {
                let mut line = Line::by(Log, &text);
                line.signature.pop();
                assemble(&text, &[line])
            },
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "key id bit flip: no known key",
            &[Log],
            {
                let mut line = Line::by(Log, &text);
                line.key_id[3] ^= 1;
                assemble(&text, &[line])
            },
            Refused("no_known_signature"),
            Agrees,
        ),
        case(
            "unknown key only",
            &[Log],
            signed_by(Other, &text.replacen(LOG, OTHER, 1)),
            Refused("no_known_signature"),
            Agrees,
        ),
        case(
            "duplicate signature line of the known key",
            &[Log],
            assemble(&text, &[Line::by(Log, &text), Line::by(Log, &text)]),
            Refused("duplicate_signature"),
            AcceptsNote,
        ),
        case(
            "same name, colliding key id, another key's signature",
            &[Log],
            assemble(&text, &[impostor]),
            Refused("bad_signature"),
            Agrees,
        ),
        case(
            "same name, colliding key id, after a good line",
            &[Log],
            assemble(
                &text,
                &[
                    Line::by(Log, &text),
                    Line {
                        name: LOG.to_owned(),
                        key_id: Log.key_id(),
                        signature: SameName.raw().sign(text.as_bytes()).as_bytes().to_vec(),
                    },
                ],
            ),
            Refused("duplicate_signature"),
            AcceptsNote,
        ),
        case(
            "same name, its own key id, unknown: ignored",
            &[Log],
            signed_by(SameName, &text),
            Refused("no_known_signature"),
            Agrees,
        ),
        case(
            "same name, its own key id, unknown: ignored beside a good line",
            &[Log],
            assemble(&text, &[Line::by(SameName, &text), Line::by(Log, &text)]),
            Opens(Log),
            Agrees,
        ),
        case(
            "same name, its own key id, known too (rotation)",
            &[Log, SameName],
            signed_by(SameName, &text),
            Opens(SameName),
            Agrees,
        ),
        case(
            "16 unknown signatures then a good one",
            &[Log],
            assemble(&text, &seventeen),
            Opens(Log),
            Agrees,
        ),
        case(
            "origin is not the key name",
            &[Log, Other],
            signed_by(Other, &text),
            Refused("origin_mismatch"),
            AcceptsNote,
        ),
        case(
            "extension line",
            &[Log],
            signed_by(Log, &with_extension),
            Refused("extension_lines"),
            AcceptsNote,
        ),
        case(
            "leading-zero size",
            &[Log],
            signed_by(Log, &leading_zero),
            Refused("body"),
            AcceptsNote,
        ),
        case(
            "origin containing a newline",
            &[Log],
            signed_by(Log, &origin_newline),
            Refused("body"),
            AcceptsNote,
        ),
        case(
            "control character",
            &[Log],
            signed_by(Log, &control),
            Refused("note"),
            Agrees,
        ),
        case(
            "CRLF line endings",
            &[Log],
            good.replace('\n', "\r\n"),
            Refused("note"),
            Agrees,
        ),
        case(
            "ASCII hyphen instead of the em dash",
            &[Log],
            format!("{text}\n{}", Line::by(Log, &text).render("-")),
            Refused("note"),
            Agrees,
        ),
        case(
            "missing blank line",
            &[Log],
            good.replacen("\n\n", "\n", 1),
            Refused("note"),
            Agrees,
        ),
        case(
            "no signature line",
            &[Log],
            format!("{text}\n"),
            Refused("note"),
            Agrees,
        ),
        case(
            "no verifier key",
            &[],
            good.clone(),
            Refused("no_verifier_key"),
            NotCompared,
        ),
        case(
            "the same verifier key twice",
            &[Log, Log],
            good,
            Refused("ambiguous_verifier_keys"),
            NotCompared,
        ),
    ]
}

fn verifiers(labels: &[Label]) -> Vec<LogVerifierKey> {
    labels.iter().map(|label| label.verifier()).collect()
}

/// Opens a case's note and checks the outcome it expects; returns the vector entry's outcome.
fn outcome(case: &Case) -> Value {
    let opened = open_checkpoint(&case.note, &verifiers(&case.keys));
    match (case.expect, opened) {
        (Expect::Opens(label), Ok(verified)) => {
            assert_eq!(verified.key_name(), label.name(), "{}", case.desc);
            assert_eq!(verified.key_id(), label.key_id(), "{}", case.desc);
            let checkpoint = verified.checkpoint();
            json!({
                "origin": checkpoint.origin(),
                "size": checkpoint.size(),
                "root": STANDARD.encode(checkpoint.root().as_bytes()),
                "key": label.text(),
            })
        }
        (Expect::Refused(name), Err(error)) => {
            assert_eq!(error.name(), name, "{}: {error}", case.desc);
            json!({ "error": error.name(), "message": error.to_string() })
        }
        (expect, got) => panic!("{}: expected {expect:?}, got {got:?}", case.desc),
    }
}

/// Verifier key texts and the error each is refused with (`None`: accepted).
fn vkey_cases() -> Vec<(&'static str, String, Option<&'static str>)> {
    let good = log_key().verifier_key().to_text();
    let (name, rest) = good.split_once('+').unwrap();
    let (id, key) = rest.split_once('+').unwrap();
    let typed = STANDARD.decode(key).unwrap();
    let reencode = |bytes: &[u8]| {
        let stated = key_id(name, bytes);
        format!("{name}+{}+{}", hex::encode(stated), STANDARD.encode(bytes))
    };
    let mut wrong_type = typed.clone();
    wrong_type[0] = 0x02;
    vec![
        ("valid", good.clone(), None),
        ("other key", Label::Other.verifier().to_text(), None),
        ("empty name", format!("+{id}+{key}"), Some("name")),
        (
            "name with a space",
            format!("seal log+{id}+{key}"),
            Some("name"),
        ),
        ("two parts", format!("{name}+{id}"), Some("form")),
        ("no separator", name.to_owned(), Some("form")),
        (
            "uppercase key id",
            format!("{name}+{}+{key}", id.to_uppercase()),
            Some("key_id_form"),
        ),
        (
            "seven-digit key id",
            format!("{name}+{}+{key}", &id[1..]),
            Some("key_id_form"),
        ),
        (
            "empty key id",
            format!("{name}++{key}"),
            Some("key_id_form"),
        ),
        (
            "wrong key id",
            format!("{name}+{}+{key}", hex::encode(key_id(OTHER, &typed))),
            Some("key_id_mismatch"),
        ),
        (
            "key id of another name",
            format!("{OTHER}+{id}+{key}"),
            Some("key_id_mismatch"),
        ),
        // 33 bytes are 44 base64 characters without padding or spare bits.
        ("padding appended", format!("{good}="), Some("key_encoding")),
        (
            "last character dropped",
            good[..good.len() - 1].to_owned(),
            Some("key_encoding"),
        ),
        (
            "a space in the key",
            format!("{name}+{id}+{} {}", &key[..20], &key[20..]),
            Some("key_encoding"),
        ),
        (
            "base64url alphabet",
            format!("{name}+{id}+{}", key.replace('+', "-").replace('/', "_")),
            if key.contains(['+', '/']) {
                Some("key_encoding")
            } else {
                None
            },
        ),
        (
            "trailing newline",
            format!("{good}\n"),
            Some("key_encoding"),
        ),
        ("32-byte key", reencode(&typed[1..]), Some("key_length")),
        (
            "34-byte key",
            reencode(&[typed.as_slice(), &[0]].concat()),
            Some("key_length"),
        ),
        ("type 0x02", reencode(&wrong_type), Some("key_type")),
    ]
}

fn key_entry(label: Label) -> Value {
    let key = label.signing();
    json!({
        "name": label.name(),
        "seed_hex": hex::encode(label.seed()),
        "public_key_hex": hex::encode(key.public_key().as_bytes()),
        "key_id_hex": hex::encode(key.key_id()),
        "vkey": key.verifier_key().to_text(),
    })
}

fn generated() -> Value {
    let keys: serde_json::Map<String, Value> = Label::ALL
        .iter()
        .map(|label| (label.text().to_owned(), key_entry(*label)))
        .collect();
    let vkeys: Vec<Value> = vkey_cases()
        .into_iter()
        .map(|(desc, text, expect)| match (LogVerifierKey::parse(&text), expect) {
            (Ok(parsed), None) => {
                assert_eq!(parsed.to_text(), text, "{desc}: not canonical");
                json!({ "desc": desc, "vkey": text })
            }
            (Err(error), Some(name)) => {
                assert_eq!(error.name(), name, "{desc}: {error}");
                json!({ "desc": desc, "vkey": text, "error": error.name(), "message": error.to_string() })
            }
            (got, expect) => panic!("{desc}: expected {expect:?}, got {got:?}"),
        })
        .collect();
    let notes: Vec<Value> = cases()
        .iter()
        .map(|case| {
            json!({
                "desc": case.desc,
                "keys": case.keys.iter().map(|label| label.text()).collect::<Vec<_>>(),
                "note": case.note,
                "outcome": outcome(case),
            })
        })
        .collect();
    json!({
        "key_type": ED25519_KEY_TYPE,
        "keys": keys,
        "vkeys": vkeys,
        "notes": notes,
    })
}

#[test]
fn vectors_hold_and_every_twin_is_refused_with_its_error() {
    let generated = generated();
    check_json_or_regenerate(spec_vector(VECTORS), &generated, golden_text);
    let notes = generated["notes"].as_array().unwrap();
    let refused = notes
        .iter()
        .filter(|note| note["outcome"]["error"].is_string())
        .count();
    assert!(
        notes.len() >= 25 && refused >= 18,
        "{refused} of {}",
        notes.len()
    );
}

#[test]
fn signing_then_opening_gives_back_the_checkpoint() {
    let key = log_key();
    let known = [LogVerifierKey::parse(&key.verifier_key().to_text()).unwrap()];
    for size in [0, 1, 2, 3, 7, 8, 100] {
        let checkpoint = Checkpoint::new(LOG, size, root_of(size)).unwrap();
        let note = key.sign_checkpoint(&checkpoint).unwrap();
        assert!(note.starts_with(&checkpoint.to_text()));
        assert!(note.contains(&format!("\n\n\u{2014} {LOG} ")));
        let opened = open_checkpoint(&note, &known).unwrap();
        assert_eq!(opened.checkpoint(), &checkpoint);
        assert_eq!(opened.key_name(), LOG);
        assert_eq!(opened.key_id(), key.key_id());
        assert_eq!(opened.into_checkpoint(), checkpoint);
        // Deterministic (RFC 8032): the same checkpoint gives the same note.
        assert_eq!(key.sign_checkpoint(&checkpoint).unwrap(), note);
    }
}

#[test]
fn the_signer_refuses_what_the_opener_would() {
    let key = log_key();
    let other = Checkpoint::new(OTHER, 1, root_of(1)).unwrap();
    let error = key.sign_checkpoint(&other).unwrap_err();
    assert_eq!(
        error,
        SignedCheckpointError::OriginMismatch {
            origin: OTHER.to_owned(),
            key_name: LOG.to_owned()
        }
    );
    assert_eq!(
        error.to_string(),
        "checkpoint origin `other.example/log` is not the key name `seal.example/decisions`"
    );
    let extended = Checkpoint::parse(&format!("{}ext\n", body(1))).unwrap();
    assert_eq!(
        key.sign_checkpoint(&extended).unwrap_err(),
        SignedCheckpointError::ExtensionLines { count: 1 }
    );
}

#[test]
fn key_names_and_seeds_are_checked() {
    for name in ["", "a b", "a+b", "tab\there", "caf\u{e9}", &"x".repeat(257)] {
        assert_eq!(
            LogSigningKey::from_seed(name, &log_seed()).unwrap_err(),
            LogKeyError::Name,
            "{name:?}"
        );
    }
    assert!(LogSigningKey::from_seed(&"x".repeat(256), &log_seed()).is_ok());
    for len in [0, 31, 33, 64] {
        assert_eq!(
            LogSigningKey::from_seed(LOG, &vec![1; len]).unwrap_err(),
            LogKeyError::Seed { len }
        );
    }
    let key = log_key();
    let debug = format!("{key:?}");
    assert!(debug.contains("<redacted>") && debug.contains(&key.verifier_key().to_text()));
    assert!(!debug.contains(&hex::encode(log_seed())));
}

#[test]
fn the_verifier_key_is_the_c2sp_form() {
    let key = log_key();
    let text = key.verifier_key().to_text();
    let mut typed = vec![ED25519_KEY_TYPE];
    typed.extend_from_slice(key.public_key().as_bytes());
    let expected = format!(
        "{LOG}+{}+{}",
        hex::encode(key_id(LOG, &typed)),
        STANDARD.encode(&typed)
    );
    assert_eq!(text, expected);
    let parsed = LogVerifierKey::parse(&text).unwrap();
    assert_eq!(parsed.name(), LOG);
    assert_eq!(parsed.key_id(), key.key_id());
    assert_eq!(parsed.public_key().as_bytes(), key.public_key().as_bytes());
    assert_eq!(format!("{parsed:?}"), format!("LogVerifierKey({text})"));
    assert_eq!(
        LogVerifierKey::new(LOG, key.public_key())
            .unwrap()
            .to_text(),
        text
    );
    assert_eq!(
        LogVerifierKey::new("bad name", key.public_key()).unwrap_err(),
        LogKeyError::Name
    );
}

/// `signed_note`'s verdict on a case: whether its verifier list, built from seal's verifier key
/// texts, accepts the note.
fn independent_accepts(case: &Case) -> bool {
    let list: Vec<Box<dyn signed_note::Verifier>> = verifiers(&case.keys)
        .iter()
        .map(|key| {
            Box::new(StandardVerifier::new(&key.to_text()).unwrap())
                as Box<dyn signed_note::Verifier>
        })
        .collect();
    let list = VerifierList::new(list);
    signed_note::Note::from_bytes(case.note.as_bytes())
        .and_then(|note| note.verify(&list))
        .is_ok()
}

#[test]
fn signed_note_verifies_what_seal_signs() {
    for label in Label::ALL {
        let key = label.signing();
        let verifier = StandardVerifier::new(&key.verifier_key().to_text()).unwrap();
        assert_eq!(verifier.name(), label.name());
        assert_eq!(verifier.key_id(), u32::from_be_bytes(key.key_id()));
        assert_eq!(
            signed_note::key_id(label.name(), &{
                let mut typed = vec![ED25519_KEY_TYPE];
                typed.extend_from_slice(key.public_key().as_bytes());
                typed
            }),
            u32::from_be_bytes(key.key_id())
        );
        for size in [0, 1, 5, 1000] {
            let checkpoint = Checkpoint::new(label.name(), size, root_of(size)).unwrap();
            let note = key.sign_checkpoint(&checkpoint).unwrap();
            let parsed = signed_note::Note::from_bytes(note.as_bytes()).unwrap();
            assert_eq!(parsed.text(), checkpoint.to_text().as_bytes());
            let list = VerifierList::new(vec![Box::new(verifier.clone())]);
            let (good, unknown) = parsed.verify(&list).unwrap();
            assert_eq!((good.len(), unknown.len()), (1, 0));
            // Re-encoded by signed_note, the note is byte for byte the one seal wrote.
            assert_eq!(parsed.to_bytes(), note.as_bytes());
        }
    }
}

#[test]
fn signed_note_judges_the_twins_as_seal_does_where_it_checks_the_same_thing() {
    let mut compared = 0;
    for case in cases() {
        let accepts = independent_accepts_if_compared(&case);
        let Some(accepts) = accepts else { continue };
        compared += 1;
        let seal_opens = matches!(case.expect, Expect::Opens(_));
        match case.independent {
            Independent::Agrees => assert_eq!(accepts, seal_opens, "{}", case.desc),
            Independent::AcceptsNote => {
                assert!(!seal_opens, "{}", case.desc);
                assert!(accepts, "{}: signed_note refuses the note too", case.desc);
            }
            Independent::NotCompared => unreachable!(),
        }
    }
    assert!(compared >= 25, "{compared}");
}

fn independent_accepts_if_compared(case: &Case) -> Option<bool> {
    (case.independent != Independent::NotCompared).then(|| independent_accepts(case))
}

#[test]
fn signed_note_refuses_the_broken_verifier_keys_seal_refuses() {
    for (desc, text, expect) in vkey_cases() {
        let independent = StandardVerifier::new(&text).is_ok();
        match (desc, expect) {
            // signed_note reads the key id with `from_str_radix`, which takes uppercase digits
            // too; seal's form is lowercase only.
            ("uppercase key id", Some(_)) => assert!(independent, "{desc}"),
            (_, expect) => assert_eq!(independent, expect.is_none(), "{desc}"),
        }
    }
}
