//! `seal audit push` against the fleet's real PostgreSQL (started by `scripts/test`): two
//! machines, each a `seal` process with its own log, push as their logs grow; a machine that
//! rolls its log back, or forks it, is refused by the store with the log and sizes named.

use std::path::Path;

use seal_test_support::postgres_server::TestSchema;

use crate::support::{seal, tool_input};

const RULES: &str = r#"{"permissions":{"allow":["Bash(ls:*)"],"deny":["Bash(rm:*)"]}}"#;

/// A machine: its own folder with a log, its key and a rules file.
struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    fn new(origin: &str) -> Machine {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rules.json"), RULES).unwrap();
        let machine = Machine { dir };
        let run = seal(
            &[
                "audit",
                "init",
                "--log",
                &machine.log(),
                "--log-key",
                &machine.key(),
                "--origin",
                origin,
            ],
            b"",
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        machine
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn log(&self) -> String {
        self.path("audit.db")
    }

    fn key(&self) -> String {
        self.path("audit.key")
    }

    fn decide(&self, command: &str) {
        let input = tool_input("Bash", serde_json::json!({ "command": command }));
        let rules = self.path("rules.json");
        let run = seal(
            &[
                "hook",
                "claude-code",
                "pre-tool-use",
                "--rules",
                &rules,
                "--log",
                &self.log(),
                "--log-key",
                &self.key(),
            ],
            &input,
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("permissionDecision"), "{}", run.stdout);
    }

    fn push(&self, url: &str) -> crate::support::Run {
        seal(
            &["audit", "push", "--log", &self.log(), "--fleet", url],
            b"",
            &[],
        )
    }

    /// A copy of the log's files as they are now.
    fn snapshot(&self, into: &Path) {
        let fold = seal(&["audit", "checkpoint", "--log", &self.log()], b"", &[]);
        assert_eq!(fold.code, 0, "{}", fold.stderr);
        for suffix in ["", "-wal", "-shm"] {
            let from = format!("{}{suffix}", self.log());
            if Path::new(&from).exists() {
                std::fs::copy(&from, into.join(format!("audit.db{suffix}"))).unwrap();
            }
        }
    }

    fn restore(&self, from: &Path) {
        for suffix in ["", "-wal", "-shm"] {
            let target = format!("{}{suffix}", self.log());
            let _ = std::fs::remove_file(&target);
            let source = from.join(format!("audit.db{suffix}"));
            if source.exists() {
                std::fs::copy(&source, &target).unwrap();
            }
        }
    }
}

fn store() -> (TestSchema, String) {
    let schema = TestSchema::new("cli_push");
    let url = schema.url();
    let run = seal(&["audit", "push", "--help"], b"", &[]);
    assert_eq!(run.code, 0);
    (schema, url)
}

fn install(url: &str, machine: &Machine) {
    let run = seal(
        &[
            "audit",
            "push",
            "--log",
            &machine.log(),
            "--fleet",
            url,
            "--install-schema",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn two_machines_push_as_their_logs_grow() {
    let (_schema, url) = store();
    let one = Machine::new("seal.audit/machine-one");
    let two = Machine::new("seal.audit/machine-two");
    install(&url, &one);
    for round in 0..3 {
        one.decide("ls -la");
        two.decide("rm -rf build");
        two.decide("ls");
        let pushed_one = one.push(&url);
        assert_eq!(pushed_one.code, 0, "{}", pushed_one.stderr);
        let pushed_two = two.push(&url);
        assert_eq!(pushed_two.code, 0, "{}", pushed_two.stderr);
        assert_eq!(
            pushed_two.stdout,
            format!(
                "pushed seal.audit/machine-two size {} (the store held {})\n",
                3 + 2 * round,
                if round == 0 { 0 } else { 1 + 2 * round }
            )
        );
    }
}

#[test]
fn a_machine_that_rolls_its_log_back_is_refused() {
    let (_schema, url) = store();
    let machine = Machine::new("seal.audit/rolls-back");
    install(&url, &machine);
    machine.decide("ls");
    let old = tempfile::tempdir().unwrap();
    machine.snapshot(old.path());
    machine.decide("rm -rf x");
    machine.decide("ls -l");
    assert_eq!(machine.push(&url).code, 0);
    machine.restore(old.path());
    let refused = machine.push(&url);
    assert_eq!(refused.code, 30, "{}", refused.stdout);
    assert_eq!(
        refused.stderr,
        "seal: the fleet store refused the push: rollback of log `seal.audit/rolls-back`: held size 4, pushed size 2\n"
    );
}

#[test]
fn a_machine_whose_log_forks_is_refused() {
    let (_schema, url) = store();
    let machine = Machine::new("seal.audit/forks");
    install(&url, &machine);
    machine.decide("ls");
    let fork_point = tempfile::tempdir().unwrap();
    machine.snapshot(fork_point.path());
    machine.decide("ls -la");
    assert_eq!(machine.push(&url).code, 0);
    // Another history from the fork point, grown past the held size.
    machine.restore(fork_point.path());
    machine.decide("rm -rf build");
    machine.decide("ls -R");
    let refused = machine.push(&url);
    assert_eq!(refused.code, 30, "{}", refused.stdout);
    assert!(
        refused.stderr.starts_with(
            "seal: the fleet store refused the push: unproven extension of log `seal.audit/forks`: held size 3, pushed size 4"
        ),
        "{}",
        refused.stderr
    );
}
