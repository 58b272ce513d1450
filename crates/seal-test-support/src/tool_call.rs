//! Tool calls for policy tests and benches.

#![allow(clippy::unwrap_used)]

use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::ToolCall;
use seal_record::SealedCall;

/// A `Bash` call of `command` (arguments `{"command": command}`) with call id `c1`, in session
/// `s1` by agent `a1`.
///
/// # Panics
///
/// When the call is refused (a command longer than the default limits allow).
pub fn bash_call(command: &str) -> ToolCall {
    let arguments = serde_json::json!({ "command": command }).to_string();
    let value = parse(arguments.as_bytes(), &JsonLimits::default()).unwrap();
    ToolCall::new(
        "s1",
        Some("a1"),
        SealedCall::new("c1", "Bash", &value).unwrap(),
    )
    .unwrap()
}
