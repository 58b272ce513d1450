//! The policy digest of a [`Seal`](crate::Seal): SHA-256 of one pre-authentication encoding of
//! every builder input that changes a tool-call decision (spec/policy-digest.md).
//!
//! The encoding is injective: the pieces are PAE pieces (length-prefixed, counted), each
//! component is one piece in a fixed order, and every list, option and scope inside a piece is
//! itself a PAE. Two configurations that differ in any covered component give different bytes.

use seal_policy::chain::{Chain, Scope as CoreScope};
use seal_policy::escalation::EscalationLimits;
use seal_policy::preset::{Executor, Knobs};
use seal_record::{le64, pae};

use crate::builder::Fallback;
use crate::{ApprovalPolicy, SandboxMode, Sha256Digest};

/// The first piece of the encoding: names the layout and its version.
pub(crate) const POLICY_DIGEST_DOMAIN: &str = "seal/policy/v1";

/// Everything the policy digest covers, in the order of the encoding (spec/policy-digest.md,
/// section 3).
pub(crate) struct PolicyInputs<'a> {
    /// RFC 8785 canonical bytes of the rule text.
    pub(crate) rules: &'a [u8],
    /// The workspace root path rules are matched under, if any.
    pub(crate) workspace_root: Option<&'a str>,
    /// What the waterfall decides when nothing else does.
    pub(crate) fallback: Fallback,
    /// The preset table, in table order: key, knobs, label.
    pub(crate) presets: &'a [(&'a str, Knobs, Option<&'a str>)],
    /// The selected preset key.
    pub(crate) preset: &'a str,
    /// The sandbox knob set over the preset's, if any.
    pub(crate) sandbox: Option<SandboxMode>,
    /// The approval knob set over the preset's, if any.
    pub(crate) approval: Option<ApprovalPolicy>,
    /// What the executor can do.
    pub(crate) executor: Executor,
    /// The limits escalation fields are checked against.
    pub(crate) escalation: EscalationLimits,
    /// The listeners and guards in the order they run.
    pub(crate) stages: &'a StageOrder,
    /// How many answerers are consulted, in order.
    pub(crate) answerers: usize,
}

/// The chain's stages in the order the chain runs them, mirrored from the registrations: the
/// listeners in consult order (the rules listener among them), the global guards, the scoped
/// guards. [`StageOrder::agrees_with`] checks the mirror against the chain built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StageOrder {
    listeners: Vec<(String, ScopeParts)>,
    global_guards: Vec<String>,
    scoped_guards: Vec<(String, ScopeParts)>,
}

/// A scope whose parts could not be read back exactly (spec/policy-digest.md, section 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnreadableScope;

/// SHA-256 of [`encode`]`(inputs)`.
pub(crate) fn policy_digest(inputs: &PolicyInputs<'_>) -> Sha256Digest {
    Sha256Digest::of(&encode(inputs))
}

/// The bytes the policy digest hashes:
///
/// ```text
/// PAE("seal/policy/v1", rules, option(workspace root), fallback, list(preset rows),
///     selected preset, option(sandbox knob), option(approval knob), escalation,
///     list(listeners), list(global guard names), list(scoped guards), LE64(answerers))
/// ```
pub(crate) fn encode(inputs: &PolicyInputs<'_>) -> Vec<u8> {
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
    let stages = inputs.stages;
    let listeners: Vec<Vec<u8>> = stages
        .listeners
        .iter()
        .map(|(name, scope)| scoped_stage(name, scope))
        .collect();
    let global_guards: Vec<&[u8]> = stages
        .global_guards
        .iter()
        .map(|name| name.as_bytes())
        .collect();
    let scoped_guards: Vec<Vec<u8>> = stages
        .scoped_guards
        .iter()
        .map(|(name, scope)| scoped_stage(name, scope))
        .collect();
    pae(&[
        POLICY_DIGEST_DOMAIN.as_bytes(),
        inputs.rules,
        &option(inputs.workspace_root),
        fallback_name(inputs.fallback).as_bytes(),
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

impl StageOrder {
    /// The order of a chain holding only the rules listener, named `rules_listener`, which
    /// sees every call.
    pub(crate) fn new(rules_listener: &str) -> StageOrder {
        StageOrder {
            listeners: vec![(rules_listener.to_owned(), ScopeParts::default())],
            global_guards: Vec::new(),
            scoped_guards: Vec::new(),
        }
    }

    /// A listener registered before every listener so far.
    pub(crate) fn prepend_listener(
        &mut self,
        name: &str,
        scope: &CoreScope,
    ) -> Result<(), UnreadableScope> {
        let parts = ScopeParts::read(scope)?;
        self.listeners.insert(0, (name.to_owned(), parts));
        Ok(())
    }

    /// A listener registered after every listener so far.
    pub(crate) fn append_listener(
        &mut self,
        name: &str,
        scope: &CoreScope,
    ) -> Result<(), UnreadableScope> {
        let parts = ScopeParts::read(scope)?;
        self.listeners.push((name.to_owned(), parts));
        Ok(())
    }

    /// A guard of every allowed call, after the global guards so far.
    pub(crate) fn add_global_guard(&mut self, name: &str) {
        self.global_guards.push(name.to_owned());
    }

    /// A guard of the allowed calls in `scope`, after the scoped guards so far.
    pub(crate) fn add_scoped_guard(
        &mut self,
        name: &str,
        scope: &CoreScope,
    ) -> Result<(), UnreadableScope> {
        let parts = ScopeParts::read(scope)?;
        self.scoped_guards.push((name.to_owned(), parts));
        Ok(())
    }

    /// True when `chain` consults its listeners and runs its guards in exactly this order, so
    /// the digest describes the chain that decides.
    pub(crate) fn agrees_with(&self, chain: &Chain) -> bool {
        let guards = self
            .global_guards
            .iter()
            .chain(self.scoped_guards.iter().map(|(name, _)| name));
        chain
            .listener_names()
            .eq(self.listeners.iter().map(|(name, _)| name.as_str()))
            && chain.guard_names().eq(guards.map(String::as_str))
    }
}

/// The three parts of a scope; a part left unset matches every call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ScopeParts {
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
}

impl ScopeParts {
    /// Reads the parts of `scope`. The core scope has no accessors, so its `Debug` text
    /// (`Scope { session: .., agent: .., tool: .. }`) is parsed, and the parts are accepted only
    /// if the scope rebuilt from them equals `scope`: a reading is exact or refused.
    fn read(scope: &CoreScope) -> Result<ScopeParts, UnreadableScope> {
        let text = format!("{scope:?}");
        let parts = parse_scope_debug(&text).ok_or(UnreadableScope)?;
        if parts.rebuild() == *scope {
            Ok(parts)
        } else {
            Err(UnreadableScope)
        }
    }

    fn rebuild(&self) -> CoreScope {
        let mut scope = CoreScope::everywhere();
        if let Some(session) = &self.session {
            scope = scope.session(session.as_str());
        }
        if let Some(agent) = &self.agent {
            scope = scope.agent(agent.as_str());
        }
        if let Some(tool) = &self.tool {
            scope = scope.tool(tool.as_str());
        }
        scope
    }
}

fn scoped_stage(name: &str, scope: &ScopeParts) -> Vec<u8> {
    let scope = pae(&[
        &option(scope.session.as_deref()),
        &option(scope.agent.as_deref()),
        &option(scope.tool.as_deref()),
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

fn fallback_name(fallback: Fallback) -> &'static str {
    match fallback {
        Fallback::Ask => "ask",
        Fallback::Deny => "deny",
        Fallback::Allow => "allow",
    }
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

/// Parses `Scope { session: <part>, agent: <part>, tool: <part> }`, each part `None` or
/// `Some("<string escaped as by str's Debug>")`, and nothing else.
fn parse_scope_debug(text: &str) -> Option<ScopeParts> {
    let rest = text.strip_prefix("Scope { session: ")?;
    let (session, rest) = parse_part(rest)?;
    let rest = rest.strip_prefix(", agent: ")?;
    let (agent, rest) = parse_part(rest)?;
    let rest = rest.strip_prefix(", tool: ")?;
    let (tool, rest) = parse_part(rest)?;
    (rest == " }").then_some(ScopeParts {
        session,
        agent,
        tool,
    })
}

fn parse_part(text: &str) -> Option<(Option<String>, &str)> {
    if let Some(rest) = text.strip_prefix("None") {
        return Some((None, rest));
    }
    let (value, rest) = parse_debug_string(text.strip_prefix("Some(")?)?;
    Some((Some(value), rest.strip_prefix(')')?))
}

/// Reads one `"..."` string in `Debug` form and returns it unescaped with the text after it.
fn parse_debug_string(text: &str) -> Option<(String, &str)> {
    let mut chars = text.strip_prefix('"')?.char_indices();
    let body = text.get(1..)?;
    let mut out = String::new();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((out, body.get(at + 1..)?)),
            '\\' => {
                let (_, escape) = chars.next()?;
                let unescaped = match escape {
                    '\\' | '"' | '\'' => escape,
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    '0' => '\0',
                    'u' => {
                        if chars.next()?.1 != '{' {
                            return None;
                        }
                        let mut value: u32 = 0;
                        let mut digits = 0;
                        loop {
                            let (_, digit) = chars.next()?;
                            if digit == '}' {
                                break;
                            }
                            digits += 1;
                            if digits > 6 {
                                return None;
                            }
                            value = value * 16 + digit.to_digit(16)?;
                        }
                        if digits == 0 {
                            return None;
                        }
                        char::from_u32(value)?
                    }
                    _ => return None,
                };
                out.push(unescaped);
            }
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(stages: &StageOrder) -> PolicyInputs<'_> {
        PolicyInputs {
            rules: br#"{"permissions":{}}"#,
            workspace_root: None,
            fallback: Fallback::Ask,
            presets: &[],
            preset: "auto",
            sandbox: None,
            approval: None,
            executor: Executor::CONFINING,
            escalation: EscalationLimits::DEFAULT,
            stages,
            answerers: 0,
        }
    }

    #[test]
    fn scopes_read_back_exactly_even_when_hostile() {
        let hostile = [
            "",
            "Bash",
            "a\"b",
            "back\\slash",
            "quote'",
            "nl\nand\ttab\r",
            "nul\0",
            "\u{7f}\u{1b}[31m",
            "\u{301}combining first",
            "bidi\u{202e}",
            "\u{feff}bom",
            "emoji \u{1f600}",
            "\u{10ffff}",
            "Some(\"x\"), agent: None",
            "\") }",
        ];
        for value in hostile {
            for scope in [
                CoreScope::everywhere().tool(value),
                CoreScope::everywhere().session(value).agent("a"),
                CoreScope::everywhere().agent(value).tool(value),
            ] {
                let parts = ScopeParts::read(&scope).unwrap();
                assert_eq!(parts.rebuild(), scope, "{value:?}");
            }
        }
        let parts = ScopeParts::read(&CoreScope::everywhere().tool("a\"b")).unwrap();
        assert_eq!(parts.tool.as_deref(), Some("a\"b"));
        assert_eq!(parts.session, None);
    }

    #[test]
    fn the_debug_parser_refuses_what_is_not_a_scope() {
        for text in [
            "",
            "Scope { session: None, agent: None, tool: None }x",
            "Scope { session: None, agent: None }",
            "Scope { session: Some(\"a), agent: None, tool: None }",
            "Scope { session: Some(\"\\q\"), agent: None, tool: None }",
            "Scope { session: Some(\"\\u{}\"), agent: None, tool: None }",
            "Scope { session: Some(\"\\u{d800}\"), agent: None, tool: None }",
            "Scope { session: Some(\"\\u{1234567}\"), agent: None, tool: None }",
        ] {
            assert_eq!(parse_scope_debug(text), None, "{text:?}");
        }
        assert_eq!(
            parse_scope_debug("Scope { session: None, agent: Some(\"\\u{41}\"), tool: None }"),
            Some(ScopeParts {
                agent: Some("A".to_owned()),
                ..ScopeParts::default()
            })
        );
    }

    #[test]
    fn executor_and_escalation_limits_are_covered() {
        // Neither can be varied through a successful build (an executor that cannot sandbox
        // refuses the build; the limits are the defaults), so they are checked here.
        let stages = StageOrder::new("rules");
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
        let stages = StageOrder::new("rules");
        let absent = encode(&inputs(&stages));
        let empty = encode(&PolicyInputs {
            workspace_root: Some(""),
            ..inputs(&stages)
        });
        assert_ne!(absent, empty);
    }

    #[test]
    fn guards_moved_between_global_and_scoped_change_the_bytes() {
        let mut global = StageOrder::new("rules");
        global.add_global_guard("g");
        let mut scoped = StageOrder::new("rules");
        scoped
            .add_scoped_guard("g", &CoreScope::everywhere())
            .unwrap();
        assert_ne!(encode(&inputs(&global)), encode(&inputs(&scoped)));
    }
}
