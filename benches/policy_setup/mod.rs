//! The decision measured by `benches/policy.rs` and counted by `tests/policy_alloc.rs`: one
//! three-segment `Bash` command against 20 rules, with 3 listeners and 3 guards.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use seal_policy::chain::{Chain, Check, Decision, Next, Ruling, Scope, StageError, ToolCall};
use seal_policy::rules::{RuleLimits, RuleSet, RulesListener};
pub use seal_test_support::tool_call::bash_call;

/// The command: three segments (`git status`, `npm test -- --watch=false`, `tee out.txt`),
/// 52 bytes.
pub const COMMAND: &str = "git status && npm test -- --watch=false | tee out.txt";

/// The 20 rules: 10 allow, 4 ask, 6 deny.
pub const RULES_JSON: &str = r#"{"permissions": {
  "allow": ["Bash(git status)", "Bash(git log:*)", "Bash(git diff:*)", "Bash(npm test:*)",
            "Bash(npm run lint:*)", "Bash(tee:*)", "Bash(ls:*)", "Bash(cat:*)",
            "Bash(grep:*)", "Bash(cargo test:*)"],
  "ask": ["Bash(git push:*)", "Bash(npm publish:*)", "Bash(docker:*)", "Bash(ssh:*)"],
  "deny": ["Bash(rm:*)", "Bash(git clean:*)", "Bash(curl:*)", "Bash(wget:*)",
           "Bash(chmod:*)", "Bash(dd:*)"]
}}"#;

/// A 200-byte command for segmentation alone.
pub const COMMAND_200: &str = "cd web && npm ci --no-audit && npm run build -- --mode=production | tee build.log; git status --short && git diff --stat HEAD~10 || sudo -u ci env CI=1 timeout 600 cargo test --workspace --all-targets";

/// The chain, the call and the logger's counter.
pub struct Setup {
    /// 3 listeners (scope-routed, logger, rules), 3 guards (two global, one scoped).
    pub chain: Chain,
    /// The `Bash` call of [`COMMAND`].
    pub call: ToolCall,
    /// How many calls the logger listener saw.
    pub logged: Arc<AtomicU64>,
}

impl Setup {
    /// Loads the rules and builds the chain and the call.
    pub fn new() -> Setup {
        let logged = Arc::new(AtomicU64::new(0));
        let mut chain = Chain::new(Decision::ask("no rule decided"));
        add_listeners(&mut chain, &logged);
        chain
            .append("rules", Scope::everywhere(), RulesListener::new(rules()))
            .unwrap();
        add_guards(&mut chain);
        Setup {
            chain,
            call: bash_call(COMMAND),
            logged,
        }
    }

    /// The same chain without the rules listener (end-of-chain default: allow).
    pub fn chain_without_rules(&self) -> Chain {
        let mut chain = Chain::new(Decision::Allow);
        add_listeners(&mut chain, &self.logged);
        add_guards(&mut chain);
        chain
    }
}

/// The 20 rules, loaded.
pub fn rules() -> RuleSet {
    RuleSet::from_json(RULES_JSON.as_bytes(), &RuleLimits::default()).unwrap()
}

fn add_listeners(chain: &mut Chain, logged: &Arc<AtomicU64>) {
    // Scope-routed: only `Bash` calls of session `s1`; refuses an empty command, else delegates.
    chain
        .append(
            "bash-in-s1",
            Scope::everywhere().session("s1").tool("Bash"),
            |call: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
                match call.command() {
                    Some(command) if command.trim().is_empty() => Ok(Ruling::deny("empty command")),
                    Some(_) => Ok(next.run()),
                    None => Ok(Ruling::deny("no command")),
                }
            },
        )
        .unwrap();
    // Logger-style: counts the call and keeps whatever the rest of the chain decides.
    let counter = Arc::clone(logged);
    chain
        .append(
            "logger",
            Scope::everywhere(),
            move |_: &ToolCall, next: Next<'_>| -> Result<Ruling, StageError> {
                counter.fetch_add(1, Ordering::Relaxed);
                Ok(next.run())
            },
        )
        .unwrap();
}

fn add_guards(chain: &mut Chain) {
    chain
        .add_global_guard(
            "no-dotenv",
            |call: &ToolCall| -> Result<Check, StageError> {
                Ok(match call.command() {
                    Some(command) if command.contains(".env") => Check::deny("touches .env"),
                    _ => Check::Pass,
                })
            },
        )
        .unwrap();
    chain
        .add_global_guard("length", |call: &ToolCall| -> Result<Check, StageError> {
            Ok(match call.command() {
                Some(command) if command.len() > 4096 => Check::deny("command too long"),
                _ => Check::Pass,
            })
        })
        .unwrap();
    chain
        .add_scoped_guard(
            "no-force-push",
            Scope::everywhere().tool("Bash"),
            |call: &ToolCall| -> Result<Check, StageError> {
                Ok(match call.command() {
                    Some(command) if command.contains("--force") => Check::deny("force push"),
                    _ => Check::Pass,
                })
            },
        )
        .unwrap();
}
