//! The approval state machine, the approval wire registry and machine answerers.
//!
//! Sans-IO: requests, answers, cancellation and the dispatch check come in as events; audit
//! records and verdicts come out as values. No thread, clock or runtime is involved.
//!
//! - [`ApprovalService`] checks the preconditions (a service, a session, an agent, an open
//!   turn: each missing one is a distinct [`Refusal`], and every refusal denies), issues a fresh
//!   approval id and holds the registered answerers, then asks through [`Asking`].
//! - [`Asking`] is the one driver of a request: it asks under the standing [`ApprovalPolicy`],
//!   runs the answerer waterfall or takes an outcome obtained elsewhere, feeds later events,
//!   runs the dispatch check and collects the audit records. The service (hence escalation) and
//!   the decision pipeline both step requests through it. Under [`ApprovalPolicy::Never`] no
//!   answerer is ever consulted, however it was registered.
//! - [`ApprovalMachine`] is one request's state machine over [`Event`]s (ask, answer,
//!   unanswered, cancel, dispatch check) with the cancellation races made explicit. Its audit
//!   effects are `seal_record` events: `approval/asked` (id, tool, call id, reason; never
//!   arguments) then `approval/decided` (id, closed [`Outcome`]). Only `allowed-once` proceeds.
//! - [`WireRegistry`] holds requests pending toward remote clients by [`RpcId`].
//! - [`ApprovalBook`] is an approval server's state over the wire registry: entries registered
//!   by waiting hooks (idempotently), replay toward panels, receipts for responses, host
//!   outcomes with the time passed in, single-use allows bound to the arguments digest, and an
//!   export a store persists and rebuilds from.
//! - [`map_machine_response`] maps a machine client's option to a one-shot answer.
//! - [`trust`] decides whether an HTTP request may reach the approval server's page or API
//!   (Host allowlist, Fetch Metadata, Origin, framing, bodies), and which command line an
//!   approval card may show (spec/approval-server.md).
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
//! assert!(matches!(asking.audit(), [Action::Asked(_), Action::Decided(_)]));
//! assert_eq!(asking.dispatch_check(), DispatchVerdict::Proceed);
//! let again = asking.step(Event::DispatchCheck);
//! assert_eq!(again, vec![Action::Dispatch(DispatchVerdict::AlreadyChecked)]);
//! ```

mod answerer;
mod asking;
mod book;
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
pub mod trust;
mod wire_error;

pub use answerer::{answer_with, Answer, Answerer, Reply};
pub use asking::Asking;
pub use book::{
    ApprovalBook, BookEntry, BookLimits, BookSnapshot, CancelCause, ConsumeRefusal, ConsumedAllow,
    Downlink, EntryError, EntryRegistration, EntryStatus, Receipt, Registered, Resolution,
    ResponseRefusal, SettleCause,
};
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
pub use service::{request_approval, ApprovalService, ServiceLimits};
pub use wire_error::{RegisterError, ResponseError};
