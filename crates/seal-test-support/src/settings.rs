//! Client settings files written by tests and benches.

/// The text of a settings file holding exactly the permission rules `allow`, `ask` and `deny`
/// (`{"permissions": {"allow": [..], "ask": [..], "deny": [..]}}`), each rule a JSON string.
///
/// ```
/// let text = seal_test_support::permissions_json(&["Bash(ls:*)"], &[], &["Bash(rm:*)"]);
/// assert_eq!(
///     text,
///     r#"{"permissions":{"allow":["Bash(ls:*)"],"ask":[],"deny":["Bash(rm:*)"]}}"#
/// );
/// ```
pub fn permissions_json<S: AsRef<str>>(allow: &[S], ask: &[S], deny: &[S]) -> String {
    fn list<S: AsRef<str>>(rules: &[S]) -> Vec<&str> {
        rules.iter().map(AsRef::as_ref).collect()
    }
    serde_json::json!({
        "permissions": { "allow": list(allow), "ask": list(ask), "deny": list(deny) }
    })
    .to_string()
}
