//! Property checks for renderers (feature `testing`): the hostile-text strategies seal tests
//! itself with, and checkers you run against your own renderer.
//!
//! Each checker takes your renderer (any `Fn(&str) -> String`) and one input, and returns
//! `Err(Counterexample)` naming the property, the input (escaped) and what went wrong:
//!
//! - [`check_injective`]: no neighbour of the input (one character removed, one character
//!   replaced by its escape-v1 spelling, a fullwidth character folded to ASCII, a backslash
//!   doubled, a line break changed) renders the same, so two different texts never look alike;
//! - [`check_ascii_only`]: every rendered byte is printable ASCII (LF only where allowed);
//! - [`check_breakout_free`]: a rendered body placed in a frame cannot close it or open
//!   another: seal's own lenient scanner finds exactly that one frame, with that body;
//! - [`check_round_trip`]: your decoder gives back the input.
//!
//! ```
//! use proptest::prelude::*;
//! use seal::testing::{check_ascii_only, check_breakout_free, check_injective, check_round_trip, hostile_string};
//!
//! // Your renderer: here, seal's own escape in the block context.
//! fn render(text: &str) -> String {
//!     seal::render::escape(text, seal::render::Context::Block).into_owned()
//! }
//! fn decode(text: &str) -> Option<String> {
//!     seal::render::decode(text, seal::render::Context::Block).ok().map(|t| t.into_owned())
//! }
//!
//! proptest!(ProptestConfig::with_cases(64), |(input in hostile_string())| {
//!     check_injective(render, &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_ascii_only(render, &input, true).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_breakout_free(render, "channel", &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!     check_round_trip(render, decode, &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
//! });
//!
//! // A renderer that only drops control characters is caught at once.
//! let lossy = |text: &str| text.chars().filter(|c| !c.is_control()).collect::<String>();
//! assert!(check_injective(lossy, "a\u{7}b").is_err());
//! ```

pub use seal_render::testing::{
    check_ascii_only, check_breakout_free, check_injective, check_round_trip, hostile_bytes,
    hostile_char, hostile_string, Counterexample, HOSTILE_SCALARS, HOSTILE_SEQUENCES,
};
