//! Integration tests of the approval server over real sockets: the HTTP fence, the hook and
//! panel flows, restarts on the same store, and concurrent load.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

mod approvers;
mod browser;
mod fence;
mod fleet;
mod flows;
mod latency;
mod load;
mod machine;
mod restart;
mod support;
mod tls;
mod webauthn_panel;
