//! A [`ReplayStore`] in Redis: frame ids and approval ids claimed atomically by every lane of a
//! fleet that shares one Redis database (spec/frame-v1.md section 9.4).
//!
//! This is an edge crate: it does network IO, which the core crates never do. Each claim is one
//! command, `SET key 1 NX PX <ms>`: Redis answers `OK` when it set the key (the claim is fresh)
//! and nil when the key exists (a replay), in one step, so two lanes racing on one id, on one
//! machine or on two, never both see it fresh. The key lives until the end of the claim's last
//! second (`PX` = (`expires_at` - `now` + 1) x 1000 ms), so purging is Redis's own expiry and
//! the database holds the ids of one freshness window. A Redis that cannot be reached, times
//! out ([`DEFAULT_CONNECT_TIMEOUT`], [`DEFAULT_IO_TIMEOUT`]) or answers anything else is a
//! [`ClaimError`]: the frame does not verify.
//!
//! ```no_run
//! use seal_store_redis::{RedisReplayStore, RedisOptions};
//! use seal_verify::{Claim, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};
//!
//! let store = RedisReplayStore::open("redis://127.0.0.1:6379/0", &RedisOptions::default())?;
//! let claim = Claim {
//!     scope: ClaimScope::Conversation("conv-1"),
//!     id: "m1",
//!     now: UnixTime(1_800_000_000),
//!     expires_at: UnixTime(1_800_000_900),
//! };
//! assert_eq!(store.claim(&claim)?, ClaimOutcome::Fresh);
//! assert_eq!(store.claim(&claim)?, ClaimOutcome::Replayed);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod address;
mod key;

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use redis::{Connection, Value};
use seal_verify::{Claim, ClaimError, ClaimOutcome, ClaimScope, ReplayStore, UnixTime};

pub use address::{RedisAddress, MAX_URL_BYTES};
pub use key::claim_key;

/// Default time to open a connection (TCP connect, then the `AUTH` and `SELECT` of the URL):
/// 1 second.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// Default time to send one command or read its answer: 1 second.
pub const DEFAULT_IO_TIMEOUT: Duration = Duration::from_secs(1);

/// The key prefix when none is configured: `seal:replay:v1:`.
pub const DEFAULT_KEY_PREFIX: &str = "seal:replay:v1:";

/// The longest key prefix accepted, in bytes: 256.
pub const MAX_KEY_PREFIX_BYTES: usize = 256;

/// The longest life a claim may ask for: 100 years (3,155,760,000 s). A claim asking for more
/// is refused ([`RedisStoreError::LifetimeTooLong`]) rather than sent (Redis would refuse an
/// expiry past its own limit anyway).
pub const MAX_CLAIM_LIFETIME_SECONDS: u64 = 3_155_760_000;

/// How many keys one `SCAN` step of [`RedisReplayStore::live_count`] asks for (its `COUNT`):
/// 1000.
pub const SCAN_BATCH: u32 = 1000;

/// Default bound of [`RedisReplayStore::live_count`]: it stops counting at 10,000,000 ids.
pub const DEFAULT_COUNT_LIMIT: u64 = 10_000_000;

/// How a store connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// Time to open a connection; more than zero.
    pub connect_timeout: Duration,
    /// Time to send a command or read its answer; more than zero.
    pub io_timeout: Duration,
    /// What every key of this store starts with: 1 to [`MAX_KEY_PREFIX_BYTES`] bytes. Stores
    /// that share a database and a prefix share their claims.
    pub key_prefix: String,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            io_timeout: DEFAULT_IO_TIMEOUT,
            key_prefix: DEFAULT_KEY_PREFIX.to_owned(),
        }
    }
}

/// Why a Redis store could not be opened or used. Messages show the address without user or
/// password.
#[derive(Debug)]
#[non_exhaustive]
pub enum RedisStoreError {
    /// The URL is not a `redis://host:port/db` URL.
    Url {
        /// The URL as given, user and password replaced by `***`.
        shown: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `rediss://` URL: this build connects without TLS only.
    TlsUnsupported {
        /// The URL as given, user and password replaced by `***`.
        shown: String,
    },
    /// The options are out of range.
    Options {
        /// Which option, and why.
        reason: String,
    },
    /// Redis could not be reached, timed out, closed the connection or answered an error.
    Redis {
        /// The server, `redis://host:port/db`.
        address: String,
        /// What was being done.
        action: &'static str,
        /// The client's error.
        source: redis::RedisError,
    },
    /// Redis answered something the command never answers.
    Unexpected {
        /// The server, `redis://host:port/db`.
        address: String,
        /// What was being done.
        action: &'static str,
        /// The answer, described.
        answer: String,
    },
    /// A claim asked for a life longer than [`MAX_CLAIM_LIFETIME_SECONDS`].
    LifetimeTooLong {
        /// The life asked for, in seconds.
        seconds: u64,
    },
    /// The connection's lock is poisoned (a thread panicked while claiming).
    Poisoned,
}

impl fmt::Display for RedisStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Url { shown, reason } => {
                write!(f, "replay state `{shown}` is not a Redis URL: {reason}")
            }
            Self::TlsUnsupported { shown } => write!(
                f,
                "replay state `{shown}`: `rediss://` (TLS) is not supported by this build; use \
                 `redis://` on a trusted network or a local TLS tunnel"
            ),
            Self::Options { reason } => write!(f, "Redis replay state options: {reason}"),
            Self::Redis {
                address,
                action,
                source,
            } => write!(f, "replay state `{address}`: cannot {action}: {source}"),
            Self::Unexpected {
                address,
                action,
                answer,
            } => write!(
                f,
                "replay state `{address}`: cannot {action}: unexpected answer {answer}"
            ),
            Self::LifetimeTooLong { seconds } => write!(
                f,
                "a claim asked to live {seconds} s, more than {MAX_CLAIM_LIFETIME_SECONDS} s"
            ),
            Self::Poisoned => f.write_str("the Redis replay state's lock is poisoned"),
        }
    }
}

impl std::error::Error for RedisStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Redis { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// How many ids [`RedisReplayStore::live_count`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveCount {
    /// The keys of this store's prefix that `SCAN` returned (a key can be returned twice while
    /// Redis resizes its table, so this is for the operator, never for a decision).
    pub ids: u64,
    /// Whether the scan went through the whole database (false when it stopped at its limit).
    pub complete: bool,
}

/// The Redis replay store: one connection to one database, behind a mutex (a store is shared by
/// the verifiers of one process; other processes and machines connect themselves).
///
/// The connection opens in [`RedisReplayStore::open`]; after any failed command it is dropped
/// and the next claim opens a new one, so a Redis that comes back is used again, and a late
/// answer is never read as the answer to a later command.
pub struct RedisReplayStore {
    address: RedisAddress,
    shown: String,
    options: RedisOptions,
    client: redis::Client,
    connection: Mutex<Option<Connection>>,
}

impl fmt::Debug for RedisReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayStore")
            .field("address", &self.address)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl RedisReplayStore {
    /// Parses `url` (`redis://[[user]:password@]host[:port][/db]`), checks `options`, and
    /// connects.
    ///
    /// # Errors
    /// [`RedisStoreError::Url`] or [`RedisStoreError::TlsUnsupported`] for the URL;
    /// [`RedisStoreError::Options`] for a zero timeout or a prefix out of bounds;
    /// [`RedisStoreError::Redis`] when the server cannot be reached in time or refuses the
    /// password or database.
    pub fn open(url: &str, options: &RedisOptions) -> Result<RedisReplayStore, RedisStoreError> {
        let address = RedisAddress::parse(url)?;
        RedisReplayStore::connect(address, options)
    }

    /// As [`RedisReplayStore::open`], with an address parsed already.
    ///
    /// # Errors
    /// As [`RedisReplayStore::open`].
    pub fn connect(
        address: RedisAddress,
        options: &RedisOptions,
    ) -> Result<RedisReplayStore, RedisStoreError> {
        check_options(options)?;
        let shown = address.to_string();
        let client = redis::Client::open(address.connection_info().clone()).map_err(|source| {
            RedisStoreError::Redis {
                address: shown.clone(),
                action: "set up the client",
                source,
            }
        })?;
        let store = RedisReplayStore {
            address,
            shown,
            options: options.clone(),
            client,
            connection: Mutex::new(None),
        };
        let connection = store.open_connection()?;
        *store
            .connection
            .lock()
            .map_err(|_| RedisStoreError::Poisoned)? = Some(connection);
        Ok(store)
    }

    /// The server and database, `redis://host:port/db`.
    pub fn address(&self) -> &RedisAddress {
        &self.address
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &RedisOptions {
        &self.options
    }

    /// The key of `id` in `scope` in this store ([`claim_key`] with this store's prefix).
    pub fn key(&self, scope: &ClaimScope<'_>, id: &str) -> Vec<u8> {
        claim_key(&self.options.key_prefix, scope, id)
    }

    /// Counts the live ids of this store: the keys of its prefix, through `SCAN .. MATCH
    /// prefix* COUNT` [`SCAN_BATCH`], which never blocks Redis for long and counts only this
    /// store's keys even in a database shared with other data. It stops at `limit` ids
    /// ([`LiveCount::complete`] is then false). Expired keys are not returned by Redis.
    ///
    /// # Errors
    /// [`RedisStoreError`] when a `SCAN` fails or answers something else than a cursor and keys.
    pub fn live_count(&self, limit: u64) -> Result<LiveCount, RedisStoreError> {
        let pattern = key::prefix_pattern(&self.options.key_prefix);
        self.with_connection("count the live ids", |connection, store| {
            let mut cursor: u64 = 0;
            let mut ids: u64 = 0;
            loop {
                let answer: (u64, Vec<Value>) = redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(&pattern)
                    .arg("COUNT")
                    .arg(SCAN_BATCH)
                    .query(connection)
                    .map_err(|source| store.failed("count the live ids", source))?;
                ids = ids.saturating_add(u64::try_from(answer.1.len()).unwrap_or(u64::MAX));
                cursor = answer.0;
                if cursor == 0 {
                    return Ok(LiveCount {
                        ids,
                        complete: true,
                    });
                }
                if ids >= limit {
                    return Ok(LiveCount {
                        ids,
                        complete: false,
                    });
                }
            }
        })
    }

    fn open_connection(&self) -> Result<Connection, RedisStoreError> {
        let connection = self
            .client
            .get_connection_with_timeout(self.options.connect_timeout)
            .map_err(|source| self.failed("connect", source))?;
        connection
            .set_read_timeout(Some(self.options.io_timeout))
            .and_then(|()| connection.set_write_timeout(Some(self.options.io_timeout)))
            .map_err(|source| self.failed("set the timeouts", source))?;
        Ok(connection)
    }

    fn failed(&self, action: &'static str, source: redis::RedisError) -> RedisStoreError {
        RedisStoreError::Redis {
            address: self.shown.clone(),
            action,
            source,
        }
    }

    /// Runs `work` on the connection (opening one if the last was dropped); drops the
    /// connection if `work` fails, so nothing left unread on it is read later.
    fn with_connection<T>(
        &self,
        action: &'static str,
        work: impl FnOnce(&mut Connection, &Self) -> Result<T, RedisStoreError>,
    ) -> Result<T, RedisStoreError> {
        let mut slot = self
            .connection
            .lock()
            .map_err(|_| RedisStoreError::Poisoned)?;
        let connection = match slot.as_mut() {
            Some(connection) => connection,
            None => slot.insert(self.open_connection().map_err(|error| match error {
                RedisStoreError::Redis { source, .. } => self.failed(action, source),
                other => other,
            })?),
        };
        let result = work(connection, self);
        if result.is_err() {
            *slot = None;
        }
        result
    }

    fn claim_in(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, RedisStoreError> {
        let lifetime = lifetime_ms(claim.now, claim.expires_at)?;
        let key = self.key(&claim.scope, claim.id);
        self.with_connection("claim an id", |connection, store| {
            let answer: Value = redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(lifetime)
                .query(connection)
                .map_err(|source| store.failed("claim an id", source))?;
            match answer {
                Value::Okay => Ok(ClaimOutcome::Fresh),
                Value::Nil => Ok(ClaimOutcome::Replayed),
                other => Err(RedisStoreError::Unexpected {
                    address: store.shown.clone(),
                    action: "claim an id",
                    answer: describe(&other),
                }),
            }
        })
    }
}

impl ReplayStore for RedisReplayStore {
    /// One `SET key 1 NX PX <ms>` (spec/frame-v1.md section 9.4): fresh only on `OK`, replayed
    /// only on nil. Any other answer, a timeout, a refused or lost connection is
    /// [`ClaimError::Unavailable`] naming the server: the frame does not verify.
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        self.claim_in(claim)
            .map_err(|error| ClaimError::Unavailable {
                detail: error.to_string(),
            })
    }
}

/// The key's life in milliseconds: to the end of the second `expires_at`, measured from the
/// start of the second `now` (the claim's times are whole seconds, so the key may outlive its
/// last second by up to one second, never fall short of it).
fn lifetime_ms(now: UnixTime, expires_at: UnixTime) -> Result<u64, RedisStoreError> {
    let seconds = expires_at
        .seconds()
        .saturating_sub(now.seconds())
        .saturating_add(1);
    if seconds > MAX_CLAIM_LIFETIME_SECONDS {
        return Err(RedisStoreError::LifetimeTooLong { seconds });
    }
    Ok(seconds.saturating_mul(1000))
}

fn check_options(options: &RedisOptions) -> Result<(), RedisStoreError> {
    let refuse = |reason: String| Err(RedisStoreError::Options { reason });
    if options.connect_timeout.is_zero() {
        return refuse("the connect timeout is zero".to_owned());
    }
    if options.io_timeout.is_zero() {
        return refuse("the IO timeout is zero".to_owned());
    }
    let prefix = options.key_prefix.len();
    if prefix == 0 || prefix > MAX_KEY_PREFIX_BYTES {
        return refuse(format!(
            "the key prefix is {prefix} bytes, not 1 to {MAX_KEY_PREFIX_BYTES}"
        ));
    }
    Ok(())
}

/// A short description of an answer, for an error message (a bulk string shows its length
/// only, so no stored data is echoed).
fn describe(value: &Value) -> String {
    match value {
        Value::Int(number) => format!("integer {number}"),
        Value::BulkString(bytes) => format!("bulk string of {} bytes", bytes.len()),
        Value::Array(items) => format!("array of {} items", items.len()),
        Value::SimpleString(text) => format!("status of {} bytes", text.len()),
        Value::ServerError(error) => format!("error {:?}", error.code()),
        _ => "of another type".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lifetime_covers_the_last_second() {
        assert_eq!(lifetime_ms(UnixTime(100), UnixTime(100)).unwrap(), 1000);
        assert_eq!(lifetime_ms(UnixTime(100), UnixTime(1000)).unwrap(), 901_000);
        assert_eq!(lifetime_ms(UnixTime(100), UnixTime(50)).unwrap(), 1000);
        assert!(matches!(
            lifetime_ms(UnixTime(0), UnixTime(u64::MAX)),
            Err(RedisStoreError::LifetimeTooLong { .. })
        ));
        assert_eq!(
            lifetime_ms(UnixTime(0), UnixTime(MAX_CLAIM_LIFETIME_SECONDS - 1)).unwrap(),
            MAX_CLAIM_LIFETIME_SECONDS * 1000
        );
    }

    #[test]
    fn options_out_of_range_are_refused() {
        let zero = RedisOptions {
            io_timeout: Duration::ZERO,
            ..RedisOptions::default()
        };
        assert!(check_options(&zero).is_err());
        let empty = RedisOptions {
            key_prefix: String::new(),
            ..RedisOptions::default()
        };
        assert!(check_options(&empty).is_err());
        let long = RedisOptions {
            key_prefix: "p".repeat(MAX_KEY_PREFIX_BYTES + 1),
            ..RedisOptions::default()
        };
        assert!(check_options(&long).is_err());
        assert!(check_options(&RedisOptions::default()).is_ok());
    }
}
