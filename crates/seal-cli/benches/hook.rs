//! A hook's answer time as the client sees it: from spawning the built `seal` binary to reading
//! its answer, for `pre-tool-use` over a 300-rule file (an allowed three-segment `Bash` call, and
//! a `Write` the rules allow), next to `seal --version` in the same run (process start, the
//! command line and one line of output: the floor any hook pays).
//!
//! Run with `cargo bench -p seal-cli --bench hook`; the target is a median of at most 5 ms.
#![allow(missing_docs, clippy::unwrap_used)]

use std::io::Write;
use std::path::PathBuf;
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

/// Spawns `seal args` with `stdin` and waits for its answer; panics unless it exits 0.
fn answer(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_seal"))
        .args(args)
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
    for (call, expected) in [(&bash, "allow"), (&write, "allow")] {
        let text = String::from_utf8(answer(&hook_args, call)).unwrap();
        assert!(
            text.contains(&format!("\"permissionDecision\":\"{expected}\"")),
            "{text}"
        );
    }

    let mut group = c.benchmark_group("hook");
    group.sample_size(60);
    group.bench_function("seal_version_process_floor", |b| {
        b.iter(|| answer(&["--version"], b""))
    });
    group.bench_function("pre_tool_use_300_rules_bash", |b| {
        b.iter(|| answer(&hook_args, &bash))
    });
    group.bench_function("pre_tool_use_300_rules_write_4k", |b| {
        b.iter(|| answer(&hook_args, &write))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, hook);
criterion_main!(benches);
