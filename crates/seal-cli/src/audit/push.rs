//! `seal audit push`: the latest checkpoint, with a consistency proof from the size the fleet
//! store holds, to the fleet's PostgreSQL store (spec/audit-fleet.md).

use seal::log::tlog::{leaf_hash, Checkpoint, SignedNote, Tree};
use seal_log_postgres::{ConsistencyProof, FleetError, FleetLog};

use crate::cli::AuditPushArgs;
use crate::failure::{Exit, Failure};

/// Runs `seal audit push`.
pub fn run(args: &AuditPushArgs) -> Result<u8, Failure> {
    let log = super::open(&super::log_path(&args.log)?)?;
    let (size, note) = log
        .latest_checkpoint()
        .map_err(|error| Failure::input(error.to_string()))?
        .ok_or_else(|| Failure::input("the log holds no checkpoint"))?;
    let signed = SignedNote::parse(&note)
        .map_err(|error| Failure::input(format!("the latest checkpoint: {error}")))?;
    let checkpoint = Checkpoint::parse(signed.text())
        .map_err(|error| Failure::input(format!("the latest checkpoint: {error}")))?;
    let mut tree = Tree::new();
    let mut records: Vec<Vec<u8>> = Vec::new();
    log.for_each_entry(|entry| {
        if tree.len() < size {
            tree.push(leaf_hash(&entry.record));
            if args.records {
                records.push(entry.record);
            }
        }
        Ok::<(), ()>(())
    })
    .map_err(|error| Failure::input(error.to_string()))?
    .map_err(|()| Failure::input("the log could not be read"))?;
    if tree.root(size).ok().as_ref() != Some(checkpoint.root()) {
        return Err(Failure::new(
            Exit::LogBroken,
            "the log does not match its latest checkpoint (run `seal audit verify`)",
        ));
    }
    let fleet_failure = |error: FleetError| match error {
        FleetError::Refused(refusal) => {
            let message = refusal.to_string();
            let message = message
                .strip_prefix("seal: ")
                .unwrap_or(&message)
                .to_owned();
            Failure::new(
                Exit::LogBroken,
                format!("the fleet store refused the push: {message}"),
            )
        }
        other => Failure::input(format!("fleet store: {other}")),
    };
    let mut fleet = FleetLog::connect(&args.fleet).map_err(fleet_failure)?;
    if args.install_schema {
        fleet.install_schema().map_err(fleet_failure)?;
    }
    let held = fleet
        .latest(log.origin())
        .map_err(fleet_failure)?
        .map_or(0, |held| held.size);
    // A store holding more than this log is refused by the store itself (a rollback): push
    // with an empty proof and let it say so.
    let from = held.min(size);
    let proof = tree
        .consistency_proof(from, size)
        .map_err(|error| Failure::input(error.to_string()))?;
    let accepted = fleet
        .push(
            log.origin(),
            &note,
            size,
            checkpoint.root(),
            ConsistencyProof::new(held, &proof),
        )
        .map_err(fleet_failure)?;
    let mut pushed_records = 0;
    if args.records {
        let slices: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
        pushed_records = fleet
            .push_records(log.origin(), 0, &slices)
            .map_err(fleet_failure)?;
    }
    outln!(
        "pushed {} size {} (the store held {}){}",
        accepted.origin(),
        accepted.size(),
        accepted.previous_size(),
        if args.records {
            format!("; {pushed_records} new records")
        } else {
            String::new()
        }
    );
    Ok(Exit::Ok.code())
}
