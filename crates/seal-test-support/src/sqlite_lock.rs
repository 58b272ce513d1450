//! Another process holding an SQLite file's write lock, for the tests of a replay state that
//! must fail closed when its file stays locked.
//!
//! The other process is the test binary itself, running one ignored helper test (the `sqlite3`
//! tool may be missing): the test calls [`spawn_lock_holder`] with the helper's name, and the
//! helper's body is [`hold_lock_if_asked`].

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The environment variable by which [`spawn_lock_holder`] names the file to lock.
pub const HOLD_VARIABLE: &str = "SEAL_TEST_HOLD_SQLITE";

/// Runs the ignored test `helper` of this test binary in a child process that locks `path`,
/// and returns once the child holds the write lock. The caller kills the child to release it.
///
/// The helper is run with `--exact`, so `helper` is its full name in the test binary, module
/// path included: `replay_faults::lock_holder` for a helper in the module `replay_faults` of
/// a `tests/it` binary.
///
/// # Panics
///
/// When the child cannot be started or ends before it holds the lock.
pub fn spawn_lock_holder(helper: &str, path: impl AsRef<OsStr>) -> Child {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", helper, "--nocapture", "--ignored"])
        .env(HOLD_VARIABLE, path.as_ref())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    // The helper prints `L` once it holds the lock.
    loop {
        out.read_exact(&mut byte).unwrap();
        if byte[0] == b'L' {
            break;
        }
    }
    child.stdout = Some(out);
    child
}

/// The body of the helper test of [`spawn_lock_holder`]: when [`HOLD_VARIABLE`] names a file,
/// takes its write lock (`BEGIN IMMEDIATE`), prints `L` and keeps the lock for `hold`; when it
/// does not (an ordinary `--ignored` run), returns at once.
///
/// # Panics
///
/// When the file cannot be opened or locked.
pub fn hold_lock_if_asked(hold: Duration) {
    let Some(path) = std::env::var_os(HOLD_VARIABLE) else {
        return;
    };
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection.execute_batch("BEGIN IMMEDIATE;").unwrap();
    print!("L");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(hold);
}
