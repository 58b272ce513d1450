//! The seal approval server (`seal serve`): it holds the pending approvals of the hooks that
//! wait for a person, serves the panel a person answers them on, and keeps them across restarts
//! (spec/approval-server.md, "The server").
//!
//! [`hookwire`] is the hook socket's line protocol, shared by the server and the hooks;
//! [`client`] is the hook's side of it (blocking, no async runtime, so a hook keeps its start
//! time). [`start`] runs a server on its own runtime and returns a [`RunningServer`]; [`run`]
//! blocks until a signal. [`AllowCheck`] is the seam where an approver's WebAuthn assertion is
//! checked; [`NoApprovers`] accepts an allow on the panel token alone.

pub mod approvers;
mod check;
pub mod client;
mod frames;
mod hooks;
pub mod hookwire;
mod http;
mod log;
mod names;
pub mod paths;
mod redis_store;
mod server;
mod state;
mod store;
mod tls;

pub use check::{AllowCheck, NoApprovers};
pub use frames::NO_APPROVER_WARNING;
pub use hooks::{FIRST_LINE_TIMEOUT, SETTLED_IDLE_TIMEOUT};
pub use http::KEEP_ALIVE;
pub use log::DecisionLog;
pub use redis_store::{
    FleetStore, DEFAULT_POLL, FLEET_KEY_PREFIX, MAX_CAS_ATTEMPTS, MAX_DOCUMENT_BYTES,
    MAX_FLEET_NAME_BYTES,
};
pub use seal_store_redis::RedisAddress;
pub use server::{
    run, start, RunningServer, ServeConfig, ServeError, DEFAULT_LISTEN, DEFAULT_TOKEN_TTL,
    LOOPBACK_HOSTS, MAX_PENDING, PAIR_PATH, STORE_NAME, TICK,
};
pub use store::{ApprovalStoreError, STORE_BUSY_TIMEOUT};
pub use tls::{TlsError, TlsFiles, HANDSHAKE_TIMEOUT, MAX_HANDSHAKES};
