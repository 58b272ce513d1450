//! Replay protection as one atomic step: the verifier claims each candidate id in a
//! [`ReplayStore`] and trusts a frame (or a signed approval) only if its claim was fresh
//! (spec/frame-v1.md section 9.1 states the contract).
//!
//! The store is the embedder's: this crate does no IO, so it holds only the contract and an
//! in-memory store ([`MemoryReplayStore`]); stores that persist or share ids (SQLite, Redis)
//! live at the edge.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

use crate::time::UnixTime;

/// The namespace of a claimed id: an id is unique within its scope only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaimScope<'a> {
    /// Frame ids of one conversation: HMAC frames, whose conversation subkey already stops a
    /// copy into another conversation.
    Conversation(&'a str),
    /// Frame ids signed by one key, in every conversation: Ed25519 frames, which no
    /// conversation binds.
    Key(&'a str),
    /// Approval ids of one approver key (signed manifest approvals).
    Approval(&'a str),
}

impl<'a> ClaimScope<'a> {
    /// The scope's kind as a stable lowercase word (`conversation`, `key`, `approval`), for
    /// stores that write it down.
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Conversation(_) => "conversation",
            Self::Key(_) => "key",
            Self::Approval(_) => "approval",
        }
    }

    /// The conversation id or key id the scope names.
    pub const fn name(&self) -> &'a str {
        match self {
            Self::Conversation(name) | Self::Key(name) | Self::Approval(name) => name,
        }
    }
}

/// One claim: "`id` in `scope` is used now; remember it until `expires_at`".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim<'a> {
    /// The id's namespace.
    pub scope: ClaimScope<'a>,
    /// The frame id or approval id, byte for byte.
    pub id: &'a str,
    /// The time of the claim (the verifier's time, never a clock the store reads).
    pub now: UnixTime,
    /// The last second at which a copy of the same frame or approval could still verify: the
    /// store must remember the id at least until then, and may forget it after.
    pub expires_at: UnixTime,
}

/// What a claim found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// No live claim of this id in this scope existed: this claim is now recorded, and it is
    /// the only one that will ever be fresh while it lives.
    Fresh,
    /// A live claim existed: the id was used before.
    Replayed,
}

/// Why a store could not answer a claim. The verifier fails closed: the frame or approval
/// does not verify.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimError {
    /// The store holds as many live ids as it may.
    Full {
        /// Its capacity.
        capacity: usize,
    },
    /// The store could not be read or written (a lock, a file, a server); the text says what,
    /// for the operator.
    Unavailable {
        /// What failed.
        detail: String,
    },
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { capacity } => {
                write!(
                    f,
                    "the replay store holds {capacity} live ids, its capacity"
                )
            }
            Self::Unavailable { detail } => write!(f, "the replay store failed: {detail}"),
        }
    }
}

impl std::error::Error for ClaimError {}

/// A store of claimed ids with an atomic check-and-record step.
///
/// The contract (spec/frame-v1.md section 9.1), for claims of one `(scope, id)`:
///
/// 1. **One fresh claim per life.** Of all claims made while an earlier fresh claim lives
///    (`claim.now <= expires_at` of that earlier claim), none is [`ClaimOutcome::Fresh`],
///    whatever the number of threads, processes or machines that claim at once: check and
///    record are one step.
/// 2. **Remembered until expiry.** A fresh claim lives at least until its `expires_at`; after
///    that the store may forget it (purge), and a later claim may be fresh again. The verifier
///    chooses `expires_at` so that nothing it would still accept can carry the id by then.
/// 3. **A replayed claim changes nothing** (it does not extend the earlier claim's life).
/// 4. **Scopes and ids are compared byte for byte**, never normalized.
/// 5. **Fail closed.** A store that cannot decide returns a [`ClaimError`]; it never answers
///    `Fresh` for a claim it did not record.
///
/// `claim` takes `&self`: a store is shared by the verifiers of many messages, and keeps its
/// own lock (in memory, a mutex; in a database, a transaction).
pub trait ReplayStore {
    /// Claims `claim.id` in `claim.scope` at `claim.now`, to live until `claim.expires_at`.
    ///
    /// # Errors
    /// A [`ClaimError`] when the store cannot decide; the caller then trusts nothing.
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError>;
}

impl<R: ReplayStore + ?Sized> ReplayStore for &R {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        (**self).claim(claim)
    }
}

/// Default capacity of a [`MemoryReplayStore`]: 1,000,000 live ids.
pub const DEFAULT_MEMORY_REPLAY_CAPACITY: usize = 1_000_000;

/// The in-memory [`ReplayStore`]: a map of live claims behind a mutex, for one process.
///
/// Every claim first purges the claims that expired before its time (oldest first, through an
/// index by expiry), so the store holds the ids of at most one freshness window; it holds at
/// most `capacity` live ids and refuses a claim beyond ([`ClaimError::Full`]), so it never
/// grows without bound. A poisoned mutex is [`ClaimError::Unavailable`], never a panic.
#[derive(Debug)]
pub struct MemoryReplayStore {
    capacity: usize,
    state: Mutex<Claims>,
}

/// The live claims, by key and by expiry.
#[derive(Debug, Default)]
struct Claims {
    by_key: BTreeMap<OwnedKey, UnixTime>,
    by_expiry: BTreeMap<(UnixTime, OwnedKey), ()>,
}

/// A claimed `(scope kind, scope name, id)`, owned.
type OwnedKey = (&'static str, String, String);

impl Default for MemoryReplayStore {
    fn default() -> Self {
        MemoryReplayStore::new()
    }
}

impl MemoryReplayStore {
    /// An empty store of [`DEFAULT_MEMORY_REPLAY_CAPACITY`] live ids.
    pub fn new() -> MemoryReplayStore {
        MemoryReplayStore::with_capacity(DEFAULT_MEMORY_REPLAY_CAPACITY)
    }

    /// An empty store of at most `capacity` live ids.
    pub fn with_capacity(capacity: usize) -> MemoryReplayStore {
        MemoryReplayStore {
            capacity,
            state: Mutex::new(Claims::default()),
        }
    }

    /// The store's capacity in live ids.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The ids held (live, or expired but not yet purged), 0 if the mutex is poisoned.
    pub fn len(&self) -> usize {
        self.state.lock().map_or(0, |claims| claims.by_key.len())
    }

    /// Whether the store holds no id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The claims live at `now` (`now <= expires_at`), as `(scope kind, scope name, id,
    /// expires_at)` in that order, for tests and for exporting the store.
    pub fn live(&self, now: UnixTime) -> Vec<(&'static str, String, String, UnixTime)> {
        self.state.lock().map_or_else(
            |_| Vec::new(),
            |claims| {
                claims
                    .by_key
                    .iter()
                    .filter(|(_, expires)| now <= **expires)
                    .map(|((kind, name, id), expires)| (*kind, name.clone(), id.clone(), *expires))
                    .collect()
            },
        )
    }

    /// Removes the claims that expired before `now`; returns how many.
    pub fn purge(&self, now: UnixTime) -> usize {
        self.state.lock().map_or(0, |mut claims| claims.purge(now))
    }
}

impl Claims {
    fn purge(&mut self, now: UnixTime) -> usize {
        let mut purged = 0;
        while let Some(entry) = self.by_expiry.first_entry() {
            if entry.key().0 >= now {
                break;
            }
            let ((_, key), ()) = entry.remove_entry();
            self.by_key.remove(&key);
            purged += 1;
        }
        purged
    }
}

impl ReplayStore for MemoryReplayStore {
    fn claim(&self, claim: &Claim<'_>) -> Result<ClaimOutcome, ClaimError> {
        let mut claims = self.state.lock().map_err(|_| ClaimError::Unavailable {
            detail: "the in-memory replay store's lock is poisoned".to_owned(),
        })?;
        claims.purge(claim.now);
        let key: OwnedKey = (
            claim.scope.kind(),
            claim.scope.name().to_owned(),
            claim.id.to_owned(),
        );
        if claims.by_key.contains_key(&key) {
            // Purged above unless live at `now`.
            return Ok(ClaimOutcome::Replayed);
        }
        if claims.by_key.len() >= self.capacity {
            return Err(ClaimError::Full {
                capacity: self.capacity,
            });
        }
        claims.by_expiry.insert((claim.expires_at, key.clone()), ());
        claims.by_key.insert(key, claim.expires_at);
        Ok(ClaimOutcome::Fresh)
    }
}
