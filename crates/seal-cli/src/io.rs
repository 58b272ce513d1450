//! Reading and writing with bounds: stdin and files read up to a named limit, files written
//! through a temporary file in the same directory and renamed, and the clock.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use seal::UnixTime;

use crate::failure::{quoted, Exit, Failure};

/// Most bytes read from stdin by the commands that read text or JSON (16 MiB).
pub const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;

/// Most bytes read from stdin by the hooks (64 MiB: a Claude Code `Write` of tens of MiB fits;
/// the input is read once into one buffer, and what is parsed from it borrows from it where it
/// can, so memory stays a small multiple of the input): over it, `user-prompt-submit` answers a
/// verification-failed alarm and `pre-tool-use` answers deny.
pub const MAX_HOOK_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// Most bytes read from any file named on the command line (64 MiB).
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;

/// Writes `text` to stdout and flushes it. A closed or failing stdout is an output failure
/// (exit 6), never a panic.
pub fn emit(text: &str) -> Result<(), Failure> {
    emit_bytes(text.as_bytes())
}

/// Writes `bytes` to stdout and flushes them; a failure is an output failure (exit 6).
pub fn emit_bytes(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|error| Failure::new(Exit::Output, format!("cannot write stdout: {error}")))
}

/// Whether stdout goes nowhere: redirected to `/dev/null`, or closed when the process started
/// (the Rust runtime then opens `/dev/null` in its place, so writes would succeed and reach no
/// one). A hook's answer written there is lost, so the hook treats stdout as unwritable.
pub fn stdout_discarded() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let stdout = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map(fs::File::from)
            .and_then(|file| file.metadata());
        match (stdout, fs::metadata("/dev/null")) {
            (Ok(out), Ok(null)) => out.rdev() == null.rdev() && out.ino() == null.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Writes one line to stderr; a failing stderr is ignored (there is nowhere left to report it).
pub fn warn(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}

/// Reads stdin, refusing more than `limit` bytes.
pub fn read_stdin(limit: usize) -> Result<Vec<u8>, Failure> {
    read_bounded(std::io::stdin().lock(), limit, "stdin")
}

/// Reads the file at `path`, refusing more than `limit` bytes. `what` names it in errors.
pub fn read_file(path: &str, limit: usize, what: &str) -> Result<Vec<u8>, Failure> {
    let file = fs::File::open(path)
        .map_err(|error| Failure::input(format!("cannot read {what} {}: {error}", quoted(path))))?;
    read_bounded(file, limit, &format!("{what} {}", quoted(path)))
}

/// `bytes` as UTF-8 text, or an input failure naming `what`.
pub fn utf8(bytes: Vec<u8>, what: &str) -> Result<String, Failure> {
    String::from_utf8(bytes).map_err(|error| {
        Failure::input(format!(
            "{what} is not UTF-8 (invalid byte at offset {})",
            error.utf8_error().valid_up_to()
        ))
    })
}

/// Writes `bytes` to `path` all at once: into a new temporary file in the same directory (with
/// `mode` on Unix when given), flushed, then renamed over `path`. On any failure the temporary
/// file is removed and `path` is left as it was.
pub fn write_atomic(path: &str, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
    let target = Path::new(path);
    let temporary = temporary_path(target);
    let result = write_new(&temporary, bytes, mode)
        .and_then(|()| fs::rename(&temporary, target).map_err(|error| (error, "rename")));
    match result {
        Ok(()) => Ok(()),
        Err((error, step)) => {
            let _ = fs::remove_file(&temporary);
            Err(Failure::new(
                Exit::Output,
                format!("cannot write {} ({step}): {error}", quoted(path)),
            ))
        }
    }
}

/// Refuses an existing `path` unless `force`.
pub fn check_absent(path: &str, force: bool) -> Result<(), Failure> {
    if !force && Path::new(path).exists() {
        return Err(Failure::new(
            Exit::Output,
            format!("{} exists (give `--force` to replace it)", quoted(path)),
        ));
    }
    Ok(())
}

/// The time to decide at: `--now SECONDS` when given, else `SEAL_NOW`, else the clock.
pub fn now(flag: Option<&str>) -> Result<UnixTime, Failure> {
    let given = flag
        .map(str::to_owned)
        .or_else(|| std::env::var("SEAL_NOW").ok());
    match given {
        Some(text) => text.parse::<u64>().map(UnixTime).map_err(|_| {
            Failure::usage(format!(
                "`--now` wants seconds since 1970, not {}",
                quoted(&text)
            ))
        }),
        None => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| UnixTime(elapsed.as_secs()))
            .map_err(|_| Failure::new(Exit::Internal, "the clock is before 1970")),
    }
}

fn read_bounded(source: impl Read, limit: usize, what: &str) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    source
        .take(cap)
        .read_to_end(&mut bytes)
        .map_err(|error| Failure::input(format!("cannot read {what}: {error}")))?;
    if bytes.len() > limit {
        return Err(Failure::input(format!(
            "{what} is over the limit of {limit} bytes"
        )));
    }
    Ok(bytes)
}

fn temporary_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or(0);
    let temporary = format!(".{name}.seal-tmp-{}-{nanos}", std::process::id());
    match target.parent() {
        Some(parent) => parent.join(temporary),
        None => PathBuf::from(temporary),
    }
}

fn write_new(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<(), (std::io::Error, &'static str)> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode.unwrap_or(0o644));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options.open(path).map_err(|error| (error, "create"))?;
    file.write_all(bytes).map_err(|error| (error, "write"))?;
    file.sync_all().map_err(|error| (error, "sync"))?;
    Ok(())
}
