//! `seal audit`: the decision and disclosure log (spec/audit-log.md). The log is the SQLite
//! file of `seal-log-sqlite`; its signing key is a file only the operator reads (the
//! self-protection guard keeps both from every tool call).
//!
//! - [`key`]: the signing key file and the default paths.
//! - [`sink`]: what the hooks record, through the facade's log sink.
//! - [`verify`], [`show`], [`proof`], [`export`]: the commands that read the log.
//! - [`tiles`]: a tiles export (spec/audit-tiles.md) as the verifier reads it.

mod export;
pub mod key;
mod proof;
mod push;
mod show;
pub mod sink;
mod tiles;
mod verify;

use std::path::Path;

use seal_log_sqlite::{LogOptions, SqliteLog};

use crate::cli::{AuditCommand, AuditInitArgs, AuditLogArgs, AuditQueryCommand};
use crate::failure::{quoted, Exit, Failure};
use crate::io::now;

/// Runs `seal audit ...`.
pub fn run(command: &AuditCommand) -> Result<u8, Failure> {
    match command {
        AuditCommand::Init(args) => init(args),
        AuditCommand::Verify(args) => verify::run(args),
        AuditCommand::Show(args) => show::run(args, false),
        AuditCommand::Checkpoint(args) => checkpoint(args),
        AuditCommand::Prove(args) => proof::prove(args),
        AuditCommand::CheckProof(args) => proof::check(args),
        AuditCommand::Export(args) => export::run(args),
        AuditCommand::Query(AuditQueryCommand::Disclosures(args)) => show::run(args, true),
        AuditCommand::Push(args) => push::run(args),
    }
}

/// The log's path: `--log`, else the default.
pub fn log_path(args: &AuditLogArgs) -> Result<String, Failure> {
    match &args.log {
        Some(path) => Ok(path.clone()),
        None => key::default_log_path().map(|path| path.display().to_string()),
    }
}

/// Opens the log at `path` for reading or appending.
pub fn open(path: &str) -> Result<SqliteLog, Failure> {
    if !Path::new(path).exists() {
        return Err(Failure::input(format!(
            "no log at {} (create one with `seal audit init`)",
            quoted(path)
        )));
    }
    SqliteLog::open(Path::new(path), &LogOptions::default())
        .map_err(|error| Failure::input(error.to_string()))
}

fn init(args: &AuditInitArgs) -> Result<u8, Failure> {
    let log = log_path(&args.log)?;
    let key_path = match &args.log_key {
        Some(path) => path.clone(),
        None => key::default_key_path()?.display().to_string(),
    };
    if Path::new(&log).exists() {
        return Err(Failure::new(
            Exit::Output,
            format!("{} exists: a log is created once", quoted(&log)),
        ));
    }
    let origin = match &args.origin {
        Some(origin) => origin.clone(),
        None => key::random_origin()?,
    };
    let signing = key::create(&key_path, &origin)?;
    key::create_private_parent(Path::new(&log))?;
    let time = now(None)?.0;
    let signer = sink::Signer(&signing);
    let vkey = signing.verifier_key().to_text();
    SqliteLog::create(
        Path::new(&log),
        &LogOptions::default(),
        &vkey,
        &signer,
        time,
    )
    .map_err(|error| Failure::new(Exit::Output, error.to_string()))?;
    outln!("log:          {log}");
    outln!("signing key:  {key_path} (only you may read it; seal's guard keeps tool calls out)");
    outln!("origin:       {origin}");
    outln!("verifier key: {vkey}");
    outln!("Keep the verifier key and `seal audit checkpoint` output somewhere the agent cannot write.");
    outln!("Record decisions with `--log {log}` on the hooks (or SEAL_LOG).");
    Ok(Exit::Ok.code())
}

fn checkpoint(args: &AuditLogArgs) -> Result<u8, Failure> {
    let log = open(&log_path(args)?)?;
    let (_, note) = log
        .latest_checkpoint()
        .map_err(|error| Failure::input(error.to_string()))?
        .ok_or_else(|| Failure::input("the log holds no checkpoint"))?;
    out!("{note}");
    Ok(Exit::Ok.code())
}
