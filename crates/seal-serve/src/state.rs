//! The server's state behind one mutex: the book, the side data of its entries, the hooks
//! waiting on them, the tokens and pairing secrets, and the store every change is written to
//! before its caller is answered. Panel frames are broadcast while the lock is held, so a panel
//! that subscribes and takes the replay under the lock misses nothing and sees nothing twice.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use seal_parse::json::{parse, Fields, JsonLimits, Value, MAX_EXACT_INTEGER};
use seal_policy::approval::trust::card_command;
use seal_policy::approval::{
    ApprovalBook, BookEntry, BookLimits, CancelCause, ConsumeRefusal, EntryError,
    EntryRegistration, EntryStatus, MachineResponse, Receipt, RegisterError, Registered,
    RegistryLimits, Resolution, RpcId, WireResponse,
};
use seal_record::{ApprovalAsked, Outcome, Sha256Digest};
use seal_verify::webauthn::approval_challenge;
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, oneshot};

use crate::check::AllowCheck;
use crate::frames;
use crate::hookwire::{Ask, ServerLine, WireAssertion};
use crate::log::{self, DecisionLog};
use crate::names::cause_name;
use crate::redis_store::{BUSY_WAIT, CHANGE_BUDGET, MAX_CAS_ATTEMPTS, TURN_AFTER};
use crate::store::{BookStore, Saved, Side, TokenRow, Touched, View};

/// Most pairing secrets outstanding at once; issuing one more forgets the oldest.
pub(crate) const MAX_PAIRING_SECRETS: usize = 16;

/// Most bearer tokens kept; pairing one more forgets the least recently used.
pub(crate) const MAX_TOKENS: usize = 64;

/// The step of a token's idle clock: its last use is recorded at most once a minute.
pub(crate) const TOKEN_TOUCH_MS: u64 = 60_000;

/// Frames a panel may fall behind by before its stream is closed (it reconnects and replays).
pub(crate) const PANEL_BACKLOG: usize = 4096;

/// Unix milliseconds now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// 32 bytes from the system's generator.
pub(crate) fn random32() -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    SystemRandom::new().fill(&mut bytes).ok()?;
    Some(bytes)
}

/// What a hook's ask got.
pub(crate) enum AskAnswer {
    /// Refused: the line to write, then close.
    Refused(ServerLine),
    /// In the book: the `registered` line, and the `settled` line when it has settled already.
    Registered {
        line: ServerLine,
        rpc_id: RpcId,
        settled: Option<ServerLine>,
    },
}

/// Everything shared by the server's tasks.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Frames toward every connected panel.
    pub(crate) panels: broadcast::Sender<Arc<str>>,
    /// The assertion check of allows.
    pub(crate) check: Arc<dyn AllowCheck>,
    /// The decision log, when one is configured.
    pub(crate) log: Option<Arc<dyn DecisionLog>>,
    /// The panel's origin (for pairing addresses).
    pub(crate) origin: String,
    /// Idle expiry of a bearer token.
    pub(crate) token_ttl_ms: u64,
    next_connection: AtomicU64,
    /// The ids of the valid tokens, kept beside the state so that an event stream can check its
    /// token on every frame without waiting for the state's lock.
    live_tokens: RwLock<BTreeSet<String>>,
}

/// What a server starts from: the book rebuilt from its store, and the store.
pub(crate) struct Restored {
    pub(crate) book: ApprovalBook,
    pub(crate) side: BTreeMap<RpcId, Side>,
    pub(crate) next_rpc_id: RpcId,
    pub(crate) tokens: Vec<TokenRow>,
    pub(crate) store: Box<dyn BookStore>,
    pub(crate) limits: BookLimits,
}

/// The state behind the lock.
pub(crate) struct State {
    book: ApprovalBook,
    side: BTreeMap<RpcId, Side>,
    waiters: HashMap<RpcId, Vec<(u64, oneshot::Sender<ServerLine>)>>,
    next_rpc_id: RpcId,
    tokens: Vec<TokenRow>,
    pairings: VecDeque<[u8; 32]>,
    store: Box<dyn BookStore>,
    limits: BookLimits,
    /// The rpc ids panels were last told are pending (a shared store only): after a reload the
    /// difference is what other servers changed.
    announced: BTreeSet<RpcId>,
    /// Whether the last poll of a shared store failed (its failure is printed once).
    poll_failing: bool,
}

/// Why a change was not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unsaved {
    /// Another server wrote first: reload and apply the change again.
    Stale,
    /// Another server holds the turn: wait a moment and apply the change again.
    Busy,
    /// The store failed (printed to stderr).
    Failed,
}

/// What a change on a shared store puts back when it is not written.
struct Backup {
    book: ApprovalBook,
    side: BTreeMap<RpcId, Side>,
    next_rpc_id: RpcId,
    tokens: Vec<TokenRow>,
}

impl Shared {
    pub(crate) fn new(
        restored: Restored,
        check: Arc<dyn AllowCheck>,
        log: Option<Arc<dyn DecisionLog>>,
        origin: String,
        token_ttl_ms: u64,
    ) -> Shared {
        let (panels, _) = broadcast::channel(PANEL_BACKLOG);
        let live_tokens = restored
            .tokens
            .iter()
            .map(|token| token.id.clone())
            .collect();
        let announced = if restored.store.shared() {
            restored.book.pending().map(|entry| entry.rpc_id).collect()
        } else {
            BTreeSet::new()
        };
        Shared {
            state: Mutex::new(State {
                book: restored.book,
                side: restored.side,
                waiters: HashMap::new(),
                next_rpc_id: restored.next_rpc_id,
                tokens: restored.tokens,
                pairings: VecDeque::new(),
                store: restored.store,
                limits: restored.limits,
                announced,
                poll_failing: false,
            }),
            panels,
            check,
            log,
            origin,
            token_ttl_ms,
            next_connection: AtomicU64::new(1),
            live_tokens: RwLock::new(live_tokens),
        }
    }

    /// The state, locked (a panic elsewhere while holding it does not stop the server: every
    /// change is a single call on the book, which leaves it consistent).
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A fresh id for a hook connection.
    pub(crate) fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Applies `change` and writes it. On a shared store this is the compare-and-set loop:
    /// when another server wrote first (or the version is unknown, after a failure), the state
    /// is put back, reloaded (telling panels and hooks what the others changed) and `change`
    /// applied again, at most
    /// [`MAX_CAS_ATTEMPTS`] times; when the store fails, or the attempts run out, the state is
    /// put back and `refused()` answered. A change that refuses without writing is answered as
    /// it is.
    fn change<R>(
        &self,
        state: &mut State,
        refused: impl Fn() -> R,
        mut change: impl FnMut(&Shared, &mut State) -> Result<R, Unsaved>,
    ) -> R {
        if !state.store.shared() {
            return change(self, state).unwrap_or_else(|_| refused());
        }
        let deadline = Instant::now() + CHANGE_BUDGET;
        let mut lost = 0;
        while lost < MAX_CAS_ATTEMPTS && Instant::now() < deadline {
            let backup = state.backup();
            match change(self, state) {
                Ok(answer) => {
                    state.store.release_turn();
                    return answer;
                }
                Err(Unsaved::Busy) => {
                    state.restore(self, backup);
                    std::thread::sleep(BUSY_WAIT);
                }
                Err(unsaved) => {
                    state.restore(self, backup);
                    state.store.forget_version();
                    if unsaved == Unsaved::Failed || state.reload(self).is_err() {
                        state.store.release_turn();
                        return refused();
                    }
                    lost += 1;
                    if lost >= TURN_AFTER {
                        state.store.take_turn();
                    }
                }
            }
        }
        state.store.release_turn();
        eprintln!(
            "seal serve: store: a change lost the race to other servers {lost} times, or waited \
             past {CHANGE_BUDGET:?}"
        );
        refused()
    }

    /// Registers a hook's ask; the waiter hears the settlement.
    pub(crate) fn ask(
        &self,
        ask: &Ask,
        connection: u64,
        waiter: oneshot::Sender<ServerLine>,
    ) -> AskAnswer {
        let now = now_ms();
        let mut state = self.lock();
        let answer = self.change(
            &mut state,
            || {
                AskAnswer::Refused(refused(
                    "store",
                    "the approval server could not record the approval",
                ))
            },
            |shared, state| state.ask(shared, ask, now),
        );
        if let AskAnswer::Registered {
            rpc_id,
            settled: None,
            ..
        } = &answer
        {
            state
                .waiters
                .entry(*rpc_id)
                .or_default()
                .push((connection, waiter));
        }
        answer
    }

    /// The hook of `connection` went away while `rpc_id` was pending: when no other connection
    /// waits on it, it settles `cancelled` (`hook-gone`).
    pub(crate) fn hook_gone(&self, rpc_id: RpcId, connection: u64) {
        let mut state = self.lock();
        let left = match state.waiters.get_mut(&rpc_id) {
            Some(waiting) => {
                waiting.retain(|(id, _)| *id != connection);
                waiting.len()
            }
            None => 0,
        };
        if left > 0 {
            return;
        }
        state.waiters.remove(&rpc_id);
        self.change(
            &mut state,
            || (),
            |shared, state| match state.book.cancel(rpc_id, CancelCause::HookGone) {
                Some(resolution) => state.persist_and_deliver(shared, vec![resolution]),
                None => Ok(()),
            },
        );
    }

    /// Spends an allow.
    pub(crate) fn consume(&self, rpc_id: u64, digest: &Sha256Digest) -> ServerLine {
        let mut state = self.lock();
        self.change(
            &mut state,
            || refused("store", "the store could not record the consumption"),
            |_, state| match state.book.consume(RpcId(rpc_id), digest) {
                Ok(_) => {
                    state.persist(&[RpcId(rpc_id)])?;
                    Ok(ServerLine::Consumed)
                }
                Err(refusal) => {
                    state.confirm()?;
                    Ok(refused(consume_refusal_name(refusal), &refusal.to_string()))
                }
            },
        )
    }

    /// Cancels the oldest pending entry of `session_id` with `tool` and `digest`.
    pub(crate) fn elsewhere(
        &self,
        session_id: &str,
        tool: &str,
        digest: &Sha256Digest,
    ) -> ServerLine {
        let mut state = self.lock();
        self.change(
            &mut state,
            || ServerLine::Cancelled(Vec::new()),
            |shared, state| {
                let found = state
                    .book
                    .pending()
                    .find(|entry| {
                        entry.registration.session_id == session_id
                            && entry.registration.asked.tool() == tool
                            && entry.registration.arguments_digest == *digest
                    })
                    .map(|entry| entry.rpc_id);
                let mut cancelled = Vec::new();
                if let Some(rpc_id) = found {
                    if let Some(resolution) =
                        state.book.cancel(rpc_id, CancelCause::AnsweredElsewhere)
                    {
                        cancelled.push(rpc_id.0);
                        state.persist_and_deliver(shared, vec![resolution])?;
                    }
                }
                Ok(ServerLine::Cancelled(cancelled))
            },
        )
    }

    /// Times out the entries past their deadline and forgets idle tokens.
    pub(crate) fn tick(&self) {
        let now = now_ms();
        let ttl = self.token_ttl_ms;
        let mut state = self.lock();
        self.change(
            &mut state,
            || (),
            |shared, state| {
                let resolutions = state.book.tick(now);
                if resolutions.is_empty() {
                    return Ok(());
                }
                state.persist_and_deliver(shared, resolutions)
            },
        );
        self.change(
            &mut state,
            || (),
            |shared, state| {
                let before = state.tokens.len();
                state
                    .tokens
                    .retain(|token| token.last_used_ms.saturating_add(ttl) > now);
                if state.tokens.len() == before {
                    return Ok(());
                }
                state.save_tokens_kept(shared)
            },
        );
    }

    /// Settles every pending entry `cancelled` (`shutdown`). On a shared store only the
    /// entries this server's hooks wait on are settled, `cancelled` (`hook-gone`): their hooks'
    /// connections end with the server, while the other entries stay pending for the servers
    /// still running.
    pub(crate) fn shutdown(&self) {
        let mut state = self.lock();
        if !state.store.shared() {
            let resolutions = state.book.shutdown();
            if !resolutions.is_empty() {
                let _ = state.persist_and_deliver(self, resolutions);
            }
            return;
        }
        let waited: Vec<RpcId> = state.waiters.keys().copied().collect();
        self.change(
            &mut state,
            || (),
            |shared, state| {
                let resolutions: Vec<Resolution> = waited
                    .iter()
                    .filter_map(|rpc_id| state.book.cancel(*rpc_id, CancelCause::HookGone))
                    .collect();
                if resolutions.is_empty() {
                    return Ok(());
                }
                state.persist_and_deliver(shared, resolutions)
            },
        );
    }

    /// A panel's response (`POST /api/respond` body): the receipt's JSON.
    pub(crate) fn respond(&self, body: &[u8]) -> String {
        let now = now_ms();
        let Ok((response, assertion)) = read_respond_body(body) else {
            return frames::receipt(Some("malformed"));
        };
        let mut state = self.lock();
        let rpc_id = response.rpc_id;
        let allow = response.reply.outcome() == Outcome::AllowedOnce;
        // The assertion is checked once, on the first attempt that finds the entry pending.
        let mut checked = false;
        self.change(
            &mut state,
            || frames::receipt(Some("store")),
            |shared, state| {
                if allow && !checked && shared.check.approvers() > 0 {
                    let own = state.book.entry(rpc_id).is_some_and(|entry| {
                        entry.registration.session_id == response.session_id
                            && entry.registration.asked.id() == response.approval_id
                            && entry.status == EntryStatus::Pending
                    });
                    if let (true, Some(side)) = (own, state.side.get(&rpc_id)) {
                        if let Err(why) = shared.check.check(&side.challenge, assertion.as_ref()) {
                            eprintln!("seal serve: allow of rpc id {rpc_id} refused: {why}");
                            return Ok(frames::receipt(Some("unauthenticated")));
                        }
                        checked = true;
                    }
                }
                match state.book.respond_parsed(response.clone(), now) {
                    Receipt::Accepted(resolution) => {
                        if allow {
                            if let Some(side) = state.side.get_mut(&rpc_id) {
                                side.assertion.clone_from(&assertion);
                            }
                        }
                        state.persist_and_deliver(shared, vec![resolution])?;
                        Ok(frames::receipt(None))
                    }
                    Receipt::Refused(refusal) => {
                        state.confirm()?;
                        Ok(frames::receipt(Some(refusal.name())))
                    }
                }
            },
        )
    }

    /// A machine answerer that owns `owned_agent` answers entry `rpc_id` with its client's
    /// `response` (the book's claim rule: only that agent's entries with a call id; `allow-once`
    /// allows once, a cancellation cancels, any other option rejects). With an approver
    /// enrolled, a machine's allow is settled like any other but the waiting hook, finding no
    /// assertion, does not take it.
    pub(crate) fn machine_respond(
        &self,
        owned_agent: &str,
        rpc_id: u64,
        response: MachineResponse<'_>,
    ) -> Option<Receipt> {
        let now = now_ms();
        let mut state = self.lock();
        self.change(
            &mut state,
            || None,
            |shared, state| match state.book.respond_as_machine(
                owned_agent,
                RpcId(rpc_id),
                response,
                now,
            ) {
                Receipt::Accepted(resolution) => {
                    state.persist_and_deliver(shared, vec![resolution.clone()])?;
                    Ok(Some(Receipt::Accepted(resolution)))
                }
                Receipt::Refused(refusal) => {
                    state.confirm()?;
                    Ok(Some(Receipt::Refused(refusal)))
                }
            },
        )
    }

    /// A shared store's poll: when another server changed the store, reload it and tell the
    /// panels and waiting hooks what changed.
    pub(crate) fn poll(&self) {
        let mut state = self.lock();
        if !state.store.shared() {
            return;
        }
        match state.store.moved() {
            Ok(false) => state.poll_failing = false,
            Ok(true) => {
                let reloaded = state.reload(self).is_ok();
                state.poll_failing = !reloaded;
            }
            Err(error) => {
                if !state.poll_failing {
                    eprintln!("seal serve: store: {error}");
                }
                state.poll_failing = true;
            }
        }
    }

    /// Subscribes a panel: the live frames, and the hello and replay to send first.
    pub(crate) fn subscribe(&self) -> (Vec<String>, broadcast::Receiver<Arc<str>>) {
        let state = self.lock();
        let receiver = self.panels.subscribe();
        let mut first = vec![frames::hello(
            now_ms(),
            self.check.approvers(),
            &self.check.credentials(),
        )];
        for entry in state.book.pending() {
            first.push(frames::requested(entry, state.side.get(&entry.rpc_id)));
        }
        (first, receiver)
    }

    /// A fresh single-use pairing secret, as the address to open.
    pub(crate) fn pairing_url(&self) -> Option<String> {
        let secret = random32()?;
        let mut state = self.lock();
        if state.pairings.len() >= MAX_PAIRING_SECRETS {
            state.pairings.pop_front();
        }
        let text = URL_SAFE_NO_PAD.encode(secret);
        state
            .pairings
            .push_back(Sha256::digest(text.as_bytes()).into());
        Some(format!("{}/#pair={text}", self.origin))
    }

    /// Exchanges a pairing secret for a bearer token: `(token, token id, expires_ms)`.
    pub(crate) fn pair(&self, secret: &str) -> Option<(String, String, u64)> {
        let hash: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
        let token = random32()?;
        let id = random32()?;
        let now = now_ms();
        let mut state = self.lock();
        let at = state.pairings.iter().position(|kept| *kept == hash)?;
        state.pairings.remove(at);
        let token_text = URL_SAFE_NO_PAD.encode(token);
        let id = hex::encode(id.get(..8)?);
        let row = TokenRow {
            id: id.clone(),
            hash: Sha256::digest(token_text.as_bytes()).into(),
            created_ms: now,
            last_used_ms: now,
        };
        let saved = self.change(
            &mut state,
            || false,
            |shared, state| {
                if state.tokens.len() >= MAX_TOKENS {
                    if let Some(oldest) = state
                        .tokens
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, token)| token.last_used_ms)
                        .map(|(at, _)| at)
                    {
                        state.tokens.remove(oldest);
                    }
                }
                state.tokens.push(row.clone());
                state.save_tokens(shared)?;
                Ok(true)
            },
        );
        saved.then(|| (token_text, id, now.saturating_add(self.token_ttl_ms)))
    }

    /// The id of the token `bearer`, when it is valid now (its idle time restarts).
    pub(crate) fn authenticate(&self, bearer: &str) -> Option<String> {
        let hash: [u8; 32] = Sha256::digest(bearer.as_bytes()).into();
        let now = now_ms();
        let ttl = self.token_ttl_ms;
        let mut state = self.lock();
        self.change(
            &mut state,
            || None,
            |shared, state| {
                let Some(at) = state.tokens.iter().position(|token| token.hash == hash) else {
                    return Ok(None);
                };
                let Some(token) = state.tokens.get_mut(at) else {
                    return Ok(None);
                };
                if token.last_used_ms.saturating_add(ttl) <= now {
                    state.tokens.remove(at);
                    state.save_tokens_kept(shared)?;
                    return Ok(None);
                }
                let id = token.id.clone();
                // The idle clock moves in steps of a minute, so a busy panel does not write the
                // store on every request.
                if now.saturating_sub(token.last_used_ms) >= TOKEN_TOUCH_MS {
                    token.last_used_ms = now;
                    state.save_tokens_kept(shared)?;
                }
                Ok(Some(id))
            },
        )
    }

    /// `{"tokens":[...]}`.
    pub(crate) fn tokens_json(&self) -> String {
        let state = self.lock();
        let tokens: Vec<serde_json::Value> = state
            .tokens
            .iter()
            .map(|token| {
                serde_json::json!({
                    "id": token.id,
                    "created_ms": token.created_ms,
                    "expires_ms": token.last_used_ms.saturating_add(self.token_ttl_ms),
                    "last_used_ms": token.last_used_ms,
                })
            })
            .collect();
        frames::text(&serde_json::json!({ "tokens": tokens }))
    }

    /// Revokes token `id`; false when there is none.
    pub(crate) fn revoke(&self, id: &str) -> bool {
        let mut state = self.lock();
        self.change(
            &mut state,
            || false,
            |shared, state| {
                let before = state.tokens.len();
                state.tokens.retain(|token| token.id != id);
                if state.tokens.len() == before {
                    return Ok(false);
                }
                state.save_tokens_kept(shared)?;
                Ok(true)
            },
        )
    }

    /// Appends to the decision log, if any; a failure goes to stderr.
    fn record(&self, event: Result<seal_record::LogEvent, String>) {
        let Some(log) = &self.log else { return };
        if let Err(error) = event.and_then(|event| log.record(event)) {
            eprintln!("seal serve: decision log: {error}");
        }
    }

    /// Whether token `id` is still valid (not revoked, expired or forgotten).
    pub(crate) fn token_is_live(&self, id: &str) -> bool {
        self.live_tokens
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(id)
    }

    /// How many entries are pending.
    pub(crate) fn pending_count(&self) -> usize {
        self.lock().book.pending_count()
    }

    fn set_live_tokens(&self, tokens: &[TokenRow]) {
        let live: BTreeSet<String> = tokens.iter().map(|token| token.id.clone()).collect();
        *self
            .live_tokens
            .write()
            .unwrap_or_else(PoisonError::into_inner) = live;
    }
}

impl State {
    fn ask(&mut self, shared: &Shared, ask: &Ask, now: u64) -> Result<AskAnswer, Unsaved> {
        let registration = match registration_of(ask) {
            Ok(registration) => registration,
            Err(message) => return Ok(AskAnswer::Refused(refused("malformed", &message))),
        };
        let approvers = shared.check.approvers();
        match self.book.register(registration, now) {
            Err(error) => Ok(AskAnswer::Refused(refused(
                entry_error_name(&error),
                &error.to_string(),
            ))),
            Ok(Registered::Again(entry)) => {
                let rpc_id = entry.rpc_id;
                let settled = match entry.status {
                    EntryStatus::Pending => None,
                    EntryStatus::Settled { outcome, cause, .. } => Some(ServerLine::Settled {
                        outcome,
                        cause: cause_name(cause).to_owned(),
                        assertion: self
                            .side
                            .get(&rpc_id)
                            .and_then(|side| side.assertion.clone()),
                    }),
                };
                Ok(AskAnswer::Registered {
                    line: ServerLine::Registered {
                        rpc_id: rpc_id.0,
                        again: true,
                        approvers,
                    },
                    rpc_id,
                    settled,
                })
            }
            Ok(Registered::New(entry)) => {
                let rpc_id = entry.rpc_id;
                let side = Side {
                    command: card_command(&ask.tool, ask.arguments.as_bytes()),
                    nonce: ask.nonce,
                    challenge: approval_challenge(
                        rpc_id.0,
                        &ask.session_id,
                        &ask.approval_id,
                        ask.arguments_digest.as_bytes(),
                        &ask.nonce,
                    ),
                    assertion: None,
                };
                self.side.insert(rpc_id, side);
                self.next_rpc_id = RpcId(rpc_id.0.saturating_add(1)).max(self.next_rpc_id);
                match self.persist(&[rpc_id]) {
                    Ok(()) => {}
                    Err(Unsaved::Failed) if !self.store.shared() => {
                        // Never persisted, so not persisted as settled either: the store is
                        // failing.
                        if let Some(resolution) = self.book.mark_unavailable(rpc_id) {
                            self.deliver(shared, vec![resolution]);
                        }
                        return Ok(AskAnswer::Refused(refused(
                            "store",
                            "the approval server could not record the approval",
                        )));
                    }
                    Err(unsaved) => return Err(unsaved),
                }
                shared.record(log::asked(&entry));
                let frame = frames::requested(&entry, self.side.get(&rpc_id));
                let _ = shared.panels.send(Arc::from(frame));
                Ok(AskAnswer::Registered {
                    line: ServerLine::Registered {
                        rpc_id: rpc_id.0,
                        again: false,
                        approvers,
                    },
                    rpc_id,
                    settled: None,
                })
            }
        }
    }

    /// Writes the entries `touched`; a failure is printed.
    fn persist(&mut self, touched: &[RpcId]) -> Result<(), Unsaved> {
        let book = &self.book;
        self.side.retain(|rpc_id, _| book.entry(*rpc_id).is_some());
        let view = View {
            book: &self.book,
            side: &self.side,
            next_rpc_id: self.next_rpc_id,
            tokens: &self.tokens,
        };
        match self.store.save(&view, Touched::Entries(touched)) {
            Ok(Saved::Written) => {
                if self.store.shared() {
                    self.announced = self.book.pending().map(|entry| entry.rpc_id).collect();
                }
                Ok(())
            }
            Ok(Saved::Stale) => Err(Unsaved::Stale),
            Ok(Saved::Busy) => Err(Unsaved::Busy),
            Err(error) => {
                eprintln!("seal serve: store: {error}");
                Err(Unsaved::Failed)
            }
        }
    }

    /// On a shared store, whether the book this server holds is still the store's: a refusal
    /// computed from an old book is computed again on the current one.
    fn confirm(&mut self) -> Result<(), Unsaved> {
        if !self.store.shared() {
            return Ok(());
        }
        match self.store.moved() {
            Ok(false) => Ok(()),
            Ok(true) => Err(Unsaved::Stale),
            Err(error) => {
                eprintln!("seal serve: store: {error}");
                Err(Unsaved::Failed)
            }
        }
    }

    /// Writes the settled entries, then tells panels and the waiting hooks. On the single
    /// server's store a failed write is printed and the settlement still delivered (the
    /// entries are settled in memory); on a shared store it is not delivered, and the change
    /// is refused.
    fn persist_and_deliver(
        &mut self,
        shared: &Shared,
        resolutions: Vec<Resolution>,
    ) -> Result<(), Unsaved> {
        let touched: Vec<RpcId> = resolutions
            .iter()
            .map(|resolution| resolution.rpc_id)
            .collect();
        match self.persist(&touched) {
            Ok(()) => {}
            Err(Unsaved::Failed) if !self.store.shared() => {}
            Err(unsaved) => return Err(unsaved),
        }
        self.deliver(shared, resolutions);
        Ok(())
    }

    /// Tells panels, the decision log and the waiting hooks how entries settled.
    fn deliver(&mut self, shared: &Shared, resolutions: Vec<Resolution>) {
        for resolution in resolutions {
            shared.record(log::decided(&resolution));
            self.announce(shared, &resolution);
        }
    }

    /// Tells panels and the waiting hooks how an entry settled.
    fn announce(&mut self, shared: &Shared, resolution: &Resolution) {
        let _ = shared.panels.send(Arc::from(frames::resolved(resolution)));
        let assertion = self
            .side
            .get(&resolution.rpc_id)
            .and_then(|side| side.assertion.clone());
        for (_, waiter) in self.waiters.remove(&resolution.rpc_id).unwrap_or_default() {
            let _ = waiter.send(ServerLine::Settled {
                outcome: resolution.outcome,
                cause: cause_name(resolution.cause).to_owned(),
                assertion: assertion.clone(),
            });
        }
    }

    /// Writes the token table (and the set of live token ids).
    fn save_tokens(&mut self, shared: &Shared) -> Result<(), Unsaved> {
        shared.set_live_tokens(&self.tokens);
        let view = View {
            book: &self.book,
            side: &self.side,
            next_rpc_id: self.next_rpc_id,
            tokens: &self.tokens,
        };
        match self.store.save(&view, Touched::Tokens) {
            Ok(Saved::Written) => Ok(()),
            Ok(Saved::Stale) => Err(Unsaved::Stale),
            Ok(Saved::Busy) => Err(Unsaved::Busy),
            Err(error) => {
                eprintln!("seal serve: store: {error}");
                Err(Unsaved::Failed)
            }
        }
    }

    /// As [`State::save_tokens`], but on the single server's store a failed write is printed
    /// and the change kept in memory (a revocation or expiry holds until restart).
    fn save_tokens_kept(&mut self, shared: &Shared) -> Result<(), Unsaved> {
        match self.save_tokens(shared) {
            Err(Unsaved::Failed) if !self.store.shared() => Ok(()),
            other => other,
        }
    }

    fn backup(&self) -> Backup {
        Backup {
            book: self.book.clone(),
            side: self.side.clone(),
            next_rpc_id: self.next_rpc_id,
            tokens: self.tokens.clone(),
        }
    }

    fn restore(&mut self, shared: &Shared, backup: Backup) {
        self.book = backup.book;
        self.side = backup.side;
        self.next_rpc_id = backup.next_rpc_id;
        self.tokens = backup.tokens;
        shared.set_live_tokens(&self.tokens);
    }

    /// Reads the shared store again and tells panels and the waiting hooks what other servers
    /// changed: entries newly pending (`approval/requested`), entries no longer pending
    /// (`approval/resolved`, and `settled` to the hooks waiting here). Nothing is logged: the
    /// server that made a change logged it.
    fn reload(&mut self, shared: &Shared) -> Result<(), ()> {
        let loaded = self.store.load().map_err(|error| {
            eprintln!("seal serve: store: {error}");
        })?;
        let mut snapshot = loaded.snapshot;
        // rpc ids never go back on this server, even when Redis lost its data (restarted
        // without persistence): a hook or panel holding an old rpc id never meets a new entry
        // under it.
        snapshot.next_rpc_id = snapshot.next_rpc_id.max(self.next_rpc_id);
        let next_rpc_id = snapshot.next_rpc_id;
        let book = ApprovalBook::rebuild(self.limits, snapshot).map_err(|error| {
            self.store.forget_version();
            eprintln!("seal serve: store: the shared store holds an invalid book: {error}");
        })?;
        self.book = book;
        self.side = loaded.side;
        self.next_rpc_id = next_rpc_id;
        self.tokens = loaded.tokens;
        shared.set_live_tokens(&self.tokens);
        let pending: BTreeSet<RpcId> = self.book.pending().map(|entry| entry.rpc_id).collect();
        for rpc_id in pending.difference(&self.announced) {
            if let Some(entry) = self.book.entry(*rpc_id) {
                let frame = frames::requested(entry, self.side.get(rpc_id));
                let _ = shared.panels.send(Arc::from(frame));
            }
        }
        let mut ended: BTreeSet<RpcId> = self.announced.difference(&pending).copied().collect();
        ended.extend(self.waiters.keys().copied());
        for rpc_id in ended {
            match self.book.entry(rpc_id).and_then(resolution_of) {
                Some(resolution) => self.announce(shared, &resolution),
                // Forgotten by the book (past its settled limit): the hooks' waits end, and
                // they hear nothing, as when the server stops.
                None if self.book.entry(rpc_id).is_none() => {
                    self.waiters.remove(&rpc_id);
                }
                None => {}
            }
        }
        self.announced = pending;
        Ok(())
    }
}

/// How a settled entry settled (`None` while it is pending).
fn resolution_of(entry: &BookEntry) -> Option<Resolution> {
    match entry.status {
        EntryStatus::Pending => None,
        EntryStatus::Settled { outcome, cause, .. } => Some(Resolution {
            rpc_id: entry.rpc_id,
            session_id: entry.registration.session_id.clone(),
            approval_id: entry.registration.asked.id().to_owned(),
            outcome,
            cause,
        }),
    }
}

fn refused(reason: &str, message: &str) -> ServerLine {
    ServerLine::Refused {
        reason: reason.to_owned(),
        message: message.to_owned(),
    }
}

fn registration_of(ask: &Ask) -> Result<EntryRegistration, String> {
    if ask.deadline_ms > MAX_EXACT_INTEGER {
        return Err(format!("deadline_ms above {MAX_EXACT_INTEGER}"));
    }
    let reason = (!ask.reason.is_empty()).then_some(ask.reason.as_str());
    let asked = ApprovalAsked::new(&ask.approval_id, &ask.tool, ask.call_id.as_deref(), reason)
        .map_err(|error| error.to_string())?;
    Ok(EntryRegistration {
        session_id: ask.session_id.clone(),
        agent: ask.agent.clone(),
        asked,
        arguments_digest: ask.arguments_digest,
        card: ask.card.clone(),
        deadline_ms: ask.deadline_ms,
    })
}

fn entry_error_name(error: &EntryError) -> &'static str {
    match error {
        EntryError::Conflicting { .. } => "conflicting",
        EntryError::InvalidAgent { .. } => "invalid-agent",
        EntryError::PastDeadline { .. } => "past-deadline",
        EntryError::Wire(RegisterError::TooManyPending { .. } | RegisterError::RpcIdsExhausted) => {
            "too-many-pending"
        }
        _ => "malformed",
    }
}

fn consume_refusal_name(refusal: ConsumeRefusal) -> &'static str {
    match refusal {
        ConsumeRefusal::NotSettled { .. } => "not-settled",
        ConsumeRefusal::NotAllowed { .. } => "not-allowed",
        ConsumeRefusal::AlreadyConsumed { .. } => "already-consumed",
        ConsumeRefusal::OtherDigest { .. } => "other-digest",
        _ => "unknown",
    }
}

/// Reads `{"response":{...},"assertion":null|{...}}` strictly; the response is re-encoded and
/// read by the wire registry's own strict reader.
fn read_respond_body(body: &[u8]) -> Result<(WireResponse, Option<WireAssertion>), ()> {
    let mut limits = JsonLimits::DEFAULT;
    limits.max_bytes = 64 * 1024;
    limits.max_depth = 3;
    let value = parse(body, &limits).map_err(|_| ())?;
    let mut fields = Fields::of(&value, "").map_err(|_| ())?;
    fields.only(&["response", "assertion"]).map_err(|_| ())?;
    let response = fields.value("response").map_err(|_| ())?;
    if !matches!(response, Value::Object(_)) {
        return Err(());
    }
    let mut bytes = Vec::new();
    response.write_canonical(&mut bytes);
    let response =
        WireResponse::from_json(&bytes, &RegistryLimits::DEFAULT.json).map_err(|_| ())?;
    let assertion = match fields.value("assertion").map_err(|_| ())? {
        Value::Null => None,
        _ => Some(
            WireAssertion::from_fields(fields.nested("assertion").map_err(|_| ())?)
                .map_err(|_| ())?,
        ),
    };
    fields.finish().map_err(|_| ())?;
    Ok((response, assertion))
}

/// Runs `work` on the state off the async workers (it may write the store).
pub(crate) async fn blocking<R: Send + 'static>(
    shared: &Arc<Shared>,
    work: impl FnOnce(&Shared) -> R + Send + 'static,
) -> Option<R> {
    let shared = Arc::clone(shared);
    tokio::task::spawn_blocking(move || work(&shared))
        .await
        .ok()
}
