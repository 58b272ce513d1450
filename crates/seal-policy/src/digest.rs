//! The policy digest: SHA-256 of one pre-authentication encoding of every configuration input
//! that changes a tool-call decision (spec/policy-digest.md); the `seal` facade's
//! `Seal::policy_digest` is this digest of its builder's inputs.
//!
//! The encoding is injective: the pieces are PAE pieces (length-prefixed, counted), each
//! component is one piece in a fixed order, and every list, option and scope inside a piece is
//! itself a PAE. Two configurations that differ in any covered component give different bytes.

use seal_record::{le64, pae, Sha256Digest};

use crate::approval::ApprovalPolicy;
use crate::chain::{Chain, Scope as CoreScope};
use crate::escalation::EscalationLimits;
use crate::preset::{Executor, Knobs, SandboxMode};

/// The first piece of the encoding: names the layout and its version.
pub const POLICY_DIGEST_DOMAIN: &str = "seal/policy/v2";

/// Everything the policy digest covers, in the order of the encoding (spec/policy-digest.md,
/// section 3).
pub struct PolicyInputs<'a> {
    /// RFC 8785 canonical bytes of the rule text.
    pub rules: &'a [u8],
    /// The workspace root path rules are matched under, if any.
    pub workspace_root: Option<&'a str>,
    /// The home directory `~` means in rules and commands, if any.
    pub home_dir: Option<&'a str>,
    /// The directories counted as inside the workspace besides the root, as given.
    pub added_dirs: &'a [String],
    /// The name of what the waterfall decides when nothing else does (`ask`, `deny`, `allow`,
    /// `claude-code`).
    pub fallback: &'a str,
    /// The preset table, in table order: key, knobs, label.
    pub presets: &'a [(&'a str, Knobs, Option<&'a str>)],
    /// The selected preset key.
    pub preset: &'a str,
    /// The sandbox knob set over the preset's, if any.
    pub sandbox: Option<SandboxMode>,
    /// The approval knob set over the preset's, if any.
    pub approval: Option<ApprovalPolicy>,
    /// What the executor can do.
    pub executor: Executor,
    /// The limits escalation fields are checked against.
    pub escalation: EscalationLimits,
    /// The chain that decides: its listeners (names and scopes) in consult order, its global
    /// guards, then its scoped guards (names and scopes), read from the chain itself.
    pub chain: &'a Chain,
    /// How many answerers are consulted, in order.
    pub answerers: usize,
}

/// SHA-256 of [`encode`]`(inputs)`.
pub fn policy_digest(inputs: &PolicyInputs<'_>) -> Sha256Digest {
    Sha256Digest::of(&encode(inputs))
}

/// The bytes the policy digest hashes:
///
/// ```text
/// PAE("seal/policy/v2", rules, option(workspace root), option(home directory),
///     list(added directories), fallback, list(preset rows),
///     selected preset, option(sandbox knob), option(approval knob), escalation,
///     list(listeners), list(global guard names), list(scoped guards), LE64(answerers))
/// ```
pub fn encode(inputs: &PolicyInputs<'_>) -> Vec<u8> {
    let rows: Vec<Vec<u8>> = inputs
        .presets
        .iter()
        .map(|(key, knobs, label)| {
            pae(&[
                key.as_bytes(),
                knobs.sandbox.as_str().as_bytes(),
                knobs.approval.as_str().as_bytes(),
                &option(*label),
            ])
        })
        .collect();
    let escalation = pae(&[
        executor_name(inputs.executor).as_bytes(),
        &le64(to_u64(inputs.escalation.max_justification_chars)),
    ]);
    let added: Vec<&[u8]> = inputs.added_dirs.iter().map(|d| d.as_bytes()).collect();
    let chain = inputs.chain;
    let listeners: Vec<Vec<u8>> = (chain.listeners())
        .map(|(name, scope)| scoped_stage(name, scope))
        .collect();
    let global_guards: Vec<&[u8]> = chain.global_guards().map(str::as_bytes).collect();
    let scoped_guards: Vec<Vec<u8>> = (chain.scoped_guards())
        .map(|(name, scope)| scoped_stage(name, scope))
        .collect();
    pae(&[
        POLICY_DIGEST_DOMAIN.as_bytes(),
        inputs.rules,
        &option(inputs.workspace_root),
        &option(inputs.home_dir),
        &pae(&added),
        inputs.fallback.as_bytes(),
        &list(&rows),
        inputs.preset.as_bytes(),
        &option(inputs.sandbox.map(SandboxMode::as_str)),
        &option(inputs.approval.map(ApprovalPolicy::as_str)),
        &escalation,
        &list(&listeners),
        &pae(&global_guards),
        &list(&scoped_guards),
        &le64(to_u64(inputs.answerers)),
    ])
}

fn scoped_stage(name: &str, scope: &CoreScope) -> Vec<u8> {
    let scope = pae(&[
        &option(scope.session_part()),
        &option(scope.agent_part()),
        &option(scope.tool_part()),
    ]);
    pae(&[name.as_bytes(), &scope])
}

/// An absent value is the PAE of no piece; a present one the PAE of its one piece.
fn option(value: Option<&str>) -> Vec<u8> {
    match value {
        Some(value) => pae(&[value.as_bytes()]),
        None => pae(&[]),
    }
}

fn list(items: &[Vec<u8>]) -> Vec<u8> {
    pae(&items.iter().map(Vec::as_slice).collect::<Vec<_>>())
}

fn executor_name(executor: Executor) -> &'static str {
    if executor.can_sandbox {
        "confining"
    } else {
        "unconfined"
    }
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::chain::{Check, Decision};

    /// A chain holding only a rules-like listener named `rules`, which sees every call.
    fn rules_only() -> Chain {
        let mut chain = Chain::new(Decision::Allow);
        let pass = |_: &crate::chain::ToolCall, next: crate::chain::Next<'_>| Ok(next.run());
        assert!(chain.append("rules", CoreScope::everywhere(), pass).is_ok());
        chain
    }

    fn inputs(chain: &Chain) -> PolicyInputs<'_> {
        PolicyInputs {
            rules: br#"{"permissions":{}}"#,
            workspace_root: None,
            home_dir: None,
            added_dirs: &[],
            fallback: "ask",
            presets: &[],
            preset: "auto",
            sandbox: None,
            approval: None,
            executor: Executor::CONFINING,
            escalation: EscalationLimits::DEFAULT,
            chain,
            answerers: 0,
        }
    }

    #[test]
    fn each_scope_part_is_its_own_piece() {
        // The same text in another part, or split differently across parts, encodes
        // differently: each part is an option piece of its own.
        let scopes = [
            CoreScope::everywhere(),
            CoreScope::everywhere().session("a"),
            CoreScope::everywhere().agent("a"),
            CoreScope::everywhere().tool("a"),
            CoreScope::everywhere().tool(""),
            CoreScope::everywhere().session("a").agent("b"),
            CoreScope::everywhere().session("ab"),
            CoreScope::everywhere().agent("a").tool("b"),
            CoreScope::everywhere().tool("\") }"),
        ];
        let encoded: Vec<Vec<u8>> = scopes
            .iter()
            .map(|scope| scoped_stage("stage", scope))
            .collect();
        for (i, left) in encoded.iter().enumerate() {
            for right in encoded.iter().skip(i + 1) {
                assert_ne!(left, right);
            }
        }
    }

    #[test]
    fn executor_and_escalation_limits_are_covered() {
        // Neither can be varied through a successful build (an executor that cannot sandbox
        // refuses the build; the limits are the defaults), so they are checked here.
        let stages = rules_only();
        let base = encode(&inputs(&stages));
        let unconfined = encode(&PolicyInputs {
            executor: Executor::UNCONFINED,
            ..inputs(&stages)
        });
        let shorter = encode(&PolicyInputs {
            escalation: EscalationLimits::DEFAULT.with_max_justification_chars(999),
            ..inputs(&stages)
        });
        assert_ne!(base, unconfined);
        assert_ne!(base, shorter);
        assert_ne!(unconfined, shorter);
    }

    #[test]
    fn an_absent_option_differs_from_an_empty_value() {
        let stages = rules_only();
        let absent = encode(&inputs(&stages));
        let empty = encode(&PolicyInputs {
            workspace_root: Some(""),
            home_dir: None,
            added_dirs: &[],
            ..inputs(&stages)
        });
        assert_ne!(absent, empty);
    }

    #[test]
    fn guards_moved_between_global_and_scoped_change_the_bytes() {
        let pass = |_: &crate::chain::ToolCall| Ok(Check::Pass);
        let mut global = rules_only();
        assert!(global.add_global_guard("g", pass).is_ok());
        let mut scoped = rules_only();
        assert!(scoped
            .add_scoped_guard("g", CoreScope::everywhere(), pass)
            .is_ok());
        assert_ne!(encode(&inputs(&global)), encode(&inputs(&scoped)));
    }
}
