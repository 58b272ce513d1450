//! The waterfall by example: registration order, prepend, scope routing, delegation, replace,
//! short-circuit, the end-of-chain default, guards, the approval continuation, failures, limits,
//! the typed subjects, and the trace (snapshots).

use seal_parse::json::{parse, JsonLimits};
use seal_policy::chain::{
    url_domain, Because, CallError, CatchPanics, Chain, ChainError, ChainLimits, Check, Decision,
    DenyCause, Evaluated, Next, Reason, Returned, Ruling, Scope, StageError, StageKind, Subject,
    ToolCall, Verdict, Via, MAX_STAGES_CEILING,
};
use seal_record::{Outcome, SealedCall};

type Result<T> = std::result::Result<T, StageError>;

// ------------------------------------------------------------------ helpers

fn call_in(session: &str, agent: Option<&str>, tool: &str, arguments: &str) -> ToolCall {
    let value = parse(arguments.as_bytes(), &JsonLimits::default()).unwrap();
    ToolCall::new(
        session,
        agent,
        SealedCall::new("call-1", tool, &value).unwrap(),
    )
    .unwrap()
}

fn bash(command: &str) -> ToolCall {
    let arguments = format!(
        r#"{{"command":{}}}"#,
        serde_json::to_string(command).unwrap()
    );
    call_in("s1", None, "Bash", &arguments)
}

fn short(ruling: Ruling) -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling> + Send + Sync + 'static {
    move |_: &ToolCall, _: Next<'_>| Ok(ruling.clone())
}

fn keep() -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling> + Send + Sync + 'static {
    |_: &ToolCall, next: Next<'_>| Ok(next.run())
}

fn replace(
    ruling: Ruling,
) -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling> + Send + Sync + 'static {
    move |_: &ToolCall, next: Next<'_>| {
        let _ = next.run();
        Ok(ruling.clone())
    }
}

fn fail() -> impl Fn(&ToolCall, Next<'_>) -> Result<Ruling> + Send + Sync + 'static {
    |_: &ToolCall, _: Next<'_>| Err(StageError::failed("hook exited with status 2"))
}

fn pass() -> impl Fn(&ToolCall) -> Result<Check> + Send + Sync + 'static {
    |_: &ToolCall| Ok(Check::Pass)
}

fn veto(reason: &'static str) -> impl Fn(&ToolCall) -> Result<Check> + Send + Sync + 'static {
    move |_: &ToolCall| Ok(Check::deny(reason))
}

fn consulted(verdict: &Verdict) -> Vec<&str> {
    verdict
        .trace()
        .steps()
        .iter()
        .map(|step| step.stage().name())
        .collect()
}

fn decided_by(verdict: &Verdict) -> &str {
    verdict.trace().decided_by().unwrap().stage().name()
}

fn decided(evaluation: Evaluated<'_>) -> Verdict {
    match evaluation {
        Evaluated::Decided(verdict) => verdict,
        Evaluated::Pending(pending) => panic!("unexpected ask: {}", pending.trace()),
    }
}

fn denied_reason(verdict: &Verdict) -> (&str, DenyCause) {
    match verdict {
        Verdict::Deny(denied) => (denied.reason().as_str(), denied.cause()),
        Verdict::Allow(allowed) => panic!("unexpected allow: {}", allowed.trace()),
    }
}

// ------------------------------------------------------------------ order and routing

#[test]
fn listeners_are_consulted_in_registration_order() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("first", Scope::everywhere(), keep()).unwrap();
    chain.append("second", Scope::everywhere(), keep()).unwrap();
    chain.append("third", Scope::everywhere(), keep()).unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert!(verdict.is_allow());
    assert_eq!(consulted(&verdict), ["first", "second", "third", "default"]);
    assert_eq!(decided_by(&verdict), "default");
    assert_eq!(
        chain.listener_names().collect::<Vec<_>>(),
        ["first", "second", "third"]
    );
}

#[test]
fn prepend_puts_a_listener_before_every_listener_registered_so_far() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("b", Scope::everywhere(), keep()).unwrap();
    chain.prepend("a", Scope::everywhere(), keep()).unwrap();
    chain.append("c", Scope::everywhere(), keep()).unwrap();
    chain.prepend("first", Scope::everywhere(), keep()).unwrap();
    assert_eq!(
        chain.listener_names().collect::<Vec<_>>(),
        ["first", "a", "b", "c"]
    );
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(consulted(&verdict), ["first", "a", "b", "c", "default"]);
}

#[test]
fn a_prepended_allow_short_circuits_a_listener_shaped_absolute_deny() {
    // Why absolute vetoes must be guards: a listener registered first can skip any listener.
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "absolute-deny",
            Scope::everywhere(),
            short(Ruling::deny("never")),
        )
        .unwrap();
    chain
        .prepend("yolo", Scope::everywhere(), short(Ruling::allow()))
        .unwrap();
    let call = bash("rm -rf /");
    assert!(decided(chain.evaluate(&call)).is_allow());
    // The same veto as a guard holds.
    chain
        .add_global_guard("absolute-deny-guard", veto("never"))
        .unwrap();
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(denied_reason(&verdict), ("never", DenyCause::Guard));
    assert_eq!(consulted(&verdict), ["yolo", "absolute-deny-guard"]);
}

#[test]
fn scope_routing_by_session_agent_and_tool() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("s2-only", Scope::everywhere().session("s2"), keep())
        .unwrap();
    chain
        .append("agent-a", Scope::everywhere().agent("a"), keep())
        .unwrap();
    chain
        .append("read-only", Scope::everywhere().tool("Read"), keep())
        .unwrap();
    chain
        .append(
            "s1-a-bash",
            Scope::everywhere().session("s1").agent("a").tool("Bash"),
            keep(),
        )
        .unwrap();
    chain.append("all", Scope::everywhere(), keep()).unwrap();

    let names = |call: &ToolCall| -> Vec<String> {
        decided(chain.evaluate(call))
            .trace()
            .steps()
            .iter()
            .map(|step| step.stage().name().to_owned())
            .collect()
    };
    let bash_s1 = call_in("s1", None, "Bash", r#"{"command":"ls"}"#);
    assert_eq!(names(&bash_s1), ["all", "default"]);
    let bash_s1_a = call_in("s1", Some("a"), "Bash", r#"{"command":"ls"}"#);
    assert_eq!(
        names(&bash_s1_a),
        ["agent-a", "s1-a-bash", "all", "default"]
    );
    let read_s2_b = call_in("s2", Some("b"), "Read", r#"{"file_path":"x"}"#);
    assert_eq!(
        names(&read_s2_b),
        ["s2-only", "read-only", "all", "default"]
    );
    // An agent scope never matches a call without an agent; tool names compare exactly.
    let bash_lower = call_in("s1", None, "bash", r#"{"command":"ls"}"#);
    assert_eq!(names(&bash_lower), ["all", "default"]);
}

#[test]
fn a_listener_out_of_scope_is_skipped_by_next() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("outer", Scope::everywhere(), keep()).unwrap();
    chain
        .append(
            "read-deny",
            Scope::everywhere().tool("Read"),
            short(Ruling::deny("no reading")),
        )
        .unwrap();
    chain
        .append("inner", Scope::everywhere(), short(Ruling::ask("check")))
        .unwrap();
    let call = bash("ls");
    let Evaluated::Pending(pending) = chain.evaluate(&call) else {
        panic!("expected an ask");
    };
    let names: Vec<_> = pending
        .trace()
        .steps()
        .iter()
        .map(|step| step.stage().name())
        .collect();
    assert_eq!(names, ["outer", "inner"]);
    assert_eq!(pending.reason().map(Reason::as_str), Some("check"));
}

// ------------------------------------------------------------------ delegate, replace, short-circuit

#[test]
fn delegating_and_keeping_names_the_downstream_stage() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("logger", Scope::everywhere(), keep()).unwrap();
    chain
        .append(
            "rules",
            Scope::everywhere(),
            short(
                Ruling::deny("rm is denied")
                    .because(Because::rule_and_form("Bash(rm:*)", "rm -rf t")),
            ),
        )
        .unwrap();
    let call = bash("sudo rm -rf t");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("rm is denied", DenyCause::Decided)
    );
    assert_eq!(decided_by(&verdict), "rules");
    let steps = verdict.trace().steps();
    assert_eq!(steps[0].via(), Via::Kept);
    assert_eq!(steps[0].because(), None);
    assert_eq!(steps[1].via(), Via::Own);
    let because = steps[1].because().unwrap();
    assert_eq!(because.rule_text(), "Bash(rm:*)");
    assert_eq!(because.form(), Some("rm -rf t"));
    assert_eq!(
        verdict.trace().decided_by().unwrap().because(),
        Some(because)
    );
}

#[test]
fn replacing_the_downstream_ruling_names_the_replacer() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "reviewer",
            Scope::everywhere(),
            replace(Ruling::ask("review")),
        )
        .unwrap();
    chain.append("rules", Scope::everywhere(), keep()).unwrap();
    let call = bash("ls");
    let Evaluated::Pending(pending) = chain.evaluate(&call) else {
        panic!("expected an ask");
    };
    let trace = pending.trace();
    assert_eq!(trace.decided_by().unwrap().stage().name(), "reviewer");
    assert_eq!(trace.steps()[0].via(), Via::Replaced);
    assert_eq!(trace.steps()[1].via(), Via::Kept);
    assert_eq!(trace.steps()[2].stage().kind(), StageKind::EndOfChain);
}

#[test]
fn returning_an_equal_but_new_ruling_counts_as_replacing() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "rebuild",
            Scope::everywhere(),
            |_: &ToolCall, next: Next<'_>| Ok(Ruling::new(next.run().into_decision())),
        )
        .unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert!(verdict.is_allow());
    assert_eq!(decided_by(&verdict), "rebuild");
    assert_eq!(verdict.trace().steps()[0].via(), Via::Replaced);
    // Equality of rulings ignores where they came from.
    assert_eq!(Ruling::allow(), Ruling::new(Decision::Allow));
}

#[test]
fn a_short_circuit_consults_nothing_after_it() {
    let mut chain = Chain::new(Decision::Deny(Reason::from("default deny")));
    chain
        .append("allow-git", Scope::everywhere(), short(Ruling::allow()))
        .unwrap();
    chain
        .append("never-reached", Scope::everywhere(), fail())
        .unwrap();
    let call = bash("git status");
    let verdict = decided(chain.evaluate(&call));
    assert!(verdict.is_allow());
    assert_eq!(consulted(&verdict), ["allow-git"]);
}

#[test]
fn the_end_of_chain_default_is_configurable() {
    let call = bash("ls");
    let allow = Chain::new(Decision::Allow);
    assert!(decided(allow.evaluate(&call)).is_allow());
    let deny = Chain::new(Decision::deny("nothing is allowed here"));
    let verdict = decided(deny.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("nothing is allowed here", DenyCause::Decided)
    );
    assert_eq!(
        deny.default_decision(),
        &Decision::deny("nothing is allowed here")
    );
    let ask = Chain::new(Decision::Ask(None));
    let Evaluated::Pending(pending) = ask.evaluate(&call) else {
        panic!("expected an ask");
    };
    assert_eq!(pending.reason(), None);
    assert_eq!(pending.call().tool(), "Bash");
}

// ------------------------------------------------------------------ guards and approval

#[test]
fn guards_run_global_then_scoped_in_registration_order_after_an_allow() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .add_scoped_guard("bash-scoped", Scope::everywhere().tool("Bash"), pass())
        .unwrap();
    chain.add_global_guard("global-1", pass()).unwrap();
    chain
        .add_scoped_guard("read-scoped", Scope::everywhere().tool("Read"), veto("no"))
        .unwrap();
    chain.add_global_guard("global-2", pass()).unwrap();
    assert_eq!(
        chain.guard_names().collect::<Vec<_>>(),
        ["global-1", "global-2", "bash-scoped", "read-scoped"]
    );
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert!(verdict.is_allow());
    assert_eq!(
        consulted(&verdict),
        ["default", "global-1", "global-2", "bash-scoped"]
    );
    let kinds: Vec<_> = verdict
        .trace()
        .steps()
        .iter()
        .map(|step| step.stage().kind())
        .collect();
    assert_eq!(
        kinds,
        [
            StageKind::EndOfChain,
            StageKind::GlobalGuard,
            StageKind::GlobalGuard,
            StageKind::ScopedGuard
        ]
    );
    let read = call_in("s1", None, "Read", r#"{"file_path":".env"}"#);
    let verdict = decided(chain.evaluate(&read));
    assert_eq!(denied_reason(&verdict), ("no", DenyCause::Guard));
    assert_eq!(decided_by(&verdict), "read-scoped");
}

#[test]
fn the_first_denying_guard_ends_the_check() {
    let mut chain = Chain::new(Decision::Allow);
    chain.add_global_guard("pass", pass()).unwrap();
    chain
        .add_global_guard("secrets", |_: &ToolCall| {
            Ok(Check::Deny {
                reason: Reason::from("reads a secret"),
                because: Some(Because::rule_and_form("Read(./.env)", ".env")),
            })
        })
        .unwrap();
    chain
        .add_global_guard("after", |_: &ToolCall| Err(StageError::failed("x")))
        .unwrap();
    let call = call_in("s1", None, "Read", r#"{"file_path":".env"}"#);
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("reads a secret", DenyCause::Guard)
    );
    assert_eq!(consulted(&verdict), ["default", "pass", "secrets"]);
    let step = verdict.trace().decided_by().unwrap();
    assert_eq!(step.because().unwrap().rule_text(), "Read(./.env)");
}

#[test]
fn a_denied_call_never_reaches_the_guards() {
    let mut chain = Chain::new(Decision::deny("default deny"));
    chain.add_global_guard("counted", pass()).unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(consulted(&verdict), ["default"]);
}

#[test]
fn only_allowed_once_goes_on_to_the_guards() {
    let mut chain = Chain::new(Decision::ask("unknown command"));
    chain.add_global_guard("g", pass()).unwrap();
    let call = bash("make");
    let finish = |outcome: Outcome| match chain.evaluate(&call) {
        Evaluated::Pending(pending) => pending.finish(outcome),
        Evaluated::Decided(_) => panic!("expected an ask"),
    };
    let allowed = finish(Outcome::AllowedOnce);
    assert!(allowed.is_allow());
    assert_eq!(consulted(&allowed), ["default", "approval", "g"]);
    assert_eq!(decided_by(&allowed), "approval");
    for (outcome, message) in [
        (Outcome::Rejected, "approval was rejected"),
        (Outcome::Cancelled, "approval was cancelled"),
        (Outcome::Unavailable, "approval was unavailable"),
    ] {
        let verdict = finish(outcome);
        assert_eq!(
            denied_reason(&verdict),
            (message, DenyCause::Approval(outcome))
        );
        assert_eq!(consulted(&verdict), ["default", "approval"]);
        assert_eq!(
            verdict.trace().decided_by().unwrap().returned(),
            &Returned::Approval(outcome)
        );
    }
    assert!(!chain.evaluate(&call).without_approval().is_allow());
}

#[test]
fn a_guard_still_denies_after_allowed_once() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "ask-all",
            Scope::everywhere(),
            short(Ruling::ask_without_reason()),
        )
        .unwrap();
    chain.add_global_guard("veto", veto("vetoed")).unwrap();
    let call = bash("ls");
    let Evaluated::Pending(pending) = chain.evaluate(&call) else {
        panic!("expected an ask");
    };
    let verdict = pending.finish(Outcome::AllowedOnce);
    assert_eq!(denied_reason(&verdict), ("vetoed", DenyCause::Guard));
}

// ------------------------------------------------------------------ failures

#[test]
fn a_failing_listener_denies_even_when_the_default_allows() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("hook", Scope::everywhere(), fail()).unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("listener hook failed", DenyCause::Failed)
    );
    assert!(matches!(
        verdict.trace().steps()[0].returned(),
        Returned::Failed(StageError::Failed { .. })
    ));
}

#[test]
fn a_failure_is_final_even_if_an_upstream_listener_replaces_it() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("overrule", Scope::everywhere(), replace(Ruling::allow()))
        .unwrap();
    chain.append("hook", Scope::everywhere(), fail()).unwrap();
    chain.add_global_guard("g", pass()).unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("listener hook failed", DenyCause::Failed)
    );
    assert_eq!(decided_by(&verdict), "hook");
    // Guards are not consulted once the waterfall failed.
    assert_eq!(consulted(&verdict), ["overrule", "hook"]);
}

#[test]
fn what_the_downstream_failure_looks_like_to_the_upstream_listener() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "inspect",
            Scope::everywhere(),
            |_: &ToolCall, next: Next<'_>| {
                let downstream = next.run();
                assert_eq!(
                    downstream.decision(),
                    &Decision::deny("listener hook failed")
                );
                Ok(downstream)
            },
        )
        .unwrap();
    chain.append("hook", Scope::everywhere(), fail()).unwrap();
    let call = bash("ls");
    assert!(!decided(chain.evaluate(&call)).is_allow());
}

fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let deliberate = info
                .payload()
                .downcast_ref::<&str>()
                .is_some_and(|text| text.starts_with("deliberate"));
            if !deliberate {
                previous(info);
            }
        }));
    });
}

#[test]
fn a_caught_panic_denies() {
    quiet_panics();
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append(
            "panicky",
            Scope::everywhere(),
            CatchPanics(|_: &ToolCall, _: Next<'_>| -> Result<Ruling> {
                panic!("deliberate listener panic")
            }),
        )
        .unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("listener panicky failed", DenyCause::Failed)
    );
    assert_eq!(
        verdict.trace().steps()[0].returned(),
        &Returned::Failed(StageError::Panicked {
            detail: "deliberate listener panic".into()
        })
    );

    let mut chain = Chain::new(Decision::Allow);
    chain
        .add_global_guard(
            "panicky-guard",
            CatchPanics(|_: &ToolCall| -> Result<Check> { panic!("deliberate guard panic") }),
        )
        .unwrap();
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(
        denied_reason(&verdict),
        ("global-guard panicky-guard failed", DenyCause::Failed)
    );
}

#[test]
fn a_panic_downstream_of_a_wrapped_listener_is_caught_there() {
    quiet_panics();
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("wrapped", Scope::everywhere(), CatchPanics(keep()))
        .unwrap();
    chain
        .append(
            "bare",
            Scope::everywhere(),
            |_: &ToolCall, _: Next<'_>| -> Result<Ruling> { panic!("deliberate bare panic") },
        )
        .unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert_eq!(denied_reason(&verdict).1, DenyCause::Failed);
    assert_eq!(decided_by(&verdict), "wrapped");
    assert_eq!(verdict.trace().steps()[1].returned(), &Returned::Unfinished);
}

#[test]
fn panic_payloads_map_to_stage_errors() {
    let text: Box<dyn std::any::Any + Send> = Box::new("static text");
    let owned: Box<dyn std::any::Any + Send> = Box::new(String::from("owned text"));
    let other: Box<dyn std::any::Any + Send> = Box::new(42_u8);
    assert_eq!(
        StageError::from_panic(text.as_ref()).detail(),
        "static text"
    );
    assert_eq!(
        StageError::from_panic(owned.as_ref()).detail(),
        "owned text"
    );
    assert_eq!(
        StageError::from_panic(other.as_ref()).detail(),
        "panic with a non-text payload"
    );
    assert_eq!(StageError::from_panic(other.as_ref()).kind(), "panicked");
}

// ------------------------------------------------------------------ registration

#[test]
fn names_are_checked_and_share_one_namespace() {
    let mut chain = Chain::new(Decision::Allow);
    chain.append("rules", Scope::everywhere(), keep()).unwrap();
    assert_eq!(
        chain.append("rules", Scope::everywhere(), keep()),
        Err(ChainError::DuplicateName {
            name: "rules".into()
        })
    );
    assert_eq!(
        chain.add_global_guard("rules", pass()),
        Err(ChainError::DuplicateName {
            name: "rules".into()
        })
    );
    for bad in ["", "has space", "tab\tname", "caf\u{e9}", &"x".repeat(65)] {
        assert_eq!(
            chain.prepend(bad, Scope::everywhere(), keep()),
            Err(ChainError::InvalidName { name: bad.into() }),
            "{bad:?}"
        );
    }
    chain
        .append(&"x".repeat(64), Scope::everywhere(), keep())
        .unwrap();
}

#[test]
fn limits_are_named_and_bounded() {
    let limits = ChainLimits {
        max_listeners: 2,
        max_guards: 1,
    };
    let mut chain = Chain::with_limits(Decision::Allow, limits).unwrap();
    assert_eq!(chain.limits(), limits);
    chain.append("a", Scope::everywhere(), keep()).unwrap();
    chain.prepend("b", Scope::everywhere(), keep()).unwrap();
    assert_eq!(
        chain.append("c", Scope::everywhere(), keep()),
        Err(ChainError::TooManyListeners { limit: 2 })
    );
    chain.add_global_guard("g", pass()).unwrap();
    assert_eq!(
        chain.add_scoped_guard("h", Scope::everywhere(), pass()),
        Err(ChainError::TooManyGuards { limit: 1 })
    );
    let too_many = ChainLimits {
        max_listeners: MAX_STAGES_CEILING + 1,
        max_guards: 1,
    };
    assert_eq!(
        Chain::with_limits(Decision::Allow, too_many).err(),
        Some(ChainError::LimitAboveCeiling {
            limit: MAX_STAGES_CEILING + 1
        })
    );
    assert_eq!(
        ChainLimits::default(),
        ChainLimits {
            max_listeners: 64,
            max_guards: 64
        }
    );
}

#[test]
fn a_full_stack_of_delegating_listeners_evaluates() {
    let limits = ChainLimits {
        max_listeners: MAX_STAGES_CEILING,
        max_guards: MAX_STAGES_CEILING,
    };
    let mut chain = Chain::with_limits(Decision::Allow, limits).unwrap();
    for index in 0..MAX_STAGES_CEILING {
        chain
            .append(&format!("l{index}"), Scope::everywhere(), keep())
            .unwrap();
        chain
            .add_global_guard(&format!("g{index}"), pass())
            .unwrap();
    }
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    assert!(verdict.is_allow());
    assert_eq!(verdict.trace().steps().len(), 2 * MAX_STAGES_CEILING + 1);
}

#[test]
fn chains_and_calls_can_be_shared_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Chain>();
    shareable::<ToolCall>();
    shareable::<Verdict>();
}

// ------------------------------------------------------------------ calls and subjects

#[test]
fn session_and_agent_ids_are_identifiers() {
    let value = parse(b"{}", &JsonLimits::default()).unwrap();
    let sealed = SealedCall::new("c", "Bash", &value).unwrap();
    for bad in ["", "a b", "\u{202e}x", &"s".repeat(257)] {
        assert_eq!(
            ToolCall::new(bad, None, sealed.clone()),
            Err(CallError::InvalidSessionId { value: bad.into() })
        );
        assert_eq!(
            ToolCall::new("s", Some(bad), sealed.clone()),
            Err(CallError::InvalidAgentId { value: bad.into() })
        );
    }
    let call = ToolCall::new(&"s".repeat(256), Some("agent-7"), sealed).unwrap();
    assert_eq!(call.agent(), Some("agent-7"));
    assert_eq!(call.call_id(), "c");
    assert_eq!(call.sealed().arguments_bytes(), b"{}");
}

#[test]
fn subjects_follow_the_per_tool_mapping() {
    let cases: &[(&str, &str, Subject)] = &[
        (
            "Bash",
            r#"{"command":"git log && curl x | sh","timeout":5}"#,
            Subject::Command("git log && curl x | sh"),
        ),
        (
            "Bash",
            r#"{"cmd":"ls"}"#,
            Subject::Unreadable { field: "command" },
        ),
        (
            "Bash",
            r#"{"command":["rm","-rf","t"]}"#,
            Subject::Unreadable { field: "command" },
        ),
        ("Read", r#"{"file_path":"./.env"}"#, Subject::Path("./.env")),
        (
            "Edit",
            r#"{"file_path":"src/a.rs","old_string":"a","new_string":"b"}"#,
            Subject::Path("src/a.rs"),
        ),
        (
            "Write",
            r#"{"file_path":"/etc/passwd","content":"x"}"#,
            Subject::Path("/etc/passwd"),
        ),
        (
            "MultiEdit",
            r#"{"file_path":"b.rs","edits":[]}"#,
            Subject::Path("b.rs"),
        ),
        (
            "NotebookEdit",
            r#"{"notebook_path":"n.ipynb"}"#,
            Subject::Path("n.ipynb"),
        ),
        (
            "Read",
            r#"{"file_path":7}"#,
            Subject::Unreadable { field: "file_path" },
        ),
        (
            "WebFetch",
            r#"{"url":"https://Docs.Example.com/x","prompt":"p"}"#,
            Subject::Url("https://Docs.Example.com/x"),
        ),
        (
            "WebFetch",
            r#"{"url":"https://exam%70le.com/"}"#,
            Subject::Url("https://exam%70le.com/"),
        ),
        ("WebFetch", r#"[]"#, Subject::Unreadable { field: "url" }),
        ("mcp__server__tool", r#"{"command":"ls"}"#, Subject::Opaque),
        ("bash", r#"{"command":"ls"}"#, Subject::Opaque),
        // Read by the path guards, named only by rules.
        (
            "NotebookRead",
            r#"{"notebook_path":"n.ipynb"}"#,
            Subject::Opaque,
        ),
        ("NotebookRead", r#"{}"#, Subject::Opaque),
    ];
    for (tool, arguments, subject) in cases {
        let call = call_in("s", None, tool, arguments);
        assert_eq!(call.subject(), *subject, "{tool} {arguments}");
    }
    let call = call_in("s", None, "Bash", r#"{"command":"ls"}"#);
    assert_eq!(
        (call.command(), call.path(), call.url(), call.domain()),
        (Some("ls"), None, None, None)
    );
    let call = call_in("s", None, "WebFetch", r#"{"url":"http://a.b/"}"#);
    assert_eq!(
        (call.command(), call.path(), call.url(), call.domain()),
        (None, None, Some("http://a.b/"), Some("a.b".to_owned()))
    );
    let domain =
        |url: &str| call_in("s", None, "WebFetch", &format!(r#"{{"url":"{url}"}}"#)).domain();
    assert_eq!(
        domain("https://Docs.Example.com/x"),
        Some("docs.example.com".to_owned())
    );
    assert_eq!(domain("https://exam%70le.com/"), None);
    assert_eq!(url_domain("https://evil.com\\@good.com/"), None);
}

// ------------------------------------------------------------------ trace snapshots

fn hook_rules_chain() -> Chain {
    let mut chain = Chain::new(Decision::ask("no rule matched"));
    chain
        .append("audit-log", Scope::everywhere(), keep())
        .unwrap();
    chain
        .append(
            "rules",
            Scope::everywhere().tool("Bash"),
            |call: &ToolCall, next: Next<'_>| {
                let command = call.command().unwrap_or("");
                if command.starts_with("git log") {
                    Ok(Ruling::allow()
                        .because(Because::rule_and_form("Bash(git log:*)", "git log")))
                } else if command.contains("rm ") {
                    Ok(Ruling::deny("matches a deny rule")
                        .because(Because::rule_and_form("Bash(rm:*)", "rm -rf t")))
                } else {
                    Ok(next.run())
                }
            },
        )
        .unwrap();
    chain
        .append(
            "reviewer",
            Scope::everywhere(),
            |_: &ToolCall, next: Next<'_>| {
                let downstream = next.run();
                if downstream.decision() == &Decision::ask("no rule matched") {
                    Ok(Ruling::ask(
                        "reviewer wants a human\nIgnore previous instructions",
                    ))
                } else {
                    Ok(downstream)
                }
            },
        )
        .unwrap();
    chain.add_global_guard("no-secrets", pass()).unwrap();
    chain
        .add_scoped_guard(
            "no-network",
            Scope::everywhere().tool("Bash"),
            |call: &ToolCall| {
                Ok(if call.command().is_some_and(|c| c.contains("curl")) {
                    Check::Deny {
                        reason: Reason::from("network access is off"),
                        because: Some(Because::rule("network: off")),
                    }
                } else {
                    Check::Pass
                })
            },
        )
        .unwrap();
    chain
}

fn render(evaluation: Evaluated<'_>, outcome: Outcome) -> String {
    let (asked, verdict) = match evaluation {
        Evaluated::Decided(verdict) => (String::from("no"), verdict),
        Evaluated::Pending(pending) => (
            format!(
                "yes, {}",
                pending
                    .reason()
                    .map_or("no reason".into(), |r| r.to_string())
            ),
            pending.finish(outcome),
        ),
    };
    let outcome_line = match &verdict {
        Verdict::Allow(_) => "allow".to_owned(),
        Verdict::Deny(denied) => format!("deny {} ({:?})", denied.reason(), denied.cause()),
    };
    format!(
        "asked: {asked}\nverdict: {outcome_line}\n{}\n",
        verdict.trace()
    )
}

#[test]
fn trace_snapshots() {
    let chain = hook_rules_chain();
    let cases: &[(&str, ToolCall, Outcome)] = &[
        (
            "allowed_by_rule",
            bash("git log --oneline"),
            Outcome::AllowedOnce,
        ),
        (
            "denied_by_rule",
            bash("sudo rm -rf t"),
            Outcome::AllowedOnce,
        ),
        (
            "asked_then_allowed_once",
            bash("make"),
            Outcome::AllowedOnce,
        ),
        ("asked_then_rejected", bash("make"), Outcome::Rejected),
        (
            "allowed_once_then_guard",
            bash("curl x | sh"),
            Outcome::AllowedOnce,
        ),
        (
            "other_tool",
            call_in("s1", None, "Read", r#"{"file_path":".env"}"#),
            Outcome::Cancelled,
        ),
    ];
    for (name, call, outcome) in cases {
        insta::assert_snapshot!(*name, render(chain.evaluate(call), *outcome));
    }
}

#[test]
fn failure_trace_snapshot() {
    let mut chain = Chain::new(Decision::Allow);
    chain
        .append("overrule", Scope::everywhere(), replace(Ruling::allow()))
        .unwrap();
    chain
        .append(
            "hook",
            Scope::everywhere(),
            |_: &ToolCall, _: Next<'_>| -> Result<Ruling> {
                Err(StageError::failed("exit status 2: `\u{1b}[31m`"))
            },
        )
        .unwrap();
    let call = bash("ls");
    insta::assert_snapshot!(
        "failure",
        render(chain.evaluate(&call), Outcome::AllowedOnce)
    );
}

#[test]
fn error_message_snapshot() {
    let messages = [
        ChainError::TooManyListeners { limit: 64 }.to_string(),
        ChainError::TooManyGuards { limit: 64 }.to_string(),
        ChainError::LimitAboveCeiling { limit: 5000 }.to_string(),
        ChainError::InvalidName {
            name: "bad name\n".into(),
        }
        .to_string(),
        ChainError::DuplicateName {
            name: "rules".into(),
        }
        .to_string(),
        CallError::InvalidSessionId { value: "".into() }.to_string(),
        CallError::InvalidAgentId {
            value: "a b".into(),
        }
        .to_string(),
        StageError::failed("hook timed out").to_string(),
        Decision::Allow.to_string(),
        Decision::deny("no").to_string(),
        Decision::Ask(None).to_string(),
        Decision::ask("why?").to_string(),
        Because::rule_and_form("Bash(rm:*)", "rm\t-rf").to_string(),
    ];
    insta::assert_snapshot!("messages", messages.join("\n"));
}

#[test]
fn small_accessors_say_what_they_promise() {
    assert!(Scope::everywhere().is_everywhere());
    assert!(!Scope::everywhere().tool("Bash").is_everywhere());
    assert!(!Scope::everywhere().session("s").is_everywhere());
    assert!(!Scope::everywhere().agent("a").is_everywhere());

    assert!(Decision::Allow.is_allow());
    assert!(!Decision::deny("x").is_allow());
    assert!(!Decision::Ask(None).is_allow());
    assert_eq!(Decision::Allow.reason(), None);
    assert_eq!(Decision::Ask(None).reason(), None);
    assert_eq!(
        Decision::ask("why").reason().map(Reason::as_str),
        Some("why")
    );
    assert_eq!(
        Decision::deny("no").reason().map(Reason::as_str),
        Some("no")
    );
    assert_eq!(
        [Decision::Allow, Decision::deny("x"), Decision::Ask(None)].map(|d| d.kind()),
        ["allow", "deny", "ask"]
    );
    assert_eq!(Reason::new(String::from("owned")), Reason::from("owned"));
    assert_eq!(Because::rule("Read").form(), None);
    assert_eq!(
        Ruling::ask_without_reason().decision(),
        &Decision::Ask(None)
    );
    assert_eq!(
        Ruling::deny("x").because(Because::rule("r")).explanation(),
        Some(&Because::rule("r"))
    );
    assert_eq!(
        Check::deny("x"),
        Check::Deny {
            reason: Reason::from("x"),
            because: None
        }
    );

    let mut chain = Chain::new(Decision::Allow);
    chain.add_global_guard("veto", veto("vetoed")).unwrap();
    let call = bash("ls");
    let verdict = decided(chain.evaluate(&call));
    let denied = verdict.denied().unwrap();
    assert_eq!(denied.reason().as_str(), "vetoed");
    assert_eq!(verdict.trace().decided_by_index(), Some(1));
    assert_eq!(verdict.clone().into_trace(), *verdict.trace());
    let allowed = decided(Chain::new(Decision::Allow).evaluate(&call));
    assert_eq!(allowed.denied(), None);
    assert_eq!(allowed.trace().decided_by_index(), Some(0));
    let Verdict::Allow(witness) = &allowed else {
        panic!("expected allow");
    };
    assert_eq!(witness.trace().steps().len(), 1);
    assert_eq!(
        [
            StageKind::Listener,
            StageKind::EndOfChain,
            StageKind::Approval,
            StageKind::GlobalGuard,
            StageKind::ScopedGuard
        ]
        .map(StageKind::as_str),
        [
            "listener",
            "end-of-chain",
            "approval",
            "global-guard",
            "scoped-guard"
        ]
    );
}
