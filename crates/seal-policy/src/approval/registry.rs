//! The approval wire registry: requests pending toward remote clients, keyed by a stable rpc id.
//!
//! The host emits `approval/requested` with a stable rpc id, the session id, the approval id,
//! the tool and optionally the call id and reason. A client answers by echoing the rpc id and
//! the exact session and approval ids with `allowed-once` or `rejected`; `cancelled` and
//! `unavailable` stay host-owned. The first valid response settles the request and removes it;
//! every other response is rejected with its own error. Pending requests survive a client
//! disconnect and are replayed, with the same ids, on reconnect; teardown settles them
//! `cancelled`.

use std::collections::BTreeMap;
use std::fmt;

use seal_parse::json::{JsonLimits, Number, Object, Value, MAX_EXACT_INTEGER};
use seal_record::{ApprovalAsked, Outcome};

use super::answerer::{Answer, Reply};
use super::ids::is_id;
use super::machine::Event;
use super::request::Question;
use super::response::WireResponse;
use super::wire_error::{RegisterError, ResponseError};

/// The `method` of a request sent to clients.
pub const APPROVAL_REQUESTED_METHOD: &str = "approval/requested";

/// A stable rpc id: a positive integer up to 2^53, issued in increasing order, never reused by
/// one registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RpcId(pub u64);

/// Limits of a [`WireRegistry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegistryLimits {
    /// Most requests pending at once. Default 256; one more is refused with
    /// [`RegisterError::TooManyPending`].
    pub max_pending: usize,
    /// How many settled rpc ids are remembered, so that a response to one is named late or
    /// stale precisely. Default 4096; past it the lowest settled ids are forgotten, and a
    /// response to a forgotten id is [`ResponseError::Stale`] (still rejected).
    pub max_remembered: usize,
    /// Limits for parsing a response. Default: 64 KiB, depth 2.
    pub json: JsonLimits,
}

impl RegistryLimits {
    /// The default limits.
    pub const DEFAULT: RegistryLimits = RegistryLimits {
        max_pending: 256,
        max_remembered: 4096,
        json: RESPONSE_JSON_LIMITS,
    };
}

impl Default for RegistryLimits {
    fn default() -> Self {
        RegistryLimits::DEFAULT
    }
}

const RESPONSE_JSON_LIMITS: JsonLimits = {
    let mut limits = JsonLimits::DEFAULT;
    limits.max_bytes = 64 * 1024;
    limits.max_depth = 2;
    limits
};

/// A request pending toward clients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireRequest {
    rpc_id: RpcId,
    session_id: String,
    asked: ApprovalAsked,
}

/// A request that left the registry, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireSettlement {
    /// The rpc id.
    pub rpc_id: RpcId,
    /// The session id.
    pub session_id: String,
    /// The approval id.
    pub approval_id: String,
    /// `allowed-once` or `rejected` from a client; `cancelled` from abort or teardown.
    pub outcome: Outcome,
}

/// Pending approval requests toward clients, keyed by rpc id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireRegistry {
    pending: BTreeMap<RpcId, WireRequest>,
    settled: BTreeMap<RpcId, SettledBy>,
    next: u64,
    limits: RegistryLimits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SettledBy {
    Client,
    Host,
}

impl WireRegistry {
    /// An empty registry with the given limits; the first rpc id is 1.
    pub fn new(limits: RegistryLimits) -> WireRegistry {
        WireRegistry {
            pending: BTreeMap::new(),
            settled: BTreeMap::new(),
            next: 1,
            limits,
        }
    }

    /// Registers the request `asked` of session `session_id` under a fresh rpc id and returns
    /// what to send to clients.
    pub fn register(
        &mut self,
        session_id: &str,
        asked: &ApprovalAsked,
    ) -> Result<WireRequest, RegisterError> {
        if !is_id(session_id) {
            return Err(RegisterError::InvalidSessionId {
                id: session_id.to_owned(),
            });
        }
        if let Some(rpc_id) = self.rpc_id_of(session_id, asked.id()) {
            return Err(RegisterError::AlreadyPending { rpc_id });
        }
        if self.pending.len() >= self.limits.max_pending {
            return Err(RegisterError::TooManyPending {
                max: self.limits.max_pending,
            });
        }
        if self.next > MAX_EXACT_INTEGER {
            return Err(RegisterError::RpcIdsExhausted);
        }
        let rpc_id = RpcId(self.next);
        self.next = self.next.saturating_add(1);
        let request = WireRequest {
            rpc_id,
            session_id: session_id.to_owned(),
            asked: asked.clone(),
        };
        self.pending.insert(rpc_id, request.clone());
        Ok(request)
    }

    /// The waterfall step of a web answerer: registers `question` and claims it
    /// ([`Answer::Pending`]), or delegates ([`Answer::Delegate`]) when it cannot be registered
    /// (invalid session id, the same approval pending already, a limit reached), so an
    /// unanswerable request is never claimed.
    pub fn claim(&mut self, question: &Question<'_>) -> Answer {
        let asked = ApprovalAsked::new(
            question.approval_id,
            question.tool,
            question.call_id,
            question.reason,
        );
        match asked {
            Ok(asked) if self.register(question.session, &asked).is_ok() => Answer::Pending,
            Ok(_) | Err(_) => Answer::Delegate,
        }
    }

    /// Handles one client response. The first valid one settles its request and removes it;
    /// a malformed, foreign, mismatched, stale or late one is rejected and changes nothing.
    pub fn respond(&mut self, input: &[u8]) -> Result<WireSettlement, ResponseError> {
        let response =
            WireResponse::from_json(input, &self.limits.json).map_err(ResponseError::Malformed)?;
        self.respond_parsed(response)
    }

    /// Handles one client response already read with [`WireResponse::from_json`], by the same
    /// rules as [`WireRegistry::respond`].
    pub fn respond_parsed(
        &mut self,
        response: WireResponse,
    ) -> Result<WireSettlement, ResponseError> {
        let rpc_id = response.rpc_id;
        let request = match self.pending.get(&rpc_id) {
            Some(request) => request,
            None => {
                return Err(match self.settled.get(&rpc_id) {
                    Some(SettledBy::Host) => ResponseError::Late { rpc_id },
                    Some(SettledBy::Client) | None => ResponseError::Stale { rpc_id },
                })
            }
        };
        if request.session_id != response.session_id {
            return Err(ResponseError::Foreign {
                rpc_id,
                session_id: response.session_id,
            });
        }
        if request.asked.id() != response.approval_id {
            return Err(ResponseError::MismatchedApproval {
                rpc_id,
                approval_id: response.approval_id,
            });
        }
        self.settle(rpc_id, response.reply.outcome(), SettledBy::Client)
            .ok_or(ResponseError::Stale { rpc_id })
    }

    /// Puts back a request pending under the rpc id it was first issued (a host rebuilding its
    /// registry from a store after a restart), and makes sure no later fresh rpc id is at or
    /// below it. Refused like [`WireRegistry::register`], and with
    /// [`RegisterError::RpcIdInUse`] when the rpc id is pending or remembered as settled, or is
    /// not a valid rpc id.
    pub fn restore(
        &mut self,
        rpc_id: RpcId,
        session_id: &str,
        asked: &ApprovalAsked,
    ) -> Result<WireRequest, RegisterError> {
        if rpc_id.0 == 0
            || rpc_id.0 > MAX_EXACT_INTEGER
            || self.pending.contains_key(&rpc_id)
            || self.settled.contains_key(&rpc_id)
        {
            return Err(RegisterError::RpcIdInUse { rpc_id });
        }
        if !is_id(session_id) {
            return Err(RegisterError::InvalidSessionId {
                id: session_id.to_owned(),
            });
        }
        if let Some(rpc_id) = self.rpc_id_of(session_id, asked.id()) {
            return Err(RegisterError::AlreadyPending { rpc_id });
        }
        if self.pending.len() >= self.limits.max_pending {
            return Err(RegisterError::TooManyPending {
                max: self.limits.max_pending,
            });
        }
        self.skip_past(rpc_id);
        let request = WireRequest {
            rpc_id,
            session_id: session_id.to_owned(),
            asked: asked.clone(),
        };
        self.pending.insert(rpc_id, request.clone());
        Ok(request)
    }

    /// Makes sure no fresh rpc id is at or below `rpc_id` (an id issued before a restart, even
    /// one long settled, is never issued again).
    pub fn skip_past(&mut self, rpc_id: RpcId) {
        self.next = self.next.max(rpc_id.0.saturating_add(1));
    }

    /// The rpc id the next [`WireRegistry::register`] would issue.
    pub fn next_rpc_id(&self) -> RpcId {
        RpcId(self.next)
    }

    /// Settles a pending request `cancelled` (the caller aborted). `None` if it is not pending.
    pub fn cancel(&mut self, rpc_id: RpcId) -> Option<WireSettlement> {
        self.settle(rpc_id, Outcome::Cancelled, SettledBy::Host)
    }

    /// Settles every pending request `cancelled`, in rpc id order (the proxy is going away).
    pub fn teardown(&mut self) -> Vec<WireSettlement> {
        let ids: Vec<RpcId> = self.pending.keys().copied().collect();
        ids.into_iter()
            .filter_map(|rpc_id| self.cancel(rpc_id))
            .collect()
    }

    /// Every pending request, in rpc id order, with the ids first issued: what to send again
    /// when a client reconnects.
    pub fn replay(&self) -> Vec<WireRequest> {
        self.pending.values().cloned().collect()
    }

    /// The rpc id of the pending request for `approval_id` in `session_id`, if any.
    pub fn rpc_id_of(&self, session_id: &str, approval_id: &str) -> Option<RpcId> {
        self.pending
            .values()
            .find(|request| request.session_id == session_id && request.asked.id() == approval_id)
            .map(|request| request.rpc_id)
    }

    /// Number of pending requests.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    fn settle(&mut self, rpc_id: RpcId, outcome: Outcome, by: SettledBy) -> Option<WireSettlement> {
        let request = self.pending.remove(&rpc_id)?;
        self.settled.insert(rpc_id, by);
        while self.settled.len() > self.limits.max_remembered {
            self.settled.pop_first();
        }
        Some(WireSettlement {
            rpc_id,
            session_id: request.session_id,
            approval_id: request.asked.id().to_owned(),
            outcome,
        })
    }
}

impl Default for WireRegistry {
    fn default() -> Self {
        WireRegistry::new(RegistryLimits::DEFAULT)
    }
}

impl WireRequest {
    /// The rpc id.
    pub fn rpc_id(&self) -> RpcId {
        self.rpc_id
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The approval request (id, tool, call id, reason; never arguments).
    pub fn asked(&self) -> &ApprovalAsked {
        &self.asked
    }

    /// The JSON form: `{"approval_id":..,"call_id"?:..,"method":"approval/requested",
    /// "reason"?:..,"rpc_id":..,"session_id":..,"tool":..}`.
    pub fn to_value(&self) -> Value<'_> {
        let mut object = Object::new();
        let rpc_id = i64::try_from(self.rpc_id.0)
            .ok()
            .and_then(|id| Number::from_i64(id).ok())
            .unwrap_or(Number::ZERO);
        let mut members = vec![
            ("method", Value::from(APPROVAL_REQUESTED_METHOD)),
            ("rpc_id", Value::Number(rpc_id)),
            ("session_id", Value::from(self.session_id.as_str())),
            ("approval_id", Value::from(self.asked.id())),
            ("tool", Value::from(self.asked.tool())),
        ];
        if let Some(call_id) = self.asked.call_id() {
            members.push(("call_id", Value::from(call_id)));
        }
        if let Some(reason) = self.asked.reason() {
            members.push(("reason", Value::from(reason)));
        }
        for (key, value) in members {
            // The keys above are distinct constants, so insertion never fails.
            let _ = object.insert(key, value);
        }
        Value::Object(object)
    }

    /// The canonical JSON bytes of [`WireRequest::to_value`].
    pub fn to_json(&self) -> Vec<u8> {
        self.to_value().canonical_bytes()
    }
}

impl WireSettlement {
    /// The event that feeds this settlement to the request's
    /// [`ApprovalMachine`](super::ApprovalMachine): an answer, or cancellation.
    pub fn event(&self) -> Event {
        match self.outcome {
            Outcome::AllowedOnce => Event::Answer(Reply::AllowOnce),
            Outcome::Rejected => Event::Answer(Reply::Reject),
            Outcome::Cancelled | Outcome::Unavailable => Event::Cancel,
        }
    }
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
