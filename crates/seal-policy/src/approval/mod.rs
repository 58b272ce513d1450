//! The approval state machine, the approval wire registry and machine answerers.
//!
//! Sans-IO: requests, answers, cancellation and the dispatch check come in as events; audit
//! records and verdicts come out as values. No thread, clock or runtime is involved.
//!
//! - [`ApprovalService`] checks the preconditions (a service, a session, an agent, an open
//!   turn: each missing one is a distinct [`Refusal`], and every refusal denies), issues a fresh
//!   approval id, applies the standing [`ApprovalPolicy`] and runs the answerer waterfall.
//!   Under [`ApprovalPolicy::Never`] no answerer is ever consulted, however it was registered.
//! - [`ApprovalMachine`] is one request's state machine over [`Event`]s (ask, answer,
//!   unanswered, cancel, dispatch check) with the cancellation races made explicit. Its audit
//!   effects are `seal_record` events: `approval/asked` (id, tool, call id, reason; never
//!   arguments) then `approval/decided` (id, closed [`Outcome`]). Only `allowed-once` proceeds.
//! - [`WireRegistry`] holds requests pending toward remote clients by [`RpcId`].
//! - [`map_machine_response`] maps a machine client's option to a one-shot answer.
//!
//! ```
//! use seal_policy::approval::{
//!     answer_with, Answer, ApprovalPolicy, ApprovalRequest, ApprovalService, Caller, Action,
//!     Event, DispatchVerdict,
//! };
//!
//! let mut service = ApprovalService::new(ApprovalPolicy::OnRequest);
//! service.register(answer_with(|_| Answer::AllowOnce)).expect("room for an answerer");
//! let caller = Caller::in_turn("session-1", "agent-1");
//! let request = ApprovalRequest::new("Bash").with_call_id("call-7").with_reason("runs tests");
//! let mut asking = service.ask(&caller, &request, false).expect("routable");
//! assert_eq!(asking.outcome(), Some(seal_record::Outcome::AllowedOnce));
//! let effects = asking.machine.step(Event::DispatchCheck);
//! assert_eq!(effects, vec![Action::Dispatch(DispatchVerdict::Proceed)]);
//! ```

mod answerer;
mod card;
mod ids;
mod machine;
mod machine_answerer;
mod policy;
mod refusal;
mod registry;
mod request;
mod response;
mod service;
mod wire_error;

pub use answerer::{answer_with, Answer, Answerer, Reply};
pub use card::{approval_card, CARD_MAX_FIELD_CHARS};
pub use ids::{is_id, CounterIds, IdSource, MAX_ID_BYTES};
pub use machine::{Action, ApprovalMachine, DispatchVerdict, Event, Ignored, Phase};
pub use machine_answerer::{
    machine_claims, map_machine_response, parse_machine_response, MachineAnswer, MachineOption,
    MachineResponse, ALLOW_ONCE_OPTION, MACHINE_OPTIONS, REJECT_ONCE_OPTION,
};
pub use policy::{ApprovalPolicy, Unanswered};
pub use refusal::{Refusal, TooManyAnswerers};
pub use registry::{
    RegistryLimits, RpcId, WireRegistry, WireRequest, WireSettlement, APPROVAL_REQUESTED_METHOD,
};
pub use request::{ApprovalRequest, Caller, Question};
pub use response::{MalformedResponse, WireResponse};
pub use seal_record::Outcome;
pub use service::{request_approval, ApprovalService, Asking, ServiceLimits};
pub use wire_error::{RegisterError, ResponseError};
