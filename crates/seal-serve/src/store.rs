//! The server's SQLite store: the book's entries (with the server's own side data: the card's
//! command, the hook's nonce, the assertion that came with an allow), the next rpc id, and the
//! token table.
//!
//! [`BookStore`] is the seam between the server's state and where it is kept: [`Store`] here
//! (SQLite, one server) or [`crate::redis_store::RedisBookStore`] (Redis, a fleet of servers).
//!
//! Every change is written in one transaction before the change's caller is answered. Only the
//! rows a change touched are written (plus the deletion of settled entries the book forgot), so
//! a change costs the same with 1 or 1,000 entries pending. WAL, `synchronous=FULL`, a busy
//! timeout of 5 s.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension};
use seal_parse::json::{parse, Fields, JsonLimits};
use seal_policy::approval::{
    ApprovalBook, BookEntry, BookSnapshot, EntryRegistration, EntryStatus, RpcId,
};
use seal_record::{ApprovalAsked, Outcome, Sha256Digest};

use crate::hookwire::WireAssertion;
use crate::names::{cause_name, cause_of};

/// How long a write waits for a lock another process holds on the store before it fails (and
/// the change is refused): below the hook client's request timeout, so a hook hears `store`
/// rather than its own timeout.
pub const STORE_BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// What the server keeps about an entry besides the book's own record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Side {
    /// The command line the card shows (`card_command`), if any.
    pub(crate) command: Option<String>,
    /// The hook's nonce.
    pub(crate) nonce: [u8; 32],
    /// The WebAuthn challenge of the entry.
    pub(crate) challenge: [u8; 32],
    /// The assertion that came with the allow that settled it.
    pub(crate) assertion: Option<WireAssertion>,
}

/// One bearer token, by the SHA-256 of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TokenRow {
    /// The token's public id (listed, revoked by).
    pub(crate) id: String,
    /// SHA-256 of the token.
    pub(crate) hash: [u8; 32],
    /// When it was issued, Unix ms.
    pub(crate) created_ms: u64,
    /// When it was last used, Unix ms.
    pub(crate) last_used_ms: u64,
}

/// What a store held at start.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) snapshot: BookSnapshot,
    pub(crate) side: BTreeMap<RpcId, Side>,
    pub(crate) tokens: Vec<TokenRow>,
}

/// A store that failed.
#[derive(Debug)]
pub struct ApprovalStoreError(String);

impl ApprovalStoreError {
    pub(crate) fn new(message: impl Into<String>) -> ApprovalStoreError {
        ApprovalStoreError(message.into())
    }
}

impl fmt::Display for ApprovalStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApprovalStoreError {}

impl From<rusqlite::Error> for ApprovalStoreError {
    fn from(error: rusqlite::Error) -> ApprovalStoreError {
        ApprovalStoreError(format!("sqlite: {error}"))
    }
}

pub(crate) fn corrupt(what: impl fmt::Display) -> ApprovalStoreError {
    ApprovalStoreError(format!("the store holds an invalid row: {what}"))
}

/// What the server keeps, as one view for a store to write.
pub(crate) struct View<'a> {
    pub(crate) book: &'a ApprovalBook,
    pub(crate) side: &'a BTreeMap<RpcId, Side>,
    pub(crate) next_rpc_id: RpcId,
    pub(crate) tokens: &'a [TokenRow],
}

/// What a change touched.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Touched<'a> {
    /// These entries (and the entries the book forgot, and the next rpc id).
    Entries(&'a [RpcId]),
    /// The token table.
    Tokens,
}

/// How a write went when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Saved {
    /// Written: the store now holds the view.
    Written,
    /// Not written: another server changed the store since this one last read it (its version
    /// moved). The caller reloads and applies its change again.
    Stale,
    /// Not written: another server holds the turn (it lost too many races and writes next).
    /// The caller waits a moment and tries again.
    Busy,
}

/// Where the server's book, side data and tokens are kept.
pub(crate) trait BookStore: Send {
    /// Everything the store holds (and, for a shared store, the version it was read at).
    fn load(&mut self) -> Result<Loaded, ApprovalStoreError>;

    /// Writes a change: [`Saved::Stale`] when another server changed the store first.
    fn save(&mut self, view: &View<'_>, touched: Touched<'_>) -> Result<Saved, ApprovalStoreError>;

    /// Whether other servers may change the store (then a failed write refuses the change, and
    /// the server polls [`BookStore::moved`]).
    fn shared(&self) -> bool;

    /// Whether the store changed since this server last read or wrote it (always false for a
    /// store only this server writes).
    fn moved(&mut self) -> Result<bool, ApprovalStoreError>;

    /// Forgets the version last read, so the next change reloads first.
    fn forget_version(&mut self);

    /// After lost races: asks for the turn, so that the next write is this server's (others'
    /// writes answer [`Saved::Busy`] until it writes, gives the turn up, or the turn expires).
    fn take_turn(&mut self);

    /// Gives the turn up when this server holds it and its change wrote nothing.
    fn release_turn(&mut self);
}

impl BookStore for Store {
    fn load(&mut self) -> Result<Loaded, ApprovalStoreError> {
        Store::load(self)
    }

    fn save(&mut self, view: &View<'_>, touched: Touched<'_>) -> Result<Saved, ApprovalStoreError> {
        match touched {
            Touched::Entries(touched) => {
                self.save_entries(view.book, view.side, touched, view.next_rpc_id)?;
            }
            Touched::Tokens => self.save_tokens(view.tokens)?,
        }
        Ok(Saved::Written)
    }

    fn shared(&self) -> bool {
        false
    }

    fn moved(&mut self) -> Result<bool, ApprovalStoreError> {
        Ok(false)
    }

    fn forget_version(&mut self) {}

    fn take_turn(&mut self) {}

    fn release_turn(&mut self) {}
}

/// The SQLite store.
pub(crate) struct Store {
    connection: Connection,
    /// The rpc ids that have a row.
    persisted: BTreeSet<RpcId>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entry (
    rpc_id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    call_id TEXT,
    reason TEXT,
    arguments_digest TEXT NOT NULL,
    card TEXT NOT NULL,
    deadline_ms INTEGER NOT NULL,
    outcome TEXT,
    cause TEXT,
    consumed INTEGER NOT NULL,
    command TEXT,
    nonce BLOB NOT NULL,
    assertion TEXT
);
CREATE TABLE IF NOT EXISTS token (
    id TEXT PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    last_used_ms INTEGER NOT NULL
);
";

impl Store {
    /// Opens (or creates) the store at `path`.
    pub(crate) fn open(path: &Path) -> Result<Store, ApprovalStoreError> {
        let connection = Connection::open(path)?;
        // Owner only (SQLite gives its WAL and shared-memory files the database's mode): the
        // store holds the cards and the token hashes.
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|error| ApprovalStoreError(format!("restricting the store: {error}")))?;
        connection.busy_timeout(STORE_BUSY_TIMEOUT)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.execute_batch(SCHEMA)?;
        Ok(Store {
            connection,
            persisted: BTreeSet::new(),
        })
    }

    /// Everything the store holds.
    pub(crate) fn load(&mut self) -> Result<Loaded, ApprovalStoreError> {
        let next: Option<i64> = self
            .connection
            .query_row(
                "SELECT value FROM meta WHERE key = 'next_rpc_id'",
                [],
                |row| row.get(0),
            )
            .optional()?;
        let next_rpc_id = RpcId(next.map_or(Ok(1), u64::try_from).map_err(corrupt)?);
        let mut statement = self.connection.prepare(
            "SELECT rpc_id, session_id, agent, approval_id, tool, call_id, reason,
                    arguments_digest, card, deadline_ms, outcome, cause, consumed, command,
                    nonce, assertion
             FROM entry ORDER BY rpc_id",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(Row {
                rpc_id: row.get(0)?,
                session_id: row.get(1)?,
                agent: row.get(2)?,
                approval_id: row.get(3)?,
                tool: row.get(4)?,
                call_id: row.get(5)?,
                reason: row.get(6)?,
                arguments_digest: row.get(7)?,
                card: row.get(8)?,
                deadline_ms: row.get(9)?,
                outcome: row.get(10)?,
                cause: row.get(11)?,
                consumed: row.get(12)?,
                command: row.get(13)?,
                nonce: row.get(14)?,
                assertion: row.get(15)?,
            })
        })?;
        let mut entries = Vec::new();
        let mut side = BTreeMap::new();
        for row in rows {
            let (entry, extra) = row?.into_entry()?;
            self.persisted.insert(entry.rpc_id);
            side.insert(entry.rpc_id, extra);
            entries.push(entry);
        }
        drop(statement);
        let mut statement = self
            .connection
            .prepare("SELECT id, hash, created_ms, last_used_ms FROM token ORDER BY created_ms")?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Vec<u8>>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, i64>(3)?,
            ))
        })?;
        let mut tokens = Vec::new();
        for row in rows {
            let (id, hash, created_ms, last_used_ms) = row?;
            tokens.push(TokenRow {
                id,
                hash: hash.try_into().map_err(|_| corrupt("a token hash"))?,
                created_ms: u64::try_from(created_ms).map_err(corrupt)?,
                last_used_ms: u64::try_from(last_used_ms).map_err(corrupt)?,
            });
        }
        Ok(Loaded {
            snapshot: BookSnapshot {
                next_rpc_id,
                entries,
            },
            side,
            tokens,
        })
    }

    /// Writes the rows of the entries `touched` (or deletes them when the book no longer keeps
    /// them), deletes the rows of entries the book forgot, and records `next_rpc_id`, in one
    /// transaction.
    pub(crate) fn save_entries(
        &mut self,
        book: &ApprovalBook,
        side: &BTreeMap<RpcId, Side>,
        touched: &[RpcId],
        next_rpc_id: RpcId,
    ) -> Result<(), ApprovalStoreError> {
        let forgotten: Vec<RpcId> = self
            .persisted
            .iter()
            .copied()
            .filter(|rpc_id| book.entry(*rpc_id).is_none())
            .collect();
        let transaction = self.connection.transaction()?;
        for rpc_id in forgotten.iter().chain(touched) {
            match (book.entry(*rpc_id), side.get(rpc_id)) {
                (Some(entry), Some(extra)) => write_entry(&transaction, entry, extra)?,
                _ => {
                    transaction.execute(
                        "DELETE FROM entry WHERE rpc_id = ?1",
                        params![sql(rpc_id.0)?],
                    )?;
                }
            }
        }
        transaction.execute(
            "INSERT INTO meta (key, value) VALUES ('next_rpc_id', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![sql(next_rpc_id.0)?],
        )?;
        transaction.commit()?;
        for rpc_id in forgotten {
            self.persisted.remove(&rpc_id);
        }
        for rpc_id in touched {
            if book.entry(*rpc_id).is_some() && side.contains_key(rpc_id) {
                self.persisted.insert(*rpc_id);
            } else {
                self.persisted.remove(rpc_id);
            }
        }
        Ok(())
    }

    /// Replaces the token table, in one transaction.
    pub(crate) fn save_tokens(&mut self, tokens: &[TokenRow]) -> Result<(), ApprovalStoreError> {
        let transaction = self.connection.transaction()?;
        transaction.execute("DELETE FROM token", [])?;
        for token in tokens {
            transaction.execute(
                "INSERT INTO token (id, hash, created_ms, last_used_ms) VALUES (?1, ?2, ?3, ?4)",
                params![
                    token.id,
                    token.hash.as_slice(),
                    sql(token.created_ms)?,
                    sql(token.last_used_ms)?
                ],
            )?;
        }
        transaction.commit()?;
        Ok(())
    }
}

fn sql(value: u64) -> Result<i64, ApprovalStoreError> {
    i64::try_from(value)
        .map_err(|_| ApprovalStoreError(format!("`{value}` does not fit the store")))
}

fn write_entry(
    transaction: &rusqlite::Transaction<'_>,
    entry: &BookEntry,
    extra: &Side,
) -> Result<(), ApprovalStoreError> {
    let registration = &entry.registration;
    let asked = &registration.asked;
    let (outcome, cause, consumed) = match entry.status {
        EntryStatus::Pending => (None, None, false),
        EntryStatus::Settled {
            outcome,
            cause,
            consumed,
        } => (Some(outcome.as_str()), Some(cause_name(cause)), consumed),
    };
    transaction.execute(
        "INSERT OR REPLACE INTO entry (rpc_id, session_id, agent, approval_id, tool, call_id,
             reason, arguments_digest, card, deadline_ms, outcome, cause, consumed, command,
             nonce, assertion)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            sql(entry.rpc_id.0)?,
            registration.session_id,
            registration.agent,
            asked.id(),
            asked.tool(),
            asked.call_id(),
            asked.reason(),
            registration.arguments_digest.to_hex(),
            registration.card,
            sql(registration.deadline_ms)?,
            outcome,
            cause,
            consumed,
            extra.command,
            extra.nonce.as_slice(),
            extra.assertion.as_ref().map(WireAssertion::to_json),
        ],
    )?;
    Ok(())
}

/// One entry as the stores keep it: the book's record and the side data, as columns.
pub(crate) struct Row {
    rpc_id: i64,
    session_id: String,
    agent: String,
    approval_id: String,
    tool: String,
    call_id: Option<String>,
    reason: Option<String>,
    arguments_digest: String,
    card: String,
    deadline_ms: i64,
    outcome: Option<String>,
    cause: Option<String>,
    consumed: bool,
    command: Option<String>,
    nonce: Vec<u8>,
    assertion: Option<String>,
}

impl Row {
    /// The row of `entry` with `extra`.
    pub(crate) fn of(entry: &BookEntry, extra: &Side) -> Result<Row, ApprovalStoreError> {
        let registration = &entry.registration;
        let asked = &registration.asked;
        let (outcome, cause, consumed) = match entry.status {
            EntryStatus::Pending => (None, None, false),
            EntryStatus::Settled {
                outcome,
                cause,
                consumed,
            } => (
                Some(outcome.as_str().to_owned()),
                Some(cause_name(cause).to_owned()),
                consumed,
            ),
        };
        Ok(Row {
            rpc_id: sql(entry.rpc_id.0)?,
            session_id: registration.session_id.clone(),
            agent: registration.agent.clone(),
            approval_id: asked.id().to_owned(),
            tool: asked.tool().to_owned(),
            call_id: asked.call_id().map(str::to_owned),
            reason: asked.reason().map(str::to_owned),
            arguments_digest: registration.arguments_digest.to_hex(),
            card: registration.card.clone(),
            deadline_ms: sql(registration.deadline_ms)?,
            outcome,
            cause,
            consumed,
            command: extra.command.clone(),
            nonce: extra.nonce.to_vec(),
            assertion: extra.assertion.as_ref().map(WireAssertion::to_json),
        })
    }

    /// The row as a JSON object (the Redis store's encoding: the SQLite columns by name, the
    /// nonce in hex).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "rpc_id": self.rpc_id,
            "session_id": self.session_id,
            "agent": self.agent,
            "approval_id": self.approval_id,
            "tool": self.tool,
            "call_id": self.call_id,
            "reason": self.reason,
            "arguments_digest": self.arguments_digest,
            "card": self.card,
            "deadline_ms": self.deadline_ms,
            "outcome": self.outcome,
            "cause": self.cause,
            "consumed": self.consumed,
            "command": self.command,
            "nonce": hex::encode(&self.nonce),
            "assertion": self.assertion,
        })
    }

    /// The row of a JSON object [`Row::to_json`] wrote.
    pub(crate) fn from_json(value: &serde_json::Value) -> Result<Row, ApprovalStoreError> {
        let text = |name: &str| -> Result<String, ApprovalStoreError> {
            field(value, name)
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| corrupt(format_args!("the field `{name}`")))
        };
        let optional = |name: &str| -> Result<Option<String>, ApprovalStoreError> {
            match &field(value, name) {
                serde_json::Value::Null => Ok(None),
                serde_json::Value::String(text) => Ok(Some(text.clone())),
                _ => Err(corrupt(format_args!("the field `{name}`"))),
            }
        };
        let integer = |name: &str| -> Result<i64, ApprovalStoreError> {
            field(value, name)
                .as_i64()
                .ok_or_else(|| corrupt(format_args!("the field `{name}`")))
        };
        Ok(Row {
            rpc_id: integer("rpc_id")?,
            session_id: text("session_id")?,
            agent: text("agent")?,
            approval_id: text("approval_id")?,
            tool: text("tool")?,
            call_id: optional("call_id")?,
            reason: optional("reason")?,
            arguments_digest: text("arguments_digest")?,
            card: text("card")?,
            deadline_ms: integer("deadline_ms")?,
            outcome: optional("outcome")?,
            cause: optional("cause")?,
            consumed: field(value, "consumed")
                .as_bool()
                .ok_or_else(|| corrupt("the field `consumed`"))?,
            command: optional("command")?,
            nonce: hex::decode(text("nonce")?).map_err(|_| corrupt("a nonce"))?,
            assertion: optional("assertion")?,
        })
    }

    pub(crate) fn into_entry(self) -> Result<(BookEntry, Side), ApprovalStoreError> {
        let rpc_id = RpcId(u64::try_from(self.rpc_id).map_err(corrupt)?);
        let asked = ApprovalAsked::new(
            &self.approval_id,
            &self.tool,
            self.call_id.as_deref(),
            self.reason.as_deref(),
        )
        .map_err(corrupt)?;
        let arguments_digest = Sha256Digest::from_hex(&self.arguments_digest)
            .map_err(|_| corrupt("an arguments digest"))?;
        let status = match (self.outcome, self.cause) {
            (None, None) => EntryStatus::Pending,
            (Some(outcome), Some(cause)) => EntryStatus::Settled {
                outcome: Outcome::from_name(&outcome).map_err(|_| corrupt("an outcome"))?,
                cause: cause_of(&cause).ok_or_else(|| corrupt("a settle cause"))?,
                consumed: self.consumed,
            },
            _ => return Err(corrupt("an entry's status")),
        };
        let nonce: [u8; 32] = self.nonce.try_into().map_err(|_| corrupt("a nonce"))?;
        let assertion = match self.assertion {
            None => None,
            Some(text) => Some(assertion_of(&text)?),
        };
        let challenge = seal_verify::webauthn::approval_challenge(
            rpc_id.0,
            &self.session_id,
            asked.id(),
            arguments_digest.as_bytes(),
            &nonce,
        );
        let entry = BookEntry {
            rpc_id,
            registration: EntryRegistration {
                session_id: self.session_id,
                agent: self.agent,
                asked,
                arguments_digest,
                card: self.card,
                deadline_ms: u64::try_from(self.deadline_ms).map_err(corrupt)?,
            },
            status,
        };
        let side = Side {
            command: self.command,
            nonce,
            challenge,
            assertion,
        };
        Ok((entry, side))
    }
}

/// The member `name` of a JSON object (null when absent or not an object).
pub(crate) fn field<'a>(value: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    value.get(name).unwrap_or(&serde_json::Value::Null)
}

fn assertion_of(text: &str) -> Result<WireAssertion, ApprovalStoreError> {
    let value = parse(text.as_bytes(), &JsonLimits::DEFAULT).map_err(corrupt)?;
    let fields = Fields::of(&value, "").map_err(corrupt)?;
    WireAssertion::from_fields(fields).map_err(corrupt)
}
