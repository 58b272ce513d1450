//! Records of seal with their canonical bytes and digests: the pre-authentication encoding (PAE)
//! under every signing input, the frame and footer signing inputs, the disclosure manifest, the
//! sealed tool call, approval audit events and a hash-chained append-only log.
//!
//! No IO, no clock, no randomness: every input arrives as a value. Prefer the `seal` facade; this
//! crate is usable directly but its API may move faster.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod frame_input;
mod names;
mod pae;
mod signing_input;

pub use frame_input::{FooterSigningInput, FrameSigningInput, SigningInputError, SIG_ATTRIBUTE};
pub use names::{is_attribute_name, is_element_name, MAX_NAME_LEN};
pub use pae::{append_pae, le64, pae, unpae};
pub use signing_input::{count_piece, SigningInput, FOOTER_DOMAIN, FRAME_DOMAIN, LOG_DOMAIN};
