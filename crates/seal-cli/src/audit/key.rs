//! The log's signing key file and the default paths of the log and its key.
//!
//! The file is three lines: `seal-log-key-v1`, the log's origin (the key's name), and the
//! standard base64 of the 32-byte Ed25519 seed. It is created once, mode 0600, in a folder of
//! mode 0700, and never rewritten.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use seal::log::{LogSigningKey, LOG_SEED_BYTES};
use zeroize::Zeroizing;

use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, utf8};

/// The first line of a key file.
const KEY_FILE_HEADER: &str = "seal-log-key-v1";

fn absolute_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
}

/// `$XDG_STATE_HOME/seal/audit.db`, else `~/.local/state/seal/audit.db`.
pub fn default_log_path() -> Result<PathBuf, Failure> {
    if let Some(base) = absolute_env("XDG_STATE_HOME") {
        return Ok(base.join("seal/audit.db"));
    }
    if let Some(home) = absolute_env("HOME") {
        return Ok(home.join(".local/state/seal/audit.db"));
    }
    Err(Failure::usage(
        "no log: give `--log PATH` or set `SEAL_LOG` (neither XDG_STATE_HOME nor HOME is an absolute path)",
    ))
}

/// `$XDG_CONFIG_HOME/seal/audit.key`, else `~/.config/seal/audit.key`.
pub fn default_key_path() -> Result<PathBuf, Failure> {
    if let Some(base) = absolute_env("XDG_CONFIG_HOME") {
        return Ok(base.join("seal/audit.key"));
    }
    if let Some(home) = absolute_env("HOME") {
        return Ok(home.join(".config/seal/audit.key"));
    }
    Err(Failure::usage(
        "no log key: give `--log-key PATH` or set `SEAL_LOG_KEY` (neither XDG_CONFIG_HOME nor HOME is an absolute path)",
    ))
}

fn random(bytes: &mut [u8]) -> Result<(), Failure> {
    SystemRandom::new()
        .fill(bytes)
        .map_err(|_| Failure::new(Exit::Internal, "the system's random source failed"))
}

/// `seal.audit/` and the lowercase base32 (RFC 4648 alphabet) of 16 random bytes: 26
/// characters.
pub fn random_origin() -> Result<String, Failure> {
    let mut id = [0u8; 16];
    random(&mut id)?;
    let mut out = String::from("seal.audit/");
    let (mut buffer, mut bits) = (0u32, 0u32);
    for byte in id {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(symbol((buffer >> bits) & 31));
        }
    }
    if bits > 0 {
        out.push(symbol((buffer << (5 - bits)) & 31));
    }
    Ok(out)
}

/// The base32 symbol of the 5-bit value `value` (masked to 5 bits, so always in the alphabet).
fn symbol(value: u32) -> char {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let index = usize::try_from(value & 31).unwrap_or(0);
    ALPHABET.get(index).map_or('a', |byte| char::from(*byte))
}

/// Creates the folder of `path` (mode 0700) when missing.
pub fn create_private_parent(path: &Path) -> Result<(), Failure> {
    let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(folder).map_err(|error| {
        Failure::new(
            Exit::Output,
            format!(
                "cannot create {}: {error}",
                quoted(&folder.display().to_string())
            ),
        )
    })
}

/// Makes a new key for `origin` and writes it to `path`, which must not exist.
pub fn create(path: &str, origin: &str) -> Result<LogSigningKey, Failure> {
    let mut seed = Zeroizing::new([0u8; LOG_SEED_BYTES]);
    random(seed.as_mut_slice())?;
    let key = LogSigningKey::from_seed(origin, seed.as_slice())
        .map_err(|error| Failure::usage(format!("origin {}: {error}", quoted(origin))))?;
    create_private_parent(Path::new(path))?;
    let text = Zeroizing::new(format!(
        "{KEY_FILE_HEADER}\n{origin}\n{}\n",
        STANDARD.encode(seed.as_slice())
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options.open(path).and_then(|mut file| {
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
    });
    written.map_err(|error| {
        Failure::new(
            Exit::Output,
            format!("cannot create the log key {}: {error}", quoted(path)),
        )
    })?;
    Ok(key)
}

/// Reads the key file at `path`.
pub fn load(path: &str) -> Result<LogSigningKey, Failure> {
    let text = Zeroizing::new(utf8(read_file(path, 4096, "log key")?, "log key")?);
    let bad = || Failure::keys(format!("log key {}: not a seal log key file", quoted(path)));
    let mut lines = text.lines();
    if lines.next() != Some(KEY_FILE_HEADER) {
        return Err(bad());
    }
    let origin = lines.next().ok_or_else(bad)?;
    let seed = Zeroizing::new(
        STANDARD
            .decode(lines.next().ok_or_else(bad)?)
            .map_err(|_| bad())?,
    );
    if lines.next().is_some() {
        return Err(bad());
    }
    LogSigningKey::from_seed(origin, seed.as_slice())
        .map_err(|error| Failure::keys(format!("log key {}: {error}", quoted(path))))
}

/// The key file to use: `--log-key`, else the default.
pub fn key_path(flag: Option<&str>) -> Result<String, Failure> {
    match flag {
        Some(path) => Ok(path.to_owned()),
        None => default_key_path().map(|path| path.display().to_string()),
    }
}
