//! The binary's replay state: a SQLite file shared by every lane on the machine
//! (`--state PATH` / `SEAL_STATE`, by default `$XDG_STATE_HOME/seal/replay.sqlite3`, else
//! `$HOME/.local/state/seal/replay.sqlite3`), into which an old `--seen` file is imported once;
//! or, for a fleet of machines, a Redis database (`--state redis://host:port/db`).

use std::path::PathBuf;
use std::time::Duration;

use seal::{Claim, ClaimError, ClaimOutcome, ReplayStore, UnansweredClaim, UnixTime};
use seal_store_redis::{RedisAddress, RedisOptions, RedisReplayStore};
use seal_store_sqlite::{SqliteReplayStore, StoreOptions};

use crate::cli::FrameFlags;
use crate::failure::{quoted, Failure};
use crate::seen;
use crate::verify::FrameOptions;

/// How long a claim waits for another lane's write, in milliseconds, unless configured.
pub const DEFAULT_STATE_TIMEOUT_MS: u64 = 5000;

/// The name of the state file in its default folder.
pub const STATE_FILE_NAME: &str = "replay.sqlite3";

/// The state file when none is given: `$XDG_STATE_HOME/seal/replay.sqlite3` when
/// `XDG_STATE_HOME` is an absolute path, else `$HOME/.local/state/seal/replay.sqlite3`.
pub fn default_path() -> Result<PathBuf, Failure> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    if let Some(base) = absolute("XDG_STATE_HOME") {
        return Ok(base.join("seal").join(STATE_FILE_NAME));
    }
    if let Some(home) = absolute("HOME") {
        return Ok(home.join(".local/state/seal").join(STATE_FILE_NAME));
    }
    Err(Failure::usage(
        "no replay state: give `--state PATH` or set `SEAL_STATE` (neither XDG_STATE_HOME nor \
         HOME is an absolute path)",
    ))
}

/// An opened replay state: the SQLite file of one machine or the Redis database of a fleet.
#[derive(Debug)]
pub enum ReplayState {
    /// A SQLite file (`--state PATH`, or the default path).
    Sqlite(SqliteReplayStore),
    /// A Redis database (`--state redis://host:port/db`).
    Redis(Box<RedisReplayStore>),
}

impl ReplayState {
    /// The state as named in messages: the file's path, or `redis://host:port/db` (never a
    /// password).
    pub fn name(&self) -> String {
        match self {
            ReplayState::Sqlite(store) => store.path().display().to_string(),
            ReplayState::Redis(store) => store.address().to_string(),
        }
    }
}

impl ReplayStore for ReplayState {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        match self {
            ReplayState::Sqlite(store) => store.claim(claim),
            ReplayState::Redis(store) => {
                #[cfg(feature = "fault-injection")]
                if crate::fault::active("nonatomic-claim") {
                    return crate::fault::nonatomic_claim(store, claim);
                }
                store.claim(claim)
            }
        }
    }
}

/// Whether `--state` names a server (`scheme://...`) rather than a file: a scheme of ASCII
/// letters, digits, `+`, `-` or `.` before `://`. Only `redis://` is served; any other scheme
/// is refused by [`redis_address`] with an error saying so.
pub fn is_url(state: &str) -> bool {
    state.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
    })
}

/// Whether a URL carries a password (`user:password@` or `:password@` before the host).
pub fn url_has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    authority
        .rsplit_once('@')
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// Parses a `--state` URL.
pub fn redis_address(state: &str) -> Result<RedisAddress, Failure> {
    RedisAddress::parse(state).map_err(|error| Failure::usage(error.to_string()))
}

/// The Redis store options of a run: `timeout_ms` bounds connecting and each command.
pub fn redis_options(timeout_ms: u64) -> RedisOptions {
    RedisOptions {
        connect_timeout: Duration::from_millis(timeout_ms),
        io_timeout: Duration::from_millis(timeout_ms),
        ..RedisOptions::default()
    }
}

/// Opens the replay state of `flags` (creating the file and, for the default path, its
/// folder), then imports the old seen-id file of `--seen` if it was never imported: its ids
/// count as used, in every scope, until the end of one freshness window (or of the migration
/// window for undated frames, if later). The seen-id file is only read, never written.
pub fn open(
    flags: &FrameFlags,
    options: &FrameOptions,
    now: UnixTime,
) -> Result<ReplayState, Failure> {
    let window_end = UnixTime(now.seconds().saturating_add(options.max_age));
    let import_until = options
        .undated_until
        .map_or(window_end, |until| until.max(window_end));
    open_at(
        flags.state.as_deref(),
        flags.seen.as_deref(),
        flags.state_timeout_ms,
        now,
        import_until,
    )
}

/// Opens the replay state at `state` (else the default path, its folder created), waiting up to
/// `timeout_ms` for other lanes (for Redis: to connect, and for each answer), and imports the
/// old id file `seen` once, its ids counting as used until `import_until`. A Redis state takes
/// no old id file: the import is SQLite's (it would cost every claim a second command).
pub fn open_at(
    state: Option<&str>,
    seen: Option<&str>,
    timeout_ms: u64,
    now: UnixTime,
    import_until: UnixTime,
) -> Result<ReplayState, Failure> {
    if let Some(url) = state.filter(|state| is_url(state)) {
        let address = redis_address(url)?;
        if let Some(seen_path) = seen {
            return Err(Failure::usage(format!(
                "the old id file {} can be imported into a SQLite replay state only, not into \
                 `{address}`: import it into a SQLite state (`--state PATH`) or leave it out",
                quoted(seen_path)
            )));
        }
        let store = RedisReplayStore::connect(address, &redis_options(timeout_ms))
            .map_err(|error| Failure::input(error.to_string()))?;
        return Ok(ReplayState::Redis(Box::new(store)));
    }
    let path = match state {
        Some(path) => PathBuf::from(path),
        None => {
            let path = default_path()?;
            if let Some(folder) = path.parent() {
                create_private_dir(folder)?;
            }
            path
        }
    };
    let options = StoreOptions {
        busy_timeout: Duration::from_millis(timeout_ms),
        ..StoreOptions::default()
    };
    let store = SqliteReplayStore::open(&path, &options)
        .map_err(|error| Failure::input(error.to_string()))?;
    if let Some(seen_path) = seen {
        let source = source_name(seen_path);
        let already = store
            .imported(&source)
            .map_err(|error| Failure::input(error.to_string()))?;
        if !already {
            let ids = seen::load(seen_path)?;
            store
                .import_legacy(&source, ids.iter().map(String::as_str), now, import_until)
                .map_err(|error| Failure::input(error.to_string()))?;
        }
    }
    Ok(ReplayState::Sqlite(store))
}

/// The failure of a message the verifier gave no verdict on because `state` did not answer a
/// claim (the verifier's fail-closed rule): an input failure naming the state and its error.
pub fn unanswered(unanswered: &UnansweredClaim<'_>, state: &ReplayState) -> Failure {
    Failure::input(format!(
        "replay state {} did not answer: {}",
        quoted(&state.name()),
        unanswered.error()
    ))
}

/// The import record's name of a seen-id file: its canonical path when it exists, else the
/// name as given.
fn source_name(seen_path: &str) -> String {
    std::fs::canonicalize(seen_path)
        .map(|path| path.display().to_string())
        .unwrap_or_else(|_| seen_path.to_owned())
}

fn create_private_dir(folder: &std::path::Path) -> Result<(), Failure> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(folder).map_err(|error| {
        Failure::input(format!(
            "cannot create the replay state folder {}: {error}",
            quoted(&folder.display().to_string())
        ))
    })
}
