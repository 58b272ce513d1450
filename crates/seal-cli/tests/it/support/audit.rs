//! A decision log in a temporary directory for the `audit_*` tests: `seal audit init`, tool
//! hooks that record in it, `seal audit verify`, and tampering done directly in its SQLite file
//! (the way someone holding the file, and perhaps the key, would).

use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use rusqlite::{params, Connection};
use seal::log::tlog::{leaf_hash, Checkpoint, Frontier, MerkleHash, Tree};
use seal::log::LogSigningKey;
use serde_json::json;

use super::{seal, Run, TempDir};

/// The origin every test log is created with.
pub const ORIGIN: &str = "example.com/seal-audit-test";

/// The time every recorded entry claims (`SEAL_NOW`): 2026-06-01T00:00:00Z.
pub const NOW: &str = super::NOW;

/// Rules with an allow, an ask and a deny.
pub const RULES: &str = r#"{"permissions": {
  "allow": ["Bash(ls:*)", "Bash(git log:*)"],
  "ask": ["Bash(git push:*)"],
  "deny": ["Bash(rm:*)"]
}}"#;

/// A log, its signing key and the rules its hooks decide with, in a directory of their own.
pub struct AuditLog {
    pub dir: TempDir,
    pub log: String,
    pub key: String,
    pub rules: String,
    /// The verifier key `seal audit init` printed.
    pub vkey: String,
}

impl AuditLog {
    /// A new log of origin [`ORIGIN`] (`seal audit init` must succeed), holding its genesis
    /// entry only.
    pub fn new(label: &str) -> AuditLog {
        AuditLog::with_origin(label, ORIGIN)
    }

    /// A new log of origin `origin`.
    pub fn with_origin(label: &str, origin: &str) -> AuditLog {
        let dir = TempDir::new(label);
        let (log, key, rules) = (
            dir.file("audit.db"),
            dir.file("audit.key"),
            dir.file("rules.json"),
        );
        std::fs::write(&rules, RULES).expect("rules");
        let run = seal(
            &[
                "audit",
                "init",
                "--log",
                &log,
                "--log-key",
                &key,
                "--origin",
                origin,
            ],
            b"",
            &[("SEAL_NOW", NOW)],
        );
        assert_eq!(run.code, 0, "{}", run.snapshot());
        let vkey = line_of(&run, "verifier key: ").to_owned();
        AuditLog {
            dir,
            log,
            key,
            rules,
            vkey,
        }
    }

    /// Runs the Claude Code tool hook on a `Bash` call of `command` in `session`, recording in
    /// this log, with `env` added (`SEAL_NOW` is [`NOW`] unless `env` sets it).
    pub fn hook_env(
        &self,
        session: &str,
        call_id: &str,
        command: &str,
        env: &[(&str, &str)],
    ) -> Run {
        self.hook_with(
            &["--log", &self.log, "--log-key", &self.key],
            session,
            "Bash",
            call_id,
            command,
            env,
        )
    }

    /// The Claude Code tool hook with the log flags `log_flags`, on a `tool` call.
    pub fn hook_with(
        &self,
        log_flags: &[&str],
        session: &str,
        tool: &str,
        call_id: &str,
        command: &str,
        env: &[(&str, &str)],
    ) -> Run {
        let input = serde_json::to_vec(&json!({
            "hook_event_name": "PreToolUse",
            "session_id": session,
            "tool_name": tool,
            "tool_use_id": call_id,
            "tool_input": {"command": command},
            "cwd": self.dir.path.to_string_lossy(),
            "permission_mode": "default",
        }))
        .expect("json");
        let mut args = vec![
            "hook",
            "claude-code",
            "pre-tool-use",
            "--rules",
            &self.rules,
        ];
        args.extend_from_slice(log_flags);
        let mut all_env = vec![("SEAL_NOW", NOW)];
        all_env.extend_from_slice(env);
        seal(&args, &input, &all_env)
    }

    /// Records one decision: the hook must answer `decision`.
    pub fn decide(&self, session: &str, call_id: &str, command: &str, decision: &str) {
        let run = self.hook_env(session, call_id, command, &[]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        assert_eq!(
            run.json()["hookSpecificOutput"]["permissionDecision"],
            decision,
            "{}",
            run.snapshot()
        );
    }

    /// Records `count` decisions in session `session`, alternating an allowed `ls` and a
    /// denied `rm`, with call ids `<session>-<n>`.
    pub fn decide_many(&self, session: &str, count: usize) {
        for n in 0..count {
            let call_id = format!("{session}-{n}");
            if n % 2 == 0 {
                self.decide(session, &call_id, &format!("ls -la {n}"), "allow");
            } else {
                self.decide(session, &call_id, &format!("rm -rf t{n}"), "deny");
            }
        }
    }

    /// `seal audit verify` with the signing key file and `extra` flags.
    pub fn verify(&self, extra: &[&str]) -> Run {
        let mut args = vec![
            "audit",
            "verify",
            "--log",
            &self.log,
            "--log-key",
            &self.key,
        ];
        args.extend_from_slice(extra);
        seal(&args, b"", &[])
    }

    /// `seal audit verify`: exit 30 with `BROKEN: <broken>` as the last line (no strength: a
    /// broken log is not checked to any extent).
    pub fn assert_broken(&self, extra: &[&str], broken: &str) {
        let run = self.verify(extra);
        assert_eq!(run.code, 30, "{}", run.snapshot());
        let last = run.stdout.lines().last().unwrap_or_default();
        assert_eq!(last, format!("BROKEN: {broken}"), "{}", run.snapshot());
    }

    /// `seal audit verify` without a kept checkpoint: exit 0, `ok` and the local-only strength,
    /// for a log of `entries` entries.
    pub fn assert_ok_locally(&self, entries: u64) {
        let run = self.verify(&[]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 5, "{}", run.snapshot());
        let header = format!("log `{}` (origin ", self.log);
        assert!(lines[0].starts_with(&header), "{}", run.snapshot());
        assert_eq!(lines[1], "verifier key from the signing key file");
        assert!(
            lines[2].starts_with(&format!(
                "{entries} entries; latest checkpoint size {entries}; root "
            )),
            "{}",
            run.snapshot()
        );
        assert_eq!(lines[3], "ok", "{}", run.snapshot());
        assert_eq!(
            lines[4],
            format!("strength: {LOCAL_ONLY}"),
            "{}",
            run.snapshot()
        );
    }

    /// Writes the log's latest checkpoint (`seal audit checkpoint`) to `name` in the directory
    /// and returns its path.
    pub fn keep_checkpoint(&self, name: &str) -> String {
        let run = seal(&["audit", "checkpoint", "--log", &self.log], b"", &[]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        let path = self.dir.file(name);
        std::fs::write(&path, &run.stdout).expect("kept checkpoint");
        path
    }

    /// A connection to the log's SQLite file.
    pub fn db(&self) -> Connection {
        Connection::open(&self.log).expect("the log opens")
    }

    /// The number of stored entries.
    pub fn entries(&self) -> u64 {
        self.db()
            .query_row("SELECT count(*) FROM entry", [], |row| row.get(0))
            .expect("count")
    }

    /// The stored record of entry `seq`.
    pub fn record(&self, seq: u64) -> Vec<u8> {
        self.db()
            .query_row(
                "SELECT record FROM entry WHERE idx = ?1",
                params![seq],
                |row| row.get(0),
            )
            .expect("record")
    }

    /// Replaces the record of entry `seq` (the stored leaf stays).
    pub fn set_record(&self, seq: u64, record: &[u8]) {
        let changed = self
            .db()
            .execute(
                "UPDATE entry SET record = ?1 WHERE idx = ?2",
                params![record, seq],
            )
            .expect("edit");
        assert_eq!(changed, 1);
    }

    /// Replaces the record of entry `seq` and stores the leaf hash it has.
    pub fn set_record_and_leaf(&self, seq: u64, record: &[u8]) {
        let leaf = leaf_hash(record);
        let changed = self
            .db()
            .execute(
                "UPDATE entry SET record = ?1, leaf = ?2 WHERE idx = ?3",
                params![record, leaf.as_bytes().as_slice(), seq],
            )
            .expect("edit");
        assert_eq!(changed, 1);
    }

    /// The tree of the stored records (each leaf recomputed from its record).
    pub fn tree(&self) -> Tree {
        let db = self.db();
        let mut statement = db
            .prepare("SELECT record FROM entry ORDER BY idx")
            .expect("select");
        let mut tree = Tree::new();
        for record in statement
            .query_map([], |row| row.get::<_, Vec<u8>>(0))
            .expect("records")
        {
            tree.push(leaf_hash(&record.expect("record")));
        }
        tree
    }

    /// Deletes every entry at or after `from` (and its index row); with `checkpoints`, also
    /// every checkpoint beyond `from` entries and the frontier, which is rebuilt for the first
    /// `from` entries, so appends go on from there.
    pub fn truncate(&self, from: u64, checkpoints: bool) {
        let db = self.db();
        db.execute("DELETE FROM entry WHERE idx >= ?1", params![from])
            .expect("cut");
        db.execute("DELETE FROM ev WHERE idx >= ?1", params![from])
            .expect("cut");
        if checkpoints {
            db.execute("DELETE FROM checkpoint WHERE size > ?1", params![from])
                .expect("cut");
            drop(db);
            self.rewrite_frontier();
        }
    }

    /// Rebuilds the tree from the stored records, re-signs every stored checkpoint with the
    /// log's own signing key, and rewrites the frontier: what a holder of the key can do after
    /// any edit.
    pub fn resign(&self) {
        let key = signing_key(&self.key);
        let tree = self.tree();
        let db = self.db();
        let sizes: Vec<u64> = db
            .prepare("SELECT size FROM checkpoint")
            .expect("sizes")
            .query_map([], |row| row.get(0))
            .expect("sizes")
            .map(|size| size.expect("size"))
            .collect();
        for size in sizes {
            let root = tree.root(size).expect("root");
            let checkpoint = Checkpoint::new(key.name(), size, root).expect("checkpoint");
            let note = key.sign_checkpoint(&checkpoint).expect("signed");
            db.execute(
                "UPDATE checkpoint SET note = ?1 WHERE size = ?2",
                params![note, size],
            )
            .expect("re-sign");
        }
        drop(db);
        self.rewrite_frontier();
    }

    /// Rewrites the stored frontier to the one of the stored records.
    fn rewrite_frontier(&self) {
        let db = self.db();
        let mut frontier = Frontier::new();
        let mut statement = db
            .prepare("SELECT record FROM entry ORDER BY idx")
            .expect("select");
        for record in statement
            .query_map([], |row| row.get::<_, Vec<u8>>(0))
            .expect("records")
        {
            frontier
                .push(leaf_hash(&record.expect("record")))
                .expect("push");
        }
        drop(statement);
        let hashes: Vec<u8> = frontier
            .hashes()
            .iter()
            .flat_map(|hash| hash.as_bytes().iter().copied())
            .collect();
        db.execute("DELETE FROM frontier", []).expect("frontier");
        db.execute(
            "INSERT INTO frontier (size, hashes) VALUES (?1, ?2)",
            params![frontier.size(), hashes],
        )
        .expect("frontier");
    }

    /// Copies the log's files (the database and its write-ahead log) to `name` and `name-wal`
    /// in the directory.
    pub fn copy_to(&self, name: &str) -> String {
        let to = self.dir.file(name);
        copy_files(&self.log, &to);
        to
    }

    /// Puts the copy `from` back in place of the log.
    pub fn restore(&self, from: &str) {
        copy_files(from, &self.log);
    }

    /// A copy of the log, its key and its rules in a directory of their own: the same log,
    /// which may then grow apart from this one.
    pub fn fork(&self, label: &str) -> AuditLog {
        let dir = TempDir::new(label);
        let (log, key, rules) = (
            dir.file("audit.db"),
            dir.file("audit.key"),
            dir.file("rules.json"),
        );
        copy_files(&self.log, &log);
        std::fs::copy(&self.key, &key).expect("copy the key");
        std::fs::copy(&self.rules, &rules).expect("copy the rules");
        AuditLog {
            dir,
            log,
            key,
            rules,
            vkey: self.vkey.clone(),
        }
    }
}

/// The strength line's text when no kept checkpoint is given.
pub const LOCAL_ONLY: &str = "local-only integrity: the log matches its own signed checkpoints, but a holder of the log key (any process running as this user) could have replaced the whole log; keep `seal audit checkpoint` output elsewhere and verify with --since-checkpoint";

/// The rest of the first stdout line of `run` that starts with `prefix`.
pub fn line_of<'a>(run: &'a Run, prefix: &str) -> &'a str {
    let found = run
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix(prefix));
    assert!(
        found.is_some(),
        "no line `{prefix}...`:\n{}",
        run.snapshot()
    );
    found.expect("the line")
}

/// The root a kept checkpoint file commits.
pub fn kept_root(path: &str) -> MerkleHash {
    let note = std::fs::read_to_string(path).expect("kept checkpoint");
    let (body, _signatures) = note.split_once("\n\n").expect("a signed note");
    *Checkpoint::parse(&format!("{body}\n"))
        .expect("checkpoint")
        .root()
}

/// The log signing key in the key file at `path` (`seal-log-key-v1`, the origin, the base64
/// seed).
pub fn signing_key(path: &str) -> LogSigningKey {
    let text = std::fs::read_to_string(path).expect("key file");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "a key file has three lines");
    assert_eq!(lines[0], "seal-log-key-v1");
    let seed = STANDARD.decode(lines[2]).expect("base64 seed");
    LogSigningKey::from_seed(lines[1], &seed).expect("a log key")
}

/// Copies a closed SQLite file and its write-ahead log; the target's WAL index is removed (the
/// next opener rebuilds it from the WAL).
fn copy_files(from: &str, to: &str) {
    for suffix in ["", "-wal"] {
        let (source, target) = (format!("{from}{suffix}"), format!("{to}{suffix}"));
        if Path::new(&source).exists() {
            std::fs::copy(&source, &target).expect("copy");
        } else {
            let _ = std::fs::remove_file(&target);
        }
    }
    let _ = std::fs::remove_file(format!("{to}-shm"));
}
