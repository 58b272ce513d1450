//! `seal audit verify`.

use std::path::Path;

use seal::log::tlog::Checkpoint;
use seal::log::{
    open_checkpoint, verify_audit_log_with, AuditLogSource, AuditRow, AuditStrength,
    CheckpointOpener, LogVerifierKey,
};
use seal_log_sqlite::SqliteLog;

use super::tiles::TilesDir;
use crate::cli::AuditVerifyArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, utf8};
use crate::json_out::J;

/// The SQLite log as the verifier's source.
pub struct Source<'a>(pub &'a SqliteLog);

impl AuditLogSource for Source<'_> {
    fn origin(&self) -> &str {
        self.0.origin()
    }

    fn entries(&self, visit: &mut dyn FnMut(AuditRow<'_>) -> bool) -> Result<(), String> {
        self.0
            .for_each_row(|position, record, leaf| {
                visit(AuditRow {
                    position,
                    record,
                    leaf,
                })
            })
            .map_err(|error| error.to_string())
    }

    fn checkpoint_sizes(&self) -> Result<Vec<u64>, String> {
        self.0.checkpoint_sizes().map_err(|error| error.to_string())
    }

    fn checkpoint(&self, size: u64) -> Result<Option<String>, String> {
        self.0.checkpoint(size).map_err(|error| error.to_string())
    }
}

/// Opens notes signed by one verifier key.
pub struct Opener(pub LogVerifierKey);

impl CheckpointOpener for Opener {
    fn open(&self, note: &str) -> Result<Checkpoint, String> {
        open_checkpoint(note, std::slice::from_ref(&self.0))
            .map(|verified| verified.into_checkpoint())
            .map_err(|error| error.to_string())
    }
}

/// The verifier key of `--vkey` (text or a file holding it).
pub fn vkey_of(given: &str) -> Result<LogVerifierKey, Failure> {
    let text = if Path::new(given).is_file() {
        utf8(read_file(given, 4096, "verifier key")?, "verifier key")?
    } else {
        given.to_owned()
    };
    LogVerifierKey::parse(text.trim_end_matches('\n'))
        .map_err(|error| Failure::keys(format!("verifier key {}: {error}", quoted(given))))
}

/// Runs `seal audit verify`: of the log, or of a tiles export with `--tiles`.
pub fn run(args: &AuditVerifyArgs) -> Result<u8, Failure> {
    if let Some(dir) = &args.tiles {
        // `--log` on the command line, not the same path from `SEAL_LOG`.
        let from_env = std::env::var("SEAL_LOG").ok();
        if args.log.log.is_some() && args.log.log != from_env {
            return Err(Failure::usage(
                "`--tiles` and `--log` name two things to verify: give one",
            ));
        }
        let tiles = TilesDir::open(dir)?;
        let (vkey, key_from) = match (&args.vkey, &args.log_key) {
            (Some(given), _) => (vkey_of(given)?, "given"),
            (None, flag) => {
                let key_path = super::key::key_path(flag.as_deref())?;
                if !Path::new(&key_path).exists() {
                    return Err(Failure::keys(
                        "a tiles export is verified against a key kept elsewhere: give `--vkey`",
                    ));
                }
                (
                    super::key::load(&key_path)?.verifier_key(),
                    "the signing key file",
                )
            }
        };
        let subject = Subject {
            what: "tiles",
            path: dir,
            key_from,
        };
        return verify_source(args, &tiles, vkey, &subject, || tiles.malformed());
    }
    let path = super::log_path(&args.log)?;
    let log = super::open(&path)?;
    let (vkey, key_from) = match (&args.vkey, &args.log_key) {
        (Some(given), _) => (vkey_of(given)?, "given"),
        (None, flag) => {
            let key_path = super::key::key_path(flag.as_deref())?;
            if Path::new(&key_path).exists() {
                (
                    super::key::load(&key_path)?.verifier_key(),
                    "the signing key file",
                )
            } else {
                let recorded = log
                    .meta("key")
                    .map_err(|error| Failure::input(error.to_string()))?
                    .ok_or_else(|| {
                        Failure::keys("the log records no verifier key: give `--vkey`")
                    })?;
                (
                    vkey_of(&recorded)?,
                    "the log itself (give --vkey to check against a key kept elsewhere)",
                )
            }
        }
    };
    let _ = log.fold_wal();
    let subject = Subject {
        what: "log",
        path: &path,
        key_from,
    };
    verify_source(args, &Source(&log), vkey, &subject, || false)
}

/// What is verified, for the report.
struct Subject<'a> {
    what: &'static str,
    path: &'a str,
    key_from: &'static str,
}

/// Verifies `source` against `vkey` and the kept checkpoints, and reports. `malformed` tells
/// whether a read failure was an altered export rather than an unreadable one.
fn verify_source(
    args: &AuditVerifyArgs,
    source: &dyn AuditLogSource,
    vkey: LogVerifierKey,
    subject: &Subject<'_>,
    malformed: impl Fn() -> bool,
) -> Result<u8, Failure> {
    let opener = Opener(vkey);
    let mut kept = Vec::new();
    for file in &args.since_checkpoint {
        let note = utf8(
            read_file(file, 65_536, "kept checkpoint")?,
            "kept checkpoint",
        )?;
        let checkpoint = opener
            .open(&note)
            .map_err(|error| Failure::keys(format!("kept checkpoint {}: {error}", quoted(file))))?;
        kept.push(checkpoint);
    }
    // The entries' checks on every core the machine gives this process.
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let verdict = verify_audit_log_with(source, &opener, &kept, workers).map_err(|error| {
        if malformed() {
            Failure::new(Exit::LogBroken, error.to_string())
        } else {
            Failure::input(error.to_string())
        }
    })?;
    let key_from = subject.key_from;
    let broken = verdict.broken.as_ref().map(ToString::to_string);
    if args.json {
        let json = J::Obj(vec![
            (subject.what, J::str(subject.path)),
            ("origin", J::str(source.origin())),
            ("entries", J::Num(verdict.entries)),
            (
                "checkpoint_size",
                verdict.checkpoint_size.map_or(J::Null, J::Num),
            ),
            ("root", J::str(verdict.root.to_hex())),
            ("checkpoints_checked", J::Num(verdict.checkpoints_checked)),
            ("key_from", J::str(key_from)),
            ("ok", J::Bool(broken.is_none())),
            (
                "first_broken_entry",
                verdict.broken.as_ref().map_or(J::Null, |b| J::Num(b.entry)),
            ),
            ("broken", broken.as_deref().map_or(J::Null, J::str)),
            // What a passing verdict reaches; a broken log reaches nothing.
            (
                "strength",
                if broken.is_some() {
                    J::Null
                } else {
                    J::str(verdict.strength.to_string())
                },
            ),
            (
                "witnessed",
                J::Bool(matches!(verdict.strength, AuditStrength::Kept { .. })),
            ),
        ]);
        outln!("{}", json.to_text());
    } else {
        outln!(
            "{} {} (origin {})",
            subject.what,
            quoted(subject.path),
            source.origin()
        );
        outln!("verifier key from {key_from}");
        outln!(
            "{} entries; latest checkpoint size {}; root {}; {} checkpoints checked",
            verdict.entries,
            verdict
                .checkpoint_size
                .map_or_else(|| "none".to_owned(), |size| size.to_string()),
            verdict.root,
            verdict.checkpoints_checked
        );
        match &broken {
            None => {
                outln!("ok");
                outln!("strength: {}", verdict.strength);
            }
            Some(broken) => outln!("BROKEN: {broken}"),
        }
    }
    Ok(if broken.is_some() {
        Exit::LogBroken
    } else {
        Exit::Ok
    }
    .code())
}
