//! The tamper matrix of the decision log (spec/audit-log.md, "Verification"), one test per row,
//! on the built binary: each row tampers with the SQLite file directly (or with copies of it)
//! and asserts the exact line `seal audit verify` prints. A row that only a kept checkpoint can
//! catch also shows that the log alone passes, and says so ("local-only").
//!
//! Every log here holds the genesis and 11 decisions (entries 0 to 11) unless a row grows it:
//! odd entries allow an `ls`, even ones deny an `rm`.

use crate::support::audit::{kept_root, line_of, AuditLog, LOCAL_ONLY};

/// A log of 12 entries.
fn log_of_12(label: &str) -> AuditLog {
    let log = AuditLog::new(label);
    log.decide_many("s1", 11);
    assert_eq!(log.entries(), 12);
    log.assert_ok_locally(12);
    log
}

/// Entry 6 (a deny) with its decision turned into an allow: still a well-formed entry.
fn edited_entry_6(log: &AuditLog) -> Vec<u8> {
    let record = String::from_utf8(log.record(6)).expect("ASCII");
    assert!(record.contains(r#""decision":"deny""#), "{record}");
    record
        .replace(r#""decision":"deny""#, r#""decision":"allow""#)
        .into_bytes()
}

/// The fork line for a kept checkpoint of `size` in `kept`, as the log's stored records give it.
fn fork_line(log: &AuditLog, size: u64, kept: &str) -> String {
    format!(
        "fork at size {size}: the log's root is {}, the kept checkpoint's is {} (the log was rewritten and re-signed, or is another copy)",
        log.tree().root(size).expect("root"),
        kept_root(kept)
    )
}

#[test]
fn row_1_an_edited_record_is_named() {
    let log = log_of_12("tamper-edit");
    log.set_record(6, &edited_entry_6(&log));
    log.assert_broken(
        &[],
        "entry 6: record edited (it does not hash to its committed leaf)",
    );
}

#[test]
fn row_2_an_edited_record_with_its_leaf_recomputed_breaks_the_next_checkpoint() {
    let log = log_of_12("tamper-leaf");
    log.set_record_and_leaf(6, &edited_entry_6(&log));
    log.assert_broken(
        &[],
        "entry 6: does not match the signed checkpoint at size 7 (edited and its leaf recomputed, or replaced)",
    );
}

#[test]
fn row_2_the_first_and_the_last_entry_edited_with_their_leaves() {
    // The genesis: the checkpoint at size 1 is the first on the spine.
    let log = log_of_12("tamper-leaf-0");
    let genesis = String::from_utf8(log.record(0)).expect("ASCII");
    let later = genesis.replace(r#""time":1780272000"#, r#""time":1780272001"#);
    assert_ne!(genesis, later);
    log.set_record_and_leaf(0, later.as_bytes());
    log.assert_broken(
        &[],
        "entry 0: does not match the signed checkpoint at size 1 (edited and its leaf recomputed, or replaced)",
    );
    // The latest entry: only the latest checkpoint covers it.
    let log = log_of_12("tamper-leaf-11");
    let record = String::from_utf8(log.record(11)).expect("ASCII");
    let edited = record.replace(r#""decision":"allow""#, r#""decision":"deny""#);
    assert_ne!(record, edited);
    log.set_record_and_leaf(11, edited.as_bytes());
    log.assert_broken(
        &[],
        "entry 11: does not match the signed checkpoint at size 12 (edited and its leaf recomputed, or replaced)",
    );
}

#[test]
fn row_3_an_edit_re_signed_with_the_log_key_passes_locally_and_forks_from_a_kept_checkpoint() {
    let log = log_of_12("tamper-resign");
    let kept = log.keep_checkpoint("kept-12.txt");
    log.set_record_and_leaf(6, &edited_entry_6(&log));
    log.resign();
    log.assert_ok_locally(12);
    log.assert_broken(&["--since-checkpoint", &kept], &fork_line(&log, 12, &kept));
    // The rewritten log goes on: appends after the rewrite are as well signed as before it.
    log.decide("s1", "after", "ls", "allow");
    log.assert_ok_locally(13);
    log.assert_broken(&["--since-checkpoint", &kept], &fork_line(&log, 12, &kept));
}

#[test]
fn row_4_a_log_cut_inside_its_latest_checkpoint_is_named() {
    let log = log_of_12("tamper-cut");
    log.truncate(9, false);
    log.assert_broken(
        &[],
        "entry 9: missing: the log was cut short (a signed checkpoint commits 12 entries, the log holds 9)",
    );
}

#[test]
fn row_5_a_log_cut_with_its_checkpoints_passes_locally_and_is_rolled_back_from_a_kept_one() {
    let log = log_of_12("tamper-cut-beyond");
    let kept = log.keep_checkpoint("kept-12.txt");
    log.truncate(9, true);
    log.assert_ok_locally(9);
    log.assert_broken(
        &["--since-checkpoint", &kept],
        "entry 9: missing: the log was rolled back or cut (the kept checkpoint commits 12 entries, the log holds 9)",
    );
}

#[test]
fn row_6_a_log_cut_then_appended_to_forks_from_a_kept_checkpoint() {
    let log = log_of_12("tamper-cut-append");
    let kept = log.keep_checkpoint("kept-12.txt");
    log.truncate(9, true);
    log.decide_many("s2", 5);
    log.assert_ok_locally(14);
    log.assert_broken(&["--since-checkpoint", &kept], &fork_line(&log, 12, &kept));
}

#[test]
fn row_7_an_old_copy_put_back_is_rolled_back_from_a_kept_checkpoint() {
    let log = log_of_12("tamper-rollback");
    let old = log.copy_to("old.db");
    log.decide_many("s2", 3);
    let kept = log.keep_checkpoint("kept-15.txt");
    log.restore(&old);
    log.assert_ok_locally(12);
    log.assert_broken(
        &["--since-checkpoint", &kept],
        "entry 12: missing: the log was rolled back or cut (the kept checkpoint commits 15 entries, the log holds 12)",
    );
    // The kept checkpoint of the old size still passes: what was kept was not rewritten.
    let kept_old = log.keep_checkpoint("kept-12.txt");
    let run = log.verify(&["--since-checkpoint", &kept_old]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert_eq!(
        line_of(&run, "strength: "),
        "checked against a checkpoint kept elsewhere (size 12): no entry up to it was removed, rolled back or rewritten since it was taken"
    );
}

#[test]
fn row_8_two_copies_grown_apart_fork() {
    let a = log_of_12("tamper-fork-a");
    let b = a.fork("tamper-fork-b");
    a.decide_many("a", 2);
    b.decide_many("b", 3);
    a.assert_ok_locally(14);
    b.assert_ok_locally(15);
    let kept_a = a.keep_checkpoint("kept-14.txt");
    let kept_b = b.keep_checkpoint("kept-15.txt");
    b.assert_broken(
        &["--since-checkpoint", &kept_a],
        &fork_line(&b, 14, &kept_a),
    );
    // Checked against the longer copy's checkpoint, the shorter one looks rolled back.
    a.assert_broken(
        &["--since-checkpoint", &kept_b],
        "entry 14: missing: the log was rolled back or cut (the kept checkpoint commits 15 entries, the log holds 14)",
    );
}

#[test]
fn row_9_two_entries_swapped_are_out_of_position() {
    let log = log_of_12("tamper-swap");
    let db = log.db();
    db.execute_batch(
        "UPDATE entry SET idx = -1 WHERE idx = 6;
         UPDATE entry SET idx = 6 WHERE idx = 7;
         UPDATE entry SET idx = 7 WHERE idx = -1;",
    )
    .expect("swap");
    drop(db);
    log.assert_broken(
        &[],
        "entry 6: out of position (it records position 7: reordered or inserted)",
    );
}

#[test]
fn row_10_an_inserted_entry_puts_the_next_out_of_position() {
    let log = log_of_12("tamper-insert");
    // A fabricated allow at position 6: entry 5's record, claiming position 6.
    let record = String::from_utf8(log.record(5)).expect("ASCII");
    let fabricated = record.replace(r#""seq":5"#, r#""seq":6"#);
    assert_ne!(record, fabricated);
    let db = log.db();
    db.execute_batch(
        "UPDATE entry SET idx = -(idx + 1) WHERE idx >= 6;
         UPDATE entry SET idx = -idx WHERE idx < 0;",
    )
    .expect("shift");
    db.execute(
        "INSERT INTO entry (idx, record, leaf) VALUES (6, ?1, ?2)",
        rusqlite::params![
            fabricated.as_bytes(),
            seal::log::tlog::leaf_hash(fabricated.as_bytes())
                .as_bytes()
                .as_slice()
        ],
    )
    .expect("insert");
    drop(db);
    assert_eq!(log.entries(), 13);
    log.assert_broken(
        &[],
        "entry 7: out of position (it records position 6: reordered or inserted)",
    );
}

#[test]
fn the_verdict_as_json_names_the_first_broken_entry() {
    let log = log_of_12("tamper-json");
    log.set_record(6, &edited_entry_6(&log));
    let run = log.verify(&["--json"]);
    assert_eq!(run.code, 30, "{}", run.snapshot());
    let verdict = run.json();
    assert_eq!(verdict["ok"], false);
    assert_eq!(verdict["first_broken_entry"], 6);
    assert_eq!(
        verdict["broken"],
        "entry 6: record edited (it does not hash to its committed leaf)"
    );
    assert_eq!(verdict["strength"], serde_json::Value::Null);
    assert_eq!(verdict["witnessed"], false);
    // The same log intact: ok, and how far that reaches.
    let intact = log_of_12("tamper-json-intact");
    let run = intact.verify(&["--json"]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let verdict = run.json();
    assert_eq!(verdict["ok"], true);
    assert_eq!(verdict["entries"], 12);
    assert_eq!(verdict["checkpoint_size"], 12);
    assert_eq!(verdict["first_broken_entry"], serde_json::Value::Null);
    assert_eq!(verdict["broken"], serde_json::Value::Null);
    assert_eq!(verdict["strength"], LOCAL_ONLY);
    assert_eq!(
        verdict["root"],
        intact.tree().root(12).expect("root").to_hex()
    );
    assert_eq!(verdict["key_from"], "the signing key file");
}

/// Row 11: an append killed at any of its write steps leaves the log as it was: it verifies with
/// the same entries, and the next append takes the next position.
#[cfg(feature = "fault-injection")]
#[test]
fn row_11_a_torn_append_leaves_the_log_whole() {
    let log = AuditLog::new("tamper-torn");
    log.decide_many("s1", 2);
    let mut entries = 3;
    for step in ["entry", "checkpoint", "frontier", "index", "commit"] {
        let fault = format!("abort:{step}");
        let run = log.hook_env("s1", step, "ls", &[("SEAL_FAULT", &fault)]);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (-1, ""),
            "{step}: {}",
            run.snapshot()
        );
        assert_eq!(log.entries(), entries, "{step}");
        log.assert_ok_locally(entries);
        log.decide("s1", &format!("{step}-after"), "ls", "allow");
        let record: serde_json::Value =
            serde_json::from_slice(&log.record(entries)).expect("a JSON record");
        assert_eq!(record["seq"], entries, "{step}");
        assert_eq!(record["call_id"], format!("{step}-after"), "{step}");
        entries += 1;
        log.assert_ok_locally(entries);
    }
}

/// Row 12: 8 processes appending at once get consecutive positions, none lost or repeated.
#[test]
fn row_12_concurrent_hooks_append_without_gap_or_duplicate() {
    const PROCESSES: usize = 8;
    const CALLS: usize = 25;
    let log = std::sync::Arc::new(AuditLog::new("tamper-concurrent"));
    let start = std::sync::Arc::new(std::sync::Barrier::new(PROCESSES));
    let lanes: Vec<_> = (0..PROCESSES)
        .map(|lane| {
            let (log, start) = (log.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                for call in 0..CALLS {
                    log.decide(
                        &format!("lane-{lane}"),
                        &format!("{lane}-{call}"),
                        "ls",
                        "allow",
                    );
                }
            })
        })
        .collect();
    for lane in lanes {
        lane.join().expect("a lane");
    }
    let db = log.db();
    let mut statement = db
        .prepare("SELECT idx, record FROM entry ORDER BY idx")
        .expect("select");
    let rows: Vec<(u64, Vec<u8>)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("rows")
        .map(|row| row.expect("row"))
        .collect();
    let positions: Vec<u64> = rows.iter().map(|(idx, _)| *idx).collect();
    let expected: Vec<u64> = (0..=200).collect();
    assert_eq!(positions, expected);
    let mut calls = std::collections::BTreeSet::new();
    for (idx, record) in rows.iter().skip(1) {
        let record: serde_json::Value = serde_json::from_slice(record).expect("JSON");
        assert_eq!(record["seq"], *idx);
        let call = record["call_id"].as_str().expect("a call id").to_owned();
        assert!(calls.insert(call.clone()), "{call} recorded twice");
    }
    let expected: std::collections::BTreeSet<String> = (0..PROCESSES)
        .flat_map(|lane| (0..CALLS).map(move |call| format!("{lane}-{call}")))
        .collect();
    assert_eq!(calls, expected);
    log.assert_ok_locally(201);
}

/// Row 13: a tool name with a terminal control and a bidi override, or a session with a carriage
/// return, is refused before any decision and recorded as a deny by `call refused`, with the
/// names escaped; such text also reaches the log in the text of a rule that decided. `seal audit
/// show` prints all of it escaped: printable ASCII that decodes back.
#[test]
fn row_13_hostile_names_are_refused_or_shown_as_printable_ascii_that_decodes_back() {
    let log = AuditLog::new("tamper-names");
    let flags = ["--log", log.log.as_str(), "--log-key", log.key.as_str()];
    let refused = |session: &str, tool: &str, reason: &str| {
        let run = log.hook_with(&flags, session, tool, "t1", "ls", &[]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        let output = &run.json()["hookSpecificOutput"];
        assert_eq!(output["permissionDecision"], "deny");
        assert_eq!(output["permissionDecisionReason"], reason);
    };
    refused(
        "s1",
        "Bash\u{1b}[2J\u{202e}",
        r"seal: the policy check failed, so the call is denied: tool call refused: call refused: field `tool` is not an identifier: `Bash\\u{1b}[2J\\u{202e}`",
    );
    refused(
        "s1\rnext",
        "Bash",
        r"seal: the policy check failed, so the call is denied: tool call refused: session id `s1\\rnext` is not 1 to 256 bytes of printable ascii without space",
    );
    assert_eq!(log.entries(), 3);
    let rule = "Bash(rm \u{1b}[2J\u{202e}:*)";
    let rules = serde_json::json!({"permissions": {"deny": [rule]}});
    std::fs::write(&log.rules, rules.to_string()).expect("rules");
    log.decide("s1", "t2", "rm \u{1b}[2J\u{202e} x", "deny");
    for json in [false, true] {
        let mut args = vec!["audit", "show", "--log", &log.log];
        if json {
            args.push("--json");
        }
        let shown = crate::support::seal(&args, b"", &[]);
        assert_eq!(shown.code, 0, "{}", shown.snapshot());
        let outside = shown
            .stdout
            .bytes()
            .find(|byte| !(0x20..=0x7e).contains(byte) && *byte != b'\n');
        assert_eq!(outside, None, "{}", shown.snapshot());
        let lines: Vec<&str> = shown.stdout.lines().collect();
        if !json {
            assert!(lines[1].contains(r"by=call refused"), "{}", lines[1]);
            assert!(
                lines[1].contains(r"tool=Bash\u{1b}[2J\u{202e}"),
                "{}",
                lines[1]
            );
            assert!(lines[2].contains(r"session=s1\u{d}next"), "{}", lines[2]);
        }
        let decision = lines[3];
        let by = if json {
            let record: serde_json::Value = serde_json::from_str(decision).expect("JSON");
            record["by"].as_str().expect("by").to_owned()
        } else {
            let (_, after) = decision.split_once(" by=").expect("by");
            let (by, _) = after.split_once(" call_id=").expect("call_id");
            by.to_owned()
        };
        assert_eq!(by, r"rules: Bash(rm \u{1b}[2J\u{202e}:*)");
        let decoded = seal::render::decode(&by, seal::render::Context::Inline).expect("decodes");
        assert_eq!(decoded, format!("rules: {rule}"));
    }
    log.assert_ok_locally(4);
}

#[test]
fn a_deleted_entry_is_missing() {
    let log = log_of_12("tamper-delete");
    log.db()
        .execute("DELETE FROM entry WHERE idx = 5", [])
        .expect("delete");
    log.assert_broken(
        &[],
        "entry 5: missing (the next stored entry is at position 6)",
    );
}

#[test]
fn an_entry_no_checkpoint_covers_was_appended_without_the_key() {
    // A fabricated entry 12 (entry 11's record, claiming position 12), with its leaf.
    let log = log_of_12("tamper-unsealed");
    let record = String::from_utf8(log.record(11)).expect("ASCII");
    let fabricated = record.replace(r#""seq":11"#, r#""seq":12"#);
    assert_ne!(record, fabricated);
    log.db()
        .execute(
            "INSERT INTO entry (idx, record, leaf) VALUES (12, ?1, ?2)",
            rusqlite::params![
                fabricated.as_bytes(),
                seal::log::tlog::leaf_hash(fabricated.as_bytes())
                    .as_bytes()
                    .as_slice()
            ],
        )
        .expect("insert");
    log.assert_broken(
        &[],
        "entry 12: not covered by any checkpoint (the latest signed checkpoint commits 12 entries): appended without the log key",
    );
    // The same, by deleting the latest checkpoint.
    let log = log_of_12("tamper-unsealed-checkpoint");
    log.db()
        .execute("DELETE FROM checkpoint WHERE size = 12", [])
        .expect("delete");
    log.assert_broken(
        &[],
        "entry 11: not covered by any checkpoint (the latest signed checkpoint commits 11 entries): appended without the log key",
    );
}

#[test]
fn a_checkpoint_signed_by_another_key_is_named() {
    let log = log_of_12("tamper-other-key");
    // Another seed under the log's own name: the right origin, an unknown key.
    let other = crate::support::audit::AuditLog::new("tamper-other-key-2");
    let stranger = crate::support::audit::signing_key(&other.key);
    let tree = log.tree();
    let checkpoint = seal::log::tlog::Checkpoint::new(
        crate::support::audit::ORIGIN,
        8,
        tree.root(8).expect("root"),
    )
    .expect("checkpoint");
    let note = stranger.sign_checkpoint(&checkpoint).expect("signed");
    log.db()
        .execute(
            "UPDATE checkpoint SET note = ?1 WHERE size = 8",
            rusqlite::params![note],
        )
        .expect("replace");
    log.assert_broken(
        &[],
        "checkpoint at size 8: checkpoint carries no signature by a known key",
    );
}

#[test]
fn checkpoints_stored_under_other_sizes_are_named() {
    let log = log_of_12("tamper-checkpoint-swap");
    log.db()
        .execute_batch(
            "UPDATE checkpoint SET size = -1 WHERE size = 8;
             UPDATE checkpoint SET size = 8 WHERE size = 12;
             UPDATE checkpoint SET size = 12 WHERE size = -1;",
        )
        .expect("swap");
    log.assert_broken(
        &[],
        "checkpoint at size 12: it commits size 8, not the size it is stored under",
    );
}

#[test]
fn a_log_without_checkpoints_is_broken() {
    let log = log_of_12("tamper-no-checkpoint");
    log.db()
        .execute("DELETE FROM checkpoint", [])
        .expect("delete");
    log.assert_broken(&[], "the log holds no signed checkpoint");
}
