//! The approval book: the pending and settled approvals an approval server holds, as a pure
//! value over the [`WireRegistry`].
//!
//! A waiting hook registers an approval (session, agent, the `approval/asked` record, the
//! digest of the call's arguments, the card, a deadline) and gets its rpc id; registering the
//! same approval again (a hook that reconnected) returns the same entry. Panels get the
//! pending entries as [`Downlink::Requested`] events, replayed in rpc id order with the ids
//! first issued. A panel's response gets a [`Receipt`]: the first valid one settles the entry,
//! every other one is refused with a named [`ResponseRefusal`] and changes nothing.
//! Cancellation, timeout, unavailability and shutdown are settled by the host. The waiting hook
//! consumes an `allowed-once` exactly once, for the digest it registered.
//!
//! Time is a value: every call that depends on it takes `now_ms`, milliseconds on whatever
//! clock the host uses for deadlines. The book never reads a clock.
//!
//! A store persists [`ApprovalBook::export`] and a restarted server calls
//! [`ApprovalBook::rebuild`]: pending entries come back with their rpc ids and deadlines, and no
//! rpc id issued before the restart is issued again.

use std::collections::BTreeMap;
use std::fmt;

use seal_parse::json::MAX_EXACT_INTEGER;
use seal_record::{ApprovalAsked, Outcome, Sha256Digest};

use super::answerer::Reply;
use super::ids::is_id;
use super::machine::Event;
use super::machine_answerer::{
    machine_claims, map_machine_response, MachineAnswer, MachineResponse,
};
use super::registry::{RegistryLimits, RpcId, WireRegistry};
use super::request::Question;
use super::response::{MalformedResponse, WireResponse};
use super::wire_error::{RegisterError, ResponseError};

/// Limits of an [`ApprovalBook`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BookLimits {
    /// The limits of the underlying [`WireRegistry`] (most pending entries, response parsing).
    pub wire: RegistryLimits,
    /// How many settled entries are kept, so that a late or duplicate response is named and an
    /// allow can be consumed. Default 4096; past it the lowest settled rpc ids are forgotten: a
    /// response to one is then [`ResponseRefusal::Stale`] and an allow of one can no longer be
    /// consumed (both still refused).
    pub max_settled: usize,
}

impl BookLimits {
    /// The default limits.
    pub const DEFAULT: BookLimits = BookLimits {
        wire: RegistryLimits::DEFAULT,
        max_settled: 4096,
    };
}

impl Default for BookLimits {
    fn default() -> Self {
        BookLimits::DEFAULT
    }
}

/// What a waiting hook registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRegistration {
    /// The session id.
    pub session_id: String,
    /// The agent id.
    pub agent: String,
    /// The `approval/asked` record: approval id, tool, call id, reason (never arguments).
    pub asked: ApprovalAsked,
    /// The digest of the call's canonical arguments: the only call an allow may be consumed for.
    pub arguments_digest: Sha256Digest,
    /// The approval card shown to the person (seal's ASCII rendering).
    pub card: String,
    /// When the entry times out, in the host's milliseconds.
    pub deadline_ms: u64,
}

/// One approval in the book, pending or settled: also the form a store persists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookEntry {
    /// The stable rpc id.
    pub rpc_id: RpcId,
    /// What was registered.
    pub registration: EntryRegistration,
    /// Pending, or how it settled.
    pub status: EntryStatus,
}

/// Whether an entry is pending, and how it settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryStatus {
    /// Waiting for an answer.
    Pending,
    /// Settled, once and for good.
    Settled {
        /// The terminal outcome.
        outcome: Outcome,
        /// Who or what settled it.
        cause: SettleCause,
        /// Whether the waiting hook has consumed the allow (only ever true for
        /// `allowed-once`).
        consumed: bool,
    },
}

/// Who or what settled an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SettleCause {
    /// A person's response on a panel (`allowed-once` or `rejected`).
    Answered,
    /// A machine answerer that claimed the entry.
    MachineAnswered,
    /// The host cancelled it (`cancelled`), for this reason.
    Cancelled(CancelCause),
    /// The deadline passed (`unavailable`).
    Timeout,
    /// The host could not get an answer (`unavailable`), for instance its store is down.
    Unavailable,
    /// The server shut down or aborted with the entry pending (`cancelled`).
    Shutdown,
}

/// Why the host cancelled one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CancelCause {
    /// The caller aborted the call.
    Aborted,
    /// The waiting hook went away.
    HookGone,
    /// The person answered elsewhere (the client's own prompt).
    AnsweredElsewhere,
    /// A machine answerer's client cancelled its prompt.
    MachineCancelled,
}

/// How an entry left the pending set: what to send panels as `approval/resolved` and to log
/// as `approval/decided`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The rpc id.
    pub rpc_id: RpcId,
    /// The session id.
    pub session_id: String,
    /// The approval id.
    pub approval_id: String,
    /// The terminal outcome.
    pub outcome: Outcome,
    /// Who or what settled it.
    pub cause: SettleCause,
}

/// An event toward panels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Downlink {
    /// A pending approval (`approval/requested`), with its stable rpc id.
    Requested(BookEntry),
    /// An approval left the pending set (`approval/resolved`).
    Resolved(Resolution),
}

/// What a registration did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registered {
    /// A new entry, under a fresh rpc id: send it to panels.
    New(BookEntry),
    /// The same approval was registered before: its entry, unchanged, pending or settled (the
    /// waiting hook goes on waiting, or reads the outcome).
    Again(BookEntry),
}

/// Why a registration (or a rebuilt entry) was refused. The book is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryError {
    /// The wire registry refused it (invalid session id, too many pending, rpc ids exhausted,
    /// an rpc id in use).
    Wire(RegisterError),
    /// The agent id is not an identifier.
    InvalidAgent {
        /// The id given.
        id: String,
    },
    /// The deadline has passed already.
    PastDeadline {
        /// The deadline given.
        deadline_ms: u64,
        /// The time given.
        now_ms: u64,
    },
    /// The same approval of the same session is in the book with another agent, request or
    /// arguments digest.
    Conflicting {
        /// The rpc id of the entry in the book.
        rpc_id: RpcId,
    },
}

/// The answer to a panel's or a machine answerer's response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receipt {
    /// The first valid response: it settled the entry.
    Accepted(Resolution),
    /// Refused, for this reason; nothing changed.
    Refused(ResponseRefusal),
}

/// Why a response was refused. A refused response changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseRefusal {
    /// It does not read as a response (strict JSON, exactly the four members, a client outcome).
    Malformed(MalformedResponse),
    /// The rpc id is known but the session or approval id is not its own, or a machine answerer
    /// does not claim the entry.
    Foreign {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The rpc id is unknown (never issued, or forgotten).
    Stale {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The entry was settled by the host (cancelled, timed out, unavailable, shut down), or its
    /// deadline had passed at the time given.
    Late {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The entry was settled by an earlier response.
    Duplicate {
        /// The rpc id.
        rpc_id: RpcId,
    },
}

/// Proof that the waiting hook consumed an allow: only [`ApprovalBook::consume`] makes one, at
/// most once per entry.
#[derive(Debug, PartialEq, Eq)]
pub struct ConsumedAllow {
    rpc_id: RpcId,
    approval_id: String,
    arguments_digest: Sha256Digest,
}

/// Why a consumption was refused. The book is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsumeRefusal {
    /// No entry has this rpc id (never issued, or forgotten).
    Unknown {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The entry is still pending.
    NotSettled {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The entry settled as something else than `allowed-once`.
    NotAllowed {
        /// The rpc id.
        rpc_id: RpcId,
        /// How it settled.
        outcome: Outcome,
    },
    /// The allow was consumed already.
    AlreadyConsumed {
        /// The rpc id.
        rpc_id: RpcId,
    },
    /// The digest given is not the one registered.
    OtherDigest {
        /// The rpc id.
        rpc_id: RpcId,
    },
}

/// Everything a store needs to rebuild an [`ApprovalBook`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookSnapshot {
    /// The rpc id the book would issue next; a rebuilt book never issues a lower one.
    pub next_rpc_id: RpcId,
    /// Every kept entry, pending and settled, in rpc id order.
    pub entries: Vec<BookEntry>,
}

/// The approval server's state: pending and settled entries keyed by rpc id, over a
/// [`WireRegistry`] that issues the rpc ids and holds the pending requests.
///
/// ```
/// use seal_policy::approval::{ApprovalBook, EntryRegistration, Receipt, RpcId};
/// use seal_record::{ApprovalAsked, Sha256Digest};
///
/// let mut book = ApprovalBook::default();
/// let digest = Sha256Digest::of(b"{\"command\":\"cargo test\"}");
/// let registration = EntryRegistration {
///     session_id: "session-1".to_owned(),
///     agent: "agent-1".to_owned(),
///     asked: ApprovalAsked::new("approval-1", "Bash", Some("call-1"), None).expect("ids"),
///     arguments_digest: digest,
///     card: "Bash: cargo test".to_owned(),
///     deadline_ms: 60_000,
/// };
/// let rpc_id = book.register(registration.clone(), 0).expect("registers").rpc_id();
/// // A hook that reconnects gets the same rpc id, not a second entry.
/// assert_eq!(book.register(registration, 10).expect("again").rpc_id(), rpc_id);
/// let answer = br#"{"approval_id":"approval-1","outcome":"allowed-once","rpc_id":1,"session_id":"session-1"}"#;
/// assert!(matches!(book.respond(answer, 20), Receipt::Accepted(_)));
/// match book.respond(answer, 30) {
///     Receipt::Refused(refusal) => assert_eq!(refusal.name(), "duplicate"),
///     Receipt::Accepted(_) => unreachable!("the first response settled it"),
/// }
/// assert!(book.consume(rpc_id, &digest).is_ok());
/// assert!(book.consume(rpc_id, &digest).is_err());
/// assert_eq!(rpc_id, RpcId(1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalBook {
    wire: WireRegistry,
    entries: BTreeMap<RpcId, BookEntry>,
    by_approval: BTreeMap<(String, String), RpcId>,
    limits: BookLimits,
}

impl ApprovalBook {
    /// An empty book; the first rpc id is 1.
    pub fn new(limits: BookLimits) -> ApprovalBook {
        ApprovalBook {
            wire: WireRegistry::new(limits.wire),
            entries: BTreeMap::new(),
            by_approval: BTreeMap::new(),
            limits,
        }
    }

    /// Registers an approval at time `now_ms`. The same approval (session id and approval id)
    /// registered again returns its entry as it is, with the rpc id first issued, whether it is
    /// still pending or settled (its card and deadline stay those first registered); with
    /// another agent, request or arguments digest it is [`EntryError::Conflicting`].
    pub fn register(
        &mut self,
        registration: EntryRegistration,
        now_ms: u64,
    ) -> Result<Registered, EntryError> {
        if let Some(entry) = self.entry_of(&registration.session_id, registration.asked.id()) {
            if same_call(&entry.registration, &registration) {
                return Ok(Registered::Again(entry.clone()));
            }
            return Err(EntryError::Conflicting {
                rpc_id: entry.rpc_id,
            });
        }
        if !is_id(&registration.agent) {
            return Err(EntryError::InvalidAgent {
                id: registration.agent,
            });
        }
        if registration.deadline_ms <= now_ms {
            return Err(EntryError::PastDeadline {
                deadline_ms: registration.deadline_ms,
                now_ms,
            });
        }
        let request = self
            .wire
            .register(&registration.session_id, &registration.asked)
            .map_err(EntryError::Wire)?;
        let entry = BookEntry {
            rpc_id: request.rpc_id(),
            registration,
            status: EntryStatus::Pending,
        };
        self.insert(entry.clone());
        Ok(Registered::New(entry))
    }

    /// Handles a panel's response (the uplink) at time `now_ms`. The first valid response to a
    /// pending entry before its deadline settles it; any other is refused, by the first rule it
    /// breaks: malformed, stale (unknown rpc id), foreign (another session or approval for that
    /// rpc id), duplicate (settled by an earlier response), late (settled by the host, or the
    /// deadline passed).
    pub fn respond(&mut self, input: &[u8], now_ms: u64) -> Receipt {
        match WireResponse::from_json(input, &self.limits.wire.json) {
            Ok(response) => self.respond_parsed(response, now_ms),
            Err(error) => Receipt::Refused(ResponseRefusal::Malformed(error)),
        }
    }

    /// [`ApprovalBook::respond`] for a response already read with [`WireResponse::from_json`].
    pub fn respond_parsed(&mut self, response: WireResponse, now_ms: u64) -> Receipt {
        let rpc_id = response.rpc_id;
        let Some(entry) = self.entries.get(&rpc_id) else {
            return Receipt::Refused(ResponseRefusal::Stale { rpc_id });
        };
        if entry.registration.session_id != response.session_id
            || entry.registration.asked.id() != response.approval_id
        {
            return Receipt::Refused(ResponseRefusal::Foreign { rpc_id });
        }
        if let Some(refusal) = not_open(entry, now_ms) {
            return Receipt::Refused(refusal);
        }
        let outcome = response.reply.outcome();
        match self.wire.respond_parsed(response) {
            Ok(_) => self.settle(rpc_id, outcome, SettleCause::Answered),
            Err(error) => Receipt::Refused(refusal_of(error, rpc_id)),
        }
    }

    /// A machine answerer that owns `owned_agent` answers entry `rpc_id` at time `now_ms`. It
    /// claims only an entry of exactly that agent that has a call id (otherwise the response is
    /// [`ResponseRefusal::Foreign`]); its client's selection maps as
    /// [`map_machine_response`] says: `allow-once` allows once, a cancellation cancels, any
    /// other option rejects.
    pub fn respond_as_machine(
        &mut self,
        owned_agent: &str,
        rpc_id: RpcId,
        response: MachineResponse<'_>,
        now_ms: u64,
    ) -> Receipt {
        let Some(entry) = self.entries.get(&rpc_id) else {
            return Receipt::Refused(ResponseRefusal::Stale { rpc_id });
        };
        if !entry.claimed_by(owned_agent) {
            return Receipt::Refused(ResponseRefusal::Foreign { rpc_id });
        }
        if let Some(refusal) = not_open(entry, now_ms) {
            return Receipt::Refused(refusal);
        }
        let (outcome, cause) = match map_machine_response(response) {
            MachineAnswer::Reply(reply) => (reply.outcome(), SettleCause::MachineAnswered),
            MachineAnswer::Cancel => (
                Outcome::Cancelled,
                SettleCause::Cancelled(CancelCause::MachineCancelled),
            ),
        };
        match self.wire.cancel(rpc_id) {
            Some(_) => self.settle(rpc_id, outcome, cause),
            None => Receipt::Refused(ResponseRefusal::Late { rpc_id }),
        }
    }

    /// The host cancels a pending entry. `None` if it is not pending.
    pub fn cancel(&mut self, rpc_id: RpcId, cause: CancelCause) -> Option<Resolution> {
        self.host_settle(rpc_id, Outcome::Cancelled, SettleCause::Cancelled(cause))
    }

    /// The host settles a pending entry `unavailable` (it cannot get an answer). `None` if it
    /// is not pending.
    pub fn mark_unavailable(&mut self, rpc_id: RpcId) -> Option<Resolution> {
        self.host_settle(rpc_id, Outcome::Unavailable, SettleCause::Unavailable)
    }

    /// Settles every pending entry whose deadline is at or before `now_ms` as `unavailable`
    /// ([`SettleCause::Timeout`]), in rpc id order.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Resolution> {
        let due: Vec<RpcId> = self
            .entries
            .values()
            .filter(|entry| {
                entry.status == EntryStatus::Pending && entry.registration.deadline_ms <= now_ms
            })
            .map(|entry| entry.rpc_id)
            .collect();
        due.into_iter()
            .filter_map(|rpc_id| {
                self.host_settle(rpc_id, Outcome::Unavailable, SettleCause::Timeout)
            })
            .collect()
    }

    /// Settles every pending entry `cancelled` ([`SettleCause::Shutdown`]), in rpc id order:
    /// the server is shutting down or aborting.
    pub fn shutdown(&mut self) -> Vec<Resolution> {
        let pending: Vec<RpcId> = self.pending().map(|entry| entry.rpc_id).collect();
        pending
            .into_iter()
            .filter_map(|rpc_id| {
                self.host_settle(rpc_id, Outcome::Cancelled, SettleCause::Shutdown)
            })
            .collect()
    }

    /// The waiting hook consumes the allow of entry `rpc_id` for the call whose arguments have
    /// `arguments_digest`. Succeeds once, only for `allowed-once` and only for the digest
    /// registered; every other attempt is refused and changes nothing.
    pub fn consume(
        &mut self,
        rpc_id: RpcId,
        arguments_digest: &Sha256Digest,
    ) -> Result<ConsumedAllow, ConsumeRefusal> {
        let entry = self
            .entries
            .get_mut(&rpc_id)
            .ok_or(ConsumeRefusal::Unknown { rpc_id })?;
        match &mut entry.status {
            EntryStatus::Pending => Err(ConsumeRefusal::NotSettled { rpc_id }),
            EntryStatus::Settled { outcome, .. } if *outcome != Outcome::AllowedOnce => {
                Err(ConsumeRefusal::NotAllowed {
                    rpc_id,
                    outcome: *outcome,
                })
            }
            EntryStatus::Settled { consumed: true, .. } => {
                Err(ConsumeRefusal::AlreadyConsumed { rpc_id })
            }
            EntryStatus::Settled { .. }
                if entry.registration.arguments_digest != *arguments_digest =>
            {
                Err(ConsumeRefusal::OtherDigest { rpc_id })
            }
            EntryStatus::Settled { consumed, .. } => {
                *consumed = true;
                Ok(ConsumedAllow {
                    rpc_id,
                    approval_id: entry.registration.asked.id().to_owned(),
                    arguments_digest: *arguments_digest,
                })
            }
        }
    }

    /// The events to send a panel that connects or reconnects: one [`Downlink::Requested`]
    /// per pending entry, in rpc id order, with the rpc ids first issued.
    pub fn replay(&self) -> Vec<Downlink> {
        self.pending().cloned().map(Downlink::Requested).collect()
    }

    /// The entry with rpc id `rpc_id`, pending or settled, if the book keeps it.
    pub fn entry(&self, rpc_id: RpcId) -> Option<&BookEntry> {
        self.entries.get(&rpc_id)
    }

    /// The entry of approval `approval_id` in session `session_id`, if the book keeps it.
    pub fn entry_of(&self, session_id: &str, approval_id: &str) -> Option<&BookEntry> {
        self.by_approval
            .get(&(session_id.to_owned(), approval_id.to_owned()))
            .and_then(|rpc_id| self.entries.get(rpc_id))
    }

    /// The pending entries, in rpc id order.
    pub fn pending(&self) -> impl Iterator<Item = &BookEntry> {
        self.entries
            .values()
            .filter(|entry| entry.status == EntryStatus::Pending)
    }

    /// Number of pending entries.
    pub fn pending_count(&self) -> usize {
        self.wire.pending_count()
    }

    /// The book's state, for a store to persist.
    pub fn export(&self) -> BookSnapshot {
        BookSnapshot {
            next_rpc_id: self.wire.next_rpc_id(),
            entries: self.entries.values().cloned().collect(),
        }
    }

    /// Rebuilds a book from a snapshot (a server restart): pending entries come back under
    /// their rpc ids with their deadlines, settled ones keep their outcome and consumption, and
    /// no rpc id at or below any in the snapshot, or below its `next_rpc_id`, is issued again.
    /// Every entry is checked again as at registration (deadlines excepted: a pending entry
    /// past its deadline times out at the next [`ApprovalBook::tick`]); two entries with the
    /// same rpc id, or the same approval, are refused.
    pub fn rebuild(limits: BookLimits, snapshot: BookSnapshot) -> Result<ApprovalBook, EntryError> {
        let mut book = ApprovalBook::new(limits);
        if let Some(last) = snapshot.next_rpc_id.0.checked_sub(1) {
            book.wire.skip_past(RpcId(last));
        }
        for entry in snapshot.entries {
            let registration = &entry.registration;
            if let Some(existing) = book.entry_of(&registration.session_id, registration.asked.id())
            {
                return Err(EntryError::Conflicting {
                    rpc_id: existing.rpc_id,
                });
            }
            if !is_id(&registration.agent) {
                return Err(EntryError::InvalidAgent {
                    id: registration.agent.clone(),
                });
            }
            if !is_id(&registration.session_id)
                || entry.rpc_id.0 == 0
                || entry.rpc_id.0 > MAX_EXACT_INTEGER
                || book.entries.contains_key(&entry.rpc_id)
            {
                return Err(EntryError::Wire(RegisterError::RpcIdInUse {
                    rpc_id: entry.rpc_id,
                }));
            }
            match entry.status {
                EntryStatus::Pending => {
                    book.wire
                        .restore(entry.rpc_id, &registration.session_id, &registration.asked)
                        .map_err(EntryError::Wire)?;
                }
                EntryStatus::Settled { .. } => book.wire.skip_past(entry.rpc_id),
            }
            book.insert(entry);
        }
        book.forget_oldest_settled();
        Ok(book)
    }

    fn insert(&mut self, entry: BookEntry) {
        let key = (
            entry.registration.session_id.clone(),
            entry.registration.asked.id().to_owned(),
        );
        self.by_approval.insert(key, entry.rpc_id);
        self.entries.insert(entry.rpc_id, entry);
    }

    /// A host outcome: the registry drops the pending request, then the entry settles.
    fn host_settle(
        &mut self,
        rpc_id: RpcId,
        outcome: Outcome,
        cause: SettleCause,
    ) -> Option<Resolution> {
        self.wire.cancel(rpc_id)?;
        match self.settle(rpc_id, outcome, cause) {
            Receipt::Accepted(resolution) => Some(resolution),
            Receipt::Refused(_) => None,
        }
    }

    /// The one compare-and-set: settles the entry only if it is still pending.
    fn settle(&mut self, rpc_id: RpcId, outcome: Outcome, cause: SettleCause) -> Receipt {
        let Some(entry) = self.entries.get_mut(&rpc_id) else {
            return Receipt::Refused(ResponseRefusal::Stale { rpc_id });
        };
        if let Some(refusal) = settled_refusal(entry) {
            return Receipt::Refused(refusal);
        }
        entry.status = EntryStatus::Settled {
            outcome,
            cause,
            consumed: false,
        };
        let resolution = Resolution {
            rpc_id,
            session_id: entry.registration.session_id.clone(),
            approval_id: entry.registration.asked.id().to_owned(),
            outcome,
            cause,
        };
        self.forget_oldest_settled();
        Receipt::Accepted(resolution)
    }

    fn forget_oldest_settled(&mut self) {
        let settled: Vec<RpcId> = self
            .entries
            .values()
            .filter(|entry| entry.status != EntryStatus::Pending)
            .map(|entry| entry.rpc_id)
            .collect();
        let excess = settled.len().saturating_sub(self.limits.max_settled);
        for rpc_id in settled.into_iter().take(excess) {
            if let Some(entry) = self.entries.remove(&rpc_id) {
                self.by_approval.remove(&(
                    entry.registration.session_id,
                    entry.registration.asked.id().to_owned(),
                ));
            }
        }
    }
}

impl Default for ApprovalBook {
    fn default() -> Self {
        ApprovalBook::new(BookLimits::DEFAULT)
    }
}

impl BookEntry {
    /// True when a machine answerer that owns `owned_agent` claims this entry: exactly that
    /// agent, and a call id present ([`machine_claims`]).
    pub fn claimed_by(&self, owned_agent: &str) -> bool {
        machine_claims(owned_agent, &self.question())
    }

    /// The entry as the answerer waterfall sees it.
    pub fn question(&self) -> Question<'_> {
        let asked = &self.registration.asked;
        Question {
            approval_id: asked.id(),
            session: &self.registration.session_id,
            agent: &self.registration.agent,
            tool: asked.tool(),
            call_id: asked.call_id(),
            reason: asked.reason(),
        }
    }
}

impl EntryStatus {
    /// The terminal outcome, once settled.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            EntryStatus::Pending => None,
            EntryStatus::Settled { outcome, .. } => Some(outcome),
        }
    }
}

impl Registered {
    /// The entry registered now or before.
    pub fn entry(&self) -> &BookEntry {
        match self {
            Registered::New(entry) | Registered::Again(entry) => entry,
        }
    }

    /// Its stable rpc id.
    pub fn rpc_id(&self) -> RpcId {
        self.entry().rpc_id
    }
}

impl Resolution {
    /// The event that feeds this resolution to the approval's
    /// [`ApprovalMachine`](super::ApprovalMachine): an answer for `allowed-once` and
    /// `rejected`, cancellation for the host's outcomes.
    pub fn event(&self) -> Event {
        match self.outcome {
            Outcome::AllowedOnce => Event::Answer(Reply::AllowOnce),
            Outcome::Rejected => Event::Answer(Reply::Reject),
            Outcome::Cancelled | Outcome::Unavailable => Event::Cancel,
        }
    }
}

impl ResponseRefusal {
    /// The refusal's name on the wire: `malformed`, `foreign`, `stale`, `late` or `duplicate`.
    pub fn name(&self) -> &'static str {
        match self {
            ResponseRefusal::Malformed(_) => "malformed",
            ResponseRefusal::Foreign { .. } => "foreign",
            ResponseRefusal::Stale { .. } => "stale",
            ResponseRefusal::Late { .. } => "late",
            ResponseRefusal::Duplicate { .. } => "duplicate",
        }
    }
}

impl ConsumedAllow {
    /// The rpc id of the consumed entry.
    pub fn rpc_id(&self) -> RpcId {
        self.rpc_id
    }

    /// Its approval id.
    pub fn approval_id(&self) -> &str {
        &self.approval_id
    }

    /// The arguments digest the allow covered: the one call that may run.
    pub fn arguments_digest(&self) -> &Sha256Digest {
        &self.arguments_digest
    }
}

impl fmt::Display for ResponseRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseRefusal::Malformed(error) => write!(f, "malformed approval response: {error}"),
            ResponseRefusal::Foreign { rpc_id } => {
                write!(f, "rpc id `{rpc_id}` is not this session's or approval's")
            }
            ResponseRefusal::Stale { rpc_id } => write!(f, "rpc id `{rpc_id}` is unknown"),
            ResponseRefusal::Late { rpc_id } => {
                write!(
                    f,
                    "rpc id `{rpc_id}` was settled by the host or its deadline passed"
                )
            }
            ResponseRefusal::Duplicate { rpc_id } => {
                write!(f, "rpc id `{rpc_id}` was answered already")
            }
        }
    }
}

impl std::error::Error for ResponseRefusal {}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryError::Wire(error) => error.fmt(f),
            EntryError::InvalidAgent { id } => {
                write!(f, "agent id `{}` is not an identifier", id.escape_debug())
            }
            EntryError::PastDeadline {
                deadline_ms,
                now_ms,
            } => write!(f, "deadline `{deadline_ms}` is not after now (`{now_ms}`)"),
            EntryError::Conflicting { rpc_id } => write!(
                f,
                "this approval is registered as rpc id `{rpc_id}` for another call"
            ),
        }
    }
}

impl std::error::Error for EntryError {}

impl fmt::Display for ConsumeRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsumeRefusal::Unknown { rpc_id } => write!(f, "rpc id `{rpc_id}` is unknown"),
            ConsumeRefusal::NotSettled { rpc_id } => {
                write!(f, "rpc id `{rpc_id}` has not been answered")
            }
            ConsumeRefusal::NotAllowed { rpc_id, outcome } => {
                write!(f, "rpc id `{rpc_id}` settled as `{outcome}`")
            }
            ConsumeRefusal::AlreadyConsumed { rpc_id } => {
                write!(f, "the allow of rpc id `{rpc_id}` was used already")
            }
            ConsumeRefusal::OtherDigest { rpc_id } => {
                write!(f, "the allow of rpc id `{rpc_id}` covers other arguments")
            }
        }
    }
}

impl std::error::Error for ConsumeRefusal {}

/// The same approval registered again for the same call.
fn same_call(kept: &EntryRegistration, again: &EntryRegistration) -> bool {
    kept.agent == again.agent
        && kept.asked == again.asked
        && kept.arguments_digest == again.arguments_digest
}

/// Why a response to `entry` cannot settle it now, if it cannot.
fn not_open(entry: &BookEntry, now_ms: u64) -> Option<ResponseRefusal> {
    settled_refusal(entry).or_else(|| {
        (entry.registration.deadline_ms <= now_ms).then_some(ResponseRefusal::Late {
            rpc_id: entry.rpc_id,
        })
    })
}

/// Duplicate or late, when `entry` has settled already.
fn settled_refusal(entry: &BookEntry) -> Option<ResponseRefusal> {
    let rpc_id = entry.rpc_id;
    match entry.status {
        EntryStatus::Pending => None,
        EntryStatus::Settled {
            cause: SettleCause::Answered | SettleCause::MachineAnswered,
            ..
        } => Some(ResponseRefusal::Duplicate { rpc_id }),
        EntryStatus::Settled { .. } => Some(ResponseRefusal::Late { rpc_id }),
    }
}

/// A registry refusal after the book's own checks passed (the two agree, so this is not
/// expected): named as the registry names it, and nothing settles.
fn refusal_of(error: ResponseError, rpc_id: RpcId) -> ResponseRefusal {
    match error {
        ResponseError::Malformed(error) => ResponseRefusal::Malformed(error),
        ResponseError::Foreign { .. } | ResponseError::MismatchedApproval { .. } => {
            ResponseRefusal::Foreign { rpc_id }
        }
        ResponseError::Late { .. } => ResponseRefusal::Late { rpc_id },
        ResponseError::Stale { .. } => ResponseRefusal::Stale { rpc_id },
    }
}
