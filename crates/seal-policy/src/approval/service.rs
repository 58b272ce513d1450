//! The approval service: preconditions, fresh ids and the registered answerers, in front of
//! the one driver of a request ([`Asking`]).

use std::collections::BTreeSet;
use std::fmt;

use seal_record::ApprovalAsked;

use super::answerer::Answerer;
use super::asking::Asking;
use super::ids::{is_id, CounterIds, IdSource};
use super::policy::{ApprovalPolicy, Unanswered};
use super::refusal::{Refusal, TooManyAnswerers};
use super::request::{ApprovalRequest, Caller};

/// Limits of an [`ApprovalService`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceLimits {
    /// Most answerers registered at once. Default 64; one more is refused with
    /// [`TooManyAnswerers`].
    pub max_answerers: usize,
    /// Most approval ids one service issues (it remembers each, to refuse a repeated id).
    /// Default 1,048,576; beyond it a request is refused with [`Refusal::TooManyApprovals`].
    pub max_approvals: usize,
}

impl ServiceLimits {
    /// The default limits: 64 answerers, 1,048,576 approval ids.
    pub const DEFAULT: ServiceLimits = ServiceLimits {
        max_answerers: 64,
        max_approvals: 1 << 20,
    };
}

impl Default for ServiceLimits {
    fn default() -> Self {
        ServiceLimits::DEFAULT
    }
}

/// The approval service: the preconditions of a request, its fresh approval id, and the
/// answerers registered for every request, in front of the one driver ([`Asking`]).
///
/// Asking checks, in order: a session, an agent and an open turn are present (else a
/// [`Refusal`], which denies); a fresh approval id; then the request is asked through
/// [`Asking`] under the standing policy. Under [`ApprovalPolicy::Never`] the request settles
/// `rejected` and no answerer is consulted, wherever it was registered. Otherwise, unless the
/// caller's signal already fired, answerers are consulted in order until one does not delegate.
pub struct ApprovalService {
    answerers: Vec<Box<dyn Answerer>>,
    policy: ApprovalPolicy,
    unanswered: Unanswered,
    ids: Box<dyn IdSource>,
    issued: BTreeSet<String>,
    limits: ServiceLimits,
}

impl ApprovalService {
    /// A service with the given standing policy, ids from [`CounterIds::default`], no answerer,
    /// unanswered requests settling `unavailable`, and default limits.
    pub fn new(policy: ApprovalPolicy) -> ApprovalService {
        ApprovalService::with_ids(policy, Box::new(CounterIds::default()))
    }

    /// A service taking approval ids from `ids`.
    pub fn with_ids(policy: ApprovalPolicy, ids: Box<dyn IdSource>) -> ApprovalService {
        ApprovalService {
            answerers: Vec::new(),
            policy,
            unanswered: Unanswered::default(),
            ids,
            issued: BTreeSet::new(),
            limits: ServiceLimits::DEFAULT,
        }
    }

    /// The same service with other limits.
    pub fn with_limits(self, limits: ServiceLimits) -> ApprovalService {
        ApprovalService { limits, ..self }
    }

    /// The same service settling unanswered requests as `unanswered`.
    pub fn with_unanswered(self, unanswered: Unanswered) -> ApprovalService {
        ApprovalService { unanswered, ..self }
    }

    /// The standing policy.
    pub fn policy(&self) -> ApprovalPolicy {
        self.policy
    }

    /// Number of registered answerers.
    pub fn answerer_count(&self) -> usize {
        self.answerers.len()
    }

    /// Adds an answerer after all registered ones.
    pub fn register(&mut self, answerer: Box<dyn Answerer>) -> Result<(), TooManyAnswerers> {
        self.check_room()?;
        self.answerers.push(answerer);
        Ok(())
    }

    /// Adds an answerer before all registered ones. It is still never consulted under policy
    /// `never`.
    pub fn prepend(&mut self, answerer: Box<dyn Answerer>) -> Result<(), TooManyAnswerers> {
        self.check_room()?;
        self.answerers.insert(0, answerer);
        Ok(())
    }

    /// Asks for approval of `request` on behalf of `caller`. `already_cancelled` is the state of
    /// the caller's cancellation signal now: when set, the request settles `cancelled` without
    /// consulting any answerer (unless policy `never` rejects it first).
    pub fn ask(
        &mut self,
        caller: &Caller<'_>,
        request: &ApprovalRequest<'_>,
        already_cancelled: bool,
    ) -> Result<Asking, Refusal> {
        let (session, agent) = routing(caller)?;
        let asked = self.fresh_request(request)?;
        let mut asking = Asking::start(asked, self.policy, already_cancelled)
            .map_err(Refusal::InvalidRequest)?;
        asking.consult(session, agent, &mut self.answerers, self.unanswered);
        Ok(asking)
    }

    fn check_room(&self) -> Result<(), TooManyAnswerers> {
        if self.answerers.len() >= self.limits.max_answerers {
            return Err(TooManyAnswerers {
                max: self.limits.max_answerers,
            });
        }
        Ok(())
    }

    fn fresh_request(&mut self, request: &ApprovalRequest<'_>) -> Result<ApprovalAsked, Refusal> {
        if self.issued.len() >= self.limits.max_approvals {
            return Err(Refusal::TooManyApprovals {
                max: self.limits.max_approvals,
            });
        }
        let id = self.ids.next_id();
        if !is_id(&id) {
            return Err(Refusal::InvalidApprovalId { id });
        }
        if self.issued.contains(&id) {
            return Err(Refusal::ReusedApprovalId { id });
        }
        let asked = ApprovalAsked::new(&id, request.tool, request.call_id, request.reason)
            .map_err(Refusal::InvalidRequest)?;
        self.issued.insert(id);
        Ok(asked)
    }
}

/// Asks through `service` if there is one; with none, the request is refused with
/// [`Refusal::NoService`] (which denies).
pub fn request_approval(
    service: Option<&mut ApprovalService>,
    caller: &Caller<'_>,
    request: &ApprovalRequest<'_>,
    already_cancelled: bool,
) -> Result<Asking, Refusal> {
    match service {
        Some(service) => service.ask(caller, request, already_cancelled),
        None => Err(Refusal::NoService),
    }
}

impl fmt::Debug for ApprovalService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalService")
            .field("answerers", &self.answerers.len())
            .field("policy", &self.policy)
            .field("unanswered", &self.unanswered)
            .field("issued", &self.issued.len())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The session and agent of a caller with an open turn, or why there are none.
fn routing<'a>(caller: &Caller<'a>) -> Result<(&'a str, &'a str), Refusal> {
    let session = caller.session.ok_or(Refusal::NoSession)?;
    let agent = caller.agent.ok_or(Refusal::NoAgent)?;
    if !caller.turn_open {
        return Err(Refusal::NoOpenTurn);
    }
    if !is_id(session) {
        return Err(Refusal::InvalidSessionId {
            id: session.to_owned(),
        });
    }
    if !is_id(agent) {
        return Err(Refusal::InvalidAgentId {
            id: agent.to_owned(),
        });
    }
    Ok((session, agent))
}
