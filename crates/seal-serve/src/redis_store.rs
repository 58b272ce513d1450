//! The fleet store: the book's snapshot, the side data and the token table of every server of a
//! fleet, kept in one Redis database under a version number (spec/approval-server.md, "Fleet
//! store (Redis)").
//!
//! Two keys, `PREFIX[FLEET:]version` (a decimal integer, absent = 0) and `PREFIX[FLEET:]book`
//! (one JSON document). A read is one `MGET` of both, so the document and its version always
//! match. A write is one Lua script that sets the document and version + 1 only when the
//! version is still the one this server read: a compare-and-set. When another server wrote
//! first the script answers 0, nothing is written, and the server reloads and applies its change
//! again on the fresh book ([`Saved::Stale`]). A Redis that cannot be reached, times out or
//! answers anything else is a [`ApprovalStoreError`]; the connection is dropped (a late answer is never
//! read as the answer to a later command) and the version forgotten, so the next change
//! reloads first.

use std::time::Duration;

use redis::{Connection, Value};
use seal_policy::approval::{BookSnapshot, RpcId};
use seal_store_redis::{RedisAddress, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IO_TIMEOUT};

use crate::store::{
    corrupt, field, ApprovalStoreError, BookStore, Loaded, Row, Saved, TokenRow, Touched, View,
};

/// The key prefix of the fleet store: `seal:approvals:`.
pub const FLEET_KEY_PREFIX: &str = "seal:approvals:";

/// The longest fleet name: 64 bytes of `A-Z a-z 0-9 . _ -`.
pub const MAX_FLEET_NAME_BYTES: usize = 64;

/// How often a fleet server reads the version to learn of other servers' changes: 100 ms.
pub const DEFAULT_POLL: Duration = Duration::from_millis(100);

/// How many races a change may lose (another server wrote first, so it is applied again on the
/// reloaded book) before it is refused (`store`): 32.
pub const MAX_CAS_ATTEMPTS: usize = 32;

/// After this many lost races a server asks for the turn ([`TURN_TTL`]): 3.
pub const TURN_AFTER: usize = 3;

/// How long a change may take in all, retries and waits for another server's turn included,
/// before it is refused (`store`): 2 s, below the hook client's 5 s request timeout.
pub const CHANGE_BUDGET: Duration = Duration::from_secs(2);

/// How long a change waits before trying again while another server holds the turn: 2 ms.
pub const BUSY_WAIT: Duration = Duration::from_millis(2);

/// The largest document accepted on load: 64 MiB.
pub const MAX_DOCUMENT_BYTES: usize = 64 * 1024 * 1024;

/// Sets the document and version + 1 when the version is still ARGV[1] (absent counts as 0)
/// and no other server holds the turn (KEYS[3], holding a server's random id); gives up the
/// turn this server held. Answers 1 (written), 0 (the version moved) or 2 (another server holds
/// the turn).
const CAS_SCRIPT: &str = "\
local holder = redis.call('GET', KEYS[3])
if holder and holder ~= ARGV[4] then return 2 end
local current = redis.call('GET', KEYS[1]) or '0'
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[2])
if holder then redis.call('DEL', KEYS[3]) end
return 1";

/// Gives up the turn when this server (ARGV[1]) holds it.
const RELEASE_SCRIPT: &str = "\
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1";

/// How long a turn is held at most (a server that dies holding one blocks the others this
/// long): 500 ms.
pub const TURN_TTL: Duration = Duration::from_millis(500);

/// The negative control's write: the same keys, no version check.
const UNCHECKED_SCRIPT: &str = "\
redis.call('SET', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[2])
return 1";

/// A fleet store's place: the Redis database, the fleet's name, how often to poll.
#[derive(Debug, Clone)]
pub struct FleetStore {
    /// The database, `redis://[[user]:password@]host[:port][/db]` (parsed; shown without its
    /// password).
    pub address: RedisAddress,
    /// The fleet's name, when several fleets share a database: keys are then
    /// `seal:approvals:NAME:...`.
    pub fleet: Option<String>,
    /// How often the version is read ([`DEFAULT_POLL`]).
    pub poll: Duration,
    /// Time to open a connection.
    pub connect_timeout: Duration,
    /// Time to send a command or read its answer.
    pub io_timeout: Duration,
    /// The negative control of the compare-and-set: write without checking the version. Only
    /// for the test that shows a double settlement is then caught; never set it otherwise.
    #[doc(hidden)]
    pub unchecked_writes: bool,
}

impl FleetStore {
    /// A fleet store at `address` with the defaults: no fleet name, a 100 ms poll, the replay
    /// store's timeouts (1 s to connect, 1 s a command).
    #[must_use]
    pub fn new(address: RedisAddress) -> FleetStore {
        FleetStore {
            address,
            fleet: None,
            poll: DEFAULT_POLL,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            io_timeout: DEFAULT_IO_TIMEOUT,
            unchecked_writes: false,
        }
    }

    /// Checks a fleet name: 1 to [`MAX_FLEET_NAME_BYTES`] bytes of `A-Z a-z 0-9 . _ -`.
    ///
    /// # Errors
    /// The reason, as text.
    pub fn check_fleet_name(name: &str) -> Result<(), String> {
        if name.is_empty() || name.len() > MAX_FLEET_NAME_BYTES {
            return Err(format!(
                "a fleet name is 1 to {MAX_FLEET_NAME_BYTES} bytes long"
            ));
        }
        if !name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'))
        {
            return Err("a fleet name holds only A-Z a-z 0-9 . _ -".to_owned());
        }
        Ok(())
    }
}

/// The Redis store of one server of a fleet.
pub(crate) struct RedisBookStore {
    shown: String,
    client: redis::Client,
    connection: Option<Connection>,
    connect_timeout: Duration,
    io_timeout: Duration,
    version_key: String,
    book_key: String,
    turn_key: String,
    /// This server's random id, the value of the turn key while it holds the turn.
    id: String,
    /// Whether this server took the turn and has not written since.
    holding_turn: bool,
    /// The version this server last read or wrote; `None` when unknown (never read, or a write
    /// failed or lost), so the next change reloads first.
    version: Option<u64>,
    unchecked_writes: bool,
}

impl RedisBookStore {
    /// Sets up the client (it connects on first use).
    pub(crate) fn open(config: &FleetStore) -> Result<RedisBookStore, ApprovalStoreError> {
        if let Some(name) = &config.fleet {
            FleetStore::check_fleet_name(name).map_err(ApprovalStoreError::new)?;
        }
        if config.connect_timeout.is_zero() || config.io_timeout.is_zero() {
            return Err(ApprovalStoreError::new(
                "the fleet store's timeouts must be above zero",
            ));
        }
        let shown = config.address.to_string();
        let client = redis::Client::open(config.address.connection_info().clone())
            .map_err(|error| ApprovalStoreError::new(format!("redis `{shown}`: {error}")))?;
        let prefix = match &config.fleet {
            Some(name) => format!("{FLEET_KEY_PREFIX}{name}:"),
            None => FLEET_KEY_PREFIX.to_owned(),
        };
        Ok(RedisBookStore {
            shown,
            client,
            connection: None,
            connect_timeout: config.connect_timeout,
            io_timeout: config.io_timeout,
            version_key: format!("{prefix}version"),
            book_key: format!("{prefix}book"),
            turn_key: format!("{prefix}turn"),
            id: hex::encode(
                crate::state::random32().ok_or_else(|| {
                    ApprovalStoreError::new("the system's random generator failed")
                })?,
            ),
            holding_turn: false,
            version: None,
            unchecked_writes: config.unchecked_writes,
        })
    }

    fn failed(&self, action: &str, error: impl std::fmt::Display) -> ApprovalStoreError {
        ApprovalStoreError::new(format!("redis `{}`: cannot {action}: {error}", self.shown))
    }

    /// Runs `work` on the connection (opening one when there is none); on failure the
    /// connection is dropped and the version forgotten.
    fn with_connection<T>(
        &mut self,
        action: &str,
        work: impl FnOnce(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T, ApprovalStoreError> {
        if self.connection.is_none() {
            let opened = self
                .client
                .get_connection_with_timeout(self.connect_timeout)
                .and_then(|connection| {
                    connection.set_read_timeout(Some(self.io_timeout))?;
                    connection.set_write_timeout(Some(self.io_timeout))?;
                    Ok(connection)
                });
            match opened {
                Ok(connection) => self.connection = Some(connection),
                Err(error) => {
                    self.version = None;
                    return Err(self.failed("connect", error));
                }
            }
        }
        let Some(connection) = self.connection.as_mut() else {
            return Err(self.failed(action, "no connection"));
        };
        match work(connection) {
            Ok(value) => Ok(value),
            Err(error) => {
                self.connection = None;
                self.version = None;
                Err(self.failed(action, error))
            }
        }
    }

    fn read_version(&mut self) -> Result<u64, ApprovalStoreError> {
        let key = self.version_key.clone();
        let answer: Option<String> = self.with_connection("read the version", |connection| {
            redis::cmd("GET").arg(&key).query(connection)
        })?;
        parse_version(answer.as_deref())
    }
}

impl BookStore for RedisBookStore {
    fn load(&mut self) -> Result<Loaded, ApprovalStoreError> {
        let keys = [self.version_key.clone(), self.book_key.clone()];
        let (version, document): (Option<String>, Option<Vec<u8>>) = self
            .with_connection("read the book", |connection| {
                redis::cmd("MGET").arg(&keys).query(connection)
            })?;
        let version = parse_version(version.as_deref())?;
        let loaded = match document {
            None => Loaded {
                snapshot: BookSnapshot {
                    next_rpc_id: RpcId(1),
                    entries: Vec::new(),
                },
                side: std::collections::BTreeMap::new(),
                tokens: Vec::new(),
            },
            Some(bytes) => decode(&bytes)?,
        };
        self.version = Some(version);
        Ok(loaded)
    }

    fn save(
        &mut self,
        view: &View<'_>,
        _touched: Touched<'_>,
    ) -> Result<Saved, ApprovalStoreError> {
        let Some(version) = self.version else {
            return Ok(Saved::Stale);
        };
        let document = encode(view)?;
        let keys = [
            self.version_key.clone(),
            self.book_key.clone(),
            self.turn_key.clone(),
        ];
        let script = if self.unchecked_writes {
            UNCHECKED_SCRIPT
        } else {
            CAS_SCRIPT
        };
        let next = version.saturating_add(1);
        let id = self.id.clone();
        let answer: Value = self.with_connection("write the book", |connection| {
            redis::cmd("EVAL")
                .arg(script)
                .arg(3)
                .arg(&keys)
                .arg(version.to_string())
                .arg(next.to_string())
                .arg(document)
                .arg(id)
                .query(connection)
        })?;
        match answer {
            Value::Int(1) => {
                self.version = Some(next);
                self.holding_turn = false;
                Ok(Saved::Written)
            }
            Value::Int(0) => {
                self.version = None;
                Ok(Saved::Stale)
            }
            Value::Int(2) => Ok(Saved::Busy),
            other => {
                self.connection = None;
                self.version = None;
                Err(self.failed(
                    "write the book",
                    format_args!("unexpected answer {other:?}"),
                ))
            }
        }
    }

    fn shared(&self) -> bool {
        true
    }

    fn moved(&mut self) -> Result<bool, ApprovalStoreError> {
        let Some(known) = self.version else {
            return Ok(true);
        };
        Ok(self.read_version()? != known)
    }

    fn forget_version(&mut self) {
        self.version = None;
    }

    fn take_turn(&mut self) {
        let (key, id) = (self.turn_key.clone(), self.id.clone());
        let ttl = u64::try_from(TURN_TTL.as_millis()).unwrap_or(u64::MAX);
        let taken = self.with_connection("take the turn", |connection| {
            redis::cmd("SET")
                .arg(&key)
                .arg(&id)
                .arg("NX")
                .arg("PX")
                .arg(ttl)
                .query::<Value>(connection)
        });
        self.holding_turn = matches!(taken, Ok(Value::Okay));
    }

    fn release_turn(&mut self) {
        if !self.holding_turn {
            return;
        }
        self.holding_turn = false;
        let (key, id) = (self.turn_key.clone(), self.id.clone());
        let _ = self.with_connection("give up the turn", |connection| {
            redis::cmd("EVAL")
                .arg(RELEASE_SCRIPT)
                .arg(1)
                .arg(&key)
                .arg(&id)
                .query::<Value>(connection)
        });
    }
}

fn parse_version(text: Option<&str>) -> Result<u64, ApprovalStoreError> {
    match text {
        None => Ok(0),
        Some(text) => text.parse().map_err(|_| corrupt("the version")),
    }
}

/// `{"next_rpc_id":N,"entries":[row...],"tokens":[{id,hash,created_ms,last_used_ms}...]}`.
fn encode(view: &View<'_>) -> Result<Vec<u8>, ApprovalStoreError> {
    let mut entries = Vec::new();
    for entry in view.book.export().entries {
        let Some(extra) = view.side.get(&entry.rpc_id) else {
            // An entry without side data is never kept (the SQLite store deletes its row too).
            continue;
        };
        entries.push(Row::of(&entry, extra)?.to_json());
    }
    let tokens: Vec<serde_json::Value> = view
        .tokens
        .iter()
        .map(|token| {
            serde_json::json!({
                "id": token.id,
                "hash": hex::encode(token.hash),
                "created_ms": token.created_ms,
                "last_used_ms": token.last_used_ms,
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "next_rpc_id": view.next_rpc_id.0,
        "entries": entries,
        "tokens": tokens,
    }))
    .map_err(|error| ApprovalStoreError::new(format!("encoding the book: {error}")))
}

fn decode(bytes: &[u8]) -> Result<Loaded, ApprovalStoreError> {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Err(corrupt(format_args!(
            "a book of {} bytes, more than {MAX_DOCUMENT_BYTES}",
            bytes.len()
        )));
    }
    let document: serde_json::Value = serde_json::from_slice(bytes).map_err(corrupt)?;
    let next_rpc_id = field(&document, "next_rpc_id")
        .as_u64()
        .ok_or_else(|| corrupt("the next rpc id"))?;
    let mut entries = Vec::new();
    let mut side = std::collections::BTreeMap::new();
    for value in field(&document, "entries")
        .as_array()
        .ok_or_else(|| corrupt("the entries"))?
    {
        let (entry, extra) = Row::from_json(value)?.into_entry()?;
        side.insert(entry.rpc_id, extra);
        entries.push(entry);
    }
    let mut tokens = Vec::new();
    for value in field(&document, "tokens")
        .as_array()
        .ok_or_else(|| corrupt("the tokens"))?
    {
        let hash = field(value, "hash")
            .as_str()
            .and_then(|text| hex::decode(text).ok())
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .ok_or_else(|| corrupt("a token hash"))?;
        tokens.push(TokenRow {
            id: field(value, "id")
                .as_str()
                .ok_or_else(|| corrupt("a token id"))?
                .to_owned(),
            hash,
            created_ms: field(value, "created_ms")
                .as_u64()
                .ok_or_else(|| corrupt("a token's creation"))?,
            last_used_ms: field(value, "last_used_ms")
                .as_u64()
                .ok_or_else(|| corrupt("a token's last use"))?,
        });
    }
    Ok(Loaded {
        snapshot: BookSnapshot {
            next_rpc_id: RpcId(next_rpc_id),
            entries,
        },
        side,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::BTreeMap;

    use seal_policy::approval::{
        ApprovalBook, BookLimits, EntryRegistration, Registered, RpcId, WireResponse,
    };
    use seal_record::{ApprovalAsked, Sha256Digest};

    use super::{decode, encode, FleetStore};
    use crate::store::{Side, TokenRow, View};

    fn registration(n: u64) -> EntryRegistration {
        EntryRegistration {
            session_id: "session-1".to_owned(),
            agent: "claude-code".to_owned(),
            asked: ApprovalAsked::new(&format!("approval-{n}"), "Bash", Some("call-1"), None)
                .unwrap(),
            arguments_digest: Sha256Digest::of(format!("{n}").as_bytes()),
            card: format!("Bash: echo {n}"),
            deadline_ms: 2_000_000,
        }
    }

    /// A document decodes to the book, side data and tokens that were encoded: one entry
    /// pending, one settled and consumed, one token.
    #[test]
    fn the_document_round_trips() {
        let mut book = ApprovalBook::new(BookLimits::DEFAULT);
        let mut side = BTreeMap::new();
        for n in 1..=2 {
            let Ok(Registered::New(entry)) = book.register(registration(n), 1_000) else {
                panic!("registered");
            };
            side.insert(
                entry.rpc_id,
                Side {
                    command: Some(format!("echo {n}")),
                    nonce: [u8::try_from(n).unwrap(); 32],
                    challenge: seal_verify::webauthn::approval_challenge(
                        entry.rpc_id.0,
                        "session-1",
                        &format!("approval-{n}"),
                        entry.registration.arguments_digest.as_bytes(),
                        &[u8::try_from(n).unwrap(); 32],
                    ),
                    assertion: None,
                },
            );
        }
        let response = WireResponse::from_json(
            br#"{"approval_id":"approval-2","outcome":"allowed-once","rpc_id":2,"session_id":"session-1"}"#,
            &seal_policy::approval::RegistryLimits::DEFAULT.json,
        )
        .unwrap();
        book.respond_parsed(response, 1_500);
        book.consume(RpcId(2), &Sha256Digest::of(b"2")).unwrap();
        let tokens = vec![TokenRow {
            id: "0011223344556677".to_owned(),
            hash: [9; 32],
            created_ms: 1,
            last_used_ms: 2,
        }];
        let view = View {
            book: &book,
            side: &side,
            next_rpc_id: RpcId(3),
            tokens: &tokens,
        };
        let loaded = decode(&encode(&view).unwrap()).unwrap();
        assert_eq!(loaded.snapshot, book.export());
        assert_eq!(loaded.side, side);
        assert_eq!(loaded.tokens, tokens);
        // A document that is not the book's is refused, never read as an empty book.
        assert!(decode(b"{}").is_err());
        assert!(decode(b"not json").is_err());
    }

    #[test]
    fn fleet_names_are_short_and_plain() {
        assert!(FleetStore::check_fleet_name("eu-west.1_a").is_ok());
        for bad in ["", "a:b", "a b", "ü", &"a".repeat(65)] {
            assert!(FleetStore::check_fleet_name(bad).is_err(), "{bad}");
        }
    }
}
