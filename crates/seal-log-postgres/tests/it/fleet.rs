use std::sync::Arc;

use seal_log_postgres::{ConsistencyProof, FleetError, FleetLog, FleetRefusal};
use seal_log_sqlite::{LogOptions, SqliteLog};
use seal_record::tlog::{leaf_hash, verify_consistency, Checkpoint, MerkleHash};
use seal_record::{LogEvent, LogEventType, Sha256Digest};
use seal_test_support::postgres_server::{connect, TestSchema};

use crate::machine::{Machine, TestSigner};

/// A fresh schema with the store installed, and a connection to it as its owner.
fn installed(label: &str) -> (TestSchema, FleetLog) {
    let schema = TestSchema::new(label);
    let mut fleet = FleetLog::connect(&schema.url()).unwrap();
    assert_eq!(fleet.schema(), schema.name());
    fleet.install_schema().unwrap();
    (schema, fleet)
}

fn refusal(result: Result<seal_log_postgres::Accepted, FleetError>) -> FleetRefusal {
    match result {
        Err(FleetError::Refused(refusal)) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The SQLSTATE and message of the database's own error for a direct call of the function
/// with the same arguments as `machine.push_from(.., from, size)`.
fn raw_error(url: &str, machine: &Machine, from: u64, size: u64) -> (String, String) {
    let proof: Vec<Vec<u8>> = machine
        .tree
        .consistency_proof(from, size)
        .unwrap()
        .iter()
        .map(|hash| hash.as_bytes().to_vec())
        .collect();
    let mut client = connect(url).unwrap();
    let error = client
        .query_one(
            "SELECT seal_push_checkpoint($1, $2, $3, $4, $5, $6)",
            &[
                &machine.origin,
                &(size as i64),
                &machine.root(size).as_bytes().to_vec(),
                &machine.note(size),
                &(from as i64),
                &proof,
            ],
        )
        .unwrap_err();
    let db = error.as_db_error().unwrap();
    (db.code().code().to_owned(), db.message().to_owned())
}

fn decision(tool: &str) -> LogEvent {
    LogEvent::new(LogEventType::Decision)
        .text("agent", "claude-code")
        .and_then(|e| e.text("session", "s1"))
        .and_then(|e| e.text("tool", tool))
        .and_then(|e| e.choice("decision", "allow"))
        .and_then(|e| e.text("by", "rule Bash(ls:*)"))
        .and_then(|e| e.digest("policy", Sha256Digest::of(b"policy")))
        .and_then(|e| e.digest("arguments", Sha256Digest::of(tool.as_bytes())))
        .unwrap()
}

#[test]
fn two_machines_push_their_sqlite_logs_as_they_grow() {
    let (_schema, mut fleet) = installed("two_machines");
    let dir = tempfile::tempdir().unwrap();
    let origins = ["fleet.test/alpha", "fleet.test/beta"];
    let mut logs: Vec<(SqliteLog, TestSigner)> = origins
        .iter()
        .map(|origin| {
            let signer = TestSigner((*origin).to_owned());
            let path = dir.path().join(format!("{}.db", origin.replace('/', "_")));
            let log = SqliteLog::create(&path, &LogOptions::default(), "vkey", &signer, 1).unwrap();
            (log, signer)
        })
        .collect();
    for round in 0..12u64 {
        for (machine, (log, signer)) in logs.iter_mut().enumerate() {
            // The second machine appends two entries a round, the first one.
            for extra in 0..=machine as u64 {
                log.append(decision(&format!("T{round}.{extra}")), 10 + round, signer)
                    .unwrap();
            }
            let (size, note) = log.latest_checkpoint().unwrap().unwrap();
            let (body, _) = note.split_once("\n\n").unwrap();
            let checkpoint = Checkpoint::parse(&format!("{body}\n")).unwrap();
            assert_eq!(checkpoint.size(), size);
            let mut tree = seal_record::tlog::Tree::new();
            log.for_each_entry(|entry| {
                tree.push(leaf_hash(&entry.record));
                Ok::<(), ()>(())
            })
            .unwrap()
            .unwrap();
            let held = fleet.latest(signer.0.as_str()).unwrap();
            let from = held.as_ref().map_or(0, |held| held.size);
            let proof = tree.consistency_proof(from, size).unwrap();
            let accepted = fleet
                .push(
                    &signer.0,
                    &note,
                    size,
                    checkpoint.root(),
                    ConsistencyProof::new(from, &proof),
                )
                .unwrap();
            assert_eq!((accepted.previous_size(), accepted.size()), (from, size));
            let held = fleet.latest(&signer.0).unwrap().unwrap();
            assert_eq!(
                (held.size, held.root, held.note.as_str()),
                (size, *checkpoint.root(), note.as_str())
            );
        }
    }
    let counts: Vec<i64> = origins
        .iter()
        .map(|origin| {
            fleet
                .client()
                .query_one(
                    "SELECT count(*) FROM seal_fleet_checkpoints WHERE origin = $1",
                    &[origin],
                )
                .unwrap()
                .get(0)
        })
        .collect();
    assert_eq!(counts, [12, 12]);
    // Pushing the held checkpoint again is accepted and changes nothing.
    let (log, signer) = &logs[1];
    let (size, note) = log.latest_checkpoint().unwrap().unwrap();
    let held = fleet.latest(&signer.0).unwrap().unwrap();
    let again = fleet
        .push(
            &signer.0,
            &note,
            size,
            &held.root,
            ConsistencyProof::new(size, &[]),
        )
        .unwrap();
    assert_eq!((again.previous_size(), again.size()), (size, size));
}

#[test]
fn a_rollback_is_refused_naming_the_log_and_both_sizes() {
    let (schema, mut fleet) = installed("rollback");
    let mut machine = Machine::new("fleet.test/rollback", "a");
    machine.grow_to(9);
    for size in [3, 5, 9] {
        machine.push(&mut fleet, size).unwrap();
    }
    let refused = refusal(machine.push_from(&mut fleet, 5, 5));
    assert_eq!(
        refused,
        FleetRefusal::Rollback {
            origin: machine.origin.clone(),
            held: 9,
            pushed: 5
        }
    );
    let expected = "seal: rollback of log `fleet.test/rollback`: held size 9, pushed size 5";
    assert_eq!(refused.to_string(), expected);
    assert_eq!(
        raw_error(&schema.url(), &machine, 5, 5),
        ("SL001".to_owned(), expected.to_owned())
    );
    assert_eq!(fleet.latest(&machine.origin).unwrap().unwrap().size, 9);
}

/// A second log with the same origin, equal to the first for `k` records, grows past the
/// held size and pushes: the outcome of that push.
fn fork_outcome(fleet: &mut FleetLog) -> Result<seal_log_postgres::Accepted, FleetError> {
    let mut honest = Machine::new("fleet.test/fork", "honest");
    honest.grow_to(6);
    honest.push(fleet, 6).unwrap();
    let mut forked = honest.fork_at(4, "forked");
    forked.grow_to(11);
    forked.push_from(fleet, 6, 11)
}

#[test]
fn a_fork_pushing_a_larger_size_is_refused() {
    let (schema, mut fleet) = installed("fork");
    let refused = refusal(fork_outcome(&mut fleet));
    let reason = "proof does not lead to the old root".to_owned();
    assert_eq!(
        refused,
        FleetRefusal::BadProof {
            origin: "fleet.test/fork".to_owned(),
            held: 6,
            pushed: 11,
            reason
        }
    );
    let expected = "seal: unproven extension of log `fleet.test/fork`: held size 6, pushed size \
                    11: proof does not lead to the old root";
    assert_eq!(refused.to_string(), expected);
    let mut forked = Machine::new("fleet.test/fork", "honest").fork_at(0, "honest");
    forked.grow_to(4);
    let mut forked = forked.fork_at(4, "forked");
    forked.grow_to(11);
    assert_eq!(
        raw_error(&schema.url(), &forked, 6, 11),
        ("SL003".to_owned(), expected.to_owned())
    );
    assert_eq!(fleet.latest("fleet.test/fork").unwrap().unwrap().size, 6);
}

#[test]
fn negative_control_a_function_that_skips_the_proof_accepts_the_fork() {
    let (schema, mut fleet) = installed("broken");
    schema.admin(&format!(
        "CREATE OR REPLACE FUNCTION {}.seal_fleet_consistency(old_size bigint, new_size bigint, \
         old_root bytea, new_root bytea, proof bytea[]) RETURNS text LANGUAGE sql IMMUTABLE \
         AS 'SELECT NULL::text'",
        schema.name()
    ));
    let accepted = fork_outcome(&mut fleet).unwrap();
    assert_eq!((accepted.previous_size(), accepted.size()), (6, 11));
}

#[test]
fn an_equal_size_with_another_root_is_refused() {
    let (schema, mut fleet) = installed("equal_size");
    let mut honest = Machine::new("fleet.test/equal", "honest");
    honest.grow_to(7);
    honest.push(&mut fleet, 7).unwrap();
    let mut forked = honest.fork_at(6, "forked");
    forked.grow_to(7);
    let refused = refusal(forked.push_from(&mut fleet, 7, 7));
    assert_eq!(
        refused,
        FleetRefusal::Fork {
            origin: "fleet.test/equal".to_owned(),
            size: 7,
            held_root: honest.root(7),
            pushed_root: forked.root(7)
        }
    );
    let (code, message) = raw_error(&schema.url(), &forked, 7, 7);
    assert_eq!((code.as_str(), message), ("SL002", refused.to_string()));
    assert!(refused
        .to_string()
        .starts_with("seal: fork of log `fleet.test/equal` at size 7: pushed root "));
}

#[test]
fn a_correct_proof_with_any_one_bit_flipped_is_refused() {
    let (_schema, mut fleet) = installed("bit_flip");
    let mut machine = Machine::new("fleet.test/flip", "a");
    machine.grow_to(13);
    machine.push(&mut fleet, 6).unwrap();
    let proof = machine.tree.consistency_proof(6, 13).unwrap();
    assert!(proof.len() >= 3);
    for hash in 0..proof.len() {
        for bit in [0, 7, 100, 255] {
            let mut flipped = proof.clone();
            let mut bytes = *flipped[hash].as_bytes();
            bytes[bit / 8] ^= 1 << (bit % 8);
            flipped[hash] = MerkleHash::from_bytes(bytes);
            let result = fleet.push(
                &machine.origin,
                &machine.note(13),
                13,
                &machine.root(13),
                ConsistencyProof::new(6, &flipped),
            );
            assert!(
                matches!(
                    refusal(result),
                    FleetRefusal::BadProof {
                        held: 6,
                        pushed: 13,
                        ..
                    }
                ),
                "hash {hash} bit {bit}"
            );
        }
    }
    // Truncated, lengthened, and the right proof from the wrong size.
    let short = &proof[..proof.len() - 1];
    let mut long = proof.clone();
    long.push(proof[0]);
    for hashes in [short, long.as_slice()] {
        let result = fleet.push(
            &machine.origin,
            &machine.note(13),
            13,
            &machine.root(13),
            ConsistencyProof::new(6, hashes),
        );
        assert!(matches!(refusal(result), FleetRefusal::BadProof { .. }));
    }
    let stale = refusal(machine.push_from(&mut fleet, 5, 13));
    assert_eq!(
        stale.to_string(),
        "seal: stale proof for log `fleet.test/flip`: held size 6, proof from size 5"
    );
    let accepted = machine.push_from(&mut fleet, 6, 13).unwrap();
    assert_eq!(accepted.previous_size(), 6);
}

#[test]
fn a_note_that_is_not_the_pushed_checkpoint_is_refused() {
    let (_schema, mut fleet) = installed("malformed");
    let mut machine = Machine::new("fleet.test/note", "a");
    machine.grow_to(4);
    let result = fleet.push(
        &machine.origin,
        &machine.note(3),
        4,
        &machine.root(4),
        ConsistencyProof::new(0, &[]),
    );
    assert_eq!(
        refusal(result).to_string(),
        "seal: malformed push to log `fleet.test/note`: note does not begin with the checkpoint \
         of size 4 and the pushed root"
    );
    let result = fleet.push(
        "bad origin",
        "",
        0,
        &machine.root(0),
        ConsistencyProof::new(0, &[]),
    );
    assert!(matches!(refusal(result), FleetRefusal::Malformed { .. }));
    assert!(fleet.latest(&machine.origin).unwrap().is_none());
}

#[test]
fn the_pushing_role_cannot_write_the_tables_directly() {
    let (mut schema, mut owner) = installed("grants");
    let pusher_url = schema.role("pusher");
    owner
        .grant_pusher(&format!("{}_pusher", schema.name()))
        .unwrap();
    let mut machine = Machine::new("fleet.test/grants", "a");
    machine.grow_to(8);
    let mut fleet = FleetLog::connect(&pusher_url).unwrap();
    machine.push(&mut fleet, 8).unwrap();
    let mut client = connect(&pusher_url).unwrap();
    let root = machine.root(2).as_bytes().to_vec();
    let bypasses = [
        "UPDATE seal_fleet_logs SET size = 2 WHERE origin = 'fleet.test/grants'",
        "DELETE FROM seal_fleet_logs",
        "DELETE FROM seal_fleet_checkpoints",
        "TRUNCATE seal_fleet_checkpoints",
        "INSERT INTO seal_fleet_records (origin, idx, record, leaf) \
         VALUES ('fleet.test/grants', 0, '\\x00', sha256('\\x00'))",
        "CREATE OR REPLACE FUNCTION seal_fleet_consistency(bigint, bigint, bytea, bytea, \
         bytea[]) RETURNS text LANGUAGE sql AS 'SELECT NULL::text'",
        "CREATE TABLE seal_fleet_logs_shadow (origin text)",
    ];
    for sql in bypasses {
        let error = client.batch_execute(sql).unwrap_err();
        let code = error.as_db_error().unwrap().code().code().to_owned();
        assert!(
            code == "42501" || code == "42809",
            "`{sql}` gave {code}: {error}"
        );
    }
    let error = client
        .execute(
            "INSERT INTO seal_fleet_logs (origin, size, root, note) VALUES ('x', 2, $1, '')",
            &[&root],
        )
        .unwrap_err();
    assert_eq!(error.as_db_error().unwrap().code().code(), "42501");
    assert_eq!(fleet.latest(&machine.origin).unwrap().unwrap().size, 8);
    // A role that was never granted cannot push at all.
    // A role that was never granted cannot push at all: without the schema's USAGE it has no
    // schema to work in, and with it, no right to call the function.
    let other_url = schema.role("other");
    assert!(matches!(
        FleetLog::connect(&other_url),
        Err(FleetError::NoSchema)
    ));
    schema.admin(&format!(
        "GRANT USAGE ON SCHEMA {0} TO {0}_other",
        schema.name()
    ));
    let mut other = FleetLog::connect(&other_url).unwrap();
    match machine.push_from(&mut other, 8, 8) {
        Err(FleetError::Database(error)) => {
            assert_eq!(error.as_db_error().unwrap().code().code(), "42501")
        }
        other => panic!("expected a permission error, got {other:?}"),
    }
}

#[test]
fn concurrent_pushes_of_one_growing_log_leave_the_largest_size() {
    let (schema, _fleet) = installed("concurrent");
    let mut machine = Machine::new("fleet.test/concurrent", "a");
    machine.grow_to(80);
    let machine = Arc::new(machine);
    let threads: Vec<_> = (0..4u64)
        .map(|thread| {
            let machine = Arc::clone(&machine);
            let url = schema.url();
            std::thread::spawn(move || {
                let mut fleet = FleetLog::connect(&url).unwrap();
                let mut accepted = 0;
                let mut size = thread + 1;
                while size <= 80 {
                    match machine.push(&mut fleet, size) {
                        Ok(_) => {
                            accepted += 1;
                            size += 4;
                        }
                        // Another thread moved the log between reading and pushing: prove
                        // again from what it holds now.
                        Err(FleetError::Refused(FleetRefusal::StaleProof { .. })) => {}
                        // Another thread pushed a larger size: this one is behind.
                        Err(FleetError::Refused(FleetRefusal::Rollback { .. })) => size += 4,
                        Err(other) => panic!("size {size}: {other}"),
                    }
                }
                accepted
            })
        })
        .collect();
    let accepted: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let mut fleet = FleetLog::connect(&schema.url()).unwrap();
    let held = fleet.latest(&machine.origin).unwrap().unwrap();
    assert_eq!((held.size, held.root), (80, machine.root(80)));
    let sizes: Vec<i64> = fleet
        .client()
        .query(
            "SELECT size FROM seal_fleet_checkpoints WHERE origin = $1 ORDER BY accepted_at, size",
            &[&machine.origin],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(sizes.len() as u32, accepted);
    assert!(sizes.windows(2).all(|pair| pair[0] < pair[1]), "{sizes:?}");
}

#[test]
fn records_are_stored_only_below_the_held_size_and_never_replaced() {
    let (_schema, mut fleet) = installed("records");
    let mut machine = Machine::new("fleet.test/records", "a");
    machine.grow_to(5);
    let records: Vec<Vec<u8>> = (0..5).map(|index| machine.record(index)).collect();
    let slices: Vec<&[u8]> = records.iter().map(Vec::as_slice).collect();
    let error = fleet.push_records(&machine.origin, 0, &slices).unwrap_err();
    assert!(matches!(
        error,
        FleetError::Refused(FleetRefusal::RecordBeyondCheckpoint {
            index: 0,
            held: 0,
            ..
        })
    ));
    machine.push(&mut fleet, 3).unwrap();
    let error = fleet.push_records(&machine.origin, 0, &slices).unwrap_err();
    assert_eq!(
        error.to_string(),
        "seal: record beyond checkpoint of log `fleet.test/records`: index 3, held size 3"
    );
    assert_eq!(
        fleet
            .push_records(&machine.origin, 0, &slices[..3])
            .unwrap(),
        3
    );
    assert_eq!(
        fleet
            .push_records(&machine.origin, 1, &slices[1..3])
            .unwrap(),
        0
    );
    let error = fleet
        .push_records(&machine.origin, 2, &[b"other".as_slice()])
        .unwrap_err();
    assert!(matches!(
        error,
        FleetError::Refused(FleetRefusal::RecordConflict { index: 2, .. })
    ));
    let stored = fleet.records(&machine.origin, 0, 10).unwrap();
    assert_eq!(stored.len(), 3);
    for (index, record) in stored.iter().enumerate() {
        assert_eq!(record.index, index as u64);
        assert_eq!(record.record, records[index]);
        assert_eq!(record.leaf, leaf_hash(&records[index]));
        assert_eq!(Some(&record.leaf), machine.tree.leaf(index as u64));
    }
}

/// The database's proof check against seal's, on every pair of sizes up to 17, with the
/// right proof and with a proof one hash too short, a hash changed, or from the size before.
#[test]
fn the_database_checks_proofs_as_seal_does() {
    let (_schema, mut fleet) = installed("differential");
    let mut machine = Machine::new("fleet.test/diff", "a");
    machine.grow_to(17);
    let tree = &machine.tree;
    let client = fleet.client();
    let statement = client
        .prepare("SELECT seal_fleet_consistency($1, $2, $3, $4, $5)")
        .unwrap();
    let mut checked = 0;
    for new in 0..=17u64 {
        for old in 0..=new {
            let proof = tree.consistency_proof(old, new).unwrap();
            let mut variants: Vec<(u64, Vec<MerkleHash>)> = vec![(old, proof.clone())];
            if let Some((_, rest)) = proof.split_last() {
                variants.push((old, rest.to_vec()));
                let mut changed = proof.clone();
                changed[0] = leaf_hash(b"changed");
                variants.push((old, changed));
            }
            if old > 0 {
                variants.push((old - 1, proof.clone()));
            }
            for (claimed_old, hashes) in variants {
                let old_root = tree.root(claimed_old).unwrap();
                let new_root = tree.root(new).unwrap();
                let expected = verify_consistency(claimed_old, new, &old_root, &new_root, &hashes);
                let bytes: Vec<Vec<u8>> =
                    hashes.iter().map(|hash| hash.as_bytes().to_vec()).collect();
                let reason: Option<String> = client
                    .query_one(
                        &statement,
                        &[
                            &(claimed_old as i64),
                            &(new as i64),
                            &old_root.as_bytes().to_vec(),
                            &new_root.as_bytes().to_vec(),
                            &bytes,
                        ],
                    )
                    .unwrap()
                    .get(0);
                assert_eq!(
                    reason.is_none(),
                    expected.is_ok(),
                    "old {claimed_old} new {new} proof of {}: database {reason:?}, seal {expected:?}",
                    hashes.len()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "{checked}");
}

#[test]
fn installing_twice_keeps_what_is_held() {
    let (schema, mut fleet) = installed("reinstall");
    let mut machine = Machine::new("fleet.test/reinstall", "a");
    machine.grow_to(3);
    machine.push(&mut fleet, 3).unwrap();
    let mut again = FleetLog::connect(&schema.url()).unwrap();
    again.install_schema().unwrap();
    assert_eq!(again.latest(&machine.origin).unwrap().unwrap().size, 3);
}
