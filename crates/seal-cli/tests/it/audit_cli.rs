//! `seal audit` on the built binary: `init` creates a log once, the hooks record in it (`--shadow`
//! records without answering; a log that cannot record turns the call into a deny), `show`
//! filters, and `prove` gives a proof `check-proof` accepts for the record and refuses for any
//! other bytes.

use crate::support::audit::{AuditLog, NOW, ORIGIN};
use crate::support::{seal, Run};

/// The lines of `seal audit show` with `filter`, each digest (16 hexadecimal digits shown)
/// replaced by `..`.
fn shown(log: &AuditLog, filter: &[&str]) -> Vec<String> {
    let mut args = vec!["audit", "show", "--log", &log.log];
    args.extend_from_slice(filter);
    let run = seal(&args, b"", &[("SEAL_NOW", NOW)]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    run.stdout
        .lines()
        .map(|line| {
            let words: Vec<String> = line
                .split(' ')
                .map(|word| match word.split_once('=') {
                    Some((name @ ("arguments" | "policy"), hex)) => {
                        assert!(
                            hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
                            "{line}"
                        );
                        format!("{name}=..")
                    }
                    _ => word.to_owned(),
                })
                .collect();
            words.join(" ")
        })
        .collect()
}

/// The hook's answer: its decision and reason.
fn answer(run: &Run) -> (String, String) {
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let output = &run.json()["hookSpecificOutput"];
    (
        output["permissionDecision"]
            .as_str()
            .expect("decision")
            .to_owned(),
        output["permissionDecisionReason"]
            .as_str()
            .expect("reason")
            .to_owned(),
    )
}

#[test]
fn init_prints_the_log_and_its_keys() {
    let log = AuditLog::new("audit-init");
    let key_text = std::fs::read_to_string(&log.key).expect("key");
    assert!(
        key_text.starts_with(&format!("seal-log-key-v1\n{ORIGIN}\n")),
        "{key_text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&log.key)
            .expect("key")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(log.entries(), 1);
    let record: serde_json::Value = serde_json::from_slice(&log.record(0)).expect("JSON");
    assert_eq!(record["_type"], "log/genesis");
    assert_eq!(record["origin"], ORIGIN);
    assert_eq!(record["key"].as_str(), Some(log.vkey.as_str()));
    assert!(log.vkey.starts_with(&format!("{ORIGIN}+")), "{}", log.vkey);
    log.assert_ok_locally(1);
}

#[test]
fn init_refuses_an_existing_log() {
    let log = AuditLog::new("audit-init-log");
    let other_key = log.dir.file("other.key");
    let run = seal(
        &["audit", "init", "--log", &log.log, "--log-key", &other_key],
        b"",
        &[],
    );
    assert_eq!(run.code, 6, "{}", run.snapshot());
    assert_eq!(
        run.stderr,
        format!("seal: `{}` exists: a log is created once\n", log.log)
    );
    assert!(!std::path::Path::new(&other_key).exists());
    log.assert_ok_locally(1);
}

#[test]
fn init_refuses_an_existing_key() {
    let log = AuditLog::new("audit-init-key");
    let before = std::fs::read(&log.key).expect("key");
    let other_log = log.dir.file("other.db");
    let run = seal(
        &["audit", "init", "--log", &other_log, "--log-key", &log.key],
        b"",
        &[],
    );
    assert_eq!(run.code, 6, "{}", run.snapshot());
    assert_eq!(
        run.stderr,
        format!(
            "seal: cannot create the log key `{}`: File exists (os error 17)\n",
            log.key
        )
    );
    assert!(!std::path::Path::new(&other_log).exists());
    assert_eq!(std::fs::read(&log.key).expect("key"), before);
}

#[test]
fn show_filters_by_decision_session_rule_time_and_type() {
    let log = AuditLog::new("audit-show");
    let two_hours_ago = (NOW.parse::<u64>().expect("NOW") - 7_200).to_string();
    let run = log.hook_env("old", "c1", "rm -rf old", &[("SEAL_NOW", &two_hours_ago)]);
    assert_eq!(answer(&run).0, "deny");
    log.decide("s1", "c2", "ls -la", "allow");
    log.decide("s1", "c3", "rm -rf t", "deny");
    log.decide("s2", "c4", "git push origin", "ask");
    assert_eq!(
        shown(&log, &["--type", "log/genesis"]),
        [format!(
            "#0 2026-06-01T00:00:00Z log/genesis key={} origin={ORIGIN}",
            log.vkey
        )]
    );
    let decision = |seq: u64, time: &str, session: &str, call: &str, decision: &str, by: &str| {
        format!("#{seq} {time} hook/decision agent=claude-code arguments=.. by={by} call_id={call} decision={decision} policy=.. session={session} tool=Bash")
    };
    let old = decision(
        1,
        "2026-05-31T22:00:00Z",
        "old",
        "c1",
        "deny",
        "rules: Bash(rm:*)",
    );
    let allow = decision(
        2,
        "2026-06-01T00:00:00Z",
        "s1",
        "c2",
        "allow",
        "rules: Bash(ls:*)",
    );
    let deny = decision(
        3,
        "2026-06-01T00:00:00Z",
        "s1",
        "c3",
        "deny",
        "rules: Bash(rm:*)",
    );
    let ask = decision(
        4,
        "2026-06-01T00:00:00Z",
        "s2",
        "c4",
        "ask",
        "rules: Bash(git push:*)",
    );
    assert_eq!(shown(&log, &["--decision", "deny"]), [old.as_str(), &deny]);
    assert_eq!(shown(&log, &["--session", "s1"]), [allow.as_str(), &deny]);
    assert_eq!(shown(&log, &["--rule", "Bash(rm"]), [old.as_str(), &deny]);
    assert_eq!(
        shown(&log, &["--type", "hook/decision", "--since", "1h"]),
        [allow.as_str(), &deny, &ask]
    );
    assert_eq!(
        shown(&log, &["--type", "hook/decision", "--limit", "1"]),
        [ask.as_str()]
    );
    assert_eq!(
        shown(
            &log,
            &["--decision", "deny", "--session", "s1", "--since", "1h"]
        ),
        [deny.as_str()]
    );
    assert!(shown(&log, &["--session", "none"]).is_empty());
    assert!(shown(&log, &["--type", "manifest/verified"]).is_empty());
    let run = seal(
        &["audit", "show", "--log", &log.log, "--since", "yesterday"],
        b"",
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.snapshot());
    assert_eq!(
        run.stderr,
        "seal: `--since` wants seconds since 1970 or an age such as `24h`, not `yesterday`\n"
    );
}

#[test]
fn a_proof_holds_for_the_record_and_for_no_other_bytes() {
    let log = AuditLog::new("audit-proof");
    log.decide_many("s1", 5);
    let run = seal(
        &["audit", "prove", "--log", &log.log, "--index", "3"],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let proof = log.dir.file("proof.txt");
    std::fs::write(&proof, &run.stdout).expect("proof");
    let show = seal(&["audit", "show", "--log", &log.log, "--json"], b"", &[]);
    assert_eq!(show.code, 0, "{}", show.snapshot());
    let line = show.stdout.lines().nth(3).expect("entry 3");
    assert_eq!(line.as_bytes(), log.record(3).as_slice());
    let record = log.dir.file("record.json");
    let check = |bytes: &[u8]| {
        std::fs::write(&record, bytes).expect("record");
        seal(
            &[
                "audit",
                "check-proof",
                &proof,
                "--record",
                &record,
                "--vkey",
                &log.vkey,
            ],
            b"",
            &[],
        )
    };
    let run = check(line.as_bytes());
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert_eq!(
        run.stdout,
        format!("ok: the record is entry 3 of {ORIGIN} (size 6), signed by {ORIGIN}\n")
    );
    // One byte changed anywhere (here: the decision), or a newline added: refused.
    let edited = line.replace(r#""decision":"allow""#, r#""decision":"allou""#);
    assert_ne!(edited, line);
    let with_newline = format!("{line}\n");
    for bytes in [
        edited.as_bytes(),
        with_newline.as_bytes(),
        log.record(2).as_slice(),
    ] {
        let run = check(bytes);
        assert_eq!(run.code, 30, "{}", run.snapshot());
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            "seal: the record is not entry 3 of the checkpoint: proof does not lead to the root\n"
        );
    }
    // The vkey file of another log: the proof's checkpoint does not open.
    let other = AuditLog::with_origin("audit-proof-other", "example.com/other-log");
    let vkey_file = other.dir.file("vkey.txt");
    std::fs::write(&vkey_file, format!("{}\n", other.vkey)).expect("vkey");
    std::fs::write(&record, line).expect("record");
    let run = seal(
        &[
            "audit",
            "check-proof",
            &proof,
            "--record",
            &record,
            "--vkey",
            &vkey_file,
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 30, "{}", run.snapshot());
    assert_eq!(
        run.stderr,
        "seal: proof's checkpoint: checkpoint carries no signature by a known key\n"
    );
    // Beyond the latest checkpoint: nothing to prove.
    let run = seal(
        &["audit", "prove", "--log", &log.log, "--index", "6"],
        b"",
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.snapshot());
    assert_eq!(
        run.stderr,
        "seal: entry 6 is not inside the latest checkpoint (size 6)\n"
    );
}

#[test]
fn shadow_answers_nothing_and_records_the_decision_as_shadow() {
    let log = AuditLog::new("audit-shadow");
    let run = log.hook_with(
        &["--log", &log.log, "--log-key", &log.key, "--shadow"],
        "s1",
        "Bash",
        "c1",
        "rm -rf t",
        &[],
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    assert_eq!(
        shown(&log, &["--type", "hook/decision"]),
        ["#1 2026-06-01T00:00:00Z hook/decision agent=claude-code arguments=.. by=rules: Bash(rm:*) call_id=c1 decision=deny policy=.. session=s1 shadow tool=Bash"]
    );
    log.assert_ok_locally(2);
}

#[test]
fn a_log_that_does_not_exist_denies_the_call() {
    let log = AuditLog::new("audit-no-log");
    let missing = log.dir.file("missing.db");
    let run = log.hook_with(
        &["--log", &missing, "--log-key", &log.key],
        "s1",
        "Bash",
        "c1",
        "ls",
        &[],
    );
    assert_eq!(
        answer(&run),
        (
            "deny".to_owned(),
            format!("seal: the policy check failed, so the call is denied: no log at `{missing}` (create one with `seal audit init`)")
        )
    );
    assert!(!std::path::Path::new(&missing).exists());
}

#[test]
fn a_log_that_cannot_record_denies_the_call_it_would_allow() {
    let log = AuditLog::new("audit-cannot-record");
    // Another log's key signs for another origin.
    let other = AuditLog::with_origin("audit-cannot-record-other", "example.com/other-log");
    let run = log.hook_with(
        &["--log", &log.log, "--log-key", &other.key],
        "s1",
        "Bash",
        "c1",
        "ls",
        &[],
    );
    assert_eq!(
        answer(&run),
        (
            "deny".to_owned(),
            format!("seal: the decision log could not record this call: the key signs for example.com/other-log, the log's origin is {ORIGIN}")
        )
    );
    // A file that refuses writes.
    log.db()
        .execute_batch(
            "CREATE TRIGGER no_entry BEFORE INSERT ON entry BEGIN SELECT RAISE(ABORT, 'no more entries'); END;",
        )
        .expect("trigger");
    let run = log.hook_env("s1", "c2", "ls", &[]);
    assert_eq!(
        answer(&run),
        (
            "deny".to_owned(),
            format!("seal: the decision log could not record this call: log {}: cannot write the entry: no more entries", log.log)
        )
    );
    assert_eq!(log.entries(), 1);
    log.assert_ok_locally(1);
}
