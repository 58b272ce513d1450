//! A hook's answer time as the client sees it: from spawning the built `seal` binary to reading
//! its answer, for `pre-tool-use` over a 300-rule file (an allowed three-segment `Bash` call, and
//! a `Write` the rules allow), next to `seal --version` in the same run (process start, the
//! command line and one line of output: the floor any hook pays).
//!
//! The `Bash` call is also answered with `--log` (a decision log made by `seal audit init` in a
//! temporary HOME, its default signing key): what recording the decision adds to the answer
//! (open the SQLite file, load the key, one append: entry, leaf, checkpoint signed with
//! Ed25519, frontier and index in one transaction). Every call runs with the same HOME, so the
//! two differ by the log alone. The log grows by one entry each call.
//!
//! Run with `cargo bench -p seal-cli --bench hook`; the targets are a median of at most 5 ms,
//! and at most 2 ms more with the log.
//!
//! Measured (2 cores, Linux, release build; criterion medians):
//!
//! | bench                                | median  |
//! |--------------------------------------|---------|
//! | `seal_version_process_floor`         | 1.48 ms |
//! | `pre_tool_use_300_rules_bash`        | 2.72 ms |
//! | `pre_tool_use_300_rules_bash_logged` | 3.60 ms |
//! | `pre_tool_use_300_rules_write_4k`    | 2.68 ms |
//!
//! The log adds 0.89 ms (target: at most 2 ms): opening the log, one append of the entry with
//! its signed checkpoint, and now and then folding the write-ahead log past 256 KiB, which keeps
//! every later opening from rereading a long one.
#![allow(missing_docs, clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};
use seal_test_support::permissions_json;

/// A rules file of 300 rules in the shapes real settings files use: broad program allows,
/// subcommand allows and denies, path rules, web and MCP rules.
fn rules_300() -> String {
    let programs = [
        "git", "npm", "cargo", "docker", "kubectl", "python3", "node", "make", "go", "yarn",
    ];
    let verbs = [
        "status", "log", "diff", "show", "test", "build", "run", "list", "ls", "inspect",
    ];
    let mut allow = Vec::new();
    let mut ask = Vec::new();
    let mut deny = Vec::new();
    for program in programs {
        for verb in verbs {
            allow.push(format!("Bash({program} {verb}:*)"));
        }
        ask.push(format!("Bash({program} push:*)"));
        deny.push(format!("Bash({program} rm -rf:*)"));
        deny.push(format!("Bash({program} --force:*)"));
    }
    for index in 0..35 {
        allow.push(format!("Read(./src/module{index}/**)"));
        allow.push(format!("Edit(./src/module{index}/**)"));
        deny.push(format!("Read(./secrets/s{index}.env)"));
    }
    for index in 0..30 {
        allow.push(format!("WebFetch(domain:docs{index}.example.com)"));
        allow.push(format!("mcp__server{index}__read"));
    }
    deny.extend(["Bash(rm:*)".to_owned(), "Bash(curl:*)".to_owned()]);
    allow.push("Edit(./docs/**)".to_owned());
    let total = allow.len() + ask.len() + deny.len();
    let extra = 300usize.saturating_sub(total);
    for index in 0..extra {
        deny.push(format!("Bash(tool{index}:*)"));
    }
    let text = permissions_json(&allow, &ask, &deny);
    assert_eq!(allow.len() + ask.len() + deny.len(), 300);
    text
}

fn payload(tool: &str, input: &str) -> Vec<u8> {
    format!(
        "{{\"session_id\":\"s-1\",\"transcript_path\":\"/home/u/.claude/projects/p/s-1.jsonl\",\
         \"cwd\":\"/home/u/project\",\"permission_mode\":\"default\",\
         \"hook_event_name\":\"PreToolUse\",\"tool_name\":\"{tool}\",\"tool_input\":{input},\
         \"tool_use_id\":\"toolu_01\"}}"
    )
    .into_bytes()
}

/// Spawns `seal args` with `stdin`, HOME at `home` (and no other setting of where the log and
/// its key are), and waits for its answer; panics unless it exits 0.
fn answer(home: &Path, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("SEAL_LOG")
        .env_remove("SEAL_LOG_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    output.stdout
}

fn hook(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("seal-bench-hook-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules_path: PathBuf = dir.join("rules.json");
    std::fs::write(&rules_path, rules_300()).unwrap();
    let rules = rules_path.to_str().unwrap().to_owned();
    let hook_args = ["hook", "claude-code", "pre-tool-use", "--rules", &rules];
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let log_path = dir.join("audit.db");
    let log = log_path.to_str().unwrap().to_owned();
    answer(&home, &["audit", "init", "--log", &log], b"");
    let logged_args = [
        "hook",
        "claude-code",
        "pre-tool-use",
        "--rules",
        &rules,
        "--log",
        &log,
    ];
    let bash = payload(
        "Bash",
        r#"{"command":"git status && cargo test --workspace | npm run lint","description":"check"}"#,
    );
    let write = payload(
        "Write",
        &format!(
            "{{\"file_path\":\"/home/u/project/docs/notes.md\",\"content\":{:?}}}",
            "a line of notes\n".repeat(256)
        ),
    );
    for (args, call, expected) in [
        (&hook_args[..], &bash, "allow"),
        (&hook_args[..], &write, "allow"),
        (&logged_args[..], &bash, "allow"),
    ] {
        let text = String::from_utf8(answer(&home, args, call)).unwrap();
        assert!(
            text.contains(&format!("\"permissionDecision\":\"{expected}\"")),
            "{text}"
        );
    }
    // The logged call recorded its decision (after the genesis entry) and the log verifies.
    let shown = answer(&home, &["audit", "show", "--log", &log, "--json"], b"");
    assert!(String::from_utf8(shown).unwrap().contains("hook/decision"));
    answer(&home, &["audit", "verify", "--log", &log], b"");

    let mut group = c.benchmark_group("hook");
    group.sample_size(60);
    group.bench_function("seal_version_process_floor", |b| {
        b.iter(|| answer(&home, &["--version"], b""))
    });
    group.bench_function("pre_tool_use_300_rules_bash", |b| {
        b.iter(|| answer(&home, &hook_args, &bash))
    });
    group.bench_function("pre_tool_use_300_rules_bash_logged", |b| {
        b.iter(|| answer(&home, &logged_args, &bash))
    });
    group.bench_function("pre_tool_use_300_rules_write_4k", |b| {
        b.iter(|| answer(&home, &hook_args, &write))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, hook);
criterion_main!(benches);
