//! Running the built `seal` binary in tests: stdin in; stdout, stderr and the exit code out;
//! unique temporary directories removed on drop.

pub mod audit;
pub mod race;
pub mod redis_server;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one run of the binary gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The snapshot text: exit code, stdout, stderr.
    pub fn snapshot(&self) -> String {
        format!(
            "exit: {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// stdout parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).expect("stdout is JSON")
    }
}

/// The fixture file `name` (under tests/fixtures).
pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The fixed time the fixtures are used at (2026-06-01T00:00:00Z).
pub const NOW: &str = "1780272000";

/// The words of a `seal sign` call with the keys file `keys`, the key `key_id` and the
/// conversation `conversation`, then `rest` (attributes and flags) as given.
pub fn sign_args<'a>(
    keys: &'a str,
    key_id: &'a str,
    conversation: &'a str,
    rest: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "sign",
        "--keys",
        keys,
        "--key-id",
        key_id,
        "--conversation",
        conversation,
    ];
    args.extend_from_slice(rest);
    args
}

/// Runs `seal args` with `stdin`, with no SEAL_* variable (nor `CODEX_HOME`, `CLAUDE_CONFIG_DIR`)
/// from the environment except `env`, and a replay state of its own (`SEAL_STATE`;
/// `("SEAL_STATE", "")` in `env` leaves it unset); `doctor` with a HOME that does not exist
/// unless `env` gives one.
pub fn seal(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    seal_in(None, args, stdin, env)
}

/// As [`seal`], in the directory `dir`.
pub fn seal_in(dir: Option<&Path>, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    seal_with(dir, &args, stdin, env, Stdout::Read)
}

/// Where the binary's stdout goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    /// A pipe the test reads.
    Read,
    /// A pipe whose read end is closed before the binary writes anything.
    Closed,
    /// `/dev/null` (what a stdout closed before the start becomes in a Rust program).
    Null,
}

/// The general form of [`seal_in`]: arguments that need not be UTF-8, stdout sent to `stdout`.
pub fn seal_with(
    dir: Option<&Path>,
    args: &[OsString],
    stdin: &[u8],
    env: &[(&str, &str)],
    stdout: Stdout,
) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_seal"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(if stdout == Stdout::Null {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stderr(Stdio::piped());
    for (key, _) in std::env::vars() {
        if key.starts_with("SEAL_") {
            command.env_remove(key);
        }
    }
    // The clients' configuration directories add paths the self-protection guard lists.
    command
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR");
    // The approval server's default socket (a protected folder) follows XDG_RUNTIME_DIR.
    command.env_remove("XDG_RUNTIME_DIR");
    // `doctor` reports the hooks installed in the user's client settings: a run gets a HOME
    // with none (unless `env` gives one), so the machine's own settings never show in it.
    if args.first().is_some_and(|arg| arg == "doctor") {
        command.env("HOME", "/nonexistent-seal-home");
    }
    // A replay state of its own for every run, so runs never see each other's claims unless a
    // test gives one state (`--state`, or `SEAL_STATE` in `env`) to several runs on purpose.
    let state = own_state();
    command.env("SEAL_STATE", &state);
    for (key, value) in env {
        if *key == "SEAL_STATE" && value.is_empty() {
            command.env_remove(key);
        } else {
            command.env(key, value);
        }
    }
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the seal binary starts");
    if stdout == Stdout::Closed {
        drop(child.stdout.take());
    }
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may stop reading early (over a limit): a broken pipe is expected then.
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("the seal binary runs");
    writer.join().expect("stdin writer");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", state.display()));
    }
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// A replay state file path of its own (not created) under the system temporary directory.
fn own_state() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "seal-test-state-{}-{}.sqlite3",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// A directory under the system temporary directory with a unique name, removed on drop.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "seal-cli-test-{label}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&path).expect("temp dir");
        TempDir { path }
    }

    /// The path of `name` inside, as a string.
    pub fn file(&self, name: &str) -> String {
        self.path.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A Claude Code `UserPromptSubmit` hook input (fields per the hooks reference).
pub fn prompt_input(prompt: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "session-1",
        "transcript_path": "/home/user/.claude/projects/demo/session-1.jsonl",
        "cwd": "/home/user/project",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }))
    .expect("json")
}

/// Runs the Claude Code prompt hook on `prompt` with the trust store, key file and replay state
/// given, at [`NOW`], with `extra` flags before `--now`; the hook must exit 0 (it always does).
pub fn prompt_hook(store: &str, keys: &str, state: &str, extra: &[&str], prompt: &str) -> Run {
    let mut args = vec![
        "hook",
        "claude-code",
        "user-prompt-submit",
        "--store",
        store,
        "--keys",
        keys,
        "--state",
        state,
    ];
    args.extend_from_slice(extra);
    args.extend(["--now", NOW]);
    let run = seal(&args, &prompt_input(prompt), &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    run
}

/// A Claude Code `PreToolUse` hook input (fields per the hooks reference).
pub fn tool_input(tool_name: &str, tool_input: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": "session-1",
        "transcript_path": "/home/user/.claude/projects/demo/session-1.jsonl",
        "cwd": "/home/user/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC",
    }))
    .expect("json")
}

/// The signed frame of the fixtures: key `test-frames`, conversation `session-1`, id `m1`,
/// issued at [`NOW`] (`seal sign .. --now 1780272000`).
pub const SIGNED_FRAME: &str = "<channel source=\"telegram\" id=\"m1\" iat=\"1780272000\" kid=\"test-frames\" sig=\"J4y-1UhwYmn3XGiFd8fYGy\">hello from telegram \\u{3c}/channel> still the body</channel>";
