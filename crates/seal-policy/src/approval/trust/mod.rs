//! The pure parts of the approval server's request handling: whether a browser's request may be
//! served ([`decide_trust`] under a [`RequestTrust`]), and which command line an approval card
//! may show ([`card_command`]). The server (an edge crate) does the IO and calls these; the
//! rules are stated in spec/approval-server.md.

mod command;
mod decision;
mod policy;

pub use command::{card_command, card_command_of};
pub use decision::{
    decide_trust, TrustRule, TrustedRequest, TrustedRoute, MAX_API_BODY_BYTES, MAX_BEARER_BYTES,
    MAX_TARGET_BYTES,
};
pub use policy::{
    PanelScheme, RequestTrust, RequestTrustError, MAX_HOST_BYTES, MAX_OPEN_API_PATHS,
    MAX_TRUSTED_HOSTS,
};
