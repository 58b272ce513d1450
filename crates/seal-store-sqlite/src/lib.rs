//! A [`ReplayStore`] in one SQLite file: frame ids and approval ids claimed atomically by every
//! process that opens the file, so lanes running at once on one machine never both verify one
//! frame (spec/frame-v1.md section 9.1).
//!
//! This is an edge crate: it does file IO, which the core crates never do. SQLite is compiled
//! in (`rusqlite` with `bundled`), the file is in WAL mode with a busy timeout, and each claim is
//! one `BEGIN IMMEDIATE` transaction: delete this key's expired claim, `INSERT .. ON CONFLICT
//! DO NOTHING`, and purge a bounded number of other expired claims, so the file holds the ids of
//! about one freshness window and each claim's work is bounded.
//!
//! ```
//! use seal_store_sqlite::{SqliteReplayStore, StoreOptions};
//! use seal_verify::{Claim, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};
//!
//! let dir = std::env::temp_dir().join(format!("seal-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let store = SqliteReplayStore::open(&dir.join("replay.sqlite3"), &StoreOptions::default())?;
//! let claim = Claim {
//!     scope: ClaimScope::Conversation("conv-1"),
//!     id: "m1",
//!     now: UnixTime(1_800_000_000),
//!     expires_at: UnixTime(1_800_000_900),
//! };
//! assert_eq!(store.claim(&claim)?, ClaimOutcome::Fresh);
//! assert_eq!(store.claim(&claim)?, ClaimOutcome::Replayed);
//! # drop(store);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, TransactionBehavior};
use seal_verify::{Claim, ClaimError, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};

/// Default busy timeout: 5 seconds. A claim waits this long for another process's transaction
/// before it fails closed.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Default number of other expired claims purged by each claim: 64. Each claim adds at most one
/// row and removes up to this many, so the file shrinks back to the live ids as traffic goes on.
pub const DEFAULT_PURGE_BATCH: u32 = 64;

/// How long an open waits before trying again to set the journal mode of a file another lane
/// is setting up.
pub const JOURNAL_MODE_RETRY: Duration = Duration::from_millis(5);

/// Default bound of the write-ahead log: 1 MiB. After a commit leaves the log longer, the
/// store checkpoints it and truncates it to nothing (when no other lane is reading or writing at
/// that moment; else a later commit does it).
///
/// SQLite's own automatic checkpoint does not keep the log short when every process opens the
/// file, claims once and exits: the log grows with every claim, and each opening reads all of
/// it to rebuild its index. The bound keeps both the file and each opening's work small.
pub const DEFAULT_WAL_LIMIT_BYTES: u64 = 1 << 20;

/// The schema version written in `PRAGMA user_version`; a file with another version is refused.
pub const SCHEMA_VERSION: i64 = 1;

/// The scope kind under which ids imported from an old seen-id file are kept: they were never
/// scoped, so a claim in any scope checks them too.
pub const LEGACY_SCOPE_KIND: &str = "legacy";

/// How a store file is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// How long a claim waits for another writer before it fails closed.
    pub busy_timeout: Duration,
    /// How many other expired claims each claim purges.
    pub purge_batch: u32,
    /// The length of the write-ahead log past which a commit checkpoints and truncates it.
    pub wal_limit_bytes: u64,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            purge_batch: DEFAULT_PURGE_BATCH,
            wal_limit_bytes: DEFAULT_WAL_LIMIT_BYTES,
        }
    }
}

/// Why a store file could not be opened or used.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite refused to open the file, set it up, or run a statement.
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The file holds a schema of another version (or is not a replay store).
    Schema {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: i64,
    },
    /// The file's lock is poisoned (a thread panicked while claiming).
    Poisoned,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite {
                path,
                action,
                source,
            } => write!(
                f,
                "replay state `{}`: cannot {action}: {source}",
                path.display()
            ),
            Self::Schema { path, found } => write!(
                f,
                "replay state `{}` has schema version {found}, not {SCHEMA_VERSION}",
                path.display()
            ),
            Self::Poisoned => f.write_str("the replay state's lock is poisoned"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Sqlite { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The SQLite replay store: one connection to one file, behind a mutex (a store is shared by
/// the verifiers of one process; other processes open the file themselves).
#[derive(Debug)]
pub struct SqliteReplayStore {
    path: PathBuf,
    log: PathBuf,
    purge_batch: u32,
    wal_limit_bytes: u64,
    busy_timeout: Duration,
    connection: Mutex<Connection>,
}

impl SqliteReplayStore {
    /// Opens (creating if missing) the store file at `path`: WAL journal, the busy timeout of
    /// `options`, the schema created or checked.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`] when the file cannot be opened, is not a database, or is locked
    /// past the timeout; [`StoreError::Schema`] for a file of another schema version.
    pub fn open(path: &Path, options: &StoreOptions) -> Result<SqliteReplayStore, StoreError> {
        let failed = |action: &'static str| {
            let path = path.to_path_buf();
            move |source| StoreError::Sqlite {
                path,
                action,
                source,
            }
        };
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(failed("open the file"))?;
        connection
            .busy_timeout(options.busy_timeout)
            .map_err(failed("set the busy timeout"))?;
        // Setting the journal mode of a new file takes a lock SQLite's busy handler does not
        // wait for: lanes opening a new file at once retry until the busy timeout.
        let deadline = Instant::now() + options.busy_timeout;
        let mode: String = loop {
            match connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)) {
                Err(rusqlite::Error::SqliteFailure(error, _))
                    if error.code == ErrorCode::DatabaseBusy && Instant::now() < deadline =>
                {
                    std::thread::sleep(JOURNAL_MODE_RETRY);
                }
                other => break other.map_err(failed("set the WAL journal mode"))?,
            }
        };
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Sqlite {
                path: path.to_path_buf(),
                action: "set the WAL journal mode",
                source: rusqlite::Error::InvalidQuery,
            });
        }
        // WAL with synchronous NORMAL: a commit survives a crash of the process; an operating
        // system crash may lose the last commits (spec/frame-v1.md section 9.3).
        connection
            .execute_batch("PRAGMA synchronous = NORMAL;")
            .map_err(failed("set synchronous mode"))?;
        // A short-lived process (a hook) closes its connection right after one claim: no
        // checkpoint on close (it would copy and sync pages every run). Commits bound the log
        // instead (`bound_log`).
        connection
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(failed("keep the log on close"))?;
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(failed("read the schema version"))?;
        match version {
            0 => connection
                .execute_batch(SCHEMA)
                .map_err(failed("create the schema"))?,
            SCHEMA_VERSION => {}
            found => {
                return Err(StoreError::Schema {
                    path: path.to_path_buf(),
                    found,
                })
            }
        }
        let mut log = path.as_os_str().to_owned();
        log.push("-wal");
        Ok(SqliteReplayStore {
            path: path.to_path_buf(),
            log: PathBuf::from(log),
            purge_batch: options.purge_batch,
            wal_limit_bytes: options.wal_limit_bytes,
            busy_timeout: options.busy_timeout,
            connection: Mutex::new(connection),
        })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The claims live at `now` (`now <= expires_at`), imported ids included.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be read.
    pub fn live_count(&self, now: UnixTime) -> Result<u64, StoreError> {
        let connection = self.connection.lock().map_err(|_| StoreError::Poisoned)?;
        // Read as `u64`: a negative count (which SQLite never gives) is an error, not zero.
        connection
            .query_row(
                "SELECT count(*) FROM claims WHERE expires_at >= ?1",
                params![clamp(now)],
                |row| row.get::<_, u64>(0),
            )
            .map_err(|source| self.sqlite("count the live claims", source))
    }

    /// Whether the seen-id file `source` (its name as given) was imported already.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be read.
    pub fn imported(&self, source: &str) -> Result<bool, StoreError> {
        let connection = self.connection.lock().map_err(|_| StoreError::Poisoned)?;
        connection
            .query_row(
                "SELECT count(*) FROM imports WHERE source = ?1",
                params![source],
                |row| row.get::<_, i64>(0),
            )
            .map(|count| count > 0)
            .map_err(|source| self.sqlite("read the imports", source))
    }

    /// Imports the ids of an old, unscoped seen-id file once: in one transaction, unless
    /// `source` was imported before, each id is kept under [`LEGACY_SCOPE_KIND`] until
    /// `expires_at` (a claim of the same id in any scope is then a replay), and `source` is
    /// recorded as imported at `now`. Returns how many ids were imported (0 when already done).
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be written.
    pub fn import_legacy<'i>(
        &self,
        source: &str,
        ids: impl IntoIterator<Item = &'i str>,
        now: UnixTime,
        expires_at: UnixTime,
    ) -> Result<usize, StoreError> {
        let mut connection = self.connection.lock().map_err(|_| StoreError::Poisoned)?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| self.sqlite("begin the import", source))?;
        let recorded = transaction
            .execute(
                "INSERT INTO imports (source, imported_at) VALUES (?1, ?2) \
                 ON CONFLICT DO NOTHING",
                params![source, clamp(now)],
            )
            .map_err(|source| self.sqlite("record the import", source))?;
        let mut imported = 0;
        if recorded == 1 {
            let mut insert = transaction
                .prepare(
                    "INSERT INTO claims (scope_kind, scope_name, id, expires_at) \
                     VALUES (?1, '', ?2, ?3) ON CONFLICT DO NOTHING",
                )
                .map_err(|source| self.sqlite("prepare the import", source))?;
            for id in ids {
                imported += insert
                    .execute(params![LEGACY_SCOPE_KIND, id, clamp(expires_at)])
                    .map_err(|source| self.sqlite("import an id", source))?;
            }
        }
        transaction
            .commit()
            .map_err(|source| self.sqlite("commit the import", source))?;
        self.bound_log(&connection)?;
        Ok(imported)
    }

    fn sqlite(&self, action: &'static str, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            action,
            source,
        }
    }

    /// Checkpoints and truncates the write-ahead log once it is longer than the limit. It waits
    /// for no one: while another lane reads or writes, the checkpoint stops short (SQLite
    /// reports it busy) and a later commit tries again. A log that cannot be measured (gone
    /// already, another lane truncated it) needs nothing.
    fn bound_log(&self, connection: &Connection) -> Result<(), StoreError> {
        let length = std::fs::metadata(&self.log).map_or(0, |meta| meta.len());
        if length <= self.wal_limit_bytes {
            return Ok(());
        }
        connection
            .busy_timeout(Duration::ZERO)
            .map_err(|source| self.sqlite("set the busy timeout", source))?;
        let checkpoint = connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        connection
            .busy_timeout(self.busy_timeout)
            .map_err(|source| self.sqlite("set the busy timeout", source))?;
        match checkpoint {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
                ) =>
            {
                Ok(())
            }
            other => other.map_err(|source| self.sqlite("checkpoint the log", source)),
        }
    }

    fn claim_in(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, StoreError> {
        let mut connection = self.connection.lock().map_err(|_| StoreError::Poisoned)?;
        let transaction = connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| self.sqlite("begin a claim", source))?;
        let (kind, name) = scope_key(&claim.scope);
        let now = clamp(claim.now);
        // An expired claim of this key no longer counts (contract point 2).
        transaction
            .execute(
                "DELETE FROM claims WHERE scope_kind = ?1 AND scope_name = ?2 AND id = ?3 \
                 AND expires_at < ?4",
                params![kind, name, claim.id, now],
            )
            .map_err(|source| self.sqlite("drop an expired claim", source))?;
        let legacy: i64 = transaction
            .query_row(
                "SELECT count(*) FROM claims WHERE scope_kind = ?1 AND scope_name = '' \
                 AND id = ?2 AND expires_at >= ?3",
                params![LEGACY_SCOPE_KIND, claim.id, now],
                |row| row.get(0),
            )
            .map_err(|source| self.sqlite("check the imported ids", source))?;
        let inserted = if legacy > 0 {
            0
        } else {
            transaction
                .execute(
                    "INSERT INTO claims (scope_kind, scope_name, id, expires_at) \
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                    params![kind, name, claim.id, clamp(claim.expires_at)],
                )
                .map_err(|source| self.sqlite("record a claim", source))?
        };
        transaction
            .execute(
                "DELETE FROM claims WHERE (scope_kind, scope_name, id) IN \
                 (SELECT scope_kind, scope_name, id FROM claims WHERE expires_at < ?1 LIMIT ?2)",
                params![now, self.purge_batch],
            )
            .map_err(|source| self.sqlite("purge expired claims", source))?;
        transaction
            .commit()
            .map_err(|source| self.sqlite("commit a claim", source))?;
        self.bound_log(&connection)?;
        Ok(if inserted == 1 {
            ClaimOutcome::Fresh
        } else {
            ClaimOutcome::Replayed
        })
    }
}

impl ReplayStore for SqliteReplayStore {
    /// One `BEGIN IMMEDIATE` transaction per claim (spec/frame-v1.md section 9.3): fresh only if
    /// this transaction inserted the row. Any SQLite error (a lock held past the busy timeout,
    /// a corrupt file, a full disk) is [`ClaimError::Unavailable`]: the frame does not verify.
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        self.claim_in(claim)
            .map_err(|error| ClaimError::Unavailable {
                detail: error.to_string(),
            })
    }
}

/// The tables: one row per live claim, keyed by scope and id, with an index by expiry for the
/// purge; and the seen-id files imported. Written so that processes opening a new file at once
/// all succeed (the first creates, the others wait for its transaction and find the tables).
const SCHEMA: &str = "
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS claims (
    scope_kind TEXT NOT NULL,
    scope_name TEXT NOT NULL,
    id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (scope_kind, scope_name, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS claims_by_expiry ON claims (expires_at);
CREATE TABLE IF NOT EXISTS imports (
    source TEXT PRIMARY KEY NOT NULL,
    imported_at INTEGER NOT NULL
);
PRAGMA user_version = 1;
COMMIT;
";

/// The scope as stored: its stable kind word and its name.
fn scope_key<'a>(scope: &ClaimScope<'a>) -> (&'static str, &'a str) {
    (scope.kind(), scope.name())
}

/// A time as SQLite's signed 64-bit integer (times past 2^63 - 1 seconds are kept as that).
fn clamp(time: UnixTime) -> i64 {
    i64::try_from(time.seconds()).unwrap_or(i64::MAX)
}
