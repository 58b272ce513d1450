//! The seal approval server (`seal serve`): it holds the pending approvals of the hooks that
//! wait for a person, serves the panel a person answers them on, and keeps them across restarts
//! (spec/approval-server.md, "The server").
//!
//! [`hookwire`] is the hook socket's line protocol, shared by the server and the hooks;
//! [`client`] is the hook's side of it (blocking, no async runtime, so a hook keeps its start
//! time).

pub mod client;
pub mod hookwire;
pub mod paths;
