//! `Seal::policy_digest` covers the effective tool-call policy (spec/policy-digest.md): every
//! covered component changes it, formatting does not, and the real digest equals a reference
//! encoder written from the spec, including the golden vectors printed in the spec.

use seal::{
    ApprovalPolicy, Check, Fallback, FrameKey, Next, Ruling, SandboxMode, Scope, Seal, SealBuilder,
    StageError, ToolCall, TrustStore, UnixTime, PRESETS,
};
use sha2::{Digest, Sha256};

const RULES: &str = r#"{"permissions": {
    "allow": ["Bash(git status)", "Read"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm:*)", "Read(./.env)"]
}}"#;

/// The same rules: other spacing, other member order, a string escape.
const RULES_REFORMATTED: &str = "{ \"permissions\" : {\n\t\"deny\" : [ \"Bash(rm:*)\", \"Read(./.env)\" ],\n\t\"ask\": [\"Bash(git push:*)\"],\n\t\"allow\": [\"Bash(git status)\", \"\\u0052ead\"] } }";

/// Other rules: `git push` is allowed instead of asked.
const RULES_OTHER: &str = r#"{"permissions": {
    "allow": ["Bash(git status)", "Bash(git push:*)", "Read"],
    "deny": ["Bash(rm:*)", "Read(./.env)"]
}}"#;

const SPEC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/spec/policy-digest.md"
));

// ---------------------------------------------------------------------------------------------
// A policy configuration, with two interpreters: the real builder, and a reference encoder
// written from spec/policy-digest.md.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Listener,
    PrependedListener,
    Guard,
    ScopedGuard,
}

#[derive(Debug, Clone, Copy, Default)]
struct Parts {
    session: Option<&'static str>,
    agent: Option<&'static str>,
    tool: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
struct StageSpec {
    place: Place,
    name: &'static str,
    scope: Parts,
}

#[derive(Debug, Clone)]
struct Config {
    rules: Option<&'static str>,
    root: Option<&'static str>,
    home: Option<&'static str>,
    added: Vec<&'static str>,
    fallback: Fallback,
    preset: Option<&'static str>,
    sandbox: Option<SandboxMode>,
    approval: Option<ApprovalPolicy>,
    /// In registration order.
    stages: Vec<StageSpec>,
    answerers: usize,
}

impl Config {
    fn base() -> Config {
        Config {
            rules: Some(RULES),
            root: None,
            home: None,
            added: Vec::new(),
            fallback: Fallback::Ask,
            preset: None,
            sandbox: None,
            approval: None,
            stages: Vec::new(),
            answerers: 0,
        }
    }

    fn defaults() -> Config {
        Config {
            rules: None,
            ..Config::base()
        }
    }

    /// The configuration of the golden vector in spec/policy-digest.md, section 5.
    fn golden() -> Config {
        Config {
            rules: Some(
                r#"{"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(rm:*)"]}}"#,
            ),
            root: Some("/work/repo"),
            home: Some("/home/dev"),
            added: vec!["/srv/shared"],
            fallback: Fallback::Deny,
            preset: Some("read-only"),
            sandbox: None,
            approval: Some(ApprovalPolicy::Never),
            stages: vec![
                stage(Place::Listener, "only-git", tool("Bash")),
                stage(Place::PrependedListener, "audit", Parts::default()),
                stage(Place::Guard, "no-env", Parts::default()),
                stage(
                    Place::ScopedGuard,
                    "no-push",
                    Parts {
                        agent: Some("agent-1"),
                        tool: Some("Bash"),
                        ..Parts::default()
                    },
                ),
            ],
            answerers: 1,
        }
    }

    fn with(mut self, change: impl FnOnce(&mut Config)) -> Config {
        change(&mut self);
        self
    }

    fn with_stage(self, place: Place, name: &'static str, scope: Parts) -> Config {
        self.with(|config| config.stages.push(stage(place, name, scope)))
    }

    fn builder(&self) -> SealBuilder {
        let mut builder = Seal::builder();
        if let Some(rules) = self.rules {
            builder = builder.rules_json(rules);
        }
        if let Some(root) = self.root {
            builder = builder.workspace_root(root);
        }
        if let Some(home) = self.home {
            builder = builder.home_dir(home);
        }
        for dir in &self.added {
            builder = builder.added_dir(dir);
        }
        builder = builder.fallback(self.fallback);
        if let Some(preset) = self.preset {
            builder = builder.preset(preset);
        }
        if let Some(mode) = self.sandbox {
            builder = builder.sandbox_mode(mode);
        }
        if let Some(policy) = self.approval {
            builder = builder.approval_policy(policy);
        }
        for stage in &self.stages {
            let scope = stage.scope.facade();
            builder = match stage.place {
                Place::Listener => builder.listener(stage.name, scope, delegate),
                Place::PrependedListener => builder.prepend_listener(stage.name, scope, delegate),
                Place::Guard => builder.guard(stage.name, pass),
                Place::ScopedGuard => builder.scoped_guard(stage.name, scope, pass),
            };
        }
        for _ in 0..self.answerers {
            builder = builder.answerer(|_: &seal::Question<'_>| seal::Answer::Delegate);
        }
        builder
    }

    fn seal(&self) -> Seal {
        self.builder().build().unwrap()
    }

    fn digest(&self) -> [u8; 32] {
        *self.seal().policy_digest().as_bytes()
    }

    /// The policy digest before it covered the effective policy: SHA-256 of the canonical rule
    /// bytes alone (the negative control).
    fn rules_only_digest(&self) -> [u8; 32] {
        Sha256::digest(canonical(self.rules.unwrap_or(seal::NO_RULES))).into()
    }

    /// The bytes spec/policy-digest.md section 3 says are hashed, built independently of the
    /// crate: hand-written PAE, serde_jcs canonical JSON, the preset table as printed in the
    /// spec, and the chain order worked out as the spec states it (prepended listeners
    /// newest first, then `rules`, then appended listeners oldest first).
    fn reference_encoding(&self) -> Vec<u8> {
        let rows: Vec<Vec<u8>> = [
            ("read-only", "read-only", "on-request"),
            ("auto", "workspace-write", "on-request"),
            ("full-access", "danger-full-access", "never"),
        ]
        .iter()
        .map(|(key, sandbox, approval)| {
            ref_pae(&[
                key.as_bytes().to_vec(),
                sandbox.as_bytes().to_vec(),
                approval.as_bytes().to_vec(),
                ref_option(None),
            ])
        })
        .collect();
        let mut listeners: Vec<Vec<u8>> = self
            .stages
            .iter()
            .rev()
            .filter(|stage| stage.place == Place::PrependedListener)
            .map(ref_stage)
            .collect();
        listeners.push(ref_stage(&stage(
            Place::Listener,
            "rules",
            Parts::default(),
        )));
        listeners.extend(
            self.stages
                .iter()
                .filter(|stage| stage.place == Place::Listener)
                .map(ref_stage),
        );
        let global_guards: Vec<Vec<u8>> = self
            .stages
            .iter()
            .filter(|stage| stage.place == Place::Guard)
            .map(|stage| stage.name.as_bytes().to_vec())
            .collect();
        let scoped_guards: Vec<Vec<u8>> = self
            .stages
            .iter()
            .filter(|stage| stage.place == Place::ScopedGuard)
            .map(ref_stage)
            .collect();
        let fallback = match self.fallback {
            Fallback::Ask => "ask",
            Fallback::Deny => "deny",
            Fallback::Allow => "allow",
            Fallback::ClaudeCode => "claude-code",
            Fallback::ClaudeCodeAcceptEdits => "claude-code-accept-edits",
        };
        ref_pae(&[
            b"seal/policy/v2".to_vec(),
            canonical(self.rules.unwrap_or(r#"{"permissions": {}}"#)),
            ref_option(self.root),
            ref_option(self.home),
            ref_pae(
                &self
                    .added
                    .iter()
                    .map(|dir| dir.as_bytes().to_vec())
                    .collect::<Vec<_>>(),
            ),
            fallback.as_bytes().to_vec(),
            ref_pae(&rows),
            self.preset.unwrap_or("auto").as_bytes().to_vec(),
            ref_option(self.sandbox.map(SandboxMode::as_str)),
            ref_option(self.approval.map(ApprovalPolicy::as_str)),
            ref_pae(&[b"confining".to_vec(), 1000u64.to_le_bytes().to_vec()]),
            ref_pae(&listeners),
            ref_pae(&global_guards),
            ref_pae(&scoped_guards),
            (self.answerers as u64).to_le_bytes().to_vec(),
        ])
    }
}

fn stage(place: Place, name: &'static str, scope: Parts) -> StageSpec {
    StageSpec { place, name, scope }
}

fn tool(tool: &'static str) -> Parts {
    Parts {
        tool: Some(tool),
        ..Parts::default()
    }
}

impl Parts {
    fn facade(self) -> Scope {
        let mut scope = Scope::everywhere();
        if let Some(session) = self.session {
            scope = scope.session(session);
        }
        if let Some(agent) = self.agent {
            scope = scope.agent(agent);
        }
        if let Some(tool) = self.tool {
            scope = scope.tool(tool);
        }
        scope
    }
}

fn delegate(_: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
    Ok(next.run())
}

fn pass(_: &ToolCall) -> Result<Check, StageError> {
    Ok(Check::Pass)
}

fn canonical(json: &str) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    serde_jcs::to_vec(&value).unwrap()
}

fn ref_pae(pieces: &[Vec<u8>]) -> Vec<u8> {
    let mut out = (pieces.len() as u64).to_le_bytes().to_vec();
    for piece in pieces {
        out.extend_from_slice(&(piece.len() as u64).to_le_bytes());
        out.extend_from_slice(piece);
    }
    out
}

fn ref_option(value: Option<&str>) -> Vec<u8> {
    ref_pae(
        &value
            .map(|v| v.as_bytes().to_vec())
            .into_iter()
            .collect::<Vec<_>>(),
    )
}

fn ref_stage(stage: &StageSpec) -> Vec<u8> {
    let scope = ref_pae(&[
        ref_option(stage.scope.session),
        ref_option(stage.scope.agent),
        ref_option(stage.scope.tool),
    ]);
    ref_pae(&[stage.name.as_bytes().to_vec(), scope])
}

/// The first pair of names whose values are equal, or `None` when all are pairwise distinct.
fn first_collision<T: PartialEq>(
    named: &[(&'static str, T)],
) -> Option<(&'static str, &'static str)> {
    for (i, (a, x)) in named.iter().enumerate() {
        for (b, y) in &named[i + 1..] {
            if x == y {
                return Some((a, b));
            }
        }
    }
    None
}

/// One configuration per covered component changed in turn from [`Config::base`].
fn variants() -> Vec<(&'static str, Config)> {
    let base = Config::base();
    let two = |first: &'static str, second: &'static str| {
        Config::base()
            .with_stage(Place::Listener, first, Parts::default())
            .with_stage(Place::Listener, second, Parts::default())
    };
    vec![
        ("base", base.clone()),
        (
            "rules changed",
            base.clone().with(|c| c.rules = Some(RULES_OTHER)),
        ),
        ("no rules", base.clone().with(|c| c.rules = None)),
        (
            "fallback deny",
            base.clone().with(|c| c.fallback = Fallback::Deny),
        ),
        (
            "fallback allow",
            base.clone().with(|c| c.fallback = Fallback::Allow),
        ),
        (
            "fallback claude-code",
            base.clone().with(|c| c.fallback = Fallback::ClaudeCode),
        ),
        (
            "fallback claude-code-accept-edits",
            base.clone()
                .with(|c| c.fallback = Fallback::ClaudeCodeAcceptEdits),
        ),
        ("home", base.clone().with(|c| c.home = Some("/home/dev"))),
        (
            "other home",
            base.clone().with(|c| c.home = Some("/home/ops")),
        ),
        (
            "added",
            base.clone().with(|c| c.added = vec!["/srv/shared"]),
        ),
        (
            "two added",
            base.clone()
                .with(|c| c.added = vec!["/srv/shared", "/opt/data"]),
        ),
        (
            "preset read-only",
            base.clone().with(|c| c.preset = Some("read-only")),
        ),
        (
            "preset full-access",
            base.clone().with(|c| c.preset = Some("full-access")),
        ),
        (
            "sandbox knob read-only",
            base.clone()
                .with(|c| c.sandbox = Some(SandboxMode::ReadOnly)),
        ),
        (
            "sandbox knob danger-full-access",
            base.clone()
                .with(|c| c.sandbox = Some(SandboxMode::DangerFullAccess)),
        ),
        (
            "approval knob never",
            base.clone()
                .with(|c| c.approval = Some(ApprovalPolicy::Never)),
        ),
        (
            "workspace root /work",
            base.clone().with(|c| c.root = Some("/work")),
        ),
        (
            "workspace root /work/other",
            base.clone().with(|c| c.root = Some("/work/other")),
        ),
        (
            "listener a",
            base.clone()
                .with_stage(Place::Listener, "a", Parts::default()),
        ),
        (
            "listener a renamed a2",
            base.clone()
                .with_stage(Place::Listener, "a2", Parts::default()),
        ),
        (
            "listener a prepended",
            base.clone()
                .with_stage(Place::PrependedListener, "a", Parts::default()),
        ),
        (
            "listener a scoped to Bash",
            base.clone().with_stage(Place::Listener, "a", tool("Bash")),
        ),
        (
            "listener a scoped to Read",
            base.clone().with_stage(Place::Listener, "a", tool("Read")),
        ),
        (
            "listener a scoped to session Bash",
            base.clone().with_stage(
                Place::Listener,
                "a",
                Parts {
                    session: Some("Bash"),
                    ..Parts::default()
                },
            ),
        ),
        ("listeners a, b", two("a", "b")),
        ("listeners b, a", two("b", "a")),
        (
            "guard g",
            base.clone().with_stage(Place::Guard, "g", Parts::default()),
        ),
        (
            "guard g scoped everywhere",
            base.clone()
                .with_stage(Place::ScopedGuard, "g", Parts::default()),
        ),
        (
            "guard g scoped to Bash",
            base.clone()
                .with_stage(Place::ScopedGuard, "g", tool("Bash")),
        ),
        (
            "guards g, h",
            base.clone()
                .with_stage(Place::Guard, "g", Parts::default())
                .with_stage(Place::Guard, "h", Parts::default()),
        ),
        (
            "guards h, g",
            base.clone()
                .with_stage(Place::Guard, "h", Parts::default())
                .with_stage(Place::Guard, "g", Parts::default()),
        ),
        ("one answerer", base.clone().with(|c| c.answerers = 1)),
        ("two answerers", base.clone().with(|c| c.answerers = 2)),
    ]
}

// ---------------------------------------------------------------------------------------------

#[test]
fn two_builds_of_one_policy_give_one_digest() {
    for (name, config) in variants() {
        assert_eq!(config.digest(), config.digest(), "{name}");
    }
    assert_eq!(Config::golden().digest(), Config::golden().digest());
}

#[test]
fn every_covered_component_changes_the_digest() {
    let variants = variants();
    let digests: Vec<(&str, [u8; 32])> = variants
        .iter()
        .map(|(name, config)| (*name, config.digest()))
        .collect();
    assert_eq!(first_collision(&digests), None);
}

#[test]
fn negative_control_the_rules_only_digest_collides() {
    // The checker above, applied to the old digest (the canonical rule bytes alone), finds the
    // collision that made a manifest approved under one policy valid under another.
    let variants = variants();
    let old: Vec<(&str, [u8; 32])> = variants
        .iter()
        .map(|(name, config)| (*name, config.rules_only_digest()))
        .collect();
    assert_eq!(first_collision(&old), Some(("base", "fallback deny")));
    let new: Vec<(&str, [u8; 32])> = variants
        .iter()
        .map(|(name, config)| (*name, config.digest()))
        .collect();
    assert_eq!(first_collision(&new), None);
    // The old digest still told rule changes apart: the control fails for the right reason.
    assert_ne!(old[0].1, old[1].1);
}

#[test]
fn formatting_the_rules_does_not_change_the_digest() {
    let base = Config::base();
    let reformatted = Config::base().with(|c| c.rules = Some(RULES_REFORMATTED));
    assert_eq!(base.digest(), reformatted.digest());
    let spaced_default = Config::base().with(|c| c.rules = Some(" {\"permissions\":{ }}\n"));
    assert_eq!(spaced_default.digest(), Config::defaults().digest());
}

#[test]
fn registrations_giving_one_chain_give_one_digest() {
    // Appending `a` then prepending `b`, or the other way round, builds the chain b, rules, a.
    let appended_first = Config::base()
        .with_stage(Place::Listener, "a", Parts::default())
        .with_stage(Place::PrependedListener, "b", Parts::default());
    let prepended_first = Config::base()
        .with_stage(Place::PrependedListener, "b", Parts::default())
        .with_stage(Place::Listener, "a", Parts::default());
    assert_eq!(appended_first.digest(), prepended_first.digest());
    // Guards and listeners are separate lists: their interleaving is not policy.
    let guard_first = Config::base()
        .with_stage(Place::Guard, "g", Parts::default())
        .with_stage(Place::Listener, "a", Parts::default());
    let listener_first = Config::base()
        .with_stage(Place::Listener, "a", Parts::default())
        .with_stage(Place::Guard, "g", Parts::default());
    assert_eq!(guard_first.digest(), listener_first.digest());
    // Scope parts are a set of criteria: the order they were given in is not policy.
    let tool_then_agent = Seal::builder()
        .listener("a", Scope::everywhere().tool("Bash").agent("x"), delegate)
        .build()
        .unwrap();
    let agent_then_tool = Seal::builder()
        .listener("a", Scope::everywhere().agent("x").tool("Bash"), delegate)
        .build()
        .unwrap();
    assert_eq!(
        tool_then_agent.policy_digest(),
        agent_then_tool.policy_digest()
    );
}

#[test]
fn frame_and_id_settings_are_not_policy() {
    let key = FrameKey::from_secret(&[7; 32]).unwrap();
    let mut store = TrustStore::new(UnixTime(2_000_000_000));
    store
        .add_frame_key("ingress", &key, "msg", UnixTime(0), UnixTime(2_000_000_000))
        .unwrap();
    let plain = Seal::builder().rules_json(RULES).build().unwrap();
    let framed = Seal::builder()
        .rules_json(RULES)
        .trust_store(store)
        .signing_key("ingress", key)
        .frame_element("msg")
        .without_harness_rewrite()
        .verification_off()
        .approval_id_prefix("run-7-approval-")
        .build()
        .unwrap();
    assert_eq!(plain.policy_digest(), framed.policy_digest());
}

#[test]
fn an_executor_that_cannot_sandbox_has_no_digest() {
    // The one escalation setting the builder takes refuses the build, so no seal (and no
    // digest) exists for it; the encoding of the executor is checked by the unit tests of
    // src/policy_digest.rs.
    let error = Seal::builder().executor_cannot_sandbox().build();
    assert!(matches!(
        error,
        Err(seal::BuildError::Policy(seal::PolicyError::Preset { .. }))
    ));
}

#[test]
fn hostile_scope_values_are_encoded_exactly() {
    for value in [
        "a\"b",
        "back\\slash",
        "nl\n",
        "\u{202e}bidi",
        "\u{301}mark",
        "\u{1f600}",
    ] {
        let config = Config::base().with_stage(
            Place::Listener,
            "a",
            Parts {
                session: Some(value),
                agent: Some(value),
                tool: Some(value),
            },
        );
        assert_eq!(
            config.digest(),
            <[u8; 32]>::from(Sha256::digest(config.reference_encoding())),
            "{value:?}"
        );
    }
}

#[test]
fn the_digest_is_the_spec_encoding() {
    assert_eq!(
        PRESETS.len(),
        3,
        "the reference encoder spells out the spec's preset table"
    );
    let mut configs = variants();
    configs.push(("defaults", Config::defaults()));
    configs.push(("golden", Config::golden()));
    for (name, config) in configs {
        let expected: [u8; 32] = Sha256::digest(config.reference_encoding()).into();
        assert_eq!(config.digest(), expected, "{name}");
    }
}

#[test]
fn the_golden_vectors_of_the_spec_hold() {
    let vector = |label: &str| -> String {
        let prefix = format!("policy_digest({label}) = ");
        let line = SPEC
            .lines()
            .find_map(|line| line.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("spec/policy-digest.md has no `{prefix}` line"));
        line.trim().to_owned()
    };
    assert_eq!(
        Config::defaults().seal().policy_digest().to_hex(),
        vector("defaults")
    );
    assert_eq!(
        Config::golden().seal().policy_digest().to_hex(),
        vector("golden")
    );
    let bytes = |label: &str| -> String {
        let start = format!("encoding({label}) =");
        let mut lines = SPEC
            .lines()
            .skip_while(|line| !line.starts_with(start.as_str()));
        lines
            .next()
            .unwrap_or_else(|| panic!("spec/policy-digest.md has no `{start}` block"));
        lines
            .take_while(|line| !line.trim().is_empty() && !line.starts_with("```"))
            .flat_map(|line| line.split('#').next().unwrap_or("").split_whitespace())
            .collect()
    };
    assert_eq!(
        hex::encode(Config::defaults().reference_encoding()),
        bytes("defaults")
    );
}
