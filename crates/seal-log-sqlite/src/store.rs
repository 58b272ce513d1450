//! The store: schema, opening, appending and reading.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::config::DbConfig;
use rusqlite::{
    params, Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior,
};
use seal_record::tlog::{leaf_hash, Checkpoint, Frontier, MerkleHash};
use seal_record::{LogEvent, LogEventType, LogRecord, Sha256Digest};

/// Default busy timeout: 5 seconds. An append waits this long for another writer before it
/// fails (and the hook that asked for it fails closed).
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema version written in `PRAGMA user_version`; a file with another version is refused.
pub const SCHEMA_VERSION: i64 = 1;

const JOURNAL_MODE_RETRY: Duration = Duration::from_millis(5);

const SCHEMA: &str = "
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) STRICT;
CREATE TABLE entry (idx INTEGER PRIMARY KEY, record BLOB NOT NULL, leaf BLOB NOT NULL) STRICT;
CREATE TABLE checkpoint (size INTEGER PRIMARY KEY, note TEXT NOT NULL) STRICT;
CREATE TABLE frontier (size INTEGER NOT NULL, hashes BLOB NOT NULL) STRICT;
CREATE TABLE ev (
  idx INTEGER PRIMARY KEY, type TEXT NOT NULL, time INTEGER NOT NULL,
  session TEXT, tool TEXT, decision TEXT, by TEXT
) STRICT;
CREATE INDEX ev_type_time ON ev (type, time);
CREATE INDEX ev_time ON ev (time);
PRAGMA user_version = 1;
";

/// How a log file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogOptions {
    /// How long to wait for another writer.
    pub busy_timeout: Duration,
    /// The write-ahead log's bound: after an append leaves it longer, the append folds it into
    /// the file and empties it (when no other process is reading or writing at that moment;
    /// else a later append does).
    pub wal_limit_bytes: u64,
}

/// Default bound of the write-ahead log: 256 KiB, about a dozen appends. A process that opens
/// the log alone reads the whole write-ahead log to rebuild its index, so a hook's opening stays
/// cheap only while the log stays short; folding it costs one sync every dozen appends.
pub const DEFAULT_WAL_LIMIT_BYTES: u64 = 256 * 1024;

impl Default for LogOptions {
    fn default() -> LogOptions {
        LogOptions {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
            wal_limit_bytes: DEFAULT_WAL_LIMIT_BYTES,
        }
    }
}

/// Signs checkpoints: the log key, held by the caller.
pub trait CheckpointSigner {
    /// The key's name, which is the log's origin.
    fn origin(&self) -> &str;
    /// The signed note of `checkpoint`, or why it could not be signed.
    fn sign(&self, checkpoint: &Checkpoint) -> Result<String, String>;
}

/// A log in one SQLite file.
pub struct SqliteLog {
    path: PathBuf,
    origin: String,
    pub(crate) connection: Connection,
    busy_timeout: Duration,
    wal_limit_bytes: u64,
    step: Option<Box<dyn Fn(&'static str) + Send>>,
}

impl fmt::Debug for SqliteLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteLog")
            .field("path", &self.path)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// What an append wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The entry's position.
    pub seq: u64,
    /// The entry's leaf hash.
    pub leaf: MerkleHash,
    /// The checkpoint signed after it, covering it.
    pub note: String,
}

/// Why the log could not be opened, appended to or read.
#[derive(Debug)]
#[non_exhaustive]
pub enum LogError {
    /// SQLite failed at `action`.
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The file has another schema version.
    Schema {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: i64,
    },
    /// The file holds no log (no origin) or, for `create`, already holds one.
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: &'static str,
    },
    /// The signer's origin is not the log's.
    OtherOrigin {
        /// The log's origin.
        log: String,
        /// The signer's.
        signer: String,
    },
    /// The stored frontier does not describe a tree.
    Frontier(String),
    /// The entry could not be built (for example, larger than a tile entry).
    Entry(seal_record::LogRecordError),
    /// The checkpoint could not be made or signed.
    Sign(String),
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogError::Sqlite {
                path,
                action,
                source,
            } => write!(f, "log {}: cannot {action}: {source}", path.display()),
            LogError::Schema { path, found } => write!(
                f,
                "log {}: schema version {found}, this seal reads {SCHEMA_VERSION}",
                path.display()
            ),
            LogError::State { path, problem } => write!(f, "log {}: {problem}", path.display()),
            LogError::OtherOrigin { log, signer } => {
                write!(f, "the key signs for {signer}, the log's origin is {log}")
            }
            LogError::Frontier(problem) => write!(f, "stored tree frontier: {problem}"),
            LogError::Entry(error) => write!(f, "cannot record the entry: {error}"),
            LogError::Sign(problem) => write!(f, "cannot sign the checkpoint: {problem}"),
        }
    }
}

impl std::error::Error for LogError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LogError::Sqlite { source, .. } => Some(source),
            LogError::Entry(error) => Some(error),
            _ => None,
        }
    }
}

pub(crate) fn to_i64(value: u64) -> i64 {
    // Entry positions and times are bounded by 2^53 by the entry type.
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl SqliteLog {
    pub(crate) fn failed(&self, action: &'static str) -> impl Fn(rusqlite::Error) -> LogError + '_ {
        move |source| LogError::Sqlite {
            path: self.path.clone(),
            action,
            source,
        }
    }

    fn connect(path: &Path, options: &LogOptions, create: bool) -> Result<Connection, LogError> {
        let failed = |action: &'static str| {
            let path = path.to_path_buf();
            move |source| LogError::Sqlite {
                path,
                action,
                source,
            }
        };
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let connection =
            Connection::open_with_flags(path, flags).map_err(failed("open the file"))?;
        connection
            .busy_timeout(options.busy_timeout)
            .map_err(failed("set the busy timeout"))?;
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
            return Err(LogError::Sqlite {
                path: path.to_path_buf(),
                action: "set the WAL journal mode",
                source: rusqlite::Error::InvalidQuery,
            });
        }
        // A hook closes its connection right after one append: no checkpoint of the WAL on
        // close (it would copy and sync pages on every call); `seal audit` folds the WAL in.
        connection
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(failed("keep the WAL on close"))?;
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(failed("read the schema version"))?;
        match version {
            0 if create => connection
                .execute_batch(SCHEMA)
                .map_err(failed("create the schema"))?,
            0 => {
                return Err(LogError::State {
                    path: path.to_path_buf(),
                    problem: "no log in this file (run `seal audit init`)",
                })
            }
            SCHEMA_VERSION => {}
            found => {
                return Err(LogError::Schema {
                    path: path.to_path_buf(),
                    found,
                })
            }
        }
        Ok(connection)
    }

    /// Creates the log in a new file at `path` (an existing log is refused): its origin and
    /// verifier key in `meta`, then the `log/genesis` entry, signed by `signer`.
    pub fn create(
        path: &Path,
        options: &LogOptions,
        verifier_key: &str,
        signer: &dyn CheckpointSigner,
        time: u64,
    ) -> Result<SqliteLog, LogError> {
        let connection = SqliteLog::connect(path, options, true)?;
        let mut log = SqliteLog {
            path: path.to_path_buf(),
            origin: signer.origin().to_owned(),
            connection,
            busy_timeout: options.busy_timeout,
            wal_limit_bytes: options.wal_limit_bytes,
            step: None,
        };
        let existing: Option<String> = log
            .connection
            .query_row("SELECT v FROM meta WHERE k = 'origin'", [], |row| {
                row.get(0)
            })
            .optional()
            .map_err(log.failed("read the origin"))?;
        if existing.is_some() {
            return Err(LogError::State {
                path: path.to_path_buf(),
                problem: "already holds a log",
            });
        }
        log.connection
            .execute(
                "INSERT INTO meta (k, v) VALUES ('origin', ?1), ('key', ?2)",
                params![signer.origin(), verifier_key],
            )
            .map_err(log.failed("write the origin"))?;
        let genesis = LogEvent::new(LogEventType::Genesis)
            .text("origin", signer.origin())
            .and_then(|event| event.text("key", verifier_key))
            .map_err(LogError::Entry)?;
        log.append(genesis, time, signer)?;
        Ok(log)
    }

    /// Opens the log at `path`.
    pub fn open(path: &Path, options: &LogOptions) -> Result<SqliteLog, LogError> {
        let connection = SqliteLog::connect(path, options, false)?;
        let mut log = SqliteLog {
            path: path.to_path_buf(),
            origin: String::new(),
            connection,
            busy_timeout: options.busy_timeout,
            wal_limit_bytes: options.wal_limit_bytes,
            step: None,
        };
        log.origin = log.meta("origin")?.ok_or_else(|| LogError::State {
            path: path.to_path_buf(),
            problem: "no origin recorded (run `seal audit init`)",
        })?;
        Ok(log)
    }

    /// Calls `step` with the name of each write step of an append (`entry`, `checkpoint`,
    /// `frontier`, `index`, `commit`), before it is taken: fault injection for tests.
    pub fn with_steps(mut self, step: Box<dyn Fn(&'static str) + Send>) -> SqliteLog {
        self.step = Some(step);
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The log's origin.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// A `meta` value: `origin` or `key` (the verifier key text).
    pub fn meta(&self, key: &str) -> Result<Option<String>, LogError> {
        self.connection
            .query_row("SELECT v FROM meta WHERE k = ?1", params![key], |row| {
                row.get(0)
            })
            .optional()
            .map_err(self.failed("read the log's metadata"))
    }

    /// Appends `event` at the next position, claiming `time`, and signs the checkpoint of the
    /// new size, in one transaction. Approvals and disclosures are synced to disk before the
    /// commit returns; decisions and alarms survive a crash of the process, and may be lost
    /// with the last few commits in a crash of the machine.
    pub fn append(
        &mut self,
        event: LogEvent,
        time: u64,
        signer: &dyn CheckpointSigner,
    ) -> Result<Appended, LogError> {
        if signer.origin() != self.origin {
            return Err(LogError::OtherOrigin {
                log: self.origin.clone(),
                signer: signer.origin().to_owned(),
            });
        }
        let synchronous = if event.kind().synced() {
            "PRAGMA synchronous = FULL"
        } else {
            "PRAGMA synchronous = NORMAL"
        };
        self.connection
            .execute_batch(synchronous)
            .map_err(self.failed("set the durability"))?;
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed_at(&path, "begin the append"))?;
        let mut frontier = read_frontier(&transaction, &path)?;
        let appended = write_entry(
            &transaction,
            &path,
            &self.origin,
            &mut frontier,
            (event, time),
            signer,
            self.step.as_deref(),
        )?;
        if let Some(step) = self.step.as_deref() {
            step("commit");
        }
        transaction
            .commit()
            .map_err(failed_at(&path, "commit the append"))?;
        self.bound_wal()?;
        Ok(appended)
    }

    /// Appends each of `events` (an event and the time it claims) exactly as [`append`] would,
    /// one after another, a checkpoint signed at every new size, and commits them together:
    /// one transaction for the lot, so a log of many entries is written in a fraction of the
    /// time separate appends take. Durability is that of decisions (`synchronous = NORMAL`).
    /// Returns the log's size after the last one.
    ///
    /// For building large logs (benchmarks, imports); the hooks append one entry at a time.
    ///
    /// [`append`]: SqliteLog::append
    #[cfg(feature = "bulk")]
    pub fn append_all(
        &mut self,
        events: impl IntoIterator<Item = (LogEvent, u64)>,
        signer: &dyn CheckpointSigner,
    ) -> Result<u64, LogError> {
        if signer.origin() != self.origin {
            return Err(LogError::OtherOrigin {
                log: self.origin.clone(),
                signer: signer.origin().to_owned(),
            });
        }
        self.connection
            .execute_batch("PRAGMA synchronous = NORMAL")
            .map_err(self.failed("set the durability"))?;
        let path = self.path.clone();
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed_at(&path, "begin the append"))?;
        let mut frontier = read_frontier(&transaction, &path)?;
        for event in events {
            write_entry(
                &transaction,
                &path,
                &self.origin,
                &mut frontier,
                event,
                signer,
                None,
            )?;
        }
        transaction
            .commit()
            .map_err(failed_at(&path, "commit the append"))?;
        Ok(frontier.size())
    }

    /// Folds the write-ahead log into the file and empties it when it is longer than the
    /// bound, without waiting: a reader or writer in another process makes it a later
    /// append's work.
    fn bound_wal(&self) -> Result<(), LogError> {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let length = std::fs::metadata(&wal).map_or(0, |meta| meta.len());
        if length <= self.wal_limit_bytes {
            return Ok(());
        }
        self.connection
            .busy_timeout(Duration::ZERO)
            .map_err(self.failed("set the busy timeout"))?;
        let folded = self
            .connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        self.connection
            .busy_timeout(self.busy_timeout)
            .map_err(self.failed("set the busy timeout"))?;
        match folded {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
                ) =>
            {
                Ok(())
            }
            other => other.map_err(self.failed("fold the write-ahead log")),
        }
    }

    /// Folds the write-ahead log into the database file and empties it (a `TRUNCATE` SQLite
    /// checkpoint, which waits for writers up to the busy timeout), so the file alone holds
    /// the log. `seal audit` calls it, never the hooks.
    pub fn fold_wal(&self) -> Result<(), LogError> {
        self.connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(self.failed("fold the write-ahead log"))
    }
}

fn decode_frontier(size: i64, bytes: &[u8]) -> Result<Frontier, LogError> {
    let size = u64::try_from(size).map_err(|_| LogError::Frontier(format!("size {size}")))?;
    let chunks = bytes.chunks_exact(32);
    if !chunks.remainder().is_empty() {
        return Err(LogError::Frontier(format!(
            "{} bytes are not whole hashes",
            bytes.len()
        )));
    }
    let hashes = chunks
        .map(|chunk| {
            let mut hash = [0; 32];
            hash.copy_from_slice(chunk);
            Sha256Digest::from_bytes(hash)
        })
        .collect();
    Frontier::from_parts(size, hashes).map_err(|error| LogError::Frontier(error.to_string()))
}

fn failed_at(path: &Path, action: &'static str) -> impl Fn(rusqlite::Error) -> LogError {
    let path = path.to_path_buf();
    move |source| LogError::Sqlite {
        path: path.clone(),
        action,
        source,
    }
}

/// The stored frontier, read inside the append's transaction (none stored: the empty tree).
fn read_frontier(transaction: &Transaction<'_>, path: &Path) -> Result<Frontier, LogError> {
    let stored: Option<(i64, Vec<u8>)> = transaction
        .query_row("SELECT size, hashes FROM frontier", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()
        .map_err(failed_at(path, "read the frontier"))?;
    match stored {
        None => Ok(Frontier::new()),
        Some((size, bytes)) => decode_frontier(size, &bytes),
    }
}

/// Writes `event` at the next position of `frontier` inside `transaction`: the entry with its
/// leaf, the checkpoint of the new size signed by `signer`, the new frontier and the entry's
/// index row, calling `step` before each write.
fn write_entry(
    transaction: &Transaction<'_>,
    path: &Path,
    origin: &str,
    frontier: &mut Frontier,
    (event, time): (LogEvent, u64),
    signer: &dyn CheckpointSigner,
    step: Option<&(dyn Fn(&'static str) + Send)>,
) -> Result<Appended, LogError> {
    let failed = |action: &'static str| failed_at(path, action);
    let seq = frontier.size();
    let kind = event.kind();
    let (entry, record) = LogRecord::encoded(seq, time, event).map_err(LogError::Entry)?;
    let leaf = leaf_hash(&record);
    if let Some(step) = step {
        step("entry");
    }
    transaction
        .prepare_cached("INSERT INTO entry (idx, record, leaf) VALUES (?1, ?2, ?3)")
        .and_then(|mut insert| {
            insert.execute(params![to_i64(seq), record, leaf.as_bytes().as_slice()])
        })
        .map_err(failed("write the entry"))?;
    frontier
        .push(leaf)
        .ok_or_else(|| LogError::Frontier("the log is full".to_owned()))?;
    let checkpoint = Checkpoint::new(origin, frontier.size(), frontier.root())
        .map_err(|error| LogError::Sign(error.to_string()))?;
    let note = signer.sign(&checkpoint).map_err(LogError::Sign)?;
    if let Some(step) = step {
        step("checkpoint");
    }
    transaction
        .prepare_cached("INSERT INTO checkpoint (size, note) VALUES (?1, ?2)")
        .and_then(|mut insert| insert.execute(params![to_i64(frontier.size()), note]))
        .map_err(failed("write the checkpoint"))?;
    if let Some(step) = step {
        step("frontier");
    }
    let hashes: Vec<u8> = frontier
        .hashes()
        .iter()
        .flat_map(|hash| hash.as_bytes().iter().copied())
        .collect();
    transaction
        .prepare_cached("DELETE FROM frontier")
        .and_then(|mut delete| delete.execute([]))
        .map_err(failed("replace the frontier"))?;
    transaction
        .prepare_cached("INSERT INTO frontier (size, hashes) VALUES (?1, ?2)")
        .and_then(|mut insert| insert.execute(params![to_i64(frontier.size()), hashes]))
        .map_err(failed("write the frontier"))?;
    if let Some(step) = step {
        step("index");
    }
    let text = |name: &str| entry.event().text_of(name).map(str::to_owned);
    transaction
        .prepare_cached(
            "INSERT INTO ev (idx, type, time, session, tool, decision, by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .and_then(|mut insert| {
            insert.execute(params![
                to_i64(seq),
                kind.name(),
                to_i64(time),
                text("session").or_else(|| text("conversation")),
                text("tool"),
                text("decision").or_else(|| text("outcome")),
                text("by"),
            ])
        })
        .map_err(failed("index the entry"))?;
    Ok(Appended { seq, leaf, note })
}
