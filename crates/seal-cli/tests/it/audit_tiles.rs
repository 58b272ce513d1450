//! `seal audit export --tiles` and `seal audit verify --tiles` (spec/audit-tiles.md): a log of
//! hook decisions large enough for a full and a partial tile is exported and verified, then
//! each kind of change to the export is refused (an edited entry named by its position, a
//! missing tile, an edited upper tile, a truncated bundle, an altered checkpoint); and the
//! golden export spec/vectors/tiles-export.json of a fixed-key, fixed-time log of 300 entries.
//!
//! Run with `SEAL_REGENERATE=1` to rewrite the vector after an intended change, then review the
//! diff.

use std::path::Path;

use seal::log::tlog::{Checkpoint, MerkleHash};
use seal::log::{LogEvent, LogEventType, LogSigningKey};
use seal_log_sqlite::{CheckpointSigner, LogOptions, SqliteLog};
use seal_test_support::{check_json_or_regenerate, golden_text, spec_vector};
use serde_json::{json, Value};

use crate::support::{fixture, seal, Run, TempDir, NOW};

/// Initialises a log in `dir` and records `decisions` hook decisions in it; returns the log's
/// path, its key's path and its verifier key.
fn log_of(dir: &TempDir, decisions: usize) -> (String, String, String) {
    let log = dir.file("audit.db");
    let key = dir.file("audit.key");
    let init = seal(
        &[
            "audit",
            "init",
            "--log",
            &log,
            "--log-key",
            &key,
            "--origin",
            "example.test/tiles",
        ],
        b"",
        &[("SEAL_NOW", NOW)],
    );
    assert_eq!(init.code, 0, "{}", init.snapshot());
    let vkey = init
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("verifier key: "))
        .expect("verifier key")
        .trim()
        .to_owned();
    let rules = fixture("rules.json");
    let cwd = dir.file("work");
    std::fs::create_dir_all(&cwd).unwrap();
    for n in 0..decisions {
        let input = json!({
            "hook_event_name": "PreToolUse",
            "session_id": format!("s{}", n % 3),
            "tool_name": "Bash",
            "tool_use_id": format!("t{n}"),
            "tool_input": {"command": if n % 2 == 0 { "ls -la" } else { "cat notes.txt" }},
            "cwd": cwd,
            "permission_mode": "default",
        });
        let run = seal(
            &[
                "hook",
                "claude-code",
                "pre-tool-use",
                "--rules",
                &rules,
                "--log",
                &log,
                "--log-key",
                &key,
            ],
            input.to_string().as_bytes(),
            &[("SEAL_NOW", NOW)],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
    }
    (log, key, vkey)
}

fn export(log: &str, tiles: &str, extra: &[&str]) -> Run {
    let mut args = vec!["audit", "export", "--log", log, "--tiles", tiles];
    args.extend_from_slice(extra);
    seal(&args, b"", &[])
}

fn verify(tiles: &str, vkey: &str) -> Run {
    seal(
        &["audit", "verify", "--tiles", tiles, "--vkey", vkey],
        b"",
        &[],
    )
}

/// Copies the export at `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The files under `root`, relative, sorted.
fn files_under(root: &Path) -> Vec<String> {
    fn walk(root: &Path, at: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The offset in `bundle` of the bytes of its entry `entry`.
fn entry_offset(bundle: &[u8], entry: usize) -> (usize, usize) {
    let mut at = 0;
    for _ in 0..entry {
        let length = usize::from(u16::from_be_bytes([bundle[at], bundle[at + 1]]));
        at += 2 + length;
    }
    let length = usize::from(u16::from_be_bytes([bundle[at], bundle[at + 1]]));
    (at + 2, length)
}

#[test]
fn audit_tiles_export_verifies_and_every_change_is_refused() {
    let dir = TempDir::new("audit-tiles");
    let (log, _key, vkey) = log_of(&dir, 299);
    let tiles = dir.file("tiles");

    let run = export(&log, &tiles, &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(
        run.stdout.contains("exported 300 entries"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("hash tiles level 0: 1 full, 1 partial"));
    assert!(run.stdout.contains("hash tiles level 1: 0 full, 1 partial"));
    assert_eq!(
        files_under(Path::new(&tiles)),
        [
            "checkpoint",
            "tile/0/000",
            "tile/0/001.p/44",
            "tile/1/000.p/1",
            "tile/entries/000",
            "tile/entries/001.p/44",
        ]
    );
    let full = std::fs::read(Path::new(&tiles).join("tile/0/000")).unwrap();
    assert_eq!(full.len(), 8_192);
    let partial = std::fs::read(Path::new(&tiles).join("tile/0/001.p/44")).unwrap();
    assert_eq!(partial.len(), 44 * 32);

    // A directory that holds anything is refused unless --force.
    let again = export(&log, &tiles, &[]);
    assert_eq!(again.code, 6, "{}", again.snapshot());
    assert!(again.stderr.contains("is not empty"), "{}", again.stderr);
    let forced = export(&log, &tiles, &["--force"]);
    assert_eq!(forced.code, 0, "{}", forced.snapshot());

    let ok = verify(&tiles, &vkey);
    assert_eq!(ok.code, 0, "{}", ok.snapshot());
    assert!(ok
        .stdout
        .contains("300 entries; latest checkpoint size 300"));
    assert!(ok.stdout.lines().any(|line| line == "ok"), "{}", ok.stdout);

    // --tiles and --log name two different things to verify.
    let both = seal(
        &[
            "audit", "verify", "--tiles", &tiles, "--log", &log, "--vkey", &vkey,
        ],
        b"",
        &[],
    );
    assert_eq!(both.code, 2, "{}", both.snapshot());

    // Another key does not open the checkpoint.
    let other = TempDir::new("audit-tiles-other");
    let (_, _, other_vkey) = log_of(&other, 0);
    let wrong_key = verify(&tiles, &other_vkey);
    assert_eq!(wrong_key.code, 30, "{}", wrong_key.snapshot());
    assert!(wrong_key.stdout.contains("BROKEN: checkpoint at size 300"));

    let altered = |name: &str, change: &dyn Fn(&Path)| {
        let copy = dir.path.join(name);
        copy_tree(Path::new(&tiles), &copy);
        change(&copy);
        verify(&copy.to_string_lossy(), &vkey)
    };

    // One byte of entry 260 edited in its bundle: named as edited.
    let run = altered("edited-entry", &|copy| {
        let path = copy.join("tile/entries/001.p/44");
        let mut bundle = std::fs::read(&path).unwrap();
        let (start, length) = entry_offset(&bundle, 4);
        bundle[start + length / 2] ^= 0x01;
        std::fs::write(&path, bundle).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stdout.contains("BROKEN: entry 260: record edited"),
        "{}",
        run.stdout
    );

    // A leaf hash edited in the partial level-0 tile (no tile above covers it): its entry no
    // longer hashes to it. In a full tile, the tile above refuses it first.
    let run = altered("edited-leaf", &|copy| {
        let path = copy.join("tile/0/001.p/44");
        let mut tile = std::fs::read(&path).unwrap();
        tile[3 * 32 + 5] ^= 0x80;
        std::fs::write(&path, tile).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stdout.contains("BROKEN: entry 259: record edited"),
        "{}",
        run.stdout
    );
    let run = altered("edited-covered-leaf", &|copy| {
        let path = copy.join("tile/0/000");
        let mut tile = std::fs::read(&path).unwrap();
        tile[3 * 32 + 5] ^= 0x80;
        std::fs::write(&path, tile).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stderr.contains("hash 0 of tile/1/000.p/1 differs"),
        "{}",
        run.stderr
    );

    // An upper tile edited: refused before any entry is read.
    let run = altered("edited-upper", &|copy| {
        let path = copy.join("tile/1/000.p/1");
        let mut tile = std::fs::read(&path).unwrap();
        tile[0] ^= 0x01;
        std::fs::write(&path, tile).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stderr
            .contains("hash 0 of tile/1/000.p/1 differs from the hash of the leaves below it"),
        "{}",
        run.stderr
    );

    // A tile deleted: refused, naming it.
    let run = altered("missing-tile", &|copy| {
        std::fs::remove_file(copy.join("tile/0/001.p/44")).unwrap();
    });
    assert_eq!(run.code, 3, "{}", run.snapshot());
    assert!(
        run.stderr.contains("the export is missing tile/0/001.p/44"),
        "{}",
        run.stderr
    );

    // A bundle deleted, and a bundle cut short.
    let run = altered("missing-bundle", &|copy| {
        std::fs::remove_file(copy.join("tile/entries/000")).unwrap();
    });
    assert_eq!(run.code, 3, "{}", run.snapshot());
    assert!(
        run.stderr.contains("missing tile/entries/000"),
        "{}",
        run.stderr
    );
    let run = altered("short-bundle", &|copy| {
        let path = copy.join("tile/entries/001.p/44");
        let bundle = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bundle[..bundle.len() - 1]).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stderr
            .contains("entry bundle tile/entries/001.p/44 (entries from 256) is malformed"),
        "{}",
        run.stderr
    );

    // The checkpoint's root altered (still a well-formed checkpoint): its signature fails.
    let run = altered("altered-checkpoint", &|copy| {
        let path = copy.join("checkpoint");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
        let root = &lines[2];
        let first = if root.starts_with('A') { "B" } else { "A" };
        lines[2] = format!("{first}{}", &root[1..]);
        std::fs::write(&path, lines.join("\n")).unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(
        run.stdout.contains("BROKEN: checkpoint at size 300"),
        "{}",
        run.stdout
    );

    // A checkpoint that is not a signed note at all.
    let run = altered("garbled-checkpoint", &|copy| {
        std::fs::write(copy.join("checkpoint"), "not a checkpoint\n").unwrap();
    });
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert!(run.stderr.contains("checkpoint"), "{}", run.stderr);
}

/// The golden log's origin, key seed and time.
const GOLDEN_ORIGIN: &str = "seal.example/tiles";
const GOLDEN_TIME: u64 = 1_780_272_000;

struct Signer(LogSigningKey);

impl CheckpointSigner for Signer {
    fn origin(&self) -> &str {
        self.0.name()
    }

    fn sign(&self, checkpoint: &Checkpoint) -> Result<String, String> {
        self.0
            .sign_checkpoint(checkpoint)
            .map_err(|error| error.to_string())
    }
}

fn golden_event(n: u64) -> LogEvent {
    let tool = if n % 2 == 0 { "Bash" } else { "Read" };
    let decision = ["allow", "deny", "ask"][usize::try_from(n % 3).unwrap()];
    LogEvent::new(LogEventType::Decision)
        .text("agent", "claude-code")
        .and_then(|event| event.text("session", &format!("session-{}", n / 100)))
        .and_then(|event| event.text("tool", tool))
        .and_then(|event| event.text("call_id", &format!("toolu_{n:04}")))
        .and_then(|event| event.choice("decision", decision))
        .and_then(|event| event.text("by", "rule Bash(ls:*)"))
        .and_then(|event| event.digest("policy", MerkleHash::of(b"policy")))
        .and_then(|event| event.digest("arguments", MerkleHash::of(&n.to_be_bytes())))
        .unwrap()
}

#[test]
fn audit_tiles_golden_export() {
    let dir = TempDir::new("audit-tiles-golden");
    let log_path = dir.file("audit.db");
    let key = LogSigningKey::from_seed(GOLDEN_ORIGIN, &[7u8; 32]).unwrap();
    let vkey = key.verifier_key().to_text();
    let signer = Signer(key);
    let mut log = SqliteLog::create(
        Path::new(&log_path),
        &LogOptions::default(),
        &vkey,
        &signer,
        GOLDEN_TIME,
    )
    .unwrap();
    for n in 1..300 {
        log.append(golden_event(n), GOLDEN_TIME + n, &signer)
            .unwrap();
    }
    drop(log);
    let tiles = dir.file("tiles");
    let run = export(&log_path, &tiles, &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let ok = verify(&tiles, &vkey);
    assert_eq!(ok.code, 0, "{}", ok.snapshot());

    let root = Path::new(&tiles);
    let files: Vec<Value> = files_under(root)
        .iter()
        .map(|name| {
            let bytes = std::fs::read(root.join(name)).unwrap();
            json!({
                "path": name,
                "bytes": bytes.len(),
                "sha256": MerkleHash::of(&bytes).to_hex(),
            })
        })
        .collect();
    let checkpoint = std::fs::read_to_string(root.join("checkpoint")).unwrap();
    let first_bundle = std::fs::read(root.join("tile/entries/000")).unwrap();
    let (start, length) = entry_offset(&first_bundle, 1);
    let generated = json!({
        "description": "A tiles export (spec/audit-tiles.md) of a log of 300 entries: the genesis, then 299 hook decisions, signed with the Ed25519 log key of seed 32 bytes of 0x07 named seal.example/tiles, entry n claiming time 1780272000 + n. Each file of the export with its length and SHA-256; the checkpoint in full; entry 1 as it is stored in the first bundle (its length prefix and its record).",
        "origin": GOLDEN_ORIGIN,
        "verifier_key": vkey,
        "size": 300,
        "checkpoint": checkpoint,
        "entry_1": {
            "length_prefix": hex::encode(&first_bundle[start - 2..start]),
            "record": String::from_utf8(first_bundle[start..start + length].to_vec()).unwrap(),
        },
        "files": files,
    });
    check_json_or_regenerate(spec_vector("tiles-export.json"), &generated, golden_text);
}
