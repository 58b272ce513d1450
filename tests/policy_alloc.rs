#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Heap allocations on the decision path, counted by `dhat`'s global allocator.
//!
//! The setup is the one `benches/policy.rs` times: a three-segment `Bash` command under 256
//! bytes, 20 rules, 3 listeners (scope-routed, delegating logger-style, rules) and 3 guards
//! (global and scoped, deny-only). Rules are loaded and the call is built before counting; one
//! decision runs first as warm-up so that the reused trace has its capacity. The counted
//! decision hands the previous verdict's trace back through `Chain::evaluate_reusing`.
//!
//! `dhat::HeapStats` counts every call into the global allocator (`total_blocks`), so any
//! `Box`, `Vec`, `String` or `Arc` made while deciding shows up, wherever it comes from. Run
//! `cargo test --test policy_alloc -- --nocapture` to see the counts printed.
//!
//! dhat's testing profiler is process-global, so this binary holds a single test.

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[path = "../benches/policy_setup/mod.rs"]
mod policy_setup;

use seal_parse::shell::{segment, ShellLimits};
use seal_policy::chain::{Evaluation, Trace, Verdict};
use seal_policy::rules::{Effect, Subject};

/// Allocations the full decision may still make: the chain itself makes none; the rules
/// listener still allocates in `seal_parse::shell::segment` (owned words, per-segment vectors)
/// and in rule evaluation (the match texts and forms of the explanation). This bound only goes
/// down; the target is 0.
const FULL_DECISION_CEILING: u64 = 18;

fn decide(setup: &policy_setup::Setup, trace: Trace) -> Trace {
    match setup.chain.evaluate_reusing(&setup.call, trace) {
        Evaluation::Decided(verdict) => verdict.into_trace(),
        Evaluation::Pending(_) => panic!("the bench command must be decided without approval"),
    }
}

fn blocks_of(run: impl FnOnce()) -> u64 {
    let before = dhat::HeapStats::get().total_blocks;
    run();
    dhat::HeapStats::get().total_blocks - before
}

#[test]
fn decisions_after_warm_up_do_not_allocate() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let setup = policy_setup::Setup::new();
    let (chain_only, command_rules) = (setup.chain_without_rules(), &setup);

    // The chain alone (listeners and guards giving static reasons, no rules listener).
    let mut trace = Trace::default();
    trace = match chain_only.evaluate_reusing(&setup.call, trace) {
        Evaluation::Decided(verdict) => verdict.into_trace(),
        Evaluation::Pending(_) => panic!("decided"),
    };
    let mut reused = Some(trace);
    let chain_blocks = blocks_of(|| {
        let verdict = match chain_only.evaluate_reusing(&setup.call, reused.take().unwrap()) {
            Evaluation::Decided(verdict) => verdict,
            Evaluation::Pending(_) => panic!("decided"),
        };
        assert!(verdict.is_allow());
        reused = Some(verdict.into_trace());
    });

    // The full decision, rules listener included.
    let mut trace = decide(command_rules, Trace::default());
    trace = decide(command_rules, trace);
    let mut reused = Some(trace);
    let mut allowed = false;
    let full_blocks = blocks_of(|| {
        let verdict = match setup
            .chain
            .evaluate_reusing(&setup.call, reused.take().unwrap())
        {
            Evaluation::Decided(verdict) => verdict,
            Evaluation::Pending(_) => panic!("decided"),
        };
        allowed = matches!(verdict, Verdict::Allow(_));
        reused = Some(verdict.into_trace());
    });
    assert!(allowed, "the bench command is allowed by the rules");

    // The parts of the rules listener, each alone.
    let limits = ShellLimits::default();
    let segmentation_blocks = blocks_of(|| {
        assert_eq!(segment(policy_setup::COMMAND, &limits).unwrap().len(), 3);
    });
    let rules = policy_setup::rules();
    let rules_blocks = blocks_of(|| {
        let evaluation = rules.evaluate("Bash", Subject::Command(policy_setup::COMMAND));
        assert_eq!(evaluation.effect(), Some(Effect::Allow));
    });
    println!(
        "allocations in one decision: chain alone {chain_blocks}, full {full_blocks}; \
         segmentation alone {segmentation_blocks}, rule evaluation (segmentation included) \
         {rules_blocks}"
    );
    assert_eq!(chain_blocks, 0, "the chain alone allocated");
    assert!(
        full_blocks <= FULL_DECISION_CEILING,
        "the full decision allocated {full_blocks} blocks, more than {FULL_DECISION_CEILING}"
    );
}
