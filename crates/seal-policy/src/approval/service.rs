//! The approval service: preconditions, fresh ids, the policy check and the answerer waterfall.

use std::collections::BTreeSet;
use std::fmt;

use seal_record::{ApprovalAsked, Outcome};

use super::answerer::{Answer, Answerer, Reply};
use super::ids::{is_id, CounterIds, IdSource};
use super::machine::{Action, ApprovalMachine, Event};
use super::policy::{ApprovalPolicy, Unanswered};
use super::refusal::{Refusal, TooManyAnswerers};
use super::request::{ApprovalRequest, Caller, Question};

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

/// The approval service: the one place that owns the outcome vocabulary, the audit pair, the
/// cancellation rules and the `never` policy.
///
/// Asking checks, in order: a session, an agent and an open turn are present (else a
/// [`Refusal`], which denies); a fresh approval id; then the [`ApprovalMachine`] runs with the
/// standing policy. Under [`ApprovalPolicy::Never`] the request settles `rejected` and no
/// answerer is consulted, wherever it was registered. Otherwise, unless the caller's signal
/// already fired, answerers are consulted in order until one does not delegate.
pub struct ApprovalService {
    answerers: Vec<Box<dyn Answerer>>,
    policy: ApprovalPolicy,
    unanswered: Unanswered,
    ids: Box<dyn IdSource>,
    issued: BTreeSet<String>,
    limits: ServiceLimits,
}

/// A request that was asked: its machine, and the effects so far (the `approval/asked` event,
/// whether answerers were consulted, and the `approval/decided` event once settled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asking {
    /// The request's state machine. Feed it later events (a claimed answer, cancellation, the
    /// dispatch check).
    pub machine: ApprovalMachine,
    /// The effects of the ask, in order.
    pub effects: Vec<Action>,
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
        let mut machine = ApprovalMachine::new(asked).map_err(Refusal::InvalidRequest)?;
        let mut effects = Vec::new();
        if already_cancelled {
            effects.extend(machine.step(Event::Cancel));
        }
        let first = machine.step(Event::Ask(self.policy));
        let consult = first.contains(&Action::Consult);
        effects.extend(first);
        if consult {
            if let Some(event) = self.waterfall(machine.asked(), session, agent) {
                effects.extend(machine.step(event));
            }
        }
        Ok(Asking { machine, effects })
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

    /// Consults answerers in order; `None` when one claimed the request for a later answer.
    fn waterfall(&mut self, asked: &ApprovalAsked, session: &str, agent: &str) -> Option<Event> {
        let question = Question {
            approval_id: asked.id(),
            session,
            agent,
            tool: asked.tool(),
            call_id: asked.call_id(),
            reason: asked.reason(),
        };
        for answerer in &mut self.answerers {
            match answerer.answer(&question) {
                Answer::AllowOnce => return Some(Event::Answer(Reply::AllowOnce)),
                Answer::Reject => return Some(Event::Answer(Reply::Reject)),
                Answer::Pending => return None,
                Answer::Delegate => {}
            }
        }
        Some(Event::Unanswered(self.unanswered))
    }
}

impl Asking {
    /// The settled outcome, or `None` while a claimed answer is pending.
    pub fn outcome(&self) -> Option<Outcome> {
        self.machine.outcome()
    }

    /// True when the ask consulted the answerer waterfall.
    pub fn consulted_answerers(&self) -> bool {
        self.effects.contains(&Action::Consult)
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
